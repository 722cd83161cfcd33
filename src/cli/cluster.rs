//! The flags that start a private server as a loopback cluster.

use crate::errors::Usage;
use crate::server::topology::{parse_ack, parse_cluster, Connect, Topology};
use crate::shard::{Given, Shard};
use crate::units::parse_counts;
use anyhow::Result;
use clap::Args;

/// Replicated and clustered servers, started for real on loopback ports by hakari.
#[derive(Args, Clone, Debug)]
#[command(next_help_heading = "Replication and clusters (loopback: every node on this machine)")]
pub struct ClusterArgs {
    /// postgres: start a primary and this many streaming standbys (pg_basebackup -R), each on
    /// its own loopback port; comma-separated counts run each configuration once per count
    /// (0 is one server, to compare against). With --cluster redis:N: replicas per master.
    #[arg(long, value_name = "COUNTS")]
    pub replicas: Option<String>,
    /// What a commit waits for from the standbys (synchronous_commit), comma-separated: async,
    /// remote-write (received), on (flushed), remote-apply (applied). `remote-write:1` waits for
    /// any 1 of them (ANY 1 quorum); default: on, from all.
    #[arg(long, value_name = "ACKS", requires = "replicas")]
    pub replica_ack: Option<String>,
    /// mysql: start a MariaDB Galera cluster of N nodes (galera:3), bootstrapped with
    /// --wsrep-new-cluster; redis: a Redis Cluster of N masters (redis:3, made with
    /// redis-cli --cluster create); comma-separated entries run each configuration once per
    /// entry.
    #[arg(long, value_name = "LIST")]
    pub cluster: Option<String>,
    /// Which Galera node each client connects to.
    #[arg(long, value_enum, value_name = "HOW", requires = "cluster")]
    pub connect: Option<Connect>,
}

impl ClusterArgs {
    /// Every topology asked for; empty: one server. A bad entry is a usage error (exit 2).
    pub fn topologies(&self) -> Result<Vec<Topology>> {
        let usage = |text: String| anyhow::Error::new(Usage(text));
        let replicas = match &self.replicas {
            Some(text) => parse_counts_from_zero(text).map_err(usage)?,
            None => Vec::new(),
        };
        let split = |text: &Option<String>| -> Vec<String> {
            text.iter()
                .flat_map(|t| t.split(','))
                .map(|s| s.trim().to_string())
                .collect()
        };
        let acks = split(&self.replica_ack)
            .iter()
            .map(|a| parse_ack(a))
            .collect::<Result<Vec<_>, _>>()
            .map_err(usage)?;
        let connect = self.connect.unwrap_or_default();
        let clusters = split(&self.cluster)
            .iter()
            .map(|c| parse_cluster(c, connect))
            .collect::<Result<Vec<_>, _>>()
            .map_err(usage)?;
        Topology::list(&replicas, &acks, &clusters).map_err(usage)
    }
}

/// `--replicas`: counts from 0 (one server) up.
fn parse_counts_from_zero(text: &str) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for part in text.split(',') {
        match part.trim() {
            "0" => out.push(0),
            p => out.extend(parse_counts(p, "standbys").map_err(|e| format!("--replicas: {e}"))?),
        }
    }
    if out.iter().any(|&n| n > 9) {
        return Err("--replicas: at most 9 standbys on one machine".into());
    }
    Ok(out)
}

/// Several client machines making one run against one server.
#[derive(Args, Clone, Debug)]
#[command(next_help_heading = "Several client machines (merged with `hakari merge`)")]
pub struct ShardArgs {
    /// This machine's part of a run that N client machines make together (2/3: the second of
    /// three): what a machine writes as its own is split into N parts (tpcb: the branches, each
    /// machine's tellers in its own; ycsb: the records it inserts); --rate is divided by N;
    /// reads cover the whole data. Shard 1 creates and loads the tables and drops them once
    /// every shard is done. Needs --url. The clients check in where they meet and start
    /// together when all have, in whatever order they were started.
    ///
    /// `auto` takes the place from the scheduler that started this client: a Kubernetes
    /// Indexed Job (JOB_COMPLETION_INDEX; give auto/N, N the Job's completions), Slurm's srun
    /// (SLURM_PROCID, SLURM_NTASKS), Open MPI or PMI launchers.
    #[arg(long, value_name = "I/N|auto[/N]", value_parser = Given::parse)]
    pub shard: Option<Given>,
    /// With --shard, who loads the data: `first` (shard 1 loads all of it) or `all` (each shard
    /// loads its own part at once: tpcb its branches, ycsb its share of the records, as YCSB's
    /// insertstart/insertcount; ycsb's loads then start together and are timed).
    #[arg(long, value_name = "WHO", value_parser = ["first", "all"], requires = "shard")]
    pub load: Option<String>,
    /// Start the timed steps no earlier than this instant, the same on every client machine
    /// (UTC: 2026-12-01T10:00:00Z; clocks assumed in sync): each result records how far from it
    /// its steps started. Not needed with --shard: the clients agree on a start themselves.
    #[arg(long, value_name = "TIME", value_parser = start_at)]
    pub start_at: Option<StartAt>,
    /// How long a client waits for the others (shard 1's tables, every shard's check-in, the
    /// others' loads and last steps) before the run fails for all, naming who is missing.
    #[arg(long, value_name = "SECONDS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..), requires = "shard")]
    pub shard_timeout: u64,
}

impl ShardArgs {
    /// `--shard` (its place from the scheduler's variables for `auto`) with `--load` applied.
    pub fn shard(&self) -> anyhow::Result<Option<Shard>> {
        let load_all = self.load.as_deref() == Some("all");
        let Some(given) = self.shard else {
            return Ok(None);
        };
        let shard = given.resolve(|name| std::env::var(name).ok())?;
        crate::shard::set_patience(self.shard_timeout);
        Ok(Some(Shard { load_all, ..shard }))
    }
}

/// `--start-at` as given and as an instant.
#[derive(Clone, Debug)]
pub struct StartAt(pub String, pub std::time::SystemTime);

fn start_at(text: &str) -> Result<StartAt, String> {
    let at = crate::results::time::parse_rfc3339(text)?;
    Ok(StartAt(text.to_string(), at))
}
