//! The crash test on a Redis Cluster (`--cluster redis:N --replicas R --kill node`). A client
//! writes numbered keys that share one hash tag, so one master holds them all and its replicas
//! receive them in order; that master is killed (SIGKILL) at a seeded moment; the cluster fails
//! over on its own (a replica is elected once the master has been unreachable for
//! cluster-node-timeout), and the acknowledged keys are looked for through the cluster once the
//! slot is served again. Redis replicates asynchronously (a write is acknowledged before any
//! replica has it), so a failover promises nothing: the count is what this machine lost.

use super::subjects::{await_committer, Site, Subject};
use crate::server::redis::cluster::master_of;
use crate::server::topology::Topology;
use crate::server::Launched;
use anyhow::{bail, Context, Result};
use redis::Commands;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What results record as the crash.
pub const LABEL: &str =
    "the master holding the keys killed (SIGKILL), the cluster's own failover to a replica";

/// Every key's hash tag: one slot, one master.
const TAG: &str = "hakari:{crash}:";

/// How long the cluster may take to fail over (cluster-node-timeout is 5 s).
const FAILOVER_PATIENCE: Duration = Duration::from_secs(60);

/// A fresh private Redis Cluster each round.
pub(super) struct RedisFailover {
    site: Site,
    running: Option<Launched>,
    /// The port of the master that holds the keys.
    master: u16,
    acked: Arc<AtomicU64>,
    thread: Option<JoinHandle<Result<()>>>,
}

impl RedisFailover {
    pub(super) fn new(site: Site) -> RedisFailover {
        RedisFailover {
            site,
            running: None,
            master: 0,
            acked: Arc::default(),
            thread: None,
        }
    }

    /// Every node of the running cluster.
    fn nodes(&self) -> Vec<&Launched> {
        let Some(first) = &self.running else {
            return Vec::new();
        };
        std::iter::once(first).chain(&first.others).collect()
    }
}

/// The slot every key of the test lives in.
fn slot(url: &str) -> Result<u16> {
    let mut con = redis::Client::open(url)?.get_connection()?;
    Ok(redis::cmd("CLUSTER")
        .arg("KEYSLOT")
        .arg(TAG)
        .query(&mut con)?)
}

impl Subject for RedisFailover {
    fn start(&mut self) -> Result<()> {
        let Topology::RedisCluster { replicas, .. } = self.site.topology else {
            bail!("the Redis crash test runs on a Redis Cluster");
        };
        if replicas == 0 {
            bail!("a master killed without replicas takes its slots with it: give --replicas 1 or more to fail over to");
        }
        let running = self.site.start()?;
        let slot = slot(&running.url)?;
        self.master = master_of(&running.url, slot)?.context("no master serves the test's slot")?;
        self.running = Some(running);
        // The client writes to the master itself: a cluster client would retry a write across
        // the failover, and its later keys would then sit above the lost ones.
        let mut con =
            redis::Client::open(format!("redis://127.0.0.1:{}/", self.master))?.get_connection()?;
        let acked = self.acked.clone();
        self.thread = Some(std::thread::spawn(move || -> Result<()> {
            for n in 1u64.. {
                let _: () = con.set(format!("{TAG}{n}"), n)?;
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
        if !self.thread.as_ref().is_some_and(|t| t.is_finished()) {
            return Ok(None);
        }
        Ok(Some(match self.thread.take().map(|t| t.join()) {
            Some(Ok(Err(e))) => format!("{e:#}"),
            _ => "the client stopped".into(),
        }))
    }

    fn crash(&mut self) -> Result<()> {
        let master = self.master;
        let mut nodes = self.running.iter_mut().flat_map(|first| {
            let others = first.others.iter_mut();
            std::iter::once(&mut first.process).chain(others.map(|o| &mut o.process))
        });
        let process = nodes
            .find(|p| p.port == master)
            .context("the master holding the keys is not among the nodes")?;
        process.crash()?;
        if let Some(t) = self.thread.take() {
            // Its connection is gone: the next write fails at once (a reply already on its way
            // still counts as acknowledged).
            await_committer(t);
        }
        Ok(())
    }

    fn recover(&mut self) -> Result<Vec<u64>> {
        let survivors: Vec<String> = (self.nodes().into_iter())
            .filter(|n| n.process.port != self.master)
            .map(|n| n.url.clone())
            .collect();
        let first = survivors.first().context("no node survived")?;
        let slot = slot(first)?;
        let start = Instant::now();
        let new_master = loop {
            match master_of(first, slot) {
                Ok(Some(port)) if port != self.master => break port,
                _ if start.elapsed() > FAILOVER_PATIENCE => bail!(
                    "no replica took over the killed master's slots within {} s",
                    FAILOVER_PATIENCE.as_secs()
                ),
                _ => std::thread::sleep(Duration::from_millis(100)),
            }
        };
        let mut con =
            redis::Client::open(format!("redis://127.0.0.1:{new_master}/"))?.get_connection()?;
        // Every acknowledged key, and the one whose reply may have been lost on its way.
        let last = self.acknowledged() + 1;
        let mut present = Vec::new();
        let numbers: Vec<u64> = (1..=last).collect();
        for chunk in numbers.chunks(1000) {
            let keys: Vec<String> = chunk.iter().map(|n| format!("{TAG}{n}")).collect();
            let values: Vec<Option<u64>> = con.mget(&keys)?;
            for (n, value) in chunk.iter().zip(values) {
                match value {
                    Some(v) if v == *n => present.push(*n),
                    Some(v) => bail!("key {TAG}{n} holds {v}"),
                    None => {}
                }
            }
        }
        Ok(present)
    }
}
