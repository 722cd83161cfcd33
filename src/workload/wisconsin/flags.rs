//! The wisconsin workload's own flags, and the parameters they make.

use super::{presets, queries, Wisconsin};
use crate::workload::flags::{self, Shared};
use anyhow::{bail, Result};
use clap::Args;

#[derive(Args, Clone, Debug)]
pub struct WisconsinFlags {
    /// Tuples of TENKTUP1 and TENKTUP2 (ONEKTUP and BPRIME get a tenth): 1000, 10000 (the
    /// default, the chapter's size), 100000, 1000000 or 10000000.
    #[arg(long)]
    pub tuples: Option<u64>,
    /// Query numbers to run, as a list of numbers and ranges (e.g. 1-8,18,20-25; default all 32).
    #[arg(long)]
    pub queries: Option<String>,
    /// What happens to a query's rows: store (INSERT INTO a result relation, as the original;
    /// the default), fetch (sent to the client), count (SELECT COUNT(*)).
    #[arg(long)]
    pub result_mode: Option<String>,
}

impl WisconsinFlags {
    /// The workload with these flags (and a preset's parameters under them).
    pub fn workload(&self, shared: &Shared) -> Result<Wisconsin> {
        let mut p = match &shared.preset {
            Some(name) => presets::preset(name)?,
            None => presets::default_params(),
        };
        flags::set(&mut p.tuples, self.tuples);
        if let Some(q) = &self.queries {
            p.queries = queries::parse_selection(q)?;
        }
        if let Some(m) = &self.result_mode {
            p.result_mode = presets::ResultMode::parse(m)?;
        }
        flags::set(&mut p.runs, shared.runs);
        if shared.threads.is_some() {
            bail!("the wisconsin workload is single user: it takes no --threads");
        }
        Ok(Wisconsin::new(p))
    }
}
