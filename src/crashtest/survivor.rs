//! Where the commits of a crashed loopback cluster are looked for: the PostgreSQL standby that
//! received the most WAL, promoted as a failover manager would promote it, or a Galera node once
//! it is Synced in the remaining primary component.

use crate::server::topology::Topology;
use crate::server::Launched;
use anyhow::{bail, Context, Result};
use std::time::{Duration, Instant};

/// The node that takes writes once the crashed cluster's first has gone: the most advanced
/// standby promoted, or Galera's second node once Synced.
pub(super) fn survivor(cluster: &Launched, topology: Topology) -> Result<String> {
    match topology {
        Topology::Galera { nodes, .. } => galera_survivor(cluster, nodes),
        _ => promote_most_advanced(cluster),
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
