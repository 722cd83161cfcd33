//! The YCSB view: per workload (mix and distribution) one table, a row per engine, level and
//! thread count, with the load's and the run's ops/s and each operation's ops/s and p99. The
//! terminal prints the tables; the HTML report shows the same tables.

use crate::report::parts;
use crate::report::table::Table;
use crate::report::view::{Part, Verdict, View};
use crate::results::{Measurement, RunResult};
use crate::units::{duration, thousands};

const KINDS: [&str; 5] = ["read", "update", "insert", "scan", "rmw"];

fn text(m: &Measurement, key: &str) -> String {
    match m.config.get(key) {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

/// (mix, distribution), in the order they ran.
fn workloads(ms: &[Measurement]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for m in ms {
        let w = (text(m, "mix"), text(m, "distribution"));
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// The tables of a ycsb run.
pub fn tables(r: &RunResult) -> Vec<Table> {
    let ms = &r.measurements;
    let mut tables = Vec::new();
    for (mix, distribution) in workloads(ms) {
        let of: Vec<&Measurement> = (ms.iter())
            .filter(|m| text(m, "mix") == mix && text(m, "distribution") == distribution)
            .collect();
        let kinds: Vec<&str> = (KINDS.into_iter())
            .filter(|k| of.iter().any(|m| m.step == *k))
            .collect();
        let mut headers: Vec<String> =
            ["engine", "durability", "threads", "load ops/s", "run ops/s"]
                .map(String::from)
                .into();
        for k in &kinds {
            headers.push(format!("{k} ops/s"));
            headers.push(format!("{k} p99"));
        }
        let sample = of[0];
        // Fields of drawn lengths (YCSB's fieldlengthdistribution) say from what to what.
        let bytes = match sample.config.contains_key("field_lengths") {
            true => format!(
                "{}-{} bytes ({})",
                text(sample, "min_field_length"),
                text(sample, "field_length"),
                text(sample, "field_lengths")
            ),
            false => format!("{} bytes", text(sample, "field_length")),
        };
        let title = format!(
            "ycsb-{mix} ({distribution}): {} records of {} x {bytes}; mean ops/s over runs, \
             p99 latency",
            thousands(
                sample
                    .config
                    .get("records")
                    .and_then(|v| v.as_f64())
                    .unwrap_or(0.0)
            ),
            text(sample, "field_count"),
        );
        let mut t = Table::new(title, headers, 3);
        let mut rows: Vec<(String, String, usize)> = Vec::new();
        for m in &of {
            let row = (m.engine.clone(), m.durability.clone(), m.threads);
            if !rows.contains(&row) {
                rows.push(row);
            }
        }
        for (engine, level, threads) in rows {
            let find = |step: &str| {
                of.iter().copied().find(|m| {
                    m.engine == engine
                        && m.durability == level
                        && m.threads == threads
                        && m.step == step
                })
            };
            let rate =
                |step: &str| find(step).map_or("-".into(), |m| thousands(m.ops_per_sec_mean));
            let mut cells = vec![engine.clone(), level.clone(), threads.to_string()];
            cells.push(rate("load"));
            cells.push(rate("run"));
            for k in &kinds {
                cells.push(rate(k));
                let p99 = find(k).and_then(|m| m.latency.as_ref());
                cells.push(p99.map_or("-".into(), |l| duration(l.p99_us / 1e6)));
            }
            t.row(cells);
        }
        tables.push(t);
    }
    tables
}

/// The ycsb section: its tables, then the timing parts.
pub struct YcsbView;

impl View for YcsbView {
    fn parts(&self, r: &RunResult, _: &[Verdict]) -> Vec<Part> {
        let mut all = vec![Part::Tables(tables(r))];
        all.extend(parts::timing(r));
        all
    }
}
