//! Private, throw-away servers started from installed binaries: a temporary directory, a free
//! loopback port, the durability level's configuration, stopped (and removed) when dropped.

pub mod mariadb;
pub mod memcached;
pub mod postgres;
pub mod redis;

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
    // SAFETY: getpwnam returns a pointer to static storage or null.
    let pw = unsafe { libc::getpwnam(cname.as_ptr()) };
    if pw.is_null() {
        bail!("running as root, a private server needs the system user '{name}' (installed with the server's package)");
    }
    // SAFETY: pw is non-null and points at a valid passwd entry.
    let (uid, gid) = unsafe { ((*pw).pw_uid, (*pw).pw_gid) };
    Ok(Some(RunAs { uid, gid }))
}

/// Makes `dir` (owned by hakari) belong to the server's user, and lets that user traverse the
/// directories above it that hakari created.
pub fn hand_over(dir: &Path, owner: Option<RunAs>, traverse_up_to: &Path) -> Result<()> {
    let Some(owner) = owner else { return Ok(()) };
    std::os::unix::fs::chown(dir, Some(owner.uid), Some(owner.gid))
        .with_context(|| format!("cannot give {} to the server's user", dir.display()))?;
    let mut p = dir.parent();
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
    Ok(())
}

pub fn command(program: &Path, owner: Option<RunAs>) -> Command {
    let mut c = Command::new(program);
    if let Some(o) = owner {
        use std::os::unix::process::CommandExt;
        c.uid(o.uid).gid(o.gid);
    }
    c
}

/// A running private server: stopped with `signal` (then SIGKILL) when dropped.
pub struct ServerProcess {
    pub name: &'static str,
    pub port: u16,
    pub dir: PathBuf,
    child: Option<Child>,
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
        ServerProcess {
            name,
            port,
            dir,
            child: Some(child),
            stop_signal,
        }
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
            if let Some(child) = self.child.as_mut() {
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

    /// The server's process id (the crash test kills it).
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(|c| c.id())
    }

    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        // SAFETY: signalling our own child process.
        unsafe { libc::kill(child.id() as i32, self.stop_signal) };
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

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.stop();
    }
}
