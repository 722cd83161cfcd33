//! sysbench's own Lua scripts, unchanged, on hakari's measuring core: `oltp_read_write` and
//! the other scripts Debian's sysbench package ships, or any script written for sysbench 1.0's
//! API (Percona's sysbench-tpcc), with sysbench's options and commands (`prepare`, `run`,
//! `cleanup`, the script's own). One Lua state per thread, as sysbench has; `event()` is the
//! unit hakari times. Statements are counted as sysbench counts them (reads, writes, other,
//! errors, reconnects), as resource readings, so they are figures of the run.

mod bulk;
pub mod flags;
mod hot;
mod lua;
pub mod options;
mod rand;
mod results;
mod sql;
mod view;

use crate::durability::Durability;
use crate::engine::{Engine, Takes};
use crate::measure::progress::Progress;
use crate::measure::runner::{run_step, Span, StepOutcome, Worker};
use crate::measure::timing::Timing;
use crate::results::MeasurementKey;
use crate::workload::{sql_at_sync, Plan, RunContext, SqlConfig, StepLength, Workload};
use anyhow::{bail, Context, Result};
use lua::{Setup, State};
use options::{Declared, Given};
use rand::{Generator, Seeds, Shape, Unique};
use serde::Serialize;
use sql::{Counts, Ignore, Local};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The workload is its parameters.
#[derive(Clone, Debug, Serialize)]
pub struct SysbenchParams {
    /// The script as given (`oltp_read_write`, `./tpcc.lua`).
    pub script: String,
    /// The file it was read from.
    pub path: PathBuf,
    /// The options given after the script, by name, as typed.
    pub options: BTreeMap<String, String>,
    /// The commands, in order.
    pub commands: Vec<String>,
    pub threads: usize,
    /// `--time`: seconds `run` lasts (0: until `--events` are done).
    pub time_secs: f64,
    /// `--events`: events over all threads (0: no limit).
    pub events: u64,
    /// `mysql` or `pgsql`, the name scripts see (`drv:name()`).
    pub driver: String,
    /// `--percentile`, for sysbench's report.
    pub percentile: f64,
    pub runs: usize,
    #[serde(skip)]
    given: Given,
    /// The command line after the script, for `sysbench.cmdline.argv`.
    #[serde(skip)]
    argv: Vec<String>,
}

/// The engine each of sysbench's drivers names.
pub const DRIVERS: [(&str, &str); 2] = [("mysql", "mysql"), ("pgsql", "postgres")];

/// A script name as Debian's package keeps it, or a file.
pub fn locate(script: &str) -> Result<PathBuf> {
    let given = PathBuf::from(script);
    if given.is_file() {
        return Ok(given);
    }
    let name = script.strip_suffix(".lua").unwrap_or(script);
    if !script.contains('/') {
        let packaged = PathBuf::from(lua::PACKAGED).join(format!("{name}.lua"));
        if packaged.is_file() {
            return Ok(packaged);
        }
        bail!(
            "no script '{script}': neither a file here nor one of sysbench's in {} (Debian's \
             sysbench package installs them: apt-get install sysbench)",
            lua::PACKAGED
        );
    }
    bail!("no script file '{script}'")
}

impl SysbenchParams {
    pub fn new(script: &str, argv: Vec<String>, runs: usize) -> Result<Self> {
        let path = locate(script)?;
        let given = Given::parse(&argv)?;
        let driver = given.text("db-driver").unwrap_or_default();
        if !DRIVERS.iter().any(|(d, _)| *d == driver) {
            bail!(
                "--db-driver={driver}: hakari's sysbench has the mysql driver (MariaDB/MySQL) \
                 and the pgsql driver (PostgreSQL); scripts choose their SQL by that name"
            );
        }
        Ok(SysbenchParams {
            script: script.to_string(),
            path,
            options: given.values.clone(),
            commands: given.commands.clone(),
            threads: given.number("threads")? as usize,
            time_secs: given.number("time")?,
            events: given.number("events")? as u64,
            driver,
            percentile: given.number("percentile")?,
            runs,
            given,
            argv,
        })
    }

    /// The commands to run: as given; on a private server, whose database is new, `prepare`
    /// first (and alone, `prepare` and `run`).
    fn commands(&self, private: bool) -> Result<Vec<String>> {
        let mut commands = self.commands.clone();
        if commands.is_empty() && private {
            commands = vec!["prepare".into(), "run".into()];
        }
        if commands.is_empty() {
            bail!(
                "a command is needed after the script: prepare, run, cleanup, help or one the \
                 script defines"
            );
        }
        if private && commands.iter().any(|c| c == "run") && commands[0] != "prepare" {
            commands.insert(0, "prepare".into());
        }
        Ok(commands)
    }

    fn percentile(&self) -> Result<()> {
        if self.percentile != 0.0 && !view::PERCENTILES.contains(&self.percentile) {
            bail!(
                "--percentile={}: hakari keeps the 50th, 95th, 99th, 99.9th and 100th (and the \
                 whole histogram with --hlog); 0 leaves it out",
                self.percentile
            );
        }
        Ok(())
    }

    fn shape(&self) -> Result<Shape> {
        let g = &self.given;
        Shape::new(
            &g.text("rand-type").unwrap_or_default(),
            g.number("rand-spec-iter")? as u32,
            g.number("rand-spec-pct")? as u32,
            g.number("rand-spec-res")? as u32,
            g.number("rand-pareto-h")?,
        )
    }

    fn ignore(&self) -> Ignore {
        if self.driver == "pgsql" {
            return Ignore::PostgresStates;
        }
        let list = self.given.text("mysql-ignore-errors").unwrap_or_default();
        if list.split(',').any(|c| c.trim() == "all") {
            return Ignore::All;
        }
        Ignore::Codes(
            list.split(',')
                .filter_map(|c| c.trim().parse().ok())
                .collect(),
        )
    }
}

type Database = Arc<Box<dyn crate::engine::sql::SqlDatabase>>;

/// What every state of one command shares.
struct Command<'a> {
    params: &'a SysbenchParams,
    db: Option<Database>,
    name: &'a str,
    options: Vec<(String, options::Value)>,
    legacy: bool,
    unique: Arc<Unique>,
    shape: Shape,
}

impl Command<'_> {
    fn state(&self, tid: usize, seed: [u64; 2], counts: Arc<Counts>) -> Result<State> {
        let local = Rc::new(Local {
            db: self.db.clone(),
            counts,
            rng: Rc::new(RefCell::new(Generator::new(seed, self.shape))),
            ignore: self.params.ignore(),
            postgres: self.params.driver == "pgsql",
        });
        let setup = Setup {
            script: &self.params.path,
            command: Some(self.name),
            argv: &self.params.argv,
            options: &self.options,
            legacy: self.legacy,
            tid,
            driver: DRIVERS
                .iter()
                .find(|(d, _)| *d == self.params.driver)
                .map_or("mysql", |d| d.0),
            unique: self.unique.clone(),
        };
        State::new(&setup, local)
    }
}

/// The options a script declares, read from a state of its own (sysbench's main state).
/// The options of a command: every one's value, whether the script declares none (the legacy
/// API), and the script's own.
struct Options {
    values: Vec<(String, options::Value)>,
    legacy: bool,
    script: Vec<Declared>,
}

fn declared(params: &SysbenchParams, db: Option<&Database>, name: &str) -> Result<Options> {
    let own = options::own();
    let first = Command {
        params,
        db: db.cloned(),
        name,
        options: options::values(&own, &params.given)?,
        legacy: false,
        unique: Arc::new(Unique::new()),
        shape: params.shape()?,
    };
    let state = first.state(0, Seeds::main(1).state(0), Arc::default())?;
    let script = state.declared()?;
    let legacy = script.is_none();
    let script: Vec<Declared> = script.unwrap_or_default();
    if !legacy {
        let unknown = params.given.unknown(&script);
        if let Some(first) = unknown.first() {
            bail!(
                "{first}: not an option of sysbench's nor of {} (its own: {})",
                params.path.display(),
                script
                    .iter()
                    .map(|d| d.name.replace('_', "-"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    let all: Vec<Declared> = own.into_iter().chain(script.iter().cloned()).collect();
    let mut values = options::values(&all, &params.given)?;
    if legacy {
        // Options no one declared are the script's, as text (sysbench's legacy API).
        for (name, text) in &params.given.values {
            if !all.iter().any(|d| &d.name == name) {
                values.push((name.clone(), options::Value::Text(text.clone())));
            }
        }
    }
    Ok(Options {
        values,
        legacy,
        script,
    })
}

impl Workload for SysbenchParams {
    type Config = SqlConfig;
    const NAME: &'static str = "sysbench";
    const VIEW: &'static dyn crate::report::view::View = &view::SysbenchView;
    const TAKES: Takes = Takes::Sql;
    const PACED: bool = true;

    fn step_length(&self) -> StepLength {
        match (self.events, self.time_secs) {
            (0, t) if t > 0.0 => StepLength::Seconds(t),
            _ => StepLength::Unknown,
        }
    }

    fn steps_per_server(&self) -> usize {
        self.runs
    }

    fn plan(&self, engines: &[Engine], named: Option<&[Durability]>) -> Result<Plan<SqlConfig>> {
        if self.threads == 0 {
            bail!("--threads must be at least 1");
        }
        if self.events == 0 && self.time_secs <= 0.0 {
            bail!("--time=0 and --events=0: the run would never end");
        }
        if self.runs == 0 {
            bail!("--runs must be at least 1");
        }
        self.shape()?;
        self.percentile()?;
        // The script and its options are checked before any server starts.
        let first = self.commands.first().map_or("run", String::as_str);
        declared(self, None, first)?;
        let engine = DRIVERS
            .iter()
            .find(|(d, _)| *d == self.driver)
            .map_or("", |d| d.1);
        if let Some(other) = engines.iter().find(|e| e.name() != engine) {
            bail!(
                "engine {} is not --db-driver={}'s: sysbench's scripts choose their SQL by the \
                 driver's name, mysql (engine mysql) or pgsql (engine postgres)",
                other.name(),
                self.driver
            );
        }
        sql_at_sync(engines, named)
    }

    fn run_config(&mut self, config: &SqlConfig, ctx: &mut RunContext) -> Result<()> {
        let (_dir, db) = ctx.open_given(config, self.threads + 2)?;
        let db = Arc::new(db);
        let private = ctx.url_for(Engine::Sql(config.engine)).is_none();
        let outcome = (self.commands(private)?.iter()).try_for_each(|name| {
            self.command(name, config, &db, ctx)
                .with_context(|| name.clone())
        });
        match Arc::try_unwrap(db) {
            Ok(db) => db.close().and(outcome),
            Err(_) => outcome.and(Err(anyhow::anyhow!("a Lua state outlived its command"))),
        }
    }
}

impl SysbenchParams {
    fn command(
        &self,
        name: &str,
        config: &SqlConfig,
        db: &Database,
        ctx: &mut RunContext,
    ) -> Result<()> {
        let Options {
            values: options,
            legacy,
            script,
        } = declared(self, Some(db), name)?;
        let command = Command {
            params: self,
            db: Some(db.clone()),
            name,
            options,
            legacy,
            unique: Arc::new(Unique::new()),
            shape: self.shape()?,
        };
        if name == "run" {
            return self.run(&command, config, ctx);
        }
        let started = Instant::now();
        let span = Span::start();
        let counts: Vec<Arc<Counts>> = (0..self.threads).map(|_| Arc::default()).collect();
        let main = command.state(0, Seeds::main(self.threads).state(0), counts[0].clone())?;
        let (defined, parallel) = main.command(name)?;
        if name == "help" && !defined && main.function("help")?.is_none() {
            return self.help(&script);
        }
        if defined && parallel && self.threads > 1 {
            drop(main);
            let seeds = Seeds::main(self.threads);
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..self.threads)
                    .map(|i| {
                        let (command, seeds, counts) = (&command, &seeds, &counts);
                        scope.spawn(move || -> Result<()> {
                            let state = command.state(i, seeds.state(i + 1), counts[i].clone())?;
                            state.call_command(name).map(|_| ())
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .try_for_each(|h| h.join().expect("a command thread panicked"))
            })?;
        } else if defined {
            if !main.call_command(name)? {
                bail!("{name} returned false");
            }
        } else if !main.call_if_defined(name)? {
            bail!(
                "{} has no command '{name}' (sysbench's: prepare, run, cleanup, help; or one in \
                 sysbench.cmdline.commands)",
                self.path.display()
            );
        }
        if name == "prepare" {
            let rows: u64 = counts
                .iter()
                .map(|c| c.bulk_rows.load(Ordering::Relaxed))
                .sum();
            let secs = started.elapsed().as_secs_f64();
            let key = self.key(config, "prepare");
            ctx.measured(
                key,
                &[StepOutcome::whole(secs, rows.max(1)).spent(span.finish())],
            )?;
        }
        Ok(())
    }

    /// `help`: the script's own options, as sysbench lists them (unless the script has its own
    /// `help` command or function, which runs instead).
    fn help(&self, script: &[Declared]) -> Result<()> {
        println!("{} options:", self.script);
        for d in script {
            let default = d
                .default
                .as_deref()
                .map(|v| format!(" [{v}]"))
                .unwrap_or_default();
            let value = match d.kind {
                options::Type::Bool => "[=on|off]",
                options::Type::Text | options::Type::List => "=STRING",
                _ => "=N",
            };
            println!(
                "  --{:<30} {}{default}",
                format!("{}{value}", d.name),
                d.about
            );
        }
        Ok(())
    }

    fn key(&self, config: &SqlConfig, step: &str) -> MeasurementKey {
        let mut c = BTreeMap::new();
        c.insert("script".to_string(), self.script.clone().into());
        MeasurementKey::new(
            config.engine.name(),
            config.durability,
            self.threads,
            step.to_string(),
            c,
        )
    }

    fn run(&self, command: &Command, config: &SqlConfig, ctx: &mut RunContext) -> Result<()> {
        let main = command.state(0, Seeds::main(self.threads).state(0), Arc::default())?;
        if main.function("thread_run")?.is_some() {
            bail!(
                "{} defines thread_run(): hakari runs the event loop itself, so that it can time \
                 each event(); a script with its own loop is not supported",
                self.path.display()
            );
        }
        if main.function("event")?.is_none() {
            bail!(
                "{} defines no event() function for run",
                self.path.display()
            );
        }
        main.call_if_defined("init")?;
        let mut outcomes = Vec::new();
        for run in 0..self.runs {
            let seed = ctx.seed.wrapping_add(run as u64) as u32;
            let label = format!(
                "{} {} {} thread(s), run {}/{}",
                config.engine.name(),
                config.durability,
                self.threads,
                run + 1,
                self.runs
            );
            let progress = match self.events {
                0 => Progress::hidden(),
                n => Progress::new(&label, n),
            };
            let timing = match (self.events, self.time_secs) {
                (0, t) => ctx.timing.lasting(t),
                (_, t) if t > 0.0 => ctx.timing.lasting(t),
                _ => ctx.timing.clone(),
            };
            let outcome = self
                .run_threads(command, seed, &timing, &progress)
                .with_context(|| label.clone())?;
            outcomes.push(outcome);
        }
        main.call_if_defined("done")?;
        ctx.measured(self.key(config, "run"), &outcomes)
    }

    fn run_threads(
        &self,
        command: &Command,
        seed: u32,
        timing: &Timing,
        progress: &Progress,
    ) -> Result<StepOutcome> {
        let counts: Vec<Arc<Counts>> = (0..self.threads).map(|_| Arc::default()).collect();
        let _source =
            crate::measure::resources::register(Box::new(view::CountsSource(counts.clone())));
        let seeds = Seeds::run(seed, self.threads);
        let left = AtomicI64::new(self.events as i64);
        let started: Vec<AtomicBool> = (0..self.threads).map(|_| AtomicBool::new(false)).collect();
        run_step(
            self.threads,
            timing,
            progress,
            |i| {
                let state = command.state(i, seeds.state(i), counts[i].clone())?;
                state.call_if_defined("thread_init")?;
                let run = state.event_loop()?;
                // A thread's state made again (its connection lost under --fault) is a
                // reconnect, as sysbench's driver counts one.
                if started[i].swap(true, Ordering::Relaxed) {
                    counts[i].reconnects.fetch_add(1, Ordering::Relaxed);
                }
                Ok((state, run))
            },
            |(state, run): &mut (State, mlua::Function), worker: &mut Worker| {
                let tid = worker.index;
                // --events is over all threads: each takes one before it runs it.
                let left = (self.events > 0).then_some(&left);
                let draw = (self.percentile > 0.0).then_some(&*state.local.rng);
                let mut events = hot::Events::new(worker, left, draw);
                (run.call::<()>((events.address(), tid))).map_err(|e| lua::one_line(&e))?;
                anyhow::ensure!(!events.panicked, "the event loop's timing failed (a panic)");
                state.call_if_defined("thread_done").map(|_| ())
            },
        )
    }
}
