//! `hakari pgbench`: pgbench's own options, letter for letter, parsed into `pgbench::Options`.
//! `-h` is the host, as in pgbench; help is `-?` or `--help`.

use crate::pgbench::{Connection, Init, Options, Partitioning, Script};
use crate::workload::script::{LogSpec, QueryMode};
use anyhow::{bail, Result};
use clap::{ArgAction, Args};
use std::path::PathBuf;

#[derive(Args, Clone, Debug)]
#[command(disable_help_flag = true)]
pub struct PgbenchArgs {
    /// Print this help.
    #[arg(short = '?', long = "help", action = ArgAction::Help)]
    help: Option<bool>,

    // Initialization.
    /// Initialize: create and fill pgbench's tables (drop, tables, generate, vacuum, primary keys).
    #[arg(short = 'i', long = "initialize", help_heading = "Initialization")]
    initialize: bool,
    /// The initialization steps to run, in order, from "dtgGvpf" (default "dtgvp").
    #[arg(
        short = 'I',
        long = "init-steps",
        value_name = "STEPS",
        help_heading = "Initialization"
    )]
    init_steps: Option<String>,
    /// The tables' fillfactor, 10 to 100 (default 100).
    #[arg(short = 'F', long = "fillfactor", value_name = "NUM", value_parser = clap::value_parser!(u32).range(10..=100), help_heading = "Initialization")]
    fillfactor: Option<u32>,
    /// Scaling factor: 100,000 accounts, 10 tellers and one branch per unit (default 1).
    #[arg(short = 's', long = "scale", value_name = "NUM", value_parser = clap::value_parser!(u32).range(1..), help_heading = "Initialization")]
    scale: Option<u32>,
    /// Initialize: report progress every 5 s instead of every 100,000 rows.
    #[arg(short = 'q', long = "quiet", help_heading = "Initialization")]
    quiet: bool,
    /// Initialize: add foreign keys between the tables (the "f" step).
    #[arg(long = "foreign-keys", help_heading = "Initialization")]
    foreign_keys: bool,
    /// Initialize: split pgbench_accounts into NUM partitions.
    #[arg(
        long = "partitions",
        value_name = "NUM",
        help_heading = "Initialization"
    )]
    partitions: Option<u32>,
    /// Initialize: partition by range (the default) or hash.
    #[arg(
        long = "partition-method",
        value_enum,
        value_name = "METHOD",
        help_heading = "Initialization"
    )]
    partition_method: Option<Partitioning>,
    /// Initialize: create the tables unlogged.
    #[arg(long = "unlogged-tables", help_heading = "Initialization")]
    unlogged_tables: bool,
    /// Initialize: create the tables in this tablespace.
    #[arg(
        long = "tablespace",
        value_name = "TABLESPACE",
        help_heading = "Initialization"
    )]
    tablespace: Option<String>,
    /// Initialize: create the primary keys' indexes in this tablespace.
    #[arg(
        long = "index-tablespace",
        value_name = "TABLESPACE",
        help_heading = "Initialization"
    )]
    index_tablespace: Option<String>,

    // Benchmarking.
    /// A built-in script (tpcb-like, simple-update, select-only, or a prefix), weighted.
    #[arg(
        short = 'b',
        long = "builtin",
        value_name = "NAME[@W]",
        help_heading = "Benchmarking"
    )]
    builtin: Vec<String>,
    /// A script file, weighted.
    #[arg(
        short = 'f',
        long = "file",
        value_name = "FILE[@W]",
        help_heading = "Benchmarking"
    )]
    file: Vec<String>,
    /// Same as -b simple-update.
    #[arg(short = 'N', long = "skip-some-updates", help_heading = "Benchmarking")]
    skip_some_updates: bool,
    /// Same as -b select-only.
    #[arg(short = 'S', long = "select-only", help_heading = "Benchmarking")]
    select_only: bool,
    /// Concurrent clients, each on its own connection (default 1).
    #[arg(short = 'c', long = "client", value_name = "NUM", value_parser = clap::value_parser!(u32).range(1..), help_heading = "Benchmarking")]
    clients: Option<u32>,
    /// Worker threads (default 1), each driving its share of the clients' connections as
    /// pgbench's do.
    #[arg(short = 'j', long = "jobs", value_name = "NUM", value_parser = clap::value_parser!(u32).range(1..), help_heading = "Benchmarking")]
    jobs: Option<u32>,
    /// A variable for the scripts, NAME=VALUE.
    #[arg(
        short = 'D',
        long = "define",
        value_name = "NAME=VALUE",
        help_heading = "Benchmarking"
    )]
    define: Vec<String>,
    /// Transactions each client runs (default 10).
    #[arg(short = 't', long = "transactions", value_name = "NUM", value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "time", help_heading = "Benchmarking")]
    transactions: Option<u64>,
    /// Seconds the test lasts.
    #[arg(short = 'T', long = "time", value_name = "NUM", value_parser = clap::value_parser!(u64).range(1..), help_heading = "Benchmarking")]
    time: Option<u64>,
    /// Target rate in transactions per second, arrivals drawn as a Poisson process.
    #[arg(
        short = 'R',
        long = "rate",
        value_name = "NUM",
        help_heading = "Benchmarking"
    )]
    rate: Option<f64>,
    /// Count transactions lasting more than NUM ms as late; under -R, skip those already late.
    #[arg(
        short = 'L',
        long = "latency-limit",
        value_name = "NUM",
        help_heading = "Benchmarking"
    )]
    latency_limit: Option<f64>,
    /// Show progress every NUM seconds.
    #[arg(short = 'P', long = "progress", value_name = "NUM", value_parser = clap::value_parser!(u32).range(1..), help_heading = "Benchmarking")]
    progress: Option<u32>,
    /// Print -P's times as Unix timestamps (seconds, to the millisecond) instead of the time
    /// since the start.
    #[arg(long = "progress-timestamp", help_heading = "Benchmarking")]
    progress_timestamp: bool,
    /// How statements go to the server: simple (the default), extended or prepared.
    #[arg(
        short = 'M',
        long = "protocol",
        value_enum,
        value_name = "MODE",
        help_heading = "Benchmarking"
    )]
    protocol: Option<QueryMode>,
    /// A new connection for each transaction, its time counted in the transaction's.
    #[arg(short = 'C', long = "connect", help_heading = "Benchmarking")]
    connect: bool,
    /// Do not vacuum pgbench's tables (nor empty pgbench_history) before the test.
    #[arg(short = 'n', long = "no-vacuum", help_heading = "Benchmarking")]
    no_vacuum: bool,
    /// Also vacuum pgbench_accounts before the test.
    #[arg(short = 'v', long = "vacuum-all", help_heading = "Benchmarking")]
    vacuum_all: bool,
    /// Write each transaction to a log file in the current directory, in pgbench's format
    /// (pgbench_log.PID, then .PID.1, ... a file per client).
    #[arg(short = 'l', long = "log", help_heading = "Benchmarking")]
    log: bool,
    /// The log files' name before .PID (default pgbench_log).
    #[arg(
        long = "log-prefix",
        value_name = "PREFIX",
        help_heading = "Benchmarking"
    )]
    log_prefix: Option<PathBuf>,
    /// Log a line per NUM seconds instead of a line per transaction.
    #[arg(long = "aggregate-interval", value_name = "NUM", value_parser = clap::value_parser!(u64).range(1..), help_heading = "Benchmarking")]
    aggregate_interval: Option<u64>,
    /// Log only this share of the transactions (above 0, at most 1).
    #[arg(
        long = "sampling-rate",
        value_name = "NUM",
        help_heading = "Benchmarking"
    )]
    sampling_rate: Option<f64>,
    /// Seed of the scripts' random draws (a whole number).
    #[arg(
        long = "random-seed",
        value_name = "SEED",
        help_heading = "Benchmarking"
    )]
    random_seed: Option<u64>,
    /// Report each SQL statement's average latency after the test.
    #[arg(
        short = 'r',
        long = "report-per-command",
        help_heading = "Benchmarking"
    )]
    report_per_command: bool,
    /// Tries of a transaction that meets a serialization failure or deadlock (default 1; 0: no
    /// limit, with -L or -T, which bound them).
    #[arg(long = "max-tries", value_name = "NUM", value_parser = clap::value_parser!(u64), help_heading = "Benchmarking")]
    max_tries: Option<u64>,

    /// Report the failures by kind (serialization, deadlock) in the report and the log.
    #[arg(long = "failures-detailed", help_heading = "Benchmarking")]
    failures_detailed: bool,

    /// Print each serialization failure and deadlock, and whether the transaction is tried
    /// again or fails, on standard error.
    #[arg(long = "verbose-errors", help_heading = "Benchmarking")]
    verbose_errors: bool,

    // Options of pgbench's that hakari pgbench refuses for now, named so that the refusal says so.
    #[arg(short = 'd', long = "debug", hide = true)]
    debug: bool,

    // Connection.
    /// The server's host name or socket directory (default: PGHOST, else the local socket).
    #[arg(
        short = 'h',
        long = "host",
        value_name = "HOSTNAME",
        help_heading = "Connection"
    )]
    host: Option<String>,
    /// The server's port (default: PGPORT, else 5432).
    #[arg(
        short = 'p',
        long = "port",
        value_name = "PORT",
        help_heading = "Connection"
    )]
    port: Option<u16>,
    /// The user to connect as (default: PGUSER, else your login name). The password comes from
    /// PGPASSWORD, ~/.pgpass or a service file, never from the command line.
    #[arg(
        short = 'U',
        long = "username",
        value_name = "USERNAME",
        help_heading = "Connection"
    )]
    username: Option<String>,
    /// The database (default: PGDATABASE, else the user's name).
    #[arg(value_name = "DBNAME")]
    dbname: Option<String>,

    // hakari's own.
    /// Where hakari writes its result file (default results/).
    #[arg(
        long,
        value_name = "DIR",
        default_value = "results",
        help_heading = "hakari"
    )]
    out: PathBuf,
    /// Also write hakari's HTML report beside the result file.
    #[arg(long, help_heading = "hakari")]
    report: bool,
    /// Read nothing of what the run costs (by default hakari reads its own CPU, the server's
    /// statistics and wait events on every interval, as `hakari run` does).
    #[arg(long, help_heading = "hakari")]
    no_resources: bool,
}

impl PgbenchArgs {
    /// Refuses what hakari pgbench does not take yet, and, as pgbench, the options of one mode
    /// given in the other.
    fn check(&self) -> Result<()> {
        let refused = [(self.debug, "-d")];
        if let Some((_, what)) = refused.iter().find(|(given, _)| *given) {
            bail!("hakari pgbench does not take {what} yet");
        }
        // As pgbench: the options of one mode are refused in the other.
        let init_only = self.init_steps.is_some()
            || self.fillfactor.is_some()
            || self.quiet
            || self.foreign_keys
            || self.partitions.is_some()
            || self.partition_method.is_some()
            || self.unlogged_tables
            || self.tablespace.is_some()
            || self.index_tablespace.is_some();
        let bench_only = !self.builtin.is_empty()
            || !self.file.is_empty()
            || self.skip_some_updates
            || self.select_only
            || self.clients.is_some()
            || self.jobs.is_some()
            || !self.define.is_empty()
            || self.transactions.is_some()
            || self.time.is_some()
            || self.rate.is_some()
            || self.latency_limit.is_some()
            || self.progress.is_some()
            || self.progress_timestamp
            || self.protocol.is_some()
            || self.connect
            || self.vacuum_all
            || self.max_tries.is_some()
            || self.failures_detailed
            || self.verbose_errors
            || self.report_per_command
            || self.log
            || self.log_prefix.is_some()
            || self.aggregate_interval.is_some()
            || self.sampling_rate.is_some();
        if self.max_tries == Some(0) && self.latency_limit.is_none() && self.time.is_none() {
            bail!("an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)");
        }
        match self.initialize {
            true if bench_only => {
                bail!("some of the specified options cannot be used in initialization (-i) mode")
            }
            false if init_only => {
                bail!("some of the specified options cannot be used in benchmarking mode")
            }
            _ => {}
        }
        Ok(())
    }

    /// The scripts -b, -S, -N and -f name, in the command line's order (`matches`: where clap
    /// found each, which it keeps apart by option); pgbench's tpcb-like when none is named.
    fn scripts(&self, matches: &clap::ArgMatches) -> Vec<Script> {
        let at = |id: &str| matches.indices_of(id).into_iter().flatten();
        let mut scripts: Vec<(usize, Script)> = Vec::new();
        for (i, name) in at("builtin").zip(&self.builtin) {
            scripts.push((i, Script::Builtin(name.clone())));
        }
        for (i, path) in at("file").zip(&self.file) {
            scripts.push((i, Script::File(path.clone())));
        }
        for (id, name) in [
            ("skip_some_updates", "simple-update"),
            ("select_only", "select-only"),
        ] {
            if let (Some(i), true) = (matches.index_of(id), matches.get_flag(id)) {
                scripts.push((i, Script::Builtin(name.into())));
            }
        }
        scripts.sort_by_key(|(i, _)| *i);
        match scripts.is_empty() {
            true => vec![Script::Builtin("tpcb-like".into())],
            false => scripts.into_iter().map(|(_, s)| s).collect(),
        }
    }

    /// What the command line asks, `matches` being clap's reading of it.
    pub(super) fn options(&self, matches: &clap::ArgMatches) -> Result<Options> {
        self.check()?;
        let log = self.log_spec()?;
        let connection = Connection {
            host: self.host.clone(),
            port: self.port,
            user: self.username.clone(),
            dbname: self.dbname.clone(),
        };
        let init = self.initialize.then(|| Init {
            steps: self.init_steps.clone().unwrap_or_else(|| {
                let mut steps = String::from("dtg");
                if !self.no_vacuum {
                    steps.push('v');
                }
                steps.push('p');
                if self.foreign_keys {
                    steps.push('f');
                }
                steps
            }),
            scale: self.scale.unwrap_or(1),
            fillfactor: self.fillfactor.unwrap_or(100),
            partitions: self.partitions.unwrap_or(0),
            partitioning: self.partition_method,
            unlogged: self.unlogged_tables,
            quiet: self.quiet,
            tablespace: self.tablespace.clone(),
            index_tablespace: self.index_tablespace.clone(),
        });
        let scripts = self.scripts(matches);
        Ok(Options {
            connection,
            init,
            scripts,
            clients: self.clients.unwrap_or(1) as usize,
            threads: self.jobs.unwrap_or(1) as usize,
            defines: self.define.clone(),
            transactions: self.transactions,
            seconds: self.time,
            rate: self.rate,
            latency_limit_ms: self.latency_limit,
            progress: self.progress,
            progress_timestamp: self.progress_timestamp,
            query_mode: self.protocol.unwrap_or(QueryMode::Simple),
            connect_each: self.connect,
            per_statement: self.report_per_command,
            log,
            vacuum: !self.no_vacuum,
            vacuum_accounts: self.vacuum_all,
            seed: self.random_seed,
            max_tries: self.max_tries.unwrap_or(1),
            failures_detailed: self.failures_detailed,
            verbose_errors: self.verbose_errors,
            scale: self.scale,
            out: self.out.clone(),
            report: self.report,
            no_resources: self.no_resources,
        })
    }

    /// `-l` and its options, refused together as pgbench refuses them.
    fn log_spec(&self) -> Result<Option<LogSpec>> {
        if !self.log {
            let given = [
                (
                    self.aggregate_interval.is_some(),
                    "log aggregation is allowed only when actually logging transactions",
                ),
                (
                    self.sampling_rate.is_some(),
                    "log sampling (--sampling-rate) is allowed only when logging transactions (-l)",
                ),
                (
                    self.log_prefix.is_some(),
                    "log file prefix (--log-prefix) is allowed only when logging transactions (-l)",
                ),
            ];
            if let Some((_, why)) = given.iter().find(|(g, _)| *g) {
                bail!("{why}");
            }
            return Ok(None);
        }
        if self.aggregate_interval.is_some() && self.sampling_rate.is_some() {
            bail!("log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time");
        }
        if let Some(rate) = self.sampling_rate.filter(|r| !(*r > 0.0 && *r <= 1.0)) {
            bail!("invalid sampling rate: \"{rate}\"");
        }
        if let (Some(every), Some(seconds)) = (self.aggregate_interval, self.time) {
            if every > seconds {
                bail!("number of seconds for aggregation ({every}) must not be higher than test duration ({seconds})");
            }
            if seconds % every != 0 {
                bail!("duration ({seconds}) must be a multiple of aggregation interval ({every})");
            }
        }
        Ok(Some(LogSpec {
            prefix: self
                .log_prefix
                .clone()
                .unwrap_or_else(|| "pgbench_log".into()),
            aggregate: self.aggregate_interval,
            sampling: self.sampling_rate,
            lag: self.rate.is_some(),
            retries: self.max_tries.is_some_and(|n| n != 1),
            detailed: self.failures_detailed,
        }))
    }
}
