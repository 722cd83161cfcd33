//! The crash test: does an engine keep the promise its durability level makes (DESIGN.md
//! section 3)? A committer commits numbered transactions and acknowledges each number only after
//! its commit returned; at a moment drawn from the seed it is crashed, the database is recovered
//! the engine's own way, and the test counts acknowledged commits that are missing, and
//! corruption (a database that will not recover or read back, or a hole in the numbers).
//!
//! One round, two kinds of subject: an embedded key-value engine is committed to by a child
//! process (`hakari crash-child`), which is killed with SIGKILL (or, with a power loss, killed
//! and its unsynced writes dropped) and the database reopened; a server (PostgreSQL, MariaDB) is
//! hakari's private server, committed to by a client thread, killed with its whole process tree
//! and restarted on the same data directory.

pub mod powerloss;

use crate::durability::Durability;
use crate::engine::kv::{KvEngine, KvOptions};
use crate::engine::sql::{SqlEngine, SqlOptions, SqlValue};
use crate::results::{EngineRecord, Measurement, RunFigure};
use crate::server::{Launched, PrivateServer};
use crate::workload::RunContext;
use anyhow::{anyhow, bail, Context, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How the committer is crashed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrashKind {
    /// The process (an embedded engine's child, or a server's whole process tree) is killed with
    /// SIGKILL; the OS (page cache) survives.
    Process,
    /// The process is killed and the power cut: the database lives on the FUSE layer of
    /// [`powerloss`], which drops every write that was not fsync'd.
    PowerLoss,
}

impl CrashKind {
    /// What results and reports record as `crash`.
    pub fn label(self) -> &'static str {
        match self {
            CrashKind::Process => "process (SIGKILL)",
            CrashKind::PowerLoss => powerloss::CRASH_LABEL,
        }
    }

    /// Whether `level` promises that acknowledged commits survive this crash.
    pub fn promised(self, level: Durability) -> bool {
        let p = level.promise();
        match self {
            CrashKind::Process => p.survives_process_crash,
            CrashKind::PowerLoss => p.survives_power_loss,
        }
    }
}

/// What a level's promise makes of what a round found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Kept,
    AllowedLoss,
    Broken,
}

impl Verdict {
    pub fn judge(level: Durability, crash: CrashKind, lost: u64, corruptions: u64) -> Verdict {
        let promised = crash.promised(level);
        match (lost + corruptions > 0, promised) {
            (false, _) => Verdict::Kept,
            (true, false) => Verdict::AllowedLoss,
            (true, true) => Verdict::Broken,
        }
    }

    pub fn text(self) -> &'static str {
        match self {
            Verdict::Kept => "kept",
            Verdict::AllowedLoss => "lost acknowledged commits (allowed at this level)",
            Verdict::Broken => "BROKEN PROMISE",
        }
    }
}

/// One round's findings.
#[derive(Clone, Copy, Debug, Default)]
pub struct Round {
    pub acknowledged: u64,
    pub lost: u64,
    pub corrupt: bool,
    pub alive_secs: f64,
}

/// An engine the crash test takes: an embedded key-value engine, or a SQL engine with a private
/// server hakari starts (and may therefore kill).
#[derive(Clone, Copy)]
pub enum Target {
    Kv(&'static dyn KvEngine),
    Server(&'static dyn SqlEngine, &'static dyn PrivateServer),
}

impl Target {
    /// Every engine the crash test takes, key-value engines first.
    pub fn all() -> Vec<Target> {
        let kv = crate::engine::kv_engines()
            .into_iter()
            .filter(|e| e.keeps_data())
            .map(Target::Kv);
        let servers = crate::engine::sql_engines()
            .into_iter()
            .filter_map(|e| e.private_server().map(|s| Target::Server(e, s)));
        kv.chain(servers).collect()
    }

    /// Parses `--engine a,b`: a key-value engine by that name, else a server engine.
    pub fn parse_list(list: &str) -> Result<Vec<Target>> {
        let all = Target::all();
        let mut out: Vec<Target> = Vec::new();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let wanted = name.to_ascii_lowercase();
            let Some(t) = all.iter().find(|t| t.name() == wanted) else {
                bail!(
                    "the crash test does not take engine '{name}'; it takes {}",
                    families()
                );
            };
            if !out.iter().any(|o| o.name() == t.name()) {
                out.push(*t);
            }
        }
        if out.is_empty() {
            bail!("no engine named; the crash test takes {}", families());
        }
        Ok(out)
    }

    pub fn name(&self) -> &'static str {
        match self {
            Target::Kv(e) => e.name(),
            Target::Server(e, _) => e.name(),
        }
    }

    pub fn is_server(&self) -> bool {
        matches!(self, Target::Server(..))
    }

    fn mapping(&self, level: Durability) -> std::result::Result<String, String> {
        match self {
            Target::Kv(e) => e.mapping(level),
            Target::Server(e, _) => e.mapping(level),
        }
    }

    /// Refuses a level the engine does not offer, naming what it does.
    pub fn check(&self, level: Durability) -> Result<()> {
        match self {
            Target::Kv(e) => crate::engine::kv::check_combination(*e, level, 1),
            Target::Server(e, _) => crate::engine::sql::check_combination(*e, level),
        }
    }
}

fn names(targets: impl Iterator<Item = Target>) -> String {
    targets.map(|t| t.name()).collect::<Vec<_>>().join(", ")
}

/// Which engines take which crash, for messages.
pub fn families() -> String {
    format!(
        "a power loss (--power-loss): the embedded key-value engines ({}); a process crash: those and the servers hakari starts privately ({})",
        names(Target::all().into_iter().filter(|t| !t.is_server())),
        names(Target::all().into_iter().filter(|t| t.is_server())),
    )
}

/// One engine in one round, as the general [`round`] drives it.
trait Subject {
    /// Starts committing 1, 2, 3, ...
    fn start(&mut self) -> Result<()>;
    /// The highest number acknowledged so far (its commit returned).
    fn acknowledged(&self) -> u64;
    /// Why the committer stopped, if it stopped (before the crash, that is a failure).
    fn stopped(&mut self) -> Result<Option<String>>;
    /// The crash. Afterwards `acknowledged` no longer changes.
    fn crash(&mut self) -> Result<()>;
    /// Recovery the engine's own way, and the numbers present afterwards, in any order.
    fn recover(&mut self) -> Result<Vec<u64>>;
}

/// One round: let the subject commit, crash it at a moment drawn from `rng`, recover and count.
fn round(subject: &mut dyn Subject, rng: &mut ChaCha8Rng) -> Result<Round> {
    let started = Instant::now();
    subject.start()?;
    while subject.acknowledged() < 100 {
        if let Some(why) = subject.stopped()? {
            bail!("the crash-test committer stopped before committing: {why}");
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = subject.crash();
            bail!("the crash-test committer committed nothing in 60 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(rng.random_range(20..400)));
    subject.crash()?;
    let alive_secs = started.elapsed().as_secs_f64();
    let acknowledged = subject.acknowledged();
    let found = subject
        .recover()
        .and_then(|present| lost_of(present, acknowledged));
    Ok(match found {
        Ok(lost) => Round {
            acknowledged,
            lost,
            corrupt: false,
            alive_secs,
        },
        Err(e) => {
            eprintln!("  recovery failed (counted as corruption): {e:#}");
            Round {
                acknowledged,
                lost: acknowledged,
                corrupt: true,
                alive_secs,
            }
        }
    })
}

/// Acknowledged commits missing from `present`. Commits are numbered in order, so a consistent
/// database holds a prefix 1..=k: losing the newest commits may be allowed, but a hole (n
/// missing, a later one present) is corruption.
fn lost_of(mut present: Vec<u64>, acknowledged: u64) -> Result<u64> {
    present.sort_unstable();
    if present.iter().enumerate().any(|(i, k)| *k != i as u64 + 1) {
        bail!("commits are missing below the newest one present (a hole, not a lost tail)");
    }
    let highest = present.last().copied().unwrap_or(0);
    Ok(acknowledged.saturating_sub(highest))
}

const VALUE_SIZE: usize = 32;

fn key(n: u64) -> [u8; 8] {
    n.to_be_bytes()
}

fn options(dir: &Path, level: Durability) -> KvOptions {
    KvOptions {
        dir: dir.to_path_buf(),
        durability: level,
        threads: 1,
        key_size: 8,
        value_size: VALUE_SIZE,
        cache_bytes: 0,
        page_size: 0,
        log_buffer_bytes: 0,
        bulk_buffer_bytes: 0,
        expected_records: 1_000_000,
        url: None,
    }
}

/// The child: commits transactions 1, 2, 3, ... until killed, acknowledging each number on
/// `ack` (a plain write: the page cache survives the process, which is all a process crash needs).
pub fn child(engine: &dyn KvEngine, level: Durability, dir: &Path, ack: &Path) -> Result<()> {
    let store = engine.open(&options(dir, level))?;
    let mut session = store.session()?;
    let mut acks = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(ack)?;
    let value = [7u8; VALUE_SIZE];
    for n in 1u64.. {
        session.begin(true)?;
        session.put(&key(n), &value)?;
        session.commit()?;
        acks.write_all(&n.to_le_bytes())?;
    }
    Ok(())
}

/// The highest number the child acknowledged (acks are appended in order).
fn acknowledged(ack: &Path) -> u64 {
    let bytes = std::fs::read(ack).unwrap_or_default();
    let whole = bytes.len() / 8 * 8;
    if whole == 0 {
        return 0;
    }
    u64::from_le_bytes(bytes[whole - 8..whole].try_into().unwrap())
}

/// An embedded key-value engine: a child process commits; it is killed, the database reopened.
struct KvSubject {
    engine: &'static dyn KvEngine,
    level: Durability,
    ack: PathBuf,
    /// Where the child works, and where the database is reopened from (for a power loss: the
    /// FUSE mount, and its backing directory, i.e. exactly what was synced).
    data: PathBuf,
    reopen: PathBuf,
    fs: Option<powerloss::PowerLossFs>,
    child: Option<Child>,
}

impl KvSubject {
    fn new(
        engine: &'static dyn KvEngine,
        level: Durability,
        crash: CrashKind,
        dir: &Path,
    ) -> Result<KvSubject> {
        let (fs, data, reopen) = match crash {
            CrashKind::Process => (None, dir.join("db"), dir.join("db")),
            CrashKind::PowerLoss => {
                let (backing, mnt) = (dir.join("backing"), dir.join("mnt"));
                std::fs::create_dir_all(&backing)?;
                std::fs::create_dir_all(&mnt)?;
                let fs = powerloss::PowerLossFs::mount(&backing, &mnt)
                    .map_err(|e| anyhow!("power-loss test needs FUSE: {e:#}"))?;
                (Some(fs), mnt.join("db"), backing.join("db"))
            }
        };
        std::fs::create_dir_all(&data)?;
        Ok(KvSubject {
            engine,
            level,
            ack: dir.join("acks"),
            data,
            reopen,
            fs,
            child: None,
        })
    }
}

impl Subject for KvSubject {
    fn start(&mut self) -> Result<()> {
        let child = Command::new(std::env::current_exe()?)
            .args([
                "crash-child",
                "--engine",
                self.engine.name(),
                "--durability",
                self.level.name(),
            ])
            .arg("--dir")
            .arg(&self.data)
            .arg("--ack")
            .arg(&self.ack)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot start the crash-test child")?;
        self.child = Some(child);
        Ok(())
    }

    fn acknowledged(&self) -> u64 {
        acknowledged(&self.ack)
    }

    fn stopped(&mut self) -> Result<Option<String>> {
        let Some(child) = self.child.as_mut() else {
            return Ok(Some("not started".into()));
        };
        let Some(status) = child.try_wait()? else {
            return Ok(None);
        };
        let mut err = String::new();
        use std::io::Read;
        child.stderr.take().map(|mut e| e.read_to_string(&mut err));
        Ok(Some(format!("the child exited ({status}): {}", err.trim())))
    }

    fn crash(&mut self) -> Result<()> {
        if let Some(mut child) = self.child.take() {
            // SAFETY: signalling our own child.
            unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
            child.wait()?;
        }
        if let Some(fs) = self.fs.take() {
            fs.cut()
                .context("the power cut (unmounting the FUSE layer) failed")?;
        }
        Ok(())
    }

    fn recover(&mut self) -> Result<Vec<u64>> {
        let store = self.engine.open(&options(&self.reopen, self.level))?;
        let mut present: Vec<u64> = Vec::new();
        {
            let mut s = store.session()?;
            let n = s.scan(&mut |k, _| {
                present.push(u64::from_be_bytes(k.try_into().unwrap_or([0; 8])));
            })?;
            if n != present.len() as u64 {
                bail!("the scan counted {n} records but visited {}", present.len());
            }
        }
        store.close()?;
        Ok(present)
    }
}

impl Drop for KvSubject {
    fn drop(&mut self) {
        // A round that failed before its crash leaves no child committing.
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The table a server's committer owns.
const TABLE: &str = "hakari_crash";

/// A server: hakari's private server on a copy of an initialized data directory; a client
/// thread commits over its own connection; the server's process tree is killed and the server
/// started again on the same directory.
struct ServerSubject {
    engine: &'static dyn SqlEngine,
    server: &'static dyn PrivateServer,
    level: Durability,
    dir: PathBuf,
    owner_root: PathBuf,
    running: Option<Launched>,
    acked: Arc<AtomicU64>,
    committer: Option<JoinHandle<Result<()>>>,
    /// The server's version, as it reported it.
    version: Option<String>,
}

impl ServerSubject {
    /// Opens the engine on the running server, as on a server given by `--url`.
    fn open(&self) -> Result<Box<dyn crate::engine::SqlDatabase>> {
        let Some(running) = &self.running else {
            bail!("the private server is not running");
        };
        self.engine.open(&SqlOptions {
            dir: self.dir.clone(),
            durability: self.level,
            url: Some(running.url.clone()),
            clients: 1,
            cache_bytes: 0,
        })
    }
}

impl Subject for ServerSubject {
    fn start(&mut self) -> Result<()> {
        self.running = Some(
            self.server
                .launch(&self.dir, self.level, &self.owner_root)?,
        );
        let db = self.open()?;
        self.version = Some(db.version());
        let acked = self.acked.clone();
        self.committer = Some(std::thread::spawn(move || -> Result<()> {
            let mut c = db.connect()?;
            c.execute(&format!("CREATE TABLE {TABLE} (n BIGINT PRIMARY KEY)"))?;
            let insert = c.prepare(&format!("INSERT INTO {TABLE} (n) VALUES (?)"))?;
            for n in 1u64.. {
                c.begin()?;
                c.exec_prepared(insert, &[SqlValue::Int(n as i64)])?;
                c.commit()?;
                acked.store(n, Ordering::SeqCst);
            }
            Ok(())
        }));
        Ok(())
    }

    fn acknowledged(&self) -> u64 {
        self.acked.load(Ordering::SeqCst)
    }

    fn stopped(&mut self) -> Result<Option<String>> {
        if !self.committer.as_ref().is_some_and(|c| c.is_finished()) {
            return Ok(None);
        }
        Ok(Some(match self.committer.take().map(|c| c.join()) {
            Some(Ok(Err(e))) => format!("{e:#}"),
            Some(Err(_)) => "the client thread panicked".into(),
            _ => "the client stopped".into(),
        }))
    }

    fn crash(&mut self) -> Result<()> {
        if let Some(running) = self.running.as_mut() {
            running.process.crash()?;
        }
        self.running = None;
        // The client's connection breaks; a commit whose reply was already on its way still
        // counts as acknowledged (the server said it was committed).
        if let Some(c) = self.committer.take() {
            let start = Instant::now();
            while !c.is_finished() && start.elapsed() < Duration::from_secs(30) {
                std::thread::sleep(Duration::from_millis(5));
            }
            if c.is_finished() {
                let _ = c.join();
            }
        }
        Ok(())
    }

    fn recover(&mut self) -> Result<Vec<u64>> {
        self.running = Some(
            self.server
                .launch(&self.dir, self.level, &self.owner_root)
                .context("the server did not start again after the crash")?,
        );
        let db = self.open()?;
        let rows = db.connect()?.query(&format!("SELECT n FROM {TABLE}"))?;
        let present = rows
            .iter()
            .map(|r| match r.first() {
                Some(SqlValue::Int(n)) if *n > 0 => Ok(*n as u64),
                other => Err(anyhow!("{TABLE} holds {other:?}, not a commit number")),
            })
            .collect::<Result<Vec<u64>>>()?;
        drop(db);
        if let Some(mut running) = self.running.take() {
            running.process.stop();
        }
        Ok(present)
    }
}

/// Refuses what the crash test cannot do: a level an engine does not offer, a power loss under
/// a server (its files are not on hakari's FUSE layer; its crash test kills its process tree).
pub fn check(targets: &[Target], levels: &[Durability], crash: CrashKind) -> Result<()> {
    for t in targets {
        if crash == CrashKind::PowerLoss && t.is_server() {
            bail!(
                "--power-loss does not take engine '{}' (a server: its crash test kills its private server's processes instead). The crash test takes {}",
                t.name(),
                families()
            );
        }
        for &level in levels {
            t.check(level)?;
        }
    }
    Ok(())
}

/// Runs `rounds` rounds per engine x level and records one measurement per pair.
pub fn run(
    targets: &[Target],
    levels: &[Durability],
    rounds: usize,
    crash: CrashKind,
    ctx: &mut RunContext,
) -> Result<()> {
    check(targets, levels, crash)?;
    let mut rng = ChaCha8Rng::seed_from_u64(ctx.seed);
    for &target in targets {
        // A server's data directory is initialized once per engine and copied for each round.
        let template = match target {
            Target::Kv(_) => None,
            Target::Server(e, server) => {
                eprintln!("crash test: initializing a {} data directory", e.name());
                let dir = ctx.fresh_dir(&format!("crash-{}-initialized", e.name()))?;
                server
                    .init(&dir, ctx.data_root())
                    .with_context(|| format!("cannot initialize a private {} server", e.name()))?;
                Some(dir)
            }
        };
        for &level in levels {
            eprintln!(
                "crash test: {} {level}, {rounds} round(s), crash: {}",
                target.name(),
                crash.label()
            );
            let mut found = Vec::new();
            let mut version = None;
            for r in 0..rounds {
                let dir = ctx.fresh_dir(&format!("crash-{}-{level}-{r}", target.name()))?;
                let outcome = match (target, &template) {
                    (Target::Server(engine, server), Some(template)) => {
                        crate::server::copy_dir(template, &dir)?;
                        let mut s = ServerSubject {
                            engine,
                            server,
                            level,
                            dir: dir.clone(),
                            owner_root: ctx.data_root().to_path_buf(),
                            running: None,
                            acked: Arc::default(),
                            committer: None,
                            version: None,
                        };
                        let outcome = round(&mut s, &mut rng);
                        version = s.version.take().or(version);
                        outcome
                    }
                    (Target::Kv(engine), _) => {
                        round(&mut KvSubject::new(engine, level, crash, &dir)?, &mut rng)
                    }
                    (Target::Server(..), None) => unreachable!("a server has a template"),
                };
                found.push(outcome?);
                std::fs::remove_dir_all(&dir).ok();
            }
            let mut settings = BTreeMap::new();
            if target.is_server() {
                settings.insert(
                    "server".into(),
                    "private (started by hakari; its process tree killed with SIGKILL and restarted each round)".into(),
                );
            }
            ctx.recorder.engine(EngineRecord {
                engine: target.name().into(),
                version: match target {
                    Target::Kv(e) => e.version(),
                    Target::Server(..) => version.unwrap_or_else(|| "unknown".into()),
                },
                durability: level.name().into(),
                durability_mapping: target.mapping(level).unwrap_or_default(),
                settings,
            });
            ctx.recorder
                .measurement(summarize(target.name(), level, crash, &found))?;
        }
        if let Some(template) = template {
            std::fs::remove_dir_all(&template).ok();
        }
    }
    Ok(())
}

fn summarize(engine: &str, level: Durability, crash: CrashKind, rounds: &[Round]) -> Measurement {
    let lost_total: u64 = rounds.iter().map(|r| r.lost).sum();
    let lost_max = rounds.iter().map(|r| r.lost).max().unwrap_or(0);
    let corruptions = rounds.iter().filter(|r| r.corrupt).count() as u64;
    let verdict = Verdict::judge(level, crash, lost_total, corruptions);
    let runs: Vec<RunFigure> = rounds
        .iter()
        .map(|r| RunFigure {
            ops: r.acknowledged,
            seconds: r.alive_secs,
            ops_per_sec: r.acknowledged as f64 / r.alive_secs,
        })
        .collect();
    let rates =
        crate::measure::stats::Summary::of(&runs.iter().map(|r| r.ops_per_sec).collect::<Vec<_>>());
    let mut config = BTreeMap::new();
    config.insert("rounds".into(), rounds.len().into());
    config.insert(
        "acknowledged".into(),
        rounds.iter().map(|r| r.acknowledged).sum::<u64>().into(),
    );
    config.insert("lost_total".into(), lost_total.into());
    config.insert("lost_max".into(), lost_max.into());
    config.insert("corruptions".into(), corruptions.into());
    config.insert("verdict".into(), verdict.text().into());
    config.insert("crash".into(), crash.label().into());
    Measurement {
        workload: "crashtest".into(),
        engine: engine.into(),
        durability: level.name().into(),
        threads: 1,
        step: "crash".into(),
        config,
        runs,
        ops_per_sec_mean: rates.mean,
        ops_per_sec_stddev: rates.stddev,
        ops_per_sec_min: rates.min,
        ops_per_sec_max: rates.max,
        seconds_mean: 0.0,
        seconds_stddev: 0.0,
        latency: None,
        retries: 0,
    }
}

/// The verdict table printed after a crash test.
pub fn render(result: &crate::results::RunResult) -> String {
    let crash = |c: Option<&serde_json::Value>| c.and_then(|v| v.as_str()).map(String::from);
    let crashes: Vec<String> = crash(result.parameters.get("crash"))
        .into_iter()
        .chain(
            result
                .measurements
                .iter()
                .filter_map(|m| crash(m.config.get("crash"))),
        )
        .collect();
    let title = if !crashes.is_empty() && crashes.iter().all(|c| c.starts_with("power loss")) {
        "Crash test (power cut while committing: unsynced writes dropped, reopened with recovery)"
    } else {
        "Crash test (process killed with SIGKILL while committing, a server with its whole process tree; reopened or restarted with recovery)"
    };
    let mut t = crate::report::table::Table::new(
        title,
        [
            "engine",
            "durability",
            "crash",
            "verdict",
            "rounds",
            "acknowledged",
            "lost (total)",
            "lost (max)",
            "corruptions",
        ]
        .map(String::from)
        .to_vec(),
        4,
    );
    for m in &result.measurements {
        let get = |k: &str| {
            m.config
                .get(k)
                .map(|v| v.to_string().trim_matches('"').to_string())
                .unwrap_or_default()
        };
        t.row(vec![
            m.engine.clone(),
            m.durability.clone(),
            get("crash"),
            get("verdict"),
            get("rounds"),
            get("acknowledged"),
            get("lost_total"),
            get("lost_max"),
            get("corruptions"),
        ]);
    }
    t.render()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_tail_is_counted_and_a_hole_is_corruption() {
        assert_eq!(lost_of(vec![3, 1, 2], 5).unwrap(), 2);
        assert_eq!(lost_of(vec![], 4).unwrap(), 4);
        assert_eq!(lost_of(vec![1, 2, 3], 3).unwrap(), 0);
        assert!(lost_of(vec![1, 3], 3).is_err());
        assert!(lost_of(vec![1, 1, 2], 3).is_err());
    }

    #[test]
    fn engines_are_parsed_into_their_families() {
        let Ok(t) = Target::parse_list("sqlite, postgres,mysql,sqlite") else {
            panic!("the list parses")
        };
        let names: Vec<&str> = t.iter().map(|t| t.name()).collect();
        assert_eq!(names, ["sqlite", "postgres", "mysql"]);
        assert!(!t[0].is_server() && t[1].is_server() && t[2].is_server());
        let err = Target::parse_list("redis").err().unwrap().to_string();
        assert!(err.contains("bdb") && err.contains("postgres"), "{err}");
        assert!(Target::parse_list("null").is_err(), "null keeps nothing");
    }

    #[test]
    fn verdicts_follow_the_promise() {
        assert_eq!(
            Verdict::judge(Durability::Sync, CrashKind::Process, 0, 0),
            Verdict::Kept
        );
        assert_eq!(
            Verdict::judge(Durability::Sync, CrashKind::Process, 1, 0),
            Verdict::Broken
        );
        assert_eq!(
            Verdict::judge(Durability::WriteNosync, CrashKind::Process, 3, 0),
            Verdict::Broken
        );
        assert_eq!(
            Verdict::judge(Durability::Nosync, CrashKind::Process, 3, 0),
            Verdict::AllowedLoss
        );
        assert_eq!(
            Verdict::judge(Durability::InMemory, CrashKind::Process, 0, 1),
            Verdict::AllowedLoss
        );
        assert_eq!(
            Verdict::judge(Durability::Nosync, CrashKind::Process, 0, 0),
            Verdict::Kept
        );
        // A power loss holds write-nosync to nothing, sync to everything.
        assert_eq!(
            Verdict::judge(Durability::WriteNosync, CrashKind::PowerLoss, 3, 0),
            Verdict::AllowedLoss
        );
        assert_eq!(
            Verdict::judge(Durability::Sync, CrashKind::PowerLoss, 1, 0),
            Verdict::Broken
        );
        assert_eq!(
            Verdict::judge(Durability::Sync, CrashKind::PowerLoss, 0, 0),
            Verdict::Kept
        );
    }
}
