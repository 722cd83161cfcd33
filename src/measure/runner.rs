//! Closed-loop workers: N threads, each with its own state (handle, connection), set up untimed,
//! released together; each times its own first-to-last operation and the step's time is the span
//! from the earliest start to the latest end.

use super::latency::new_histogram;
use super::progress::Progress;
use super::{interrupted, Interrupted};
use anyhow::{anyhow, Result};
use hdrhistogram::Histogram;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

/// What one timed step of N workers produced.
#[derive(Debug)]
pub struct StepOutcome {
    pub seconds: f64,
    pub ops: u64,
    pub retries: u64,
    /// Merged latency of every timed unit (operation or transaction), in nanoseconds.
    pub latency: Histogram<u64>,
}

impl StepOutcome {
    pub fn ops_per_sec(&self) -> f64 {
        if self.seconds > 0.0 {
            self.ops as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// Progress is published in chunks so that workers do not contend on a shared counter.
const PROGRESS_CHUNK: u64 = 1024;

/// A worker's own counters; passed to the step body.
pub struct Worker<'a> {
    pub index: usize,
    ops: u64,
    unpublished: u64,
    retries: u64,
    latency: Histogram<u64>,
    progress: &'a Progress,
    stop: &'a AtomicBool,
}

impl Worker<'_> {
    /// Runs `unit` (one operation or transaction of `ops` operations), recording its latency.
    #[inline]
    pub fn timed<T>(&mut self, ops: u64, unit: impl FnOnce() -> Result<T>) -> Result<T> {
        let start = Instant::now();
        let out = unit()?;
        let ns = start.elapsed().as_nanos() as u64;
        self.latency.saturating_record(ns.max(1));
        self.count(ops);
        Ok(out)
    }

    /// Counts operations done without timing each (a bulk scan, for instance).
    #[inline]
    pub fn count(&mut self, ops: u64) {
        self.ops += ops;
        self.unpublished += ops;
        if self.unpublished >= PROGRESS_CHUNK {
            self.progress.add(self.unpublished);
            self.unpublished = 0;
        }
    }

    pub fn retried(&mut self) {
        self.retries += 1;
    }

    /// True when the step should end early: another worker failed, or the user pressed Ctrl-C.
    #[inline]
    pub fn should_stop(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || interrupted()
    }
}

/// Runs a step on `threads` workers. `setup(i)` builds worker i's state in its own thread
/// (untimed); `body(state, worker)` is the timed part.
pub fn run_step<S, Setup, Body>(
    threads: usize,
    progress: &Progress,
    setup: Setup,
    body: Body,
) -> Result<StepOutcome>
where
    Setup: Fn(usize) -> Result<S> + Sync,
    Body: Fn(&mut S, &mut Worker) -> Result<()> + Sync,
{
    assert!(threads > 0, "a step needs at least one worker");
    let barrier = Barrier::new(threads);
    let stop = AtomicBool::new(false);
    let first_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let fail = |e: anyhow::Error| {
        stop.store(true, Ordering::SeqCst);
        let mut slot = first_error.lock().unwrap();
        if slot.is_none() {
            *slot = Some(e);
        }
    };

    let done: Vec<Option<Done>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|index| {
                let (barrier, stop, fail, setup, body) = (&barrier, &stop, &fail, &setup, &body);
                scope.spawn(move || {
                    let state = setup(index);
                    // Everyone reaches the barrier, even a worker whose setup failed, so that
                    // no thread waits forever.
                    let mut state = match state {
                        Ok(s) => {
                            barrier.wait();
                            s
                        }
                        Err(e) => {
                            fail(e.context(format!("worker {index} could not start")));
                            barrier.wait();
                            return None;
                        }
                    };
                    if stop.load(Ordering::SeqCst) {
                        return None;
                    }
                    let mut worker = Worker {
                        index,
                        ops: 0,
                        unpublished: 0,
                        retries: 0,
                        latency: new_histogram(),
                        progress,
                        stop,
                    };
                    let start = Instant::now();
                    let result = body(&mut state, &mut worker);
                    let end = Instant::now();
                    progress.add(worker.unpublished);
                    drop(state); // closes the worker's handle outside the timed span
                    match result {
                        Ok(()) => Some(Done {
                            start,
                            end,
                            ops: worker.ops,
                            retries: worker.retries,
                            latency: worker.latency,
                        }),
                        Err(e) => {
                            fail(e);
                            None
                        }
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Some(panic_marker())))
            .collect()
    });
    progress.finish();

    if let Some(e) = first_error.into_inner().unwrap() {
        return Err(e);
    }
    if interrupted() {
        return Err(anyhow!(Interrupted));
    }
    merge(done, threads)
}

/// What one worker did in the timed part.
struct Done {
    start: Instant,
    end: Instant,
    ops: u64,
    retries: u64,
    latency: Histogram<u64>,
}

/// Stands for a worker that panicked: `merge` reports it as an error.
fn panic_marker() -> Done {
    let now = Instant::now();
    Done {
        start: now,
        end: now,
        ops: u64::MAX,
        retries: 0,
        latency: new_histogram(),
    }
}

/// The step as one outcome: from the first worker's start to the last one's end, every
/// operation, every latency.
fn merge(done: Vec<Option<Done>>, threads: usize) -> Result<StepOutcome> {
    let done: Vec<Done> = done.into_iter().flatten().collect();
    if done.len() != threads || done.iter().any(|d| d.ops == u64::MAX) {
        return Err(anyhow!("a worker thread panicked"));
    }
    let start = done.iter().map(|d| d.start).min().unwrap();
    let end = done.iter().map(|d| d.end).max().unwrap();
    let mut latency = new_histogram();
    for d in &done {
        latency
            .add(&d.latency)
            .expect("histograms of one precision merge");
    }
    Ok(StepOutcome {
        seconds: end
            .duration_since(start)
            .max(Duration::from_nanos(1))
            .as_secs_f64(),
        ops: done.iter().map(|d| d.ops).sum(),
        retries: done.iter().map(|d| d.retries).sum(),
        latency,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_ops_and_merges_latency_over_workers() {
        let out = run_step(
            4,
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
        let err = run_step(3, &Progress::hidden(), Ok, |i: &mut usize, w| {
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
}
