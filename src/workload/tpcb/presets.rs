//! The tpcb workload's parameters and the presets that name the sources' exact parameters.

use crate::durability::Durability;
use anyhow::{bail, Result};
use serde::Serialize;

/// What one client transaction is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Test {
    /// The TPC-B profile: update account, read it, update teller, update branch, insert history.
    Tpcb,
    /// One account read by key (the PSQL v11 paper's atomic read test).
    AtomicRead,
    /// One account updated by key (its atomic update test).
    AtomicUpdate,
}

impl Test {
    pub fn step(self) -> &'static str {
        match self {
            Test::Tpcb => "tpcb",
            Test::AtomicRead => "atomic-read",
            Test::AtomicUpdate => "atomic-update",
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct TpcbParams {
    pub preset: Option<&'static str>,
    /// Scale factor: the number of branches.
    pub branches: u64,
    pub tellers_per_branch: u64,
    pub accounts_per_branch: u64,
    pub clients: Vec<usize>,
    pub runs: usize,
    /// Seconds each run lasts, unless `transactions` is set.
    pub duration_secs: f64,
    /// Transactions per client per run, instead of a duration.
    pub transactions: Option<u64>,
    /// Table-set layouts to measure: 1 = every client on one set; N = N independent sets with
    /// each client bound to one (the PSQL paper's "16 files").
    pub table_sets: Vec<usize>,
    pub tests: Vec<Test>,
    pub cache_bytes: u64,
    pub default_durability: Vec<Durability>,
}

impl TpcbParams {
    pub fn tellers(&self) -> u64 {
        self.branches * self.tellers_per_branch
    }
    pub fn accounts(&self) -> u64 {
        self.branches * self.accounts_per_branch
    }
}

pub const PRESETS: [&str; 3] = ["bdb-11gr2", "tpc-b", "psql-v11"];

/// TPC-B's database at scale 1, as the specification and `pgbench -i` size it (10 tellers and
/// 100,000 accounts per branch), in short runs.
pub fn default_params() -> TpcbParams {
    TpcbParams {
        preset: None,
        branches: 1,
        tellers_per_branch: 10,
        accounts_per_branch: 100_000,
        clients: vec![1, 2, 4],
        runs: 3,
        duration_secs: 2.0,
        transactions: None,
        table_sets: vec![1],
        tests: vec![Test::Tpcb],
        cache_bytes: 0,
        default_durability: vec![Durability::Sync],
    }
}

pub fn preset(name: &str) -> Result<TpcbParams> {
    Ok(match name {
        // Paper 000, table 6: 1,000 branches, 10,000 tellers, 100,000 accounts (fewer accounts than
        // the specification, as the paper says), 256MB cache, 1..10 threads.
        "bdb-11gr2" => TpcbParams {
            preset: Some("bdb-11gr2"),
            branches: 1_000,
            tellers_per_branch: 10,
            accounts_per_branch: 100,
            clients: vec![1, 2, 3, 4, 5, 10],
            runs: 3,
            duration_secs: 10.0,
            cache_bytes: 256 << 20,
            ..default_params()
        },
        // The specification's ratios: per branch 10 tellers and 100,000 accounts.
        "tpc-b" => TpcbParams {
            preset: Some("tpc-b"),
            accounts_per_branch: 100_000,
            duration_secs: 10.0,
            ..default_params()
        },
        // Paper 004: client sessions doubling to 64; 16 independent table sets against one shared
        // set; plus the atomic read and update tests. All data cached.
        "psql-v11" => TpcbParams {
            preset: Some("psql-v11"),
            branches: 1,
            accounts_per_branch: 10_000,
            clients: vec![1, 2, 4, 8, 16, 32, 64],
            duration_secs: 5.0,
            table_sets: vec![1, 16],
            tests: vec![Test::Tpcb, Test::AtomicRead, Test::AtomicUpdate],
            ..default_params()
        },
        other => bail!(
            "unknown preset '{other}' for the tpcb workload; presets: {}",
            PRESETS.join(", ")
        ),
    })
}
