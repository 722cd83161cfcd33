//! What a timed step produced: its operations, seconds, latency, series, and what it cost.

use super::fault::FaultOutcome;
use super::intervals::{EncodedInterval, IntervalFigure};
use super::latency::new_histogram;
use super::readings::StepResources;
use hdrhistogram::Histogram;
use std::time::SystemTime;

/// What one timed step of N workers produced.
#[derive(Debug)]
pub struct StepOutcome {
    /// From the end of the warm-up to the end of the last worker.
    pub seconds: f64,
    /// Operations counted (those that ended after the warm-up).
    pub ops: u64,
    pub retries: u64,
    /// Merged latency of every counted unit (operation or transaction), in nanoseconds; in an
    /// open loop measured from each unit's intended start.
    pub latency: Histogram<u64>,
    /// The series, warm-up intervals included.
    pub intervals: Vec<IntervalFigure>,
    /// Each interval's histogram, when the timing asked to keep them.
    pub encoded: Vec<EncodedInterval>,
    /// When the step started (the release of its workers), for logs.
    pub started: SystemTime,
    /// Units that ended later than the latency limit after their (intended) start (None:
    /// no limit was set).
    pub late: Option<u64>,
    /// Open loop: what it measured besides the latency.
    pub open_loop: Option<OpenLoopOutcome>,
    /// The counted latency of each kind of unit a body timed with `timed_as`, by its index.
    pub by_kind: Vec<Histogram<u64>>,
    /// The counted latency of each part of a unit a body told with `part`, by its index.
    pub by_part: Vec<Histogram<u64>>,
    /// What the step cost the client and the server (None: not read, `--no-resources`); a
    /// fault's figures are among its readings.
    pub resources: Option<StepResources>,
    /// What the step's fault (`--fault`) cost it.
    pub fault: Option<FaultOutcome>,
}

/// What an open loop measures besides the latency from the intended start.
#[derive(Debug)]
pub struct OpenLoopOutcome {
    /// Operations per second asked for.
    pub rate: f64,
    /// From the actual start: what a closed loop would have reported.
    pub service: Histogram<u64>,
    /// How late each unit started after its intended start.
    pub lag: Histogram<u64>,
    /// Units skipped because they were already later than the latency limit at their turn.
    pub skipped: u64,
}

impl StepOutcome {
    pub fn ops_per_sec(&self) -> f64 {
        if self.seconds > 0.0 {
            self.ops as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// The figures of some of this step's units (one kind, or one part of each): their
    /// latencies, counted over the whole step's time.
    pub fn share(&self, latency: Option<&Histogram<u64>>) -> StepOutcome {
        let latency = latency.cloned().unwrap_or_else(new_histogram);
        let mut share = StepOutcome::whole(self.seconds, latency.len());
        share.latency = latency;
        share.started = self.started;
        share
    }

    /// The same with what it cost, read over it ([`Span`]).
    pub fn spent(mut self, resources: Option<StepResources>) -> StepOutcome {
        self.resources = resources;
        self
    }

    /// A step timed by its caller as a whole (no per-unit latency, no series).
    pub fn whole(seconds: f64, ops: u64) -> StepOutcome {
        StepOutcome {
            seconds,
            ops,
            retries: 0,
            latency: new_histogram(),
            intervals: Vec::new(),
            encoded: Vec::new(),
            started: SystemTime::now(),
            late: None,
            open_loop: None,
            by_kind: Vec::new(),
            by_part: Vec::new(),
            resources: None,
            fault: None,
        }
    }
}
