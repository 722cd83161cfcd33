//! Charts of behaviour over time and under load: throughput and p99 per interval for each step
//! (the warm-up shaded), latency against offered load, the open loop's table, and the TPC-H
//! throughput test's streams as a timeline.

use super::super::chart::{self, AxisKind, Bar, Labels, Lane, LineSeries};
use super::super::over_time::{load_curves, open_loop_table, series_by_step, tpch_timelines};
use crate::measure::intervals::IntervalFigure;
use crate::results::RunResult;

/// The section's HTML and how many charts it drew.
pub fn over_time(r: &RunResult) -> (String, usize) {
    let mut s = String::new();
    let mut charts = time_charts(r, &mut s);
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
    charts += load_charts(r, &mut s);
    charts += timelines(r, &mut s);
    if s.is_empty() {
        return (s, 0);
    }
    // An anchor for links to this run's charts.
    let anchor = format!(
        "<span id=\"over-time-{}\"></span>",
        super::escape(&r.run_id)
    );
    (anchor + &s, charts)
}

/// Throughput and p99 per interval for each step, one line per configuration, the warm-up
/// and the fault (as the first run with one had it) shaded.
fn time_charts(r: &RunResult, s: &mut String) -> usize {
    let mut charts = 0;
    let warmup = r.timing.as_ref().map_or(0.0, |t| t.warmup_s);
    let fault = r.timing.as_ref().and_then(|t| t.fault.clone());
    for (step, series) in series_by_step(r) {
        let mut shades = Vec::new();
        if warmup > 0.0 {
            shades.push((0.0, warmup, "warm-up"));
        }
        let name = fault.as_deref().unwrap_or("fault");
        if let Some((began, ended)) = series.iter().find_map(|s| s.fault) {
            // A stall's few milliseconds of a restart still show.
            shades.push((began, ended.max(began + 0.05), name));
        }
        let x = if series.iter().any(|s| s.partial_left_out) {
            "seconds into the step (end of each interval; a last one under half as long left out)"
        } else {
            "seconds into the step (end of each interval)"
        };
        let line = |pick: &dyn Fn(&IntervalFigure) -> f64| {
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
        for (what, y, points) in [
            ("throughput", "ops/s", line(&|f| f.ops_per_sec)),
            (
                "p99 latency",
                "p99 latency, ms",
                line(&|f| f.p99_us / 1000.0),
            ),
        ] {
            let title = format!("{step}: {what} per interval");
            let labels = Labels {
                title: &title,
                x,
                y,
            };
            let y_kind = wide_range(&points);
            let chart =
                chart::lines_shaded(&labels, &points, AxisKind::Linear, y_kind, &[], &shades);
            s.push_str(&chart);
            charts += 1;
        }
    }
    charts
}

/// Latency (p50 and p99 from the intended start) against the rate asked, per step.
fn load_charts(r: &RunResult, s: &mut String) -> usize {
    let mut charts = 0;
    for (step, curves) in load_curves(r) {
        let mut series = Vec::new();
        for c in &curves {
            for (what, p99) in [("p50", false), ("p99", true)] {
                series.push(LineSeries {
                    name: format!("{} {what}", c.label),
                    points: (c.points.iter())
                        .map(|p| (p.rate, if p99 { p.p99_us } else { p.p50_us } / 1000.0, 0.0))
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
    charts
}

/// The TPC-H throughput test's streams: which query each ran when.
fn timelines(r: &RunResult, s: &mut String) -> usize {
    let mut charts = 0;
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
    charts
}

/// A log axis when the lines' values span more than two decades.
fn wide_range(series: &[LineSeries]) -> AxisKind {
    chart::axis_for(series.iter().flat_map(|s| s.points.iter().map(|p| p.1)))
}
