//! The result file: a versioned schema written atomically, read back by `report` and `compare`.

pub mod environment;
pub mod figures;
pub mod hlog;
pub mod merge;
pub mod recorder;
pub mod redact;
pub mod store;
pub mod time;
pub mod verdicts;

use crate::measure::intervals::IntervalFigure;
use crate::measure::latency::LatencySummary;
use crate::measure::runner::StepOutcome;
use crate::measure::stats::Summary;
use hdrhistogram::Histogram;
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
    /// How the steps were clocked (absent in files from before the interval series).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<TimingRecord>,
    /// `--shard`: this client's part of a run several clients made together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::shard::Shard>,
    /// A result `hakari merge` made: the client results it was made from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<MergedClient>,
    /// The process writing the file while the run is under way, so that a reader can tell a
    /// run still going from one whose process was killed (absent in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writer: Option<Writer>,
}

/// The process that writes a result file: its id and start time on its host.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Writer {
    pub host: String,
    pub pid: i32,
    /// When the process started, in clock ticks since the host booted (so a later process
    /// that reuses the id is not taken for it).
    pub started: u64,
}

impl RunResult {
    /// Whether the run's file says "running" but its process is gone from this host: it was
    /// killed (SIGKILL, the out-of-memory killer) before it could say how it ended. None when
    /// that cannot be told from here (another host, or a file without its writer).
    pub fn abandoned(&self) -> Option<bool> {
        let w = self.writer.as_ref().filter(|_| self.status == "running")?;
        let here = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
        (here.trim() == w.host).then(|| !crate::process::alive(w.pid, w.started))
    }
}

/// One client of a merged result: its run, its machine, and how far its steps started from
/// the planned instant.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MergedClient {
    pub run_id: String,
    pub shard: Option<crate::shard::Shard>,
    pub environment: environment::Environment,
    /// Its first step's start minus `--start-at`, in milliseconds.
    pub start_offset_ms: Option<f64>,
    /// Its own derived figures (tpcc's NOPM), each over its own measured time: kept beside the
    /// merged steps, which cover only the window all clients were counting in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<Metric>,
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

impl EngineRecord {
    /// How the connections reached a server (its `tls` setting); "-" for an embedded engine.
    pub fn tls(&self) -> &str {
        self.settings.get("tls").map_or("-", String::as_str)
    }
}

/// One figure of one run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunFigure {
    pub ops: u64,
    pub seconds: f64,
    pub ops_per_sec: f64,
    /// When its workers were released, in seconds since the epoch (what `hakari merge` aligns
    /// the clients' intervals on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_unix_s: Option<f64>,
    /// The run's series: one entry per interval, warm-up intervals marked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intervals: Vec<IntervalFigure>,
    /// What the counted part of the run cost, by reading (`measure/resources.rs`): each
    /// counter's change, each gauge's largest level.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub usage: BTreeMap<String, f64>,
    /// The readings' series on the run's own clock: counters per second between interval
    /// boundaries.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<crate::measure::resources::ResourceInterval>,
}

/// How a run's steps were clocked (the flags that apply to every timed step).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimingRecord {
    pub interval_s: f64,
    #[serde(default)]
    pub warmup_s: f64,
    /// The open loop's rates, operations per second; empty for a closed loop.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rates: Vec<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_limit_ms: Option<f64>,
    /// `--start-at`: the instant no step started before, as given (UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at: Option<String>,
    /// `--fault`: the fault put into each step (`stall@2s:1s`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
}

/// What an open-loop measurement adds: the rate asked, and what a closed loop would not show.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpenLoopFigures {
    /// Operations per second asked for; the measurement's ops/s is what was achieved.
    pub rate: f64,
    /// Fewer than 97% of the asked operations per second were achieved.
    pub behind: bool,
    /// From each unit's actual start (what a closed loop reports); `latency` is from the
    /// intended start.
    pub service: Option<LatencySummary>,
    /// How late units started after their intended start.
    pub lag: Option<LatencySummary>,
    /// Units skipped because they were already later than the latency limit at their turn.
    #[serde(default)]
    pub skipped: u64,
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
    /// What the configuration produced besides its figures, which tells no configuration apart
    /// (the bytes a session store kept per session, when a TPC-H query started).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub produced: BTreeMap<String, Value>,
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
    /// Units that ended later than `--latency-limit` after their (intended) start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late: Option<u64>,
    /// An open loop's figures (None: a closed loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<OpenLoopFigures>,
    /// What the step cost the client and the server, per operation and per second
    /// (`figures.rs` defines each one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub figures: Vec<figures::Figure>,
    /// What bound the step, where the readings tell: "client-bound", "flush-bound".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<Verdict>,
}

/// What a step's readings say bound it, with the figures that say so.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// "client-bound", "cpu-bound" or "flush-bound".
    pub kind: String,
    pub why: String,
}

impl Measurement {
    /// A resource figure's value, by name.
    pub fn figure(&self, name: &str) -> Option<f64> {
        self.figures
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.value)
    }

    /// Builds a measurement from the outcomes of its runs.
    pub fn from_runs(key: MeasurementKey, outcomes: &[StepOutcome]) -> Measurement {
        let runs: Vec<RunFigure> = outcomes
            .iter()
            .map(|o| RunFigure {
                ops: o.ops,
                seconds: o.seconds,
                ops_per_sec: o.ops_per_sec(),
                started_unix_s: Some(time::unix_seconds(o.started)),
                intervals: o.intervals.clone(),
                usage: o
                    .resources
                    .as_ref()
                    .map(|r| r.counted.clone())
                    .unwrap_or_default(),
                resources: o
                    .resources
                    .as_ref()
                    .map(|r| r.series.clone())
                    .unwrap_or_default(),
            })
            .collect();
        let figures = figures::make(
            &runs.iter().map(|r| &r.usage).collect::<Vec<_>>(),
            runs.iter().map(|r| r.ops).sum(),
            runs.iter().map(|r| r.seconds).sum(),
        );
        let rate = Summary::of(&runs.iter().map(|r| r.ops_per_sec).collect::<Vec<_>>());
        let secs = Summary::of(&runs.iter().map(|r| r.seconds).collect::<Vec<_>>());
        let merged = |of: &dyn Fn(&StepOutcome) -> Option<&Histogram<u64>>| {
            let mut h = crate::measure::latency::new_histogram();
            for o in outcomes.iter().filter_map(of) {
                h.add(o).expect("histograms of one precision merge");
            }
            LatencySummary::of(&h)
        };
        // The rate is of timed units (transactions), which may hold several operations.
        let units: u64 = outcomes.iter().map(|o| o.latency.len()).sum();
        let seconds: f64 = outcomes.iter().map(|o| o.seconds).sum();
        let open_loop = outcomes
            .first()
            .and_then(|o| o.open_loop.as_ref())
            .map(|first| OpenLoopFigures {
                rate: first.rate,
                behind: units > 0 && (units as f64) < 0.97 * first.rate * seconds,
                service: merged(&|o| o.open_loop.as_ref().map(|l| &l.service)),
                lag: merged(&|o| o.open_loop.as_ref().map(|l| &l.lag)),
                skipped: outcomes
                    .iter()
                    .filter_map(|o| o.open_loop.as_ref())
                    .map(|l| l.skipped)
                    .sum(),
            });
        let mut config = key.config;
        if let Some(open) = &open_loop {
            // A whole rate reads as one: rate=2000, not 2000.0.
            let rate = match open.rate.fract() == 0.0 {
                true => (open.rate as u64).into(),
                false => open.rate.into(),
            };
            config.insert("rate".into(), rate);
        }
        Measurement {
            workload: key.workload,
            engine: key.engine,
            durability: key.durability,
            threads: key.threads,
            step: key.step,
            config,
            produced: key.produced,
            runs,
            ops_per_sec_mean: rate.mean,
            ops_per_sec_stddev: rate.stddev,
            ops_per_sec_min: rate.min,
            ops_per_sec_max: rate.max,
            seconds_mean: secs.mean,
            seconds_stddev: secs.stddev,
            latency: merged(&|o| Some(&o.latency)),
            retries: outcomes.iter().map(|o| o.retries).sum(),
            late: (outcomes.iter().any(|o| o.late.is_some()))
                .then(|| outcomes.iter().filter_map(|o| o.late).sum()),
            open_loop,
            figures,
            verdicts: Vec::new(),
        }
    }
}

/// What identifies a measurement: everything but the figures. A workload makes it with
/// [`MeasurementKey::new`]; the run context fills in the workload's name when it records it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeasurementKey {
    pub workload: String,
    pub engine: String,
    pub durability: String,
    pub threads: usize,
    pub step: String,
    pub config: BTreeMap<String, Value>,
    /// What the configuration produced (`Measurement::produced`), not part of what identifies it.
    pub produced: BTreeMap<String, Value>,
}

impl MeasurementKey {
    /// The key with something the configuration produced.
    pub fn producing(mut self, name: &str, value: impl Into<Value>) -> MeasurementKey {
        self.produced.insert(name.into(), value.into());
        self
    }

    pub fn new(
        engine: &str,
        durability: crate::durability::Durability,
        threads: usize,
        step: impl Into<String>,
        config: BTreeMap<String, Value>,
    ) -> MeasurementKey {
        MeasurementKey {
            workload: String::new(),
            engine: engine.into(),
            durability: durability.name().into(),
            threads,
            step: step.into(),
            config,
            produced: BTreeMap::new(),
        }
    }
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
