//! The Wisconsin benchmark (DeWitt; paper 000 table 7): the 32 queries on TENKTUP1, TENKTUP2,
//! ONEKTUP and BPRIME, single user, each timed over several runs.
//!
//! Phases as in the chapter: load the relations without any index (no primary key either) and
//! run the no-index queries; then build a clustered index on unique2 and a non-clustered one on
//! unique1 and run the rest. Loading and index building are reported as metrics, apart from the
//! query times.
//!
//! Answers are checked, never assumed: every run's row count against the count the relations'
//! definition implies, and every engine's answer (count and an order-independent checksum of the
//! rows) against the first engine's for the same query and run. A difference is an error of that
//! engine and query; the figures stay, and the run ends failed.

pub mod generator;
pub mod presets;
pub mod queries;
#[cfg(test)]
pub(crate) mod snapshot;

use crate::durability::Durability;
use crate::engine::sql::{
    Dialect, Row, SqlConnection, SqlDatabase, SqlEngine, SqlOptions, SqlValue,
};
use crate::measure::runner::StepOutcome;
use crate::results::{EngineRecord, Measurement, MeasurementKey, Metric};
use crate::workload::RunContext;
use anyhow::{bail, Context, Result};
use presets::{ResultMode, WisconsinParams};
use queries::{Kind, Query, RunConstants, BPRIME, ONEK, TENK1, TENK2, TMP};
use std::collections::BTreeMap;
use std::time::Instant;

/// An engine at a durability level.
#[derive(Clone, Copy)]
pub struct Config {
    pub engine: &'static dyn SqlEngine,
    pub durability: Durability,
}

pub fn plan(
    params: &WisconsinParams,
    engines: &[&'static dyn SqlEngine],
    named: Option<&[Durability]>,
) -> Result<(Vec<Config>, Vec<String>)> {
    generator::check_size(params.tuples)?;
    if params.runs == 0 {
        bail!("--runs must be at least 1");
    }
    if params.queries.is_empty() {
        bail!("--queries names no query");
    }
    let mut configs = Vec::new();
    let mut notes = Vec::new();
    for &engine in engines {
        for &level in named.unwrap_or(&params.default_durability) {
            match crate::engine::sql::check_combination(engine, level) {
                Ok(()) => configs.push(Config {
                    engine,
                    durability: level,
                }),
                Err(e) if named.is_some() => return Err(e),
                Err(e) => notes.push(format!("skipped: {e}")),
            }
        }
    }
    Ok((configs, notes))
}

/// The first answer seen for each (query, run), to hold every later engine to.
#[derive(Default)]
pub struct Answers {
    first: BTreeMap<(u8, usize), Answer>,
    /// Wrong answers found (row counts or disagreements).
    pub wrong: usize,
}

#[derive(Clone, Debug, PartialEq)]
struct Answer {
    engine: String,
    rows: u64,
    /// None for updates, whose answer is the number of rows they changed.
    checksum: Option<u64>,
}

pub fn run(
    params: &WisconsinParams,
    configs: &[Config],
    url: Option<&str>,
    ctx: &mut RunContext,
) -> Result<()> {
    ctx.recorder.note(format!(
        "result mode {}: {}; queries 7 and 8 are always fetched by the client (\"to screen\"), updates are single autocommit statements, undone untimed after each run",
        params.result_mode.name(),
        match params.result_mode {
            ResultMode::Store => "INSERT INTO a result relation (TMP), as the original; TMP is created and dropped untimed",
            ResultMode::Fetch => "every row sent to the client",
            ResultMode::Count => "SELECT COUNT(*) of the query",
        }
    ));
    ctx.recorder.note("run 1 of each query uses the appendix's constants; later runs draw range starts and update keys from the seed and alternate TENKTUP1 and TENKTUP2 (identical relations); query 15 filters on A.unique2 as the appendix prints it; inserts add a consistent tuple above every key instead of the appendix's colliding literal");
    let mut answers = Answers::default();
    crate::workload::run_each(
        configs,
        |c| format!("{} at {}", c.engine.name(), c.durability),
        ctx,
        |c, ctx| run_config(params, *c, url, &mut answers, ctx),
    )?;
    match answers.wrong {
        0 => Ok(()),
        n => bail!("{n} wrong or disagreeing answer(s) (see above; they are in the result file)"),
    }
}

fn run_config(
    params: &WisconsinParams,
    config: Config,
    url: Option<&str>,
    answers: &mut Answers,
    ctx: &mut RunContext,
) -> Result<()> {
    let dir = ctx.fresh_dir(&format!(
        "wisconsin-{}-{}",
        config.engine.name(),
        config.durability
    ))?;
    let db = config.engine.open(&SqlOptions {
        dir: dir.clone(),
        durability: config.durability,
        url: url.map(str::to_string),
        clients: 1,
        cache_bytes: params.cache_bytes,
    })?;
    let outcome = measure_config(params, config, db.as_ref(), answers, ctx);
    // The relations are hakari's own: dropped even when the run failed.
    let cleanup = db.connect().and_then(|mut c| drop_tables(c.as_mut()));
    db.close()?;
    std::fs::remove_dir_all(&dir).ok();
    outcome.and(cleanup)
}

fn drop_tables(c: &mut dyn SqlConnection) -> Result<()> {
    for t in [TMP, BPRIME, ONEK, TENK2, TENK1] {
        c.execute(&format!("DROP TABLE IF EXISTS {t}"))?;
    }
    Ok(())
}

fn metric(ctx: &mut RunContext, engine: &str, name: &str, seconds: f64, note: String) {
    ctx.recorder.metric(Metric {
        name: name.into(),
        value: seconds,
        unit: " s".into(),
        engine: Some(engine.into()),
        note: Some(note),
    });
}

fn measure_config(
    params: &WisconsinParams,
    config: Config,
    db: &dyn SqlDatabase,
    answers: &mut Answers,
    ctx: &mut RunContext,
) -> Result<()> {
    let name = config.engine.name();
    let dialect = config.engine.dialect();
    ctx.recorder.engine(EngineRecord {
        engine: name.into(),
        version: db.version(),
        durability: config.durability.name().into(),
        durability_mapping: config.engine.mapping(config.durability).unwrap_or_default(),
        settings: db.settings().into_iter().collect(),
    });
    let mut c = db.connect()?;
    let n = params.tuples;

    let started = Instant::now();
    load(c.as_mut(), dialect, n).context("loading the relations")?;
    let load_secs = started.elapsed().as_secs_f64();
    metric(
        ctx,
        name,
        "load (s)",
        load_secs,
        format!("TENKTUP1 and TENKTUP2 of {n} tuples, ONEKTUP of {}, BPRIME built from TENKTUP2; not part of any query figure", n / 10),
    );
    eprintln!(
        "  loaded {} tuples in {}",
        n * 2 + n / 5,
        crate::units::duration(load_secs)
    );

    let selected: Vec<&'static Query> = params.queries.iter().map(|&q| queries::query(q)).collect();
    let (plain, indexed): (Vec<&Query>, Vec<&Query>) =
        selected.iter().partition(|q| !q.index.needs_indexes());
    for q in plain {
        run_query(params, config, c.as_mut(), q, answers, ctx)?;
    }
    if !indexed.is_empty() {
        let started = Instant::now();
        build_indexes(c.as_mut(), dialect).context("building the indexes")?;
        let secs = started.elapsed().as_secs_f64();
        metric(
            ctx,
            name,
            "index build (s)",
            secs,
            "clustered unique index on unique2 and non-clustered unique index on unique1 of TENKTUP1, TENKTUP2 and ONEKTUP".into(),
        );
        for q in indexed {
            run_query(params, config, c.as_mut(), q, answers, ctx)?;
        }
    }
    Ok(())
}

/// Creates the four relations with no key and no index, loads them in unique2 order through the
/// engine's bulk path, and builds BPRIME from TENKTUP2 as the chapter does.
fn load(c: &mut dyn SqlConnection, dialect: Dialect, n: u64) -> Result<()> {
    drop_tables(c)?;
    let ddl = queries::columns_ddl("").join(", ");
    for t in [TENK1, TENK2, ONEK, BPRIME] {
        c.execute(&format!("CREATE TABLE {t} ({ddl})"))?;
    }
    let columns = generator::COLUMNS;
    for (table, size) in [(TENK1, n), (TENK2, n), (ONEK, n / 10)] {
        let loaded = c.bulk_load(table, &columns, &mut generator::relation(size))?;
        if loaded != size {
            bail!("{table}: {loaded} tuples loaded, {size} made");
        }
    }
    c.execute(&format!(
        "INSERT INTO {BPRIME} SELECT * FROM {TENK2} WHERE unique2 < {}",
        n / 10
    ))?;
    for t in [TENK1, TENK2, ONEK, BPRIME] {
        c.execute(&dialect.analyze(t))?;
    }
    for (t, want) in [(TENK1, n), (TENK2, n), (ONEK, n / 10), (BPRIME, n / 10)] {
        let rows = count_of(c.query(&format!("SELECT COUNT(*) FROM {t}"))?)?;
        if rows != want {
            bail!("{t} holds {rows} tuples after loading, not {want}");
        }
    }
    Ok(())
}

fn build_indexes(c: &mut dyn SqlConnection, dialect: Dialect) -> Result<()> {
    for t in [TENK1, TENK2, ONEK] {
        for stmt in dialect.clustered_index(t, "unique2") {
            c.execute(&stmt)?;
        }
        c.execute(&dialect.secondary_index(t, "unique1"))?;
        c.execute(&dialect.analyze(t))?;
    }
    Ok(())
}

fn count_of(rows: Vec<Row>) -> Result<u64> {
    match rows.first().and_then(|r| r.first()) {
        Some(SqlValue::Int(i)) => Ok(*i as u64),
        Some(SqlValue::Float(f)) => Ok(*f as u64),
        Some(SqlValue::Text(t)) => t.trim().parse().context("a count that is not a number"),
        other => bail!("a count query returned {other:?}"),
    }
}

/// A value as text every engine agrees on: integers in decimal (whatever type carried them),
/// strings without CHAR padding.
fn normalized(v: &SqlValue, out: &mut String) {
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
fn hash(bytes: &[u8]) -> u64 {
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
fn effective_mode(q: &Query, requested: ResultMode) -> &'static str {
    match q.kind {
        Kind::Screen => "fetch",
        Kind::Select(_) => requested.name(),
        _ => "update",
    }
}

/// One timed run: its seconds and its answer.
struct Timed {
    seconds: f64,
    answer: Answer,
}

fn run_once(
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
    match q.kind {
        Kind::Screen => {
            let started = Instant::now();
            let rows = c.query(&sql.select)?;
            let seconds = started.elapsed().as_secs_f64();
            Ok(Timed {
                seconds,
                answer: answer(rows.len() as u64, Some(checksum(&rows))),
            })
        }
        Kind::Select(shape) => match params.result_mode {
            ResultMode::Store => {
                c.execute(&format!("DROP TABLE IF EXISTS {TMP}"))?;
                c.execute(&queries::tmp_ddl(shape))?;
                let insert = format!("INSERT INTO {TMP} {}", sql.select);
                let started = Instant::now();
                let stored = c.execute(&insert)?;
                let seconds = started.elapsed().as_secs_f64();
                let rows = c.query(&format!("SELECT * FROM {TMP}"))?;
                c.execute(&format!("DROP TABLE {TMP}"))?;
                if stored != rows.len() as u64 {
                    bail!(
                        "the INSERT reported {stored} rows stored, the result relation holds {}",
                        rows.len()
                    );
                }
                Ok(Timed {
                    seconds,
                    answer: answer(rows.len() as u64, Some(checksum(&rows))),
                })
            }
            ResultMode::Fetch => {
                let started = Instant::now();
                let rows = c.query(&sql.select)?;
                let seconds = started.elapsed().as_secs_f64();
                Ok(Timed {
                    seconds,
                    answer: answer(rows.len() as u64, Some(checksum(&rows))),
                })
            }
            ResultMode::Count => {
                let started = Instant::now();
                let counted = count_of(c.query(&sql.count)?)?;
                let seconds = started.elapsed().as_secs_f64();
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
                    answer: answer(counted, Some(checksum(&rows))),
                })
            }
        },
        _ => {
            for s in &sql.setup {
                let k = c.execute(s)?;
                if k != 1 {
                    bail!("setting up changed {k} rows, not 1: {s}");
                }
            }
            let started = Instant::now();
            let changed = c.execute(&sql.select)?;
            let seconds = started.elapsed().as_secs_f64();
            for s in &sql.undo {
                let k = c.execute(s)?;
                if k != 1 {
                    bail!("undoing changed {k} rows, not 1: {s}");
                }
            }
            Ok(Timed {
                seconds,
                answer: answer(changed, None),
            })
        }
    }
}

fn run_query(
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
                let _ = c.execute(&format!("DROP TABLE IF EXISTS {TMP}"));
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
        match answers.first.get(&(q.number, run)) {
            None => {
                answers.first.insert((q.number, run), timed.answer.clone());
            }
            Some(first)
                if first.rows != timed.answer.rows || first.checksum != timed.answer.checksum =>
            {
                problems.push(format!(
                    "run {}: {} rows (checksum {:016x}), {} answered {} rows (checksum {:016x})",
                    run + 1,
                    timed.answer.rows,
                    timed.answer.checksum.unwrap_or(0),
                    first.engine,
                    first.rows,
                    first.checksum.unwrap_or(0)
                ));
            }
            Some(_) => {}
        }
        let mut latency = crate::measure::latency::new_histogram();
        latency.saturating_record(((timed.seconds * 1e9) as u64).max(1));
        outcomes.push(StepOutcome {
            seconds: timed.seconds,
            ops: timed.answer.rows,
            retries: 0,
            latency,
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
    let key = MeasurementKey {
        workload: "wisconsin".into(),
        engine: engine.into(),
        durability: config.durability.name().into(),
        threads: 1,
        step: q.step(),
        config: config_map,
    };
    ctx.recorder
        .measurement(Measurement::from_runs(key, &outcomes))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_ignore_order_padding_and_number_types() {
        let a = vec![
            vec![SqlValue::Int(1), SqlValue::Text("AB  ".into())],
            vec![SqlValue::Int(2), SqlValue::Text("CD".into())],
        ];
        let b = vec![
            vec![SqlValue::Float(2.0), SqlValue::Text("CD".into())],
            vec![SqlValue::Int(1), SqlValue::Text("AB".into())],
        ];
        assert_eq!(checksum(&a), checksum(&b));
        let c = vec![
            vec![SqlValue::Int(1), SqlValue::Text("AB".into())],
            vec![SqlValue::Int(3), SqlValue::Text("CD".into())],
        ];
        assert_ne!(checksum(&a), checksum(&c));
        // Columns do not run into each other.
        assert_ne!(
            checksum(&[vec![SqlValue::Int(12), SqlValue::Int(3)]]),
            checksum(&[vec![SqlValue::Int(1), SqlValue::Int(23)]])
        );
    }

    /// All 32 queries on the embedded engine at 1,000 tuples: every answer has the count the
    /// relations imply, in every result mode.
    #[test]
    fn every_query_answers_right_on_sqlite() {
        for mode in [ResultMode::Store, ResultMode::Fetch, ResultMode::Count] {
            let dir = tempfile::tempdir().unwrap();
            let db = crate::engine::sqlite::SQLITE_SQL
                .open(&SqlOptions {
                    dir: dir.path().to_path_buf(),
                    durability: Durability::WriteNosync,
                    url: None,
                    clients: 1,
                    cache_bytes: 0,
                })
                .unwrap();
            let mut c = db.connect().unwrap();
            load(c.as_mut(), Dialect::Sqlite, 1_000).unwrap();
            let params = WisconsinParams {
                tuples: 1_000,
                result_mode: mode,
                ..presets::default_params()
            };
            let mut indexed = false;
            for q in queries::QUERIES.iter() {
                if q.index.needs_indexes() && !indexed {
                    build_indexes(c.as_mut(), Dialect::Sqlite).unwrap();
                    indexed = true;
                }
                let mut sums = Vec::new();
                for run in 0..3 {
                    let t = run_once(&params, "sqlite", c.as_mut(), q, run, 42)
                        .unwrap_or_else(|e| panic!("{}: {e:#}", q.step()));
                    assert_eq!(
                        t.answer.rows,
                        queries::expected_rows(q, 1_000),
                        "{} run {run} in {mode:?}",
                        q.step()
                    );
                    sums.push(t.answer.checksum);
                }
                if matches!(q.number, 1 | 2 | 5 | 6 | 7 | 8) {
                    assert_ne!(sums[0], sums[1], "{}: constants vary by run", q.step());
                }
            }
            // The updates were undone: the relation is as loaded.
            let rows = c
                .query(&format!("SELECT * FROM {TENK1} ORDER BY unique2"))
                .unwrap();
            assert_eq!(
                checksum(&rows),
                checksum(&generator::relation(1_000).collect::<Vec<_>>())
            );
        }
    }

    /// The checks can fail: a wrong count and a disagreeing answer are errors of that engine and
    /// query, the figures stay, and the run is marked for failure.
    #[test]
    fn wrong_counts_and_disagreements_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        let mut ctx = RunContext::new(crate::workload::ContextOptions {
            workload: "wisconsin",
            preset: None,
            seed: Some(1),
            out_dir: out.path(),
            data_dir: None,
            parameters: serde_json::json!({}),
        })
        .unwrap();
        let db = crate::engine::sqlite::SQLITE_SQL
            .open(&SqlOptions {
                dir: dir.path().to_path_buf(),
                durability: Durability::WriteNosync,
                url: None,
                clients: 1,
                cache_bytes: 0,
            })
            .unwrap();
        let mut c = db.connect().unwrap();
        load(c.as_mut(), Dialect::Sqlite, 1_000).unwrap();
        let params = WisconsinParams {
            tuples: 1_000,
            runs: 1,
            ..presets::default_params()
        };
        let config = Config {
            engine: &crate::engine::sqlite::SQLITE_SQL,
            durability: Durability::WriteNosync,
        };
        let mut answers = Answers::default();
        // Another engine answered query 1 differently.
        answers.first.insert(
            (1, 0),
            Answer {
                engine: "other".into(),
                rows: 10,
                checksum: Some(1),
            },
        );
        run_query(
            &params,
            config,
            c.as_mut(),
            queries::query(1),
            &mut answers,
            &mut ctx,
        )
        .unwrap();
        assert_eq!(answers.wrong, 1);
        // A tuple missing from TENKTUP1: the 100% projection comes up short.
        c.execute(&format!("DELETE FROM {TENK1} WHERE unique2 = 5"))
            .unwrap();
        run_query(
            &params,
            config,
            c.as_mut(),
            queries::query(19),
            &mut answers,
            &mut ctx,
        )
        .unwrap();
        assert_eq!(answers.wrong, 2);
        let r = ctx.recorder.result();
        assert_eq!(r.measurements.len(), 2, "the figures stay");
        assert!(r.measurements.iter().all(|m| m.config["answer"] == "wrong"));
        assert!(r.errors[0].contains("q01") && r.errors[0].contains("other answered 10 rows"));
        assert!(r.errors[1].contains("999 rows, the relations' definition gives 1000"));
    }
}
