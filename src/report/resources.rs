//! The page's charts of what each step cost over time, on the same axis as its throughput and
//! p99 lines: client and server CPU, the device's writes, the WAL, redo or log bytes, and what
//! the server's sessions waited on as stacked shares.

use super::chart::{self, AxisKind, Band, Labels, LineSeries};
use crate::measure::resources::ResourceInterval;
use crate::results::{Measurement, RunResult};

/// A chart: its title, its y axis, and its lines (whose, the readings summed, a scale).
type Chart = (&'static str, &'static str, &'static [Line]);
type Line = (&'static str, &'static [&'static str], f64);

/// The resource series as charts, one per step and kind of reading, and how many were drawn.
pub fn charts(r: &RunResult) -> (String, usize) {
    let kinds: [Chart; 3] = [
        (
            "CPU",
            "cores busy",
            &[
                ("client", &["client.cpu_user_s", "client.cpu_system_s"], 1.0),
                ("server", &["server.cpu_user_s", "server.cpu_system_s"], 1.0),
            ],
        ),
        (
            "device I/O",
            "MiB written per second",
            &[("device", &["device.write_bytes"], 1.0 / 1048576.0)],
        ),
        (
            "log written",
            "MiB per second",
            &[
                ("WAL", &["postgres.wal_bytes"], 1.0 / 1048576.0),
                ("redo", &["mysql.innodb_os_log_written"], 1.0 / 1048576.0),
                ("WAL", &["rocksdb.wal_bytes"], 1.0 / 1048576.0),
                ("log", &["bdb.log_bytes"], 1.0 / 1048576.0),
            ],
        ),
    ];
    let mut out = String::new();
    let mut drawn = 0;
    for step in super::step_columns(&r.measurements) {
        let ms: Vec<&Measurement> = (r.measurements.iter())
            .filter(|m| {
                m.step == step && m.runs.first().is_some_and(|run| !run.resources.is_empty())
            })
            .collect();
        for (what, y, lines) in kinds {
            let series: Vec<LineSeries> = ms
                .iter()
                .flat_map(|m| {
                    let run = &m.runs[0].resources;
                    lines.iter().filter_map(move |(who, keys, scale)| {
                        let points = points(run, keys, *scale);
                        (!points.is_empty()).then(|| LineSeries {
                            name: format!("{} {} t{} {who}", m.engine, m.durability, m.threads),
                            points,
                            published: false,
                        })
                    })
                })
                .collect();
            if series.is_empty() {
                continue;
            }
            let title = format!("{step}: {what} per interval (first run)");
            let labels = Labels {
                title: &title,
                x: "seconds into the step (end of each interval)",
                y,
            };
            out.push_str(&chart::lines(
                &labels,
                &series,
                AxisKind::Linear,
                AxisKind::Linear,
                &[],
            ));
            drawn += 1;
        }
        for m in &ms {
            if let Some(svg) = waits(m, &step) {
                out.push_str(&svg);
                drawn += 1;
            }
        }
    }
    (out, drawn)
}

/// How many of a wait profile's events get a band of their own; the rest are one band.
const BANDS: usize = 6;

/// A step's wait profile over time (first run), as stacked shares of each interval's samples
/// (PostgreSQL) or wait time (MariaDB/MySQL); None when the step has none.
fn waits(m: &Measurement, step: &str) -> Option<String> {
    let run = &m.runs[0].resources;
    let prefix = ["postgres.wait.", "mysql.wait."]
        .into_iter()
        .find(|p| run.iter().any(|i| i.rates.keys().any(|n| n.starts_with(p))))?;
    let mut totals: Vec<(&str, f64)> = Vec::new();
    for i in run {
        for (name, v) in i.rates.iter().filter(|(n, _)| n.starts_with(prefix)) {
            match totals.iter_mut().find(|(n, _)| n == name) {
                Some((_, t)) => *t += v * i.seconds,
                None => totals.push((name, v * i.seconds)),
            }
        }
    }
    totals.retain(|(_, t)| *t > 0.0);
    if totals.is_empty() {
        return None;
    }
    totals.sort_by(|a, b| b.1.total_cmp(&a.1));
    let named: Vec<&str> = totals.iter().take(BANDS).map(|(n, _)| *n).collect();
    let intervals: Vec<&ResourceInterval> = (run.iter())
        .filter(|i| i.rates.keys().any(|n| n.starts_with(prefix)))
        .collect();
    let share = |i: &ResourceInterval, keep: &dyn Fn(&str) -> bool| {
        let all: f64 = (i.rates.iter())
            .filter(|(n, _)| n.starts_with(prefix))
            .map(|(_, v)| v)
            .sum();
        let part: f64 = (i.rates.iter())
            .filter(|(n, _)| n.starts_with(prefix) && keep(n))
            .map(|(_, v)| v)
            .sum();
        if all > 0.0 {
            part / all
        } else {
            0.0
        }
    };
    let mut bands: Vec<Band> = (named.iter())
        .map(|n| Band {
            name: n[prefix.len()..].to_string(),
            shares: intervals.iter().map(|i| share(i, &|e| e == *n)).collect(),
        })
        .collect();
    if totals.len() > BANDS {
        bands.push(Band {
            name: "other".into(),
            shares: (intervals.iter())
                .map(|i| share(i, &|e| !named.contains(&e)))
                .collect(),
        });
    }
    let spans: Vec<(f64, f64)> = (intervals.iter())
        .map(|i| (i.t_s.max(0.0), i.t_s + i.seconds))
        .collect();
    let title = format!(
        "{step}: {} {} t{}: what the server's sessions waited on (first run)",
        m.engine, m.durability, m.threads
    );
    let labels = Labels {
        title: &title,
        x: "seconds into the step (each interval a column)",
        y: "share of sampled sessions",
    };
    Some(chart::stacked(&labels, &spans, &bands))
}

/// The sum of `keys` per second at the end of each interval that has any of them.
fn points(series: &[ResourceInterval], keys: &[&str], scale: f64) -> Vec<(f64, f64, f64)> {
    series
        .iter()
        .filter(|i| keys.iter().any(|k| i.rates.contains_key(*k)))
        .map(|i| {
            let v: f64 = keys.iter().filter_map(|k| i.rates.get(*k)).sum();
            (i.t_s + i.seconds, v * scale, 0.0)
        })
        .collect()
}
