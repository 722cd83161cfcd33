//! The two kinds of crash subject, and the round that drives either: an embedded key-value
//! engine committed to by a child process that is killed, and a private server committed to by a
//! client thread, whose process tree is killed.

use super::{powerloss, CrashKind, Round};
use crate::durability::Durability;
use crate::engine::kv::{KvEngine, KvOptions};
use crate::engine::sql::{SqlEngine, SqlOptions, SqlValue};
use crate::engine::Named;
use crate::server::topology::Topology;
use crate::server::{Launched, PrivateServer, ServerOptions};
use crate::workload::sql::SqlFile;
use anyhow::{anyhow, bail, Context, Result};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One engine in one round, as the general [`round`] drives it.
pub(super) trait Subject {
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
pub(super) fn round(subject: &mut dyn Subject, rng: &mut ChaCha8Rng) -> Result<Round> {
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
pub(super) fn lost_of(mut present: Vec<u64>, acknowledged: u64) -> Result<u64> {
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
        value_size: VALUE_SIZE,
        expected_records: 1_000_000,
        ..KvOptions::at(dir, level)
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
pub(super) struct KvSubject {
    engine: Named<dyn KvEngine>,
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
    pub(super) fn new(
        engine: Named<dyn KvEngine>,
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

/// A client thread that commits 1, 2, 3, ... to a SQL database, each number acknowledged once
/// its commit returned.
#[derive(Default)]
pub(super) struct SqlCommitter {
    acked: Arc<AtomicU64>,
    thread: Option<JoinHandle<Result<()>>>,
}

impl SqlCommitter {
    /// Starts committing to `db`.
    pub(super) fn start(&mut self, db: Box<dyn crate::engine::SqlDatabase>) {
        let acked = self.acked.clone();
        self.thread = Some(std::thread::spawn(move || -> Result<()> {
            let mut c = db.connect()?;
            let sql = SqlFile::read(SQL, None, &[]);
            c.execute(sql.statement("create")?)?;
            let insert = c.prepare(sql.statement("insert")?)?;
            for n in 1u64.. {
                c.begin()?;
                c.exec_prepared(insert, &[SqlValue::Int(n as i64)])?;
                c.commit()?;
                acked.store(n, Ordering::SeqCst);
            }
            Ok(())
        }));
    }

    /// The highest number acknowledged so far.
    pub(super) fn acknowledged(&self) -> u64 {
        self.acked.load(Ordering::SeqCst)
    }

    /// Why the committer stopped, once it has.
    pub(super) fn stopped(&mut self) -> Option<String> {
        if !self.thread.as_ref().is_some_and(|c| c.is_finished()) {
            return None;
        }
        Some(match self.thread.take().map(|c| c.join()) {
            Some(Ok(Err(e))) => format!("{e:#}"),
            Some(Err(_)) => "the client thread panicked".into(),
            _ => "the client stopped".into(),
        })
    }

    /// After the crash: the client's connection breaks; a commit whose reply was already on
    /// its way still counts as acknowledged (the server said it was committed).
    pub(super) fn await_end(&mut self) {
        if let Some(c) = self.thread.take() {
            await_committer(c);
        }
    }
}

/// After the crash: waits up to 30 s for a committer thread whose connection broke to end.
pub(super) fn await_committer(thread: JoinHandle<Result<()>>) {
    let start = Instant::now();
    while !thread.is_finished() && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(5));
    }
    if thread.is_finished() {
        let _ = thread.join();
    }
}

/// The commit numbers `db` holds.
pub(super) fn committed(db: Box<dyn crate::engine::SqlDatabase>) -> Result<Vec<u64>> {
    let rows = db
        .connect()?
        .query(SqlFile::read(SQL, None, &[]).statement("select")?)?;
    rows.iter()
        .map(|r| match r.first() {
            Some(SqlValue::Int(n)) if *n > 0 => Ok(*n as u64),
            other => Err(anyhow!("{TABLE} holds {other:?}, not a commit number")),
        })
        .collect()
}

/// The table a server's committer owns.
const TABLE: &str = "hakari_crash";
/// Its statements.
const SQL: &str = include_str!("sql/commits.sql");

/// A server: a client thread commits over its own connection. A single server is hakari's
/// private server on a copy of an initialized data directory, its process tree killed and the
/// server started again on the same directory; a loopback cluster is started fresh, its
/// primary (or first node) killed and the commits looked for on the survivor
/// ([`super::failover`]).
pub(super) struct ServerSubject {
    engine: Named<dyn SqlEngine>,
    site: Site,
    running: Option<Launched>,
    committer: SqlCommitter,
    /// The server's version, as it reported it.
    pub(super) version: Option<String>,
}

/// Where a server subject runs: a private server at a durability level, as a topology, in a
/// directory under the owner's root.
pub(super) struct Site {
    pub server: &'static dyn PrivateServer,
    pub level: Durability,
    pub topology: Topology,
    pub dir: PathBuf,
    pub owner_root: PathBuf,
}

impl Site {
    /// A fresh server (or cluster) in the empty directory.
    pub(super) fn start(&self) -> Result<Launched> {
        let options = ServerOptions {
            topology: self.topology,
            ..ServerOptions::at(self.level)
        };
        self.server.start(&self.dir, &options, &self.owner_root)
    }

    /// The single server on the data directory already there.
    fn launch(&self) -> Result<Launched> {
        let options = ServerOptions::at(self.level);
        self.server.launch(&self.dir, &options, &self.owner_root)
    }
}

impl ServerSubject {
    /// A subject at `site`: for a single server, its directory is a copy of an initialized
    /// data directory; for a cluster, an empty one.
    pub(super) fn new(engine: Named<dyn SqlEngine>, site: Site) -> ServerSubject {
        ServerSubject {
            engine,
            site,
            running: None,
            committer: SqlCommitter::default(),
            version: None,
        }
    }

    /// Opens the engine at `url`, as on a server given by `--url`, its sessions acknowledging
    /// as `topology` says.
    fn open(&self, url: &str, topology: Topology) -> Result<Box<dyn crate::engine::SqlDatabase>> {
        self.engine.open(&SqlOptions {
            url: Some(url.to_string()),
            topology,
            ..SqlOptions::at(&self.site.dir, self.site.level)
        })
    }
}

impl Subject for ServerSubject {
    fn start(&mut self) -> Result<()> {
        let running = match self.site.topology {
            Topology::Single => self.site.launch()?,
            _ => self.site.start()?,
        };
        let db = self.open(&running.url, self.site.topology)?;
        self.running = Some(running);
        self.version = Some(db.version());
        self.committer.start(db);
        Ok(())
    }

    fn acknowledged(&self) -> u64 {
        self.committer.acknowledged()
    }

    fn stopped(&mut self) -> Result<Option<String>> {
        Ok(self.committer.stopped())
    }

    fn crash(&mut self) -> Result<()> {
        if let Some(running) = self.running.as_mut() {
            running.process.crash()?;
        }
        self.committer.await_end();
        Ok(())
    }

    fn recover(&mut self) -> Result<Vec<u64>> {
        let crashed = self.running.take().context("the server is not running")?;
        if self.site.topology != Topology::Single {
            let url = super::survivor::survivor(&crashed, self.site.topology)?;
            let present = committed(self.open(&url, Topology::Single)?);
            drop(crashed);
            return present;
        }
        drop(crashed);
        let mut running =
            (self.site.launch()).context("the server did not start again after the crash")?;
        let present = committed(self.open(&running.url, Topology::Single)?);
        running.process.stop();
        present
    }
}
