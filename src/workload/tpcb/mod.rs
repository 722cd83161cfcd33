//! The TPC-B-like workload (paper 000 table 6, paper 004): branches, tellers, accounts and
//! history; N clients, each with its own connection, run the transaction profile in a closed loop.
//!
//! Accounts are drawn as the TPC-B specification says: from the teller's own branch 85% of the
//! time, from another branch otherwise (when there is one). Balances must stay consistent: after
//! every run the sums of accounts, tellers, branches and history deltas are compared.

pub mod flags;
pub mod presets;
#[cfg(test)]
pub(crate) mod snapshot;
mod tables;
mod view;

use crate::durability::Durability;
use crate::engine::kv::retry_conflicts;
use crate::engine::sql::{Dialect, SqlConnection, SqlDatabase, SqlOptions, SqlValue, Stmt};
use crate::engine::{Engine, Takes};
use crate::measure::progress::Progress;
use crate::measure::runner::{run_step, StepOutcome, Worker};
use crate::measure::timing::Timing;
use crate::results::MeasurementKey;
use crate::shard::Shard;
use crate::workload::kept::{Kept, Table};
use crate::workload::shards::{self, Stage};
use crate::workload::{sql_levels, Plan, RunContext, StepLength, Workload};
use anyhow::{bail, Context, Result};
use presets::{Test, TpcbParams};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::time::Instant;

/// The tables' DDL for table set `set` in `dialect` (its 64-bit integer type). On PostgreSQL
/// the tables come without keys, which [`keys`] adds after the load, as pgbench -i does.
fn schema(dialect: Dialect, set: usize) -> Vec<String> {
    let text = match dialect {
        Dialect::Postgres => include_str!("sql/postgres/schema.sql"),
        _ => include_str!("sql/schema.sql"),
    };
    let bigint = crate::workload::sql::bigint(dialect);
    let values: [(&str, &dyn std::fmt::Display); 2] = [("p", &prefix(set)), ("bigint", &bigint)];
    crate::workload::sql::statements(&crate::workload::sql::fill(text, &values))
}

/// The keys added once the rows are in; none where the schema makes them with the tables.
fn keys(dialect: Dialect, set: usize) -> Vec<String> {
    match dialect {
        Dialect::Postgres => statements(include_str!("sql/postgres/keys.sql"), set),
        _ => Vec::new(),
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
    crate::workload::sql::statements(&crate::workload::sql::fill(
        template,
        &[("p", &prefix(set))],
    ))
}

/// An engine at a durability level.
pub type Config = crate::workload::SqlConfig;

/// The workload is its parameters.
impl Workload for TpcbParams {
    type Config = Config;
    const NAME: &'static str = "tpcb";
    const VIEW: &'static dyn crate::report::view::View = &view::TpcbView;
    const TAKES: Takes = Takes::Sql;
    /// Paper 000 ran table 6 on Berkeley DB's SQL interface.
    const PRESET_ENGINES: &'static [(&'static str, &'static str)] =
        &[("bdb-11gr2", "bdb-sql,sqlite")];
    const PACED: bool = true;
    const SHARDED: bool = true;
    const KEEPS: bool = true;

    #[cfg(test)]
    fn statements() -> String {
        snapshot::statements()
    }

    fn step_length(&self) -> StepLength {
        match self.transactions {
            None => StepLength::Seconds(self.duration_secs),
            Some(_) => StepLength::Unknown,
        }
    }

    fn steps_per_server(&self) -> usize {
        self.table_sets.len() * self.tests.len() * self.clients.len() * self.runs
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
        cache_bytes: params.cache_bytes,
        ..ctx.sql_options(
            config.engine,
            config.durability,
            &dir,
            params.clients.iter().copied().max().unwrap_or(1),
        )
    })?;
    let keep = ctx.phases.keeps();
    let outcome = shards::measured_with_shards(
        db.as_ref(),
        ctx,
        config,
        "hakari_tpcb_",
        keep,
        |ctx, meeting| measure_config(params, config, db.as_ref(), max_sets, meeting, ctx),
        || tables::drop_all(db.as_ref(), max_sets),
    );
    db.close()?;
    outcome
}

fn measure_config(
    params: &TpcbParams,
    config: Config,
    db: &dyn SqlDatabase,
    max_sets: usize,
    meeting: Option<&shards::Meeting>,
    ctx: &mut RunContext,
) -> Result<()> {
    let engine = Engine::Sql(config.engine);
    ctx.record_engine(engine, config.durability, db.version(), db.settings());
    // Each client's tellers are its shard's branches' (all of them without --shard).
    let shard = ctx.shard.unwrap_or(Shard::WHOLE);
    let Some(branches) = shard.part(params.branches) else {
        bail!(
            "--shard {shard} needs at least {} branches, one per shard (--scale); there are {}",
            shard.count,
            params.branches
        );
    };
    let tpb = params.tellers_per_branch as i64;
    let tellers = (*branches.start() as i64 - 1) * tpb + 1..=*branches.end() as i64 * tpb;
    let made = tables::made(params, max_sets);
    let kept = made.find(&mut Table(db.connect()?.as_mut()), ctx.phases)?;
    if let Some(kept) = &kept {
        let note = kept.note(
            format_args!("{} {}", config.engine.name(), config.durability),
            "tpcb",
        );
        ctx.note(note);
    } else {
        made.forget(&mut Table(db.connect()?.as_mut()))?;
        let load_started = Instant::now();
        load(params, db, max_sets, shard, meeting)?;
        if let Some(part) = shard.load_part(params.branches) {
            let whose = if shard.count > 1 && shard.load_all {
                format!(" (shard {shard}'s part)")
            } else {
                String::new()
            };
            ctx.note(format!(
                "{} {}: loaded branches {}..={}{whose} of {} table set(s) of {} branches, {} tellers, {} accounts in {} (not part of any figure)",
                config.engine.name(),
                config.durability,
                part.start(),
                part.end(),
                max_sets,
                params.branches,
                params.tellers(),
                params.accounts(),
                crate::units::duration(load_started.elapsed().as_secs_f64())
            ));
        }
        made.remember(
            &mut Table(db.connect()?.as_mut()),
            ctx.phases,
            &Kept::now(ctx.seed),
        )?;
    }
    if !ctx.phases.runs() {
        return Ok(());
    }
    shards::started_together(meeting, ctx, |ctx| {
        measure_steps(params, config, db, max_sets, tellers, ctx)
    })
}

/// Makes the table sets and loads them: shard 1 creates them (and loads them whole, unless
/// every shard loads its own part); the other shards wait for shard 1's list of the run.
fn load(
    params: &TpcbParams,
    db: &dyn SqlDatabase,
    sets: usize,
    shard: Shard,
    meeting: Option<&shards::Meeting>,
) -> Result<()> {
    // One client alone loads everything, whatever --load says.
    let whole = !(shard.load_all && meeting.is_some());
    if shard.is_first() {
        for set in 0..sets {
            tables::create(db, set)?;
            if whole {
                tables::load(params, db, set, 1..=params.branches)?;
                tables::finish(db, set)?;
            }
        }
        if let Some(m) = meeting {
            m.list(if whole { Stage::Loaded } else { Stage::Listed })?;
        }
    } else if let Some(m) = meeting {
        eprintln!("  shard {shard}: waiting for shard 1 to create the tables");
        let stage = if whole { Stage::Loaded } else { Stage::Listed };
        m.wait_for(stage, "shard 1 did not create the tables for this run (start it with the same --url, configuration and --start-at, if any)")?;
    }
    let (Some(m), false) = (meeting, whole) else {
        return Ok(());
    };
    let part = shard
        .part(params.branches)
        .context("checked by the caller")?;
    for set in 0..sets {
        tables::load(params, db, set, part.clone())?;
    }
    m.mark(Stage::Loaded)?;
    eprintln!("  shard {shard}: loaded its branches; waiting for the other shards' loads");
    m.wait_for(
        Stage::Loaded,
        "the other shards did not load their branches",
    )?;
    if shard.is_first() {
        for set in 0..sets {
            tables::finish(db, set)?;
        }
    }
    Ok(())
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
                    // With a fault, the history's rows before the run, to find lost commits.
                    let history = (timing.fault.is_some() && test == Test::Tpcb)
                        .then(|| history_rows(db, max_sets))
                        .transpose()?;
                    let outcome = run_clients(params, db, run, &timing, &progress)
                        .with_context(|| label.clone())?;
                    replicas_checked = check_consistency(db, max_sets)
                        .with_context(|| format!("after {label}"))?;
                    if let Some(before) = history {
                        nothing_lost(db, max_sets, before, &outcome)
                            .with_context(|| format!("after {label}"))?;
                    }
                    outcomes.push(outcome);
                }
                let mut config_map = BTreeMap::new();
                config_map.insert("table_sets".into(), sets.into());
                config_map.insert("branches".into(), params.branches.into());
                config_map.insert("accounts".into(), params.accounts().into());
                let key = MeasurementKey::new(
                    config.engine.name(),
                    config.durability,
                    clients,
                    test.step(),
                    config_map,
                );
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

/// The history's rows in every table set.
fn history_rows(db: &dyn SqlDatabase, sets: usize) -> Result<i64> {
    let mut c = db.connect()?;
    Ok(balance_sums(c.as_mut(), sets)?.iter().map(|s| s[4]).sum())
}

/// Every transaction acknowledged in a run with a fault left its history row: the rows the run
/// added are at least those acknowledged, and at most those plus the ones whose connection was
/// lost before the answer came (which may have committed).
fn nothing_lost(db: &dyn SqlDatabase, sets: usize, before: i64, run: &StepOutcome) -> Result<()> {
    let acknowledged: u64 = run.intervals.iter().map(|i| i.ops).sum();
    let in_doubt = run.fault.as_ref().map_or(0, |f| f.failed);
    let added = (history_rows(db, sets)? - before) as u64;
    if added < acknowledged {
        return Err(anyhow::Error::new(crate::errors::Inconsistent(format!(
            "{} acknowledged transactions are missing: {acknowledged} were acknowledged, the history holds {added} new rows",
            acknowledged - added
        ))));
    }
    if added > acknowledged + in_doubt {
        bail!("the history holds {added} new rows, more than the {acknowledged} transactions acknowledged and the {in_doubt} in doubt");
    }
    Ok(())
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
    tx: Transaction,
    rng: ChaCha8Rng,
}

/// The transaction's statements, prepared on one connection, by their names in
/// `sql/transaction.sql`.
struct Transaction {
    update_account: Stmt,
    select_balance: Stmt,
    update_teller: Stmt,
    update_branch: Stmt,
    insert_history: Stmt,
    update_filler: Stmt,
}

impl Transaction {
    fn prepare(conn: &mut dyn SqlConnection, set: usize) -> Result<Transaction> {
        let named = crate::workload::sql::SqlFile::read(TRANSACTION, None, &[("p", &prefix(set))]);
        let mut prepare = |name: &str| conn.prepare(named.statement(name)?);
        Ok(Transaction {
            update_account: prepare("update_account")?,
            select_balance: prepare("select_balance")?,
            update_teller: prepare("update_teller")?,
            update_branch: prepare("update_branch")?,
            insert_history: prepare("insert_history")?,
            update_filler: prepare("update_filler")?,
        })
    }
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
            let tx = Transaction::prepare(conn.as_mut(), set)?;
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
                let ran = worker.timed_or_skipped(1, |_| transaction(client, test, &choice))?;
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
            conn.exec_prepared(tx.update_account, &[int(c.delta), int(c.aid)])?;
            let mut balance = None;
            conn.query_prepared(tx.select_balance, &[int(c.aid)], &mut |row| {
                balance = row.first().cloned()
            })?;
            if balance.is_none() {
                bail!("account {} not found", c.aid);
            }
            conn.exec_prepared(tx.update_teller, &[int(c.delta), int(c.tid)])?;
            conn.exec_prepared(tx.update_branch, &[int(c.delta), int(c.bid)])?;
            conn.exec_prepared(
                tx.insert_history,
                &[int(c.tid), int(c.bid), int(c.aid), int(c.delta)],
            )?;
            conn.commit()
        }
        Test::AtomicRead => {
            let n = conn.query_prepared(tx.select_balance, &[int(c.aid)], &mut |_| {})?;
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
            let n = conn.exec_prepared(tx.update_filler, &[filler, int(c.aid)])?;
            if n != 1 {
                bail!("account {} updated {n} rows", c.aid);
            }
            Ok(())
        }
    }
}
