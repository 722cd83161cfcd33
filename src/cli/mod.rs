//! The command line: flags parsed into typed options, then handed to `commands` or `run`.
//! Nothing here measures, reads result files or knows an engine.

mod cluster;
mod pgbench;
mod phases;
mod timing;

use crate::commands;
use crate::commands::CrashOptions;
use crate::durability::Durability;
use crate::errors::{Usage, EXIT_CODES, EXIT_ERROR, EXIT_USAGE};
use crate::measure::Interrupted;
use crate::output::Format;
use crate::report::gate::Requirement;
use crate::report::gate::Thresholds;
use crate::run::{RunOptions, TimingOptions};
use crate::workload::flags::Shared;
use crate::workload::kept::Phases;
use crate::workloads;
use anyhow::Result;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::path::PathBuf;
use timing::TimingArgs;

#[derive(Parser)]
#[command(
    name = "hakari",
    version,
    about = "A database benchmark workbench: the classic white papers' workloads, on your machine",
    after_help = EXIT_CODES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a workload. Without one: a short tour of the kv workload on every engine.
    Run(Box<RunCommand>),
    /// pgbench's own command line on a PostgreSQL server: -i makes and fills pgbench's tables,
    /// otherwise a test runs and prints pgbench's report, then where hakari's result went.
    /// Help is -? (-h is the host, as in pgbench).
    Pgbench(Box<pgbench::PgbenchArgs>),
    /// List the engines this build has, their versions and the durability levels they offer.
    Engines {
        /// table for people; json or csv (one row per engine and level) for scripts.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Print the tables of a result file again.
    Show {
        /// A results/<run-id>.json file.
        file: PathBuf,
        /// table for people; json or csv (one row per measurement) for scripts.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Write every measurement of result files as one row each (every configuration field and
    /// figure a column), for spreadsheets and pandas.
    Export {
        /// Result files or folders of them (default: results/).
        #[arg(default_value = "results")]
        paths: Vec<PathBuf>,
        /// csv (the default) or json: a row per measurement; openmetrics: the interval and
        /// resource series, timestamped, for Prometheus.
        #[arg(long, value_enum, default_value = "csv", conflicts_with = "csv")]
        format: crate::output::ExportFormat,
        /// Same as --format csv.
        #[arg(long)]
        csv: bool,
        /// The file to write (default: standard output).
        #[arg(long, short = 'o')]
        output: Option<PathBuf>,
    },
    /// Print a shell completion script: `hakari completions bash > /etc/bash_completion.d/hakari`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print hakari's man page (roff); with --dir, write one page per command there.
    Man {
        /// Write hakari.1 and hakari-<command>.1 pages into this folder.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Write a self-contained HTML report (tables, charts, the papers' figures beside yours)
    /// from result files or folders of them.
    Report {
        /// Result files or folders (default: results/).
        #[arg(default_value = "results")]
        paths: Vec<PathBuf>,
        /// The HTML file to write (default: report.html in the folder given, else ./report.html).
        #[arg(long, short = 'o')]
        output: Option<PathBuf>,
    },
    /// Check the durability promises: kill a committing process (SIGKILL) at random moments,
    /// reopen, and count acknowledged commits that are missing. For servers (postgres, mysql)
    /// hakari's private server is killed with its whole process tree and restarted.
    Crashtest(CrashtestArgs),
    /// Measure the device's sync ceiling in a directory: small appends forced with fsync and
    /// with fdatasync, rate and latency.
    Probe {
        /// What to probe: `fsync`.
        what: String,
        /// The directory to probe (its device).
        #[arg(long, default_value = ".")]
        data_dir: PathBuf,
        /// Seconds per call measured.
        #[arg(long, default_value_t = 2.0)]
        seconds: f64,
    },
    /// (internal) The committing child of `crashtest`.
    #[command(hide = true)]
    CrashChild {
        #[arg(long)]
        engine: String,
        #[arg(long)]
        durability: String,
        #[arg(long)]
        dir: PathBuf,
        #[arg(long)]
        ack: PathBuf,
    },
    /// Merge the results of client machines that made one run together (`--shard i/N`, `--start-at`,
    /// `--hlog`) into one result: their interval logs aligned on absolute time, histograms
    /// added over the window all were counting in, operations summed. Machines with different
    /// parameters are refused, naming the difference.
    Merge {
        /// The machines' result files (each one's `<run-id>.hlog` beside it or in --hlog); with
        /// --wait, the one folder they arrive in.
        #[arg(required_unless_present = "from", num_args = 1..)]
        files: Vec<PathBuf>,
        /// With --wait N: fetch the clients' results from the database they left them in
        /// (`run --out URL`, no shared disk needed), and delete what was merged there after.
        /// The password comes from where the engine's ecosystem keeps it (PGPASSWORD,
        /// ~/.pgpass, MYSQL_PWD, ~/.my.cnf), never from the URL.
        #[arg(long, value_name = "URL", conflicts_with = "files")]
        from: Option<String>,
        /// Wait until N clients' complete results are in the folder (600 s at most; one that
        /// failed or was interrupted ends the wait with its reason), then merge them.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(2..))]
        wait: Option<u64>,
        /// Folders holding the machines' interval logs.
        #[arg(long, value_name = "DIR")]
        hlog: Vec<PathBuf>,
        /// The merged result file to write (default: beside the first client's, named after it;
        /// with --from, in the folder `results`).
        #[arg(long, short = 'o')]
        output: Option<PathBuf>,
    },
    /// Compare two runs in the terminal: each shared figure, the change in %, and whether it is
    /// larger than the runs' own noise.
    Compare {
        /// The baseline result file.
        base: PathBuf,
        /// The result file to compare with it.
        new: PathBuf,
        /// table for people; json or csv (one row per shared figure) for scripts.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        /// A regression gate: exit 4 when a shared figure is worse by more than this and by
        /// more than the runs' own noise. `5%` judges throughput; `p99:10%,ops:5%` sets a
        /// threshold per figure (ops, p50, p95, p99, p999, max, or a resource figure by name:
        /// `server.cpu_us_per_op:10%`). Latency percentiles are merged over runs, so no noise
        /// is recorded for them: their threshold alone decides.
        #[arg(long, value_name = "THRESHOLDS")]
        fail_if_worse: Option<Thresholds>,
    },
}

#[derive(Args)]
struct RunCommand {
    #[command(subcommand)]
    workload: Option<Chosen>,
}

/// The workload `hakari run` was given, with its command line: the subcommands are made from the
/// workload registry (`crate::workloads`), one per workload.
struct Chosen {
    name: String,
    matches: clap::ArgMatches,
}

impl clap::FromArgMatches for Chosen {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        match matches.subcommand() {
            Some((name, sub)) => Ok(Chosen {
                name: name.to_string(),
                matches: sub.clone(),
            }),
            None => Err(clap::Error::new(clap::error::ErrorKind::MissingSubcommand)),
        }
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Chosen::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Subcommand for Chosen {
    fn augment_subcommands(command: clap::Command) -> clap::Command {
        workloads::all()
            .iter()
            .fold(command, |c, w| c.subcommand(workload_command(w)))
    }

    fn augment_subcommands_for_update(command: clap::Command) -> clap::Command {
        Chosen::augment_subcommands(command)
    }

    fn has_subcommand(name: &str) -> bool {
        workloads::all().iter().any(|w| w.name == name)
    }
}

/// A workload's subcommand: the flags every run shares, its own, then the timing and cluster
/// flags (last: their headings would otherwise carry over to the workload's own flags).
fn workload_command(w: &workloads::Registered) -> clap::Command {
    let presets = match w.presets {
        [] => format!("{} has no presets", w.name),
        names => names.join(", "),
    };
    let c = CommonArgs::augment_args(clap::Command::new(w.name)).mut_arg("preset", |a| {
        a.help(format!("A paper's exact parameters ({presets})"))
    });
    let c = (w.flags)(c);
    let c = match w.keeps {
        true => phases::PhaseArgs::augment_args(c),
        false => c,
    };
    let c = TimingArgs::augment_args(c);
    let c = cluster::ClusterArgs::augment_args(c);
    // Last: the flag groups' own doc comments would otherwise stand as its description.
    // A summary's last period dropped, as clap does with a doc comment.
    let mut c = cluster::ShardArgs::augment_args(c)
        .about(w.about.strip_suffix('.').unwrap_or(w.about))
        .long_about(None::<&str>)
        .after_help(None::<&str>);
    if !w.more.is_empty() {
        c = c.long_about(format!("{}\n\n{}", w.about, w.more));
    }
    if !w.examples.is_empty() {
        c = c.after_help(w.examples);
    }
    c
}

/// The flags every run shares, read back from a workload's command line.
struct SharedArgs {
    common: CommonArgs,
    /// `--keep`, `--load-only`, `--run-only`, where the workload keeps its tables.
    phases: Phases,
    timing: TimingArgs,
    cluster: cluster::ClusterArgs,
    shard: cluster::ShardArgs,
}

impl SharedArgs {
    fn from(matches: &clap::ArgMatches) -> Result<SharedArgs, clap::Error> {
        use clap::FromArgMatches;
        // Only a workload that keeps its tables has the flags.
        // (A flag it has is always there, false when not given.)
        let phases = match matches.try_get_one::<bool>("keep") {
            Ok(Some(_)) => phases::PhaseArgs::from_arg_matches(matches)?.phases(),
            _ => Phases::Fresh,
        };
        Ok(SharedArgs {
            phases,
            common: CommonArgs::from_arg_matches(matches)?,
            timing: TimingArgs::from_arg_matches(matches)?,
            cluster: cluster::ClusterArgs::from_arg_matches(matches)?,
            shard: cluster::ShardArgs::from_arg_matches(matches)?,
        })
    }

    /// The options every run shares.
    fn options(&self) -> Result<RunOptions> {
        let c = &self.common;
        Ok(RunOptions {
            engines: c.engine.clone(),
            preset: c.preset.clone(),
            durability: c
                .durability
                .as_deref()
                .map(Durability::parse_list)
                .transpose()?,
            seed: c.seed,
            out: c.out.clone(),
            data_dir: c.data_dir.clone(),
            urls: c.url.clone(),
            dialect: c.dialect,
            report: c.report,
            require: c.require.clone(),
            timing: TimingOptions {
                start_at: (self.shard.start_at.clone()).map(|s| (s.0, s.1)),
                ..self.timing.options()
            },
            topologies: self.cluster.topologies()?,
            shard: self.shard.shard()?,
            phases: self.phases,
            terminal: None,
        })
    }

    /// What the workload's own flags read beside them.
    fn shared(&self) -> Shared {
        Shared {
            preset: self.common.preset.clone(),
            runs: self.common.runs,
            threads: self.common.threads.clone(),
        }
    }
}

/// Flags every workload shares.
#[derive(Args, Clone, Debug)]
pub struct CommonArgs {
    /// Engines to run, comma-separated (see `hakari engines`).
    #[arg(long, short = 'e', value_name = "LIST")]
    pub engine: Option<String>,
    /// Durability levels, comma-separated: none, sync, write-nosync, nosync, in-memory.
    /// Levels named here that an engine does not offer are refused.
    #[arg(long, short = 'd', value_name = "LEVELS")]
    pub durability: Option<String>,
    /// A paper's exact parameters (the workload's presets are listed beside).
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
    /// Times each step is repeated (each run on fresh data).
    #[arg(long, value_name = "N")]
    pub runs: Option<usize>,
    /// Seed of every random choice; the result file records it so a run can be replayed.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Where result files go: a folder, or a database's URL (postgres://, mysql://) where
    /// clients that share no disk leave their result and interval log in a table of hakari's
    /// own, `hakari_results`, for `hakari merge --from URL --wait N` (docs/clusters.md). The
    /// password comes from where the engine's ecosystem keeps it, never from the URL.
    #[arg(long, default_value = "results", value_name = "DIR|URL")]
    pub out: PathBuf,
    /// Directory for the databases; hakari works only in a subdirectory it creates there and
    /// removes it after. Default: a fresh temporary directory.
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Worker thread (client) counts, comma-separated (e.g. 1,2,4,8): each worker has its own
    /// handle or connection.
    #[arg(long, short = 't', visible_alias = "clients", value_name = "COUNTS")]
    pub threads: Option<String>,
    /// Server URL for server engines (postgres://user@host:port/db, mysql://..., redis://...,
    /// odbc:DSN=...). Repeat it for several engines: each takes the URL of its scheme. An engine
    /// without one starts a private server when the server's binaries are installed.
    #[arg(long, value_name = "URL")]
    pub url: Vec<String>,
    /// The SQL dialect of a database reached through `--engine odbc` (postgres, mysql, sqlite,
    /// oracle, zen, standard), over the one the driver's DBMS name suggests. Oracle and zen are
    /// written from their documentation and untested.
    #[arg(long, value_name = "DIALECT", value_parser = crate::engine::sql::Dialect::parse)]
    pub dialect: Option<crate::engine::sql::Dialect>,
    /// Also write an HTML report of this run beside its result file (<out>/<run-id>.html).
    #[arg(long)]
    pub report: bool,
    /// A threshold the run's figures must keep, checked at the end (repeatable): `ops>=2000`,
    /// `tpcb.p99<=5ms`, `kv.rocksdb.fetch.ops>=1M`. Dotted words before the figure select
    /// measurements by workload, engine, level, step, t<threads> or a configuration value.
    /// Figures: ops (ops/s), p50, p95, p99, p999, max (latency, with us, ms or s), or a
    /// resource figure by its name (`server.cpu_us_per_op<=400`, see docs/resources.md). When
    /// one fails, the result file says which and hakari exits 4.
    #[arg(long = "require", value_name = "CONDITION")]
    pub require: Vec<Requirement>,
}

#[derive(Args, Clone, Debug)]
pub struct CrashtestArgs {
    /// Engines, comma-separated: embedded key-value engines (bdb, lmdb, rocksdb, sqlite), whose
    /// committing child process is killed, and servers (postgres, mysql), whose private server
    /// hakari starts, kills (the whole process tree) and restarts on the same data directory;
    /// redis only as a cluster (--cluster redis:N --replicas R --kill node).
    #[arg(long, short = 'e', default_value = "sqlite")]
    engine: String,
    /// Durability levels, comma-separated.
    #[arg(long, short = 'd', default_value = "sync")]
    durability: String,
    /// Crash rounds per engine and level.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Seed of the kill moments.
    #[arg(long)]
    seed: Option<u64>,
    /// Where the result file goes.
    #[arg(long, default_value = "results")]
    out: PathBuf,
    /// Directory for the databases (hakari uses a subdirectory it creates and removes).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Cut the power instead of only killing the process: the database lives on a FUSE layer
    /// that drops every write not fsync'd (needs /dev/fuse; metadata changes count as synced).
    /// Key-value engines only.
    #[arg(long)]
    power_loss: bool,
    /// Not accepted: the crash test kills the server it tests, so it tests only private servers
    /// hakari starts itself.
    #[arg(long, hide = true)]
    url: Option<String>,
    /// postgres: a primary with this many streaming standbys; each round kills the primary's
    /// process tree, promotes the standby that received the most WAL, and counts the
    /// acknowledged commits missing there. With --cluster redis:N: each master's replicas.
    #[arg(long, value_name = "N", requires = "kill")]
    replicas: Option<usize>,
    /// What a commit waits for from the standbys, comma-separated (async, remote-write, on,
    /// remote-apply; remote-write:1 for any one): each is crash-tested in turn.
    #[arg(long, value_name = "ACKS", requires = "replicas")]
    replica_ack: Option<String>,
    /// mysql: a Galera cluster of N nodes (galera:3); each round kills node 1's process tree
    /// while the client commits to it, and looks for the acknowledged commits on node 2.
    /// redis: a Redis Cluster of N masters (redis:3, with --replicas R each); each round kills
    /// the master the client writes to, lets the cluster fail over to a replica, and looks for
    /// the acknowledged writes there.
    #[arg(long, value_name = "LIST", requires = "kill")]
    cluster: Option<String>,
    /// What is killed: the primary (with --replicas) or a node (with --cluster).
    #[arg(long, value_enum, value_name = "WHAT")]
    kill: Option<Kill>,
}

/// What the crash test on a cluster kills.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Kill {
    /// The primary's whole process tree (SIGKILL); its standbys live on.
    Primary,
    /// One node's whole process tree (SIGKILL); the others live on.
    Node,
}

/// hakari's command line: the derived one, with the long help naming every registered workload.
fn cli_command() -> clap::Command {
    let names: Vec<&str> = workloads::all().iter().map(|w| w.name).collect();
    Cli::command().long_about(format!(
        "hakari measures database engines the way the classic white papers did (Berkeley DB's \
key-value papers, TPC-B, Wisconsin, DBT-3, a session store), on your own machine, and runs the \
workloads users bring (TPC-C, pgbench scripts, YCSB). It builds the data, runs the timed steps, \
repeats them, and writes results/<run-id>.json and a table shaped like the paper's.\n\n\
Workloads: {}.\n\nStart with `hakari run` (a short tour), `hakari engines`, or \
`hakari run WORKLOAD --help`.",
        names.join(", ")
    ))
}

pub fn main() -> i32 {
    let parsed = cli_command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m).map(|c| (c, m)));
    let (cli, matches) = match parsed {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_USAGE } else { 0 };
        }
    };
    match dispatch(cli.command, &matches) {
        Ok(code) => code,
        Err(e) => {
            if e.downcast_ref::<Interrupted>().is_some() {
                return crate::measure::interrupted_exit_code();
            }
            if let Some(usage) = e.downcast_ref::<Usage>() {
                eprintln!("hakari: error: {usage}");
                return EXIT_USAGE;
            }
            eprintln!("hakari: error: {}", crate::errors::sentence(&e));
            EXIT_ERROR
        }
    }
}

/// Runs `command`; `matches` is clap's reading of the command line (where each option stood).
fn dispatch(command: Command, matches: &clap::ArgMatches) -> Result<i32> {
    match command {
        Command::Run(run) => match run.workload {
            None => workloads::tour(),
            Some(chosen) => {
                let Some(w) = (workloads::all().into_iter()).find(|w| w.name == chosen.name) else {
                    unreachable!("clap takes only registered workloads");
                };
                let shared = SharedArgs::from(&chosen.matches)?;
                (w.run)(&chosen.matches, &shared.shared(), &shared.options()?)
            }
        },
        Command::Pgbench(args) => {
            let at = matches.subcommand_matches("pgbench").unwrap_or(matches);
            crate::pgbench::execute(&args.options(at)?)
        }
        Command::Engines { format } => commands::engines(format),
        Command::Show { file, format } => commands::show(&file, format),
        Command::Export {
            paths,
            format,
            csv,
            output,
        } => {
            let format = if csv {
                crate::output::ExportFormat::Csv
            } else {
                format
            };
            commands::export(&paths, format, output)
        }
        Command::Completions { shell } => commands::completions(shell, cli_command()),
        Command::Man { dir } => commands::man(cli_command(), dir),
        Command::Report { paths, output } => commands::report(&paths, output),
        Command::Compare {
            base,
            new,
            format,
            fail_if_worse,
        } => commands::compare(&base, &new, format, fail_if_worse),
        Command::Crashtest(args) => commands::crashtest(args.options()?),
        Command::Merge {
            files,
            from,
            wait,
            hlog,
            output,
        } => match (wait, files.as_slice()) {
            _ if from.is_some() && wait.is_none() => Err(anyhow::Error::new(Usage(
                "merge --from URL takes --wait N: how many clients' results to wait for".into(),
            ))),
            (Some(n), []) => {
                commands::merge_from(from.as_deref().unwrap_or(""), n as usize, output)
            }
            (Some(n), [dir]) => commands::merge_when_in(dir, n as usize, &hlog, output),
            (Some(_), _) => Err(anyhow::Error::new(Usage(
                "merge --wait N takes one folder, where the clients' results arrive".into(),
            ))),
            (None, [_]) => Err(anyhow::Error::new(Usage(
                "merge takes two or more clients' result files (or --wait N and their folder)"
                    .into(),
            ))),
            (None, _) => commands::merge(&files, &hlog, output),
        },
        Command::Probe {
            what,
            data_dir,
            seconds,
        } => commands::probe(&what, &data_dir, seconds),
        Command::CrashChild {
            engine,
            durability,
            dir,
            ack,
        } => commands::crash_child(&engine, &durability, &dir, &ack),
    }
}

impl CrashtestArgs {
    fn options(self) -> Result<CrashOptions> {
        let usage = |e: String| anyhow::Error::new(Usage(e));
        let acks = (self.replica_ack.iter())
            .flat_map(|a| a.split(','))
            .map(|a| crate::server::topology::parse_ack(a.trim()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(usage)?;
        let replicas: Vec<usize> = self.replicas.into_iter().collect();
        if replicas.contains(&0) {
            return Err(usage(
                "--replicas: at least 1 standby (or replica) to fail over to".into(),
            ));
        }
        let clusters = (self.cluster.iter())
            .flat_map(|c| c.split(','))
            .map(|c| crate::server::topology::parse_cluster(c.trim(), Default::default()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(usage)?;
        let fits = match self.kill {
            Some(Kill::Primary) => !replicas.is_empty() && clusters.is_empty(),
            // A Redis Cluster's --replicas are each master's.
            Some(Kill::Node) => !clusters.is_empty(),
            None => replicas.is_empty() && clusters.is_empty(),
        };
        if !fits {
            return Err(usage(
                "--kill primary goes with --replicas N, --kill node with --cluster galera:N or redis:N".into(),
            ));
        }
        let topologies =
            crate::server::topology::Topology::list(&replicas, &acks, &clusters).map_err(usage)?;
        Ok(CrashOptions {
            engines: self.engine,
            durability: self.durability,
            rounds: self.rounds,
            seed: self.seed,
            out: self.out,
            data_dir: self.data_dir,
            power_loss: self.power_loss,
            url_given: self.url.is_some(),
            topologies,
        })
    }
}
