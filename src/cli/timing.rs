//! The flags that clock every timed step: the interval series, the warm-up, the open loop, the
//! interval logs and the resource readings.

use crate::measure::fault::Fault;
use crate::measure::timing::Arrival;
use crate::run::TimingOptions;
use clap::Args;
use std::path::PathBuf;

/// How timed steps are clocked: the interval series, the warm-up, the open loop.
#[derive(Args, Clone, Debug)]
#[command(next_help_heading = "Timing")]
pub struct TimingArgs {
    /// Cut each timed step into intervals of this many seconds: the result file keeps ops/s,
    /// p50, p99 and max per interval, and a line per interval is printed (without this flag:
    /// 1 s, printed once a step has run 5 s).
    #[arg(long, value_name = "SECONDS", value_parser = positive_seconds)]
    pub interval: Option<f64>,
    /// Run the first seconds of each timed step without counting them (shaded in the report's
    /// time charts). Must be shorter than the step.
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    pub warmup: Option<f64>,
    /// Open loop: schedule operations (transactions) at this many per second in total, spread
    /// over the workers, and measure latency from each one's intended start (no coordinated
    /// omission); service time and schedule lag are recorded beside it. Several rates
    /// (500,1000,2000) run each configuration once per rate: a latency-vs-load curve.
    #[arg(long, value_name = "RATES", value_parser = rates)]
    pub rate: Option<Rates>,
    /// How intended starts are spaced in an open loop.
    #[arg(long, value_enum, value_name = "KIND", requires = "rate")]
    pub arrival: Option<Arrival>,
    /// Count operations that end more than this many milliseconds after their (intended)
    /// start; in an open loop tpcb and script also skip a transaction already that late at its
    /// turn, as pgbench does (kv and session must do every operation: there they are only
    /// counted).
    #[arg(long, value_name = "MS", value_parser = positive_seconds)]
    pub latency_limit: Option<f64>,
    /// Write every step's interval histograms to DIR/<run-id>.hlog, in HdrHistogram's interval
    /// log format (nanoseconds; one tag per step and run).
    #[arg(long, value_name = "DIR")]
    pub hlog: Option<PathBuf>,
    /// Read nothing of what each step costs (by default hakari reads its own CPU, its private
    /// servers' processes, the data directory's device and the servers' own statistics on
    /// every interval boundary, and records cost per operation).
    #[arg(long)]
    pub no_resources: bool,
    /// Also turn on the statistics an engine keeps only when asked, whose counting costs it
    /// throughput: RocksDB's statistics object (the bytes the user, the WAL, flushes and
    /// compactions wrote, write stalls, block cache hits), which costs its fetches 3-4%.
    #[arg(long, conflicts_with = "no_resources")]
    pub engine_statistics: bool,
    /// Put a fault into each timed step, at AT from the step's start (warm-up included), on the
    /// private servers hakari starts (not a --url server). `stall@30s:5s` stops every process
    /// of the servers (SIGSTOP) for 5 s, then continues them; `partition@30s:5s` drops their
    /// network traffic for 5 s (nftables; root); `restart@30s` shuts a server down
    /// and starts it again; `kill-primary@30s` kills a PostgreSQL primary started with standbys
    /// (--replicas) and promotes the most advanced standby; `kill-node@30s` kills node 1 of a
    /// Galera cluster or a Redis Cluster (--cluster). The step records the outage (the
    /// longest span in which no operation completed), the time until throughput is back within
    /// 10% of its level before, and p99 in the minute before and the minute after.
    #[arg(long, value_name = "KIND@AT[:LENGTH]", value_parser = Fault::parse)]
    pub fault: Option<Fault>,
}

/// `--rate`'s values.
#[derive(Clone, Debug)]
pub struct Rates(Vec<f64>);

fn rates(text: &str) -> Result<Rates, String> {
    text.split(',')
        .map(|r| match r.trim().parse::<f64>() {
            Ok(v) if v > 0.0 && v.is_finite() => Ok(v),
            _ => Err(format!(
                "'{r}' is not a rate above 0 (operations per second)"
            )),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Rates)
}

fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v >= 0.0 && v.is_finite() => Ok(v),
        _ => Err(format!("'{text}' is not a number of seconds")),
    }
}

fn positive_seconds(text: &str) -> Result<f64, String> {
    match seconds(text) {
        Ok(v) if v > 0.0 => Ok(v),
        _ => Err(format!("'{text}' is not a number above 0")),
    }
}

impl TimingArgs {
    pub(super) fn options(&self) -> TimingOptions {
        TimingOptions {
            interval: self.interval,
            warmup: self.warmup.unwrap_or(0.0),
            rates: self.rate.clone().map(|r| r.0).unwrap_or_default(),
            arrival: self.arrival.unwrap_or_default(),
            latency_limit_ms: self.latency_limit,
            hlog: self.hlog.clone(),
            start_at: None,
            no_resources: self.no_resources,
            engine_statistics: self.engine_statistics,
            interval_style: Default::default(),
            fault: self.fault,
        }
    }
}
