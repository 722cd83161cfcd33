//! The run lifecycle every workload shares: the engines and plan, a fresh run context, each
//! configuration in turn, the result file, the tables and the exit code.

use crate::durability::Durability;
use crate::engine::Engine;
use crate::errors::{Usage, EXIT_ERROR, EXIT_GATE_FAILED};
use crate::measure::fault::Fault;
use crate::measure::timing::{Arrival, Schedule, Timing};
use crate::measure::{self, Interrupted};
use crate::report;
use crate::report::gate::Requirement;
use crate::report::view::View;
use crate::results::TimingRecord;
use crate::server::topology::Topology;
use crate::shard::Shard;
use crate::workload::kept::Phases;
use crate::workload::{default_engines, ContextOptions, RunContext, StepLength, Workload};
use crate::{out, outln};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::time::Duration;

/// What every run takes besides its workload's own parameters.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// `--engine`, comma-separated; None: the workload's defaults.
    pub engines: Option<String>,
    /// `--preset`: a paper's parameters (already in the workload's), recorded by name.
    pub preset: Option<String>,
    /// `--durability`; None: the workload's (or preset's) default levels.
    pub durability: Option<Vec<Durability>>,
    pub seed: Option<u64>,
    pub out: PathBuf,
    pub data_dir: Option<PathBuf>,
    /// `--url`, each for the engines of its scheme.
    pub urls: Vec<String>,
    /// `--dialect`: the SQL a database reached through odbc takes.
    pub dialect: Option<crate::engine::sql::Dialect>,
    /// Also write an HTML report beside the result file.
    pub report: bool,
    pub require: Vec<Requirement>,
    pub timing: TimingOptions,
    /// `--shard i/N`: this client's part of a run several clients make together.
    pub shard: Option<Shard>,
    /// `--keep`, `--load-only`, `--run-only`: whether the tables are loaded, run on and kept.
    pub phases: Phases,
    /// `--replicas`/`--replica-ack`/`--cluster`: what the private servers are started as, each
    /// configuration once per entry; empty: one server.
    pub topologies: Vec<Topology>,
    /// How the terminal shows the run, over the workload's own view (`hakari pgbench` prints
    /// pgbench's report); the page keeps the workload's.
    pub terminal: Option<TerminalView>,
}

/// A view the terminal shows a run in, over its workload's own.
#[derive(Clone, Copy)]
pub struct TerminalView(pub &'static dyn View);

impl std::fmt::Debug for TerminalView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TerminalView")
    }
}

/// How the timed steps are clocked, as the flags gave it.
#[derive(Clone, Debug, Default)]
pub struct TimingOptions {
    /// `--interval`; None: 1 s, printed only once a step has run a while.
    pub interval: Option<f64>,
    pub warmup: f64,
    /// `--rate`: empty for a closed loop.
    pub rates: Vec<f64>,
    pub arrival: Arrival,
    pub latency_limit_ms: Option<f64>,
    pub hlog: Option<PathBuf>,
    /// `--start-at`, as given and as an instant.
    pub start_at: Option<(String, std::time::SystemTime)>,
    /// `--no-resources`: read nothing of what the steps cost.
    pub no_resources: bool,
    /// `--engine-statistics`: also the statistics that cost an engine throughput to keep.
    pub engine_statistics: bool,
    /// How the interval lines read (`hakari pgbench -P`: pgbench's).
    pub interval_style: crate::measure::timing::IntervalStyle,
    /// `--fault`: put into each timed step.
    pub fault: Option<Fault>,
}

impl TimingOptions {
    /// Refuses flags that do not fit the workload or its steps (exit 2).
    fn check<W: Workload>(&self, workload: &W, paced: &str) -> Result<()> {
        let usage = |text: String| Err(anyhow::Error::new(Usage(text)));
        if !W::PACED && (!self.rates.is_empty() || self.warmup > 0.0) {
            let flag = if self.rates.is_empty() {
                "--warmup"
            } else {
                "--rate"
            };
            return usage(format!(
                "{flag} does not apply to {}: it has no stream of operations to schedule or warm up \
                 (it applies to {paced})",
                W::NAME
            ));
        }
        let interval = self.interval.unwrap_or(0.0);
        match workload.step_length() {
            StepLength::Seconds(step) => {
                if self.warmup >= step {
                    return usage(format!(
                        "--warmup {} s is not shorter than the step ({step} s): nothing would be counted",
                        self.warmup
                    ));
                }
                if interval > step {
                    return usage(format!(
                        "--interval {interval} s is longer than the step ({step} s)"
                    ));
                }
                if let Some(f) = self.fault.filter(|f| f.ends().as_secs_f64() > step) {
                    return usage(format!(
                        "--fault {f} ends after the step ({step} s): put it earlier or run longer"
                    ));
                }
            }
            _ if self.fault.is_some_and(|f| f.undrawn) => {
                return usage(format!(
                    "--fault {} draws its instant from the seed within a step of known length, and {}'s steps run a number of operations: give the instant (@AT) or a --duration",
                    self.fault.map_or(String::new(), |f| f.to_string()),
                    W::NAME
                ));
            }
            StepLength::Operations(ops) => {
                for rate in &self.rates {
                    let step = ops as f64 / rate;
                    if self.warmup >= step {
                        return usage(format!(
                            "--warmup {} s is not shorter than a step at --rate {rate} ({ops} operations take {step:.3} s)",
                            self.warmup
                        ));
                    }
                }
            }
            StepLength::Unknown => {}
        }
        Ok(())
    }

    /// The clock of the run's steps (the open loop's rate is set per configuration).
    fn timing(&self) -> Timing {
        Timing {
            interval: Duration::from_secs_f64(self.interval.unwrap_or(1.0)),
            print_intervals: self.interval.is_some(),
            interval_style: self.interval_style,
            warmup: Duration::from_secs_f64(self.warmup),
            latency_limit: (self.latency_limit_ms).map(|ms| Duration::from_secs_f64(ms / 1000.0)),
            keep_histograms: self.hlog.is_some(),
            start_at: self.start_at.as_ref().map(|(_, at)| *at),
            resources: !self.no_resources,
            engine_statistics: self.engine_statistics,
            fault: self.fault,
            ..Timing::default()
        }
    }

    fn record(&self) -> TimingRecord {
        TimingRecord {
            interval_s: self.interval.unwrap_or(1.0),
            warmup_s: self.warmup,
            rates: self.rates.clone(),
            arrival: (!self.rates.is_empty()).then(|| self.arrival.name().to_string()),
            latency_limit_ms: self.latency_limit_ms,
            start_at: self.start_at.as_ref().map(|(text, _)| text.clone()),
            fault: self.fault.map(|f| f.to_string()),
        }
    }
}

/// Every `--url` must be for one of the engines asked for (a server engine taking its scheme).
fn check_urls(urls: &[String], engines: &[Engine]) -> Result<()> {
    for url in urls {
        let taken = (engines.iter()).any(|e| !e.url_schemes().is_empty() && e.takes_url(url));
        if !taken {
            let names: Vec<&str> = engines.iter().map(|e| e.name()).collect();
            return Err(anyhow::Error::new(Usage(format!(
                "--url {}: none of the engines asked for ({}) takes it; a URL goes to the server engine of its scheme (postgres://, mysql://, redis://, memcache://, odbc:)",
                crate::results::redact::redact(url),
                names.join(", ")
            ))));
        }
        warn_of_password("--url", url);
    }
    Ok(())
}

/// A password typed in a URL still works, but anyone on the machine sees it in `ps` and it
/// stays in the shell's history: one line says where the ecosystem keeps it instead. `option`
/// is the flag it came with (`--url`, `--out`, `--from`).
pub fn warn_of_password(option: &str, url: &str) {
    let shown = crate::results::redact::redact(url);
    if shown == url {
        return;
    }
    let instead = match crate::engine::url_scheme(url) {
        Some("postgres" | "postgresql") => "PGPASSWORD, ~/.pgpass or a service file",
        Some("mysql" | "mariadb") => "MYSQL_PWD or ~/.my.cnf's [client] section",
        Some("redis" | "rediss") => "REDISCLI_AUTH",
        _ => "the driver's own configuration (odbc.ini)",
    };
    eprintln!(
        "hakari: warning: the password in {option} {shown} shows in `ps` and your shell's history; leave it out of the URL and put it in {instead}"
    );
}

/// A cluster is started by hakari, for engines whose private server can be one; a server given
/// by `--url` is what it is.
fn check_topologies(topologies: &[Topology], engines: &[Engine], urls: &[String]) -> Result<()> {
    let usage = |text: String| Err(anyhow::Error::new(Usage(text)));
    for t in topologies {
        let Some(kind) = t.kind() else { continue };
        if !urls.is_empty() {
            return usage(format!(
                "--replicas and --cluster start a loopback cluster of hakari's own; with --url the server is yours as it is ({t} asked)"
            ));
        }
        if let Some(e) = engines.iter().find(|e| !e.topologies().contains(&kind)) {
            let who = match kind {
                crate::server::topology::Kind::Standbys => "postgres (streaming standbys)",
                crate::server::topology::Kind::Galera => "mysql (MariaDB Galera)",
                crate::server::topology::Kind::RedisCluster => "redis (Redis Cluster)",
            };
            return usage(format!(
                "engine '{}' cannot be started as {t}: that topology is for {who}",
                e.name()
            ));
        }
    }
    Ok(())
}

/// `--shard` splits a workload that can be split, among clients that reach one server
/// (`--url`); they meet there and start together.
fn check_shard<W: Workload>(options: &RunOptions) -> Result<()> {
    let usage = |text: String| Err(anyhow::Error::new(Usage(text)));
    let Some(shard) = options.shard else {
        return Ok(());
    };
    if !W::SHARDED {
        return usage(format!(
            "--shard does not apply to {}: it is for tpcb (each client machine writes its own branches), tpcc (each runs the terminals of its own warehouses) and ycsb (each inserts its own records)",
            W::NAME
        ));
    }
    if shard.count > 1 && options.urls.is_empty() {
        return usage(format!(
            "--shard {shard}: the clients must share one server: give its --url (without one, each would start a private server of its own)"
        ));
    }
    Ok(())
}

/// Plans `workload`, runs every configuration and writes the result file; returns the exit code.
/// `paced` names the workloads `--rate` and `--warmup` apply to, for the message refusing them.
pub fn execute<W: Workload>(workload: &mut W, options: &RunOptions, paced: &str) -> Result<i32> {
    if crate::results_table::is_url(&options.out) {
        return leaving_in_database(workload, options, paced);
    }
    let paced_by_workload;
    let options = match workload.rate() {
        Some(rate) if options.timing.rates.is_empty() => {
            let mut own = options.clone();
            own.timing.rates = vec![rate];
            paced_by_workload = own;
            &paced_by_workload
        }
        _ => options,
    };
    let names = options
        .engines
        .as_deref()
        .unwrap_or(default_engines::<W>(options.preset.as_deref()));
    options.timing.check(&*workload, paced)?;
    let engines = W::TAKES.parse(names)?;
    check_urls(&options.urls, &engines)?;
    check_topologies(&options.topologies, &engines, &options.urls)?;
    check_shard::<W>(options)?;
    let place = options.shard.filter(|s| s.count > 1).map(|s| s.to_string());
    if let Some(why) = options
        .phases
        .refusal(W::NAME, W::KEEPS, place, &engines, &options.urls)
    {
        return Err(anyhow::Error::new(Usage(why)));
    }
    let asked = crate::run_faults::Asked {
        fault: options.timing.fault,
        urls: &options.urls,
        topologies: &options.topologies,
    };
    crate::run_faults::check(&*workload, asked, &engines, paced)?;
    let generic = |e: &Engine| matches!(e, Engine::Sql(s) if s.dialect().is_none());
    if options.dialect.is_some() && !engines.iter().any(generic) {
        return Err(anyhow::Error::new(Usage(
            "--dialect is for an engine that takes its dialect from the database it reaches (odbc); the engines asked for speak their own".into(),
        )));
    }
    let plan = workload.plan(&engines, options.durability.as_deref())?;
    if plan.configs.is_empty() {
        bail!(
            "nothing to run: {}",
            if plan.notes.is_empty() {
                "no configuration".to_string()
            } else {
                plan.notes.join("; ")
            }
        );
    }
    let mut ctx = RunContext::new(ContextOptions {
        workload: W::NAME,
        preset: options.preset.as_deref(),
        seed: options.seed,
        out_dir: &options.out,
        data_dir: options.data_dir.as_deref(),
        urls: &options.urls,
        dialect: options.dialect,
        parameters: serde_json::to_value(&*workload)?,
        timing: options.timing.timing(),
        hlog: options.timing.hlog.as_deref(),
        phases: options.phases,
    })?;
    // A fault given without @AT: its instant drawn from the run's seed, the same in every step.
    if let (Some(f), StepLength::Seconds(step)) = (ctx.timing.fault, workload.step_length()) {
        ctx.timing.fault = Some(f.drawn(ctx.seed, step));
        if f.undrawn {
            let drawn = ctx.timing.fault.map_or(String::new(), |f| f.to_string());
            let n = format!("--fault {f}: drawn from seed {} as {drawn}", ctx.seed);
            eprintln!("note: {n}");
            ctx.recorder.note(n);
        }
    }
    let mut record = options.timing.record();
    record.fault = ctx.timing.fault.map(|f| f.to_string());
    ctx.recorder.timing(record);
    if let Some(shard) = options.shard {
        ctx.recorder.shard(shard);
        ctx.shard = Some(shard);
    }
    for n in plan.notes {
        eprintln!("note: {n}");
        ctx.recorder.note(n);
    }
    crate::signals::install();
    workload.start(&mut ctx);
    let outcome = run_each(workload, &plan.configs, options, &mut ctx)
        .and_then(|()| workload.finish(&mut ctx));
    finish(&mut ctx, outcome, options, W::VIEW)
}

/// `--out URL`: the run writes into a folder of its own (its interval log too, unless `--hlog`
/// names a folder), and when it ends, whatever its status, leaves its result and interval log in
/// the database at URL (`results_table`).
fn leaving_in_database<W: Workload>(w: &mut W, options: &RunOptions, paced: &str) -> Result<i32> {
    let url = options.out.to_string_lossy().into_owned();
    warn_of_password("--out", &url);
    let leaving = crate::results_table::Leaving::to(&url)?;
    let mut local = options.clone();
    local.out = leaving.folder().to_path_buf();
    let hlogs = (local.timing.hlog.get_or_insert_with(|| local.out.clone())).clone();
    let code = execute(w, &local, paced)?;
    leaving.leave(&hlogs)?;
    Ok(code)
}

/// Runs every configuration in turn. One that fails (an engine that breaks an invariant, a
/// server that goes away) is recorded as an error naming it, and the others still run; the run
/// then ends as failed, keeping every figure that was measured. Ctrl-C stops at once.
fn run_each<W: Workload>(
    workload: &mut W,
    configs: &[W::Config],
    options: &RunOptions,
    ctx: &mut RunContext,
) -> Result<()> {
    let timing = &options.timing;
    let mut failed = Vec::new();
    let mut inconsistent = false;
    let mut stopped = false;
    // A closed loop, or each configuration once per rate.
    let rates: Vec<Option<f64>> = match timing.rates.as_slice() {
        [] => vec![None],
        rates => rates.iter().copied().map(Some).collect(),
    };
    let runs: Vec<(&W::Config, Option<f64>)> = configs
        .iter()
        .flat_map(|c| rates.iter().map(move |&r| (c, r)))
        .collect();
    // And each once per topology.
    let topologies = match options.topologies.as_slice() {
        [] => &[Topology::Single][..],
        t => t,
    };
    let runs: Vec<(&W::Config, Option<f64>, Topology)> = runs
        .into_iter()
        .flat_map(|(c, r)| topologies.iter().map(move |&t| (c, r, t)))
        .collect();
    for (i, &(config, rate, topology)) in runs.iter().enumerate() {
        let mut label = match rate {
            Some(r) => format!("{config} at {} ops/s", crate::units::thousands(r)),
            None => config.to_string(),
        };
        if topology != Topology::Single {
            label.push_str(&format!(" on {topology}"));
        }
        ctx.topology = topology;
        eprintln!("[{}/{}] {label}", i + 1, runs.len());
        // A shard offers its part of the rate the clients offer together.
        let share = options.shard.map_or(1.0, |s| s.count as f64);
        ctx.timing.schedule = rate.map(|rate| Schedule {
            rate: rate / share,
            arrival: timing.arrival,
            seed: ctx.seed,
        });
        match workload
            .run_config(config, ctx)
            .with_context(|| label.clone())
        {
            Ok(()) => {}
            Err(e) if e.downcast_ref::<Interrupted>().is_some() => return Err(e),
            Err(e) => {
                inconsistent |= crate::errors::is_inconsistent(&e);
                stopped |= crate::errors::is_clients_stopped(&e);
                let text = crate::errors::sentence(&e);
                if runs.len() > 1 {
                    eprintln!("hakari: error: {text}");
                    ctx.recorder.error(text.clone());
                }
                failed.push(text);
            }
        }
    }
    let text = match failed.len() {
        0 => return Ok(()),
        1 if runs.len() == 1 => failed[0].clone(),
        n => format!(
            "{n} of {} configurations failed (see above; their errors are in the result file)",
            runs.len()
        ),
    };
    match (inconsistent, stopped) {
        (true, _) => Err(anyhow::Error::new(crate::errors::Inconsistent(text))),
        (false, true) => Err(anyhow::Error::new(crate::errors::ClientsStopped(text))),
        (false, false) => Err(anyhow::anyhow!(text)),
    }
}

/// Checks the `--require` thresholds, writes the result file with the run's status, prints the
/// tables, and picks the exit code.
fn finish(
    ctx: &mut RunContext,
    outcome: Result<()>,
    options: &RunOptions,
    view: &'static dyn View,
) -> Result<i32> {
    let requirements: Vec<_> = options
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
            Some(format!(
                "interrupted by {}",
                crate::signals::name(measure::interrupting_signal())
            )),
            measure::interrupted_exit_code(),
        ),
        Err(e) if crate::errors::is_inconsistent(e) => (
            "failed",
            Some(crate::errors::sentence(e)),
            crate::errors::EXIT_BROKEN_PROMISE,
        ),
        Err(e) if crate::errors::is_clients_stopped(e) => (
            "failed",
            Some(crate::errors::sentence(e)),
            crate::errors::EXIT_CLIENTS_STOPPED,
        ),
        Err(e) => ("failed", Some(crate::errors::sentence(e)), EXIT_ERROR),
    };
    let written = ctx.recorder.finish(status, error.clone())?;
    if !ctx.recorder.result().measurements.is_empty() {
        outln!();
        let terminal = options.terminal.map_or(view, |t| t.0);
        out!(
            "{}",
            report::terminal::render(ctx.recorder.result(), terminal)
        );
    }
    if let Some(hlog) = ctx.hlog_path().filter(|p| p.exists()) {
        outln!("interval log: {}", hlog.display());
    }
    if let (Some(path), true) = (&written, options.report) {
        let html = path.with_extension("html");
        let loaded = report::html::load(std::slice::from_ref(path))?;
        report::html::write(&loaded, &html, &|_| view)?;
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
        let what = if status == "interrupted" {
            "stopped"
        } else {
            "error"
        };
        eprintln!("hakari: {what}: {}", crate::results::redact::redact(&e));
    }
    if code == 0 && failed_requirements > 0 {
        return Ok(EXIT_GATE_FAILED);
    }
    Ok(code)
}
