//! A fault put into each timed step (`--fault stall@2s:1s`): what is done to the private
//! servers at a planned instant of the step's clock, and what the workers saw of it. The fault's
//! thread publishes when it began and ended; each worker places every unit it completes against
//! those instants, so the step can tell the outage (the longest span in which no unit completed,
//! from the last one before the fault to the first after it), how long throughput took to come
//! back, and the latency in the minute before and the minute after.

use super::intervals::IntervalFigure;
use super::latency::new_histogram;
use anyhow::{bail, Result};
use hdrhistogram::Histogram;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What a fault does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Every process of the private servers stopped (SIGSTOP) for the fault's length, then
    /// continued (SIGCONT): a server that hangs without dropping a connection.
    Stall,
    /// Every private server stopped as a shutdown stops it (PostgreSQL's fast shutdown,
    /// MariaDB's SIGTERM) and started again on its data, port and settings: the fault's length
    /// is how long that took, until it accepted connections again.
    Restart,
    /// The primary of a PostgreSQL primary with standbys killed, its whole process tree at
    /// once (SIGKILL), and the standby that received the most WAL promoted, as a failover
    /// manager promotes it: the fault lasts until the promoted standby takes writes.
    KillPrimary,
    /// Node 1 of a Galera cluster or of a Redis Cluster killed as a primary is: the fault lasts
    /// until the other Galera nodes are a primary component without it, or until the Redis
    /// Cluster has failed over to one of its replicas.
    KillNode,
    /// The network between the clients and every private server cut for the fault's length
    /// (their loopback traffic dropped by nftables, both ways): connections stay up, packets
    /// vanish, and TCP retransmits them once the cut is lifted.
    Partition,
}

impl Kind {
    const ALL: [(Kind, &'static str); 5] = [
        (Kind::Stall, "stall"),
        (Kind::Partition, "partition"),
        (Kind::Restart, "restart"),
        (Kind::KillPrimary, "kill-primary"),
        (Kind::KillNode, "kill-node"),
    ];

    /// Whether the fault is given a length (a restart or a failover takes what it takes).
    fn has_length(self) -> bool {
        matches!(self, Kind::Stall | Kind::Partition)
    }

    pub fn name(self) -> &'static str {
        Kind::ALL
            .iter()
            .find(|(k, _)| *k == self)
            .map_or("?", |(_, n)| n)
    }
}

/// A fault: its kind, when it begins on the step's clock (from the release of its workers,
/// warm-up included) and how long it lasts (zero for a restart).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fault {
    pub kind: Kind,
    pub at: Duration,
    pub length: Duration,
    /// Given without `@AT`: the instant is yet to be drawn from the run's seed ([`Fault::drawn`]).
    pub undrawn: bool,
}

impl Fault {
    /// `KIND[@AT][:LENGTH]`, times in seconds (`2s`, `1.5`, `500ms`): `stall@2s:1s`, `restart@2s`;
    /// without `@AT` (`stall:1s`, `restart`) the instant is drawn from the run's seed.
    pub fn parse(text: &str) -> Result<Fault, String> {
        let kinds: Vec<&str> = Kind::ALL.iter().map(|(_, n)| *n).collect();
        let form = format!(
            "KIND[@AT][:LENGTH], such as stall@30s:5s, partition@30s:5s, restart@30s or kill-primary@30s, or kill-primary without @AT for an instant drawn from the seed (kinds: {})",
            kinds.join(", ")
        );
        // Without @AT the instant is drawn from the seed: `stall:5s`, `kill-primary`.
        let (name, when, undrawn) = match text.split_once('@') {
            Some((name, when)) => (name, when.to_string(), false),
            None => match text.split_once(':') {
                Some((name, length)) => (name, format!("0:{length}"), true),
                None => (text, "0".to_string(), true),
            },
        };
        let Some(&(kind, _)) = Kind::ALL.iter().find(|(_, n)| *n == name) else {
            return Err(format!(
                "'{name}' is not a fault this version can put in: {form}"
            ));
        };
        let (at, length) = match (when.split_once(':'), kind.has_length()) {
            (Some((at, length)), true) => (seconds(at)?, seconds(length)?),
            (None, false) => (seconds(&when)?, Duration::ZERO),
            (None, true) => return Err(format!("{text}: a {name} needs its length: {form}")),
            (Some(_), false) => {
                return Err(format!(
                    "{text}: a {name} takes no length (it lasts what it takes)"
                ))
            }
        };
        if kind.has_length() && length.is_zero() {
            return Err(format!("{text}: a fault of no length does nothing"));
        }
        Ok(Fault {
            kind,
            at,
            length,
            undrawn,
        })
    }

    /// With its instant drawn from `seed` where none was given: uniformly in the middle half of
    /// what a step of `step` seconds leaves before the fault's end, so that the step has a
    /// stretch before it and after it to measure against.
    pub fn drawn(self, seed: u64, step: f64) -> Fault {
        use rand::{Rng, SeedableRng};
        if !self.undrawn {
            return self;
        }
        let room = (step - self.length.as_secs_f64()).max(0.0);
        let share: f64 = rand_chacha::ChaCha8Rng::seed_from_u64(seed).random_range(0.25..0.75);
        // Whole milliseconds, so that the instant reads back as it is written.
        let at = Duration::from_millis((room * share * 1000.0) as u64);
        Fault {
            at,
            undrawn: false,
            ..self
        }
    }

    /// When it ends on the step's clock.
    pub fn ends(&self) -> Duration {
        self.at + self.length
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // To the millisecond, as a drawn instant is.
        let s = |d: Duration| {
            let text = format!("{:.3}", d.as_secs_f64());
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        };
        match self.undrawn {
            true => write!(f, "{}", self.kind.name())?,
            false => write!(f, "{}@{}s", self.kind.name(), s(self.at))?,
        }
        if self.kind.has_length() {
            write!(f, ":{}s", s(self.length))?;
        }
        Ok(())
    }
}

/// A time in seconds: `2s`, `1.5`, `500ms`.
fn seconds(text: &str) -> Result<Duration, String> {
    let (number, scale) = match text.strip_suffix("ms") {
        Some(n) => (n, 1e-3),
        None => (text.strip_suffix('s').unwrap_or(text), 1.0),
    };
    match number.parse::<f64>() {
        Ok(v) if v >= 0.0 && v.is_finite() => Ok(Duration::from_secs_f64(v * scale)),
        _ => Err(format!("'{text}' is not a time (2s, 1.5, 500ms)")),
    }
}

/// A connection the server closed or refused (a restart, a shutdown): with `--fault` the
/// request counts as failed and the client reconnects, instead of the run ending.
#[derive(Debug)]
pub struct ConnectionLost;

impl std::fmt::Display for ConnectionLost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the connection to the server was lost")
    }
}

impl std::error::Error for ConnectionLost {}

/// Whether `e` or one of its causes is a [`ConnectionLost`] (as an engine marks it), or an I/O
/// error that can only mean the connection went away.
pub fn is_connection_lost(e: &anyhow::Error) -> bool {
    use std::io::ErrorKind;
    // downcast_ref sees a context (how engines mark it) through the layers above it.
    e.downcast_ref::<ConnectionLost>().is_some()
        || e.chain().any(|c| {
            c.downcast_ref::<std::io::Error>().is_some_and(|io| {
                matches!(
                    io.kind(),
                    ErrorKind::ConnectionReset
                        | ErrorKind::ConnectionAborted
                        | ErrorKind::ConnectionRefused
                        | ErrorKind::BrokenPipe
                        | ErrorKind::UnexpectedEof
                        | ErrorKind::NotConnected
                )
            })
        })
}

/// The latency before and after a fault is taken over this long on each side.
const WINDOW: Duration = Duration::from_secs(60);

/// A fault's instants on the step's clock (nanoseconds since the release; `u64::MAX` until
/// then), published by its thread for the workers to place their units against.
pub(super) struct Clock {
    planned: u64,
    began: AtomicU64,
    ended: AtomicU64,
}

impl Clock {
    pub(super) fn new(fault: &Fault) -> Clock {
        Clock {
            planned: fault.at.as_nanos() as u64,
            began: AtomicU64::new(u64::MAX),
            ended: AtomicU64::new(u64::MAX),
        }
    }
}

/// What one worker saw of the fault: its last unit completed before it, those completed during
/// it, its first completed after it, and latencies in the window on each side.
pub(super) struct Seen {
    /// Units that failed with the connection lost, and the first one's instant.
    failed: u64,
    first_failure: Option<u64>,
    /// Attempts to reconnect the server refused.
    refused: u64,
    last_before: Option<u64>,
    during: Vec<u64>,
    first_after: Option<u64>,
    before: Histogram<u64>,
    after: Histogram<u64>,
}

impl Seen {
    pub(super) fn new() -> Seen {
        Seen {
            failed: 0,
            first_failure: None,
            refused: 0,
            last_before: None,
            during: Vec::new(),
            first_after: None,
            before: new_histogram(),
            after: new_histogram(),
        }
    }

    /// A unit failed at `at_ns`: its connection was lost.
    pub(super) fn failed(&mut self, at_ns: u64) {
        self.failed += 1;
        self.first_failure.get_or_insert(at_ns);
    }

    /// An attempt to reconnect failed.
    pub(super) fn refused(&mut self) {
        self.refused += 1;
    }

    /// A unit completed at `end_ns` on the step's clock, `latency_ns` after its (intended) start.
    #[inline]
    pub(super) fn saw(&mut self, clock: &Clock, end_ns: u64, latency_ns: u64) {
        let window = WINDOW.as_nanos() as u64;
        let began = clock.began.load(Ordering::Acquire);
        if end_ns < began {
            self.last_before = Some(end_ns);
            if end_ns < clock.planned && end_ns + window >= clock.planned {
                self.before.saturating_record(latency_ns.max(1));
            }
            return;
        }
        let ended = clock.ended.load(Ordering::Acquire);
        if end_ns <= ended {
            self.during.push(end_ns);
            return;
        }
        self.first_after.get_or_insert(end_ns);
        if end_ns <= ended.saturating_add(window) {
            self.after.saturating_record(latency_ns.max(1));
        }
    }
}

/// Puts the fault in at its instant on the clock started at `t0`, unless the step is `over`
/// first (None); publishes its instants on `clock`. The servers are always continued, even when
/// the run is interrupted mid-fault. With `read` (the step takes resource readings), a restart
/// or a kill first reads what the servers have counted, which the fault sets back or takes
/// away, and reads again once a server takes connections again (the restarted one, the
/// promoted standby), so that what it counts from then on is read from then on. Those readings
/// are returned, for the step's.
pub(super) fn inject(
    fault: &Fault,
    clock: &Clock,
    t0: Instant,
    over: &AtomicBool,
    read: bool,
) -> Option<Result<Vec<super::resources::Sample>>> {
    let due = t0 + fault.at;
    let gone = || over.load(Ordering::SeqCst) || super::interrupted();
    while Instant::now() < due {
        if gone() {
            return None;
        }
        std::thread::sleep((due - Instant::now()).min(Duration::from_millis(5)));
    }
    let since = |t: Instant| t.duration_since(t0).as_nanos() as u64;
    let began = || clock.began.store(since(Instant::now()), Ordering::Release);
    let reading = || read.then(super::resources::sample);
    // The fault ends as the servers are back, before the reading taken then.
    let ended = || clock.ended.store(since(Instant::now()), Ordering::Release);
    let done = match fault.kind {
        Kind::Stall | Kind::Partition => {
            let held = match fault.kind {
                Kind::Stall => stall(fault.length, began),
                _ => partition(fault.length, began),
            };
            ended();
            held.map(|()| Vec::new())
        }
        Kind::Restart => {
            let last = reading();
            began();
            let restarted = crate::server::restart::restart_all(super::resources::retire);
            ended();
            restarted.map(|()| last.into_iter().chain(reading()).collect())
        }
        Kind::KillPrimary | Kind::KillNode => {
            let last = reading();
            began();
            let killed = crate::server::failover::kill(super::resources::retire);
            ended();
            killed.map(|()| last.into_iter().chain(reading()).collect())
        }
    };
    Some(done)
}

/// Stops every process of the private servers hakari runs (the leaders first, so that a stopped
/// PostgreSQL postmaster forks no new backend), calls `began`, waits `length` and continues them.
fn stall(length: Duration, began: impl FnOnce()) -> Result<()> {
    let leaders = crate::owned::servers();
    if leaders.is_empty() {
        bail!("no private server of hakari's runs: there is nothing to stall");
    }
    let signal = |pid: i32, sig: i32| {
        // SAFETY: a plain kill(2) of a server hakari started, or one of its children.
        unsafe { libc::kill(pid, sig) };
    };
    began();
    let mut stopped = leaders.clone();
    for &pid in &leaders {
        signal(pid, libc::SIGSTOP);
    }
    for &pid in &leaders {
        for child in crate::process::descendants(pid) {
            signal(child, libc::SIGSTOP);
            stopped.push(child);
        }
    }
    hold(length);
    for &pid in stopped.iter().rev() {
        signal(pid, libc::SIGCONT);
    }
    Ok(())
}

/// Cuts the network to every private server, calls `began` once the cut is in force, waits
/// `length` and lifts it (lifted too when the run is interrupted, or this thread unwinds).
fn partition(length: Duration, began: impl FnOnce()) -> Result<()> {
    let cut = crate::server::partition::cut()?;
    began();
    hold(length);
    cut.lift()
}

/// Waits `length`, or until the run is interrupted.
fn hold(length: Duration) {
    let until = Instant::now() + length;
    while Instant::now() < until && !super::interrupted() {
        std::thread::sleep((until - Instant::now()).min(Duration::from_millis(5)));
    }
}

/// What a fault cost the step.
#[derive(Clone, Debug)]
pub struct FaultOutcome {
    pub fault: Fault,
    /// When it began and ended, in seconds on the step's clock.
    pub began_s: f64,
    pub ended_s: f64,
    /// The longest span around the fault with no unit completed.
    pub outage_s: f64,
    /// From the fault's start to the end of the first interval after it whose throughput is
    /// back within 10% of the level before it (None: it never came back).
    pub recovery_s: Option<f64>,
    /// The 99th percentile latency in the minute before the fault and the minute after it, in µs.
    pub p99_before_us: Option<f64>,
    pub p99_after_us: Option<f64>,
    /// Units that failed because their connection was lost, and attempts to reconnect refused.
    pub failed: u64,
    pub refused: u64,
    /// From the fault's start to the first failed unit.
    pub to_first_failure_s: Option<f64>,
}

impl FaultOutcome {
    /// The outcome from every worker's `Seen`, the step's end and its interval series.
    pub(super) fn merge(
        fault: Fault,
        clock: &Clock,
        seen: Vec<Seen>,
        end_ns: u64,
        intervals: &[IntervalFigure],
    ) -> FaultOutcome {
        let (began, ended) = (
            clock.began.load(Ordering::Acquire),
            clock.ended.load(Ordering::Acquire),
        );
        let mut points: Vec<u64> = Vec::new();
        points.extend(seen.iter().filter_map(|s| s.last_before).max());
        points.extend(seen.iter().flat_map(|s| s.during.iter().copied()));
        // Nothing completed after the fault: the outage lasts to the step's end.
        let first_after = seen.iter().filter_map(|s| s.first_after).min();
        points.push(first_after.unwrap_or(end_ns));
        points.sort_unstable();
        let longest = points.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        let merged = |of: fn(&Seen) -> &Histogram<u64>| {
            let mut all = new_histogram();
            for s in &seen {
                all.add(of(s)).expect("histograms of one precision merge");
            }
            (!all.is_empty()).then(|| all.value_at_quantile(0.99) as f64 / 1e3)
        };
        let s = |ns: u64| ns as f64 / 1e9;
        FaultOutcome {
            fault,
            began_s: s(began),
            ended_s: s(ended),
            outage_s: s(longest),
            recovery_s: first_after.and_then(|_| recovery(intervals, s(began), s(ended))),
            p99_before_us: merged(|s| &s.before),
            p99_after_us: merged(|s| &s.after),
            failed: seen.iter().map(|s| s.failed).sum(),
            refused: seen.iter().map(|s| s.refused).sum(),
            to_first_failure_s: (seen.iter().filter_map(|s| s.first_failure).min())
                .map(|at| s(at.saturating_sub(began))),
        }
    }

    /// Its figures' readings (`results/figures`: `fault.outage_s` and the rest).
    pub fn readings(&self) -> BTreeMap<String, f64> {
        let mut r = BTreeMap::from([
            // When it began and ended on the step's clock, for the report's charts to mark.
            ("fault.began_s".to_string(), self.began_s),
            ("fault.ended_s".to_string(), self.ended_s),
            ("fault.outage_s".to_string(), self.outage_s),
            ("fault.failed".to_string(), self.failed as f64),
            ("fault.refused".to_string(), self.refused as f64),
        ]);
        let optional = [
            ("fault.first_failure_s", self.to_first_failure_s),
            ("fault.recovery_s", self.recovery_s),
            ("fault.p99_before_us", self.p99_before_us),
            ("fault.p99_after_us", self.p99_after_us),
        ];
        for (name, value) in optional {
            if let Some(v) = value {
                r.insert(name.to_string(), v);
            }
        }
        r
    }
}

/// From `began` to the end of the first interval after `ended` whose throughput is within 10%
/// of the median of the intervals wholly before `began` (counted ones when there are any);
/// short last intervals (under half the interval) are too noisy to say.
fn recovery(intervals: &[IntervalFigure], began: f64, ended: f64) -> Option<f64> {
    let full = intervals.iter().map(|i| i.seconds).fold(0.0, f64::max);
    let before: Vec<&IntervalFigure> = intervals
        .iter()
        .filter(|i| i.t_s + i.seconds <= began + 1e-9)
        .collect();
    let counted: Vec<&&IntervalFigure> = before.iter().filter(|i| !i.warmup).collect();
    // The median interval's throughput: one fast or slow interval before the fault (a
    // neighbour's burst on a shared machine) does not move the level it must come back to.
    let level = |of: Vec<&IntervalFigure>| {
        use statrs::statistics::{Data, OrderStatistics};
        let rates: Vec<f64> = (of.iter())
            .filter(|i| i.seconds >= full / 2.0)
            .map(|i| i.ops_per_sec)
            .collect();
        (!rates.is_empty()).then(|| Data::new(rates).median())
    };
    let level = if counted.is_empty() {
        level(before)?
    } else {
        level(counted.into_iter().copied().collect())?
    };
    // An interval counts as after the fault with at most a tenth of it before the end: the
    // fault's thread records its end a moment after the servers were continued, which may fall
    // just inside the interval that starts then.
    intervals
        .iter()
        .filter(|i| i.t_s + i.seconds / 10.0 >= ended && i.seconds >= full / 2.0)
        .find(|i| i.ops_per_sec >= 0.9 * level)
        .map(|i| i.t_s + i.seconds - began)
}

#[cfg(test)]
mod tests;
