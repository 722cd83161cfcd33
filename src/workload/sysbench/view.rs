//! The sysbench view: per engine and level, what sysbench's report gives (transactions and
//! queries per second, reads, writes and other statements per transaction, errors, reconnects,
//! latency at `--percentile`) beside hakari's latency table, intervals and costs. The counts
//! are readings of the run (`CountsSource`), so they are figures like any other.

use super::sql::Counts;
use crate::measure::resources::{Reading, Readings, Source};
use crate::report::parts;
use crate::report::table::Table;
use crate::report::view::{Part, Verdict, View};
use crate::results::{Measurement, RunResult};
use crate::units::{duration, thousands};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The threads' statement counts, as readings: `sysbench.reads`, `.writes`, `.other`,
/// `.errors`, `.reconnects`.
pub struct CountsSource(pub Vec<Arc<Counts>>);

impl Source for CountsSource {
    fn read(&mut self, into: &mut Readings) -> anyhow::Result<()> {
        let sum = |f: fn(&Counts) -> &std::sync::atomic::AtomicU64| -> f64 {
            self.0
                .iter()
                .map(|c| f(c).load(Ordering::Relaxed))
                .sum::<u64>() as f64
        };
        for (name, total) in [
            ("sysbench.reads", sum(|c| &c.reads)),
            ("sysbench.writes", sum(|c| &c.writes)),
            ("sysbench.other", sum(|c| &c.other)),
            ("sysbench.errors", sum(|c| &c.errors)),
            ("sysbench.reconnects", sum(|c| &c.reconnects)),
        ] {
            into.insert(name.to_string(), Reading::Tally(total));
        }
        Ok(())
    }

    fn name(&self) -> String {
        "sysbench's statement counts".into()
    }
}

fn figure(m: &Measurement, name: &str, digits: usize) -> String {
    m.figure(name)
        .map_or("-".into(), |v| format!("{v:.digits$}"))
}

/// The run's table, a row per engine, level and thread count.
pub fn tables(r: &RunResult) -> Vec<Table> {
    let script = (r.measurements.first())
        .and_then(|m| m.config.get("script"))
        .and_then(|v| v.as_str())
        .unwrap_or("");
    let percentile = (r.parameters.get("percentile"))
        .and_then(|v| v.as_f64())
        .unwrap_or(95.0);
    let mut table = Table::new(
        format!("sysbench {script}: transactions and queries per second (mean over runs), statements per transaction as sysbench counts them"),
        [
            "engine", "durability", "threads", "tps", "qps", "reads/txn", "writes/txn", "other/txn",
            "errors/s", "reconnects/s", &format!("p{percentile}"),
        ]
        .map(String::from)
        .into(),
        3,
    );
    for m in r.measurements.iter().filter(|m| m.step == "run") {
        table.row(vec![
            m.engine.clone(),
            m.durability.clone(),
            m.threads.to_string(),
            thousands(m.ops_per_sec_mean),
            m.figure("sysbench.queries_per_s")
                .map_or("-".into(), thousands),
            figure(m, "sysbench.reads_per_op", 2),
            figure(m, "sysbench.writes_per_op", 2),
            figure(m, "sysbench.other_per_op", 2),
            figure(m, "sysbench.errors_per_s", 2),
            figure(m, "sysbench.reconnects_per_s", 2),
            (m.latency.as_ref())
                .and_then(|l| at(l, percentile))
                .map_or("-".into(), |us| duration(us / 1e6)),
        ]);
    }
    vec![table]
}

/// The percentiles hakari keeps, as sysbench's `--percentile` names them.
pub const PERCENTILES: [f64; 5] = [50.0, 95.0, 99.0, 99.9, 100.0];

fn at(l: &crate::measure::latency::LatencySummary, percentile: f64) -> Option<f64> {
    let kept = [l.p50_us, l.p95_us, l.p99_us, l.p999_us, l.max_us];
    (PERCENTILES.iter().position(|&p| p == percentile)).map(|i| kept[i])
}

pub struct SysbenchView;

impl View for SysbenchView {
    fn parts(&self, r: &RunResult, _: &[Verdict]) -> Vec<Part> {
        let mut parts = vec![Part::Tables(tables(r))];
        parts.extend(parts::timing(r));
        parts
    }
}

/// `--output sysbench`: the `run` step in sysbench's own report layout, for scripts and
/// dashboards that parse it (its minimum latency and thread fairness are not kept: left out).
pub struct SysbenchReport;

impl View for SysbenchReport {
    fn parts(&self, r: &RunResult, _: &[Verdict]) -> Vec<Part> {
        let percentile = (r.parameters.get("percentile"))
            .and_then(|v| v.as_f64())
            .unwrap_or(95.0);
        let text: String = (r.measurements.iter())
            .filter(|m| m.step == "run")
            .map(|m| sysbench_report(m, percentile))
            .collect();
        vec![Part::Terminal(text)]
    }

    fn derived(&self) -> bool {
        false
    }
}

/// One measurement as sysbench 1.0.20 reports a run, over all of its runs.
fn sysbench_report(m: &Measurement, percentile: f64) -> String {
    let total = |name: &str| -> u64 {
        m.runs
            .iter()
            .map(|r| r.usage.get(name).copied().unwrap_or(0.0))
            .sum::<f64>() as u64
    };
    let (read, write, other) = (
        total("sysbench.reads"),
        total("sysbench.writes"),
        total("sysbench.other"),
    );
    let queries = read + write + other;
    let events: u64 = m.runs.iter().map(|r| r.ops).sum();
    let seconds: f64 = m.runs.iter().map(|r| r.seconds).sum();
    let per = |n: u64| n as f64 / seconds.max(f64::MIN_POSITIVE);
    let mut out = String::from("SQL statistics:\n    queries performed:\n");
    for (name, n) in [
        ("read", read),
        ("write", write),
        ("other", other),
        ("total", queries),
    ] {
        out += &format!("        {:<33}{n}\n", format!("{name}:"));
    }
    for (name, n) in [
        ("transactions", events),
        ("queries", queries),
        ("ignored errors", total("sysbench.errors")),
        ("reconnects", total("sysbench.reconnects")),
    ] {
        out += &format!(
            "    {:<37}{n:<6} ({:.2} per sec.)\n",
            format!("{name}:"),
            per(n)
        );
    }
    out += &format!(
        "\nGeneral statistics:\n    total time:                          {seconds:.4}s\n    \
         total number of events:              {events}\n\nLatency (ms):\n"
    );
    if let Some(l) = &m.latency {
        let ms = |us: f64| us / 1000.0;
        out += &format!("         avg: {:39.2}\n", ms(l.mean_us));
        out += &format!("         max: {:39.2}\n", ms(l.max_us));
        if let Some(p) = at(l, percentile) {
            out += &format!(
                "        {:3}th percentile: {:27.2}\n",
                percentile as u64,
                ms(p)
            );
        }
        out += &format!("         sum: {:39.2}\n", ms(l.mean_us) * l.count as f64);
    }
    out
}
