//! A Redis Cluster on loopback: masters × (1 + replicas) `redis-server` nodes with
//! `--cluster-enabled yes`, each in its own directory (`node<i>`) on its own port, joined by
//! `redis-cli --cluster create` (which gives each master a third of the slots and assigns the
//! replicas). The run starts once every node reports `cluster_state:ok` with all slots covered
//! and every node known.

use super::{launch, INSTALL_HINT};
use crate::durability::Durability;
use crate::server::topology::Topology;
use crate::server::{find, free_port, Launched};
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::time::{Duration, Instant};

/// Starts the cluster in `dir`; node 1 (a master) first, the others in `others`.
pub fn start(dir: &Path, masters: usize, replicas: usize, level: Durability) -> Result<Launched> {
    let Some(cli) = find(&["redis-cli"]) else {
        bail!("no redis-cli found (it creates the cluster): {INSTALL_HINT}");
    };
    let mut nodes: Vec<Launched> = Vec::new();
    for i in 1..=masters * (1 + replicas) {
        let node_dir = dir.join(format!("node{i}"));
        std::fs::create_dir_all(&node_dir)?;
        // The cluster bus gets a free port of its own: Redis's default, the node's port + 10000,
        // may be taken or past 65535. A port taken between the choice and the bind (another
        // server starting beside) fails the start, which is tried again on fresh ports.
        let mut tries = 0;
        let process = loop {
            let extra = [
                "--cluster-enabled".to_string(),
                "yes".into(),
                "--cluster-config-file".into(),
                node_dir.join("nodes.conf").display().to_string(),
                "--cluster-node-timeout".into(),
                "5000".into(),
                "--cluster-port".into(),
                free_port()?.to_string(),
            ];
            tries += 1;
            match launch(&node_dir, level, None, &extra) {
                Ok(process) => break process,
                Err(e) if tries < 3 && format!("{e:#}").contains("Address already in use") => {}
                Err(e) => return Err(e.context(format!("cannot start Redis Cluster node {i}"))),
            }
        };
        nodes.push(Launched {
            url: format!("redis://127.0.0.1:{}/", process.port),
            process,
            others: Vec::new(),
        });
    }
    let addresses: Vec<String> = (nodes.iter())
        .map(|n| format!("127.0.0.1:{}", n.process.port))
        .collect();
    let mut create = std::process::Command::new(cli);
    create.args(["--cluster", "create"]).args(&addresses).args([
        "--cluster-replicas",
        &replicas.to_string(),
        "--cluster-yes",
    ]);
    crate::server::run_tool(&mut create, "redis-cli --cluster create")?;
    for node in &nodes {
        wait_ok(&node.url, nodes.len())
            .with_context(|| format!("Redis Cluster node {}", node.url))?;
    }
    let mut all = nodes.into_iter();
    let mut first = all.next().context("a Redis Cluster of no nodes")?;
    first.others = all.collect();
    if replicas > 0 {
        // A killed master (`--fault kill-node`): the cluster fails over on its own, a replica
        // elected once the master has been unreachable for cluster-node-timeout.
        let killed = first.process.port;
        let left: Vec<String> = first.others.iter().map(|o| o.url.clone()).collect();
        let processes: Vec<_> = first.others.iter().map(|o| &o.process).collect();
        let ports: Vec<u16> = processes.iter().map(|p| p.port).collect();
        let failed_over = move || -> Result<usize> {
            let port = wait_failed_over(&left, killed)?;
            (ports.iter().position(|&p| p == port))
                .context("the new master is not a node of the cluster")
        };
        let kills = Topology::RedisCluster { masters, replicas }.kills_lived();
        (first.process).fails_over(&processes, kills, Box::new(failed_over));
    }
    Ok(first)
}

/// Waits (up to a minute) until a master other than the one on `killed` serves its first slot
/// and every node at `urls` sees the cluster's state ok; returns the new master's port.
fn wait_failed_over(urls: &[String], killed: u16) -> Result<u16> {
    let start = Instant::now();
    let mut last = String::from("no answer");
    while start.elapsed() < Duration::from_secs(60) {
        let master = master_of(&urls[0], 0).unwrap_or(None);
        if let Some(port) = master.filter(|&p| p != killed) {
            let ok = urls.iter().all(|url| {
                let info = redis::Client::open(url.as_str())
                    .and_then(|c| c.get_connection())
                    .and_then(|mut c| redis::cmd("CLUSTER").arg("INFO").query::<String>(&mut c));
                info.is_ok_and(|i| i.lines().any(|l| l.trim() == "cluster_state:ok"))
            });
            if ok {
                return Ok(port);
            }
            last = format!("port {port} serves slot 0; not every node sees the state ok");
        } else {
            last = "no other master serves slot 0 yet".into();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    bail!("the Redis Cluster did not fail over within 60 s ({last})")
}

/// The port of the master serving `slot`, as the node at `url` sees the cluster; None while
/// no live master serves it.
pub fn master_of(url: &str, slot: u16) -> Result<Option<u16>> {
    let mut con = redis::Client::open(url)?.get_connection()?;
    let nodes: String = redis::cmd("CLUSTER").arg("NODES").query(&mut con)?;
    for line in nodes.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (Some(address), Some(flags)) = (fields.get(1), fields.get(2)) else {
            continue;
        };
        if !flags.split(',').any(|f| f == "master") || flags.contains("fail") {
            continue;
        }
        let serves = fields.iter().skip(8).any(|range| {
            let (lo, hi) = range.split_once('-').unwrap_or((range, range));
            matches!((lo.parse::<u16>(), hi.parse::<u16>()), (Ok(lo), Ok(hi)) if (lo..=hi).contains(&slot))
        });
        let port = address
            .split(['@', ':'])
            .nth(1)
            .and_then(|p| p.parse().ok());
        if serves {
            return Ok(port);
        }
    }
    Ok(None)
}

/// Waits (up to a minute) until the node at `url` sees the cluster whole: state ok, every slot
/// assigned, `size` nodes known; and, on a replica, until its link to its master is up (its
/// first full copy made: until then a failover could not pick it, and a run would measure the
/// copying).
fn wait_ok(url: &str, size: usize) -> Result<()> {
    let start = Instant::now();
    let mut last = String::from("no answer");
    while start.elapsed() < Duration::from_secs(60) {
        let info = redis::Client::open(url)
            .and_then(|c| c.get_connection())
            .and_then(|mut c| {
                let cluster = redis::cmd("CLUSTER").arg("INFO").query::<String>(&mut c)?;
                let replication = redis::cmd("INFO")
                    .arg("replication")
                    .query::<String>(&mut c)?;
                Ok(cluster + &replication)
            });
        if let Ok(info) = info {
            let field = |name: &str| {
                info.lines()
                    .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()))
                    .unwrap_or_default()
            };
            let (state, slots, known) = (
                field("cluster_state:"),
                field("cluster_slots_assigned:"),
                field("cluster_known_nodes:"),
            );
            let linked = field("role:") != "slave" || field("master_link_status:") == "up";
            if state == "ok" && slots == "16384" && known == size.to_string() && linked {
                return Ok(());
            }
            last = format!("state {state}, {slots} slots assigned, {known} nodes known, linked to its master: {linked}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    bail!("the cluster was not whole within 60 s ({last})")
}
