//! The crash test on a PostgreSQL primary with streaming standbys (`--replicas`): a client
//! commits numbered transactions to the primary at the standbys' acknowledgement; the
//! primary's process tree is killed at a seeded moment; the standby that received the most WAL
//! is promoted (as a failover manager would), and the acknowledged commits are looked for there.
//! A synchronous acknowledgement promises that none is lost (the standbys' processes and this
//! machine survive); `async` promises nothing.

use super::subjects::{committed, round, SqlCommitter, Subject};
use super::{summarize, Verdict};
use crate::durability::Durability;
use crate::engine::sql::{SqlEngine, SqlOptions};
use crate::engine::{Engine, Named};
use crate::server::topology::{Kind, Topology};
use crate::server::{Launched, PrivateServer, ServerOptions};
use crate::workload::RunContext;
use anyhow::{bail, Context, Result};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What results record as the crash.
pub const CRASH_LABEL: &str = "primary killed (SIGKILL), the most advanced standby promoted";

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
        let (Engine::Sql(engine), Some(server)) = (target, target.private_server()) else {
            bail!(
                "--replicas: the crash test kills a primary of postgres only, not {}",
                target.name()
            );
        };
        if !target.topologies().contains(&Kind::Standbys) {
            bail!(
                "--replicas: the crash test kills a primary of postgres only, not {}",
                target.name()
            );
        }
        for &level in levels {
            for &topology in topologies {
                let Topology::Standbys { ack, .. } = topology else {
                    bail!("the crash test kills a PostgreSQL primary; {topology} is not one");
                };
                eprintln!(
                    "crash test: {} {level} on {topology}, {rounds} round(s), crash: {CRASH_LABEL}",
                    engine.name()
                );
                let mut found = Vec::new();
                let mut version = None;
                for r in 0..rounds {
                    let dir = ctx.fresh_dir(&format!("failover-{}-{level}-{r}", engine.name()))?;
                    let mut s = Failover {
                        engine,
                        server,
                        level,
                        topology,
                        dir: dir.clone(),
                        owner_root: ctx.data_root().to_path_buf(),
                        running: None,
                        committer: SqlCommitter::default(),
                        version: None,
                    };
                    let outcome = round(&mut s, rng);
                    version = s.version.take().or(version);
                    drop(s);
                    found.push(outcome?);
                    std::fs::remove_dir_all(&dir).ok();
                }
                ctx.topology = topology;
                let mut settings = BTreeMap::new();
                settings.insert("server".into(), "private primary and standbys (started by hakari; the primary's process tree killed with SIGKILL each round)".into());
                ctx.record_engine(target, level, version.unwrap_or_default(), settings);
                let promised = ack.synchronous_commit().is_some();
                let (mut m, verdict) =
                    summarize(engine.name(), level, CRASH_LABEL, promised, &found);
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
            dir: self.dir.clone(),
            durability: self.level,
            url: Some(url.to_string()),
            dialect: None,
            clients: 1,
            cache_bytes: 0,
            topology,
            shared: false,
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
        let url = promote_most_advanced(&running)?;
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

/// A PostgreSQL LSN (`16/B374D848`) as a number.
fn parse_lsn(text: &str) -> Result<u64> {
    let (hi, lo) = text.split_once('/').context("an LSN has a '/'")?;
    Ok((u64::from_str_radix(hi, 16)? << 32) | u64::from_str_radix(lo, 16)?)
}
