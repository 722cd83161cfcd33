//! Servers started again as they were (`--fault restart`): a launch that can be repeated
//! registers how ([`ServerProcess::restartable`]); [`restart_all`] stops every registered server
//! as a shutdown does (its own stop signal), starts it again on the same directory, port and
//! settings, and waits until it accepts connections.

use super::ServerProcess;
use anyhow::{bail, Context, Result};
use std::process::Child;
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

/// How a server is started again.
pub struct Relaunch {
    /// Starts its process as its launch did.
    pub spawn: Box<dyn Fn() -> Result<Child> + Send>,
    /// Whether it accepts connections.
    pub ready: Box<dyn Fn() -> bool + Send>,
}

/// A server that can be restarted; gone once its `ServerProcess` is dropped.
struct Entry {
    name: &'static str,
    stop_signal: i32,
    child: Weak<Mutex<Option<Child>>>,
    relaunch: Relaunch,
}

static RESTARTABLE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

impl ServerProcess {
    /// Registers how this server is started again, for [`restart_all`].
    pub fn restartable(self, relaunch: Relaunch) -> ServerProcess {
        let mut all = RESTARTABLE.lock().unwrap_or_else(|e| e.into_inner());
        all.retain(|e| e.child.strong_count() > 0);
        all.push(Entry {
            name: self.name,
            stop_signal: self.stop_signal,
            child: Arc::downgrade(&self.child),
            relaunch,
        });
        self
    }
}

/// Stops every restartable server that runs and starts it again; returns once each accepts
/// connections. `ended(pid)` is called with each old process once it has exited, before it is
/// reaped (while /proc still shows what it spent).
pub fn restart_all(ended: fn(i32)) -> Result<()> {
    let (reply, answer) = mpsc::channel();
    let lasting = lasting().lock().unwrap_or_else(|e| e.into_inner());
    lasting
        .send((ended, reply))
        .map_err(|_| anyhow::anyhow!("the thread that restarts servers is gone"))?;
    drop(lasting);
    answer
        .recv()
        .map_err(|_| anyhow::anyhow!("the thread that restarts servers is gone"))?
}

/// The thread restarts run on. PR_SET_PDEATHSIG (`server::command`) kills a server when the
/// thread that forked it ends, so a server started again from a step's own thread would die
/// with the step; this one lasts as long as hakari.
fn lasting() -> &'static Mutex<Sender<Ask>> {
    static LASTING: OnceLock<Mutex<Sender<Ask>>> = OnceLock::new();
    LASTING.get_or_init(|| {
        let (asks, asked) = mpsc::channel::<Ask>();
        std::thread::spawn(move || {
            for (ended, reply) in asked {
                let _ = reply.send(restart_running(ended));
            }
        });
        Mutex::new(asks)
    })
}

/// A restart asked of the lasting thread: what to call as each old process ends, and where to
/// answer.
type Ask = (fn(i32), Sender<Result<()>>);

fn restart_running(ended: fn(i32)) -> Result<()> {
    let all = RESTARTABLE.lock().unwrap_or_else(|e| e.into_inner());
    let running: Vec<(&Entry, Arc<Mutex<Option<Child>>>)> = all
        .iter()
        .filter_map(|e| e.child.upgrade().map(|c| (e, c)))
        .collect();
    if running.is_empty() {
        bail!("no private server that can be restarted runs");
    }
    for (entry, child) in running {
        restart(entry, &child, ended)
            .with_context(|| format!("restarting the private {}", entry.name))?;
    }
    Ok(())
}

fn restart(entry: &Entry, slot: &Mutex<Option<Child>>, ended: fn(i32)) -> Result<()> {
    {
        let mut child = slot.lock().unwrap_or_else(|e| e.into_inner());
        let Some(mut old) = child.take() else {
            bail!("it is not running");
        };
        let pid = old.id() as i32;
        // SAFETY: signalling our own child process.
        unsafe { libc::kill(pid, entry.stop_signal) };
        // Exited but not reaped, it still shows what it spent: taken into the servers' readings.
        let start = Instant::now();
        while crate::process::state_of(pid).is_some_and(|s| s != 'Z') {
            if start.elapsed() > Duration::from_secs(30) {
                let _ = old.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        ended(pid);
        old.wait()?;
        crate::owned::process_ended(pid);
        let new = (entry.relaunch.spawn)()?;
        crate::owned::process_started(new.id() as i32);
        *child = Some(new);
    }
    let start = Instant::now();
    while !(entry.relaunch.ready)() {
        let mut child = slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(status) = child.as_mut().map(Child::try_wait).transpose()?.flatten() {
            bail!("it exited ({status}) before accepting connections again");
        }
        drop(child);
        if start.elapsed() > Duration::from_secs(60) {
            bail!("it did not accept connections within 60 s of its restart");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}
