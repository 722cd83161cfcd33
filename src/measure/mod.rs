//! The engine-agnostic timing core: worker threads released together, per-worker latency
//! histograms merged after, summary statistics over repeated runs, progress display.
//!
//! Nothing here knows a workload or an engine.

pub mod fsync_probe;
pub mod intervals;
pub mod latency;
pub mod progress;
pub mod runner;
pub mod stats;
pub mod timing;
mod worker;

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Installs the Ctrl-C handler: the first Ctrl-C asks running steps to stop so the run can keep
/// what finished; a second one exits at once.
pub fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\ninterrupted: finishing up, keeping the steps that completed (Ctrl-C again to quit now)");
    });
}

pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// The error a step returns when it was cut short by Ctrl-C.
#[derive(Debug)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}
