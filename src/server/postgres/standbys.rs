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
    Ok(primary)
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
/// replayed everything the primary had written when called.
pub fn caught_up(primary: &Launched, url: &str) -> Result<Vec<(String, postgres::Client)>> {
    let mut to_primary = postgres::Client::connect(url, postgres::NoTls)?;
    let mut out = Vec::new();
    for standby in &primary.others {
        let name = (standby.process.dir.file_name())
            .map_or("standby".into(), |n| n.to_string_lossy().to_string());
        let mut client = postgres::Client::connect(&standby.url, postgres::NoTls)
            .with_context(|| format!("cannot connect to {name}"))?;
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
