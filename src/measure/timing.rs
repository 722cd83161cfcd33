//! How a timed step is clocked: the interval its series is cut into, the warm-up it does not
//! count, how long it runs, and, for an open loop, the rate at which operations are scheduled.
//!
//! In a closed loop a worker starts its next operation when the last one ends, so a stalled
//! engine stops being asked and the operations that would have waited are never timed
//! (coordinated omission). In an open loop every operation has an intended start on a schedule
//! fixed in advance, and its latency is measured from that intended start.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// The clock of every timed step of a run.
#[derive(Clone, Debug)]
pub struct Timing {
    /// The length of one interval of the series.
    pub interval: Duration,
    /// Print a line per interval on the terminal (else only once a step has run a while).
    pub print_intervals: bool,
    /// How the printed lines read (pgbench -P's for `hakari pgbench`).
    pub interval_style: IntervalStyle,
    /// The first part of each step, run but not counted.
    pub warmup: Duration,
    /// Where a step that runs for a time ends, counted from its start (warm-up included);
    /// None for a step that does a fixed amount of work.
    pub duration: Option<Duration>,
    /// The open loop's schedule; None: a closed loop.
    pub schedule: Option<Schedule>,
    /// Operations that end later than this after their (intended) start are counted late;
    /// in an open loop, a skippable operation already late at its turn is skipped.
    pub latency_limit: Option<Duration>,
    /// Keep each interval's histogram (encoded) for an HdrHistogram log.
    pub keep_histograms: bool,
    /// `--start-at`: no step starts before this instant (so that the clients of several
    /// machines start their first step together).
    pub start_at: Option<std::time::SystemTime>,
    /// Read what each step costs the client and the servers (`resources.rs`) on its clock.
    pub resources: bool,
    /// Also the statistics an engine keeps only when asked, at a cost to its throughput.
    pub engine_statistics: bool,
    /// `--fault`: put into each step at its instant on the step's clock.
    pub fault: Option<super::fault::Fault>,
    /// The threads that carry a step's workers, several to a thread where there are fewer
    /// (pgbench's -j; `multiplex.rs`); None: a thread each.
    pub threads: Option<usize>,
}

/// How each interval's line reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IntervalStyle {
    /// `  12.0 s   4,321 ops/s  p50 0.21 ms  p99 1.30 ms  max 3.0 s`
    #[default]
    Hakari,
    /// pgbench -P's: `progress: 12.0 s, 4321.0 tps, lat 0.231 ms stddev 0.102, 0 failed`, then
    /// in an open loop `, lag 0.102 ms` (and `, 0 skipped` under a latency limit), and
    /// `, 0 retried, 0 retries` when a transaction may be tried more than once.
    Pgbench(PgbenchLine),
}

/// What pgbench's -P line has besides its fixed part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PgbenchLine {
    /// `--progress-timestamp`: the interval's end as a Unix timestamp, `progress:
    /// 1764324012.345 s, ...`.
    pub timestamp: bool,
    /// A latency limit: the skipped after the lag.
    pub skipped: bool,
    /// `--max-tries` other than 1: the retried transactions and the retries.
    pub retries: bool,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            interval: Duration::from_secs(1),
            print_intervals: false,
            interval_style: Default::default(),
            warmup: Duration::ZERO,
            duration: None,
            schedule: None,
            latency_limit: None,
            keep_histograms: false,
            start_at: None,
            resources: false,
            engine_statistics: false,
            fault: None,
            threads: None,
        }
    }
}

impl Timing {
    /// The same clock for a step that runs `seconds` (warm-up included).
    pub fn lasting(&self, seconds: f64) -> Timing {
        Timing {
            duration: Some(Duration::from_secs_f64(seconds)),
            ..self.clone()
        }
    }
}

/// How intended starts are spaced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Arrival {
    /// Evenly spaced: one every 1/rate seconds.
    #[default]
    Constant,
    /// A Poisson process: exponentially distributed gaps with mean 1/rate.
    Poisson,
}

impl Arrival {
    pub fn name(self) -> &'static str {
        match self {
            Arrival::Constant => "constant",
            Arrival::Poisson => "poisson",
        }
    }
}

/// An open loop's schedule: `rate` operations per second in total, spread over the workers.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    pub rate: f64,
    pub arrival: Arrival,
    pub seed: u64,
}

/// One worker's intended starts: worker i of n takes every n-th slot of the total schedule
/// (constant), or runs its own Poisson process at rate/n (the sum of n is one at the rate).
pub(super) struct Pace {
    next: Instant,
    gap: f64,
    arrival: Arrival,
    rng: ChaCha8Rng,
}

impl Pace {
    pub(super) fn new(schedule: &Schedule, worker: usize, workers: usize, t0: Instant) -> Pace {
        let per_worker = schedule.rate / workers as f64;
        let mut rng = ChaCha8Rng::seed_from_u64(schedule.seed ^ ((worker as u64 + 1) << 32));
        let first = match schedule.arrival {
            Arrival::Constant => worker as f64 / schedule.rate,
            Arrival::Poisson => exponential(&mut rng, per_worker),
        };
        Pace {
            next: t0 + Duration::from_secs_f64(first),
            gap: 1.0 / per_worker,
            arrival: schedule.arrival,
            rng,
        }
    }

    /// The next operation's intended start.
    pub(super) fn peek(&self) -> Instant {
        self.next
    }

    /// Takes the next intended start and schedules the one after it.
    pub(super) fn take(&mut self) -> Instant {
        let intended = self.next;
        let gap = match self.arrival {
            Arrival::Constant => self.gap,
            Arrival::Poisson => exponential(&mut self.rng, 1.0 / self.gap),
        };
        self.next = intended + Duration::from_secs_f64(gap);
        intended
    }
}

/// A gap of a Poisson process at `rate` per second.
fn exponential(rng: &mut ChaCha8Rng, rate: f64) -> f64 {
    let u: f64 = rng.random::<f64>();
    -(1.0 - u).ln() / rate
}

/// Below this, a worker spins rather than sleeps: a sleep overshoots by tens of microseconds.
const SPIN: Duration = Duration::from_micros(100);
/// A sleeping worker wakes at least this often to see whether the step is stopping.
const NAP: Duration = Duration::from_millis(20);

/// The first instant after `now` on the grid of naps shared by the process's workers.
fn next_nap(now: Instant) -> Instant {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    let epoch = *EPOCH.get_or_init(|| now);
    // Another thread may have set the grid after `now` was read: its first point comes next.
    if now < epoch {
        return epoch;
    }
    let naps = (now - epoch).as_nanos() / NAP.as_nanos() + 1;
    epoch + Duration::from_nanos((naps * NAP.as_nanos()) as u64)
}

/// Waits until `at`; returns early when `stop()` says so.
pub(super) fn wait_until(at: Instant, stop: impl Fn() -> bool) {
    loop {
        let now = Instant::now();
        if now >= at {
            return;
        }
        let left = at - now;
        // Alone on its thread a worker sleeps to SPIN short of the instant and spins the rest
        // (a sleep overshoots); sharing one it sleeps to the instant (a spin holds the others).
        let shared = super::multiplex::shared();
        if shared {
            // The naps of a thread's workers end together, on one grid of NAP: the thread
            // wakes once for all of them, not once for each (pgbench's threads sleep to the
            // next arrival).
            super::multiplex::sleep_until(at.min(next_nap(now)));
            if stop() {
                return;
            }
        } else if left > SPIN {
            super::multiplex::sleep((left - SPIN).min(NAP));
            if stop() {
                return;
            }
        } else {
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naps_begun_within_one_grid_step_end_at_one_instant() {
        let now = Instant::now();
        let end = next_nap(now);
        assert!(end > now && end <= now + NAP);
        assert_eq!(next_nap(end - Duration::from_nanos(1)), end);
        assert_eq!(next_nap(end), end + NAP);
    }

    #[test]
    fn constant_arrivals_interleave_the_workers_evenly() {
        let t0 = Instant::now();
        let schedule = Schedule {
            rate: 1000.0,
            arrival: Arrival::Constant,
            seed: 1,
        };
        let mut starts: Vec<Duration> = (0..4)
            .flat_map(|w| {
                let mut pace = Pace::new(&schedule, w, 4, t0);
                (0..250).map(move |_| pace.take() - t0)
            })
            .collect();
        starts.sort();
        for (k, s) in starts.iter().enumerate() {
            let expected = k as f64 / 1000.0;
            assert!((s.as_secs_f64() - expected).abs() < 1e-6, "slot {k}: {s:?}");
        }
    }

    #[test]
    fn poisson_arrivals_have_the_asked_mean_rate() {
        let t0 = Instant::now();
        let schedule = Schedule {
            rate: 10_000.0,
            arrival: Arrival::Poisson,
            seed: 7,
        };
        // 2 workers, 100,000 arrivals: the last intended start is near 10 s (sd about 0.3%).
        let last = (0..2)
            .map(|w| {
                let mut pace = Pace::new(&schedule, w, 2, t0);
                (0..50_000).map(|_| pace.take()).last().unwrap() - t0
            })
            .max()
            .unwrap();
        assert!((last.as_secs_f64() - 10.0).abs() < 0.1, "{last:?}");
    }
}
