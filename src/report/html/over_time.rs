//! Charts of behaviour over time and under load: throughput and p99 per interval for each step
//! (the warm-up shaded), latency against offered load, the open loop's table, and the TPC-H
//! throughput test's streams as a timeline.

use super::super::chart::{self, AxisKind, Bar, Labels, Lane, LineSeries};
use super::super::over_time::{load_curves, open_loop_table, series_by_step, tpch_timelines};
use crate::results::RunResult;

/// The section's HTML and how many charts it drew.
pub(super) fn over_time(r: &RunResult) -> (String, usize) {
    let mut s = String::new();
    let mut charts = 0;
    let warmup = r.timing.as_ref().map_or(0.0, |t| t.warmup_s);
    for (step, series) in series_by_step(r) {
        let shade = (warmup > 0.0).then_some((0.0, warmup, "warm-up"));
        let line = |pick: &dyn Fn(&crate::measure::intervals::IntervalFigure) -> f64| {
            (series.iter())
                .map(|s| LineSeries {
                    name: s.label.clone(),
                    points: (s.intervals.iter())
                        .map(|f| (f.t_s + f.seconds, pick(f), 0.0))
                        .collect(),
                    published: false,
                })
                .collect::<Vec<_>>()
        };
        let title = format!("{step}: throughput per interval");
        let labels = Labels {
            title: &title,
            x: "seconds into the step (end of each interval)",
            y: "ops/s",
        };
        let ops = line(&|f| f.ops_per_sec);
        s.push_str(&chart::lines_shaded(
            &labels,
            &ops,
            AxisKind::Linear,
            AxisKind::Linear,
            &[],
            shade,
        ));
        let title = format!("{step}: p99 latency per interval");
        let labels = Labels {
            title: &title,
            x: "seconds into the step (end of each interval)",
            y: "p99 latency, ms",
        };
        let p99 = line(&|f| f.p99_us / 1000.0);
        let y_kind = wide_range(&p99);
        s.push_str(&chart::lines_shaded(
            &labels,
            &p99,
            AxisKind::Linear,
            y_kind,
            &[],
            shade,
        ));
        charts += 2;
    }
    let open = open_loop_table(r);
    if !open.is_empty() {
        s.push_str(&open.html());
        s.push_str(
            "<p class=note>Open loop: each operation has an intended start on a fixed schedule and \
             its latency counts from there, so a stall delays every operation scheduled during it \
             (no coordinated omission). Service time counts from the actual start: what a closed \
             loop would have reported. Lag: how late operations started.</p>",
        );
    }
    for (step, curves) in load_curves(r) {
        let mut series = Vec::new();
        for c in &curves {
            for (what, pick) in [("p50", 0), ("p99", 1)] {
                series.push(LineSeries {
                    name: format!("{} {what}", c.label),
                    points: (c.points.iter())
                        .map(|p| {
                            (
                                p.rate,
                                if pick == 0 { p.p50_us } else { p.p99_us } / 1000.0,
                                0.0,
                            )
                        })
                        .collect(),
                    published: false,
                });
            }
        }
        let title = format!("{step}: latency against offered load");
        let labels = Labels {
            title: &title,
            x: "operations per second asked (open loop)",
            y: "latency from the intended start, ms",
        };
        let y_kind = wide_range(&series);
        s.push_str(&chart::lines(
            &labels,
            &series,
            AxisKind::Linear,
            y_kind,
            &[],
        ));
        charts += 1;
    }
    for (config, lanes) in tpch_timelines(r) {
        let lanes: Vec<Lane> = lanes
            .into_iter()
            .map(|l| Lane {
                name: l.name,
                bars: (l.runs.into_iter())
                    .map(|(label, start, seconds)| Bar {
                        // Queries by number; the refresh functions after them.
                        group: match label.strip_prefix("RF") {
                            Some(n) => 22 + n.parse().unwrap_or(0),
                            None => label.trim_start_matches('Q').parse().unwrap_or(0),
                        },
                        label,
                        start,
                        seconds,
                    })
                    .collect(),
            })
            .collect();
        let title = format!("{config}: throughput test streams");
        let labels = Labels {
            title: &title,
            x: "seconds from the release of the streams",
            y: "",
        };
        s.push_str(&chart::timeline(&labels, &lanes));
        charts += 1;
    }
    (s, charts)
}

/// A log axis when the positive values span more than two decades.
fn wide_range(series: &[LineSeries]) -> AxisKind {
    let values = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|v| *v > 0.0);
    let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if hi / lo > 100.0 {
        AxisKind::Log
    } else {
        AxisKind::Linear
    }
}
