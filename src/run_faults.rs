//! `--fault` checked against the run before anything starts: the workload, the engines, the
//! topologies and how often a cluster is killed (exit 2, one line, on a refusal).

use crate::engine::Engine;
use crate::errors::Usage;
use crate::measure::fault::Fault;
use crate::server::topology::Topology;
use crate::workload::Workload;
use anyhow::Result;

/// The run's `--fault`, `--url`s and topologies, as its options give them.
pub struct Asked<'a> {
    pub fault: Option<Fault>,
    pub urls: &'a [String],
    pub topologies: &'a [Topology],
}

/// A fault acts on the private servers of a workload that runs a stream of operations.
pub fn check<W: Workload>(
    workload: &W,
    options: Asked,
    engines: &[Engine],
    paced: &str,
) -> Result<()> {
    use crate::measure::fault::Kind;
    let usage = |text: String| Err(anyhow::Error::new(Usage(text)));
    let Some(fault) = options.fault else {
        return Ok(());
    };
    if !W::PACED {
        return usage(format!(
            "--fault does not apply to {}: it has no stream of operations to measure an outage in (it applies to {paced})",
            W::NAME
        ));
    }
    if !options.urls.is_empty() {
        return usage(format!(
            "--fault {fault} acts on the servers hakari starts; a server given by --url is yours, and hakari does not stop its processes"
        ));
    }
    if fault.kind == Kind::Partition {
        if let Err(why) = crate::server::partition::available() {
            return usage(format!(
                "--fault {fault}: this machine cannot cut the network: {why}"
            ));
        }
    }
    // A killed node needs a cluster that lives through it: why a topology does not, if not.
    let refusal: fn(&Topology) -> Option<String> = match fault.kind {
        Kind::KillPrimary => |t| {
            (!matches!(t, Topology::Standbys { .. })).then(|| format!(
                "kills a primary and promotes a standby, and {t} has none: start standbys with --replicas N (postgres), N of 1 or more"
            ))
        },
        Kind::KillNode => |t| {
            // How many kills a cluster lives through is Topology::kills_lived's alone.
            let node = matches!(t, Topology::Galera { .. } | Topology::RedisCluster { .. });
            let lives = node && t.kills_lived() > 0;
            (!lives).then(|| format!(
                "kills a node of a cluster that lives through it, and {t} is not one: --cluster galera:N (mysql), N of 3 or more, or --cluster redis:N --replicas R (redis), R of 1 or more"
            ))
        },
        Kind::Stall | Kind::Restart | Kind::Partition => |_| None,
    };
    let single = [Topology::Single];
    let topologies = match options.topologies {
        [] => &single[..],
        t => t,
    };
    if let Some(why) = topologies.iter().find_map(refusal) {
        return usage(format!("--fault {fault} {why}"));
    }
    let killed = [Kind::KillPrimary, Kind::KillNode].contains(&fault.kind);
    let steps = if killed {
        workload.steps_per_server()
    } else {
        0
    };
    if let Some(why) = topologies.iter().find_map(|t| t.short_of_kills(steps)) {
        return usage(format!("--fault {fault} {why}"));
    }
    if fault.kind == Kind::Restart {
        if options.topologies.iter().any(|t| *t != Topology::Single) {
            return usage(format!(
                "--fault {fault} restarts a single server; a cluster's node is killed by kill-primary (postgres) or kill-node (galera)"
            ));
        }
        let restarts = |e: &Engine| e.private_server().is_some_and(|s| s.restarts());
        if let Some(e) = (engines.iter()).find(|e| e.private_server().is_some() && !restarts(e)) {
            let mut able = crate::engine::all();
            able.retain(restarts);
            return usage(format!(
                "--fault {fault}: engine '{}' keeps no data to restart on; the engines whose server restarts: {}",
                e.name(),
                crate::engine::names(&able)
            ));
        }
    }
    if let Some(e) = engines.iter().find(|e| e.private_server().is_none()) {
        let mut with_one = crate::engine::all();
        with_one.retain(|e| e.private_server().is_some());
        with_one.dedup_by_key(|e| e.name());
        return usage(format!(
            "--fault {fault}: engine '{}' has no server of its own to fault (it runs in hakari's process); the engines with one: {}",
            e.name(),
            crate::engine::names(&with_one)
        ));
    }
    Ok(())
}
