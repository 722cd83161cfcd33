//! Private, throw-away servers started from installed binaries: a temporary directory, a free
//! loopback port, the durability level's configuration, stopped (and removed) when dropped.
//! The crash test drives them through [`PrivateServer`]: a data directory initialized once and
//! copied, the server launched on it, killed hard ([`ServerProcess::crash`]) and launched again.

pub mod failover;
pub mod mariadb;
pub mod memcached;
pub mod partition;
pub mod postgres;
pub mod redis;
pub mod restart;
pub mod topology;

use crate::durability::Durability;
use crate::process::{descendants, state_of};
use anyhow::{bail, Context, Result};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// The first of `names` installed in the usual binary directories.
pub fn find(names: &[&str]) -> Option<PathBuf> {
    for dir in ["/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/sbin"] {
        for n in names {
            let p = Path::new(dir).join(n);
            if p.exists() {
                return Some(p);
            }
        }
    }
    None
}

/// How an engine reports where its server came from: hakari started it, or was given it.
pub fn origin(private: bool) -> &'static str {
    if private {
        "private (started by hakari)"
    } else {
        "given by --url"
    }
}

/// Runs a server's set-up tool (initdb, mariadb-install-db) to its end; when it fails, what it
/// wrote to stderr is the error.
pub fn run_tool(tool: &mut Command, name: &str) -> Result<()> {
    let out = tool
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()
        .with_context(|| format!("cannot run {name}"))?;
    if !out.status.success() {
        bail!(
            "{name} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// The version an installed server binary reports (`parse` picks it out of what `binary flag`
/// prints), or a note that it is not installed here.
pub fn installed_version(binary: &str, flag: &str, parse: fn(&str) -> Option<String>) -> String {
    find(&[binary])
        .and_then(|p| std::process::Command::new(p).arg(flag).output().ok())
        .and_then(|o| parse(&String::from_utf8_lossy(&o.stdout)))
        .unwrap_or_else(|| "server (not installed here)".into())
}

/// The server a run talks to: the user's at `url`, or else a private one `start` launches (the
/// caller keeps it for as long as the server is used).
pub fn given_or_started(
    url: &Option<String>,
    start: impl FnOnce() -> anyhow::Result<Launched>,
) -> anyhow::Result<(String, Option<Launched>)> {
    match url {
        Some(url) => Ok((url.clone(), None)),
        None => {
            let launched = start()?;
            Ok((launched.url.clone(), Some(launched)))
        }
    }
}

/// A free TCP port on the loopback interface.
pub fn free_port() -> Result<u16> {
    let l = TcpListener::bind("127.0.0.1:0").context("no free loopback port")?;
    Ok(l.local_addr()?.port())
}

/// An unprivileged system user to run a server as, when hakari runs as root (PostgreSQL
/// refuses root; MariaDB wants a user).
#[derive(Clone, Copy, Debug)]
pub struct RunAs {
    pub uid: u32,
    pub gid: u32,
}

/// The system user `name`, if hakari runs as root; None when it already runs unprivileged.
pub fn run_as(name: &str) -> Result<Option<RunAs>> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(None);
    }
    let cname = std::ffi::CString::new(name)?;
    // getpwnam_r, not getpwnam: getpwnam's answer is static storage that another thread's call
    // (a MariaDB started beside a PostgreSQL) overwrites, handing one server the other's user.
    // SAFETY: passwd is plain data, for which all zeros is a valid value.
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    let mut buffer = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: every pointer is to storage owned here, `buffer` with its true length.
    let code = unsafe {
        libc::getpwnam_r(
            cname.as_ptr(),
            &mut entry,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut found,
        )
    };
    if code != 0 || found.is_null() {
        bail!("running as root, a private server needs the system user '{name}' (installed with the server's package)");
    }
    let (uid, gid) = (entry.pw_uid, entry.pw_gid);
    Ok(Some(RunAs { uid, gid }))
}

/// Makes each of `paths` (owned by hakari) belong to the server's user, and lets that user
/// traverse the directories above them that hakari created. The directories above those are
/// the user's (a `--data-dir`, the temporary directory): left as they are, and refused in one
/// line when the server's user could not pass through them (else the server's own start fails
/// with a page of "Permission denied").
pub fn hand_over(paths: &[&Path], owner: Option<RunAs>, traverse_up_to: &Path) -> Result<()> {
    let Some(owner) = owner else { return Ok(()) };
    for path in paths {
        std::os::unix::fs::chown(path, Some(owner.uid), Some(owner.gid))
            .with_context(|| format!("cannot give {} to the server's user", path.display()))?;
        let mut p = path.parent();
        while let Some(parent) = p {
            let mode = std::fs::metadata(parent)?.permissions().mode();
            if mode & 0o001 == 0 {
                std::fs::set_permissions(parent, std::fs::Permissions::from_mode(mode | 0o011))?;
            }
            if parent == traverse_up_to {
                break;
            }
            p = parent.parent();
        }
    }
    // A relative path's ancestors end in "": the working directory, which the user chose.
    for above in (traverse_up_to.ancestors().skip(1)).filter(|p| !p.as_os_str().is_empty()) {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(above)?;
        let mode = meta.mode();
        let passes = mode & 0o001 != 0
            || (meta.uid() == owner.uid && mode & 0o100 != 0)
            || (meta.gid() == owner.gid && mode & 0o010 != 0);
        if !passes {
            bail!(
                "the server's user (uid {}) cannot reach {}: {} (mode {:o}) lets no other user through; give it search permission (chmod o+x {}) or choose another --data-dir",
                owner.uid,
                traverse_up_to.display(),
                above.display(),
                mode & 0o7777,
                above.display()
            );
        }
    }
    Ok(())
}

/// The programs [`command`] has started in this process, one entry per start in the order
/// started, for the test that every one is a program its server declares (a set would hide a
/// program an earlier server had started already).
static STARTED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// The programs [`command`] has started in this process, one entry per start, oldest first.
pub fn started_programs() -> Vec<String> {
    STARTED.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// A command for a server or its tools, as `owner` when given. It dies with hakari: the kernel
/// sends it SIGKILL when hakari's main thread ends, even by SIGKILL or the out-of-memory killer
/// (PR_SET_PDEATHSIG, set after the change of user, which would clear it).
pub fn command(program: &Path, owner: Option<RunAs>) -> Command {
    use std::os::unix::process::CommandExt;
    if let Some(name) = program.file_name() {
        let mut started = STARTED.lock().unwrap_or_else(|e| e.into_inner());
        started.push(name.to_string_lossy().into_owned());
    }
    let mut c = Command::new(program);
    if let Some(o) = owner {
        c.uid(o.uid).gid(o.gid);
    }
    // SAFETY: getpid before the fork; in the child only prctl(2) and getppid(2), which are
    // async-signal-safe, and an error made from a number (no allocation).
    let parent = unsafe { libc::getpid() };
    unsafe {
        c.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // hakari died between the fork and the prctl: nothing will send the signal.
            if libc::getppid() != parent {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        })
    };
    c
}

/// A running private server: stopped with `signal` (then SIGKILL) when dropped.
pub struct ServerProcess {
    pub name: &'static str,
    pub port: u16,
    pub dir: PathBuf,
    /// Shared with the restart registry (`restart.rs`), which swaps in a new process.
    child: std::sync::Arc<std::sync::Mutex<Option<Child>>>,
    stop_signal: i32,
}

impl ServerProcess {
    pub fn new(
        name: &'static str,
        port: u16,
        dir: PathBuf,
        child: Child,
        stop_signal: i32,
    ) -> Self {
        crate::owned::process_started(child.id() as i32);
        let server = ServerProcess {
            name,
            port,
            dir,
            child: std::sync::Arc::new(std::sync::Mutex::new(Some(child))),
            stop_signal,
        };
        server.reachable();
        server
    }

    /// Waits until `ready()` holds, failing early if the server exits; `log` is shown on failure.
    pub fn wait_ready(
        &mut self,
        timeout: Duration,
        log: &Path,
        mut ready: impl FnMut() -> bool,
    ) -> Result<()> {
        let start = Instant::now();
        while start.elapsed() < timeout {
            if ready() {
                return Ok(());
            }
            if let Some(child) = self.slot().as_mut() {
                if let Some(status) = child.try_wait()? {
                    let tail = std::fs::read_to_string(log).unwrap_or_default();
                    let tail: Vec<&str> = tail.lines().rev().take(5).collect();
                    bail!(
                        "the private {} server exited ({status}) before accepting connections: {}",
                        self.name,
                        tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
                    );
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        bail!(
            "the private {} server did not accept connections within {:?}",
            self.name,
            timeout
        )
    }

    /// A crash, not a shutdown: the server's process and every descendant (PostgreSQL's
    /// backends, WAL writer, ...) are stopped with SIGSTOP, so none runs on after another dies,
    /// then killed with SIGKILL. Nothing is cleaned up: the data directory is left as the crash
    /// left it, for the next launch to recover.
    pub fn crash(&mut self) -> Result<()> {
        crash(self.name, &self.child, |_| {})
    }

    /// Whether its process runs (a fault may have killed it).
    pub fn running(&self) -> bool {
        self.slot().is_some()
    }

    /// Its process, locked (a restart may be swapping it).
    fn slot(&self) -> std::sync::MutexGuard<'_, Option<Child>> {
        self.child.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn stop(&mut self) {
        let Some(mut child) = self.slot().take() else {
            return;
        };
        // SAFETY: signalling our own child process.
        unsafe { libc::kill(child.id() as i32, self.stop_signal) };
        let _unregistered = Unregister(child.id() as i32);
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(30) {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Crashes the server in `slot` (see [`ServerProcess::crash`]); `ended(pid)` is called with each
/// of its processes once it is stopped, before it is killed (while /proc still shows what it
/// spent).
fn crash(name: &str, slot: &std::sync::Mutex<Option<Child>>, ended: impl Fn(i32)) -> Result<()> {
    let Some(mut child) = slot.lock().unwrap_or_else(|e| e.into_inner()).take() else {
        bail!("the private {name} server is not running");
    };
    let leader = child.id() as i32;
    crate::owned::process_ended(leader);
    // Stopped first, the leader forks no new children while they are collected.
    // SAFETY: signalling our own child process.
    unsafe { libc::kill(leader, libc::SIGSTOP) };
    let mut frozen = vec![leader];
    loop {
        let new: Vec<i32> = descendants(leader)
            .into_iter()
            .filter(|p| !frozen.contains(p))
            .collect();
        if new.is_empty() {
            break;
        }
        for p in new {
            // SAFETY: a descendant of our own child, found in /proc just now.
            unsafe { libc::kill(p, libc::SIGSTOP) };
            frozen.push(p);
        }
    }
    wait_for(&frozen, |s| matches!(s, None | Some('T' | 't' | 'Z' | 'X')));
    for &p in &frozen {
        ended(p);
        // SAFETY: as above; SIGKILL also ends a stopped process.
        unsafe { libc::kill(p, libc::SIGKILL) };
    }
    child
        .wait()
        .with_context(|| format!("the killed {name} server"))?;
    // The orphans are reaped by init; until then they are zombies, which hold no files or
    // shared memory. A launch must not find one still running.
    if !wait_for(&frozen[1..], |s| matches!(s, None | Some('Z' | 'X'))) {
        bail!("processes of the killed {name} server are still running after 10 s");
    }
    Ok(())
}

/// Waits up to 10 s until every process in `pids` is in a state `done` accepts.
fn wait_for(pids: &[i32], done: impl Fn(Option<char>) -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if pids.iter().all(|&p| done(state_of(p))) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

/// What a private server is started with: the durability level it is configured for, and what
/// it must hold (cache, connections; memcached sizes its items and memory by the values).
#[derive(Clone, Debug)]
pub struct ServerOptions {
    pub level: Durability,
    /// Cache size in bytes (0: the server's default).
    pub cache_bytes: u64,
    /// Connections open at once.
    pub clients: usize,
    /// The largest value one item holds.
    pub value_bytes: u64,
    /// Items held at once, at most.
    pub records: u64,
    /// One server, or a loopback cluster.
    pub topology: topology::Topology,
    /// A certificate to serve TLS with (the TLS tests' servers); None: plaintext only.
    pub tls: Option<ServerTls>,
}

/// The PEM files a server offers TLS with, and whether it refuses plaintext.
#[derive(Clone, Debug)]
pub struct ServerTls {
    /// The certificate authority that signed `cert`.
    pub ca: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
    /// Refuse connections that are not encrypted.
    pub only: bool,
}

impl ServerTls {
    /// Copies the files into `dir` (the server's own, handed over to its user with the rest: a
    /// server reads its key only from a file it owns) and returns their new paths.
    pub fn copied_into(&self, dir: &Path) -> Result<ServerTls> {
        let copy = |from: &Path, name: &str| -> Result<PathBuf> {
            let to = dir.join(name);
            std::fs::copy(from, &to).with_context(|| format!("cannot copy {}", from.display()))?;
            std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o600))?;
            Ok(to)
        };
        Ok(ServerTls {
            ca: copy(&self.ca, "tls-ca.pem")?,
            cert: copy(&self.cert, "tls-server.pem")?,
            key: copy(&self.key, "tls-server.key")?,
            only: self.only,
        })
    }

    /// Gives the copied files to the server's user.
    pub fn hand_over(&self, owner: Option<RunAs>) -> Result<()> {
        if let Some(o) = owner {
            for f in [&self.ca, &self.cert, &self.key] {
                std::os::unix::fs::chown(f, Some(o.uid), Some(o.gid))?;
            }
        }
        Ok(())
    }
}

impl ServerOptions {
    /// A server at `level` with its defaults otherwise, for one client.
    pub fn at(level: Durability) -> ServerOptions {
        ServerOptions {
            level,
            cache_bytes: 0,
            clients: 1,
            value_bytes: 0,
            records: 0,
            topology: topology::Topology::Single,
            tls: None,
        }
    }
}

/// A private server: one that hakari starts from the installed binaries in a directory it owns.
/// Engines start one for a run with [`PrivateServer::start`]; the crash test initializes a data
/// directory once (initdb and mariadb-install-db are slow), copies it with [`copy_dir`] for each
/// round, launches the server on the copy and launches it again after the crash, recovering as it
/// normally does.
pub trait PrivateServer: Sync {
    /// Its name in messages ("PostgreSQL").
    fn name(&self) -> &'static str;
    /// The programs it starts through [`command`] (the name the kernel gives their processes):
    /// the only processes the sweep of a killed hakari's directories ends (`owned::sweep`).
    fn programs(&self) -> &'static [&'static str];
    /// Whether `--fault restart` can stop it and start it again as it was (its launch
    /// registers how: [`ServerProcess::restartable`]).
    fn restarts(&self) -> bool {
        false
    }
    /// Initializes a data directory in `dir` with hakari's database in it, leaving the server
    /// stopped cleanly; nothing for a server that keeps no data directory.
    fn init(&self, _dir: &Path, _owner_root: &Path) -> Result<()> {
        Ok(())
    }
    /// Starts the server on the data directory in `dir` (made by `init`, or a copy of one).
    fn launch(&self, dir: &Path, options: &ServerOptions, owner_root: &Path) -> Result<Launched>;
    /// A fresh server for a run, in `dir`: `init`, then `launch`.
    fn start(&self, dir: &Path, options: &ServerOptions, owner_root: &Path) -> Result<Launched> {
        self.init(dir, owner_root)?;
        self.launch(dir, options, owner_root)
    }
}

/// `init` for a server whose `start` makes its data directory and hakari's database in it:
/// started once, then shut down cleanly (dropping it stops it as its own shutdown does).
pub fn started_once(server: &dyn PrivateServer, dir: &Path, owner_root: &Path) -> Result<()> {
    server
        .start(dir, &ServerOptions::at(Durability::Sync), owner_root)
        .map(drop)
}

/// A server [`PrivateServer::launch`] started, and the URL its engine reaches it by (with `--url`
/// semantics: the engine works in hakari's database there).
pub struct Launched {
    pub process: ServerProcess,
    pub url: String,
    /// The other nodes of a loopback cluster (standbys, Galera nodes), each with its own URL;
    /// stopped after `process`.
    pub others: Vec<Launched>,
}

impl Launched {
    /// The URL of every node, this one first.
    pub fn node_urls(&self) -> Vec<String> {
        std::iter::once(self.url.clone())
            .chain(self.others.iter().map(|o| o.url.clone()))
            .collect()
    }
}

/// Copies the contents of `from` into the existing directory `to`, keeping modes and owners
/// (a server's data directory belongs to its system user when hakari runs as root).
pub fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    let out = Command::new("cp")
        .arg("-a")
        .arg(from.join("."))
        .arg(to)
        .output()
        .context("cannot run cp")?;
    if !out.status.success() {
        bail!(
            "cannot copy {} to {}: {}",
            from.display(),
            to.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// Takes a server's process off the list of what hakari owns once it is reaped.
struct Unregister(i32);

impl Drop for Unregister {
    fn drop(&mut self) {
        crate::owned::process_ended(self.0);
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two threads asking for two users at once each get their own (getpwnam's shared answer
    /// once handed a PostgreSQL the MariaDB's user).
    #[test]
    fn users_asked_for_at_once_each_get_their_own() {
        if unsafe { libc::geteuid() } != 0 {
            return; // run_as only looks users up as root
        }
        let asked = [("root", 0), ("daemon", 1)];
        std::thread::scope(|scope| {
            for (name, uid) in asked {
                scope.spawn(move || {
                    for _ in 0..20_000 {
                        let got = run_as(name).unwrap().unwrap();
                        assert_eq!(got.uid, uid, "{name}");
                    }
                });
            }
        });
    }

    #[test]
    fn a_crash_kills_the_whole_tree() {
        let child = Command::new("sh")
            .args(["-c", "sleep 100 & sleep 100 & wait"])
            .spawn()
            .unwrap();
        let leader = child.id() as i32;
        let start = Instant::now();
        let mut below = descendants(leader);
        while below.len() < 2 && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(10));
            below = descendants(leader);
        }
        assert_eq!(below.len(), 2, "the shell's two sleeps: {below:?}");
        let mut server = ServerProcess::new("test", 0, PathBuf::new(), child, libc::SIGTERM);
        server.crash().unwrap();
        assert_eq!(state_of(leader), None, "the leader is reaped");
        for p in below {
            assert!(
                matches!(state_of(p), None | Some('Z' | 'X')),
                "descendant {p} is dead"
            );
        }
        assert!(server.crash().is_err(), "a crashed server is not running");
    }
}
