//! A worker of a timed step: its own counters and histograms, the body's handle on the clock.
//! In an open loop `timed` waits for each unit's intended start and counts latency from it.

use super::fault::{Clock, Seen};
use super::interrupted;
use super::intervals::{Collector, Grid, Slot};
use super::latency::new_histogram;
use super::progress::Progress;
use super::timing::{wait_until, Pace, Timing};
use anyhow::Result;
use hdrhistogram::Histogram;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Progress is published in chunks so that workers do not contend on a shared counter.
const PROGRESS_CHUNK: u64 = 1024;

/// A worker's own counters; passed to the step body.
pub struct Worker<'a> {
    pub index: usize,
    unpublished: u64,
    retries: u64,
    slot: Slot,
    grid: Grid,
    collector: &'a Mutex<Collector>,
    pace: Option<Pace>,
    deadline: Option<Instant>,
    latency_limit: Option<Duration>,
    late: u64,
    skipped: u64,
    service: Option<Histogram<u64>>,
    lag: Option<Histogram<u64>>,
    /// Counted latency per kind of unit, for bodies that run several kinds (`timed_as`).
    kinds: Vec<Histogram<u64>>,
    /// Counted latency per part of a unit (a statement of a transaction), as told by `part`.
    parts: Vec<Histogram<u64>>,
    progress: &'a Progress,
    stop: &'a AtomicBool,
    /// The last unit's intended start, start and end (its start again when skipped), for a
    /// body that logs each; kept as instants so that the hot loop does no arithmetic for it.
    last: Option<(Instant, Instant, Instant)>,
    /// The step's fault and what this worker saw of it.
    fault: Option<(&'a Clock, Seen)>,
}

/// When a unit that may be skipped was meant to start (its actual start in a closed loop),
/// and when its step ends (one that runs for a time): what a body needs to decide, as pgbench
/// decides, whether a lost try may be tried again.
#[derive(Clone, Copy, Debug)]
pub struct Turn {
    pub intended: Instant,
    pub ends: Option<Instant>,
}

/// A unit's intended and actual start, from `Worker::begin` to its `end`.
#[derive(Clone, Copy, Debug)]
pub struct Began {
    intended: Instant,
    start: Instant,
}

/// A unit's times: from its intended start to its end (its latency), and from its intended
/// start to its actual start (its lag in an open loop; zero in a closed one).
#[derive(Clone, Copy, Debug)]
pub struct Timed {
    pub latency: Duration,
    pub lag: Duration,
}

impl Worker<'_> {
    /// The last unit's times.
    pub fn last(&self) -> Option<Timed> {
        self.last.map(|(intended, start, end)| Timed {
            latency: end - intended,
            lag: start - intended,
        })
    }

    /// Runs `unit` (one operation or transaction of `ops` operations), recording its latency;
    /// in an open loop, first waits for its intended start.
    #[inline]
    pub fn timed<T>(&mut self, ops: u64, unit: impl FnOnce() -> Result<T>) -> Result<T> {
        let began = self.begin();
        let out = unit()?;
        self.end(ops, began);
        Ok(out)
    }

    /// `timed`'s first half, for a body whose loop runs elsewhere (a script's own event loop,
    /// which calls in at each unit's start and end): waits for the unit's intended start in an
    /// open loop, and notes its start.
    #[inline]
    pub fn begin(&mut self) -> Began {
        let intended = self.next_start();
        let start = Instant::now();
        Began {
            intended: intended.unwrap_or(start),
            start,
        }
    }

    /// `timed`'s second half: the unit begun at `began`, of `ops` operations, ended now.
    #[inline]
    pub fn end(&mut self, ops: u64, began: Began) {
        self.done(ops, began.intended, began.start, Instant::now());
    }

    /// As `timed`, for a unit of kind `kind` (an index the body chose: read, update, ...):
    /// its latency also goes to that kind's own histogram (`StepOutcome::by_kind`).
    #[inline]
    pub fn timed_as<T>(
        &mut self,
        kind: usize,
        ops: u64,
        unit: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        let out = self.unit(Some(kind), false, ops, |_| unit())?;
        Ok(out.expect("a unit that may not be skipped runs"))
    }

    /// Records how long part `part` of the unit just timed took (a statement of a
    /// transaction), when that unit was counted: `StepOutcome::by_part`.
    pub fn part(&mut self, part: usize, nanos: u64) {
        if self.slot.index >= 0 {
            if part >= self.parts.len() {
                self.parts.resize_with(part + 1, new_histogram);
            }
            self.parts[part].saturating_record(nanos.max(1));
        }
    }

    /// As `timed`, for a unit that may be left out: in an open loop with a latency limit, a
    /// unit already later than the limit at its turn is skipped (None), as pgbench does.
    #[inline]
    pub fn timed_or_skipped<T>(
        &mut self,
        ops: u64,
        unit: impl FnOnce(Turn) -> Result<T>,
    ) -> Result<Option<T>> {
        self.unit(None, true, ops, unit)
    }

    /// As `timed_as`, for a unit that may be left out as `timed_or_skipped` leaves it.
    #[inline]
    pub fn timed_as_or_skipped<T>(
        &mut self,
        kind: usize,
        ops: u64,
        unit: impl FnOnce(Turn) -> Result<T>,
    ) -> Result<Option<T>> {
        self.unit(Some(kind), true, ops, unit)
    }

    /// Runs `unit` after its intended start (skipped when `skippable` and already later than
    /// the latency limit), recording its latency, and that of its kind when it has one.
    #[inline]
    fn unit<T>(
        &mut self,
        kind: Option<usize>,
        skippable: bool,
        ops: u64,
        unit: impl FnOnce(Turn) -> Result<T>,
    ) -> Result<Option<T>> {
        let intended = self.next_start();
        let start = Instant::now();
        if let (true, Some(intended), Some(limit)) = (skippable, intended, self.latency_limit) {
            if start.duration_since(intended) > limit {
                if start >= self.grid.base {
                    self.skipped += 1;
                }
                if start >= self.slot.ends {
                    self.move_on(start);
                }
                self.slot.setbacks.skipped += 1;
                self.last = Some((intended, start, start));
                return Ok(None);
            }
        }
        let turn = Turn {
            intended: intended.unwrap_or(start),
            ends: self.deadline,
        };
        let out = unit(turn)?;
        let (intended, end) = (intended.unwrap_or(start), Instant::now());
        self.last = Some((intended, start, end));
        self.done(ops, intended, start, end);
        if let (Some(kind), true) = (kind, self.slot.index >= 0) {
            if kind >= self.kinds.len() {
                self.kinds.resize_with(kind + 1, new_histogram);
            }
            let ns = end.duration_since(intended).as_nanos() as u64;
            self.kinds[kind].saturating_record(ns.max(1));
        }
        Ok(Some(out))
    }

    /// Open loop: waits for the next intended start and returns it.
    #[inline]
    fn next_start(&mut self) -> Option<Instant> {
        let pace = self.pace.as_mut()?;
        let intended = pace.take();
        let stop = self.stop;
        wait_until(intended, || stop.load(Ordering::Relaxed) || interrupted());
        Some(intended)
    }

    #[inline]
    fn done(&mut self, ops: u64, intended: Instant, start: Instant, end: Instant) {
        if end >= self.slot.ends {
            self.move_on(end);
        }
        let ns = end.duration_since(intended).as_nanos() as u64;
        self.slot.latency.saturating_record(ns.max(1));
        if self.slot.index >= 0 {
            if self.latency_limit.is_some_and(|l| ns > l.as_nanos() as u64) {
                self.late += 1;
            }
            if let (Some(service), Some(lag)) = (&mut self.service, &mut self.lag) {
                service.saturating_record((end - start).as_nanos().max(1) as u64);
                lag.saturating_record((start - intended).as_nanos().max(1) as u64);
            }
        }
        if self.pace.is_some() {
            let lag = (start - intended).as_nanos() as u64;
            self.slot.lag_max_ns = self.slot.lag_max_ns.max(lag);
            self.slot.lag_sum_ns += lag;
        }
        if let Some((clock, seen)) = &mut self.fault {
            seen.saw(
                clock,
                end.duration_since(self.grid.t0).as_nanos() as u64,
                ns,
            );
        }
        self.count_in_slot(ops);
    }

    /// Counts operations done without timing each (a bulk scan, for instance).
    #[inline]
    pub fn count(&mut self, ops: u64) {
        let now = Instant::now();
        if now >= self.slot.ends {
            self.move_on(now);
        }
        self.count_in_slot(ops);
    }

    #[inline]
    fn count_in_slot(&mut self, ops: u64) {
        self.slot.ops += ops;
        self.unpublished += ops;
        if self.unpublished >= PROGRESS_CHUNK {
            self.progress.add(self.unpublished);
            self.unpublished = 0;
        }
    }

    /// Hands the finished interval over and moves into the one `t` falls in.
    #[cold]
    fn move_on(&mut self, t: Instant) {
        let next = self.grid.index_of(t);
        self.collector
            .lock()
            .unwrap()
            .hand_over(self.index, &mut self.slot, next);
        self.slot.index = next;
        self.slot.ends = self.grid.start_of(next + 1);
    }

    /// The body returned at `end`: hands the last interval over and keeps the counters.
    pub(super) fn finish(mut self, end: Instant) -> Done {
        self.progress.add(self.unpublished);
        (self.collector.lock().unwrap()).worker_done(self.index, &mut self.slot, end);
        Done {
            retries: self.retries,
            late: self.late,
            skipped: self.skipped,
            service: self.service,
            lag: self.lag,
            kinds: self.kinds,
            parts: self.parts,
            seen: self.fault.map(|(_, seen)| seen),
        }
    }

    /// Whether the unit just timed was counted (it ended after the warm-up).
    pub fn counted(&self) -> bool {
        self.slot.index >= 0
    }

    pub fn retried(&mut self) {
        self.retries += 1;
        self.slot.setbacks.retries += 1;
    }

    /// The unit just ended took `retries` retries and (`failed`) failed at its last try, not
    /// done: counted in the step's retries and the interval's setbacks (pgbench -P's retried
    /// and failed).
    pub fn setback(&mut self, retries: u64, failed: bool) {
        let now = Instant::now();
        if now >= self.slot.ends {
            self.move_on(now);
        }
        self.retries += retries;
        let s = &mut self.slot.setbacks;
        s.retries += retries;
        s.retried += u64::from(retries > 0);
        s.failed += u64::from(failed);
    }

    /// Whether a lost connection is lived through (the step has a fault): the runner makes the
    /// worker's state again, so a body that handles its own errors hands such a one back.
    pub fn reconnects(&self) -> bool {
        self.fault.is_some()
    }

    /// The unit in flight failed with its connection lost (`--fault`): counted as failed.
    pub(super) fn lost(&mut self) {
        let now = self.grid.t0.elapsed().as_nanos() as u64;
        if let Some((_, seen)) = &mut self.fault {
            seen.failed(now);
        }
    }

    /// An attempt to reconnect failed.
    pub(super) fn refused(&mut self) {
        if let Some((_, seen)) = &mut self.fault {
            seen.refused();
        }
    }

    /// When the step's workers were released.
    pub fn step_start(&self) -> Instant {
        self.grid.t0
    }

    /// Seconds since the step's workers were released.
    pub fn elapsed(&self) -> f64 {
        self.grid.t0.elapsed().as_secs_f64()
    }

    /// True when the step should end early: another worker failed, or the user pressed Ctrl-C.
    #[inline]
    pub fn should_stop(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || interrupted()
    }

    /// Whether to start another unit: not stopping, and (a step that runs for a time) its next
    /// start, intended or now, is before the step's end.
    #[inline]
    pub fn more(&self) -> bool {
        if self.should_stop() {
            return false;
        }
        match self.deadline {
            None => true,
            Some(deadline) => self.pace.as_ref().map_or_else(Instant::now, Pace::peek) < deadline,
        }
    }
}

impl<'a> Worker<'a> {
    pub(super) fn new(
        index: usize,
        workers: usize,
        timing: &Timing,
        grid: Grid,
        collector: &'a Mutex<Collector>,
        progress: &'a Progress,
        stop: &'a AtomicBool,
    ) -> Worker<'a> {
        let open = timing.schedule.is_some();
        Worker {
            index,
            unpublished: 0,
            retries: 0,
            slot: grid.slot_at(grid.t0),
            grid,
            collector,
            pace: (timing.schedule.as_ref()).map(|s| Pace::new(s, index, workers, grid.t0)),
            deadline: timing.duration.map(|d| grid.t0 + d),
            latency_limit: timing.latency_limit,
            late: 0,
            skipped: 0,
            service: open.then(new_histogram),
            lag: open.then(new_histogram),
            kinds: Vec::new(),
            parts: Vec::new(),
            progress,
            stop,
            last: None,
            fault: None,
        }
    }

    /// The worker of a step with a fault, placing its units against the fault's instants.
    pub(super) fn watching(mut self, fault: Option<&'a Clock>) -> Worker<'a> {
        self.fault = fault.map(|clock| (clock, Seen::new()));
        self
    }
}

/// What one worker counted beside the intervals.
pub(super) struct Done {
    pub retries: u64,
    pub late: u64,
    pub skipped: u64,
    pub service: Option<Histogram<u64>>,
    pub lag: Option<Histogram<u64>>,
    pub kinds: Vec<Histogram<u64>>,
    pub parts: Vec<Histogram<u64>>,
    /// What it saw of the step's fault.
    pub seen: Option<Seen>,
}

impl Done {
    /// Stands for a worker that panicked: `merge` reports it as an error.
    pub(super) fn panicked() -> Done {
        Done {
            retries: u64::MAX,
            late: 0,
            skipped: 0,
            service: None,
            lag: None,
            kinds: Vec::new(),
            parts: Vec::new(),
            seen: None,
        }
    }
}

/// How long a worker tries to reconnect before the step fails.
const RECONNECT_FOR: Duration = Duration::from_secs(60);

/// A worker's state made anew after its connection was lost: tried again with a backoff that
/// doubles from 5 ms to 100 ms (so that a server back is found within 0.1 s), until the step
/// ends (None) or `RECONNECT_FOR` has passed.
pub(super) fn reconnect<S>(
    index: usize,
    setup: &(dyn Fn(usize) -> Result<S> + Sync),
    worker: &mut Worker,
) -> Result<Option<S>> {
    let (since, mut wait) = (Instant::now(), Duration::from_millis(5));
    while worker.more() {
        match setup(index) {
            Ok(s) => return Ok(Some(s)),
            Err(e) if since.elapsed() > RECONNECT_FOR => {
                return Err(e.context(format!(
                    "worker {index} could not reconnect within {} s",
                    RECONNECT_FOR.as_secs()
                )))
            }
            Err(_) => worker.refused(),
        }
        super::multiplex::sleep(wait);
        wait = (wait * 2).min(Duration::from_millis(100));
    }
    Ok(None)
}
