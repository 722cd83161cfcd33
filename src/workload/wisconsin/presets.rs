//! The wisconsin workload's parameters and the preset of paper 000's table 7.

use crate::durability::Durability;
use anyhow::{bail, Result};
use serde::Serialize;

/// What happens to a query's result rows; the time includes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResultMode {
    /// `INSERT INTO TMP SELECT ...`: stored in a result relation, as the original did, so that
    /// the client and the network do not dominate.
    Store,
    /// Every row sent to the client and kept there.
    Fetch,
    /// Only the number of rows comes back: `SELECT COUNT(*)`.
    Count,
}

impl ResultMode {
    pub fn parse(text: &str) -> Result<ResultMode> {
        Ok(match text.trim().to_ascii_lowercase().as_str() {
            "store" => ResultMode::Store,
            "fetch" => ResultMode::Fetch,
            "count" => ResultMode::Count,
            other => bail!("unknown result mode '{other}'; modes: store, fetch, count"),
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            ResultMode::Store => "store",
            ResultMode::Fetch => "fetch",
            ResultMode::Count => "count",
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct WisconsinParams {
    pub preset: Option<&'static str>,
    /// Rows of TENKTUP1 and TENKTUP2; ONEKTUP and BPRIME have a tenth of it.
    pub tuples: u64,
    /// Query numbers to run, ascending.
    pub queries: Vec<u8>,
    pub result_mode: ResultMode,
    pub runs: usize,
    pub cache_bytes: u64,
    pub default_durability: Vec<Durability>,
}

pub const PRESETS: [&str; 1] = ["bdb-11gr2"];

/// The chapter's relations (10,000 tuples), all 32 queries, 10 runs each.
pub fn default_params() -> WisconsinParams {
    WisconsinParams {
        preset: None,
        tuples: 10_000,
        queries: (1..=32).collect(),
        result_mode: ResultMode::Store,
        runs: 10,
        cache_bytes: 0,
        default_durability: vec![Durability::Sync],
    }
}

pub fn preset(name: &str) -> Result<WisconsinParams> {
    Ok(match name {
        // Paper 000, table 7: the standard relations, the 32 cases, mean of 10 runs. The paper
        // states no cache size for this test, so the engine's default is kept.
        "bdb-11gr2" => WisconsinParams {
            preset: Some("bdb-11gr2"),
            ..default_params()
        },
        other => bail!(
            "unknown preset '{other}' for the wisconsin workload; presets: {}",
            PRESETS.join(", ")
        ),
    })
}
