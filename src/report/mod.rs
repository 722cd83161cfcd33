//! Everything that turns result data into something to read: terminal tables, the HTML page,
//! the published figures beside them. Reports are made from result files, never the other way
//! round. A run's section is its workload's view (`view.rs`), made of the parts here; the report
//! names no workload.

pub mod chart;
pub mod compare;
pub mod costs;
pub mod engines;
pub mod gate;
pub mod html;
pub mod markup;
pub mod openmetrics;
pub mod over_time;
pub mod parts;
pub mod published;
pub mod resources;
pub mod rows;
pub mod significance;
pub mod summary;
pub mod table;
pub mod tables;
pub mod terminal;
pub mod throughput;
pub mod view;

use crate::results::Measurement;
/// Steps in the papers' column order first (insert, fetch, delete, update), then as they came.
pub fn step_columns(ms: &[Measurement]) -> Vec<String> {
    const PAPER_ORDER: [&str; 7] = [
        "insert",
        "fetch",
        "delete",
        "update",
        "write",
        "read",
        "bulk-read",
    ];
    let mut steps: Vec<String> = Vec::new();
    for s in PAPER_ORDER {
        if ms.iter().any(|m| m.step == s) {
            steps.push(s.into());
        }
    }
    for m in ms {
        if !steps.contains(&m.step) {
            steps.push(m.step.clone());
        }
    }
    steps
}

/// Config fields whose values differ between a run's measurements (tpcb's `table_sets`, say):
/// they tell configurations apart beside engine, durability and threads.
pub fn varying_config(ms: &[Measurement]) -> Vec<String> {
    let mut keys: Vec<String> = ms.iter().flat_map(|m| m.config.keys().cloned()).collect();
    keys.sort();
    keys.dedup();
    keys.retain(|k| {
        let first = ms.first().and_then(|m| m.config.get(k));
        ms.iter().any(|m| m.config.get(k) != first)
    });
    keys
}

/// The durability level with the varying config fields: "sync" or "sync table_sets=16".
pub fn durability_label(m: &Measurement, varying: &[String]) -> String {
    let mut label = m.durability.clone();
    for k in varying {
        if let Some(v) = m.config.get(k) {
            label.push_str(&format!(" {k}={}", v.to_string().trim_matches('"')));
        }
    }
    label
}

/// The level name inside a label made by [`durability_label`].
pub fn level_of(label: &str) -> &str {
    label.split(' ').next().unwrap_or(label)
}

/// Configurations (engine, durability label, threads) in the order they ran.
pub fn configurations(ms: &[Measurement]) -> Vec<(String, String, usize)> {
    let varying = varying_config(ms);
    let mut out: Vec<(String, String, usize)> = Vec::new();
    for m in ms {
        let c = (m.engine.clone(), durability_label(m, &varying), m.threads);
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// A config field of a measurement as plain text ("" when absent).
pub fn config_text(m: &Measurement, key: &str) -> String {
    m.config
        .get(key)
        .map(|v| {
            v.as_str()
                .map(String::from)
                .unwrap_or_else(|| v.to_string())
        })
        .unwrap_or_default()
}
