//! The TPC-H-like workload as OSDL DBT-3 ran it (seed 003): a load test (tables, then keys and
//! indexes, then statistics, each timed), a power test (RF1, the 22 queries in stream 0's order,
//! RF2) and a throughput test (S query streams, each on its own connection and thread, beside one
//! refresh stream of S RF1/RF2 pairs), at one or more scale factors. Figures are computed under
//! the TPC-H rules and under DBT-3's (see metrics.rs); neither is comparable to published TPC-H
//! results.
//!
//! Data comes from the `tpchgen` crate (dbgen's rows byte for byte), made on one thread and
//! loaded through the engine's bulk path on another. Queries are qgen's templates with parameters
//! drawn from the run's seed (stream s uses seed + s), or with `--validate` the qualification
//! values, whose answers are then checked against the answer set for the SF.

pub mod data;
pub mod metrics;
pub mod presets;
pub mod queries;
pub mod refresh;
#[cfg(test)]
pub(crate) mod snapshot;
pub mod validate;

use crate::durability::Durability;
use crate::engine::sql::{SqlConnection, SqlDatabase, SqlEngine, SqlOptions};
use crate::measure::Interrupted;
use crate::results::{EngineRecord, Measurement, MeasurementKey, Metric};
use crate::workload::RunContext;
use anyhow::{bail, Context, Result};
use metrics::{Figures, Rules};
use presets::{sf_label, TpchParams};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Instant;

/// An engine at a durability level and a scale factor.
#[derive(Clone, Copy)]
pub struct Config {
    pub engine: &'static dyn SqlEngine,
    pub durability: Durability,
    pub sf: f64,
}

/// Checks the parameters and lists engine × durability × SF.
pub fn plan(
    params: &TpchParams,
    engines: &[&'static dyn SqlEngine],
    named: Option<&[Durability]>,
) -> Result<(Vec<Config>, Vec<String>)> {
    if params.streams == Some(0) {
        bail!("--streams must be at least 1");
    }
    if params.validate {
        if let Some(sf) = params
            .scale_factors
            .iter()
            .find(|sf| validate::answer_set_name(**sf).is_none())
        {
            bail!(
                "--validate needs an answer set, and there is none for SF {}: answer sets exist for SF 0.01, 0.1 and 1",
                sf_label(*sf)
            );
        }
    }
    for &sf in &params.scale_factors {
        let streams = params.streams.unwrap_or_else(|| metrics::min_streams(sf));
        let needed = (streams + 1) * refresh::orders_per_set(sf);
        let orders = (sf * 1_500_000.0) as usize;
        if needed > orders {
            bail!(
                "SF {} is too small for {streams} streams: the refresh sets need {needed} of its {orders} orders",
                sf_label(sf)
            );
        }
    }
    let mut configs = Vec::new();
    let mut notes = Vec::new();
    for &engine in engines {
        for &level in named.unwrap_or(&params.default_durability) {
            match crate::engine::sql::check_combination(engine, level) {
                Ok(()) => {
                    for &sf in &params.scale_factors {
                        configs.push(Config {
                            engine,
                            durability: level,
                            sf,
                        })
                    }
                }
                Err(e) if named.is_some() => return Err(e),
                Err(e) => notes.push(format!("skipped: {e}")),
            }
        }
    }
    notes.push(metrics::DISCLAIMER.to_string());
    Ok((configs, notes))
}

/// Runs every configuration; one that fails is recorded and the others still run.
pub fn run(
    params: &TpchParams,
    configs: &[Config],
    url: Option<&str>,
    ctx: &mut RunContext,
) -> Result<()> {
    eprintln!("{}", metrics::DISCLAIMER);
    crate::workload::run_each(
        configs,
        |c| format!("{} {} SF {}", c.engine.name(), c.durability, sf_label(c.sf)),
        ctx,
        |c, ctx| run_config(params, *c, url, ctx),
    )
}

fn run_config(
    params: &TpchParams,
    config: Config,
    url: Option<&str>,
    ctx: &mut RunContext,
) -> Result<()> {
    let dir = ctx.fresh_dir(&format!(
        "tpch-{}-{}-sf{}",
        config.engine.name(),
        config.durability,
        sf_label(config.sf)
    ))?;
    let streams = params
        .streams
        .unwrap_or_else(|| metrics::min_streams(config.sf));
    let db = config.engine.open(&SqlOptions {
        dir: dir.clone(),
        durability: config.durability,
        url: url.map(str::to_string),
        clients: streams + 2,
        cache_bytes: 0,
    })?;
    let outcome = measure_config(params, config, streams, db.as_ref(), ctx);
    let cleanup = drop_tables(db.as_ref());
    db.close()?;
    std::fs::remove_dir_all(&dir).ok();
    outcome.and(cleanup)
}

fn drop_tables(db: &dyn SqlDatabase) -> Result<()> {
    let mut c = db.connect()?;
    for s in data::drop_statements() {
        c.execute(&s)?;
    }
    Ok(())
}

/// Records one timed interval as a measurement.
#[allow(clippy::too_many_arguments)]
fn record(
    ctx: &mut RunContext,
    config: Config,
    test: &str,
    stream: Option<usize>,
    threads: usize,
    step: &str,
    seconds: f64,
    ops: u64,
) -> Result<()> {
    let mut map = BTreeMap::new();
    map.insert("sf".into(), Value::from(config.sf));
    map.insert("test".into(), Value::from(test));
    if let Some(s) = stream {
        map.insert("stream".into(), Value::from(s));
    }
    let outcome = crate::measure::runner::StepOutcome {
        seconds,
        ops,
        retries: 0,
        latency: crate::measure::latency::new_histogram(),
    };
    ctx.recorder.measurement(Measurement::from_runs(
        MeasurementKey {
            workload: "tpch".into(),
            engine: config.engine.name().into(),
            durability: config.durability.name().into(),
            threads,
            step: step.into(),
            config: map,
        },
        &[outcome],
    ))
}

fn check_interrupt() -> Result<()> {
    if crate::measure::interrupted() {
        return Err(Interrupted.into());
    }
    Ok(())
}

fn measure_config(
    params: &TpchParams,
    config: Config,
    streams: usize,
    db: &dyn SqlDatabase,
    ctx: &mut RunContext,
) -> Result<()> {
    ctx.recorder.engine(EngineRecord {
        engine: config.engine.name().into(),
        version: db.version(),
        durability: config.durability.name().into(),
        durability_mapping: config.engine.mapping(config.durability).unwrap_or_default(),
        settings: db.settings().into_iter().collect(),
    });
    let dialect = config.engine.dialect();
    let sf = config.sf;
    let label = format!(
        "{} {} SF {}",
        config.engine.name(),
        config.durability,
        sf_label(sf)
    );

    // Load test: tables, then keys and indexes, then statistics.
    let mut conn = db.connect()?;
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
    let load_started = Instant::now();
    for table in data::TABLES {
        check_interrupt()?;
        let started = Instant::now();
        let (columns, keep) = (data::columns(table), keep_dir.as_deref());
        // An engine whose loader parses delimited text is given dbgen's text itself.
        let rows = if conn.loads_delimited() {
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
            "load",
            None,
            1,
            &format!("load {table}"),
            secs,
            rows,
        )?;
    }
    let tables_secs = load_started.elapsed().as_secs_f64();
    let started = Instant::now();
    for s in data::key_statements(dialect) {
        check_interrupt()?;
        conn.execute(&s)
            .with_context(|| format!("building keys: {s}"))?;
    }
    let keys_secs = started.elapsed().as_secs_f64();
    let started = Instant::now();
    for table in data::TABLES {
        conn.execute(&dialect.analyze(table))
            .with_context(|| format!("gathering statistics of {table}"))?;
    }
    let stats_secs = started.elapsed().as_secs_f64();
    let load_secs = load_started.elapsed().as_secs_f64();
    eprintln!(
        "  load test: tables {tables_secs:.2} s, keys/indexes {keys_secs:.2} s, statistics {stats_secs:.2} s"
    );
    record(ctx, config, "load", None, 1, "load tables", tables_secs, 8)?;
    record(ctx, config, "load", None, 1, "load keys", keys_secs, 1)?;
    record(
        ctx,
        config,
        "load",
        None,
        1,
        "load statistics",
        stats_secs,
        1,
    )?;
    record(ctx, config, "load", None, 1, "load total", load_secs, 1)?;
    if let Some(dir) = &keep_dir {
        ctx.recorder
            .note(format!("{label}: .tbl files kept in {}", dir.display()));
    }
    let counts_before = refresh::counts(conn.as_mut())?;

    // Qualification: the validation parameters, answers checked, before any refresh.
    if params.validate {
        for q in 1..=22u8 {
            check_interrupt()?;
            let sql = queries::render(q, &queries::validation_params(q), dialect, 0)?;
            let started = Instant::now();
            let rows =
                queries::run(conn.as_mut(), &sql).with_context(|| format!("Q{q} (validation)"))?;
            let secs = started.elapsed().as_secs_f64();
            validate::check(q, sf, &rows)?;
            record(
                ctx,
                config,
                "validation",
                None,
                1,
                &format!("Q{q}"),
                secs,
                rows.len() as u64,
            )?;
        }
        let note = format!(
            "{label}: the 22 answers with the qualification parameters match {}",
            validate::answer_set_name(sf).unwrap_or("")
        );
        eprintln!("  {note}");
        ctx.recorder.note(note);
    }

    // Refresh sets 1 (power) and 2..S+1 (throughput), staged before the timed tests as the spec
    // allows (DBT-3 runs dbgen inside RF1's interval instead).
    let sets: Vec<refresh::RefreshSet> = (1..=streams + 1)
        .map(|k| refresh::generate(sf, k))
        .collect::<Result<_>>()?;

    // Power test.
    let seed0 = ctx.seed;
    let mut power_queries = vec![0.0; 22];
    let mut power_refresh = [0.0; 2];
    let started = Instant::now();
    let n = refresh::rf1(conn.as_mut(), &sets[0]).context("power test RF1")?;
    power_refresh[0] = started.elapsed().as_secs_f64();
    record(ctx, config, "power", Some(0), 1, "RF1", power_refresh[0], n)?;
    let times = query_stream(conn.as_mut(), dialect, sf, 0, seed0)?;
    for (q, secs, rows) in &times {
        power_queries[(*q - 1) as usize] = *secs;
        record(
            ctx,
            config,
            "power",
            Some(0),
            1,
            &format!("Q{q}"),
            *secs,
            *rows,
        )?;
    }
    let started = Instant::now();
    let n = refresh::rf2(conn.as_mut(), &sets[0]).context("power test RF2")?;
    power_refresh[1] = started.elapsed().as_secs_f64();
    record(ctx, config, "power", Some(0), 1, "RF2", power_refresh[1], n)?;
    let power_secs = power_refresh.iter().sum::<f64>() + power_queries.iter().sum::<f64>();
    eprintln!("  power test: {power_secs:.2} s");

    // Throughput test: S query streams and one refresh stream, all released together.
    check_interrupt()?;
    let barrier = std::sync::Barrier::new(streams + 1);
    let t0 = std::sync::Mutex::new(None::<Instant>);
    let (stream_results, refresh_result) = {
        let (barrier, t0, sets) = (&barrier, &t0, &sets[1..]);
        std::thread::scope(|scope| {
            let handles: Vec<_> = (1..=streams)
                .map(|stream| {
                    scope.spawn(move || {
                        // Connections are opened before the start, outside the timed interval.
                        let conn = db.connect();
                        barrier.wait();
                        let r = conn.and_then(|mut c| {
                            query_stream(c.as_mut(), dialect, sf, stream, seed0 + stream as u64)
                        });
                        (r, Instant::now())
                    })
                })
                .collect();
            let refresher = scope.spawn(move || {
                let conn = db.connect();
                barrier.wait();
                t0.lock().unwrap().get_or_insert_with(Instant::now);
                let mut c = conn?;
                let mut times = Vec::new();
                for set in sets {
                    let s = Instant::now();
                    let n1 = refresh::rf1(c.as_mut(), set)
                        .with_context(|| format!("throughput test RF1 of set {}", set.set))?;
                    let rf1 = s.elapsed().as_secs_f64();
                    let s = Instant::now();
                    let n2 = refresh::rf2(c.as_mut(), set)
                        .with_context(|| format!("throughput test RF2 of set {}", set.set))?;
                    times.push((rf1, n1, s.elapsed().as_secs_f64(), n2));
                }
                Ok::<_, anyhow::Error>((times, Instant::now()))
            });
            let streams: Vec<_> = handles
                .into_iter()
                .map(|h| h.join().expect("a query stream panicked"))
                .collect();
            let refresh = refresher.join().expect("the refresh stream panicked");
            (streams, refresh)
        })
    };
    let ts_started = t0
        .into_inner()
        .unwrap()
        .expect("the refresh stream started");
    let mut ts_end = ts_started;
    let mut errors = Vec::new();
    for (i, (r, ended)) in stream_results.into_iter().enumerate() {
        ts_end = ts_end.max(ended);
        match r {
            Ok(times) => {
                for (q, secs, rows) in times {
                    record(
                        ctx,
                        config,
                        "throughput",
                        Some(i + 1),
                        1,
                        &format!("Q{q}"),
                        secs,
                        rows,
                    )?;
                }
            }
            Err(e) => errors.push(format!("stream {}: {}", i + 1, crate::errors::sentence(&e))),
        }
    }
    match refresh_result {
        Ok((times, ended)) => {
            ts_end = ts_end.max(ended);
            for (k, (rf1, n1, rf2, n2)) in times.into_iter().enumerate() {
                let pair = Some(k + 1);
                record(ctx, config, "refresh stream", pair, 1, "RF1", rf1, n1)?;
                record(ctx, config, "refresh stream", pair, 1, "RF2", rf2, n2)?;
            }
        }
        Err(e) => errors.push(format!("refresh stream: {}", crate::errors::sentence(&e))),
    }
    if !errors.is_empty() {
        bail!("throughput test: {}", errors.join("; "));
    }
    let ts = ts_end.duration_since(ts_started).as_secs_f64();
    record(
        ctx,
        config,
        "throughput",
        None,
        streams,
        "Ts",
        ts,
        (22 * streams) as u64,
    )?;
    eprintln!("  throughput test: {streams} streams in {ts:.2} s");

    // Every RF1 inserted what its RF2 deleted: the row counts must be as loaded.
    let counts_after = refresh::counts(conn.as_mut())?;
    if counts_after != counts_before {
        bail!(
            "the refresh functions changed the row counts: orders {} -> {}, lineitem {} -> {}",
            counts_before.0,
            counts_after.0,
            counts_before.1,
            counts_after.1
        );
    }

    for rules in [Rules::Tpch, Rules::Dbt3] {
        let f = metrics::figures(
            rules,
            sf,
            &power_queries,
            &power_refresh,
            Some((streams, ts)),
        );
        record_figures(ctx, config, &f, streams);
    }
    Ok(())
}

fn record_figures(ctx: &mut RunContext, config: Config, f: &Figures, streams: usize) {
    let who = format!("{} SF {}", config.engine.name(), sf_label(config.sf));
    let note = format!(
        "{}; {streams} streams; {}",
        f.rules.label(),
        metrics::DISCLAIMER
    );
    let mut push = |name: &str, value: f64| {
        ctx.recorder.metric(Metric {
            name: format!("{name} ({})", f.rules.short()),
            value,
            unit: format!("@SF{}", sf_label(config.sf)),
            engine: Some(who.clone()),
            note: Some(note.clone()),
        })
    };
    push("Power@Size", f.power);
    if let Some(t) = f.throughput {
        push("Throughput@Size", t);
    }
    if let Some(c) = f.composite {
        push("QphH@Size", c);
    }
}

/// One query stream: its 22 queries in the stream's permutation order with parameters drawn
/// from `seed`; returns (query, seconds, rows) in the order run. Each interval includes fetching
/// the whole result.
fn query_stream(
    conn: &mut dyn SqlConnection,
    dialect: crate::engine::sql::Dialect,
    sf: f64,
    stream: usize,
    seed: u64,
) -> Result<Vec<(u8, f64, u64)>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Parameters are drawn for queries 1..22 in number order, so a stream's values do not depend
    // on its permutation.
    let params: Vec<Vec<String>> = (1..=22u8)
        .map(|q| queries::random_params(q, sf, &mut rng))
        .collect();
    let mut out = Vec::with_capacity(22);
    for q in queries::order(stream) {
        check_interrupt()?;
        let sql = queries::render(q, &params[(q - 1) as usize], dialect, stream)?;
        let started = Instant::now();
        let rows = queries::run(conn, &sql).with_context(|| format!("Q{q} of stream {stream}"))?;
        out.push((q, started.elapsed().as_secs_f64(), rows.len() as u64));
    }
    Ok(out)
}
