//! The terminal's line per interval of a running step, as pgbench -P prints them.

use super::intervals::{Collector, IntervalFigure};
use super::progress::Progress;
use super::timing::{IntervalStyle, PgbenchLine, Timing};
use std::time::{SystemTime, UNIX_EPOCH};

/// Steps without `--interval` print their lines once they have run this long (`hakari pgbench`
/// without -P, none).
const QUIET_SECONDS: f64 = 5.0;

/// The terminal's line per interval (as pgbench -P prints).
pub(super) struct IntervalLines<'a> {
    progress: &'a Progress,
    always: bool,
    style: IntervalStyle,
    interval: f64,
    printed: usize,
    /// When the step's clock started, in seconds since the Unix epoch.
    started: f64,
}

impl<'a> IntervalLines<'a> {
    pub(super) fn new(timing: &Timing, progress: &'a Progress, started: SystemTime) -> Self {
        IntervalLines {
            progress,
            always: timing.print_intervals,
            style: timing.interval_style,
            interval: timing.interval.as_secs_f64(),
            printed: 0,
            started: (started.duration_since(UNIX_EPOCH)).map_or(0.0, |d| d.as_secs_f64()),
        }
    }

    pub(super) fn print_new(&mut self, collector: &mut Collector) {
        collector.finish_ready();
        let figures = &collector.figures;
        let ran = figures.last().map_or(0.0, |f| f.t_s + f.seconds);
        // pgbench prints no interval's line without -P; hakari's own steps print theirs once
        // they have run a while.
        let pgbench = matches!(self.style, IntervalStyle::Pgbench(_));
        if !self.always && (pgbench || ran < QUIET_SECONDS) {
            return;
        }
        for f in &figures[self.printed..] {
            let whole = f.seconds >= self.interval * 0.99;
            // pgbench reports whole intervals only, not the step's last fraction of one.
            match self.style {
                IntervalStyle::Hakari => self.progress.line(&interval_line(f)),
                _ if !whole => {}
                IntervalStyle::Pgbench(line) => {
                    let started = line.timestamp.then_some(self.started);
                    self.progress.line(&pgbench_line(f, started, line))
                }
            }
        }
        self.printed = figures.len();
    }
}

/// pgbench -P's line: the time from the start (or, given when the step `started` in seconds
/// since the Unix epoch, the interval's end as pgbench --progress-timestamp prints it),
/// transactions per second, the latency's mean and standard deviation in milliseconds, the
/// failed; in an open loop the mean lag (and under a latency limit the skipped), and when a
/// transaction may be tried more than once the retried and the retries.
pub fn pgbench_line(f: &IntervalFigure, started: Option<f64>, line: PgbenchLine) -> String {
    let ms = |us: Option<f64>| us.unwrap_or(0.0) / 1000.0;
    let end = f.t_s + f.seconds;
    let time = match started {
        Some(at) => format!("{:.3}", at + end),
        None => format!("{end:.1}"),
    };
    let s = &f.setbacks;
    let mut text = format!(
        "progress: {time} s, {:.1} tps, lat {:.3} ms stddev {:.3}, {} failed",
        f.ops_per_sec,
        ms(f.mean_us),
        ms(f.stddev_us),
        s.failed
    );
    if f.lag_max_us.is_some() {
        text.push_str(&format!(", lag {:.3} ms", ms(f.lag_mean_us)));
        if line.skipped {
            text.push_str(&format!(", {} skipped", s.skipped));
        }
    }
    if line.retries {
        text.push_str(&format!(", {} retried, {} retries", s.retried, s.retries));
    }
    text
}

/// `  12.0 s   4,321 ops/s  p50 0.21 ms  p99 1.30 ms  max 3.0 s`; an interval in which nothing
/// finished (a long query running through it) has no latency: `-`.
pub fn interval_line(f: &IntervalFigure) -> String {
    let ms = |us: f64| match f.ops {
        0 => "-".to_string(),
        _ => crate::units::duration(us / 1e6),
    };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_with_nothing_finished_shows_no_latency() {
        let mut f = IntervalFigure {
            t_s: 2.0,
            seconds: 1.0,
            ..Default::default()
        };
        let line = interval_line(&f);
        assert!(
            line.contains("p50        -  p99        -  max        -"),
            "{line}"
        );
        f.ops = 3;
        f.p50_us = 210.0;
        let line = interval_line(&f);
        assert!(
            line.contains("p50   210 µs") && !line.contains('-'),
            "{line}"
        );
    }
}
