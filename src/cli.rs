//! The command line: parse, dispatch, exit codes. No measuring happens here.

use crate::durability::Durability;
use crate::engine;
use crate::measure::{self, Interrupted};
use crate::output::Format;
use crate::report;
use crate::report::gate::{Requirement, Thresholds};
use crate::results::store;
use crate::units::{parse_counts, parse_size};
use crate::workload::kv::{self, presets::KvParams};
use crate::workload::tpcb;
use crate::workload::tpch;
use crate::workload::wisconsin;
use crate::workload::{ContextOptions, RunContext};
use crate::{out, outln};
use anyhow::{Context, Result};
use clap::{Args, CommandFactory, Parser, Subcommand};
use std::path::PathBuf;

/// Exit codes, listed for users in `--help` ([`EXIT_CODES`]) and the README.
pub const EXIT_ERROR: i32 = 1;
pub const EXIT_BROKEN_PROMISE: i32 = 3;
pub const EXIT_GATE_FAILED: i32 = 4;
pub const EXIT_INTERRUPTED: i32 = 130;

const EXIT_CODES: &str = "Exit codes:
  0    done
  1    error (one line on stderr; no result file that looks complete)
  2    bad usage (an unknown flag, a value that cannot be parsed)
  3    a crash test found a broken durability promise
  4    a requirement (run --require) or the regression gate (compare --fail-if-worse) failed
  130  interrupted by Ctrl-C (the result file keeps what finished, marked interrupted)
A closed pipe on stdout (hakari engines | head) ends output quietly, not with an error.";

#[derive(Parser)]
#[command(
    name = "hakari",
    version,
    about = "A database benchmark workbench: the classic white papers' workloads, on your machine",
    long_about = "hakari measures database engines the way the classic white papers did (Berkeley DB's \
key-value papers, TPC-B, Wisconsin, DBT-3, a session store), on your own machine. It builds the \
data, runs the timed steps, repeats them, and writes results/<run-id>.json and a table shaped like \
the paper's.\n\nStart with `hakari run` (a short tour), `hakari engines`, or `hakari run kv --help`.",
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
        /// CSV (the default) or JSON.
        #[arg(long, value_enum, default_value = "csv", conflicts_with = "csv")]
        format: Format,
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
        /// threshold per figure (ops, p50, p95, p99, p999, max). Latency percentiles are merged
        /// over runs, so no noise is recorded for them: their threshold alone decides.
        #[arg(long, value_name = "THRESHOLDS")]
        fail_if_worse: Option<Thresholds>,
    },
}

#[derive(Args)]
struct RunCommand {
    #[command(subcommand)]
    workload: Option<Workload>,
}

#[derive(Subcommand)]
enum Workload {
    /// Key-value records in batches of sequential keys (Berkeley DB papers 000 and 002).
    Kv(KvArgs),
    /// TPC-B-like transactions by N clients (paper 000 table 6, the PSQL v11 paper).
    Tpcb(TpcbArgs),
    /// A web session store: 1,000 session writes and 10,000 random reads per size, stored whole,
    /// in 4000-byte chunks, or compressed (source 001), on SQL and key-value engines.
    Session(SessionArgs),
    /// TPC-H-like decision support as OSDL DBT-3 ran it (paper 003): load test, power test,
    /// throughput test, at one or more scale factors. Derived from TPC-H; not comparable to
    /// published TPC-H results.
    Tpch(TpchArgs),
    /// The 32 Wisconsin benchmark queries on the standard relations (paper 000 table 7).
    Wisconsin(WisconsinArgs),
}

/// Flags every workload shares.
#[derive(Args, Clone, Debug)]
pub struct CommonArgs {
    /// Engines to run, comma-separated (see `hakari engines`).
    #[arg(long, short = 'e')]
    pub engine: Option<String>,
    /// Durability levels, comma-separated: none, sync, write-nosync, nosync, in-memory.
    /// Levels named here that an engine does not offer are refused.
    #[arg(long, short = 'd')]
    pub durability: Option<String>,
    /// A paper's exact parameters (kv: bdb-11gr2, bdb-4.3).
    #[arg(long, short = 'p')]
    pub preset: Option<String>,
    /// Times each step is repeated (each run on fresh data).
    #[arg(long)]
    pub runs: Option<usize>,
    /// Seed of every random choice; the result file records it so a run can be replayed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Where result files go.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Directory for the databases; hakari works only in a subdirectory it creates there and
    /// removes it after. Default: a fresh temporary directory.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Worker thread (client) counts, comma-separated (e.g. 1,2,4,8): each worker has its own
    /// handle or connection.
    #[arg(long, short = 't', visible_alias = "clients")]
    pub threads: Option<String>,
    /// Server URL for server engines (postgres://user@host:port/db, mysql://..., redis://...).
    /// Without it, hakari starts a private server when the server's binaries are installed.
    #[arg(long)]
    pub url: Option<String>,
    /// Also write an HTML report of this run beside its result file (<out>/<run-id>.html).
    #[arg(long)]
    pub report: bool,
    /// A threshold the run's figures must keep, checked at the end (repeatable): `ops>=2000`,
    /// `tpcb.p99<=5ms`, `kv.rocksdb.fetch.ops>=1M`. Dotted words before the figure select
    /// measurements by workload, engine, level, step, t<threads> or a configuration value.
    /// Figures: ops (ops/s), p50, p95, p99, p999, max (latency, with us, ms or s). When one
    /// fails, the result file says which and hakari exits 4.
    #[arg(long = "require", value_name = "CONDITION")]
    pub require: Vec<Requirement>,
}

#[derive(Args, Clone, Debug)]
struct KvArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Batches of sequential keys per step (bdb-11gr2: 57,600; default 1,000).
    #[arg(long)]
    batches: Option<u64>,
    /// Sequential keys per batch (default 10).
    #[arg(long)]
    batch_size: Option<u64>,
    /// Key size in bytes (at least 8; default 64).
    #[arg(long)]
    key_size: Option<String>,
    /// Value size in bytes (at least 8; default 64).
    #[arg(long)]
    value_size: Option<String>,
    /// Operations per transaction: `batch` (one batch of sequential keys, the default) or `op`.
    #[arg(long)]
    txn_size: Option<String>,
    /// Where the record number sits in the key: `number-last` (after zero padding, the
    /// default) or `number-first` (comparisons end in the first bytes: much faster fetches on
    /// engines that compare whole keys, such as Berkeley DB).
    #[arg(long)]
    key_layout: Option<String>,
    /// Engine cache size, e.g. 512MB (0: the engine's default).
    #[arg(long)]
    cache_size: Option<String>,
    /// Page size, e.g. 32K (0: the engine's default).
    #[arg(long)]
    page_size: Option<String>,
    /// Log buffer size, e.g. 8MB (0: the engine's default).
    #[arg(long)]
    log_buffer: Option<String>,
    /// Bulk read buffer, e.g. 4MB.
    #[arg(long)]
    bulk_buffer: Option<String>,
}

#[derive(Args, Clone, Debug)]
struct TpcbArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Scale factor: the number of branches (default 1; bdb-11gr2: 1,000).
    #[arg(long)]
    scale: Option<u64>,
    /// Tellers per branch (default 10, as the TPC-B specification).
    #[arg(long)]
    tellers_per_branch: Option<u64>,
    /// Accounts per branch (specification: 100,000; default 10,000; bdb-11gr2: 100).
    #[arg(long)]
    accounts_per_branch: Option<u64>,
    /// Seconds each run lasts (default 2).
    #[arg(long)]
    duration: Option<f64>,
    /// Transactions per client per run, instead of a duration.
    #[arg(long)]
    transactions: Option<u64>,
    /// Table-set layouts, comma-separated: 1 = all clients share one set of tables; 16 = 16
    /// independent sets, each client bound to one (psql-v11 runs 1,16).
    #[arg(long)]
    table_sets: Option<String>,
}

#[derive(Args, Clone, Debug)]
struct SessionArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Bytes of random text per session, comma-separated (default 1K,4K,10K,100K,1000K).
    #[arg(long)]
    sizes: Option<String>,
    /// Layouts, comma-separated: blob (one row or value per session), chunked (rows of at most
    /// 4000 bytes keyed by id and subid). Default: blob.
    #[arg(long)]
    layout: Option<String>,
    /// Compression before storing, comma-separated: none, gzip, zstd, lz4 (default none,gzip).
    #[arg(long)]
    compress: Option<String>,
    /// Sessions written per run (default 1,000).
    #[arg(long)]
    sessions: Option<u64>,
    /// Random session reads per run (default 10,000).
    #[arg(long)]
    reads: Option<u64>,
}

#[derive(Args, Clone, Debug)]
struct TpchArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Scale factors, comma-separated (default 0.01; dbt3: 1). Each is loaded and measured on a
    /// fresh database.
    #[arg(long)]
    sf: Option<String>,
    /// Query streams of the throughput test (default: the TPC-H minimum for the SF, 2 below
    /// SF 10; dbt3: 4).
    #[arg(long)]
    streams: Option<usize>,
    /// Also run the 22 queries with the qualification parameters after the load and check their
    /// answers (answer sets exist for SF 0.01, 0.1 and 1); a wrong answer is an error.
    #[arg(long)]
    validate: bool,
    /// Also write the generated tables as dbgen .tbl files into DIR/sf<SF>/.
    #[arg(long, value_name = "DIR")]
    keep_data: Option<PathBuf>,
}

#[derive(Args, Clone, Debug)]
struct WisconsinArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Tuples of TENKTUP1 and TENKTUP2 (ONEKTUP and BPRIME get a tenth): 1000, 10000 (the
    /// default, the chapter's size), 100000, 1000000 or 10000000.
    #[arg(long)]
    tuples: Option<u64>,
    /// Query numbers to run, as a list of numbers and ranges (e.g. 1-8,18,20-25; default all 32).
    #[arg(long)]
    queries: Option<String>,
    /// What happens to a query's rows: store (INSERT INTO a result relation, as the original;
    /// the default), fetch (sent to the client), count (SELECT COUNT(*)).
    #[arg(long)]
    result_mode: Option<String>,
}

#[derive(Args, Clone, Debug)]
struct CrashtestArgs {
    /// Engines, comma-separated: embedded key-value engines (bdb, lmdb, rocksdb, sqlite), whose
    /// committing child process is killed, and servers (postgres, mysql), whose private server
    /// hakari starts, kills (the whole process tree) and restarts on the same data directory.
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
}

pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let outcome = match cli.command {
        Command::Run(run) => match run.workload {
            None => tour(),
            Some(Workload::Kv(args)) => run_kv(args),
            Some(Workload::Tpcb(args)) => run_tpcb(args),
            Some(Workload::Session(args)) => run_session(args),
            Some(Workload::Tpch(args)) => run_tpch(args),
            Some(Workload::Wisconsin(args)) => run_wisconsin(args),
        },
        Command::Engines { format } => engines(format),
        Command::Show { file, format } => show(file, format),
        Command::Export {
            paths,
            format,
            csv,
            output,
        } => export(paths, if csv { Format::Csv } else { format }, output),
        Command::Completions { shell } => completions(shell),
        Command::Man { dir } => man(dir),
        Command::Report { paths, output } => report(paths, output),
        Command::Compare {
            base,
            new,
            format,
            fail_if_worse,
        } => compare(base, new, format, fail_if_worse),
        Command::Crashtest(args) => crashtest(args),
        Command::Probe {
            what,
            data_dir,
            seconds,
        } => probe(&what, &data_dir, seconds),
        Command::CrashChild {
            engine,
            durability,
            dir,
            ack,
        } => crash_child(&engine, &durability, &dir, &ack),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            if e.downcast_ref::<Interrupted>().is_some() {
                return EXIT_INTERRUPTED;
            }
            eprintln!("hakari: error: {}", crate::errors::sentence(&e));
            EXIT_ERROR
        }
    }
}

fn engines(format: Format) -> Result<i32> {
    if format == Format::Table {
        let tables = report::engines::tables();
        for (i, t) in tables.iter().enumerate() {
            if i > 0 {
                outln!();
            }
            out!("{}", t.render());
        }
    } else {
        out!("{}", report::engines::rows().render(format)?);
    }
    Ok(0)
}

fn report(paths: Vec<PathBuf>, output: Option<PathBuf>) -> Result<i32> {
    let output = output.unwrap_or_else(|| match paths.as_slice() {
        [dir] if dir.is_dir() => dir.join("report.html"),
        _ => PathBuf::from("report.html"),
    });
    let loaded = report::html::load(&paths)?;
    for l in &loaded {
        if let Err(e) = &l.run {
            eprintln!("hakari: warning: left out of the report: {e}");
        }
        if let Ok(r) = &l.run {
            if !r.complete {
                eprintln!(
                    "hakari: note: {} is marked {} (shown as incomplete)",
                    l.path.display(),
                    r.status
                );
            }
        }
    }
    let runs = report::html::write(&loaded, &output)?;
    outln!("report of {runs} run(s): {}", output.display());
    Ok(0)
}

fn probe(what: &str, dir: &std::path::Path, seconds: f64) -> Result<i32> {
    if what != "fsync" {
        anyhow::bail!("unknown probe '{what}'; probes: fsync");
    }
    if seconds.is_nan() || seconds <= 0.0 {
        anyhow::bail!("--seconds must be more than 0");
    }
    let c =
        crate::measure::fsync_probe::probe(dir, std::time::Duration::from_secs_f64(seconds), 512)?;
    let mut t = report::table::Table::new(
        format!("Sync ceiling of {} (512-byte appends)", dir.display()),
        ["call", "syncs/s", "p50 us", "p99 us", "max us"]
            .map(String::from)
            .to_vec(),
        1,
    );
    for (name, rate, lat) in [
        ("write+fsync", c.fsync_per_sec, c.fsync_latency),
        ("write+fdatasync", c.fdatasync_per_sec, c.fdatasync_latency),
    ] {
        let l = lat.unwrap_or_default();
        t.row(vec![
            name.into(),
            crate::units::thousands(rate),
            format!("{:.1}", l.p50_us),
            format!("{:.1}", l.p99_us),
            format!("{:.1}", l.max_us),
        ]);
    }
    out!("{}", t.render());
    Ok(0)
}

fn crash_child(
    engine: &str,
    durability: &str,
    dir: &std::path::Path,
    ack: &std::path::Path,
) -> Result<i32> {
    crate::crashtest::child(
        engine::kv_engine(engine)?,
        Durability::parse(durability)?,
        dir,
        ack,
    )?;
    Ok(0)
}

fn crashtest(args: CrashtestArgs) -> Result<i32> {
    use crate::crashtest::{CrashKind, Target};
    if args.url.is_some() {
        anyhow::bail!("the crash test takes no --url: it kills the server it tests, so it tests only private servers hakari starts itself (leave --url out)");
    }
    let engines = Target::parse_list(&args.engine)?;
    let levels = Durability::parse_list(&args.durability)?;
    if args.rounds == 0 {
        anyhow::bail!("--rounds must be at least 1");
    }
    let crash = if args.power_loss {
        CrashKind::PowerLoss
    } else {
        CrashKind::Process
    };
    crate::crashtest::check(&engines, &levels, crash)?;
    if crash == CrashKind::PowerLoss {
        if let Some(why) = crate::crashtest::powerloss::unavailable() {
            anyhow::bail!("power-loss test needs FUSE: {why}");
        }
    }
    let mut ctx = RunContext::new(ContextOptions {
        workload: "crashtest",
        preset: None,
        seed: args.seed,
        out_dir: &args.out,
        data_dir: args.data_dir.as_deref(),
        parameters: serde_json::json!({ "rounds": args.rounds, "crash": crash.label() }),
    })?;
    measure::install_interrupt_handler();
    let outcome = crate::crashtest::run(&engines, &levels, args.rounds, crash, &mut ctx);
    let status = if outcome.is_ok() {
        "complete"
    } else {
        "failed"
    };
    let written = ctx
        .recorder
        .finish(status, outcome.as_ref().err().map(crate::errors::sentence))?;
    out!("{}", report::terminal::render(ctx.recorder.result()));
    if let Some(p) = written {
        outln!("results: {}", p.display());
    }
    outcome?;
    let broken = ctx
        .recorder
        .result()
        .measurements
        .iter()
        .any(|m| m.config.get("verdict").and_then(|v| v.as_str()) == Some("BROKEN PROMISE"));
    // A broken promise is a finding, not a failure of hakari: exit 3 so scripts can tell.
    Ok(if broken { EXIT_BROKEN_PROMISE } else { 0 })
}

fn compare(base: PathBuf, new: PathBuf, format: Format, gate: Option<Thresholds>) -> Result<i32> {
    let (a, b) = (store::read(&base)?, store::read(&new)?);
    if a.workload != b.workload {
        anyhow::bail!(
            "cannot compare a {} run with a {} run",
            a.workload,
            b.workload
        );
    }
    match format {
        Format::Table => out!("{}", report::compare::render(&a, &b, gate.as_ref())),
        _ => out!(
            "{}",
            report::compare::rows(&a, &b, gate.as_ref()).render(format)?
        ),
    }
    let Some(gate) = gate else { return Ok(0) };
    if report::compare::pairs(&a, &b).is_empty() {
        anyhow::bail!("the regression gate has nothing to judge: the runs share no figure");
    }
    let worse = report::compare::regressions(&a, &b, &gate);
    if worse.is_empty() {
        eprintln!("regression gate passed: no shared figure is worse beyond its threshold and the runs' noise");
        return Ok(0);
    }
    eprintln!("regression gate FAILED: {} figure(s) worse", worse.len());
    for w in &worse {
        eprintln!("  {w}");
    }
    Ok(EXIT_GATE_FAILED)
}

fn show(file: PathBuf, format: Format) -> Result<i32> {
    let r = store::read(&file)?;
    match format {
        Format::Table => out!("{}", report::terminal::render(&r)),
        _ => out!(
            "{}",
            report::rows::measurements(std::slice::from_ref(&r)).render(format)?
        ),
    }
    Ok(0)
}

fn export(paths: Vec<PathBuf>, format: Format, output: Option<PathBuf>) -> Result<i32> {
    if format == Format::Table {
        anyhow::bail!("export writes csv or json, not a table (use `hakari show` for tables)");
    }
    let mut runs = Vec::new();
    for l in report::html::load(&paths)? {
        match l.run {
            Ok(r) => runs.push(r),
            Err(e) => eprintln!("hakari: warning: left out of the export: {e}"),
        }
    }
    if runs.is_empty() {
        anyhow::bail!("no result file to export in {}", describe_paths(&paths));
    }
    let text = report::rows::measurements(&runs).render(format)?;
    match output {
        Some(path) => {
            crate::results::store::write_text_atomic(&path, &text)?;
            eprintln!("exported {} run(s) to {}", runs.len(), path.display());
        }
        None => out!("{text}"),
    }
    Ok(0)
}

fn describe_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn completions(shell: clap_complete::Shell) -> Result<i32> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "hakari", &mut script);
    out!("{}", String::from_utf8_lossy(&script));
    Ok(0)
}

/// The man page of hakari, or with `dir` one page per command (hakari-run-kv.1, ...).
fn man(dir: Option<PathBuf>) -> Result<i32> {
    let cmd = Cli::command();
    let Some(dir) = dir else {
        let mut page = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut page)?;
        out!("{}", String::from_utf8_lossy(&page));
        return Ok(0);
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = 0;
    let mut stack = vec![(cmd, "hakari".to_string())];
    while let Some((cmd, name)) = stack.pop() {
        if cmd.is_hide_set() {
            continue;
        }
        let mut page = Vec::new();
        clap_mangen::Man::new(cmd.clone())
            .title(name.clone())
            .render(&mut page)?;
        let path = dir.join(format!("{name}.1"));
        std::fs::write(&path, page).with_context(|| format!("cannot write {}", path.display()))?;
        written += 1;
        for sub in cmd.get_subcommands() {
            if sub.get_name() != "help" {
                stack.push((sub.clone(), format!("{name}-{}", sub.get_name())));
            }
        }
    }
    eprintln!("wrote {written} man pages to {}", dir.display());
    Ok(0)
}

/// `hakari run` alone: the kv workload at a small size on every engine, each at `sync`.
fn tour() -> Result<i32> {
    eprintln!("hakari tour: the kv workload at a small size on every engine (see `hakari run kv --help` for more)");
    let mut params = kv::presets::default_params();
    params.batches = 2_000;
    params.runs = 3;
    let engines = engine::kv_engines();
    let (configs, notes) = kv::plan(&params, &engines, None)?;
    execute_kv(&params, &configs, notes, &CommonArgs::defaults())
}

impl CommonArgs {
    fn defaults() -> CommonArgs {
        CommonArgs {
            engine: None,
            durability: None,
            preset: None,
            runs: None,
            seed: None,
            out: PathBuf::from("results"),
            data_dir: None,
            threads: None,
            url: None,
            report: false,
            require: Vec::new(),
        }
    }
}

fn run_kv(args: KvArgs) -> Result<i32> {
    let params = kv_params(&args)?;
    // Without --engine: Berkeley DB for its own papers' presets, else the embedded default.
    let default_engine = if params.preset.is_some() {
        "bdb"
    } else {
        "sqlite"
    };
    let engines =
        engine::parse_kv_engines(args.common.engine.as_deref().unwrap_or(default_engine))?;
    let named = args
        .common
        .durability
        .as_deref()
        .map(Durability::parse_list)
        .transpose()?;
    let (configs, notes) = kv::plan(&params, &engines, named.as_deref())?;
    execute_kv(&params, &configs, notes, &args.common)
}

fn kv_params(args: &KvArgs) -> Result<KvParams> {
    let mut p = match &args.common.preset {
        Some(name) => kv::presets::preset(name)?,
        None => kv::presets::default_params(),
    };
    let size = |v: &Option<String>, flag: &str| -> Result<Option<u64>> {
        v.as_deref()
            .map(|s| parse_size(s).with_context(|| format!("bad {flag}")))
            .transpose()
    };
    if let Some(n) = args.batches {
        p.batches = n;
    }
    if let Some(n) = args.batch_size {
        p.batch_size = n;
    }
    if let Some(n) = size(&args.key_size, "--key-size")? {
        p.key_size = n as usize;
    }
    if let Some(n) = size(&args.value_size, "--value-size")? {
        p.value_size = n as usize;
    }
    if let Some(t) = &args.txn_size {
        p.txn_size = kv::presets::TxnSize::parse(t)?;
    }
    if let Some(l) = &args.key_layout {
        p.key_layout = kv::keys::KeyLayout::parse(l)?;
    }
    if let Some(n) = size(&args.cache_size, "--cache-size")? {
        p.cache_bytes = n;
    }
    if let Some(n) = size(&args.page_size, "--page-size")? {
        p.page_size = u32::try_from(n).context("--page-size is too large")?;
    }
    if let Some(n) = size(&args.log_buffer, "--log-buffer")? {
        p.log_buffer_bytes = n;
    }
    if let Some(n) = size(&args.bulk_buffer, "--bulk-buffer")? {
        p.bulk_buffer_bytes = n as usize;
    }
    if let Some(n) = args.common.runs {
        p.runs = n;
    }
    if let Some(t) = &args.common.threads {
        p.threads = parse_counts(t, "threads")?;
    }
    Ok(p)
}

fn execute_kv(
    params: &KvParams,
    configs: &[kv::Config],
    notes: Vec<String>,
    common: &CommonArgs,
) -> Result<i32> {
    let parameters = serde_json::to_value(params)?;
    execute("kv", params.preset, parameters, notes, common, |ctx| {
        kv::run(params, configs, ctx)
    })
}

fn run_tpcb(args: TpcbArgs) -> Result<i32> {
    let mut p = match &args.common.preset {
        Some(name) => tpcb::presets::preset(name)?,
        None => tpcb::presets::default_params(),
    };
    if let Some(n) = args.scale {
        p.branches = n;
    }
    if let Some(n) = args.tellers_per_branch {
        p.tellers_per_branch = n;
    }
    if let Some(n) = args.accounts_per_branch {
        p.accounts_per_branch = n;
    }
    if let Some(d) = args.duration {
        p.duration_secs = d;
    }
    if let Some(t) = args.transactions {
        if t == 0 {
            anyhow::bail!("--transactions must be at least 1");
        }
        p.transactions = Some(t);
    }
    if let Some(t) = &args.table_sets {
        p.table_sets = parse_counts(t, "table sets")?;
    }
    if let Some(n) = args.common.runs {
        p.runs = n;
    }
    if let Some(t) = &args.common.threads {
        p.clients = parse_counts(t, "clients")?;
    }
    // Paper 000 ran table 6 on Berkeley DB's SQL interface; otherwise the embedded default.
    let default_engines = if p.preset == Some("bdb-11gr2") {
        "bdb-sql,sqlite"
    } else {
        "sqlite"
    };
    let engines =
        engine::parse_sql_engines(args.common.engine.as_deref().unwrap_or(default_engines))?;
    let named = args
        .common
        .durability
        .as_deref()
        .map(Durability::parse_list)
        .transpose()?;
    let (configs, notes) = tpcb::plan(&p, &engines, named.as_deref())?;
    let parameters = serde_json::to_value(&p)?;
    let url = args.common.url.clone();
    execute("tpcb", p.preset, parameters, notes, &args.common, |ctx| {
        tpcb::run(&p, &configs, url.as_deref(), ctx)
    })
}

fn run_session(args: SessionArgs) -> Result<i32> {
    use crate::workload::session::{self, data::Codec, store::Layout, store::SessionEngine};
    let mut p = session::default_params();
    if let Some(preset) = &args.common.preset {
        anyhow::bail!("the session workload has no preset '{preset}' (it has none yet)");
    }
    if let Some(s) = &args.sizes {
        p.sizes = s
            .split(',')
            .filter(|x| !x.trim().is_empty())
            .map(|x| parse_size(x).context("bad --sizes"))
            .collect::<Result<_>>()?;
    }
    fn list<T>(text: &Option<String>, parse: fn(&str) -> Result<T>) -> Result<Option<Vec<T>>> {
        text.as_deref()
            .map(|t| {
                t.split(',')
                    .filter(|x| !x.trim().is_empty())
                    .map(parse)
                    .collect()
            })
            .transpose()
    }
    if let Some(l) = list(&args.layout, Layout::parse)? {
        p.layouts = l;
    }
    if let Some(c) = list(&args.compress, Codec::parse)? {
        p.compress = c;
    }
    if let Some(n) = args.sessions {
        p.sessions = n;
    }
    if let Some(n) = args.reads {
        p.reads = n;
    }
    if let Some(n) = args.common.runs {
        p.runs = n;
    }
    if let Some(t) = &args.common.threads {
        p.clients = parse_counts(t, "clients")?;
    }
    let engines = SessionEngine::parse_list(args.common.engine.as_deref().unwrap_or("sqlite"))?;
    let named = args
        .common
        .durability
        .as_deref()
        .map(Durability::parse_list)
        .transpose()?;
    let (configs, notes) = session::plan(&p, &engines, named.as_deref())?;
    let parameters = serde_json::to_value(&p)?;
    let url = args.common.url.clone();
    execute("session", None, parameters, notes, &args.common, |ctx| {
        session::run(&p, &configs, url.as_deref(), ctx)
    })
}

fn run_tpch(args: TpchArgs) -> Result<i32> {
    let mut p = match &args.common.preset {
        Some(name) => tpch::presets::preset(name)?,
        None => tpch::presets::default_params(),
    };
    if let Some(list) = &args.sf {
        p.scale_factors = tpch::presets::parse_scale_factors(list)?;
    }
    if let Some(s) = args.streams {
        if s == 0 {
            anyhow::bail!("--streams must be at least 1");
        }
        p.streams = Some(s);
    }
    if args.common.runs.is_some() {
        anyhow::bail!("tpch runs the load, power and throughput tests once per scale factor; it takes no --runs");
    }
    if args.common.threads.is_some() {
        anyhow::bail!("tpch takes --streams (query streams of the throughput test), not --threads");
    }
    p.validate = args.validate;
    if let Some(dir) = &args.keep_data {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create --keep-data directory {}", dir.display()))?;
        p.keep_data = Some(dir.clone());
    }
    let engines =
        engine::parse_sql_engines(args.common.engine.as_deref().unwrap_or(p.default_engines))?;
    let named = args
        .common
        .durability
        .as_deref()
        .map(Durability::parse_list)
        .transpose()?;
    let (configs, notes) = tpch::plan(&p, &engines, named.as_deref())?;
    let parameters = serde_json::to_value(&p)?;
    let url = args.common.url.clone();
    execute("tpch", p.preset, parameters, notes, &args.common, |ctx| {
        tpch::run(&p, &configs, url.as_deref(), ctx)
    })
}

fn run_wisconsin(args: WisconsinArgs) -> Result<i32> {
    let mut p = match &args.common.preset {
        Some(name) => wisconsin::presets::preset(name)?,
        None => wisconsin::presets::default_params(),
    };
    if let Some(n) = args.tuples {
        p.tuples = n;
    }
    if let Some(q) = &args.queries {
        p.queries = wisconsin::queries::parse_selection(q)?;
    }
    if let Some(m) = &args.result_mode {
        p.result_mode = wisconsin::presets::ResultMode::parse(m)?;
    }
    if let Some(n) = args.common.runs {
        p.runs = n;
    }
    if args.common.threads.is_some() {
        anyhow::bail!("the wisconsin workload is single user: it takes no --threads");
    }
    // Table 7 was measured on Berkeley DB's SQL interface; otherwise the embedded default.
    let default_engines = if p.preset == Some("bdb-11gr2") {
        "bdb-sql"
    } else {
        "sqlite"
    };
    let engines =
        engine::parse_sql_engines(args.common.engine.as_deref().unwrap_or(default_engines))?;
    let named = args
        .common
        .durability
        .as_deref()
        .map(Durability::parse_list)
        .transpose()?;
    let (configs, notes) = wisconsin::plan(&p, &engines, named.as_deref())?;
    let parameters = serde_json::to_value(&p)?;
    let url = args.common.url.clone();
    execute(
        "wisconsin",
        p.preset,
        parameters,
        notes,
        &args.common,
        |ctx| wisconsin::run(&p, &configs, url.as_deref(), ctx),
    )
}

/// Runs a workload's body inside a fresh run context and writes its result file.
fn execute(
    workload: &str,
    preset: Option<&str>,
    parameters: serde_json::Value,
    notes: Vec<String>,
    common: &CommonArgs,
    body: impl FnOnce(&mut RunContext) -> Result<()>,
) -> Result<i32> {
    let mut ctx = RunContext::new(ContextOptions {
        workload,
        preset,
        seed: common.seed,
        out_dir: &common.out,
        data_dir: common.data_dir.as_deref(),
        parameters,
    })?;
    for n in notes {
        eprintln!("note: {n}");
        ctx.recorder.note(n);
    }
    measure::install_interrupt_handler();
    let outcome = body(&mut ctx);
    finish(&mut ctx, outcome, common)
}

/// Checks the `--require` thresholds, writes the result file with the run's status, prints the
/// tables, and picks the exit code.
fn finish(ctx: &mut RunContext, outcome: Result<()>, common: &CommonArgs) -> Result<i32> {
    let requirements: Vec<_> = common
        .require
        .iter()
        .map(|r| r.check(&ctx.recorder.result().measurements))
        .collect();
    let failed_requirements = requirements.iter().filter(|r| !r.passed).count();
    ctx.recorder.requirements(requirements.clone());
    let (status, error, code) = match &outcome {
        Ok(()) => ("complete", None, 0),
        Err(e) if e.downcast_ref::<Interrupted>().is_some() || measure::interrupted() => (
            "interrupted",
            Some("interrupted by the user".to_string()),
            EXIT_INTERRUPTED,
        ),
        Err(e) => ("failed", Some(crate::errors::sentence(e)), EXIT_ERROR),
    };
    let written = ctx.recorder.finish(status, error.clone())?;
    if !ctx.recorder.result().measurements.is_empty() {
        outln!();
        out!("{}", report::terminal::render(ctx.recorder.result()));
    }
    if let (Some(path), true) = (&written, common.report) {
        let html = path.with_extension("html");
        let loaded = report::html::load(std::slice::from_ref(path))?;
        report::html::write(&loaded, &html)?;
        outln!("report: {}", html.display());
    }
    match (&written, status) {
        (Some(path), "complete") => outln!("\nresults: {}", path.display()),
        (Some(path), _) => eprintln!("\nresults so far (marked {status}): {}", path.display()),
        (None, _) => {}
    }
    for r in &requirements {
        let verdict = if r.passed { "passed" } else { "FAILED" };
        eprintln!("requirement {}: {verdict} ({})", r.requirement, r.detail);
    }
    if let Some(e) = error {
        eprintln!(
            "hakari: {}: {}",
            if code == EXIT_INTERRUPTED {
                "stopped"
            } else {
                "error"
            },
            crate::results::redact::redact(&e)
        );
    }
    if code == 0 && failed_requirements > 0 {
        return Ok(EXIT_GATE_FAILED);
    }
    Ok(code)
}
