//! The tpcc workload's parameters, and the presets that set them as the specification and as
//! HammerDB's default test do.

use crate::durability::Durability;
use anyhow::{bail, Result};
use serde::Serialize;

/// Which consistency conditions (§3.3.2) are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    None,
    /// 1-4, the ones that must always hold.
    Required,
    /// 1-10 and 12 after every run, 11 right after the load.
    All,
}

impl Check {
    pub fn parse(text: &str) -> Result<Check> {
        Ok(match text {
            "none" => Check::None,
            "required" => Check::Required,
            "all" => Check::All,
            other => bail!("--check takes none, required or all, not '{other}'"),
        })
    }

    /// The conditions checked after a run.
    pub fn after_run(self) -> &'static [u32] {
        match self {
            Check::None => &[],
            Check::Required => &[1, 2, 3, 4],
            Check::All => &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12],
        }
    }

    /// The conditions checked right after the load (11 holds only until the first Delivery).
    pub fn after_load(self) -> &'static [u32] {
        match self {
            Check::All => &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
            _ => &[],
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct TpccParams {
    pub preset: Option<&'static str>,
    /// `--warehouses`: each count loaded afresh and measured in turn.
    pub warehouse_counts: Vec<u64>,
    /// The warehouses of the tables measured now: one of `warehouse_counts`.
    pub warehouses: u64,
    /// Terminals (clients) per run: each count its own measurement. None: 10 per warehouse.
    pub clients: Option<Vec<usize>>,
    pub runs: usize,
    /// Measured seconds of each run, after the ramp-up.
    pub duration_secs: f64,
    /// Seconds each run runs before it is measured.
    pub ramp_up_secs: f64,
    /// Keying and think times (§5.2.5.7).
    pub think: bool,
    /// Percentages of New-Order, Payment, Order-Status, Delivery and Stock-Level drawn at
    /// random, instead of the 23-card deck.
    pub weights: Option<[u32; 5]>,
    pub check: Check,
    pub default_durability: Vec<Durability>,
}

impl TpccParams {
    /// The terminal counts to run.
    pub fn client_counts(&self) -> Vec<usize> {
        (self.clients.clone()).unwrap_or_else(|| vec![10 * self.warehouses as usize])
    }
}

pub const PRESETS: [&str; 2] = ["spec", "hammerdb"];

/// One warehouse, ten terminals, keying and think times off: a short look that runs on the
/// embedded default in well under a minute.
pub fn default_params() -> TpccParams {
    TpccParams {
        preset: None,
        warehouse_counts: vec![1],
        warehouses: 1,
        clients: None,
        runs: 1,
        duration_secs: 20.0,
        ramp_up_secs: 2.0,
        think: false,
        weights: None,
        check: Check::All,
        default_durability: vec![Durability::Sync],
    }
}

pub fn preset(name: &str) -> Result<TpccParams> {
    Ok(match name {
        // The specification's terminals: 10 per warehouse with keying and think times, so each
        // warehouse offers at most ~12.6 New-Orders a minute; a longer ramp-up and run.
        "spec" => TpccParams {
            preset: Some("spec"),
            think: true,
            clients: None,
            duration_secs: 600.0,
            ramp_up_secs: 60.0,
            ..default_params()
        },
        // HammerDB's default timed test: no keying or think time, 2 minutes of ramp-up and 5
        // measured (its virtual users are --clients).
        "hammerdb" => TpccParams {
            preset: Some("hammerdb"),
            think: false,
            duration_secs: 300.0,
            ramp_up_secs: 120.0,
            ..default_params()
        },
        other => bail!(
            "unknown preset '{other}' for the tpcc workload; presets: {}",
            PRESETS.join(", ")
        ),
    })
}
