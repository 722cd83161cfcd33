//! The script view: transactions per second by engine, level and clients (and per script when
//! a run draws from several), then each statement's latency as `pgbench -r` lists it. The
//! terminal prints the tables; the HTML report shows the same tables.

use crate::report::parts;
use crate::report::table::Table;
use crate::report::view::{Part, Verdict, View};
use crate::results::{Measurement, RunResult};
use crate::units::{duration, thousands};

/// Rows of the first table: (engine, durability, clients), in the order they ran.
fn configurations(ms: &[Measurement]) -> Vec<(String, String, usize)> {
    let mut out: Vec<(String, String, usize)> = Vec::new();
    for m in ms {
        let row = (m.engine.clone(), m.durability.clone(), m.threads);
        if !out.contains(&row) {
            out.push(row);
        }
    }
    out
}

fn latency(
    m: Option<&Measurement>,
    of: fn(&crate::measure::latency::LatencySummary) -> f64,
) -> String {
    m.and_then(|m| m.latency.as_ref())
        .map_or("-".into(), |l| duration(of(l) / 1e6))
}

/// The tables of a script run.
pub fn tables(r: &RunResult) -> Vec<Table> {
    let ms = &r.measurements;
    let scripts: Vec<&str> = (ms.iter())
        .filter_map(|m| m.step.strip_prefix("script "))
        .fold(Vec::new(), |mut all, s| {
            if !all.contains(&s) {
                all.push(s);
            }
            all
        });
    let described = (ms.first())
        .and_then(|m| m.config.get("scripts"))
        .and_then(|v| v.as_str())
        .unwrap_or("");
    let mut headers: Vec<String> = [
        "engine",
        "durability",
        "clients",
        "tps",
        "p50",
        "p99",
        "retries",
    ]
    .map(String::from)
    .into();
    headers.extend(scripts.iter().map(|s| format!("{s} tps")));
    let mut totals = Table::new(
        format!("script {described}: transactions per second (mean over runs), latency of a whole transaction"),
        headers,
        3,
    );
    let mut statements = Table::new(
        "statements: latency of each, as pgbench -r (mean, p99)".to_string(),
        [
            "engine",
            "durability",
            "clients",
            "where",
            "statement",
            "mean",
            "p99",
        ]
        .map(String::from)
        .into(),
        5,
    );
    for (engine, level, clients) in configurations(ms) {
        let of: Vec<&Measurement> = (ms.iter())
            .filter(|m| m.engine == engine && m.durability == level && m.threads == clients)
            .collect();
        let find = |step: &str| of.iter().copied().find(|m| m.step == step);
        let run = find("run");
        let mut cells = vec![engine.clone(), level.clone(), clients.to_string()];
        cells.push(run.map_or("-".into(), |m| thousands(m.ops_per_sec_mean)));
        cells.push(latency(run, |l| l.p50_us));
        cells.push(latency(run, |l| l.p99_us));
        cells.push(run.map_or("-".into(), |m| m.retries.to_string()));
        for s in &scripts {
            let m = find(&format!("script {s}"));
            cells.push(m.map_or("-".into(), |m| thousands(m.ops_per_sec_mean)));
        }
        totals.row(cells);
        for m in of.iter().filter(|m| m.config.contains_key("statement")) {
            let text = m.config["statement"].as_str().unwrap_or("");
            let shown = match text.char_indices().nth(60) {
                Some((cut, _)) => format!("{}...", &text[..cut]),
                None => text.to_string(),
            };
            statements.row(vec![
                engine.clone(),
                level.clone(),
                clients.to_string(),
                m.step.clone(),
                shown,
                latency(Some(m), |l| l.mean_us),
                latency(Some(m), |l| l.p99_us),
            ]);
        }
    }
    vec![totals, statements]
}

/// The script section: its tables hold each statement's latency, so the terminal prints no
/// latency table (the page shows one).
pub struct ScriptView;

impl View for ScriptView {
    fn parts(&self, r: &RunResult, _: &[Verdict]) -> Vec<Part> {
        vec![
            Part::Tables(tables(r)),
            parts::over_time(r),
            parts::latency_page(r),
            parts::open_loop(r),
        ]
    }
}
