//! A step's resource readings (`resources.rs`), taken on its clock: one just before the
//! release of its workers, one on each interval boundary the collecting thread passes, one at
//! its end; and what they come to: the counted span's cost and the series between them.

use super::intervals::Grid;
use super::resources;
use std::time::Instant;

/// What a step cost, from the readings taken on its clock .
#[derive(Clone, Debug, Default)]
pub struct StepResources {
    /// Each counter's change over the counted span, each gauge's largest level.
    pub counted: std::collections::BTreeMap<String, f64>,
    /// Per span between two readings (the interval boundaries): counters per second.
    pub series: Vec<super::resources::ResourceInterval>,
}

/// The resource readings of a step: at its release, on each interval boundary, at its end.
pub(super) struct Readings {
    grid: Grid,
    samples: Vec<resources::Sample>,
    next: i64,
    on: bool,
}

impl Readings {
    /// From the reading taken before the release (None: readings are off).
    pub(super) fn new(first: Option<resources::Sample>, grid: Grid) -> Readings {
        Readings {
            next: grid.index_of(grid.t0) + 1,
            grid,
            on: first.is_some(),
            samples: first.into_iter().collect(),
        }
    }

    /// Reads once when the clock has passed the next interval boundary.
    pub(super) fn on_boundary(&mut self) {
        let now = Instant::now();
        if self.on && self.grid.start_of(self.next) <= now {
            self.samples.push(resources::sample());
            self.next = self.grid.index_of(now) + 1;
        }
    }

    /// A reading taken on another thread (a restart's, before it), in its place in time.
    pub(super) fn insert(&mut self, sample: resources::Sample) {
        if self.on {
            let at = self.samples.partition_point(|s| s.at <= sample.at);
            self.samples.insert(at, sample);
        }
    }

    pub(super) fn at_end(&mut self) {
        if self.on {
            self.samples.push(resources::sample());
        }
    }

    pub(super) fn finish(self) -> Option<StepResources> {
        (self.samples.len() >= 2).then(|| StepResources {
            counted: resources::counted(&self.samples, self.grid.base),
            series: resources::series(&self.samples, self.grid.t0),
        })
    }
}

/// The readings of a step timed as a whole (a TPC-H query, a Wisconsin query, a load): one
/// as it starts, one as it ends, and no series between them.
pub struct Span(Option<resources::Sample>);

impl Span {
    /// Reads now, unless readings are off (`--no-resources`).
    pub fn start() -> Span {
        Span(resources::enabled().then(resources::sample))
    }

    /// Reads again: what the span cost.
    pub fn finish(self) -> Option<StepResources> {
        let first = self.0?;
        let last = resources::sample();
        Some(StepResources {
            counted: resources::counted(&[first.clone(), last], first.at),
            series: Vec::new(),
        })
    }
}
