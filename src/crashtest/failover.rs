//! The crash test on a loopback cluster. On a PostgreSQL primary with streaming standbys
//! (`--replicas`) a client commits numbered transactions to the primary at the standbys'
//! acknowledgement; the primary's process tree is killed at a seeded moment; the standby that
//! received the most WAL is promoted (as a failover manager would), and the acknowledged commits
//! are looked for there. A synchronous acknowledgement promises that none is lost (the standbys'
//! processes and this machine survive); `async` promises nothing. On a Galera cluster
//! (`--cluster galera:N`) the client commits to node 1, node 1 is killed, and the commits are
//! looked for on node 2 once it is Synced in the remaining primary component: a Galera commit
//! returns only after every node has received and certified it, so none may be lost. The subject
//! is the server crash test's own (`subjects::ServerSubject` at a cluster's `Site`), the survivor
//! found by [`super::survivor`]. A Redis Cluster (`--cluster redis:N --replicas R`) is the subject
//! of [`super::redis_cluster`].

use super::redis_cluster::RedisFailover;
use super::subjects::{round, ServerSubject, Site};
use super::{summarize, Verdict};
use crate::durability::Durability;
use crate::engine::Engine;
use crate::server::topology::Topology;
use crate::workload::RunContext;
use anyhow::{bail, Result};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// What results record as the crash of a primary with standbys.
pub const CRASH_LABEL: &str = "primary killed (SIGKILL), the most advanced standby promoted";
/// ... and of a Galera node.
pub const NODE_LABEL: &str = "node 1 killed (SIGKILL), the commits read on node 2";

/// The crash, and whether the topology promises that no acknowledged commit is lost by it.
pub fn crash_of(topology: Topology) -> Result<(&'static str, bool)> {
    match topology {
        Topology::Standbys { ack, .. } => Ok((CRASH_LABEL, ack.synchronous_commit().is_some())),
        Topology::Galera { .. } => Ok((NODE_LABEL, true)),
        Topology::RedisCluster { replicas: 0, .. } => bail!(
            "a Redis Cluster master killed without replicas takes its slots with it: give --replicas 1 or more to fail over to"
        ),
        // Redis replicates asynchronously: a failover may lose acknowledged writes.
        Topology::RedisCluster { .. } => Ok((super::redis_cluster::LABEL, false)),
        other => bail!("the crash test does not kill a node of {other} yet"),
    }
}

/// Every engine at every level and topology, `rounds` rounds each; returns how many broke
/// their promise.
pub fn run(
    targets: &[Engine],
    levels: &[Durability],
    topologies: &[Topology],
    rounds: usize,
    rng: &mut ChaCha8Rng,
    ctx: &mut RunContext,
) -> Result<usize> {
    let mut broken = 0;
    for &target in targets {
        let Some(server) = target.private_server() else {
            bail!(
                "the crash test kills a node of postgres (--replicas), mysql (--cluster galera:N) or redis (--cluster redis:N --replicas R), not of {}",
                target.name()
            );
        };
        for &level in levels {
            for &topology in topologies {
                if !topology
                    .kind()
                    .is_some_and(|k| target.topologies().contains(&k))
                {
                    bail!("engine '{}' cannot be started as {topology}", target.name());
                }
                let (label, promised) = crash_of(topology)?;
                eprintln!(
                    "crash test: {} {level} on {topology}, {rounds} round(s), crash: {label}",
                    target.name()
                );
                let mut found = Vec::new();
                let mut version = None;
                for r in 0..rounds {
                    let dir = ctx.fresh_dir(&format!("failover-{}-{level}-{r}", target.name()))?;
                    let site = Site {
                        server,
                        level,
                        topology,
                        dir: dir.clone(),
                        owner_root: ctx.data_root().to_path_buf(),
                    };
                    let outcome = match target {
                        Engine::Sql(engine) => {
                            let mut s = ServerSubject::new(engine, site);
                            let outcome = round(&mut s, rng);
                            version = s.version.take().or(version);
                            outcome
                        }
                        Engine::Kv(engine) => {
                            version = Some(engine.version());
                            let mut s = RedisFailover::new(site);
                            round(&mut s, rng)
                        }
                    };
                    found.push(outcome?);
                    std::fs::remove_dir_all(&dir).ok();
                }
                ctx.topology = topology;
                let mut settings = BTreeMap::new();
                settings.insert("server".into(), "private loopback cluster (started by hakari each round; one node's process tree killed with SIGKILL)".into());
                ctx.record_engine(target, level, version.unwrap_or_default(), settings);
                let (mut m, verdict) = summarize(target.name(), level, label, promised, &found);
                let text = format!("{topology} (loopback cluster)");
                m.config.insert("replication".into(), text.into());
                broken += usize::from(verdict == Verdict::Broken);
                ctx.recorder.measurement(m)?;
            }
        }
    }
    ctx.topology = Topology::Single;
    Ok(broken)
}
