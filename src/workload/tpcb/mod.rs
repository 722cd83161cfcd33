//! The TPC-B-like workload (paper 000 table 6, paper 004): branches, tellers, accounts and
//! history; N clients, each with its own connection, run the transaction profile in a closed loop.
//!
//! Accounts are drawn as the TPC-B specification says: from the teller's own branch 85% of the
//! time, from another branch otherwise (when there is one). Balances must stay consistent: after
//! every run the sums of accounts, tellers, branches and history deltas are compared.

pub mod flags;
pub mod presets;
mod shards;
#[cfg(test)]
pub(crate) mod snapshot;

use crate::durability::Durability;
use crate::engine::kv::retry_conflicts;
use crate::engine::sql::{Dialect, Row, SqlConnection, SqlDatabase, SqlOptions, SqlValue, Stmt};
use crate::engine::{Engine, Takes};
use crate::measure::progress::Progress;
use crate::measure::runner::{run_step, StepOutcome, Worker};
use crate::measure::timing::Timing;
use crate::results::MeasurementKey;
use crate::shard::Shard;
use crate::workload::{sql_levels, Plan, RunContext, StepLength, Workload};
use anyhow::{bail, Context, Result};
use presets::{Test, TpcbParams};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::time::Instant;

/// The tables' DDL: BIGINT everywhere but Oracle, which has NUMBER(19).
fn schema(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Oracle => include_str!("sql/oracle/schema.sql"),
        _ => include_str!("sql/schema.sql"),
    }
}
const DROP: &str = include_str!("sql/drop.sql");
const TRANSACTION: &str = include_str!("sql/transaction.sql");
const CHECK: &str = include_str!("sql/check.sql");

/// Tables of set `i` are named `hakari_tpcb<i>_...`.
fn prefix(set: usize) -> String {
    format!("hakari_tpcb{set}_")
}

fn statements(template: &str, set: usize) -> Vec<String> {
    crate::workload::sql::filled(template, &[("p", &prefix(set))])
}

/// An engine at a durability level.
pub type Config = crate::workload::SqlConfig;

/// The workload is its parameters.
impl Workload for TpcbParams {
    type Config = Config;
    const NAME: &'static str = "tpcb";
    const TAKES: Takes = Takes::Sql;
    /// Paper 000 ran table 6 on Berkeley DB's SQL interface.
    const PRESET_ENGINES: &'static [(&'static str, &'static str)] =
        &[("bdb-11gr2", "bdb-sql,sqlite")];
    const PACED: bool = true;
    const SHARDED: bool = true;

    fn step_length(&self) -> StepLength {
        match self.transactions {
            None => StepLength::Seconds(self.duration_secs),
            Some(_) => StepLength::Unknown,
        }
    }

    fn plan(&self, engines: &[Engine], named: Option<&[Durability]>) -> Result<Plan<Config>> {
        let params = self;
        if params.branches == 0 || params.tellers_per_branch == 0 || params.accounts_per_branch == 0
        {
            bail!("--scale and the tellers and accounts per branch must be at least 1");
        }
        if params.runs == 0 {
            bail!("--runs must be at least 1");
        }
        if params.transactions.is_none() && params.duration_secs <= 0.0 {
            bail!("--duration must be more than 0 seconds");
        }
        sql_levels(engines, named, &params.default_durability)
    }

    fn run_config(&mut self, config: &Config, ctx: &mut RunContext) -> Result<()> {
        run_config(self, *config, ctx)
    }
}

fn run_config(params: &TpcbParams, config: Config, ctx: &mut RunContext) -> Result<()> {
    let dir = ctx.config_dir(&config)?;
    let max_sets = params.table_sets.iter().copied().max().unwrap_or(1);
    let db = config.engine.open(&SqlOptions {
        dir: dir.clone(),
        durability: config.durability,
        url: ctx.url_for(Engine::Sql(config.engine)).map(str::to_string),
        dialect: ctx.dialect(),
        clients: params.clients.iter().copied().max().unwrap_or(1),
        cache_bytes: params.cache_bytes,
        topology: ctx.topology(),
        // Shard 1 drops what all shards shared, once every one is done.
        shared: ctx.shard.is_some_and(|s| !s.loads()),
    })?;
    // The shards of one configuration of one run know each other by the planned start.
    let sharding = ctx.shard.filter(|s| s.count > 1).map(|shard| {
        let at = (ctx.timing.start_at).map_or(0.0, crate::results::time::unix_seconds);
        (shard, format!("{at:.3} {config}"))
    });
    let outcome = measure_config(params, config, db.as_ref(), max_sets, sharding.clone(), ctx);
    let cleanup = match &sharding {
        Some((shard, run)) => {
            let finished = db
                .connect()
                .and_then(|mut c| shards::finish(c.as_mut(), *shard, run));
            match shard.loads() {
                true => finished.and_then(|()| drop_tables(db.as_ref(), max_sets)),
                false => finished,
            }
        }
        // Drop the tables even when the run failed: they are hakari's own.
        None => drop_tables(db.as_ref(), max_sets),
    };
    db.close()?;
    std::fs::remove_dir_all(&dir).ok();
    outcome.and(cleanup)
}

fn measure_config(
    params: &TpcbParams,
    config: Config,
    db: &dyn SqlDatabase,
    max_sets: usize,
    sharding: Option<(Shard, String)>,
    ctx: &mut RunContext,
) -> Result<()> {
    let engine = Engine::Sql(config.engine);
    ctx.record_engine(engine, config.durability, db.version(), db.settings());
    // Each client's tellers are its shard's branches' (all of them without --shard).
    let shard = ctx.shard.unwrap_or(Shard { index: 1, count: 1 });
    let Some(branches) = shard.part(params.branches) else {
        bail!(
            "--shard {shard} needs at least {} branches, one per shard (--scale); there are {}",
            shard.count,
            params.branches
        );
    };
    let tpb = params.tellers_per_branch as i64;
    let tellers = (*branches.start() as i64 - 1) * tpb + 1..=*branches.end() as i64 * tpb;
    if let Some((shard, run)) = sharding.as_ref().filter(|(s, _)| !s.loads()) {
        eprintln!("  shard {shard}: waiting for shard 1 to load the tables");
        shards::wait_for_load(db.connect()?.as_mut(), *shard, run)?;
        return measure_steps(params, config, db, max_sets, tellers, ctx);
    }
    let load_started = Instant::now();
    for set in 0..max_sets {
        load(params, db, set)?;
    }
    if let Some((shard, run)) = &sharding {
        shards::list(db.connect()?.as_mut(), *shard, run)?;
    }
    ctx.recorder.note(format!(
        "{} {}: loaded {} table set(s) of {} branches, {} tellers, {} accounts in {} (not part of any figure)",
        config.engine.name(),
        config.durability,
        max_sets,
        params.branches,
        params.tellers(),
        params.accounts(),
        crate::units::duration(load_started.elapsed().as_secs_f64())
    ));
    measure_steps(params, config, db, max_sets, tellers, ctx)
}

/// Every timed step of a configuration on its loaded tables, the balances checked after each.
fn measure_steps(
    params: &TpcbParams,
    config: Config,
    db: &dyn SqlDatabase,
    max_sets: usize,
    tellers: RangeInclusive<i64>,
    ctx: &mut RunContext,
) -> Result<()> {
    let mut replicas_checked = Vec::new();
    for &sets in &params.table_sets {
        for &test in &params.tests {
            for &clients in &params.clients {
                let mut outcomes = Vec::new();
                for run in 0..params.runs {
                    let label = format!(
                        "{} {} {} {clients} client(s), {sets} set(s), run {}/{}",
                        config.engine.name(),
                        config.durability,
                        test.step(),
                        run + 1,
                        params.runs
                    );
                    let expected = params.transactions.map(|t| t * clients as u64).unwrap_or(0);
                    let progress = if expected > 0 {
                        Progress::new(&label, expected)
                    } else {
                        Progress::hidden()
                    };
                    let seed =
                        ctx.seed ^ ((run as u64) << 40) ^ ((clients as u64) << 20) ^ sets as u64;
                    let timing = match params.transactions {
                        Some(_) => ctx.timing.clone(),
                        None => ctx.timing.lasting(params.duration_secs),
                    };
                    let run = Run {
                        test,
                        clients,
                        sets,
                        seed,
                        tellers: tellers.clone(),
                    };
                    let outcome = run_clients(params, db, run, &timing, &progress)
                        .with_context(|| label.clone())?;
                    replicas_checked = check_consistency(db, max_sets)
                        .with_context(|| format!("after {label}"))?;
                    outcomes.push(outcome);
                }
                let mut config_map = BTreeMap::new();
                config_map.insert("table_sets".into(), sets.into());
                config_map.insert("branches".into(), params.branches.into());
                config_map.insert("accounts".into(), params.accounts().into());
                let key = MeasurementKey {
                    workload: "tpcb".into(),
                    engine: config.engine.name().into(),
                    durability: config.durability.name().into(),
                    threads: clients,
                    step: test.step().into(),
                    config: config_map,
                };
                ctx.measured(key, &outcomes)?;
            }
        }
    }
    if !replicas_checked.is_empty() {
        ctx.recorder.note(format!(
            "{} {} on {}: after every run, {} held the primary's balances once they had applied every commit",
            config.engine.name(),
            config.durability,
            ctx.topology(),
            replicas_checked.join(", ")
        ));
    }
    Ok(())
}

fn load(params: &TpcbParams, db: &dyn SqlDatabase, set: usize) -> Result<()> {
    let mut c = db.connect()?;
    let dialect = c.dialect();
    for stmt in statements(DROP, set)
        .iter()
        .chain(statements(schema(dialect), set).iter())
    {
        c.execute(stmt)
            .with_context(|| format!("setting up: {stmt}"))?;
    }
    let p = prefix(set);
    let filler = |n: usize| SqlValue::Text(" ".repeat(n));
    let mut branches =
        (1..=params.branches as i64).map(|b| vec![SqlValue::Int(b), SqlValue::Int(0), filler(88)]);
    c.bulk_load(
        &format!("{p}branches"),
        &["bid", "bbalance", "filler"],
        &mut branches,
    )?;
    // Tellers and accounts: an id, the branch it belongs to, a zero balance, the filler.
    let mut members = |table: &str, columns: &[&str], count: u64, per_branch: u64| {
        let per_branch = per_branch as i64;
        let mut rows = (1..=count as i64).map(|id| -> Row {
            let branch = (id - 1) / per_branch + 1;
            vec![
                SqlValue::Int(id),
                SqlValue::Int(branch),
                SqlValue::Int(0),
                filler(84),
            ]
        });
        c.bulk_load(&format!("{p}{table}"), columns, &mut rows)
    };
    let tellers = ["tid", "bid", "tbalance", "filler"];
    members(
        "tellers",
        &tellers,
        params.tellers(),
        params.tellers_per_branch,
    )?;
    let accounts = ["aid", "bid", "abalance", "filler"];
    members(
        "accounts",
        &accounts,
        params.accounts(),
        params.accounts_per_branch,
    )?;
    for table in ["branches", "tellers", "accounts", "history"] {
        for stmt in crate::workload::sql::analyze(dialect, &format!("{p}{table}")) {
            c.execute(&stmt)?;
        }
    }
    Ok(())
}

fn drop_tables(db: &dyn SqlDatabase, sets: usize) -> Result<()> {
    let mut c = db.connect()?;
    for set in 0..sets {
        for stmt in statements(DROP, set) {
            c.execute(&stmt)?;
        }
    }
    Ok(())
}

/// The balances agree in every table set, and every other node of a cluster holds the same;
/// returns the other nodes checked.
fn check_consistency(db: &dyn SqlDatabase, sets: usize) -> Result<Vec<String>> {
    let mut c = db.connect()?;
    let sums = balance_sums(c.as_mut(), sets)?;
    let mut checked = Vec::new();
    for (node, mut replica) in db.replicas()? {
        let there = balance_sums(replica.as_mut(), sets).with_context(|| node.clone())?;
        if there != sums {
            bail!("{node} does not hold what the primary holds once it has applied every commit: balance sums {there:?} there, {sums:?} on the primary");
        }
        checked.push(node);
    }
    Ok(checked)
}

/// Per table set: the sums of the accounts', tellers', branches' balances and of the history's
/// deltas (all equal), and the history's rows.
fn balance_sums(c: &mut dyn SqlConnection, sets: usize) -> Result<Vec<Vec<i64>>> {
    let mut all = Vec::new();
    for set in 0..sets {
        let rows = c.query(&statements(CHECK, set)[0])?;
        let sums: Vec<i64> = rows
            .first()
            .context("the consistency query returned no row")?
            .iter()
            .map(|v| match v {
                SqlValue::Int(i) => *i,
                SqlValue::Float(f) => *f as i64,
                SqlValue::Text(t) => t.parse().unwrap_or(i64::MIN),
                _ => i64::MIN,
            })
            .collect();
        if sums[0] != sums[1] || sums[1] != sums[2] || sums[2] != sums[3] {
            bail!(
                "balances are inconsistent in table set {set}: accounts {}, tellers {}, branches {}, history {} ({} history rows)",
                sums[0], sums[1], sums[2], sums[3], sums[4]
            );
        }
        all.push(sums);
    }
    Ok(all)
}

/// One client: its connection, prepared statements and random stream.
struct Client {
    conn: Box<dyn SqlConnection>,
    tx: Vec<Stmt>,
    rng: ChaCha8Rng,
}

/// One timed run: the test, by how many clients, on how many table sets.
struct Run {
    test: Test,
    clients: usize,
    sets: usize,
    seed: u64,
    /// The tellers (and so home branches) its clients draw from: its shard's.
    tellers: RangeInclusive<i64>,
}

fn run_clients(
    params: &TpcbParams,
    db: &dyn SqlDatabase,
    Run {
        test,
        clients,
        sets,
        seed,
        tellers,
    }: Run,
    timing: &Timing,
    progress: &Progress,
) -> Result<StepOutcome> {
    run_step(
        clients,
        timing,
        progress,
        |i| {
            let mut conn = db.connect()?;
            // Each client is bound to one table set.
            let set = i % sets;
            let tx = statements(TRANSACTION, set)
                .iter()
                .map(|s| conn.prepare(s))
                .collect::<Result<Vec<_>>>()?;
            Ok(Client {
                conn,
                tx,
                rng: ChaCha8Rng::seed_from_u64(seed ^ (i as u64).wrapping_mul(0x9E37_79B9)),
            })
        },
        |client: &mut Client, worker: &mut Worker| {
            let mut done = 0u64;
            while worker.more() && params.transactions.is_none_or(|n| done < n) {
                let choice = Choice::draw(params, &tellers, &mut client.rng);
                // Each transaction is drawn on its own: one already late may be skipped.
                let ran = worker.timed_or_skipped(1, || transaction(client, test, &choice))?;
                for _ in 0..ran.unwrap_or(0) {
                    worker.retried();
                }
                done += 1;
            }
            Ok(())
        },
    )
}

/// The random inputs of one transaction.
struct Choice {
    aid: i64,
    tid: i64,
    bid: i64,
    delta: i64,
}

impl Choice {
    fn draw(params: &TpcbParams, tellers: &RangeInclusive<i64>, rng: &mut ChaCha8Rng) -> Choice {
        let tid = rng.random_range(tellers.clone());
        let bid = (tid - 1) / params.tellers_per_branch as i64 + 1;
        let branches = params.branches as i64;
        // 85% of accounts from the teller's own branch, the rest from any other branch.
        let account_branch = if branches > 1 && rng.random_range(0..100) >= 85 {
            let other = rng.random_range(1..branches);
            if other >= bid {
                other + 1
            } else {
                other
            }
        } else {
            bid
        };
        let apb = params.accounts_per_branch as i64;
        let aid = (account_branch - 1) * apb + rng.random_range(1..=apb);
        Choice {
            aid,
            tid,
            bid,
            delta: rng.random_range(-99_999..=99_999),
        }
    }
}

/// Runs one transaction, retrying it whole after a conflict; returns the retries.
fn transaction(client: &mut Client, test: Test, c: &Choice) -> Result<u64> {
    let mut retries = 0;
    retry_conflicts(&mut retries, || {
        try_transaction(client, test, c).inspect_err(|_| {
            let _ = client.conn.rollback();
        })
    })?;
    Ok(retries)
}

fn try_transaction(client: &mut Client, test: Test, c: &Choice) -> Result<()> {
    let (conn, tx) = (&mut client.conn, &client.tx);
    let int = SqlValue::Int;
    match test {
        Test::Tpcb => {
            conn.begin()?;
            conn.exec_prepared(tx[0], &[int(c.delta), int(c.aid)])?;
            let mut balance = None;
            conn.query_prepared(tx[1], &[int(c.aid)], &mut |row| {
                balance = row.first().cloned()
            })?;
            if balance.is_none() {
                bail!("account {} not found", c.aid);
            }
            conn.exec_prepared(tx[2], &[int(c.delta), int(c.tid)])?;
            conn.exec_prepared(tx[3], &[int(c.delta), int(c.bid)])?;
            conn.exec_prepared(tx[4], &[int(c.tid), int(c.bid), int(c.aid), int(c.delta)])?;
            conn.commit()
        }
        Test::AtomicRead => {
            let n = conn.query_prepared(tx[1], &[int(c.aid)], &mut |_| {})?;
            if n != 1 {
                bail!("account {} read {n} rows", c.aid);
            }
            Ok(())
        }
        Test::AtomicUpdate => {
            // One record rewritten in its own transaction. The filler changes, the balance does
            // not (the balances stay consistent), and the row really differs: SQLite, for one,
            // skips an update that leaves a row as it was.
            let filler = SqlValue::Text(format!("{:084}", c.delta.unsigned_abs()));
            let n = conn.exec_prepared(tx[5], &[filler, int(c.aid)])?;
            if n != 1 {
                bail!("account {} updated {n} rows", c.aid);
            }
            Ok(())
        }
    }
}
