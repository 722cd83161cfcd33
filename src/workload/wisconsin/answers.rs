//! Running one query: in the requested result mode, timed, its answer checked against the
//! relations' definition and against the first engine that answered it.

use super::presets::{ResultMode, WisconsinParams};
use super::queries::{self, relations, Kind, Query, RunConstants, TMP};
use super::Config;
use crate::engine::sql::{Row, SqlConnection, SqlValue};
use crate::measure::runner::{Span, StepOutcome, StepResources};
use crate::results::MeasurementKey;
use crate::workload::RunContext;
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::time::Instant;

/// The first answer seen for each (query, run), to hold every later engine to.
#[derive(Default)]
pub struct Answers {
    pub(super) first: BTreeMap<(u8, usize), Answer>,
    /// Wrong answers found (row counts or disagreements).
    pub wrong: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct Answer {
    pub(super) engine: String,
    pub(super) rows: u64,
    /// None for updates, whose answer is the number of rows they changed.
    pub(super) checksum: Option<u64>,
}

pub(super) fn count_of(rows: Vec<Row>) -> Result<u64> {
    match rows.first().and_then(|r| r.first()) {
        Some(SqlValue::Int(i)) => Ok(*i as u64),
        Some(SqlValue::Float(f)) => Ok(*f as u64),
        Some(SqlValue::Text(t)) => t.trim().parse().context("a count that is not a number"),
        other => bail!("a count query returned {other:?}"),
    }
}

/// A value as text every engine agrees on: integers in decimal (whatever type carried them),
/// strings without CHAR padding.
pub(super) fn normalized(v: &SqlValue, out: &mut String) {
    use std::fmt::Write;
    match v {
        SqlValue::Null => out.push_str("NULL"),
        SqlValue::Int(i) => {
            let _ = write!(out, "{i}");
        }
        SqlValue::Float(f) if f.fract() == 0.0 && f.abs() < 9e15 => {
            let _ = write!(out, "{}", *f as i64);
        }
        SqlValue::Float(f) => {
            let _ = write!(out, "{f:.6}");
        }
        SqlValue::Text(t) => out.push_str(t.trim_end_matches(' ')),
        SqlValue::Bytes(b) => out.push_str(String::from_utf8_lossy(b).trim_end_matches(' ')),
    }
}

/// An order-independent checksum of rows: the wrapping sum of a 64-bit hash of each row's
/// normalized text.
pub fn checksum(rows: &[Row]) -> u64 {
    let mut text = String::new();
    rows.iter().fold(0u64, |sum, row| {
        text.clear();
        for (i, v) in row.iter().enumerate() {
            if i > 0 {
                text.push('\u{1f}');
            }
            normalized(v, &mut text);
        }
        sum.wrapping_add(hash(text.as_bytes()))
    })
}

/// FNV-1a, then a finalizer so that sums of similar rows do not cancel out.
pub(super) fn hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The mode a query really runs in.
pub(super) fn effective_mode(q: &Query, requested: ResultMode) -> &'static str {
    match q.kind {
        Kind::Screen => "fetch",
        Kind::Select(_) => requested.name(),
        _ => "update",
    }
}

/// One timed run: its seconds, its answer, and what it cost (read over the timed part).
pub(super) struct Timed {
    pub(super) seconds: f64,
    pub(super) answer: Answer,
    pub(super) spent: Option<StepResources>,
}

/// Runs `f`, timing it and reading what it cost.
fn timed<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, f64, Option<StepResources>)> {
    let span = Span::start();
    let started = Instant::now();
    let out = f()?;
    let seconds = started.elapsed().as_secs_f64();
    Ok((out, seconds, span.finish()))
}

pub(super) fn run_once(
    params: &WisconsinParams,
    engine: &str,
    c: &mut dyn SqlConnection,
    q: &Query,
    run: usize,
    seed: u64,
) -> Result<Timed> {
    let n = params.tuples;
    let constants = RunConstants::draw(q, n, run, seed);
    let sql = queries::sql(q, n, &constants);
    let answer = |rows: u64, checksum: Option<u64>| Answer {
        engine: engine.to_string(),
        rows,
        checksum,
    };
    match (q.kind, params.result_mode) {
        // Rows sent to the client: to the screen, or fetched in place of being stored.
        (Kind::Screen, _) | (Kind::Select(_), ResultMode::Fetch) => {
            let (rows, seconds, spent) = timed(|| c.query(&sql.select))?;
            Ok(Timed {
                seconds,
                spent,
                answer: answer(rows.len() as u64, Some(checksum(&rows))),
            })
        }
        (Kind::Select(shape), ResultMode::Store) => {
            c.execute(&relations("drop", &[("table", &TMP)]))?;
            c.execute(&queries::tmp_ddl(shape, c.dialect()))?;
            let insert = relations("store", &[("tmp", &TMP), ("select", &sql.select)]);
            let (stored, seconds, spent) = timed(|| c.execute(&insert))?;
            let rows = c.query(&relations("read_back", &[("tmp", &TMP)]))?;
            c.execute(&relations("drop_tmp", &[("tmp", &TMP)]))?;
            if stored != rows.len() as u64 {
                bail!(
                    "the INSERT reported {stored} rows stored, the result relation holds {}",
                    rows.len()
                );
            }
            Ok(Timed {
                seconds,
                spent,
                answer: answer(rows.len() as u64, Some(checksum(&rows))),
            })
        }
        (Kind::Select(_), ResultMode::Count) => {
            let (counted, seconds, spent) = timed(|| count_of(c.query(&sql.count)?))?;
            // The rows themselves, untimed, for the checksum.
            let rows = c.query(&sql.select)?;
            if counted != rows.len() as u64 {
                bail!(
                    "COUNT(*) said {counted} rows, the query returned {}",
                    rows.len()
                );
            }
            Ok(Timed {
                seconds,
                spent,
                answer: answer(counted, Some(checksum(&rows))),
            })
        }
        _ => {
            for s in &sql.setup {
                let k = c.execute(s)?;
                if k != 1 {
                    bail!("setting up changed {k} rows, not 1: {s}");
                }
            }
            let (changed, seconds, spent) = timed(|| c.execute(&sql.select))?;
            for s in &sql.undo {
                let k = c.execute(s)?;
                if k != 1 {
                    bail!("undoing changed {k} rows, not 1: {s}");
                }
            }
            Ok(Timed {
                seconds,
                spent,
                answer: answer(changed, None),
            })
        }
    }
}

impl Answers {
    /// Holds `answer` to the first engine's answer to the same query and run, or keeps it as the
    /// first; returns the disagreement, if any.
    fn disagreement(&mut self, query: u8, run: usize, answer: &Answer) -> Option<String> {
        match self.first.get(&(query, run)) {
            None => {
                self.first.insert((query, run), answer.clone());
                None
            }
            Some(first) if first.rows != answer.rows || first.checksum != answer.checksum => {
                Some(format!(
                    "run {}: {} rows (checksum {:016x}), {} answered {} rows (checksum {:016x})",
                    run + 1,
                    answer.rows,
                    answer.checksum.unwrap_or(0),
                    first.engine,
                    first.rows,
                    first.checksum.unwrap_or(0)
                ))
            }
            Some(_) => None,
        }
    }
}

pub(super) fn run_query(
    params: &WisconsinParams,
    config: Config,
    c: &mut dyn SqlConnection,
    q: &Query,
    answers: &mut Answers,
    ctx: &mut RunContext,
) -> Result<()> {
    let engine = config.engine.name();
    let expected = queries::expected_rows(q, params.tuples);
    let mut outcomes = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    for run in 0..params.runs {
        if crate::measure::interrupted() {
            return Err(crate::measure::Interrupted.into());
        }
        let timed = match run_once(params, engine, c, q, run, ctx.seed) {
            Ok(t) => t,
            Err(e) => {
                // An engine that cannot run a query: an error of that query; the others go on.
                let text = format!(
                    "{engine} {}: run {}: {}",
                    q.step(),
                    run + 1,
                    crate::errors::sentence(&e)
                );
                eprintln!("hakari: error: {text}");
                ctx.recorder.error(text);
                answers.wrong += 1;
                let _ = c.execute(&relations("drop", &[("table", &TMP)]));
                return Ok(());
            }
        };
        if timed.answer.rows != expected {
            problems.push(format!(
                "run {}: {} rows, the relations' definition gives {expected}",
                run + 1,
                timed.answer.rows
            ));
        }
        problems.extend(answers.disagreement(q.number, run, &timed.answer));
        let mut latency = crate::measure::latency::new_histogram();
        latency.saturating_record(((timed.seconds * 1e9) as u64).max(1));
        outcomes.push(StepOutcome {
            latency,
            ..StepOutcome::whole(timed.seconds, timed.answer.rows).spent(timed.spent)
        });
    }
    let mut config_map = BTreeMap::new();
    config_map.insert("query".into(), q.number.into());
    config_map.insert("tuples".into(), params.tuples.into());
    config_map.insert(
        "result_mode".into(),
        effective_mode(q, params.result_mode).into(),
    );
    config_map.insert("index".into(), serde_json::to_value(q.index)?);
    config_map.insert("expected_rows".into(), expected.into());
    config_map.insert(
        "answer".into(),
        if problems.is_empty() { "ok" } else { "wrong" }.into(),
    );
    let key = MeasurementKey::new(engine, config.durability, 1, q.step(), config_map);
    ctx.measured(key, &outcomes)?;
    if !problems.is_empty() {
        answers.wrong += 1;
        let text = format!(
            "{engine} {}: wrong answer: {}",
            q.step(),
            problems.join("; ")
        );
        eprintln!("hakari: error: {text}");
        ctx.recorder.error(text);
    }
    Ok(())
}
