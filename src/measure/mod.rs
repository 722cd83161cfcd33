//! The engine-agnostic timing core: worker threads released together (or several workers to a
//! thread, `multiplex.rs`), per-worker latency histograms merged after, summary statistics over
//! repeated runs, progress display.
//!
//! Nothing here knows a workload or an engine.

pub mod fault;
pub mod fsync_probe;
pub mod intervals;
pub mod latency;
mod lines;
pub mod multiplex;
pub mod outcome;
pub mod progress;
mod readings;
pub mod resources;
pub mod runner;
pub mod stats;
pub mod timing;
pub mod worker;

use std::sync::atomic::{AtomicI32, Ordering};

/// The signal that asked the run to stop (0: none).
static INTERRUPTED: AtomicI32 = AtomicI32::new(0);

/// Asks running steps to stop, for `signal`; true the first time.
pub fn interrupt(signal: i32) -> bool {
    INTERRUPTED
        .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok()
}

pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed) != 0
}

/// The signal that stopped the run (SIGINT when none was recorded).
pub fn interrupting_signal() -> i32 {
    match INTERRUPTED.load(Ordering::Relaxed) {
        0 => libc::SIGINT,
        s => s,
    }
}

/// The exit code of a run stopped by a signal: 128 + the signal, as shells report it.
pub fn interrupted_exit_code() -> i32 {
    128 + interrupting_signal()
}

/// The error a step returns when it was cut short by a signal.
#[derive(Debug)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}
