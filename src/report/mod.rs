//! Everything that turns result data into something to read: terminal tables, the published
//! figures beside them. Reports are made from result files, never the other way round.

pub mod chart;
pub mod compare;
pub mod html;
pub mod published;
pub mod table;
pub mod terminal;

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

/// Configurations (engine, durability, threads) in the order they ran.
pub fn configurations(ms: &[Measurement]) -> Vec<(String, String, usize)> {
    let mut out: Vec<(String, String, usize)> = Vec::new();
    for m in ms {
        let c = (m.engine.clone(), m.durability.clone(), m.threads);
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}
