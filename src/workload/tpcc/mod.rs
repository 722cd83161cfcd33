//! TPC-C (revision 5.11), as the specification says where the open tools depart from it
//! (`../shared/specs/tpcc.md`): terminals bound to a home warehouse, the 23-card deck, NURand
//! with C-Load and C-Run, remote lines that update the supplying warehouse's stock, and the
//! consistency conditions checked after every run. Its figures are tpmC-like (NOPM), never tpmC:
//! these runs are not audited.
//!
//! One procedure per file (`new_order.rs` ... `stock_level.rs`), their SQL in
//! `sql/transactions.sql`, the population in `population.rs` (a `workload::load::Source`, its
//! random values from `random.rs`), the tables' life in `tables.rs`,
//! the conditions in `check.rs` and `sql/checks.sql`.

mod check;
mod delivery;
mod emulator;
mod figures;
pub mod flags;
mod money;
mod new_order;
mod order_status;
mod payment;
mod population;
pub mod presets;
mod random;
mod statements;
mod stock_level;
mod tables;
mod terminal;
mod view;

use crate::durability::Durability;
use crate::engine::sql::{SqlConnection, SqlDatabase};
use crate::engine::{Engine, Takes};
use crate::errors::Inconsistent;
use crate::measure::runner::StepOutcome;
use crate::results::Metric;
use crate::shard::Shard;
use crate::workload::kept::{Kept, Made, Table};
use crate::workload::shards::{self, Meeting, Stage};
use crate::workload::{sql_levels, Plan, RunContext, StepLength, Workload};
use anyhow::{bail, Context, Result};
use emulator::{Tally, Terminals};
use population::Population;
use presets::TpccParams;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use random::Constants;
use std::ops::RangeInclusive;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Every table hakari makes for tpcc starts with this.
pub const PREFIX: &str = "hakari_tpcc_";

pub type Config = crate::workload::SqlConfig;

impl Workload for TpccParams {
    type Config = Config;
    const NAME: &'static str = "tpcc";
    const VIEW: &'static dyn crate::report::view::View = &view::TpccView;
    const TAKES: Takes = Takes::Sql;
    const PACED: bool = true;
    const SHARDED: bool = true;
    const KEEPS: bool = true;

    #[cfg(test)]
    fn statements() -> String {
        use crate::engine::sql::Dialect;
        let mut out = String::new();
        for dialect in Dialect::ALL {
            // As the engine of the dialect declares it (MariaDB's InnoDB).
            let keyed = dialect == Dialect::Mysql;
            let all = (tables::schema(dialect, keyed).unwrap().into_iter())
                .chain(tables::keys(dialect, keyed).unwrap())
                .chain(statements::all_filled(dialect));
            for s in all {
                out.push_str(&format!(
                    "tpcc {}: {}\n",
                    dialect.name(),
                    s.replace('\n', " ")
                ));
            }
        }
        for s in check::statements() {
            out.push_str(&format!("tpcc check: {s}\n"));
        }
        out
    }

    fn step_length(&self) -> StepLength {
        StepLength::Seconds(self.ramp_up_secs + self.duration_secs)
    }

    fn steps_per_server(&self) -> usize {
        let clients = self.clients.as_ref().map_or(1, Vec::len);
        self.warehouse_counts.len() * clients * self.runs
    }

    fn plan(&self, engines: &[Engine], named: Option<&[Durability]>) -> Result<Plan<Config>> {
        if self.warehouse_counts.contains(&0) {
            bail!("--warehouses must be at least 1");
        }
        if self.runs == 0 {
            bail!("--runs must be at least 1");
        }
        if self.duration_secs <= 0.0 {
            bail!("--duration must be more than 0 seconds");
        }
        if self.ramp_up_secs < 0.0 {
            bail!("--ramp-up cannot be negative");
        }
        if self.client_counts().contains(&0) {
            bail!("--clients must be at least 1");
        }
        sql_levels(engines, named, &self.default_durability)
    }

    fn start(&mut self, ctx: &mut RunContext) {
        if let Some(note) = view::mix_note(self.weights) {
            eprintln!("note: {note}");
            ctx.recorder.note(note);
        }
        // Said in every result, not only in the docs: a reader of the figures must know.
        ctx.recorder.note(
            "Delivery runs inline on the terminal that dealt it, not deferred as §2.7 has it: \
             its response time is the whole delivery, and no queueing time is reported",
        );
    }

    fn run_config(&mut self, config: &Config, ctx: &mut RunContext) -> Result<()> {
        if self.think && ctx.timing.schedule.is_some() {
            bail!("--think-times and --rate do not go together: the terminals' times set the pace");
        }
        if ctx.phases.keeps() && self.warehouse_counts.len() > 1 {
            bail!(
                "{} keeps the tables of one scale: give one --warehouses count",
                ctx.phases.flag()
            );
        }
        homes(self, ctx.shard.unwrap_or(Shard::WHOLE))?;
        let dir = ctx.config_dir(config)?;
        let largest = TpccParams {
            warehouses: self.warehouse_counts.iter().copied().max().unwrap_or(1),
            ..self.clone()
        };
        let clients = largest.client_counts().into_iter().max().unwrap_or(1);
        let options = ctx.sql_options(config.engine, config.durability, &dir, clients + 1);
        let db = config.engine.open(&options)?;
        let keep = ctx.phases.keeps();
        let outcome = shards::measured_with_shards(
            db.as_ref(),
            ctx,
            config,
            PREFIX,
            keep,
            |ctx, meeting| {
                // Each warehouse count on tables loaded afresh (a shard runs one).
                for &warehouses in &self.warehouse_counts {
                    let p = TpccParams {
                        warehouses,
                        ..self.clone()
                    };
                    measure_config(&p, *config, db.as_ref(), meeting, ctx)?;
                }
                Ok(())
            },
            || tables::drop_all(db.as_ref()),
        );
        db.close()?;
        outcome
    }
}

/// With `--shard`: this shard's part of the warehouses (its terminals' homes), and what a
/// split run cannot do.
fn homes(p: &TpccParams, shard: Shard) -> Result<RangeInclusive<u64>> {
    let Some(homes) = shard.part(p.warehouses) else {
        bail!(
            "--shard {shard} needs at least {} warehouses, one per shard; there are {}",
            shard.count,
            p.warehouses
        );
    };
    if shard.count > 1
        && (p.runs > 1 || p.client_counts().len() > 1 || p.warehouse_counts.len() > 1)
    {
        bail!("--shard {shard}: tpcc splits one run at one terminal count and scale (shard 1 checks the conditions once every shard has stopped); give one --clients and one --warehouses value, and --runs 1");
    }
    if shard.load_all {
        bail!("--shard {shard} --load all: tpcc's load is shard 1's (it already spreads the warehouses over a loader per core); leave --load out");
    }
    Ok(homes)
}

fn measure_config(
    p: &TpccParams,
    config: Config,
    db: &dyn SqlDatabase,
    meeting: Option<&Meeting>,
    ctx: &mut RunContext,
) -> Result<()> {
    ctx.record_engine(
        Engine::Sql(config.engine),
        config.durability,
        db.version(),
        db.settings(),
    );
    let shard = ctx.shard.unwrap_or(Shard::WHOLE);
    let homes = homes(p, shard)?;
    let mut rng = ChaCha8Rng::seed_from_u64(ctx.seed ^ 0x7470_6363);
    // Shard 1 (or a client alone) loads; the other shards wait for its tables.
    let load_constants = match (meeting, shard.is_first()) {
        (Some(m), false) => {
            eprintln!("  shard {shard}: waiting for shard 1 to load the tables");
            m.wait_for(Stage::Loaded, "shard 1 did not load the tables for this run (start it with the same --url, configuration and --start-at, if any)")?;
            let found = tables::loaded(db.connect()?.as_mut())
                .context("shard 1 said the tables were loaded, but they are not")?;
            found.constants
        }
        _ => {
            let constants = ready(p, config, db, ctx, &mut rng)?;
            if let Some(m) = meeting {
                m.list(Stage::Loaded)?;
            }
            constants
        }
    };
    if !ctx.phases.runs() {
        return Ok(());
    }
    // Opened once the tables exist: Berkeley DB SQL refuses new connections after one older
    // than the tables reads them (bench/bdbsql_new_connection.c).
    let mut c = db.connect()?;
    let run_constants = Constants::for_run(&load_constants, &mut rng);
    ctx.recorder.note(format!(
        "{config}: NURand's C for c_last {} at the load, {} in the runs (§2.1.6.1: they differ by {}); c_id {}, ol_i_id {}",
        load_constants.c_last,
        run_constants.c_last,
        (run_constants.c_last - load_constants.c_last).abs(),
        run_constants.c_id,
        run_constants.ol_i_id
    ));
    shards::started_together(meeting, ctx, |ctx| {
        measure_runs(p, config, db, &mut c, run_constants, homes, meeting, ctx)
    })
}

/// The runs at each terminal count on the loaded tables, each checked after it.
#[allow(clippy::too_many_arguments)]
fn measure_runs(
    p: &TpccParams,
    config: Config,
    db: &dyn SqlDatabase,
    c: &mut Box<dyn SqlConnection>,
    constants: Constants,
    homes: RangeInclusive<u64>,
    meeting: Option<&Meeting>,
    ctx: &mut RunContext,
) -> Result<()> {
    let shard = ctx.shard.unwrap_or(Shard::WHOLE);
    // Ten terminals a warehouse, unless --clients says otherwise: a shard's of its own part.
    let counts = (p.clients.clone()).unwrap_or_else(|| vec![10 * homes.clone().count()]);
    let mut replicas = Vec::new();
    for clients in counts {
        let mut outcomes = Vec::new();
        let mut tallies = Vec::new();
        let mut broken = None;
        for run in 0..p.runs {
            let label = format!("{config} {clients} terminal(s), run {}/{}", run + 1, p.runs);
            let before = tables::next_order_sum(c.as_mut(), &homes)?;
            let tally = Tally::default();
            let seed = ctx.seed
                ^ ((run as u64) << 40)
                ^ ((clients as u64) << 20)
                ^ ((shard.index as u64) << 52);
            let mut timing = ctx.timing.lasting(p.ramp_up_secs + p.duration_secs);
            timing.warmup = timing
                .warmup
                .max(std::time::Duration::from_secs_f64(p.ramp_up_secs));
            eprintln!(
                "  {label}: {} s ramp-up, {} s measured",
                p.ramp_up_secs, p.duration_secs
            );
            let terminals = Terminals {
                p,
                db,
                constants,
                seed,
                tally: &tally,
                homes: homes.clone(),
            };
            let started = Instant::now();
            let outcome = terminals
                .run(clients, &timing)
                .with_context(|| label.clone())?;
            let wall = started.elapsed().as_secs_f64();
            // A fault may have dropped this connection with the terminals'; New-Orders whose
            // connection was lost before their answer may have committed.
            let in_doubt = match &outcome.fault {
                Some(f) => {
                    *c = db.connect()?;
                    f.failed as i64
                }
                None => 0,
            };
            // Only this run's terminals write their home warehouses' districts.
            let grew = tables::next_order_sum(c.as_mut(), &homes)? - before;
            let committed = tally.committed_new_orders.load(Ordering::Relaxed) as i64;
            let when = format!("after run {}/{} at {clients} terminal(s)", run + 1, p.runs);
            // The run's figures are recorded even when the database turns out inconsistent:
            // the result is marked failed, with the broken conditions' numbers.
            broken = if grew < committed || grew > committed + in_doubt {
                Some(anyhow::Error::new(Inconsistent(format!(
                    "{when}: the districts' next order ids grew by {grew} but the terminals committed {committed} New-Orders ({in_doubt} transactions in doubt)"
                ))))
            } else {
                after_run(c.as_mut(), p, db, meeting, &when, ctx, config)
                    .map(|nodes| replicas = nodes)
                    .err()
            };
            outcomes.push(outcome);
            tallies.push((tally, grew, wall));
            if broken.is_some() {
                break;
            }
        }
        figures::record(p, config, clients, ctx, &outcomes, &tallies)?;
        if let Some(e) = broken {
            return Err(e);
        }
    }
    if !replicas.is_empty() {
        ctx.recorder.note(format!(
            "{config} on {}: after every run, {} held what the primary held once they had applied every commit",
            ctx.topology(),
            replicas.join(", ")
        ));
    }
    Ok(())
}

/// The conditions after a run, once every shard has stopped (shard 1 checks them for all),
/// then every other node of a cluster against the primary; returns the nodes checked.
fn after_run(
    c: &mut dyn SqlConnection,
    p: &TpccParams,
    db: &dyn SqlDatabase,
    meeting: Option<&Meeting>,
    when: &str,
    ctx: &mut RunContext,
    config: Config,
) -> Result<Vec<String>> {
    if let Some(m) = meeting {
        m.mark(Stage::Done)?;
        if !m.shard.is_first() {
            ctx.recorder.note(format!(
                "{config}: shard 1 checks the consistency conditions once every shard has stopped"
            ));
            return Ok(Vec::new());
        }
        m.wait_for(Stage::Done, "the other shards did not finish their runs")?;
    }
    check_conditions(c, p.check.after_run(), when, ctx, config)?;
    check::replicas(db, c)
}

/// Tables to run on: those an earlier run kept (`--keep`, `--run-only`: at the same scale), else
/// made and loaded now and checked right after the load. Returns the load's NURand constants.
fn ready(
    p: &TpccParams,
    config: Config,
    db: &dyn SqlDatabase,
    ctx: &mut RunContext,
    rng: &mut ChaCha8Rng,
) -> Result<Constants> {
    let mut c = db.connect()?;
    tables::check_connections(c.as_mut(), p.client_counts().into_iter().max().unwrap_or(1))?;
    let made = Made::new("tpcc", vec![format!("--warehouses {}", p.warehouses)]);
    if made.find(&mut Table(c.as_mut()), ctx.phases)?.is_some() {
        let found = tables::loaded(c.as_mut()).context("the kept tpcc tables have no meta row")?;
        ctx.note(format!(
            "{config}: ran on the tables an earlier run loaded at {} and kept ({} warehouse(s), C_LOAD for c_last {}); nothing was loaded",
            found.loaded_at, found.warehouses, found.constants.c_last
        ));
        return Ok(found.constants);
    }
    made.forget(&mut Table(c.as_mut()))?;
    drop(c);
    let constants = Constants::draw(rng);
    load(p, config, db, ctx, constants)?;
    let mut c = db.connect()?;
    check_conditions(
        c.as_mut(),
        p.check.after_load(),
        "right after the load",
        ctx,
        config,
    )?;
    made.remember(&mut Table(c.as_mut()), ctx.phases, &Kept::now(ctx.seed))?;
    Ok(constants)
}

/// Makes and loads the tables, timing the load as a step of its own.
fn load(
    p: &TpccParams,
    config: Config,
    db: &dyn SqlDatabase,
    ctx: &mut RunContext,
    constants: Constants,
) -> Result<()> {
    let loaded_at = chrono::Utc::now().format("%Y-%m-%d %H:%M:%S").to_string();
    let population = Population {
        dialect: db.connect()?.dialect(),
        seed: ctx.seed,
        constants,
        now: loaded_at.clone(),
    };
    let span = crate::measure::runner::Span::start();
    let started = Instant::now();
    tables::create(db)?;
    let rows = tables::load(db, &population, p.warehouses)?;
    let rows_secs = started.elapsed().as_secs_f64();
    eprintln!("  adding keys and indexes, gathering statistics");
    tables::finish(db, p.warehouses, ctx.seed, &constants, &loaded_at)?;
    let secs = started.elapsed().as_secs_f64();
    let key = figures::measurement_key(p, config, 1, "load");
    ctx.measured(key, &[StepOutcome::whole(secs, rows).spent(span.finish())])?;
    let per_minute = p.warehouses as f64 / secs * 60.0;
    ctx.recorder.metric(Metric {
        name: "warehouses/min loaded".into(),
        value: per_minute,
        unit: "warehouses/min".into(),
        engine: Some(config.engine.name().into()),
        note: Some(config.durability.to_string()),
    });
    ctx.recorder.note(format!(
        "{config}: loaded {} warehouse(s), {} rows, in {} ({} rows/s, {:.1} warehouses/min); the rows took {}, keys, indexes and statistics {}",
        p.warehouses,
        crate::units::thousands(rows as f64),
        crate::units::duration(secs),
        crate::units::thousands(rows as f64 / secs),
        per_minute,
        crate::units::duration(rows_secs),
        crate::units::duration(secs - rows_secs)
    ));
    Ok(())
}

/// Checks `conditions`; a broken one fails the run as inconsistent (exit 3).
fn check_conditions(
    c: &mut dyn SqlConnection,
    conditions: &[u32],
    when: &str,
    ctx: &mut RunContext,
    config: Config,
) -> Result<()> {
    if conditions.is_empty() {
        return Ok(());
    }
    let started = Instant::now();
    let broken = check::conditions(c, conditions)?;
    let list = conditions
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if broken.is_empty() {
        ctx.recorder.note(format!(
            "{config}: consistency conditions {list} held {when} ({})",
            crate::units::duration(started.elapsed().as_secs_f64())
        ));
        return Ok(());
    }
    let text: Vec<String> = broken.iter().map(|b| b.to_string()).collect();
    Err(Inconsistent(format!("{when}: {}", text.join("; "))).into())
}

/// The draw of a run seed's random stream is deterministic: used by tests of the draws.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_orders_roll_back_and_go_remote_about_as_often_as_the_spec_says() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let c = Constants::draw(&mut rng);
        let (mut rollbacks, mut lines, mut remote) = (0, 0, 0);
        let n = 20_000;
        for _ in 0..n {
            let x = new_order::draw(&mut rng, 2, 5, &c);
            rollbacks += x.lines.iter().any(|l| l.item > 100_000) as u32;
            lines += x.lines.len();
            remote += x.lines.iter().filter(|l| l.supply != 2).count();
            assert!((5..=15).contains(&x.lines.len()));
        }
        assert!((140..260).contains(&rollbacks), "{rollbacks}");
        let remote_share = remote as f64 / lines as f64;
        assert!((0.007..0.013).contains(&remote_share), "{remote_share}");
        let payments: Vec<payment::Input> =
            (0..n).map(|_| payment::draw(&mut rng, 2, 5, &c)).collect();
        let remote = payments.iter().filter(|x| x.c_w != 2).count() as f64 / n as f64;
        let by_name = payments.iter().filter(|x| x.customer.by_name()).count() as f64 / n as f64;
        assert!((0.13..0.17).contains(&remote), "{remote}");
        assert!((0.58..0.62).contains(&by_name), "{by_name}");
        // One warehouse: nothing is remote.
        assert!((0..1000).all(|_| payment::draw(&mut rng, 1, 1, &c).c_w == 1));
    }
}
