//! What each command does, once the command line is parsed: list engines, show, export,
//! compare and report result files, probe a device, the tour, the crash test's lifecycle. Runs
//! of workloads go through `crate::run`.

use crate::crashtest::{self, CrashKind};
use crate::durability::Durability;
use crate::engine;
use crate::errors::EXIT_BROKEN_PROMISE;
use crate::errors::EXIT_GATE_FAILED;
use crate::output::{ExportFormat, Format};
use crate::report;
use crate::report::gate::Thresholds;
use crate::results::store;
use crate::workload::{ContextOptions, RunContext};
use crate::{out, outln};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

pub fn engines(format: Format) -> Result<i32> {
    if format == Format::Table {
        let tables = report::engines::tables(&crate::workloads::taking);
        for (i, t) in tables.iter().enumerate() {
            if i > 0 {
                outln!();
            }
            out!("{}", t.render());
        }
    } else {
        out!(
            "{}",
            report::engines::rows(&crate::workloads::taking).render(format)?
        );
    }
    Ok(0)
}

pub fn report(paths: &[PathBuf], output: Option<PathBuf>) -> Result<i32> {
    let output = output.unwrap_or_else(|| match paths {
        [dir] if dir.is_dir() => dir.join("report.html"),
        _ => PathBuf::from("report.html"),
    });
    let loaded = report::html::load(paths)?;
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
    let runs = report::html::write(&loaded, &output, &crate::workloads::view)?;
    outln!("report of {runs} run(s): {}", output.display());
    Ok(0)
}

pub fn probe(what: &str, dir: &Path, seconds: f64) -> Result<i32> {
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
        ["call", "syncs/s", "p50", "p99", "max"]
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
            crate::units::latency(l.p50_us),
            crate::units::latency(l.p99_us),
            crate::units::latency(l.max_us),
        ]);
    }
    out!("{}", t.render());
    Ok(0)
}

/// The committing child process of the crash test.
pub fn crash_child(engine: &str, durability: &str, dir: &Path, ack: &Path) -> Result<i32> {
    crate::crashtest::child(
        &*engine::kv_engine(engine)?,
        Durability::parse(durability)?,
        dir,
        ack,
    )?;
    Ok(0)
}

pub fn compare(base: &Path, new: &Path, format: Format, gate: Option<Thresholds>) -> Result<i32> {
    let (a, b) = (store::read(base)?, store::read(new)?);
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

/// `hakari merge`: one result from several clients' parts of a run.
pub fn merge(files: &[PathBuf], hlog_dirs: &[PathBuf], output: Option<PathBuf>) -> Result<i32> {
    let beside = files[0].parent().unwrap_or(Path::new("."));
    merge_into(files, hlog_dirs, output, beside)
}

/// Merges `files`, writes the result to `output` (default: in `dir`, named after the run).
fn merge_into(
    files: &[PathBuf],
    hlog_dirs: &[PathBuf],
    output: Option<PathBuf>,
    dir: &Path,
) -> Result<i32> {
    let merged = crate::results::merge::merge(files, hlog_dirs)?;
    let output = output.unwrap_or_else(|| dir.join(format!("{}.json", merged.run_id)));
    crate::results::store::write_atomic(&output, &merged)?;
    out!(
        "{}",
        report::terminal::render(&merged, crate::workloads::view(&merged.workload))
    );
    outln!(
        "\nmerged {} clients: {}",
        merged.merged_from.len(),
        output.display()
    );
    Ok(0)
}

/// `merge --wait N DIR`: waits until N clients of one run have left complete results in `dir`
/// (their shards 1 to N), then merges them; a client's result that says it failed, was
/// interrupted or was abandoned ends the wait with its reason.
pub fn merge_when_in(
    dir: &Path,
    n: usize,
    hlog_dirs: &[PathBuf],
    output: Option<PathBuf>,
) -> Result<i32> {
    if !dir.is_dir() {
        anyhow::bail!("{}: not a folder", dir.display());
    }
    eprintln!("waiting for {n} clients' results in {}", dir.display());
    let files = wait_for_clients(dir, n, || Ok(()))?;
    let mut dirs = hlog_dirs.to_vec();
    dirs.push(dir.to_path_buf());
    merge_into(&files, &dirs, output, dir)
}

/// `merge --from URL --wait N`: as `--wait` on a folder, the clients' files fetched from the
/// database they were left in (`run --out URL`) once a second; what was merged is deleted
/// there after (hakari's table too, once empty). The merged result goes to `output` (default:
/// the folder `results`).
pub fn merge_from(url: &str, n: usize, output: Option<PathBuf>) -> Result<i32> {
    use crate::results_table as database;
    crate::run::warn_of_password("--from", url);
    database::check(url)?;
    let folder = tempfile::Builder::new().prefix("hakari-merge-").tempdir()?;
    eprintln!(
        "waiting for {n} clients' results in {} (table {})",
        crate::results::redact::redact(url),
        database::TABLE
    );
    let mut fetched = Vec::new();
    let mut last: Option<std::time::Instant> = None;
    let files = wait_for_clients(folder.path(), n, || {
        if last.is_none_or(|t| t.elapsed() >= std::time::Duration::from_secs(1)) {
            last = Some(std::time::Instant::now());
            fetched = database::fetch(url, folder.path())?;
        }
        Ok(())
    })?;
    let results = Path::new("results");
    std::fs::create_dir_all(results).context("cannot make the folder results")?;
    let code = merge_into(&files, &[], output, results)?;
    let merged: Vec<String> = (files.iter())
        .flat_map(|f| [f.clone(), f.with_extension("hlog")])
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .filter(|name| fetched.contains(name))
        .collect();
    database::remove(url, &merged)?;
    eprintln!(
        "deleted the {} files merged from {}",
        merged.len(),
        database::TABLE
    );
    Ok(code)
}

/// Waits (printing each arrival) until `n` clients' complete results are in `dir`, calling
/// `refresh` before each look; returns their files.
fn wait_for_clients(
    dir: &Path,
    n: usize,
    mut refresh: impl FnMut() -> Result<()>,
) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut seen = 0;
    crate::shard::wait_for_others(&format!("{n} clients' complete results"), || {
        refresh()?;
        files = clients_done(dir, n)?;
        if files.len() > seen {
            seen = files.len();
            eprintln!("  {seen} of {n} complete");
        }
        Ok(files.len() == n)
    })?;
    Ok(files)
}

/// The complete results of a run of `n` clients in `dir`, one per shard; an error for a client
/// that ended otherwise, or for two results of one shard (two runs in one folder).
fn clients_done(dir: &Path, n: usize) -> Result<Vec<PathBuf>> {
    let mut by_shard: std::collections::BTreeMap<usize, PathBuf> = Default::default();
    for path in store::expand(&[dir.to_path_buf()])? {
        let Ok(r) = store::read(&path) else {
            continue; // being written
        };
        let Some(shard) = r.shard.filter(|s| s.count == n && r.merged_from.is_empty()) else {
            continue;
        };
        if r.abandoned() == Some(true) || matches!(r.status.as_str(), "failed" | "interrupted") {
            anyhow::bail!(
                "client {shard} ({}) ended {}: {}",
                path.display(),
                if r.abandoned() == Some(true) {
                    "abandoned"
                } else {
                    &r.status
                },
                match r.errors.first() {
                    Some(e) => e.as_str(),
                    None => "its process ended without finishing",
                }
            );
        }
        if r.status != "complete" {
            continue;
        }
        if let Some(other) = by_shard.insert(shard.index, path.clone()) {
            anyhow::bail!(
                "two results of client {shard} in {}: {} and {}; give the files to merge",
                dir.display(),
                other.display(),
                path.display()
            );
        }
    }
    Ok(by_shard.into_values().collect())
}

pub fn show(file: &Path, format: Format) -> Result<i32> {
    let r = store::read(file)?;
    if r.abandoned() == Some(true) {
        eprintln!(
            "hakari: {}: the run's process ended without finishing (killed before it could say \
             so); its figures are those of the configurations it finished",
            file.display()
        );
    }
    match format {
        Format::Table => out!(
            "{}",
            report::terminal::render(&r, crate::workloads::view(&r.workload))
        ),
        _ => out!(
            "{}",
            report::rows::measurements(std::slice::from_ref(&r)).render(format)?
        ),
    }
    Ok(0)
}

pub fn export(paths: &[PathBuf], format: ExportFormat, output: Option<PathBuf>) -> Result<i32> {
    let mut runs = Vec::new();
    for l in report::html::load(paths)? {
        match l.run {
            Ok(r) => runs.push(r),
            Err(e) => eprintln!("hakari: warning: left out of the export: {e}"),
        }
    }
    if runs.is_empty() {
        anyhow::bail!("no result file to export in {}", describe_paths(paths));
    }
    let text = match format {
        ExportFormat::Csv => report::rows::measurements(&runs).render(Format::Csv)?,
        ExportFormat::Json => report::rows::measurements(&runs).render(Format::Json)?,
        ExportFormat::Openmetrics => report::openmetrics::render(&runs),
    };
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

pub fn completions(shell: clap_complete::Shell, mut cli: clap::Command) -> Result<i32> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cli, "hakari", &mut script);
    out!("{}", String::from_utf8_lossy(&script));
    Ok(0)
}

/// The man page of hakari, or with `dir` one page per command (hakari-run-kv.1, ...).
pub fn man(cmd: clap::Command, dir: Option<PathBuf>) -> Result<i32> {
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

/// What `hakari crashtest` was asked.
pub struct CrashOptions {
    pub engines: String,
    pub durability: String,
    pub rounds: usize,
    pub seed: Option<u64>,
    pub out: PathBuf,
    pub data_dir: Option<PathBuf>,
    pub power_loss: bool,
    /// `--url` was given: refused, the crash test kills the server it tests.
    pub url_given: bool,
    /// `--replicas`/`--replica-ack`: a primary with standbys, killed and failed over.
    pub topologies: Vec<crate::server::topology::Topology>,
}

/// `hakari crashtest`: checks the request, runs the rounds, writes the result file and prints the
/// verdicts. A broken promise is a finding, not a failure of hakari: exit 3 so scripts can tell.
pub fn crashtest(options: CrashOptions) -> Result<i32> {
    if options.url_given {
        bail!("the crash test takes no --url: it kills the server it tests, so it tests only private servers hakari starts itself (leave --url out)");
    }
    let engines = crashtest::parse_engines(&options.engines)?;
    let levels = Durability::parse_list(&options.durability)?;
    if options.rounds == 0 {
        bail!("--rounds must be at least 1");
    }
    let crash = if options.power_loss {
        CrashKind::PowerLoss
    } else {
        CrashKind::Process
    };
    if crash == CrashKind::PowerLoss && !options.topologies.is_empty() {
        return Err(anyhow::Error::new(crate::errors::Usage(
            "--power-loss and --replicas do not combine: with standbys the crash test kills the primary".into(),
        )));
    }
    crashtest::check(&engines, &levels, crash)?;
    if crash == CrashKind::PowerLoss {
        if let Some(why) = crashtest::powerloss::unavailable() {
            bail!("power-loss test needs FUSE: {why}");
        }
    }
    let mut ctx = RunContext::new(ContextOptions {
        workload: crashtest::NAME,
        preset: None,
        seed: options.seed,
        out_dir: &options.out,
        data_dir: options.data_dir.as_deref(),
        urls: &[],
        dialect: None,
        parameters: serde_json::json!({
            "rounds": options.rounds,
            "crash": match options.topologies.first() {
                None => crash.label(),
                Some(&t) => crashtest::crash_of(t)?.0,
            },
        }),
        timing: Default::default(),
        hlog: None,
        phases: Default::default(),
    })?;
    crate::signals::install();
    let outcome = crashtest::run(
        &engines,
        &levels,
        options.rounds,
        crash,
        &options.topologies,
        &mut ctx,
    );
    let status = if outcome.is_ok() {
        "complete"
    } else {
        "failed"
    };
    let written = ctx
        .recorder
        .finish(status, outcome.as_ref().err().map(crate::errors::sentence))?;
    out!(
        "{}",
        report::terminal::render(ctx.recorder.result(), crashtest::VIEW)
    );
    if let Some(p) = written {
        outln!("results: {}", p.display());
    }
    Ok(if outcome? > 0 { EXIT_BROKEN_PROMISE } else { 0 })
}
