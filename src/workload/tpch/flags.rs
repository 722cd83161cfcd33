//! The tpch workload's own flags, and the parameters they make.

use super::presets::{self, TpchParams};
use crate::workload::flags::{Flags, Shared};
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Clone, Debug)]
pub struct TpchFlags {
    /// Scale factors, comma-separated (default 0.01; dbt3: 1). Each is loaded and measured on a
    /// fresh database.
    #[arg(long, value_name = "LIST")]
    pub sf: Option<String>,
    /// Query streams of the throughput test (default: the TPC-H minimum for the SF, 2 below
    /// SF 10; dbt3: 4).
    #[arg(long, value_name = "N")]
    pub streams: Option<usize>,
    /// Also run the 22 queries with the qualification parameters after the load and check their
    /// answers (answer sets exist for SF 0.01, 0.1 and 1); a wrong answer is an error.
    #[arg(long)]
    pub validate: bool,
    /// Also write the generated tables as dbgen .tbl files into DIR/sf<SF>/.
    #[arg(long, value_name = "DIR")]
    pub keep_data: Option<PathBuf>,
    /// Keys and indexes built after the load: `kit` (default) as each engine's own TPC-H kit
    /// builds them (DBT-3's primary keys and indexes; none on DuckDB, as its tpch extension),
    /// or `all` (DBT-3's on every engine).
    #[arg(long, value_enum, value_name = "WHICH")]
    pub keys: Option<presets::Keys>,
}

impl Flags for TpchFlags {
    type Workload = TpchParams;
    const PRESETS: &'static [&'static str] = presets::PRESETS;
    const ABOUT: &'static str =
        "TPC-H-like decision support as OSDL DBT-3 ran it (paper 003): load test, power test, \
        throughput test, at one or more scale factors. Derived from TPC-H; not comparable to \
        published TPC-H results.";
    /// The workload with these flags (and a preset's parameters under them).
    fn workload(&self, shared: &Shared) -> Result<TpchParams> {
        let mut p = shared.start_from(presets::preset, presets::default_params)?;
        if let Some(list) = &self.sf {
            p.scale_factors = presets::parse_scale_factors(list)?;
        }
        if let Some(s) = self.streams {
            if s == 0 {
                bail!("--streams must be at least 1");
            }
            p.streams = Some(s);
        }
        if shared.runs.is_some() {
            bail!("tpch runs the load, power and throughput tests once per scale factor; it takes no --runs");
        }
        if shared.threads.is_some() {
            bail!("tpch takes --streams (query streams of the throughput test), not --threads");
        }
        p.validate = self.validate;
        if let Some(keys) = self.keys {
            p.keys = keys;
        }
        if let Some(dir) = &self.keep_data {
            std::fs::create_dir_all(dir).with_context(|| {
                format!("cannot create --keep-data directory {}", dir.display())
            })?;
            p.keep_data = Some(dir.clone());
        }
        Ok(p)
    }
}
