//! Where the commits of a crashed loopback cluster are looked for: the PostgreSQL standby that
//! received the most WAL, promoted as a failover manager would promote it, or a Galera node once
//! it is Synced in the remaining primary component.

use crate::server::topology::Topology;
use crate::server::Launched;
use anyhow::{Context, Result};

/// The node that takes writes once the crashed cluster's first has gone: the most advanced
/// standby promoted, or Galera's second node once Synced.
pub(super) fn survivor(cluster: &Launched, topology: Topology) -> Result<String> {
    match topology {
        Topology::Galera { .. } => galera_survivor(cluster),
        _ => promote_most_advanced(cluster),
    }
}

/// The standby that received the most WAL, promoted (its URL once it takes writes).
fn promote_most_advanced(cluster: &Launched) -> Result<String> {
    use crate::server::postgres::standbys::{nodes, promote};
    Ok(promote(&nodes(cluster), None)?.url.clone())
}

/// Node 2 of a Galera cluster whose node 1 was killed, once the others are Synced in a primary
/// component of their own and it has applied everything it received.
fn galera_survivor(cluster: &Launched) -> Result<String> {
    use mysql::prelude::Queryable;
    let node = cluster.others.first().context("no other Galera node")?;
    crate::server::mariadb::galera::wait_component(&crate::server::mariadb::galera::others(
        cluster,
    ))?;
    // A causal read waits until the node has applied every writeset it received.
    let mut c = mysql::Conn::new(mysql::Opts::from_url(&node.url)?)?;
    c.query_drop("SET SESSION wsrep_sync_wait = 1")?;
    c.query_drop("SELECT 1")?;
    Ok(node.url.clone())
}
