//! A run's series in the OpenMetrics text format, timestamped on the clock the run kept: every
//! interval's throughput and latency, and every resource reading per second, one sample at the
//! end of each interval. Prometheus loads it with `promtool tsdb create-blocks-from openmetrics`,
//! so a run can be seen in Grafana beside the server's own dashboards.

use crate::results::{Measurement, RunFigure, RunResult};
use std::collections::BTreeMap;
use std::fmt::Write;

/// One metric family: its samples, as lines, in the order they were added.
#[derive(Default)]
struct Family {
    help: &'static str,
    unit: &'static str,
    lines: Vec<String>,
}

/// An interval series: its metric's name, unit and help, and its value in an interval.
type Series = (
    &'static str,
    &'static str,
    &'static str,
    fn(&crate::measure::intervals::IntervalFigure) -> f64,
);

/// The runs as one OpenMetrics exposition (families grouped, `# EOF` last).
pub fn render(runs: &[RunResult]) -> String {
    let mut families: BTreeMap<String, Family> = BTreeMap::new();
    for r in runs {
        for m in &r.measurements {
            for (i, run) in m.runs.iter().enumerate() {
                let Some(start) = run.started_unix_s else {
                    continue;
                };
                let labels = labels(r, m, i + 1);
                add_intervals(&mut families, &labels, start, run);
                add_resources(&mut families, &labels, start, run);
            }
        }
    }
    let mut out = String::new();
    for (name, f) in &families {
        let _ = writeln!(out, "# TYPE {name} gauge");
        if !f.unit.is_empty() {
            let _ = writeln!(out, "# UNIT {name} {}", f.unit);
        }
        let _ = writeln!(out, "# HELP {name} {}", f.help);
        for line in &f.lines {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str("# EOF\n");
    out
}

fn add_intervals(
    families: &mut BTreeMap<String, Family>,
    labels: &str,
    start: f64,
    run: &RunFigure,
) {
    let kinds: [Series; 4] = [
        (
            "hakari_ops_per_second",
            "",
            "operations completed per second in the interval",
            |f| f.ops_per_sec,
        ),
        (
            "hakari_latency_p50_seconds",
            "seconds",
            "median latency in the interval",
            |f| f.p50_us / 1e6,
        ),
        (
            "hakari_latency_p99_seconds",
            "seconds",
            "99th percentile latency in the interval",
            |f| f.p99_us / 1e6,
        ),
        (
            "hakari_latency_max_seconds",
            "seconds",
            "slowest operation in the interval",
            |f| f.max_us / 1e6,
        ),
    ];
    for (name, unit, help, value) in kinds {
        let family = families.entry(name.into()).or_insert_with(|| Family {
            help,
            unit,
            ..Default::default()
        });
        for f in &run.intervals {
            let warmup = if f.warmup { ",warmup=\"true\"" } else { "" };
            family.lines.push(format!(
                "{name}{{{labels}{warmup}}} {} {:.3}",
                number(value(f)),
                start + f.t_s + f.seconds
            ));
        }
    }
}

fn add_resources(
    families: &mut BTreeMap<String, Family>,
    labels: &str,
    start: f64,
    run: &RunFigure,
) {
    let name = "hakari_resource_rate";
    let family = families.entry(name.into()).or_insert_with(|| Family {
        help: "a resource reading over the interval: a counter's change per second (CPU seconds per second, bytes per second), a gauge's level (bytes)",
        ..Default::default()
    });
    // Each reading is its own series, and a series' samples must come in time order.
    let mut readings: Vec<&String> = run.resources.iter().flat_map(|i| i.rates.keys()).collect();
    readings.sort();
    readings.dedup();
    for reading in readings {
        for i in &run.resources {
            if let Some(v) = i.rates.get(reading) {
                family.lines.push(format!(
                    "{name}{{{labels},reading=\"{}\"}} {} {:.3}",
                    escape(reading),
                    number(*v),
                    start + i.t_s + i.seconds
                ));
            }
        }
    }
}

/// The labels that tell a run's series apart.
fn labels(r: &RunResult, m: &Measurement, run: usize) -> String {
    let mut out = format!(
        "run_id=\"{}\",workload=\"{}\",engine=\"{}\",durability=\"{}\",threads=\"{}\",step=\"{}\",run=\"{run}\"",
        escape(&r.run_id),
        escape(&m.workload),
        escape(&m.engine),
        escape(&m.durability),
        m.threads,
        escape(&m.step)
    );
    for (k, v) in &m.config {
        let k: String = k
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let v = v
            .as_str()
            .map(String::from)
            .unwrap_or_else(|| v.to_string());
        let _ = write!(out, ",config_{k}=\"{}\"", escape(&v));
    }
    out
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn number(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        "NaN".into()
    }
}
