//! Standard output that a closed pipe does not break. `hakari engines | head -5` closes the pipe
//! after five lines; Rust's `print!` would then panic ("failed printing to stdout: Broken pipe").
//! A command-line tool goes quiet instead: the first broken-pipe write marks stdout closed, later
//! writes are dropped, and the command finishes as it would have (a run still writes its result
//! file and stops its private servers), exiting 0.

use std::fmt;
use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes to stdout; after the reader has gone, does nothing.
pub fn write_stdout(args: fmt::Arguments) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    let written = out.write_fmt(args).and_then(|_| out.flush());
    if let Err(e) = written {
        if e.kind() == ErrorKind::BrokenPipe {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
        }
        // Any other failure to print (a full disk behind a redirect) is not worth a panic either:
        // the result file, not the terminal, is the record.
    }
}

/// `print!` to stdout, quiet on a closed pipe.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::write_stdout(format_args!($($arg)*)) };
}

/// `println!` to stdout, quiet on a closed pipe.
#[macro_export]
macro_rules! outln {
    () => { $crate::output::write_stdout(format_args!("\n")) };
    ($($arg:tt)*) => {{
        $crate::output::write_stdout(format_args!($($arg)*));
        $crate::output::write_stdout(format_args!("\n"));
    }};
}

/// What `hakari export` writes: rows for spreadsheets, or the series for Prometheus.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// One row per measurement, every configuration field and figure a column.
    #[default]
    Csv,
    /// The same rows as a JSON array.
    Json,
    /// Every interval's throughput and latency and every resource reading as timestamped
    /// samples, for `promtool tsdb create-blocks-from openmetrics`.
    Openmetrics,
}

/// How a listing command prints: a table for people, JSON or CSV for scripts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    #[default]
    Table,
    Json,
    Csv,
}
