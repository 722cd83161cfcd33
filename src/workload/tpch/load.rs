//! The load test: tables through the engine's bulk path, then keys and indexes, then statistics,
//! each timed.

use super::presets::{sf_label, TpchParams};
use super::{check_interrupt, data, record_spent, Config, TestPart};
use crate::engine::sql::SqlConnection;
use crate::measure::runner::Span;
use crate::workload::{load, RunContext};
use anyhow::{Context, Result};
use std::time::Instant;

/// The schema made afresh, and the folder `--keep-data` keeps the .tbl files in.
fn set_up(
    params: &TpchParams,
    sf: f64,
    conn: &mut dyn SqlConnection,
) -> Result<Option<std::path::PathBuf>> {
    for s in (data::drop_statements().into_iter()).chain(data::schema(conn.dialect())) {
        conn.execute(&s)
            .with_context(|| format!("setting up: {s}"))?;
    }
    let Some(root) = &params.keep_data else {
        return Ok(None);
    };
    let dir = root.join(format!("sf{}", sf_label(sf)));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(Some(dir))
}

/// Loads `table` at `sf`, a copy of its .tbl text written to `kept`; returns its rows. An engine
/// that takes Arrow columns is given them (a stream per core, each generating its own rows: the
/// engine loads them on threads of its own); any other goes through the one loader (dbgen's text
/// where the engine parses delimited text, values elsewhere), the spare cores making rows ahead
/// of the one connection. Kept .tbl files are text.
fn load_table(
    conn: &mut dyn SqlConnection,
    table: &'static str,
    sf: f64,
    kept: Option<&std::path::Path>,
) -> Result<u64> {
    if conn.capabilities().arrow && kept.is_none() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        return conn.bulk_load_arrow(table, data::arrow_streams(table, sf, cores));
    }
    let along = load::Along {
        makers: load::ahead::makers(1),
        progress: None,
        copy: kept,
    };
    load::load(conn, &data::Tables { sf }, &data::job(table, sf), along)
}

pub(super) fn load_test(
    params: &TpchParams,
    config: Config,
    conn: &mut dyn SqlConnection,
    ctx: &mut RunContext,
) -> Result<()> {
    let dialect = conn.dialect();
    let sf = config.sf;
    let keep_dir = set_up(params, sf, conn)?;
    // dbgen's 300 MB text pool is built once per process (about 2 s), before the clock starts:
    // it is the generator's set-up, not loading.
    tpchgen::text::TextPool::get_or_init_default();
    let (load_span, tables_span) = (Span::start(), Span::start());
    // The parts' own times, summed: the readings taken between them stay out of the clock.
    let mut tables_secs = 0.0;
    for table in data::TABLES {
        check_interrupt()?;
        let span = Span::start();
        let started = Instant::now();
        let kept = keep_dir.as_ref().map(|d| d.join(format!("{table}.tbl")));
        let rows = load_table(conn, table, sf, kept.as_deref())
            .with_context(|| format!("loading {table}"))?;
        let secs = started.elapsed().as_secs_f64();
        tables_secs += secs;
        eprintln!(
            "  load {table}: {rows} rows in {}",
            crate::units::duration(secs)
        );
        let step = format!("load {table}");
        record_spent(
            ctx,
            config,
            TestPart::of("load"),
            (&step, secs, rows),
            span.finish(),
        )?;
    }
    let tables_spent = tables_span.finish();
    let span = Span::start();
    let started = Instant::now();
    let keys = data::key_statements(dialect, params.keys);
    if keys.is_empty() {
        ctx.recorder.note(format!(
            "{config}: no keys or indexes after the load, as the engine's own TPC-H kit (--keys all builds DBT-3's)"
        ));
    }
    for s in keys {
        check_interrupt()?;
        conn.execute(&s)
            .with_context(|| format!("building keys: {s}"))?;
    }
    let keys_secs = started.elapsed().as_secs_f64();
    let keys_spent = span.finish();
    let span = Span::start();
    let started = Instant::now();
    for table in data::TABLES {
        crate::workload::sql::gather_statistics(&mut *conn, table)?;
    }
    let stats_secs = started.elapsed().as_secs_f64();
    let stats_spent = span.finish();
    let load_secs = tables_secs + keys_secs + stats_secs;
    let load_spent = load_span.finish();
    eprintln!(
        "  load test: tables {tables_secs:.2} s, keys/indexes {keys_secs:.2} s, statistics {stats_secs:.2} s"
    );
    for (step, secs, units, spent) in [
        ("load tables", tables_secs, 8, tables_spent),
        ("load keys", keys_secs, 1, keys_spent),
        ("load statistics", stats_secs, 1, stats_spent),
        ("load total", load_secs, 1, load_spent),
    ] {
        record_spent(
            ctx,
            config,
            TestPart::of("load"),
            (step, secs, units),
            spent,
        )?;
    }
    if let Some(dir) = &keep_dir {
        ctx.recorder
            .note(format!("{}: .tbl files kept in {}", config, dir.display()));
    }
    Ok(())
}
