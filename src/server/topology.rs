//! What a private server is started as: one server, or a loopback cluster of real ones
//! (PostgreSQL streaming standbys, MariaDB Galera). Every node shares this machine's disk and
//! cores, so these runs measure what the replication protocol costs, not scale-out.

use std::fmt;

/// One server, or several started together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Topology {
    #[default]
    Single,
    /// A PostgreSQL primary with `standbys` streaming standbys; a commit waits for `ack` from
    /// `quorum` of them (`ANY quorum (...)`).
    Standbys {
        standbys: usize,
        ack: ReplicaAck,
        quorum: usize,
    },
    /// A MariaDB Galera cluster of `nodes` nodes; clients spread over them by `connect`.
    Galera { nodes: usize, connect: Connect },
    /// A Redis Cluster of `masters` masters, each with `replicas` replicas; the client follows
    /// MOVED and ASK redirects.
    RedisCluster { masters: usize, replicas: usize },
}

/// What a PostgreSQL commit waits for from its standbys (`synchronous_commit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplicaAck {
    /// Nothing: standbys follow asynchronously.
    Async,
    /// The standby has written the WAL (not flushed it).
    RemoteWrite,
    /// The standby has flushed the WAL.
    On,
    /// The standby has applied the WAL: a read there sees the commit.
    RemoteApply,
}

impl ReplicaAck {
    pub const ALL: [ReplicaAck; 4] = [
        ReplicaAck::Async,
        ReplicaAck::RemoteWrite,
        ReplicaAck::On,
        ReplicaAck::RemoteApply,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ReplicaAck::Async => "async",
            ReplicaAck::RemoteWrite => "remote-write",
            ReplicaAck::On => "on",
            ReplicaAck::RemoteApply => "remote-apply",
        }
    }

    /// The replication axis of the durability vocabulary: what a commit waits for beyond the
    /// local log.
    pub fn waits_for(self) -> &'static str {
        match self {
            ReplicaAck::Async => "none",
            ReplicaAck::RemoteWrite => "received",
            ReplicaAck::On => "flushed",
            ReplicaAck::RemoteApply => "applied",
        }
    }

    /// The `synchronous_commit` value a session sets for it (None: the level's own).
    pub fn synchronous_commit(self) -> Option<&'static str> {
        match self {
            ReplicaAck::Async => None,
            ReplicaAck::RemoteWrite => Some("remote_write"),
            ReplicaAck::On => Some("on"),
            ReplicaAck::RemoteApply => Some("remote_apply"),
        }
    }
}

/// Which Galera node each client connects to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Connect {
    /// Client i to node i mod N: writes certified against each other's.
    #[default]
    RoundRobin,
    /// Every client to the first node: the others only apply.
    First,
}

impl Connect {
    pub fn name(self) -> &'static str {
        match self {
            Connect::RoundRobin => "round-robin",
            Connect::First => "first",
        }
    }
}

/// The kinds of topology, for engines to say which they can be started as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Standbys,
    Galera,
    RedisCluster,
}

impl Kind {
    /// The flags that start it, and what a commit waits for on it (the replication axis of
    /// the durability vocabulary).
    pub fn describe(self) -> (&'static str, &'static str) {
        match self {
            Kind::Standbys => (
                "--replicas N --replica-ack async|remote-write|on|remote-apply[:k]",
                "none (async), received (remote-write), flushed (on), applied (remote-apply), on k of N standbys",
            ),
            Kind::Galera => (
                "--cluster galera:N --connect round-robin|first",
                "received and certified by every node; applied on each later",
            ),
            Kind::RedisCluster => (
                "--cluster redis:N [--replicas R]",
                "none: replicas follow asynchronously (no WAIT)",
            ),
        }
    }
}

impl Topology {
    pub fn kind(self) -> Option<Kind> {
        match self {
            Topology::Single => None,
            Topology::Standbys { .. } => Some(Kind::Standbys),
            Topology::Galera { .. } => Some(Kind::Galera),
            Topology::RedisCluster { .. } => Some(Kind::RedisCluster),
        }
    }

    /// How many of `--fault kill-primary`'s or `kill-node`'s kills it lives through, one after
    /// the other: a standby promoted for each (PostgreSQL); a majority of the nodes there were
    /// left after each (Galera); one for a Redis Cluster with replicas, whose promoted replica
    /// may have none of its own.
    pub fn kills_lived(self) -> usize {
        match self {
            Topology::Single => 0,
            Topology::Standbys { standbys, .. } => standbys,
            Topology::Galera { nodes, .. } => nodes.saturating_sub(1 + nodes / 2),
            Topology::RedisCluster { replicas, .. } => usize::from(replicas > 0),
        }
    }

    /// Why it cannot live through a kill in each of `steps` timed steps on one start, if not.
    pub fn short_of_kills(self, steps: usize) -> Option<String> {
        (self.kills_lived() < steps).then(|| format!(
            "kills a node in each of the {steps} timed steps run on one start of the servers (runs times thread counts), and the cluster ({self}) lives through {} kill(s): start more nodes (--replicas, --cluster) or run fewer steps (--runs 1, one thread count)",
            self.kills_lived()
        ))
    }

    /// The replication axis: what a commit waits for beyond the local log.
    pub fn waits_for(self) -> String {
        match self {
            Topology::Single => "none (one server)".into(),
            Topology::Standbys {
                standbys,
                ack: ReplicaAck::Async,
                ..
            } => format!("none ({standbys} standbys follow asynchronously)"),
            Topology::Standbys {
                standbys,
                ack,
                quorum,
            } => format!("{} on {quorum} of {standbys} standbys", ack.waits_for()),
            Topology::Galera { nodes, .. } => {
                format!("received and certified by all {nodes} nodes (applied on each later)")
            }
            Topology::RedisCluster { replicas: 0, .. } => "none (no replicas)".into(),
            Topology::RedisCluster { replicas, .. } => {
                format!("none ({replicas} replica(s) per master follow asynchronously)")
            }
        }
    }

    /// Every topology the flags ask for: `--replicas` counts (0 is one server) times the
    /// `--replica-ack` levels, or the `--cluster` entries.
    pub fn list(
        replicas: &[usize],
        acks: &[(ReplicaAck, Option<usize>)],
        clusters: &[Topology],
    ) -> Result<Vec<Topology>, String> {
        if !acks.is_empty() && (replicas.is_empty() || !clusters.is_empty()) {
            return Err(
                "--replica-ack is for PostgreSQL standbys: --replicas N without --cluster".into(),
            );
        }
        if !clusters.is_empty() {
            if replicas.is_empty() {
                return Ok(clusters.to_vec());
            }
            // With a Redis Cluster, --replicas counts each master's replicas.
            let mut out = Vec::new();
            for c in clusters {
                let Topology::RedisCluster { masters, .. } = *c else {
                    return Err(format!(
                        "--replicas with --cluster is for redis:N (replicas per master), not {c}"
                    ));
                };
                out.extend(
                    replicas
                        .iter()
                        .map(|&replicas| Topology::RedisCluster { masters, replicas }),
                );
            }
            return Ok(out);
        }
        let acks = match acks {
            [] => &[(ReplicaAck::On, None)][..],
            a => a,
        };
        let mut out = Vec::new();
        for &standbys in replicas {
            if standbys == 0 {
                out.push(Topology::Single);
                continue;
            }
            for &(ack, quorum) in acks {
                let quorum = quorum.unwrap_or(standbys);
                if quorum == 0 || quorum > standbys {
                    return Err(format!(
                        "--replica-ack {}:{quorum}: the quorum must be 1..{standbys} (the standbys there are)",
                        ack.name()
                    ));
                }
                out.push(Topology::Standbys {
                    standbys,
                    ack,
                    quorum,
                });
            }
        }
        out.dedup();
        Ok(out)
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Topology::Single => write!(f, "one server"),
            Topology::Standbys {
                standbys,
                ack,
                quorum,
            } => {
                write!(f, "primary+{standbys} standbys {}", ack.name())?;
                if quorum < standbys && ack != ReplicaAck::Async {
                    write!(f, " any {quorum}")?;
                }
                Ok(())
            }
            Topology::Galera { nodes, connect } => {
                write!(f, "galera {nodes} nodes {}", connect.name())
            }
            Topology::RedisCluster { masters, replicas } => {
                write!(f, "redis cluster {masters} masters")?;
                if replicas > 0 {
                    write!(f, " {replicas} replica(s) each")?;
                }
                Ok(())
            }
        }
    }
}

/// `--replica-ack` entry: `remote-write`, or `remote-write:1` for a quorum of one (`ANY 1`).
pub fn parse_ack(text: &str) -> Result<(ReplicaAck, Option<usize>), String> {
    let (name, quorum) = match text.split_once(':') {
        Some((n, q)) => (
            n,
            Some(q.parse::<usize>().map_err(|_| {
                format!("--replica-ack {text}: the quorum after ':' must be a number")
            })?),
        ),
        None => (text, None),
    };
    let ack = ReplicaAck::ALL
        .into_iter()
        .find(|a| a.name() == name)
        .ok_or_else(|| {
            format!("unknown replica acknowledgement '{name}' (one of: async, remote-write, on, remote-apply; a quorum as remote-write:1)")
        })?;
    Ok((ack, quorum))
}

/// `--cluster` entry: `galera:3`.
pub fn parse_cluster(text: &str, connect: Connect) -> Result<Topology, String> {
    let bad = || format!("unknown cluster '{text}' (galera:N or redis:N, N nodes from 1 to 9)");
    let (kind, n) = text.split_once(':').ok_or_else(bad)?;
    let nodes: usize = n.parse().map_err(|_| bad())?;
    if !(1..=9).contains(&nodes) {
        return Err(bad());
    }
    match kind {
        "galera" => Ok(Topology::Galera { nodes, connect }),
        // redis-cli --cluster create needs three masters at least.
        "redis" if nodes >= 3 => Ok(Topology::RedisCluster {
            masters: nodes,
            replicas: 0,
        }),
        "redis" => Err(format!(
            "--cluster {text}: a Redis Cluster needs at least 3 masters"
        )),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicas_times_acks_with_zero_as_one_server() {
        let acks = [
            parse_ack("async").unwrap(),
            parse_ack("remote-write:1").unwrap(),
        ];
        let list = Topology::list(&[0, 2], &acks, &[]).unwrap();
        let names: Vec<String> = list.iter().map(|t| t.to_string()).collect();
        assert_eq!(
            names,
            [
                "one server",
                "primary+2 standbys async",
                "primary+2 standbys remote-write any 1"
            ]
        );
        assert_eq!(list[2].waits_for(), "received on 1 of 2 standbys");
    }

    /// Galera goes on while a majority of the nodes there were is left: 3 and 4 nodes live
    /// through one kill, 5 through two.
    #[test]
    fn kills_lived_by_each_topology() {
        let galera = |nodes| parse_cluster(&format!("galera:{nodes}"), Connect::First).unwrap();
        let lived: Vec<usize> = [3, 4, 5].map(|n| galera(n).kills_lived()).into();
        assert_eq!(lived, [1, 1, 2]);
        let standbys = Topology::list(&[2], &[parse_ack("on").unwrap()], &[]).unwrap();
        assert_eq!(standbys[0].kills_lived(), 2);
        assert_eq!(Topology::Single.kills_lived(), 0);
        let redis = |replicas| Topology::RedisCluster {
            masters: 3,
            replicas,
        };
        assert_eq!((redis(0).kills_lived(), redis(2).kills_lived()), (0, 1));
    }

    #[test]
    fn bad_entries_are_refused() {
        assert!(parse_ack("remote_write").is_err());
        assert!(parse_ack("on:x").is_err());
        assert!(Topology::list(&[2], &[parse_ack("on:3").unwrap()], &[]).is_err());
        assert!(Topology::list(&[], &[parse_ack("on").unwrap()], &[]).is_err());
        assert!(parse_cluster("galera", Connect::First).is_err());
        assert!(parse_cluster("galera:0", Connect::First).is_err());
        assert!(parse_cluster("cockroach:3", Connect::First).is_err());
        assert_eq!(
            parse_cluster("galera:3", Connect::First)
                .unwrap()
                .to_string(),
            "galera 3 nodes first"
        );
    }
}
