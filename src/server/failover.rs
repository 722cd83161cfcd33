//! A primary killed and a standby promoted in its place (`--fault kill-primary`, a Galera
//! node's `kill-node`): a cluster's first node registers how its cluster fails over
//! ([`ServerProcess::fails_over`]); [`kill`] crashes it, its whole process tree at
//! once, promotes a standby (or waits for the other nodes to go on without it) as registered,
//! and keeps the promoted one as the node the next fault kills.

use super::ServerProcess;
use anyhow::{bail, Context, Result};
use std::process::Child;
use std::sync::{Arc, Mutex, Weak};

/// Promotes one of the standbys left and returns its index among them once it takes writes.
pub type Promote = Box<dyn FnMut() -> Result<usize> + Send>;

type Slot = Weak<Mutex<Option<Child>>>;

/// A primary that can be failed over, with its standbys; gone once its `ServerProcess` is
/// dropped.
struct Cluster {
    name: &'static str,
    primary: Slot,
    standbys: Vec<Slot>,
    /// How many more kills it lives through ([`Topology::kills_lived`] at its start).
    ///
    /// [`Topology::kills_lived`]: crate::server::topology::Topology::kills_lived
    kills: usize,
    promote: Promote,
}

static CLUSTERS: Mutex<Vec<Cluster>> = Mutex::new(Vec::new());

impl ServerProcess {
    /// Registers this server as a primary whose `standbys` `promote` fails over to, for
    /// [`kill`], `kills` times; `promote` keeps them in this order, less the ones it promoted.
    pub fn fails_over(&self, standbys: &[&ServerProcess], kills: usize, promote: Promote) {
        let mut all = CLUSTERS.lock().unwrap_or_else(|e| e.into_inner());
        all.retain(|c| c.primary.strong_count() > 0);
        all.push(Cluster {
            name: self.name,
            primary: Arc::downgrade(&self.child),
            standbys: standbys.iter().map(|s| Arc::downgrade(&s.child)).collect(),
            kills,
            promote,
        });
    }
}

/// Kills the primary of every registered cluster, as a crash does (SIGSTOP of the whole tree,
/// then SIGKILL), and promotes one of its standbys; returns once each promoted standby takes
/// writes. `ended(pid)` is called with each killed process before it dies (for the step's
/// readings).
pub fn kill(ended: fn(i32)) -> Result<()> {
    let mut all = CLUSTERS.lock().unwrap_or_else(|e| e.into_inner());
    let mut killed = 0;
    for cluster in all.iter_mut() {
        let Some(primary) = cluster.primary.upgrade() else {
            continue;
        };
        if cluster.kills == 0 {
            bail!("the private {} cluster has too few nodes left to live through a kill (an earlier step's fault killed one): start more (--replicas, --cluster) or run one step (--runs 1, one thread count)", cluster.name);
        }
        cluster.kills -= 1;
        super::crash(cluster.name, &primary, ended)
            .with_context(|| format!("killing the private {} primary", cluster.name))?;
        let promoted = (cluster.promote)().context("promoting a standby of the killed primary")?;
        cluster.primary = cluster.standbys.remove(promoted);
        killed += 1;
    }
    if killed == 0 {
        bail!("no private primary with standbys runs: there is no primary to kill");
    }
    Ok(())
}
