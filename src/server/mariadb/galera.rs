//! A MariaDB Galera cluster on loopback: N `mariadbd` nodes with Debian's galera-4 provider,
//! each with its own data directory (`node<i>`), MySQL port, group-communication, IST and SST
//! ports. The first bootstraps the cluster (`--wsrep-new-cluster`); each other joins by state
//! transfer (rsync), one at a time. The run starts once every node is Synced in a cluster of N.

use super::{init_data, launch, socket_opts, INSTALL_HINT};
use crate::server::{free_port, Launched, ServerOptions};
use anyhow::{bail, Context, Result};
use mysql::prelude::Queryable;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Where Debian's galera-4 puts the provider.
const PROVIDER: &str = "/usr/lib/galera/libgalera_smm.so";

/// Starts a cluster of `nodes` nodes in `dir`, hakari's database created on the first (and so
/// on every node).
pub fn start(
    dir: &Path,
    nodes: usize,
    options: &ServerOptions,
    owner_root: &Path,
) -> Result<Launched> {
    if !Path::new(PROVIDER).exists() {
        bail!("no Galera provider at {PROVIDER}: install galera-4 (`sudo apt-get install galera-4`, or scripts/setup-servers.sh); {INSTALL_HINT}");
    }
    // Group communication ports, known to every node before any starts.
    let gcomm: Vec<u16> = (0..nodes).map(|_| free_port()).collect::<Result<_>>()?;
    let address = gcomm
        .iter()
        .map(|p| format!("127.0.0.1:{p}"))
        .collect::<Vec<_>>()
        .join(",");
    let mut launched: Vec<Launched> = Vec::new();
    for (i, &port) in gcomm.iter().enumerate() {
        let node_dir = dir.join(format!("node{}", i + 1));
        let start = || -> Result<_> {
            std::fs::create_dir_all(&node_dir)?;
            init_data(&node_dir, owner_root)?;
            let mut extra = node_options(i + 1, port, &address)?;
            if i == 0 {
                extra.push("--wsrep-new-cluster".into());
            }
            let (process, socket) = launch(&node_dir, options, owner_root, &extra)
                .with_context(|| format!("cannot start Galera node {}", i + 1))?;
            wait_synced(&socket, i + 1)
                .with_context(|| format!("Galera node {} did not join", i + 1))?;
            Ok((process, socket))
        };
        // A joiner's state transfer now and then fails for good ("State wait was interrupted",
        // the node aborts): it is started once more, from an empty data directory and on
        // fresh transfer ports.
        let (process, socket) = match start() {
            Err(e) if i > 0 => {
                eprintln!("note: {}; starting it again", crate::errors::sentence(&e));
                std::fs::remove_dir_all(&node_dir)?;
                start()?
            }
            started => started?,
        };
        let mut admin = mysql::Conn::new(socket_opts(&socket, None))?;
        if i == 0 {
            admin.query_drop("CREATE DATABASE hakari")?;
        }
        launched.push(Launched {
            url: super::client_url(&mut admin, &socket, process.port)?,
            process,
            others: Vec::new(),
        });
    }
    let sockets: Vec<PathBuf> = launched
        .iter()
        .map(|l| super::socket(&l.process.dir))
        .collect();
    for (i, socket) in sockets.iter().enumerate() {
        wait_synced(socket, nodes).with_context(|| format!("Galera node {}", i + 1))?;
    }
    let mut all = launched.into_iter();
    let mut first = all.next().context("a Galera cluster of no nodes")?;
    first.others = all.collect();
    // A killed node (`--fault kill-node`): the others go on once they are a primary component
    // without it, which takes a majority of the nodes there were.
    let processes: Vec<_> = first.others.iter().map(|o| &o.process).collect();
    let mut left = others(&first);
    let going_on = move || -> Result<usize> {
        wait_component(&left)?;
        left.remove(0);
        Ok(0)
    };
    let kills = options.topology.kills_lived();
    (first.process).fails_over(&processes, kills, Box::new(going_on));
    Ok(first)
}

/// The sockets of `cluster`'s other nodes than its first.
pub fn others(cluster: &Launched) -> Vec<PathBuf> {
    (cluster.others.iter())
        .map(|o| super::socket(&o.process.dir))
        .collect()
}

/// Waits (up to two minutes) until each node at `sockets` is Synced in a primary component of
/// exactly these nodes (a killed one is out of it).
pub fn wait_component(sockets: &[PathBuf]) -> Result<()> {
    let start = Instant::now();
    let mut last = String::from("no answer");
    while start.elapsed() < Duration::from_secs(120) {
        let mut all = true;
        for socket in sockets {
            let status: Vec<(String, String)> = mysql::Conn::new(socket_opts(socket, None))
                .and_then(|mut c| c.query("SHOW STATUS WHERE Variable_name IN ('wsrep_cluster_size', 'wsrep_cluster_status', 'wsrep_local_state_comment')"))
                .unwrap_or_default();
            let get = |name: &str| {
                (status.iter())
                    .find(|(k, _)| k == name)
                    .map_or("", |(_, v)| v.as_str())
            };
            let (size, component, state) = (
                get("wsrep_cluster_size"),
                get("wsrep_cluster_status"),
                get("wsrep_local_state_comment"),
            );
            if size != sockets.len().to_string() || component != "Primary" || state != "Synced" {
                last = format!("{state}, {component} component of {size}");
                all = false;
                break;
            }
        }
        if all {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    bail!(
        "the {} Galera nodes left were not Synced in a primary component of their own within 120 s ({last})",
        sockets.len()
    )
}

/// The wsrep options of node `n`, listening for the group on `gcomm_port`.
fn node_options(n: usize, gcomm_port: u16, cluster: &str) -> Result<Vec<String>> {
    let (ist, sst) = (free_port()?, free_port()?);
    Ok(vec![
        "--wsrep-on=ON".into(),
        format!("--wsrep-provider={PROVIDER}"),
        "--wsrep-cluster-name=hakari".into(),
        format!("--wsrep-cluster-address=gcomm://{cluster}"),
        format!("--wsrep-node-name=node{n}"),
        format!("--wsrep-node-address=127.0.0.1:{gcomm_port}"),
        format!(
            "--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:{gcomm_port};ist.recv_addr=127.0.0.1:{ist};gcache.size=64M"
        ),
        "--wsrep-sst-method=rsync".into(),
        format!("--wsrep-sst-receive-address=127.0.0.1:{sst}"),
        // What Galera requires of InnoDB and the row format.
        "--binlog-format=ROW".into(),
        "--innodb-autoinc-lock-mode=2".into(),
        "--default-storage-engine=InnoDB".into(),
    ])
}

/// Waits (up to two minutes) until the node at `socket` is Synced in a cluster of at least
/// `size` nodes.
fn wait_synced(socket: &Path, size: usize) -> Result<()> {
    let start = Instant::now();
    let mut last = String::from("no answer");
    while start.elapsed() < Duration::from_secs(120) {
        // A joining node may drop the connection while its state is transferred: ask again.
        let status: Option<Vec<(String, String)>> = mysql::Conn::new(socket_opts(socket, None))
            .and_then(|mut c| {
                c.query("SHOW STATUS WHERE Variable_name IN ('wsrep_cluster_size', 'wsrep_local_state_comment')")
            })
            .ok();
        if let Some(status) = status {
            let get = |name: &str| {
                (status.iter())
                    .find(|(k, _)| k == name)
                    .map_or("", |(_, v)| v.as_str())
            };
            let members: usize = get("wsrep_cluster_size").parse().unwrap_or(0);
            let state = get("wsrep_local_state_comment");
            if members >= size && state == "Synced" {
                return Ok(());
            }
            last = format!("{state} in a cluster of {members}");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    bail!("not Synced in a cluster of {size} within 120 s ({last})")
}
