//! The load test: tables through the engine's bulk path, then keys and indexes, then statistics,
//! each timed.

use super::presets::{sf_label, TpchParams};
use super::{check_interrupt, data, record, Config, Part};
use crate::engine::sql::SqlConnection;
use crate::workload::RunContext;
use anyhow::{Context, Result};
use std::time::Instant;

pub(super) fn load_test(
    params: &TpchParams,
    config: Config,
    conn: &mut dyn SqlConnection,
    ctx: &mut RunContext,
) -> Result<()> {
    let dialect = conn.dialect();
    let sf = config.sf;
    for s in data::drop_statements()
        .into_iter()
        .chain(data::schema(dialect))
    {
        conn.execute(&s)
            .with_context(|| format!("setting up: {s}"))?;
    }
    let keep_dir = match &params.keep_data {
        Some(root) => {
            let dir = root.join(format!("sf{}", sf_label(sf)));
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            Some(dir)
        }
        None => None,
    };
    // dbgen's 300 MB text pool is built once per process (about 2 s), before the clock starts:
    // it is the generator's set-up, not loading.
    tpchgen::text::TextPool::get_or_init_default();
    // Arrow loads run a stream per core, each generating its own rows.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load_started = Instant::now();
    for table in data::TABLES {
        check_interrupt()?;
        let started = Instant::now();
        let (columns, keep) = (data::columns(table), keep_dir.as_deref());
        // An engine that takes Arrow columns is given them; one whose loader parses delimited
        // text, dbgen's text itself. Kept .tbl files are text: the text is made anyway.
        let rows = if conn.loads_arrow() && keep.is_none() {
            conn.bulk_load_arrow(table, data::arrow_streams(table, sf, cores))
        } else if conn.loads_delimited() {
            data::with_tbl_text(table, sf, keep, |text| {
                conn.bulk_load_delimited(table, columns, text)
            })
        } else {
            data::with_rows(table, sf, keep, |rows| conn.bulk_load(table, columns, rows))
        }
        .with_context(|| format!("loading {table}"))?;
        let secs = started.elapsed().as_secs_f64();
        eprintln!(
            "  load {table}: {rows} rows in {}",
            crate::units::duration(secs)
        );
        record(
            ctx,
            config,
            Part::of("load"),
            &format!("load {table}"),
            secs,
            rows,
        )?;
    }
    let tables_secs = load_started.elapsed().as_secs_f64();
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
    let started = Instant::now();
    for table in data::TABLES {
        crate::workload::sql::gather_statistics(&mut *conn, table)?;
    }
    let stats_secs = started.elapsed().as_secs_f64();
    let load_secs = load_started.elapsed().as_secs_f64();
    eprintln!(
        "  load test: tables {tables_secs:.2} s, keys/indexes {keys_secs:.2} s, statistics {stats_secs:.2} s"
    );
    record(ctx, config, Part::of("load"), "load tables", tables_secs, 8)?;
    record(ctx, config, Part::of("load"), "load keys", keys_secs, 1)?;
    record(
        ctx,
        config,
        Part::of("load"),
        "load statistics",
        stats_secs,
        1,
    )?;
    record(ctx, config, Part::of("load"), "load total", load_secs, 1)?;
    if let Some(dir) = &keep_dir {
        ctx.recorder
            .note(format!("{}: .tbl files kept in {}", config, dir.display()));
    }
    Ok(())
}
