//! The terminal's line per interval of a running step, as pgbench -P prints them.

use super::intervals::{Collector, IntervalFigure};
use super::progress::Progress;
use super::timing::Timing;

/// Steps without `--interval` print their lines once they have run this long.
const QUIET_SECONDS: f64 = 5.0;

/// The terminal's line per interval (as pgbench -P prints).
pub(super) struct IntervalLines<'a> {
    progress: &'a Progress,
    always: bool,
    printed: usize,
}

impl<'a> IntervalLines<'a> {
    pub(super) fn new(timing: &Timing, progress: &'a Progress) -> Self {
        IntervalLines {
            progress,
            always: timing.print_intervals,
            printed: 0,
        }
    }

    pub(super) fn print_new(&mut self, collector: &mut Collector) {
        collector.finish_ready();
        let figures = &collector.figures;
        let ran = figures.last().map_or(0.0, |f| f.t_s + f.seconds);
        if !self.always && ran < QUIET_SECONDS {
            return;
        }
        for f in &figures[self.printed..] {
            self.progress.line(&interval_line(f));
        }
        self.printed = figures.len();
    }
}

/// `  12.0 s   4,321 ops/s  p50 0.21 ms  p99 1.30 ms  max 3.0 s`
pub fn interval_line(f: &IntervalFigure) -> String {
    let ms = |us: f64| crate::units::duration(us / 1e6);
    let mut line = format!(
        "  {:>7.1} s {:>12} ops/s  p50 {:>8}  p99 {:>8}  max {:>8}",
        f.t_s + f.seconds,
        crate::units::thousands(f.ops_per_sec),
        ms(f.p50_us),
        ms(f.p99_us),
        ms(f.max_us)
    );
    if let Some(lag) = f.lag_max_us {
        line.push_str(&format!("  lag max {}", ms(lag)));
    }
    if f.warmup {
        line.push_str("  (warm-up)");
    }
    line
}
