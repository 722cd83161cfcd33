//! The Wisconsin table, shaped like paper 000's table 7: queries as rows, engines as columns,
//! elapsed milliseconds. Shared by the terminal and the HTML report.

use super::published::{self, Published};
use crate::measure::stats::Summary;
use crate::results::{Measurement, RunResult};

/// One column: an engine at a durability level (the level shown only when several ran).
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub engine: String,
    pub durability: String,
    pub label: String,
}

/// One row: a query by number and its step name.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryRow {
    pub number: u64,
    pub step: String,
}

/// Milliseconds of one query on one column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    pub mean_ms: f64,
    pub stddev_ms: f64,
    pub min_ms: f64,
    pub runs: usize,
    /// The answer was checked and found wrong (a count or a disagreement between engines).
    pub wrong: bool,
}

pub fn columns(ms: &[Measurement]) -> Vec<Column> {
    let mut levels: Vec<&str> = ms.iter().map(|m| m.durability.as_str()).collect();
    levels.sort();
    levels.dedup();
    let mut out: Vec<Column> = Vec::new();
    for m in ms {
        if !out
            .iter()
            .any(|c| c.engine == m.engine && c.durability == m.durability)
        {
            out.push(Column {
                engine: m.engine.clone(),
                durability: m.durability.clone(),
                label: if levels.len() > 1 {
                    format!("{} {}", m.engine, m.durability)
                } else {
                    m.engine.clone()
                },
            });
        }
    }
    out
}

pub fn query_number(m: &Measurement) -> u64 {
    m.config.get("query").and_then(|v| v.as_u64()).unwrap_or(0)
}

/// Queries in table 7's order (by number).
pub fn rows(ms: &[Measurement]) -> Vec<QueryRow> {
    let mut out: Vec<QueryRow> = Vec::new();
    for m in ms {
        if !out.iter().any(|r| r.step == m.step) {
            out.push(QueryRow {
                number: query_number(m),
                step: m.step.clone(),
            });
        }
    }
    out.sort_by_key(|r| r.number);
    out
}

pub fn cell(ms: &[Measurement], row: &QueryRow, col: &Column) -> Option<Cell> {
    let m = ms
        .iter()
        .find(|m| m.step == row.step && m.engine == col.engine && m.durability == col.durability)?;
    let s = Summary::of(&m.runs.iter().map(|r| r.seconds * 1e3).collect::<Vec<_>>());
    Some(Cell {
        mean_ms: s.mean,
        stddev_ms: s.stddev,
        min_ms: s.min,
        runs: s.n,
        wrong: m.config.get("answer").and_then(|v| v.as_str()) == Some("wrong"),
    })
}

/// Table 7's figure beside bdb-sql, when the run reproduces it.
pub fn published_for(r: &RunResult, col: &Column, row: &QueryRow) -> Option<Published> {
    if r.preset.as_deref() == Some("bdb-11gr2") && col.engine == "bdb-sql" {
        published::bdb_11gr2_wisconsin(row.number as usize)
    } else {
        None
    }
}

/// Milliseconds with the digits that matter at their size.
pub fn ms(v: f64) -> String {
    if !v.is_finite() {
        "-".into()
    } else if v < 10.0 {
        format!("{v:.3}")
    } else if v < 1000.0 {
        format!("{v:.1}")
    } else {
        crate::units::thousands(v)
    }
}

/// A parameter of the run, for the table's title.
pub fn parameter(r: &RunResult, key: &str) -> String {
    r.parameters
        .get(key)
        .map(|v| v.to_string().trim_matches('"').to_string())
        .unwrap_or_else(|| "?".into())
}
