//! The wisconsin workload's own flags, and the parameters they make.

use super::presets::{self, ResultMode};
use super::{queries, Wisconsin};
use crate::workload::flags::{self, Flags, Shared};
use anyhow::{bail, Result};
use clap::Args;

#[derive(Args, Clone, Debug)]
pub struct WisconsinFlags {
    /// Tuples of TENKTUP1 and TENKTUP2 (ONEKTUP and BPRIME get a tenth): 1000, 10000 (the
    /// default, the chapter's size), 100000, 1000000 or 10000000.
    #[arg(long, value_name = "N")]
    pub tuples: Option<u64>,
    /// Query numbers to run, as a list of numbers and ranges (e.g. 1-8,18,20-25; default all 32).
    #[arg(long, value_name = "LIST", value_parser = queries::parse_selection)]
    // The full path keeps clap from taking the list for several values.
    pub queries: Option<::std::vec::Vec<u8>>,
    /// What happens to a query's rows: store (INSERT INTO a result relation, as the original;
    /// the default), fetch (sent to the client), count (SELECT COUNT(*)).
    #[arg(long, value_name = "store|fetch|count", value_parser = ResultMode::parse)]
    pub result_mode: Option<ResultMode>,
}

impl Flags for WisconsinFlags {
    type Workload = Wisconsin;
    const PRESETS: &'static [&'static str] = &presets::PRESETS;
    const ABOUT: &'static str =
        "The 32 Wisconsin benchmark queries on the standard relations (paper 000 table 7).";
    /// The workload with these flags (and a preset's parameters under them).
    fn workload(&self, shared: &Shared) -> Result<Wisconsin> {
        let mut p = shared.start_from(presets::preset, presets::default_params)?;
        flags::set(&mut p.tuples, self.tuples);
        flags::set(&mut p.queries, self.queries.clone());
        flags::set(&mut p.result_mode, self.result_mode);
        flags::set(&mut p.runs, shared.runs);
        if shared.threads.is_some() {
            bail!("the wisconsin workload is single user: it takes no --threads");
        }
        Ok(Wisconsin::new(p))
    }
}
