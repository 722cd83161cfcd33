//! The interval series of a step: each worker fills its own histogram for the interval it is in
//! and hands it over when it moves on; the collector merges the workers' parts of an interval
//! once every worker has moved past it, and sums the counted ones into the step's totals.
//!
//! Interval boundaries are aligned to the end of the warm-up, so no interval mixes warm-up and
//! counted operations: intervals before it have negative indexes and are marked warm-up.

use super::latency::new_histogram;
use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One interval of a step's series, as the result file keeps it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IntervalFigure {
    /// Its start, in seconds from the step's start.
    pub t_s: f64,
    /// Its length: the interval, or less for the first and last.
    pub seconds: f64,
    /// Operations completed in it.
    pub ops: u64,
    pub ops_per_sec: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
    /// Run during the warm-up: not in the step's totals.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub warmup: bool,
    /// Open loop: the largest delay of an actual start after its intended start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_max_us: Option<f64>,
    /// The latencies' mean and standard deviation (what pgbench -P prints); absent in files
    /// from before they were kept, and where the interval had no operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stddev_us: Option<f64>,
    /// Open loop: the mean delay of an actual start after its intended start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_mean_us: Option<f64>,
    /// What its units met besides being done (what pgbench -P counts).
    #[serde(default, skip_serializing_if = "Setbacks::none")]
    pub setbacks: Setbacks,
}

/// An interval's units that failed, were skipped, or were tried more than once, as pgbench -P
/// counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Setbacks {
    /// Ended in failure (not done).
    #[serde(default)]
    pub failed: u64,
    /// Skipped: already later than the latency limit at their turn.
    #[serde(default)]
    pub skipped: u64,
    /// Tried more than once, and the retries all units took.
    #[serde(default)]
    pub retried: u64,
    #[serde(default)]
    pub retries: u64,
}

impl Setbacks {
    pub fn none(&self) -> bool {
        *self == Setbacks::default()
    }

    fn add(&mut self, other: &Setbacks) {
        self.failed += other.failed;
        self.skipped += other.skipped;
        self.retried += other.retried;
        self.retries += other.retries;
    }
}

/// An interval's histogram in HdrHistogram's compressed form, for an interval log.
#[derive(Clone, Debug)]
pub struct EncodedInterval {
    /// From the step's start.
    pub start: Duration,
    pub length: Duration,
    pub warmup: bool,
    /// V2 deflate encoding (the `hdrhistogram` crate's serializer).
    pub histogram: Vec<u8>,
}

/// A worker's part of the interval it is in.
pub(super) struct Slot {
    pub index: i64,
    /// When this interval ends: the next completion at or after it moves the worker on.
    pub ends: Instant,
    pub ops: u64,
    pub latency: Histogram<u64>,
    pub lag_max_ns: u64,
    pub lag_sum_ns: u64,
    pub setbacks: Setbacks,
}

/// The clock the intervals are cut by.
#[derive(Clone, Copy)]
pub(super) struct Grid {
    pub t0: Instant,
    /// The end of the warm-up: interval 0 starts here.
    pub base: Instant,
    pub interval: Duration,
}

impl Grid {
    pub fn index_of(&self, t: Instant) -> i64 {
        let n = self.interval.as_nanos();
        match t.checked_duration_since(self.base) {
            Some(d) => (d.as_nanos() / n) as i64,
            None => -((self.base.duration_since(t).as_nanos().div_ceil(n)) as i64),
        }
    }

    /// Where interval `k` starts.
    pub fn start_of(&self, k: i64) -> Instant {
        if k >= 0 {
            self.base + self.interval * k as u32
        } else {
            self.base - self.interval * (-k) as u32
        }
    }

    pub fn slot_at(&self, t: Instant) -> Slot {
        let index = self.index_of(t);
        Slot {
            index,
            ends: self.start_of(index + 1),
            ops: 0,
            latency: new_histogram(),
            lag_max_ns: 0,
            lag_sum_ns: 0,
            setbacks: Setbacks::default(),
        }
    }
}

struct Pending {
    ops: u64,
    latency: Histogram<u64>,
    lag_max_ns: u64,
    lag_sum_ns: u64,
    setbacks: Setbacks,
}

/// How often the calling thread merges finished intervals while one is due.
const COLLECT_EVERY: Duration = Duration::from_millis(20);

/// Merges the workers' slots into finished intervals and the step's totals.
pub(super) struct Collector {
    grid: Grid,
    /// Per worker: the interval it is in (every earlier one handed over); MAX once it is done.
    positions: Vec<i64>,
    pending: BTreeMap<i64, Pending>,
    /// Histograms of finished intervals, reset for reuse.
    pool: Vec<Histogram<u64>>,
    /// When the last worker ended, once all have.
    end: Option<Instant>,
    worker_ends: Vec<Option<Instant>>,
    keep_histograms: bool,
    open_loop: bool,
    pub figures: Vec<IntervalFigure>,
    pub encoded: Vec<EncodedInterval>,
    /// Every counted (not warm-up) operation.
    pub ops: u64,
    pub latency: Histogram<u64>,
}

impl Collector {
    pub fn new(grid: Grid, workers: usize, keep_histograms: bool, open_loop: bool) -> Collector {
        let first = grid.index_of(grid.t0);
        Collector {
            grid,
            positions: vec![first; workers],
            pending: BTreeMap::new(),
            pool: (0..3).map(|_| new_histogram()).collect(),
            end: None,
            worker_ends: vec![None; workers],
            keep_histograms,
            open_loop,
            figures: Vec::new(),
            encoded: Vec::new(),
            ops: 0,
            latency: new_histogram(),
        }
    }

    pub fn t0(&self) -> Instant {
        self.grid.t0
    }

    /// The end of the warm-up.
    pub fn base(&self) -> Instant {
        self.grid.base
    }

    /// When the last worker ended, once all have.
    pub fn end(&self) -> Option<Instant> {
        self.end
    }

    /// Takes worker `w`'s slot (and resets it); the worker is now in interval `next`.
    pub fn hand_over(&mut self, w: usize, slot: &mut Slot, next: i64) {
        if slot.ops > 0 || !slot.latency.is_empty() || !slot.setbacks.none() {
            let pool = &mut self.pool;
            let p = self.pending.entry(slot.index).or_insert_with(|| Pending {
                ops: 0,
                latency: pool.pop().unwrap_or_else(new_histogram),
                lag_max_ns: 0,
                lag_sum_ns: 0,
                setbacks: Setbacks::default(),
            });
            p.ops += slot.ops;
            p.latency
                .add(&slot.latency)
                .expect("histograms of one precision merge");
            p.lag_max_ns = p.lag_max_ns.max(slot.lag_max_ns);
            p.lag_sum_ns += slot.lag_sum_ns;
            p.setbacks.add(&slot.setbacks);
        }
        slot.ops = 0;
        slot.latency.reset();
        slot.lag_max_ns = 0;
        slot.lag_sum_ns = 0;
        slot.setbacks = Setbacks::default();
        self.positions[w] = next;
    }

    /// Worker `w` is done: its last slot is handed over.
    pub fn worker_done(&mut self, w: usize, slot: &mut Slot, end: Instant) {
        self.hand_over(w, slot, i64::MAX);
        self.worker_ends[w] = Some(end);
        if self.worker_ends.iter().all(Option::is_some) {
            self.end = self.worker_ends.iter().flatten().max().copied();
        }
    }

    /// How long the calling thread sleeps before it next merges intervals and takes a reading:
    /// every [`COLLECT_EVERY`] while an interval that has ended is not yet merged (its workers
    /// hand their slots over at their first operation past its end), otherwise until the next
    /// interval begins. Waking fifty times a second throughout cost `hakari pgbench` 1.9 ms of
    /// CPU a second, sleeping so 0.6-0.9 ms (bench/README.md).
    pub fn nap(collector: &Mutex<Collector>) -> Duration {
        let this = collector.lock().unwrap();
        let now = Instant::now();
        let (current, next) = (this.grid.index_of(now), this.next_index());
        if next < current && this.end.is_none_or(|end| this.grid.start_of(next) < end) {
            return COLLECT_EVERY;
        }
        (this.grid.start_of(current + 1))
            .saturating_duration_since(now)
            .max(Duration::from_millis(1))
    }

    /// Finishes every interval all workers have moved past; returns how many it finished.
    pub fn finish_ready(&mut self) -> usize {
        let before = self.figures.len();
        let ready_below = self.positions.iter().copied().min().unwrap_or(i64::MAX);
        let mut next = self.next_index();
        while next < ready_below {
            // After the last worker ended there is nothing more to finish.
            if self.end.is_some_and(|end| self.grid.start_of(next) >= end) {
                break;
            }
            self.finish(next);
            next += 1;
        }
        self.figures.len() - before
    }

    fn next_index(&self) -> i64 {
        match self.figures.len() {
            0 => self.grid.index_of(self.grid.t0),
            n => self.grid.index_of(self.grid.t0) + n as i64,
        }
    }

    fn finish(&mut self, k: i64) {
        let grid = self.grid;
        let start = grid.start_of(k).max(grid.t0);
        let mut end = grid.start_of(k + 1);
        if let Some(step_end) = self.end {
            end = end.min(step_end);
        }
        let seconds = end.saturating_duration_since(start).as_secs_f64();
        let pending = self.pending.remove(&k).unwrap_or_else(|| Pending {
            ops: 0,
            latency: self.pool.pop().unwrap_or_else(new_histogram),
            lag_max_ns: 0,
            lag_sum_ns: 0,
            setbacks: Setbacks::default(),
        });
        let h = &pending.latency;
        let us = |ns: u64| ns as f64 / 1000.0;
        let (p50, p99, max) = if h.is_empty() {
            (0, 0, 0)
        } else {
            (h.value_at_quantile(0.5), h.value_at_quantile(0.99), h.max())
        };
        let warmup = k < 0;
        self.figures.push(IntervalFigure {
            t_s: start.duration_since(grid.t0).as_secs_f64(),
            seconds,
            ops: pending.ops,
            ops_per_sec: if seconds > 0.0 {
                pending.ops as f64 / seconds
            } else {
                0.0
            },
            p50_us: us(p50),
            p99_us: us(p99),
            max_us: us(max),
            warmup,
            lag_max_us: self.open_loop.then(|| us(pending.lag_max_ns)),
            mean_us: (!h.is_empty()).then(|| h.mean() / 1000.0),
            stddev_us: (!h.is_empty()).then(|| h.stdev() / 1000.0),
            lag_mean_us: (self.open_loop && !h.is_empty())
                .then(|| us(pending.lag_sum_ns) / h.len() as f64),
            setbacks: pending.setbacks,
        });
        if self.keep_histograms {
            let mut bytes = Vec::new();
            V2DeflateSerializer::new()
                .serialize(h, &mut bytes)
                .expect("a histogram serializes into memory");
            self.encoded.push(EncodedInterval {
                start: start.duration_since(grid.t0),
                length: end.saturating_duration_since(start),
                warmup,
                histogram: bytes,
            });
        }
        if !warmup {
            self.ops += pending.ops;
            self.latency
                .add(h)
                .expect("histograms of one precision merge");
        }
        let mut recycled = pending.latency;
        recycled.reset();
        self.pool.push(recycled);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(warmup_ms: u64) -> Grid {
        let t0 = Instant::now();
        Grid {
            t0,
            base: t0 + Duration::from_millis(warmup_ms),
            interval: Duration::from_millis(100),
        }
    }

    #[test]
    fn intervals_align_to_the_end_of_the_warm_up() {
        let g = grid(250);
        let at = |ms: u64| g.t0 + Duration::from_millis(ms);
        assert_eq!(g.index_of(at(0)), -3); // [-50 ms, 50 ms): cut at the step's start
        assert_eq!(g.index_of(at(149)), -2);
        assert_eq!(g.index_of(at(249)), -1);
        assert_eq!(g.index_of(at(250)), 0);
        assert_eq!(g.index_of(at(351)), 1);
        assert_eq!(g.start_of(-3), at(250) - Duration::from_millis(300));
        assert_eq!(g.start_of(1), at(350));
    }

    #[test]
    fn totals_are_the_counted_intervals_and_an_interval_waits_for_every_worker() {
        let g = grid(100);
        let mut c = Collector::new(g, 2, true, false);
        let record = |slot: &mut Slot, us: u64, n: u64| {
            for _ in 0..n {
                slot.latency.record(us * 1000).unwrap();
            }
            slot.ops += n;
        };
        // Worker 0: 10 ops in the warm-up, 20 in interval 0; worker 1: 5 in interval 0, 7 in 1.
        let mut a = g.slot_at(g.t0);
        record(&mut a, 10, 10);
        c.hand_over(0, &mut a, 0);
        a.index = 0;
        record(&mut a, 20, 20);
        let mut b = g.slot_at(g.t0 + Duration::from_millis(150));
        record(&mut b, 30, 5);
        c.hand_over(1, &mut b, 1);
        assert_eq!(c.finish_ready(), 1, "interval 0 waits for worker 0");
        assert!(c.figures[0].warmup);
        assert_eq!(c.figures[0].ops, 10);
        c.worker_done(0, &mut a, g.t0 + Duration::from_millis(190));
        assert_eq!(c.finish_ready(), 1);
        assert_eq!(c.figures[1].ops, 25);
        assert!(
            (c.figures[1].p99_us - 30.0).abs() < 0.05,
            "{}",
            c.figures[1].p99_us
        );
        b.index = 1;
        record(&mut b, 40, 7);
        c.worker_done(1, &mut b, g.t0 + Duration::from_millis(250));
        assert_eq!(c.finish_ready(), 1);
        let last = &c.figures[2];
        assert_eq!(last.ops, 7);
        assert!((last.seconds - 0.05).abs() < 1e-9, "cut at the step's end");
        assert_eq!(c.ops, 32);
        assert_eq!(c.latency.len(), 32);
        assert_eq!(c.encoded.len(), 3);
    }
}
