//! The crash test on a loopback cluster. On a PostgreSQL primary with streaming standbys
//! (`--replicas`) a client commits numbered transactions to the primary at the standbys'
//! acknowledgement; the primary's process tree is killed at a seeded moment; the standby that
//! received the most WAL is promoted (as a failover manager would), and the acknowledged commits
//! are looked for there. A synchronous acknowledgement promises that none is lost (the standbys'
//! processes and this machine survive); `async` promises nothing. On a Galera cluster
//! (`--cluster galera:N`) the client commits to node 1, node 1 is killed, and the commits are
//! looked for on node 2 once it is Synced in the remaining primary component: a Galera commit
//! returns only after every node has received and certified it, so none may be lost. A Redis
//! Cluster (`--cluster redis:N --replicas R`) is the subject of [`super::redis_cluster`].

use super::redis_cluster::RedisFailover;
use super::subjects::{committed, round, SqlCommitter, Subject};
use super::{summarize, Verdict};
use crate::durability::Durability;
use crate::engine::sql::{SqlEngine, SqlOptions};
use crate::engine::{Engine, Named};
use crate::server::topology::Topology;
use crate::server::{Launched, PrivateServer, ServerOptions};
use crate::workload::RunContext;
use anyhow::{bail, Context, Result};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

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
                    let root = ctx.data_root().to_path_buf();
                    let outcome = match target {
                        Engine::Sql(engine) => {
                            let mut s = Failover {
                                engine,
                                server,
                                level,
                                topology,
                                dir: dir.clone(),
                                owner_root: root,
                                running: None,
                                committer: SqlCommitter::default(),
                                version: None,
                            };
                            let outcome = round(&mut s, rng);
                            version = s.version.take().or(version);
                            outcome
                        }
                        Engine::Kv(engine) => {
                            version = Some(engine.version());
                            let mut s =
                                RedisFailover::new(server, level, topology, dir.clone(), root);
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

/// A primary and its standbys, fresh each round.
struct Failover {
    engine: Named<dyn SqlEngine>,
    server: &'static dyn PrivateServer,
    level: Durability,
    topology: Topology,
    dir: PathBuf,
    owner_root: PathBuf,
    running: Option<Launched>,
    committer: SqlCommitter,
    version: Option<String>,
}

impl Failover {
    /// Opens the engine at `url`, as a server given by `--url`, its sessions acknowledging as
    /// the topology says.
    fn open(&self, url: &str, topology: Topology) -> Result<Box<dyn crate::engine::SqlDatabase>> {
        self.engine.open(&SqlOptions {
            url: Some(url.to_string()),
            topology,
            ..SqlOptions::at(&self.dir, self.level)
        })
    }
}

impl Subject for Failover {
    fn start(&mut self) -> Result<()> {
        let options = ServerOptions {
            topology: self.topology,
            ..ServerOptions::at(self.level)
        };
        let running = self.server.start(&self.dir, &options, &self.owner_root)?;
        let db = self.open(&running.url, self.topology)?;
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
        let running = self.running.take().context("the cluster is not running")?;
        let url = match self.topology {
            Topology::Galera { nodes, .. } => galera_survivor(&running, nodes)?,
            _ => promote_most_advanced(&running)?,
        };
        let present = committed(self.open(&url, Topology::Single)?);
        drop(running);
        present
    }
}

/// Promotes the standby that received the most WAL and returns its URL once it takes writes.
fn promote_most_advanced(cluster: &Launched) -> Result<String> {
    let admin = |url: &str| -> Result<postgres::Client> {
        Ok(postgres::Client::connect(url, postgres::NoTls)?)
    };
    let mut best: Option<(u64, &Launched)> = None;
    for standby in &cluster.others {
        let received: String = admin(&standby.url)?
            .query_one(
                "SELECT coalesce(pg_last_wal_receive_lsn(), '0/0')::text",
                &[],
            )?
            .get(0);
        let lsn = parse_lsn(&received)?;
        if best.is_none_or(|(b, _)| lsn > b) {
            best = Some((lsn, standby));
        }
    }
    let (_, standby) = best.context("no standby to promote")?;
    let mut c = admin(&standby.url)?;
    let promoted: bool = c.query_one("SELECT pg_promote(true, 60)", &[])?.get(0);
    if !promoted {
        bail!("the standby was not promoted within 60 s");
    }
    let start = Instant::now();
    while c
        .query_one("SELECT pg_is_in_recovery()", &[])?
        .get::<_, bool>(0)
    {
        if start.elapsed() > Duration::from_secs(60) {
            bail!("the promoted standby is still in recovery after 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(standby.url.clone())
}

/// Node 2 of a Galera cluster whose node 1 was killed, once it is Synced in a primary component
/// of the other nodes and has applied everything it received.
fn galera_survivor(cluster: &Launched, nodes: usize) -> Result<String> {
    use mysql::prelude::Queryable;
    let node = cluster.others.first().context("no other Galera node")?;
    let opts = mysql::Opts::from_url(&node.url)?;
    let start = Instant::now();
    let mut last = String::new();
    while start.elapsed() < Duration::from_secs(60) {
        let status: Option<Vec<(String, String)>> = mysql::Conn::new(opts.clone())
            .and_then(|mut c| c.query("SHOW STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_cluster_status', 'wsrep_cluster_size')"))
            .ok();
        let get = |name: &str| {
            (status.iter().flatten())
                .find(|(k, _)| k == name)
                .map_or(String::new(), |(_, v)| v.clone())
        };
        let (state, component, size) = (
            get("wsrep_local_state_comment"),
            get("wsrep_cluster_status"),
            get("wsrep_cluster_size"),
        );
        if state == "Synced" && component == "Primary" && size == (nodes - 1).to_string() {
            // A causal read waits until the node has applied every writeset it received.
            let mut c = mysql::Conn::new(opts)?;
            c.query_drop("SET SESSION wsrep_sync_wait = 1")?;
            c.query_drop("SELECT 1")?;
            return Ok(node.url.clone());
        }
        last = format!("{state}, {component} component of {size}");
        std::thread::sleep(Duration::from_millis(100));
    }
    bail!("Galera node 2 was not Synced in a primary component of the others within 60 s ({last})")
}

/// A PostgreSQL LSN (`16/B374D848`) as a number.
fn parse_lsn(text: &str) -> Result<u64> {
    let (hi, lo) = text.split_once('/').context("an LSN has a '/'")?;
    Ok((u64::from_str_radix(hi, 16)? << 32) | u64::from_str_radix(lo, 16)?)
}
