//! The Wisconsin view, shaped like paper 000's table 7: queries as rows, engines as columns,
//! elapsed milliseconds; on the page a bar chart per query.

mod page;

use crate::measure::stats::Summary;
use crate::report::parts;
use crate::report::published::{self, Published};
use crate::report::table::Table;
use crate::report::view::{Part, Verdict, View};
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

/// The Wisconsin section: a query's latency is its time, already in the table, so there is no
/// latency table.
pub struct WisconsinView;

impl View for WisconsinView {
    fn parts(&self, r: &RunResult, _: &[Verdict]) -> Vec<Part> {
        vec![
            Part::Terminal(table(r)),
            Part::html(page::wisconsin_section(r)),
            parts::over_time(r),
            parts::open_loop(r),
        ]
    }

    /// Per engine (and level), the 32 queries' mean times added up, and wrong answers.
    fn headline(&self, r: &RunResult) -> Vec<String> {
        let ms = &r.measurements;
        let rows = rows(ms);
        (columns(ms).iter())
            .map(|c| {
                let cells: Vec<Cell> = rows.iter().filter_map(|q| cell(ms, q, c)).collect();
                let total: f64 = cells.iter().map(|x| x.mean_ms).sum();
                let wrong = cells.iter().filter(|x| x.wrong).count();
                let mut line = format!(
                    "{}: {} queries in {} (sum of mean times)",
                    c.label,
                    cells.len(),
                    crate::units::duration(total / 1e3)
                );
                if wrong > 0 {
                    line.push_str(&format!(", {wrong} WRONG"));
                }
                line
            })
            .collect()
    }
}

/// Queries as rows and engines as columns, as table 7; table 7's own figures beside bdb-sql
/// under the bdb-11gr2 preset.
fn table(r: &RunResult) -> String {
    let measurements = &r.measurements;
    let columns = columns(measurements);
    let rows = rows(measurements);
    let runs = measurements.first().map(|m| m.runs.len()).unwrap_or(0);
    let published_beside: Vec<bool> = columns
        .iter()
        .map(|c| rows.iter().any(|q| published_for(r, c, q).is_some()))
        .collect();
    let mut headers = vec!["#".to_string(), "query".into()];
    for (c, p) in columns.iter().zip(&published_beside) {
        headers.push(format!("{} ms ± sd", c.label));
        headers.push("min".into());
        if *p {
            headers.push("table 7 ms".into());
        }
    }
    let mut t = Table::new(
        format!(
            "wisconsin: elapsed ms per query, mean ± sample stddev and min of {runs} run(s); {} tuples, result mode {}",
            parameter(r, "tuples"),
            parameter(r, "result_mode")
        ),
        headers,
        2,
    );
    let mut sources = Vec::new();
    let mut wrong = false;
    for q in &rows {
        let name = q.step.split_once(' ').map(|(_, n)| n).unwrap_or(&q.step);
        let mut cells = vec![q.number.to_string(), name.to_string()];
        for (c, p) in columns.iter().zip(&published_beside) {
            match cell(measurements, q, c) {
                Some(cell) => {
                    wrong |= cell.wrong;
                    cells.push(format!(
                        "{}{} ± {}",
                        if cell.wrong { "WRONG " } else { "" },
                        ms(cell.mean_ms),
                        ms(cell.stddev_ms)
                    ));
                    cells.push(ms(cell.min_ms));
                }
                None => cells.extend(["-".into(), "-".into()]),
            }
            if *p {
                match published_for(r, c, q) {
                    Some(p) => {
                        cells.push(ms(p.mean));
                        if !sources.contains(&p.source) {
                            sources.push(p.source);
                        }
                    }
                    None => cells.push(String::new()),
                }
            }
        }
        t.row(cells);
    }
    let mut out = t.render();
    if wrong {
        out.push_str(
            "WRONG: the answer's row count or checksum was not what it must be (see the errors)\n",
        );
    }
    for s in sources {
        out.push_str(&format!(
            "table 7: {s}, mean of 10 runs; old hardware, a reference, not a target\n"
        ));
    }
    out
}
