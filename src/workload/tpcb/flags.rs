//! The tpcb workload's own flags, and the parameters they make.

use super::presets::{self, TpcbParams};
use crate::units::parse_counts;
use crate::workload::flags::{self, Flags, Shared};
use anyhow::{bail, Result};
use clap::Args;

#[derive(Args, Clone, Debug)]
pub struct TpcbFlags {
    /// Scale factor: the number of branches (default 1; bdb-11gr2: 1,000).
    #[arg(long, value_name = "BRANCHES")]
    pub scale: Option<u64>,
    /// Tellers per branch (default 10, as the TPC-B specification).
    #[arg(long, value_name = "N")]
    pub tellers_per_branch: Option<u64>,
    /// Accounts per branch (default 100,000, as the TPC-B specification and pgbench -i;
    /// bdb-11gr2: 100; psql-v11: 10,000).
    #[arg(long, value_name = "N")]
    pub accounts_per_branch: Option<u64>,
    /// Seconds each run lasts (default 2).
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,
    /// Transactions per client per run, instead of a duration.
    #[arg(long, value_name = "N")]
    pub transactions: Option<u64>,
    /// Table-set layouts, comma-separated: 1 = all clients share one set of tables; 16 = 16
    /// independent sets, each client bound to one (psql-v11 runs 1,16).
    #[arg(long, value_name = "LIST")]
    pub table_sets: Option<String>,
}

impl Flags for TpcbFlags {
    type Workload = TpcbParams;
    const PRESETS: &'static [&'static str] = &presets::PRESETS;
    const ABOUT: &'static str =
        "TPC-B-like transactions by N clients (paper 000 table 6, the PSQL v11 paper).";
    /// The workload with these flags (and a preset's parameters under them).
    fn workload(&self, shared: &Shared) -> Result<TpcbParams> {
        let mut p = shared.start_from(presets::preset, presets::default_params)?;
        flags::set(&mut p.branches, self.scale);
        flags::set(&mut p.tellers_per_branch, self.tellers_per_branch);
        flags::set(&mut p.accounts_per_branch, self.accounts_per_branch);
        flags::set(&mut p.duration_secs, self.duration);
        if let Some(t) = self.transactions {
            if t == 0 {
                bail!("--transactions must be at least 1");
            }
            p.transactions = Some(t);
        }
        flags::set(
            &mut p.table_sets,
            self.table_sets
                .as_deref()
                .map(|t| parse_counts(t, "table sets"))
                .transpose()?,
        );
        flags::set(&mut p.runs, shared.runs);
        flags::set(&mut p.clients, shared.threads("clients")?);
        Ok(p)
    }
}
