//! The page's charts of what each step cost over time, on the same axis as its throughput and
//! p99 lines: client and server CPU, the device's writes, the server's WAL or redo bytes.

use super::chart::{self, AxisKind, Labels, LineSeries};
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
    }
    (out, drawn)
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
