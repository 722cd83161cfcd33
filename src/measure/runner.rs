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
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
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
        carried: AtomicUsize::new(0),
        main: std::thread::current(),
    };
    let (mut done, readings, injected, end) = std::thread::scope(|scope| {
        let handles: Vec<_> = (carriers.iter().cloned())
            .map(|indices| {
                let (step, setup, body) = (&step, &setup, &body);
                scope.spawn(move || step.carry_and_wake(indices, setup, body))
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
        while !step.all_carried(handles.len()) && !handles.iter().all(|h| h.is_finished()) {
            std::thread::park_timeout(Collector::nap(collector));
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
    /// How many carriers have ended their workers (before waking the calling thread).
    carried: AtomicUsize,
    /// The calling thread, woken by each carrier as it ends so that the step ends with its
    /// workers rather than at the calling thread's next look.
    main: std::thread::Thread,
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

    /// Whether all `carriers` have ended their workers. A carrier counts itself before it
    /// wakes the calling thread; its thread is "finished" only once it has returned, after the
    /// wake, and a look in between would nap on to the next boundary (a whole interval). A
    /// carrier that panicked does not count itself, and is seen finished at the next look.
    fn all_carried(&self, carriers: usize) -> bool {
        self.carried.load(Ordering::SeqCst) == carriers
    }

    /// [`Step::carry`], then wakes the calling thread.
    fn carry_and_wake<S>(
        &self,
        indices: Range<usize>,
        setup: &(dyn Fn(usize) -> Result<S> + Sync),
        body: &(dyn Fn(&mut S, &mut Worker) -> Result<()> + Sync),
    ) -> Vec<Option<Done>> {
        let done = self.carry(indices, setup, body);
        self.carried.fetch_add(1, Ordering::SeqCst);
        self.main.unpark();
        done
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
mod tests;
