//! The network between the clients and the private servers cut (`--fault partition`): every
//! running private server's port, as every server is registered when it starts
//! ([`ServerProcess::new`]), has its loopback traffic dropped by nftables, in both directions,
//! until the cut is lifted. Nothing is refused or reset: packets vanish, as on a cut cable, and
//! TCP retransmits them once the cut is lifted (so a request in flight waits out its
//! retransmission backoff, not only the cut).
//!
//! The rules live in a table of hakari's own, `inet hakari_partition_<pid>`: lifting the cut
//! deletes it, a second signal deletes it on the way out (`signals.rs`), and a cut left by
//! a hakari that was killed outright is deleted by the next one that cuts.

use super::ServerProcess;
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// A server's process slot: gone, or empty, once it stopped.
type Slot = Weak<Mutex<Option<Child>>>;

/// Every private server started, by its process slot and port.
static SERVERS: Mutex<Vec<(Slot, u16)>> = Mutex::new(Vec::new());

/// This hakari's table name prefix; a table's name ends in the pid of the hakari that made it.
const PREFIX: &str = "hakari_partition_";

/// A partition is planned for this run: the servers started from now on are reached over
/// loopback TCP, which a cut reaches, and not over a Unix socket, which it does not.
static PLANNED: AtomicBool = AtomicBool::new(false);

/// Whether the run puts a partition in ([`planned`]).
pub fn plan(partition: bool) {
    PLANNED.store(partition, Ordering::Relaxed);
}

/// Whether the private servers started now must be reached over loopback TCP, because a
/// partition is to cut them off (a server whose clients would come by its Unix socket, MariaDB,
/// gives a TCP address instead).
pub fn planned() -> bool {
    PLANNED.load(Ordering::Relaxed)
}

impl ServerProcess {
    /// Registers this server's port for [`cut`]; called once as it starts.
    pub(super) fn reachable(&self) {
        let mut all = SERVERS.lock().unwrap_or_else(|e| e.into_inner());
        all.retain(|(slot, _)| slot.strong_count() > 0);
        all.push((Arc::downgrade(&self.child), self.port));
    }
}

/// The ports of the private servers running now.
fn ports() -> Vec<u16> {
    let all = SERVERS.lock().unwrap_or_else(|e| e.into_inner());
    let running = |slot: &Slot| {
        slot.upgrade()
            .is_some_and(|s| s.lock().unwrap_or_else(|e| e.into_inner()).is_some())
    };
    let mut ports: Vec<u16> = (all.iter())
        .filter(|(slot, _)| running(slot))
        .map(|&(_, port)| port)
        .collect();
    ports.sort_unstable();
    ports.dedup();
    ports
}

/// Whether this machine lets hakari cut the network: `Err` says why not.
pub fn available() -> Result<(), String> {
    match nft(&["list", "tables"], None) {
        Ok(_) => Ok(()),
        Err(e) => Err(format!(
            "{e:#} (a partition is cut with nftables: it needs the nft program, from Debian's nftables package, and root or CAP_NET_ADMIN)"
        )),
    }
}

/// A cut in place; lifted when dropped, or by [`Cut::lift`] to see whether lifting failed.
pub struct Cut {
    table: String,
    lifted: bool,
}

/// Cuts the network to and from every private server running: returns once the rules are in
/// force.
pub fn cut() -> Result<Cut> {
    let ports = ports();
    if ports.is_empty() {
        bail!("no private server of hakari's runs: there is no network to cut");
    }
    sweep();
    let table = format!("{PREFIX}{}", std::process::id());
    let set = (ports.iter().map(u16::to_string))
        .collect::<Vec<_>>()
        .join(", ");
    // Input only: a packet dropped on its way out would fail the sender's call with EPERM,
    // which no real cut does; dropped on its way in, it is simply never received.
    let rules = format!(
        "table inet {table} {{\n\
         \tchain input {{\n\
         \t\ttype filter hook input priority -10; policy accept;\n\
         \t\tiifname \"lo\" tcp dport {{ {set} }} drop\n\
         \t\tiifname \"lo\" tcp sport {{ {set} }} drop\n\
         \t}}\n\
         }}\n"
    );
    nft(&["-f", "-"], Some(&rules)).context("cutting the network to the private servers")?;
    Ok(Cut {
        table,
        lifted: false,
    })
}

impl Cut {
    /// Lifts the cut: the servers are reachable again once this returns.
    pub fn lift(mut self) -> Result<()> {
        self.lifted = true;
        delete(&self.table)
    }
}

impl Drop for Cut {
    fn drop(&mut self) {
        if !self.lifted {
            let _ = delete(&self.table);
        }
    }
}

/// Lifts this hakari's cut, if one is in force: the way out when there is no time to stop.
pub fn lift_mine() {
    let table = format!("{PREFIX}{}", std::process::id());
    if nft(&["list", "table", "inet", &table], None).is_ok() {
        let _ = delete(&table);
    }
}

/// Deletes the cuts left by hakaris that no longer run (killed before they could lift them).
fn sweep() {
    let Ok(tables) = nft(&["list", "tables"], None) else {
        return;
    };
    for line in tables.lines() {
        let Some(name) = line.strip_prefix("table inet ") else {
            continue;
        };
        let Some(pid) = name
            .strip_prefix(PREFIX)
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        if crate::process::state_of(pid).is_none() {
            let _ = delete(name);
        }
    }
}

fn delete(table: &str) -> Result<()> {
    nft(&["delete", "table", "inet", table], None)
        .map(drop)
        .with_context(|| format!("lifting the network cut (nftables table inet {table})"))
}

/// Runs `nft` with `args` and `input` on its standard input; its output, or its error.
fn nft(args: &[&str], input: Option<&str>) -> Result<String> {
    let mut child = Command::new("nft")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run nft")?;
    if let Some(text) = input {
        let mut stdin = child.stdin.take().context("nft's standard input")?;
        stdin.write_all(text.as_bytes())?;
    }
    drop(child.stdin.take());
    let out = child.wait_with_output().context("nft")?;
    if !out.status.success() {
        bail!(
            "nft {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
