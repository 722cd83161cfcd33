//! The result file: a versioned schema written atomically, read back by `report` and `compare`.

pub mod environment;
pub mod recorder;
pub mod redact;
pub mod store;
pub mod time;

use crate::measure::latency::LatencySummary;
use crate::measure::runner::StepOutcome;
use crate::measure::stats::Summary;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Bumped whenever a field changes meaning or is removed; readers refuse other versions.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunResult {
    pub schema_version: u32,
    pub hakari_version: String,
    pub run_id: String,
    pub started_at: String,
    pub finished_at: Option<String>,
    /// "running", "complete", "interrupted" or "failed". Only "complete" is a whole run.
    pub status: String,
    pub complete: bool,
    /// The command line, passwords removed.
    pub command_line: Vec<String>,
    pub seed: u64,
    pub workload: String,
    pub preset: Option<String>,
    /// The workload's parameters as run (sizes, counts, steps).
    pub parameters: BTreeMap<String, Value>,
    pub environment: environment::Environment,
    /// One entry per engine x durability level that ran: version, mapping, effective settings.
    pub engines: Vec<EngineRecord>,
    pub measurements: Vec<Measurement>,
    /// Figures derived from the measurements (ratios, composite metrics).
    #[serde(default)]
    pub metrics: Vec<Metric>,
    /// Things the reader should know: skipped combinations and why, warnings.
    #[serde(default)]
    pub notes: Vec<String>,
    #[serde(default)]
    pub errors: Vec<String>,
    /// The `--require` thresholds checked at the end of the run, and how each went.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requirements: Vec<RequirementOutcome>,
}

/// One `--require` threshold after the run: whether every figure it selects keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RequirementOutcome {
    pub requirement: String,
    pub passed: bool,
    /// The figures that broke it, or how many were checked.
    pub detail: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EngineRecord {
    pub engine: String,
    pub version: String,
    pub durability: String,
    /// The engine knobs this durability level maps to.
    pub durability_mapping: String,
    pub settings: BTreeMap<String, String>,
}

/// One figure of one run.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct RunFigure {
    pub ops: u64,
    pub seconds: f64,
    pub ops_per_sec: f64,
}

/// A measured step: `runs` repeats of the same work by `threads` workers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Measurement {
    pub workload: String,
    pub engine: String,
    pub durability: String,
    pub threads: usize,
    pub step: String,
    /// Further dimensions of this configuration (txn grouping, payload size, query number...).
    #[serde(default)]
    pub config: BTreeMap<String, Value>,
    pub runs: Vec<RunFigure>,
    pub ops_per_sec_mean: f64,
    pub ops_per_sec_stddev: f64,
    pub ops_per_sec_min: f64,
    pub ops_per_sec_max: f64,
    pub seconds_mean: f64,
    pub seconds_stddev: f64,
    /// Latency of each timed unit, merged over workers and runs.
    pub latency: Option<LatencySummary>,
    #[serde(default)]
    pub retries: u64,
}

impl Measurement {
    /// Builds a measurement from the outcomes of its runs.
    pub fn from_runs(key: MeasurementKey, outcomes: &[StepOutcome]) -> Measurement {
        let runs: Vec<RunFigure> = outcomes
            .iter()
            .map(|o| RunFigure {
                ops: o.ops,
                seconds: o.seconds,
                ops_per_sec: o.ops_per_sec(),
            })
            .collect();
        let rate = Summary::of(&runs.iter().map(|r| r.ops_per_sec).collect::<Vec<_>>());
        let secs = Summary::of(&runs.iter().map(|r| r.seconds).collect::<Vec<_>>());
        let mut latency = crate::measure::latency::new_histogram();
        for o in outcomes {
            latency
                .add(&o.latency)
                .expect("histograms of one precision merge");
        }
        Measurement {
            workload: key.workload,
            engine: key.engine,
            durability: key.durability,
            threads: key.threads,
            step: key.step,
            config: key.config,
            runs,
            ops_per_sec_mean: rate.mean,
            ops_per_sec_stddev: rate.stddev,
            ops_per_sec_min: rate.min,
            ops_per_sec_max: rate.max,
            seconds_mean: secs.mean,
            seconds_stddev: secs.stddev,
            latency: LatencySummary::of(&latency),
            retries: outcomes.iter().map(|o| o.retries).sum(),
        }
    }
}

/// What identifies a measurement: everything but the figures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeasurementKey {
    pub workload: String,
    pub engine: String,
    pub durability: String,
    pub threads: usize,
    pub step: String,
    pub config: BTreeMap<String, Value>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Metric {
    pub name: String,
    pub value: f64,
    pub unit: String,
    #[serde(default)]
    pub engine: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
}
