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
pub mod flags;
mod load;
pub mod metrics;
mod power;
pub mod presets;
pub mod queries;
pub mod refresh;
#[cfg(test)]
pub(crate) mod snapshot;
mod throughput;
pub mod validate;
mod view;

use crate::durability::Durability;
use crate::engine::sql::{SqlConnection, SqlDatabase, SqlEngine};
use crate::engine::{Engine, Named, Takes};
use crate::measure::runner::{Span, StepResources};
use crate::measure::Interrupted;
use crate::results::{MeasurementKey, Metric};
use crate::workload::kept::{Kept, Made, Table};
use crate::workload::{sql_levels, Plan, RunContext, Workload};
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
    pub engine: Named<dyn SqlEngine>,
    pub durability: Durability,
    pub sf: f64,
}

impl std::fmt::Display for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (engine, level, sf) = (self.engine.name(), self.durability, sf_label(self.sf));
        write!(f, "{engine} {level} SF {sf}")
    }
}

/// The workload is its parameters.
impl Workload for TpchParams {
    type Config = Config;
    const NAME: &'static str = "tpch";
    const VIEW: &'static dyn crate::report::view::View = &view::TpchView;
    const TAKES: Takes = Takes::Sql;
    const KEEPS: bool = true;
    /// OSDL's DBT-3 ran on PostgreSQL.
    const PRESET_ENGINES: &'static [(&'static str, &'static str)] = &[("dbt3", "postgres")];

    /// Checks the parameters and lists engine × durability × SF.
    #[cfg(test)]
    fn statements() -> String {
        snapshot::statements()
    }

    fn plan(&self, engines: &[Engine], named: Option<&[Durability]>) -> Result<Plan<Config>> {
        check(self)?;
        let planned = sql_levels(engines, named, &self.default_durability)?;
        let mut configs = Vec::new();
        for c in planned.configs {
            for &sf in &self.scale_factors {
                configs.push(Config {
                    engine: c.engine,
                    durability: c.durability,
                    sf,
                });
            }
        }
        let mut notes = planned.notes;
        notes.push(metrics::DISCLAIMER.to_string());
        Ok(Plan { configs, notes })
    }

    fn start(&mut self, _ctx: &mut RunContext) {
        eprintln!("{}", metrics::DISCLAIMER);
    }

    fn run_config(&mut self, config: &Config, ctx: &mut RunContext) -> Result<()> {
        run_config(self, *config, ctx)
    }
}

/// Refuses parameters the run cannot honour, before anything starts.
fn check(params: &TpchParams) -> Result<()> {
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
    Ok(())
}

fn run_config(params: &TpchParams, config: Config, ctx: &mut RunContext) -> Result<()> {
    if ctx.phases.keeps() && params.scale_factors.len() > 1 {
        bail!(
            "{} keeps the tables of one scale factor: give one --sf",
            ctx.phases.flag()
        );
    }
    let dir = ctx.config_dir(&config)?;
    let streams = params
        .streams
        .unwrap_or_else(|| metrics::min_streams(config.sf));
    let db = config.engine.open(&ctx.sql_options(
        config.engine,
        config.durability,
        &dir,
        streams + 2,
    ))?;
    let outcome = measure_config(params, config, streams, db.as_ref(), ctx);
    let cleanup = match ctx.phases.keeps() {
        true => Ok(()),
        false => drop_tables(db.as_ref()),
    };
    db.close()?;
    outcome.and(cleanup)
}

fn drop_tables(db: &dyn SqlDatabase) -> Result<()> {
    let mut c = db.connect()?;
    for s in data::drop_statements() {
        c.execute(&s)?;
    }
    Ok(())
}

/// Which part of which test a timed figure belongs to.
#[derive(Clone, Copy)]
pub(super) struct TestPart<'a> {
    test: &'a str,
    stream: Option<usize>,
    /// Where it started in its test, for the throughput test's timeline.
    start_s: Option<f64>,
    threads: usize,
}

impl<'a> TestPart<'a> {
    /// A part of `test` run by one stream that has no number.
    pub fn of(test: &'a str) -> TestPart<'a> {
        TestPart {
            test,
            stream: None,
            start_s: None,
            threads: 1,
        }
    }

    pub fn stream(self, stream: usize) -> TestPart<'a> {
        TestPart {
            stream: Some(stream),
            ..self
        }
    }

    pub fn at(self, start_s: f64) -> TestPart<'a> {
        TestPart {
            start_s: Some(start_s),
            ..self
        }
    }

    pub fn threads(self, threads: usize) -> TestPart<'a> {
        TestPart { threads, ..self }
    }
}

/// Records one timed interval as a measurement.
pub(super) fn record(
    ctx: &mut RunContext,
    config: Config,
    part: TestPart,
    step: &str,
    seconds: f64,
    ops: u64,
) -> Result<()> {
    record_spent(ctx, config, part, (step, seconds, ops), None)
}

/// Records one timed interval `(step, seconds, operations)` with what it cost, read over it.
pub(super) fn record_spent(
    ctx: &mut RunContext,
    config: Config,
    part: TestPart,
    (step, seconds, ops): (&str, f64, u64),
    spent: Option<StepResources>,
) -> Result<()> {
    let TestPart {
        test,
        stream,
        start_s,
        threads,
    } = part;
    let mut map = BTreeMap::new();
    map.insert("sf".into(), Value::from(config.sf));
    map.insert("test".into(), Value::from(test));
    if let Some(s) = stream {
        map.insert("stream".into(), Value::from(s));
    }
    let mut key = MeasurementKey::new(config.engine.name(), config.durability, threads, step, map);
    if let Some(s) = start_s {
        key = key.producing("start_s", s);
    }
    let outcome = crate::measure::runner::StepOutcome::whole(seconds, ops).spent(spent);
    ctx.measured(key, &[outcome])
}

pub(super) fn check_interrupt() -> Result<()> {
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
    let engine = Engine::Sql(config.engine);
    ctx.record_engine(engine, config.durability, db.version(), db.settings());
    let sf = config.sf;
    let mut conn = db.connect()?;
    let made = Made::new(
        "tpch",
        vec![
            format!("--sf {}", sf_label(sf)),
            format!("--keys {}", params.keys.name()),
        ],
    );
    let kept = made.find(&mut Table(conn.as_mut()), ctx.phases)?;
    // The refresh sets earlier runs on kept tables used: this one takes the next.
    let used = match &kept {
        Some(k) => k
            .state
            .parse::<usize>()
            .context("hakari_kept's refresh sets")?,
        None => 0,
    };
    if let Some(k) = &kept {
        let before = match used {
            0 => "no refresh set was used on them yet".to_string(),
            n => format!("refresh sets 1..={n} were used by the runs on them"),
        };
        let note = format!(
            "{}; {before}, this one uses sets {}..={}",
            k.note(config, "tpch"),
            used + 1,
            used + streams + 1
        );
        ctx.note(note);
        if params.validate && used > 0 {
            bail!("--validate needs the tables as loaded, and refresh sets 1..={used} have changed the kept ones: load them afresh (run without {})", ctx.phases.flag());
        }
    } else {
        made.forget(&mut Table(conn.as_mut()))?;
        load::load_test(params, config, conn.as_mut(), ctx)?;
    }
    let mut made_now = kept.unwrap_or_else(|| Kept::now(ctx.seed));
    if !ctx.phases.runs() {
        made_now.state = used.to_string();
        return made.remember(&mut Table(conn.as_mut()), ctx.phases, &made_now);
    }
    // A run that stops part way leaves refresh sets half applied: no record until it is done.
    made.forget(&mut Table(conn.as_mut()))?;
    let counts_before = refresh::counts(conn.as_mut())?;
    if params.validate {
        power::validation(config, conn.as_mut(), ctx)?;
    }
    // Refresh sets 1 (power) and 2..S+1 (throughput) after those used, staged before the timed
    // tests as the spec allows (DBT-3 runs dbgen inside RF1's interval instead).
    let sets: Vec<refresh::RefreshSet> = (used + 1..=used + streams + 1)
        .map(|k| refresh::generate(sf, k))
        .collect::<Result<_>>()
        .with_context(|| format!("{used} refresh sets were used by earlier runs on these kept tables: load them afresh"))?;
    let (power_queries, power_refresh) = power::power_test(config, conn.as_mut(), &sets[0], ctx)?;
    let ts = throughput::throughput_test(config, streams, db, &sets[1..], ctx)?;

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
    made_now.state = (used + streams + 1).to_string();
    made.remember(&mut Table(conn.as_mut()), ctx.phases, &made_now)
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
/// One query of a stream: which, when it started, how long it took, the rows it returned, and
/// what it cost where it ran alone.
pub(super) struct QueryTime {
    pub q: u8,
    pub started: Instant,
    pub seconds: f64,
    pub rows: u64,
    pub spent: Option<StepResources>,
}

/// Runs stream `stream`'s 22 queries in its order. `alone`: nothing else runs beside it (the
/// power test), so each query's resource readings are its own.
pub(super) fn query_stream(
    conn: &mut dyn SqlConnection,
    dialect: crate::engine::sql::Dialect,
    (sf, stream, seed): (f64, usize, u64),
    alone: bool,
    retries: &mut u64,
) -> Result<Vec<QueryTime>> {
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
        let span = alone.then(Span::start);
        let started = Instant::now();
        let rows = queries::run(conn, &sql, retries)
            .with_context(|| format!("Q{q} of stream {stream}"))?;
        let seconds = started.elapsed().as_secs_f64();
        out.push(QueryTime {
            q,
            started,
            seconds,
            rows: rows.len() as u64,
            spent: span.and_then(Span::finish),
        });
    }
    Ok(out)
}
