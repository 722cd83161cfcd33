//! A user's own transactions: script files in pgbench's syntax (`\set` with pgbench's
//! expression language, `\sleep`, `:variables` bound as parameters, `BEGIN; ... END;`), run by
//! N clients, each on its own connection, on every SQL engine. Each client draws a script by
//! weight per transaction. Figures: transactions per second over all scripts (step `run`),
//! per script, and each statement's latency, as `pgbench -r` reports.
//!
//! A script runs on the user's own tables, as the user asked: hakari creates and drops
//! nothing there, except through `--init` and `--cleanup`, which run once, untimed.

mod branch;
mod client;
mod eval;
mod expr;
pub mod flags;
mod log;
mod parse;
mod pipeline;
mod program;
mod random;
mod value;
mod view;

use crate::durability::Durability;
use crate::engine::sql::{Dialect, SqlDatabase, SqlValue};
use crate::engine::{Engine, Takes};
use crate::measure::progress::Progress;
use crate::measure::runner::{run_step, StepOutcome, Turn, Worker};
use crate::measure::timing::Timing;
use crate::results::MeasurementKey;
use crate::workload::{sql_at_sync, Plan, RunContext, SqlConfig, StepLength, Workload};
use anyhow::{bail, Context, Result};
use client::{Abandoned, Client, Exhausted};
pub use log::LogSpec;
use log::{Ended, Logs};
pub use program::QueryMode;
use program::{Program, Source};
use random::Seeding;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Mutex;
pub use value::Value;

/// A script file as given: its path, weight and text (the text is kept in the result file).
#[derive(Clone, Debug, Serialize)]
pub struct ScriptFile {
    pub file: String,
    pub weight: u64,
    pub text: String,
}

/// The workload is its parameters.
#[derive(Clone, Debug, Serialize)]
pub struct ScriptParams {
    pub scripts: Vec<ScriptFile>,
    pub init: Option<ScriptFile>,
    pub cleanup: Option<ScriptFile>,
    /// `--set name=value`, as typed.
    pub set: Vec<(String, String)>,
    pub clients: Vec<usize>,
    pub duration_secs: f64,
    /// Transactions per client, instead of a duration.
    pub transactions: Option<u64>,
    /// Tries of a script that loses a conflict, the first included.
    pub max_tries: u64,
    pub runs: usize,
    /// Whether pgbench's built-in scripts are among them (`:scale` then comes from the tables).
    pub builtin: bool,
    /// `--allow-shell`: scripts may run `\shell` and `\setshell`.
    pub allow_shell: bool,
    /// `-M`: how the statements go to the server.
    pub query_mode: QueryMode,
    /// `-C`: a new connection for each transaction, its time in the transaction's.
    pub connect_each: bool,
    /// `-l`: pgbench's transaction log.
    pub log: Option<LogSpec>,
    /// `--failures-detailed`: pgbench's report gives the failures by kind.
    pub failures_detailed: bool,
    /// `--verbose-errors`: each lost conflict said as pgbench says it.
    pub verbose_errors: bool,
    /// pgbench's -j: the threads that carry the clients, several to a thread, each giving way
    /// while its connection waits for the server; None: a thread per client.
    pub threads: Option<usize>,
    /// Each command timed (its latency a part of the result): always under `hakari run
    /// script`; under `hakari pgbench` only with -r, as pgbench times them only then (two
    /// clock readings and a histogram's record per command, in the client's own time).
    pub time_commands: bool,
}

/// Transactions that did not go through at their first try, as pgbench's report counts them:
/// a script's, or (`failed` and `retries` only) those lost at one of its commands.
#[derive(Clone, Copy, Debug, Default)]
struct Conflicts {
    /// Failed after their last try; `deadlocks` of them lost it to a deadlock, the others to a
    /// serialization failure.
    failed: u64,
    deadlocks: u64,
    /// Tried more than once, and the retries they took.
    retried: u64,
    retries: u64,
    /// Skipped: already later than the latency limit at their turn.
    skipped: u64,
}

/// A run's conflicts by script and by part (command), as its clients met them, and its time
/// spent connecting (pgbench's connection times).
#[derive(Clone, Debug)]
struct Tally {
    scripts: Vec<Conflicts>,
    parts: Vec<Conflicts>,
    /// From the call of the step to its start: the clients connecting and preparing.
    initial_s: f64,
    /// Under -C, the clients' reconnections during the step, summed.
    reconnect_s: f64,
}

impl Tally {
    fn new(program: &Program) -> Tally {
        Tally {
            scripts: vec![Conflicts::default(); program.scripts.len()],
            parts: vec![Conflicts::default(); program.parts.len()],
            initial_s: 0.0,
            reconnect_s: 0.0,
        }
    }

    /// Counts how transaction `ended` of script `script`, which lost its tries at `lost`
    /// ((part, whether its last try)).
    fn add(&mut self, script: usize, ended: &Ended, lost: &[(usize, bool)]) {
        let s = &mut self.scripts[script];
        let retries = match *ended {
            Ended::Skipped => {
                s.skipped += 1;
                return;
            }
            Ended::Done { retries } => retries,
            Ended::Failed { retries, deadlock } => {
                s.failed += 1;
                s.deadlocks += u64::from(deadlock);
                retries
            }
        };
        s.retried += u64::from(retries > 0);
        s.retries += retries;
        let deadlock = matches!(ended, Ended::Failed { deadlock: true, .. });
        for &(part, last) in lost {
            let p = &mut self.parts[part];
            match last {
                true => {
                    p.failed += 1;
                    p.deadlocks += u64::from(deadlock);
                }
                false => p.retries += 1,
            }
        }
    }

    /// All the scripts' together.
    fn total(&self) -> Conflicts {
        let mut all = Conflicts::default();
        for c in &self.scripts {
            all.failed += c.failed;
            all.deadlocks += c.deadlocks;
            all.retried += c.retried;
            all.retries += c.retries;
            all.skipped += c.skipped;
        }
        all
    }
}

/// The step's conflicts as its figures (`script.failed`, by kind, `script.retried` and
/// `script.skipped`): a whole run's always (but none skipped), a share's (a script's, a
/// command's) where it met some, so that the tables show the shares that did.
fn with_conflicts(mut outcome: StepOutcome, c: &Conflicts, whole: bool) -> StepOutcome {
    let figures = [
        ("script.failed", c.failed),
        ("script.serialization_failures", c.failed - c.deadlocks),
        ("script.deadlock_failures", c.deadlocks),
        ("script.retried", c.retried),
        ("script.skipped", c.skipped),
    ];
    if !whole && figures.iter().all(|(_, n)| *n == 0) {
        return outcome;
    }
    let counted = &mut outcome
        .resources
        .get_or_insert_with(Default::default)
        .counted;
    for (name, n) in figures {
        if n > 0 || (whole && name != "script.skipped") {
            counted.insert(name.into(), n as f64);
        }
    }
    outcome
}

fn source(f: &ScriptFile) -> Source {
    Source {
        name: f.file.clone(),
        weight: f.weight,
        text: f.text.clone(),
    }
}

impl ScriptParams {
    /// The scripts parsed and checked, with the run's seed (and `:scale` read from the tables,
    /// for pgbench's built-in scripts).
    fn program(&self, seed: u64, scale: Option<i64>) -> Result<Program> {
        let scripts: Vec<Source> = self.scripts.iter().map(source).collect();
        let scale = scale.map(|n| ("scale".to_string(), Value::Int(n)));
        let set: Vec<(String, Value)> = (self.set.iter())
            .map(|(n, v)| (n.clone(), Value::typed(v)))
            .chain(scale)
            .collect();
        let init = self.init.as_ref().map(source);
        let cleanup = self.cleanup.as_ref().map(source);
        let mut program = Program::new(
            &scripts,
            init.as_ref(),
            cleanup.as_ref(),
            &set,
            seed,
            self.allow_shell,
        )?;
        program.query_mode = self.query_mode;
        program.verbose_errors = self.verbose_errors;
        program.time_commands = self.time_commands;
        Ok(program)
    }

    /// `:scale` as pgbench finds it for its built-in scripts: the rows of pgbench_branches,
    /// unless `--set` gives it or no built-in script runs.
    fn tables_scale(&self, db: &dyn SqlDatabase) -> Result<Option<i64>> {
        if !self.builtin || self.set.iter().any(|(name, _)| name == "scale") {
            return Ok(None);
        }
        let rows = (db.connect()?.query("SELECT count(*) FROM pgbench_branches")).context(
            "--builtin runs on pgbench's tables (pgbench -i makes them), and reads :scale from \
             pgbench_branches (or give it with --set scale=N)",
        )?;
        match rows.first().and_then(|r| r.first()) {
            Some(SqlValue::Int(n)) if *n > 0 => Ok(Some(*n)),
            _ => bail!("pgbench_branches is empty: --builtin needs the tables pgbench -i makes"),
        }
    }

    /// `a.sql@9 b.sql@1`, for tables.
    fn described(&self) -> String {
        (self.scripts.iter())
            .map(|s| format!("{}@{}", s.file, s.weight))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl Workload for ScriptParams {
    type Config = SqlConfig;
    const NAME: &'static str = "script";
    const VIEW: &'static dyn crate::report::view::View = &view::ScriptView;
    const TAKES: Takes = Takes::Sql;
    const PACED: bool = true;

    fn step_length(&self) -> StepLength {
        match self.transactions {
            None => StepLength::Seconds(self.duration_secs),
            Some(_) => StepLength::Unknown,
        }
    }

    fn steps_per_server(&self) -> usize {
        self.clients.len() * self.runs
    }

    /// Every script is read and checked here, before anything starts. Each engine runs at
    /// sync (the servers' own default) where it offers it.
    fn plan(&self, engines: &[Engine], named: Option<&[Durability]>) -> Result<Plan<SqlConfig>> {
        if self.runs == 0 {
            bail!("--runs must be at least 1");
        }
        if self.transactions.is_none() && self.duration_secs <= 0.0 {
            bail!("--duration must be more than 0 seconds");
        }
        let postgres =
            |e: &&Engine| matches!(e, Engine::Sql(s) if s.dialect() == Some(Dialect::Postgres));
        if let Some(e) = engines.iter().find(|e| !postgres(e)) {
            if self.query_mode == QueryMode::Extended {
                bail!("-M extended sends the extended protocol's unnamed statements, which are PostgreSQL's: engine '{}' has none", e.name());
            }
        }
        self.program(0, None)?;
        sql_at_sync(engines, named)
    }

    fn run_config(&mut self, config: &SqlConfig, ctx: &mut RunContext) -> Result<()> {
        // As pgbench: tries without a limit, but not without an end.
        let bounded = self.transactions.is_none() || ctx.timing.latency_limit.is_some();
        if self.max_tries == 0 && !bounded {
            bail!(
                "--max-tries 0 (no limit on a transaction's tries) needs a duration or a \
                 --latency-limit to bound them"
            );
        }
        let clients = self.clients.iter().copied().max().unwrap_or(1);
        let (_dir, db) = ctx.open_given(config, clients)?;
        let program = self.program(ctx.seed, self.tables_scale(db.as_ref())?)?;
        let outcome = self.measure(&program, config, db.as_ref(), ctx);
        // --cleanup runs even after a failure: it is how the user undoes --init.
        let cleanup = match &program.cleanup {
            Some(script) => once(&program, db.as_ref(), script).context("--cleanup"),
            None => Ok(()),
        };
        db.close()?;
        outcome.and(cleanup)
    }
}

/// Runs an untimed script once on a connection of its own.
fn once(program: &Program, db: &dyn SqlDatabase, script: &program::Script) -> Result<()> {
    let mut client = Client::untimed(program, db.connect()?);
    client.run_once(script)
}

impl ScriptParams {
    fn measure(
        &self,
        program: &Program,
        config: &SqlConfig,
        db: &dyn SqlDatabase,
        ctx: &mut RunContext,
    ) -> Result<()> {
        if let Some(init) = &program.init {
            once(program, db, init).context("--init")?;
        }
        for &clients in &self.clients {
            let mut outcomes = Vec::new();
            for run in 0..self.runs {
                let label = format!(
                    "{} {} {clients} client(s), run {}/{}",
                    config.engine.name(),
                    config.durability,
                    run + 1,
                    self.runs
                );
                let progress = match self.transactions {
                    Some(n) => Progress::new(&label, n * clients as u64),
                    None => Progress::hidden(),
                };
                let timing = match self.transactions {
                    Some(_) => ctx.timing.clone(),
                    None => ctx.timing.lasting(self.duration_secs),
                };
                // Run k draws as pgbench with --random-seed=seed+k-1: the first is pgbench's.
                let seed = ctx.seed.wrapping_add(run as u64);
                let run = Run { clients, seed };
                let (outcome, tally, stopped) = self
                    .run_clients(program, db, run, &timing, &progress)
                    .with_context(|| label.clone())?;
                outcomes.push((outcome, tally));
                if let Some(first) = stopped.first() {
                    // As pgbench: the figures of what ran are kept, and the run fails.
                    let others = match stopped.len() {
                        1 => String::new(),
                        n => format!(" ({} more clients stopped the same way or another)", n - 1),
                    };
                    self.record(program, config, clients, outcomes, ctx)?;
                    let text = format!("{label}: {first}{others}");
                    return Err(anyhow::Error::new(crate::errors::ClientsStopped(text)));
                }
            }
            self.record(program, config, clients, outcomes, ctx)?;
        }
        Ok(())
    }

    fn run_clients(
        &self,
        program: &Program,
        db: &dyn SqlDatabase,
        Run { clients, seed }: Run,
        timing: &Timing,
        progress: &Progress,
    ) -> Result<(StepOutcome, Tally, Vec<String>)> {
        let stopped: Mutex<Vec<String>> = Mutex::new(Vec::new());
        let tally = Mutex::new(Tally::new(program));
        let called = std::time::SystemTime::now();
        let total_weight = program.total_weight();
        let seeding = Seeding::new(seed, clients, program.default_seed.is_some());
        let timing = &Timing {
            threads: self.threads,
            ..timing.clone()
        };
        let logs = Logs::open(self.log.as_ref(), clients, timing.threads)?;
        let outcome = run_step(
            clients,
            timing,
            progress,
            |i| Client::new(program, db.connect_tool()?, i, &seeding),
            |client: &mut Client, worker: &mut Worker| {
                let mut done = 0u64;
                while worker.more() && self.transactions.is_none_or(|n| done < n) {
                    let script = match program.scripts.len() {
                        1 => 0,
                        _ => program.pick(client.choice.u64_range(0, total_weight - 1)),
                    };
                    // As pgbench: in an open loop with a latency limit, a transaction already
                    // that late at its turn is skipped (and counted as skipped).
                    let ran = worker.timed_as_or_skipped(script, 1, |turn| {
                        self.transaction(client, db, script, turn, timing, &tally)
                    });
                    let ended = match ran {
                        Ok(None) => Ended::Skipped,
                        Ok(Some(retries)) => {
                            if retries > 0 {
                                worker.setback(retries, false);
                            }
                            timed_parts(worker, client);
                            Ended::Done { retries }
                        }
                        Err(e) => match e.downcast_ref::<Exhausted>() {
                            Some(x) => {
                                worker.setback(x.retries, true);
                                timed_parts(worker, client);
                                Ended::Failed {
                                    retries: x.retries,
                                    deadlock: x.deadlock,
                                }
                            }
                            None if worker.reconnects()
                                && crate::measure::fault::is_connection_lost(&e) =>
                            {
                                return Err(e);
                            }
                            // The run is over; its last transaction is not counted.
                            None if e.is::<Abandoned>() => break,
                            None => {
                                // This client stops; the others go on, as in pgbench.
                                let message = format!("client {} stopped: {e:#}", worker.index);
                                stopped.lock().unwrap().push(message);
                                break;
                            }
                        },
                    };
                    let plain = matches!(ended, Ended::Done { retries: 0 });
                    if !plain {
                        let mut tally = tally.lock().unwrap();
                        tally.add(script, &ended, &client.lost);
                    }
                    if logs.wanted() {
                        let timed = match ended {
                            Ended::Failed { .. } => None,
                            _ => worker.last(),
                        };
                        logs.add(worker.index, script, timed, ended)?;
                    }
                    done += 1;
                }
                Ok(())
            },
        )?;
        logs.finish()?;
        let mut tally = tally.into_inner().unwrap();
        tally.initial_s = (outcome.started.duration_since(called)).map_or(0.0, |d| d.as_secs_f64());
        Ok((outcome, tally, stopped.into_inner().unwrap()))
    }

    /// One transaction of script `script` on `client`, its tries as pgbench allows them (under
    /// -C on a new connection); its retries.
    fn transaction(
        &self,
        client: &mut Client,
        db: &dyn SqlDatabase,
        script: usize,
        turn: Turn,
        timing: &Timing,
        tally: &Mutex<Tally>,
    ) -> Result<u64> {
        if self.connect_each {
            let begun = std::time::Instant::now();
            client.reconnect(db.connect_tool()?)?;
            let spent = begun.elapsed().as_secs_f64();
            tally.lock().unwrap().reconnect_s += spent;
        }
        let retry = client::Retry {
            max_tries: self.max_tries,
            latency_limit: timing.latency_limit,
            turn,
        };
        client.run(script, &retry)
    }

    /// Records the run over all scripts (`run`), each script when there are several
    /// (`script <file>`), and each statement (`<file>:<line>`).
    fn record(
        &self,
        program: &Program,
        config: &SqlConfig,
        clients: usize,
        outcomes: Vec<(StepOutcome, Tally)>,
        ctx: &mut RunContext,
    ) -> Result<()> {
        let failed: u64 = outcomes.iter().map(|(_, t)| t.total().failed).sum();
        if failed > 0 {
            ctx.recorder.note(format!(
                "{} {} {clients} client(s): {failed} transaction(s) failed after {} tries \
                 (serialization failures or deadlocks); they are not counted",
                config.engine.name(),
                config.durability,
                self.max_tries
            ));
        }
        // Each share of a run (a script's, a command's) with its own conflicts.
        let shares = |latency: &dyn Fn(&StepOutcome) -> Option<&hdrhistogram::Histogram<u64>>,
                      conflicts: &dyn Fn(&Tally) -> Conflicts| {
            (outcomes.iter())
                .map(|(o, t)| {
                    let c = conflicts(t);
                    let mut share = with_conflicts(o.share(latency(o)), &c, false);
                    share.retries = c.retries;
                    share
                })
                .collect::<Vec<StepOutcome>>()
        };
        // :scale as the scripts saw it (pgbench's "scaling factor").
        let scale = (program.slots.get("scale")).and_then(|&s| match &program.initial[s] {
            Some(Value::Int(n)) => Some(*n),
            _ => None,
        });
        let key = |step: String, extra: &[(&str, String)]| {
            let mut c = BTreeMap::new();
            c.insert("scripts".to_string(), self.described().into());
            if let Some(n) = scale {
                c.insert("scale".to_string(), n.into());
            }
            for (k, v) in extra {
                c.insert(k.to_string(), v.clone().into());
            }
            MeasurementKey::new(config.engine.name(), config.durability, clients, step, c)
        };
        let scripts: Vec<Vec<StepOutcome>> = match program.scripts.len() {
            1 => Vec::new(),
            n => (0..n)
                .map(|i| shares(&|o| o.by_kind.get(i), &|t| t.scripts[i]))
                .collect(),
        };
        // Untimed commands (pgbench without -r) have no figures to keep.
        let timed = if program.time_commands {
            program.parts.len()
        } else {
            0
        };
        let parts: Vec<Vec<StepOutcome>> = (0..timed)
            .map(|i| shares(&|o| o.by_part.get(i), &|t| t.parts[i]))
            .collect();
        let runs: Vec<StepOutcome> = (outcomes.into_iter())
            .map(|(o, t)| {
                let mut o = with_conflicts(o, &t.total(), true);
                let counted = &mut o.resources.get_or_insert_with(Default::default).counted;
                counted.insert("script.initial_connection_s".into(), t.initial_s);
                if self.connect_each {
                    counted.insert("script.reconnect_s".into(), t.reconnect_s);
                }
                o
            })
            .collect();
        ctx.measured(key("run".into(), &[]), &runs)?;
        for (s, per) in program.scripts.iter().zip(&scripts) {
            ctx.measured(key(format!("script {}", s.name), &[]), per)?;
        }
        for (part, per) in program.parts.iter().zip(&parts) {
            let step = format!("{}:{}", program.scripts[part.script].name, part.line);
            ctx.measured(key(step, &[("statement", part.shown.clone())]), per)?;
        }
        Ok(())
    }
}

/// The times of the commands the client's last transaction ran, its failed tries' too.
fn timed_parts(worker: &mut Worker, client: &Client) {
    for &(part, nanos) in &client.part_times {
        worker.part(part, nanos);
    }
}

/// One timed run: by how many clients, from which seed.
struct Run {
    clients: usize,
    seed: u64,
}
