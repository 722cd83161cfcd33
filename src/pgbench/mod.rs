//! `hakari pgbench`: pgbench's command line over hakari. `-i` makes and fills pgbench's tables
//! as pgbench does (`init.rs`); a test runs the script workload with pgbench's defaults (a run
//! of 10 transactions per client unless -T, one try, the simple query mode, Poisson arrivals
//! under -R, the tables vacuumed first) and prints pgbench's report (`view.rs`), then where
//! hakari's own result went.

mod init;
mod view;

use crate::durability::Durability;
use crate::engine::sql::{SqlDatabase, SqlOptions};
use crate::measure::timing::Arrival;
use crate::run::{RunOptions, TimingOptions};
use crate::workload::script::flags::builtin_script;
use crate::workload::script::{QueryMode, ScriptParams};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;

pub use init::{Init, Partitioning};

/// Where the server is, as pgbench's -h, -p, -U and database name give it; what they leave out
/// comes from libpq's environment, service file and password file (`engine/postgres`).
#[derive(Clone, Debug, Default)]
pub struct Connection {
    pub host: Option<String>,
    pub port: Option<u16>,
    pub user: Option<String>,
    pub dbname: Option<String>,
}

impl Connection {
    /// A `postgres://` URL of what was given, with no password: never one on a command line.
    pub fn url(&self) -> String {
        use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
        let enc = |s: &str| utf8_percent_encode(s, NON_ALPHANUMERIC).to_string();
        let mut url = String::from("postgres://");
        if let Some(user) = &self.user {
            url.push_str(&enc(user));
            url.push('@');
        }
        if let Some(host) = &self.host {
            url.push_str(&enc(host));
        }
        if let Some(port) = self.port {
            url.push_str(&format!(":{port}"));
        }
        url.push('/');
        if let Some(db) = &self.dbname {
            url.push_str(&enc(db));
        }
        url
    }
}

/// A script of a test, as -b (and -S, -N) or -f names it.
#[derive(Clone, Debug)]
pub enum Script {
    Builtin(String),
    File(String),
}

/// What a pgbench command line asks for.
#[derive(Clone, Debug)]
pub struct Options {
    pub connection: Connection,
    /// `-i`: initialize, and nothing else.
    pub init: Option<Init>,
    /// In the command line's order, which numbers them.
    pub scripts: Vec<Script>,
    pub clients: usize,
    /// `-j`: the threads that drive the clients (pgbench's default 1).
    pub threads: usize,
    pub defines: Vec<String>,
    pub transactions: Option<u64>,
    pub seconds: Option<u64>,
    pub rate: Option<f64>,
    pub latency_limit_ms: Option<f64>,
    pub progress: Option<u32>,
    /// `--progress-timestamp`: -P's lines say when as a Unix timestamp.
    pub progress_timestamp: bool,
    pub query_mode: QueryMode,
    /// `-C`: a connection per transaction.
    pub connect_each: bool,
    /// `-l`: pgbench's transaction log.
    pub log: Option<crate::workload::script::LogSpec>,
    /// `-r`: each statement's latency in the report.
    pub per_statement: bool,
    pub vacuum: bool,
    pub vacuum_accounts: bool,
    pub seed: Option<u64>,
    pub max_tries: u64,
    /// `--failures-detailed`: the failures by kind in the report and the log.
    pub failures_detailed: bool,
    /// `--verbose-errors`: each lost conflict, and its retry or failure, on standard error.
    pub verbose_errors: bool,
    /// `-s` given to a test: pgbench then warns that the tables' scale wins.
    pub scale: Option<u32>,
    pub out: PathBuf,
    pub report: bool,
    /// `--no-resources`: none of the run's costs read.
    pub no_resources: bool,
}

/// The database the options name, as the user's: nothing of hakari's is created in it. Its
/// sessions commit at `level`.
fn open(
    connection: &Connection,
    level: Durability,
) -> Result<(tempfile::TempDir, Box<dyn SqlDatabase>)> {
    let engine = crate::engine::sql_engine("postgres")?;
    // Nothing is written here: the options want a directory, as for an embedded engine.
    let dir = tempfile::tempdir().context("cannot make a temporary directory")?;
    let options = SqlOptions {
        url: Some(connection.url()),
        ..SqlOptions::at(dir.path(), level)
    };
    let db = engine.open_as_given(&options)?;
    Ok((dir, db))
}

/// Runs what the command line asks; returns the exit code.
pub fn execute(options: &Options) -> Result<i32> {
    if let Some(init) = &options.init {
        let (_dir, db) = open(&options.connection, level(&options.connection)?)?;
        init::run(init, db.connect()?.as_mut())?;
        db.close()?;
        return Ok(0);
    }
    if options.rate.is_some_and(|r| !(r > 0.0 && r.is_finite())) {
        bail!("-R: the rate must be a number of transactions per second above 0");
    }
    if options
        .latency_limit_ms
        .is_some_and(|l| !(l > 0.0 && l.is_finite()))
    {
        bail!("-L: the latency limit must be a number of milliseconds above 0");
    }
    let workload = params(options)?;
    if options.scale.is_some() && workload.builtin {
        eprintln!(
            "pgbench: warning: scale option ignored, using count from pgbench_branches table"
        );
    }
    let level = level(&options.connection)?;
    if options.vacuum {
        let (_dir, db) = open(&options.connection, level)?;
        vacuum(db.as_ref(), options.vacuum_accounts)?;
        db.close()?;
    }
    let run = RunOptions {
        engines: Some("postgres".into()),
        seed: options.seed,
        out: options.out.clone(),
        urls: vec![options.connection.url()],
        durability: Some(vec![level]),
        report: options.report,
        timing: TimingOptions {
            interval: options.progress.map(f64::from),
            rates: options.rate.into_iter().collect(),
            arrival: Arrival::Poisson,
            latency_limit_ms: options.latency_limit_ms,
            no_resources: options.no_resources,
            interval_style: crate::measure::timing::IntervalStyle::Pgbench(
                crate::measure::timing::PgbenchLine {
                    timestamp: options.progress_timestamp,
                    skipped: options.latency_limit_ms.is_some(),
                    retries: options.max_tries != 1,
                },
            ),
            ..TimingOptions::default()
        },
        // One view for the one run of this process.
        terminal: Some(crate::run::TerminalView(Box::leak(Box::new(
            view::PgbenchView {
                statements: options.per_statement,
                stddev: options.progress.is_some()
                    || options.rate.is_some()
                    || options.latency_limit_ms.is_some(),
            },
        )))),
        ..RunOptions::default()
    };
    let mut workload = workload;
    // pgbench's code for a test whose clients met errors: 2.
    match crate::run::execute(&mut workload, &run, &crate::workloads::paced())? {
        crate::errors::EXIT_CLIENTS_STOPPED => Ok(2),
        code => Ok(code),
    }
}

/// The level hakari's sessions commit at: the one pgbench's, which set nothing, have on this
/// server (its configuration, the role's and database's settings, `PGOPTIONS`). hakari's
/// sessions set `synchronous_commit` to their level's value, so a value between on and off
/// (local, remote_write, remote_apply) becomes on, and the user is told.
fn level(connection: &Connection) -> Result<Durability> {
    let (level, commit) = crate::engine::postgres::level_as_given(&connection.url())?;
    if !matches!(commit.as_str(), "on" | "off") {
        eprintln!(
            "hakari pgbench: warning: the server gives sessions synchronous_commit={commit}; hakari's commit at 'on' (pgbench's at '{commit}')"
        );
    }
    Ok(level)
}

/// The script workload's parameters for a test.
fn params(options: &Options) -> Result<ScriptParams> {
    let mut scripts = Vec::new();
    for script in &options.scripts {
        scripts.push(match script {
            Script::Builtin(name) => builtin_script(name)?,
            Script::File(path) => crate::workload::script::flags::script_file(path)?,
        });
    }
    let mut set = crate::workload::script::flags::variables("-D", &options.defines)?;
    // As pgbench: -s gives a file's scripts :scale (a built-in one reads it from the tables).
    let builtin = (options.scripts.iter()).any(|s| matches!(s, Script::Builtin(_)));
    if let (Some(scale), false) = (options.scale, builtin) {
        if !set.iter().any(|(name, _)| name == "scale") {
            set.push(("scale".into(), scale.to_string()));
        }
    }
    // As pgbench: 10 transactions per client unless a duration is given.
    let transactions = match options.seconds {
        Some(_) => None,
        None => Some(options.transactions.unwrap_or(10)),
    };
    Ok(ScriptParams {
        builtin,
        scripts,
        init: None,
        cleanup: None,
        set,
        clients: vec![options.clients],
        duration_secs: options.seconds.unwrap_or(0) as f64,
        transactions,
        max_tries: options.max_tries,
        runs: 1,
        allow_shell: true,
        query_mode: options.query_mode,
        connect_each: options.connect_each,
        log: options.log.clone(),
        failures_detailed: options.failures_detailed,
        verbose_errors: options.verbose_errors,
        // As pgbench: no more threads than clients.
        threads: Some(options.threads.min(options.clients)),
        time_commands: options.per_statement,
    })
}

/// What pgbench does before a test unless -n: vacuums the branches and tellers, empties the
/// history (with -v also vacuums the accounts); a statement that fails is reported and passed
/// over, as pgbench passes it.
fn vacuum(db: &dyn SqlDatabase, accounts: bool) -> Result<()> {
    let mut c = db.connect()?;
    eprint!("starting vacuum...");
    for sql in [
        "vacuum pgbench_branches",
        "vacuum pgbench_tellers",
        "truncate pgbench_history",
    ] {
        if let Err(e) = c.execute(sql) {
            eprintln!("\npgbench: error: {sql}: {}", crate::errors::sentence(&e));
            eprintln!("(ignoring this error and continuing anyway)");
        }
    }
    eprintln!("end.");
    if accounts {
        eprint!("starting vacuum pgbench_accounts...");
        if let Err(e) = c.execute("vacuum analyze pgbench_accounts") {
            eprintln!("\npgbench: error: {}", crate::errors::sentence(&e));
        }
        eprintln!("end.");
    }
    Ok(())
}
