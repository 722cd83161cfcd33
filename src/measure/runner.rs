//! A timed step: N worker threads, each with its own state (handle, connection), set up untimed
//! and released together. In a closed loop a worker starts its next unit when the last ends; in
//! an open loop each unit waits for its intended start and its latency counts from there. Each
//! worker records into its own histogram for the interval it is in; the calling thread merges
//! the intervals (`intervals.rs`). The step's time runs from the end of the warm-up to the end
//! of the last worker.

use super::fault::{self, FaultOutcome};
use super::intervals::{Collector, Grid};
use super::latency::new_histogram;
use super::lines::IntervalLines;
use super::multiplex;
pub use super::outcome::{OpenLoopOutcome, StepOutcome};
use super::progress::Progress;
use super::readings::Readings;
pub use super::readings::{Span, StepResources};
use super::resources;
use super::timing::Timing;
use super::worker::Done;
pub use super::worker::{Began, Turn, Worker};
use super::{interrupted, Interrupted};
use anyhow::{anyhow, bail, Result};
use hdrhistogram::Histogram;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

/// Runs a step on `threads` workers, clocked by `timing`. `setup(i)` builds worker i's state in
/// its own thread (untimed); `body(state, worker)` is the timed part. The calling thread merges
/// the intervals as workers move past them and prints a line per interval when asked.
pub fn run_step<S, Setup, Body>(
    threads: usize,
    timing: &Timing,
    progress: &Progress,
    setup: Setup,
    body: Body,
) -> Result<StepOutcome>
where
    Setup: Fn(usize) -> Result<S> + Sync,
    Body: Fn(&mut S, &mut Worker) -> Result<()> + Sync,
{
    assert!(threads > 0, "a step needs at least one worker");
    let carriers = multiplex::deal(threads, timing.threads);
    let step = Step {
        threads,
        timing,
        progress,
        barrier: Barrier::new(carriers.len() + 1),
        stop: AtomicBool::new(false),
        first_error: Mutex::new(None),
        clock: OnceLock::new(),
        first_reading: Mutex::new(None),
        fault: timing.fault.as_ref().map(fault::Clock::new),
        over: AtomicBool::new(false),
    };
    let (done, readings, injected, end) = std::thread::scope(|scope| {
        let handles: Vec<_> = (carriers.iter().cloned())
            .map(|indices| {
                let (step, setup, body) = (&step, &setup, &body);
                scope.spawn(move || step.carry(indices, setup, body))
            })
            .collect();
        step.release();
        let (clock, collector) = step.clock.get().expect("set by the release");
        let injector = (timing.fault.as_ref())
            .zip(step.fault.as_ref())
            .map(|(f, c)| {
                let (t0, over, read) = (clock.grid.t0, &step.over, timing.resources);
                scope.spawn(move || fault::inject(f, c, t0, over, read))
            });
        let mut lines = IntervalLines::new(timing, progress, clock.started);
        let first = step.first_reading.lock().unwrap().take();
        let mut readings = Readings::new(first, clock.grid);
        while !handles.iter().all(|h| h.is_finished()) {
            std::thread::sleep(COLLECT_EVERY);
            lines.print_new(&mut collector.lock().unwrap());
            readings.on_boundary();
        }
        let results: Vec<Option<Done>> = (handles.into_iter().zip(&carriers))
            .flat_map(|(h, indices)| {
                let panicked = || indices.clone().map(|_| Some(Done::panicked())).collect();
                h.join().unwrap_or_else(|_| panicked())
            })
            .collect();
        let end = clock.grid.t0.elapsed();
        step.over.store(true, Ordering::SeqCst);
        let mut injected = injector.map(|h| {
            (h.join()).unwrap_or_else(|_| Some(Err(anyhow!("the fault's thread panicked"))))
        });
        // The readings a restart or a kill took of what its servers had counted.
        if let Some(Some(Ok(taken))) = injected.as_mut() {
            for sample in taken.drain(..) {
                readings.insert(sample);
            }
        }
        readings.at_end();
        lines.print_new(&mut collector.lock().unwrap());
        (results, readings, injected, end)
    });
    progress.finish();

    if let Some(e) = step.first_error.into_inner().unwrap() {
        return Err(e);
    }
    if interrupted() {
        return Err(anyhow!(Interrupted));
    }
    let (grid, collector) = step.clock.into_inner().expect("the clock was set");
    let mut done = done;
    let seen: Vec<fault::Seen> = (done.iter_mut().flatten())
        .filter_map(|d| d.seen.take())
        .collect();
    let mut outcome = merge(done, collector.into_inner().unwrap(), timing, grid)?;
    outcome.resources = readings.finish();
    if let (Some(f), Some(c)) = (timing.fault, &step.fault) {
        match injected.flatten() {
            None => bail!(
                "the step ended {} after its start, before the fault {f} was due: put it earlier or run longer",
                crate::units::duration(end.as_secs_f64())
            ),
            Some(Err(e)) => return Err(e.context(format!("the fault {f}"))),
            Some(Ok(_)) => {}
        }
        let cost = FaultOutcome::merge(f, c, seen, end.as_nanos() as u64, &outcome.intervals);
        let resources = outcome.resources.get_or_insert_with(Default::default);
        resources.counted.extend(cost.readings());
        outcome.fault = Some(cost);
    }
    Ok(outcome)
}

/// What the workers of a step share.
struct Step<'a> {
    threads: usize,
    timing: &'a Timing,
    progress: &'a Progress,
    barrier: Barrier,
    stop: AtomicBool,
    first_error: Mutex<Option<anyhow::Error>>,
    /// Set when every worker is ready: the step's clock, and the collector of its intervals.
    clock: OnceLock<(Clock, Mutex<Collector>)>,
    /// The resource reading taken just before the clock started.
    first_reading: Mutex<Option<resources::Sample>>,
    /// The fault's instants, when the step has one.
    fault: Option<fault::Clock>,
    /// Set when every worker has ended, for the fault's thread.
    over: AtomicBool,
}

/// When the step started, on both clocks.
#[derive(Clone, Copy)]
struct Clock {
    grid: Grid,
    started: SystemTime,
}

impl Step<'_> {
    fn fail(&self, e: anyhow::Error) {
        self.stop.store(true, Ordering::SeqCst);
        let mut slot = self.first_error.lock().unwrap();
        if slot.is_none() {
            *slot = Some(e);
        }
    }

    /// Every worker is set up: starts the clock and releases them.
    fn release(&self) {
        self.barrier.wait();
        if let Some(at) = self.timing.start_at {
            // Every worker is ready; the clock starts at the planned instant, not before.
            while let Ok(wait) = at.duration_since(SystemTime::now()) {
                if interrupted() || wait.is_zero() {
                    break;
                }
                std::thread::sleep(wait.min(Duration::from_millis(100)));
            }
        }
        // The first resource reading before the clock starts, while every worker waits: nothing
        // the step does can fall before it.
        if self.timing.resources {
            *self.first_reading.lock().unwrap() = Some(resources::sample());
        }
        let t0 = Instant::now();
        let grid = Grid {
            t0,
            base: t0 + self.timing.warmup,
            interval: self.timing.interval,
        };
        let (keep, open) = (self.timing.keep_histograms, self.timing.schedule.is_some());
        let collector = Collector::new(grid, self.threads, keep, open);
        let clock = Clock {
            grid,
            started: SystemTime::now(),
        };
        let _ = self.clock.set((clock, Mutex::new(collector)));
        self.barrier.wait();
    }

    /// A thread carrying workers `indices`: their setups (untimed), the release, their timed
    /// bodies, each worker's [`Done`] in order. Several workers on one thread run together,
    /// each giving way where it would block (`multiplex.rs`).
    fn carry<S>(
        &self,
        indices: Range<usize>,
        setup: &(dyn Fn(usize) -> Result<S> + Sync),
        body: &(dyn Fn(&mut S, &mut Worker) -> Result<()> + Sync),
    ) -> Vec<Option<Done>> {
        // Every thread reaches both barriers, even one whose setups failed, so that no thread
        // waits forever.
        let mut states: Vec<Result<S>> = indices.clone().map(setup).collect();
        self.barrier.wait();
        self.barrier.wait(); // the clock is set
        if states.len() == 1 {
            let state = states.pop().expect("one state");
            return vec![self.worker(indices.start, state, setup, body)];
        }
        let mut done: Vec<Option<Done>> = indices.clone().map(|_| None).collect();
        let bodies = (done.iter_mut().zip(indices).zip(states))
            .map(|((slot, index), state)| {
                Box::new(move || *slot = self.worker(index, state, setup, body))
                    as Box<dyn FnOnce() + '_>
            })
            .collect();
        if let Err(e) = multiplex::run_together(bodies) {
            self.fail(anyhow!("cannot make the workers' stacks: {e}"));
        }
        done
    }

    /// Worker `index`'s timed part, from its state (or the error its setup met).
    fn worker<S>(
        &self,
        index: usize,
        state: Result<S>,
        setup: &(dyn Fn(usize) -> Result<S> + Sync),
        body: &(dyn Fn(&mut S, &mut Worker) -> Result<()> + Sync),
    ) -> Option<Done> {
        let state = match state {
            Ok(s) => s,
            Err(e) => {
                self.fail(e.context(format!("worker {index} could not start")));
                return None;
            }
        };
        if self.stop.load(Ordering::SeqCst) {
            return None;
        }
        let (clock, collector) = self.clock.get().expect("set before the release");
        let (timing, progress) = (self.timing, self.progress);
        let mut worker = Worker::new(
            index,
            self.threads,
            timing,
            clock.grid,
            collector,
            progress,
            &self.stop,
        )
        .watching(self.fault.as_ref());
        // With a fault, a worker whose connection is lost reconnects through its setup and
        // goes on; without one, a lost connection ends the step as any error does.
        let mut state = Some(state);
        let result = loop {
            let s = state
                .as_mut()
                .expect("a worker has its state while it runs");
            match body(s, &mut worker) {
                Err(e) if self.fault.is_some() && fault::is_connection_lost(&e) => {
                    worker.lost();
                    state = None;
                    match super::worker::reconnect(index, setup, &mut worker) {
                        Ok(Some(s)) => state = Some(s),
                        Ok(None) => break Ok(()),
                        Err(e) => break Err(e),
                    }
                }
                other => break other,
            }
        };
        let done = worker.finish(Instant::now());
        drop(state); // closes the worker's handle outside the timed span
        match result {
            Ok(()) => Some(done),
            Err(e) => {
                self.fail(e);
                None
            }
        }
    }
}

/// How often the calling thread merges finished intervals.
const COLLECT_EVERY: Duration = Duration::from_millis(20);

/// The step as one outcome: from the end of the warm-up to the last worker's end, every
/// counted operation and latency (the collector's), and the workers' own counters.
fn merge(
    done: Vec<Option<Done>>,
    collector: Collector,
    timing: &Timing,
    clock: Clock,
) -> Result<StepOutcome> {
    let threads = done.len();
    let done: Vec<Done> = done.into_iter().flatten().collect();
    if done.len() != threads || done.iter().any(|d| d.retries == u64::MAX) {
        return Err(anyhow!("a worker thread panicked"));
    }
    let end = collector.end().expect("every worker ended");
    let base = collector.base();
    if end <= base {
        bail!(
            "the step ended {} after it started, inside the {} warm-up: nothing was counted \
             (shorten --warmup or lengthen the step)",
            crate::units::duration(end.duration_since(collector.t0()).as_secs_f64()),
            crate::units::duration(timing.warmup.as_secs_f64())
        );
    }
    let open_loop = timing.schedule.map(|s| {
        let mut service = new_histogram();
        let mut lag = new_histogram();
        for d in &done {
            let merge = |into: &mut Histogram<u64>, h: &Option<Histogram<u64>>| {
                if let Some(h) = h {
                    into.add(h).expect("histograms of one precision merge");
                }
            };
            merge(&mut service, &d.service);
            merge(&mut lag, &d.lag);
        }
        OpenLoopOutcome {
            rate: s.rate,
            service,
            lag,
            skipped: done.iter().map(|d| d.skipped).sum(),
        }
    });
    let merged = |of: fn(&Done) -> &Vec<Histogram<u64>>| {
        let mut all: Vec<Histogram<u64>> = Vec::new();
        for d in &done {
            all.resize_with(all.len().max(of(d).len()), new_histogram);
            for (into, h) in all.iter_mut().zip(of(d)) {
                into.add(h).expect("histograms of one precision merge");
            }
        }
        all
    };
    let (by_kind, by_part) = (merged(|d| &d.kinds), merged(|d| &d.parts));
    Ok(StepOutcome {
        seconds: end
            .duration_since(base)
            .max(Duration::from_nanos(1))
            .as_secs_f64(),
        ops: collector.ops,
        retries: done.iter().map(|d| d.retries).sum(),
        latency: collector.latency,
        intervals: collector.figures,
        encoded: collector.encoded,
        started: clock.started,
        late: (timing.latency_limit).map(|_| done.iter().map(|d| d.late).sum()),
        open_loop,
        by_kind,
        by_part,
        resources: None,
        fault: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::timing::{Arrival, Schedule};

    fn closed() -> Timing {
        Timing::default()
    }

    #[test]
    fn sums_ops_and_merges_latency_over_workers() {
        let out = run_step(
            4,
            &closed(),
            &Progress::hidden(),
            |i| Ok(i as u64 + 1),
            |n: &mut u64, w| {
                for _ in 0..*n * 10 {
                    w.timed(1, || Ok(()))?;
                }
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(out.ops, 10 + 20 + 30 + 40);
        assert_eq!(out.latency.len(), 100);
        assert!(out.seconds > 0.0);
    }

    #[test]
    fn a_failing_worker_fails_the_step_and_stops_the_others() {
        let err = run_step(3, &closed(), &Progress::hidden(), Ok, |i: &mut usize, w| {
            if *i == 1 {
                anyhow::bail!("boom");
            }
            while !w.should_stop() {
                std::thread::yield_now();
            }
            Ok(())
        })
        .unwrap_err();
        assert!(err.to_string().contains("boom"));
    }

    #[test]
    fn a_failing_setup_is_reported() {
        let err = run_step(
            2,
            &closed(),
            &Progress::hidden(),
            |i| {
                if i == 0 {
                    Ok(())
                } else {
                    anyhow::bail!("no handle")
                }
            },
            |_: &mut (), _| Ok(()),
        )
        .unwrap_err();
        assert!(format!("{err:#}").contains("no handle"));
    }

    /// Units of 1 ms for a while, run by `threads` workers under `timing`.
    fn sleepy_step(threads: usize, timing: &Timing) -> StepOutcome {
        run_step(
            threads,
            timing,
            &Progress::hidden(),
            Ok,
            |_: &mut usize, w| {
                while w.more() {
                    w.timed(1, || {
                        std::thread::sleep(Duration::from_millis(1));
                        Ok(())
                    })?;
                }
                Ok(())
            },
        )
        .unwrap()
    }

    #[test]
    fn the_counted_intervals_sum_to_the_step_and_the_warm_up_is_left_out() {
        let timing = Timing {
            interval: Duration::from_millis(50),
            warmup: Duration::from_millis(100),
            ..closed()
        }
        .lasting(0.4);
        let out = sleepy_step(2, &timing);
        let counted: Vec<_> = out.intervals.iter().filter(|f| !f.warmup).collect();
        let warm = out.intervals.iter().filter(|f| f.warmup).count();
        assert_eq!(warm, 2, "{:?}", out.intervals);
        assert!(counted.len() >= 6, "{:?}", out.intervals);
        assert_eq!(counted.iter().map(|f| f.ops).sum::<u64>(), out.ops);
        assert!(out.intervals.iter().filter(|f| f.warmup).all(|f| f.ops > 0));
        assert!((out.seconds - 0.3).abs() < 0.05, "{}", out.seconds);
        // The series tiles the step: each interval starts where the last ended.
        for pair in out.intervals.windows(2) {
            assert!((pair[0].t_s + pair[0].seconds - pair[1].t_s).abs() < 1e-6);
        }
        assert_eq!(out.latency.len(), out.ops);
    }

    #[test]
    fn a_step_inside_its_warm_up_is_refused() {
        let timing = Timing {
            warmup: Duration::from_secs(5),
            ..closed()
        };
        let err = run_step(1, &timing, &Progress::hidden(), Ok, |_: &mut usize, w| {
            w.timed(1, || Ok(()))
        })
        .unwrap_err();
        assert!(
            err.to_string().contains("inside the 5.00 s warm-up"),
            "{err}"
        );
    }

    fn open(rate: f64, seconds: f64) -> Timing {
        Timing {
            schedule: Some(Schedule {
                rate,
                arrival: Arrival::Constant,
                seed: 3,
            }),
            ..closed()
        }
        .lasting(seconds)
    }

    #[test]
    fn an_open_loop_runs_the_scheduled_operations_and_no_more() {
        let out = run_step(
            2,
            &open(2000.0, 0.5),
            &Progress::hidden(),
            Ok,
            |_: &mut usize, w| {
                while w.more() {
                    w.timed(1, || Ok(()))?;
                }
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(out.ops, 1000, "every intended start before the end, once");
        let open = out.open_loop.as_ref().unwrap();
        assert_eq!(open.service.len(), 1000);
        assert_eq!(open.lag.len(), 1000);
    }

    /// A stall the harness did not cause: the unit at 300 ms takes 200 ms. At 1,000 intended
    /// starts a second, the 200 starts scheduled during the stall wait for it: their latencies
    /// from the intended start fall evenly from 200 ms to 0, so the slowest 1% of 1,000 (10) are
    /// within 10 ms of 200 ms. Service time, what a closed loop reports, sees one slow unit.
    #[test]
    fn a_stall_shows_in_the_open_loops_percentiles_as_the_arithmetic_predicts() {
        let stalled = std::sync::atomic::AtomicBool::new(false);
        let out = run_step(
            1,
            &open(1000.0, 1.0),
            &Progress::hidden(),
            Ok,
            |_: &mut usize, w| {
                while w.more() {
                    let pause = w.elapsed() >= 0.3 && !stalled.swap(true, Ordering::SeqCst);
                    w.timed(1, || {
                        if pause {
                            std::thread::sleep(Duration::from_millis(200));
                        }
                        Ok(())
                    })?;
                }
                Ok(())
            },
        )
        .unwrap();
        let ms = |ns: u64| ns as f64 / 1e6;
        let open = out.open_loop.as_ref().unwrap();
        let p99 = ms(out.latency.value_at_quantile(0.99));
        let max = ms(out.latency.max());
        assert!((200.0..230.0).contains(&max), "max {max} ms");
        assert!((185.0..215.0).contains(&p99), "p99 {p99} ms: 190 predicted");
        // Requests scheduled during the stall: about 200 waited 20 ms or more.
        let over_20ms = out.latency.count_between(20_000_000, u64::MAX);
        assert!(
            (170..=200).contains(&over_20ms),
            "{over_20ms} waited over 20 ms"
        );
        assert!(
            ms(open.service.value_at_quantile(0.99)) < 5.0,
            "service p99"
        );
        assert!(ms(open.service.max()) >= 200.0, "the one slow unit");
        let worst = out
            .intervals
            .iter()
            .map(|f| f.lag_max_us.unwrap())
            .fold(0.0, f64::max);
        assert!(
            worst >= 190_000.0,
            "the lag shows in the series: {worst} us"
        );
    }
}
