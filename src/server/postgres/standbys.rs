//! PostgreSQL streaming standbys for a private primary: each a `pg_basebackup -R` copy of the
//! primary on its own loopback port, named `standby<i>` (its `cluster_name`, which the WAL
//! receiver reports as its application name). The primary's `synchronous_standby_names` is set
//! once all of them stream, and the run starts only when each reports the `sync_state` the
//! acknowledgement asked for.

use super::{bin_dir, launch, url, INSTALL_HINT};
use crate::server::topology::ReplicaAck;
use crate::server::{command, hand_over, run_as, Launched, ServerOptions};
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::time::{Duration, Instant};

/// Adds `standbys` standbys to the running `primary` and makes its commits wait for `ack` from
/// `quorum` of them.
pub fn add(
    mut primary: Launched,
    standbys: usize,
    ack: ReplicaAck,
    quorum: usize,
    options: &ServerOptions,
    owner_root: &Path,
) -> Result<Launched> {
    let Some(bin) = bin_dir() else {
        bail!("no PostgreSQL server binaries found under /usr/lib/postgresql: {INSTALL_HINT}");
    };
    let owner = run_as("postgres")?;
    let names: Vec<String> = (1..=standbys).map(|i| format!("standby{i}")).collect();
    for name in &names {
        let dir = primary.process.dir.join(name);
        let data = dir.join("pgdata");
        std::fs::create_dir_all(&data)?;
        // pg_basebackup keeps the modes of a directory it is given; postgres wants 0700.
        std::fs::set_permissions(&data, std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
        hand_over(&[&dir, &data], owner, owner_root)?;
        let mut backup = command(&bin.join("pg_basebackup"), owner);
        backup
            .args(["-h", "127.0.0.1", "-p", &primary.process.port.to_string()])
            .args(["-U", "hakari", "-D"])
            .arg(&data)
            .args(["-R", "-X", "stream", "-c", "fast", "--no-sync"]);
        crate::server::run_tool(&mut backup, "pg_basebackup")
            .with_context(|| format!("cannot make {name}"))?;
        let standby = launch(
            &dir,
            options,
            owner_root,
            "hakari",
            &[("cluster_name", name.clone())],
        )
        .with_context(|| format!("cannot start {name}"))?;
        primary.others.push(standby);
    }
    let mut admin =
        postgres::Client::connect(&url(primary.process.port, "postgres"), postgres::NoTls)?;
    if ack != ReplicaAck::Async {
        let list = format!("ANY {quorum} ({})", names.join(", "));
        // Two statements: ALTER SYSTEM cannot run in the implicit transaction of a batch.
        admin.batch_execute(&format!(
            "ALTER SYSTEM SET synchronous_standby_names = '{list}'"
        ))?;
        admin.batch_execute("SELECT pg_reload_conf()")?;
    }
    let expected = if ack == ReplicaAck::Async {
        "async"
    } else {
        "quorum"
    };
    wait_for_sync_state(&mut admin, &names, expected)?;
    let mut left = nodes(&primary);
    let sync = (ack != ReplicaAck::Async).then_some(quorum);
    let processes: Vec<_> = primary.others.iter().map(|s| &s.process).collect();
    let promote_one = move || -> Result<usize> {
        let name = promote(&left, sync)?.name.clone();
        let at = (left.iter().position(|n| n.name == name)).expect("the promoted is one of them");
        left.remove(at);
        Ok(at)
    };
    (primary.process).fails_over(
        &processes,
        options.topology.kills_lived(),
        Box::new(promote_one),
    );
    Ok(primary)
}

/// A standby as a failover sees it.
pub struct Node {
    /// Its `cluster_name`, the application name its WAL receiver reports.
    pub name: String,
    pub port: u16,
    pub url: String,
}

/// Every node of `primary`'s cluster in libpq's multi-host form, the primary first, for
/// connections to reach whichever node takes writes (`target_session_attrs=read-write`): after
/// a failover, the promoted standby.
pub fn read_write_url(primary: &Launched) -> String {
    let hosts: Vec<String> = std::iter::once(primary)
        .chain(&primary.others)
        .map(|node| format!("127.0.0.1:{}", node.process.port))
        .collect();
    format!(
        "postgresql://hakari@{}/hakari?target_session_attrs=read-write",
        hosts.join(",")
    )
}

/// The standbys of `primary`.
pub fn nodes(primary: &Launched) -> Vec<Node> {
    (primary.others.iter())
        .map(|s| Node {
            name: name_of(s),
            port: s.process.port,
            url: s.url.clone(),
        })
        .collect()
}

/// A standby's name: its directory's, as [`add`] made it.
fn name_of(standby: &Launched) -> String {
    (standby.process.dir.file_name()).map_or("standby".into(), |n| n.to_string_lossy().to_string())
}

/// Promotes the standby among `nodes` that received the most WAL, as a failover manager would,
/// and points the others at it; with `sync` (the quorum of a synchronous acknowledgement) its
/// commits then wait for that many of the others (all of them, if fewer are left). Returns the
/// promoted standby once it takes writes.
pub fn promote(nodes: &[Node], sync: Option<usize>) -> Result<&Node> {
    let admin = |node: &Node| -> Result<postgres::Client> {
        postgres::Client::connect(&node.url, postgres::NoTls)
            .with_context(|| format!("cannot connect to {}", node.name))
    };
    let mut best: Option<(u64, &Node)> = None;
    for node in nodes {
        let received: String = admin(node)?
            .query_one(
                "SELECT coalesce(pg_last_wal_receive_lsn(), '0/0')::text",
                &[],
            )?
            .get(0);
        let lsn = parse_lsn(&received)?;
        if best.is_none_or(|(b, _)| lsn > b) {
            best = Some((lsn, node));
        }
    }
    let (_, chosen) = best.context("no standby to promote")?;
    let mut c = admin(chosen)?;
    // Not pg_promote's own wait, which looks every 100 ms: the clients would find the promoted
    // standby taking writes before the failover is known to be over.
    let promoted: bool = c.query_one("SELECT pg_promote(false)", &[])?.get(0);
    if !promoted {
        bail!("{} could not be asked to promote", chosen.name);
    }
    let start = Instant::now();
    while (c.query_one("SELECT pg_is_in_recovery()", &[])?).get::<_, bool>(0) {
        if start.elapsed() > Duration::from_secs(60) {
            bail!(
                "the promoted {} is still in recovery after 60 s",
                chosen.name
            );
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let others: Vec<&Node> = nodes.iter().filter(|n| n.name != chosen.name).collect();
    for other in &others {
        // Reloaded without a restart; the standby follows the promoted one's new timeline
        // (recovery_target_timeline is 'latest').
        let mut o = admin(other)?;
        o.batch_execute(&format!(
            "ALTER SYSTEM SET primary_conninfo = 'host=127.0.0.1 port={} user=hakari'",
            chosen.port
        ))?;
        o.batch_execute("SELECT pg_reload_conf()")?;
    }
    if let (Some(quorum), false) = (sync, others.is_empty()) {
        let names: Vec<&str> = others.iter().map(|n| n.name.as_str()).collect();
        let list = format!("ANY {} ({})", quorum.min(names.len()), names.join(", "));
        c.batch_execute(&format!(
            "ALTER SYSTEM SET synchronous_standby_names = '{list}'"
        ))?;
        c.batch_execute("SELECT pg_reload_conf()")?;
    }
    Ok(chosen)
}

/// A PostgreSQL LSN (`16/B374D848`) as a number.
fn parse_lsn(text: &str) -> Result<u64> {
    let (hi, lo) = text.split_once('/').context("an LSN has a '/'")?;
    Ok((u64::from_str_radix(hi, 16)? << 32) | u64::from_str_radix(lo, 16)?)
}

/// Waits (up to a minute) until every standby streams and reports `expected` as its sync state.
fn wait_for_sync_state(
    admin: &mut postgres::Client,
    names: &[String],
    expected: &str,
) -> Result<()> {
    let start = Instant::now();
    let mut seen = Vec::new();
    while start.elapsed() < Duration::from_secs(60) {
        seen = admin
            .query(
                "SELECT application_name, state, sync_state FROM pg_stat_replication ORDER BY 1",
                &[],
            )?
            .iter()
            .map(|r| {
                (
                    r.get::<_, String>(0),
                    r.get::<_, String>(1),
                    r.get::<_, String>(2),
                )
            })
            .collect::<Vec<_>>();
        let ready = names.iter().all(|n| {
            seen.iter()
                .any(|(name, state, sync)| name == n && state == "streaming" && sync == expected)
        });
        if ready {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let seen: Vec<String> = seen
        .iter()
        .map(|(n, s, sync)| format!("{n} {s} {sync}"))
        .collect();
    bail!(
        "the standbys did not all reach sync_state '{expected}' within 60 s (pg_stat_replication: {})",
        if seen.is_empty() { "empty".to_string() } else { seen.join(", ") }
    )
}

/// A connection to each standby of `primary` (reached at `url`), by its name, once it has
/// replayed everything the primary had written when called; a standby a failover promoted or
/// killed is left out.
pub fn caught_up(primary: &Launched, url: &str) -> Result<Vec<(String, postgres::Client)>> {
    let mut to_primary = postgres::Client::connect(url, postgres::NoTls)?;
    let mut out = Vec::new();
    // A failover killed the standbys that no longer run (each promoted, then killed in turn).
    for standby in primary.others.iter().filter(|s| s.process.running()) {
        let name = name_of(standby);
        let mut client = postgres::Client::connect(&standby.url, postgres::NoTls)
            .with_context(|| format!("cannot connect to {name}"))?;
        let standing: bool = client.query_one("SELECT pg_is_in_recovery()", &[])?.get(0);
        if !standing {
            continue; // a failover promoted it: it is the primary `url` reaches
        }
        wait_for_replay(&mut to_primary, &mut client).with_context(|| name.clone())?;
        out.push((name, client));
    }
    Ok(out)
}

/// Waits until `standby` has replayed everything the primary had written when called: a read
/// there then sees every commit made before.
fn wait_for_replay(primary: &mut postgres::Client, standby: &mut postgres::Client) -> Result<()> {
    let lsn: String = primary
        .query_one("SELECT pg_current_wal_lsn()::text", &[])?
        .get(0);
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(120) {
        let caught_up: bool = standby
            .query_one(
                "SELECT coalesce(pg_last_wal_replay_lsn() >= $1::text::pg_lsn, false)",
                &[&lsn],
            )?
            .get(0);
        if caught_up {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    bail!("a standby did not replay the primary's WAL up to {lsn} within 120 s")
}
