//! pgbench's transaction log (`-l`), written as pgbench 15 writes it: a file per thread
//! (`PREFIX.PID`, then `PREFIX.PID.1`...), shared by the clients the thread carries, a line per
//! transaction (`client_id transaction_no time script_no time_epoch
//! time_us [schedule_lag] [retries]`, `time` being `skipped` or `failed` for those), or with
//! `--aggregate-interval` a line per interval (`interval_start num_transactions sum_latency
//! sum_latency_2 min_latency max_latency sum_lag sum_lag_2 min_lag max_lag skipped retried
//! retries serialization_failures deadlock_failures`), all in microseconds.

use crate::measure::multiplex;
use crate::measure::worker::Timed;
use anyhow::{Context, Result};
use rand::{Rng, SeedableRng};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// What `-l` and its options asked for.
#[derive(Clone, Debug, Serialize)]
pub struct LogSpec {
    /// Where the files go, and their name before `.PID` (`--log-prefix`, default pgbench_log).
    pub prefix: PathBuf,
    /// `--aggregate-interval` seconds.
    pub aggregate: Option<u64>,
    /// `--sampling-rate`: the share of transactions logged.
    pub sampling: Option<f64>,
    /// Under a rate (`-R`) each line has the schedule lag.
    pub lag: bool,
    /// With more than one try (`--max-tries`) each line has the retries.
    pub retries: bool,
    /// `--failures-detailed`: a failed transaction's kind in place of `failed`, and the
    /// aggregate's failures by kind (zero without it).
    pub detailed: bool,
}

/// How a transaction ended.
#[derive(Clone, Copy, Debug)]
pub enum Ended {
    Done {
        retries: u64,
    },
    Skipped,
    /// Every try lost a conflict (a serialization failure or, the last, a deadlock).
    Failed {
        retries: u64,
        deadlock: bool,
    },
}

/// A run's logs: one per thread (pgbench's -j, dealt as the runner deals the clients), each
/// client numbering its own transactions; none without -l.
pub struct Logs {
    files: Vec<Mutex<TxnLog>>,
    /// Each client's thread (its file) and the transactions it has logged.
    clients: Vec<(usize, AtomicU64)>,
}

impl Logs {
    pub fn open(spec: Option<&LogSpec>, clients: usize, threads: Option<usize>) -> Result<Logs> {
        let dealt = multiplex::deal(clients, threads);
        let files = match spec {
            Some(spec) => (0..dealt.len())
                .map(|t| TxnLog::open(spec, t).map(Mutex::new))
                .collect::<Result<_>>()?,
            None => Vec::new(),
        };
        let clients = (dealt.iter().enumerate())
            .flat_map(|(t, r)| r.clone().map(move |_| (t, AtomicU64::new(0))))
            .collect();
        Ok(Logs { files, clients })
    }

    /// Whether the run writes logs.
    pub fn wanted(&self) -> bool {
        !self.files.is_empty()
    }

    /// Logs a transaction of `client` (see [`TxnLog::add`]) in its thread's file.
    pub fn add(
        &self,
        client: usize,
        script: usize,
        timed: Option<Timed>,
        ended: Ended,
    ) -> Result<()> {
        let (thread, logged) = &self.clients[client];
        let Some(file) = self.files.get(*thread) else {
            return Ok(());
        };
        let count = logged.fetch_add(1, Ordering::Relaxed) + 1;
        let mut file = file.lock().unwrap();
        file.add((client, count), script, timed, ended)
    }

    /// Writes what is buffered in each file.
    pub fn finish(self) -> Result<()> {
        (self.files.into_iter()).try_for_each(|f| f.into_inner().unwrap().finish())
    }
}

/// One thread's log, written by each client it carries.
pub struct TxnLog {
    out: std::io::BufWriter<std::fs::File>,
    spec: LogSpec,
    sample: rand::rngs::SmallRng,
    interval: Option<Interval>,
}

/// An aggregate interval's sums, as pgbench keeps them (microseconds).
#[derive(Default)]
struct Interval {
    start: u64,
    count: u64,
    latency: Sums,
    lag: Sums,
    skipped: u64,
    retried: u64,
    retries: u64,
    /// Serialization failures and deadlock failures.
    failures: [u64; 2],
}

#[derive(Default)]
struct Sums {
    sum: f64,
    sum2: f64,
    min: f64,
    max: f64,
    count: u64,
}

impl Sums {
    fn add(&mut self, v: f64) {
        if self.count == 0 || v < self.min {
            self.min = v;
        }
        if self.count == 0 || v > self.max {
            self.max = v;
        }
        self.count += 1;
        self.sum += v;
        self.sum2 += v * v;
    }
}

fn now() -> (u64, u32) {
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    (t.as_secs(), t.subsec_micros())
}

impl TxnLog {
    /// The log of thread `thread` of this process.
    pub fn open(spec: &LogSpec, thread: usize) -> Result<TxnLog> {
        let mut name = spec.prefix.clone().into_os_string();
        name.push(format!(".{}", std::process::id()));
        if thread > 0 {
            name.push(format!(".{thread}"));
        }
        let path = PathBuf::from(name);
        let file = std::fs::File::create(&path)
            .with_context(|| format!("could not open the log file {}", path.display()))?;
        Ok(TxnLog {
            out: std::io::BufWriter::new(file),
            spec: spec.clone(),
            sample: rand::rngs::SmallRng::from_os_rng(),
            interval: spec.aggregate.map(|_| Interval {
                start: now().0,
                ..Interval::default()
            }),
        })
    }

    /// Logs transaction `count` (numbered from 1) of client `client`, of script `script`,
    /// that ended as `ended`, timed as `timed`.
    pub fn add(
        &mut self,
        (client, count): (usize, u64),
        script: usize,
        timed: Option<Timed>,
        ended: Ended,
    ) -> Result<()> {
        let (secs, micros) = now();
        let latency = timed.map_or(0.0, |t| t.latency.as_micros() as f64);
        let lag = timed.map_or(0.0, |t| t.lag.as_micros() as f64);
        if let Some(every) = self.spec.aggregate {
            let interval = self
                .interval
                .as_mut()
                .expect("an aggregate log has an interval");
            while interval.start + every <= secs {
                write_interval(&mut self.out, interval, self.spec.detailed)?;
                *interval = Interval {
                    start: interval.start + every,
                    ..Interval::default()
                };
            }
            match ended {
                Ended::Skipped => interval.skipped += 1,
                Ended::Done { retries } | Ended::Failed { retries, .. } => {
                    interval.retries += retries;
                    interval.retried += u64::from(retries > 0);
                    match ended {
                        Ended::Failed { deadlock, .. } => {
                            interval.failures[usize::from(deadlock)] += 1
                        }
                        _ => {
                            interval.count += 1;
                            interval.latency.add(latency);
                            if self.spec.lag {
                                interval.lag.add(lag);
                            }
                        }
                    }
                }
            }
            return Ok(());
        }
        if self
            .spec
            .sampling
            .is_some_and(|rate| self.sample.random::<f64>() >= rate)
        {
            return Ok(());
        }
        // Written straight into the buffer: a line a transaction, no text made on the way.
        let out = &mut self.out;
        let written = (|| {
            write!(out, "{client} {count} ")?;
            let retries = match ended {
                Ended::Done { retries } => {
                    write!(out, "{latency:.0}")?;
                    retries
                }
                Ended::Skipped => {
                    out.write_all(b"skipped")?;
                    0
                }
                Ended::Failed { retries, deadlock } => {
                    out.write_all(match (self.spec.detailed, deadlock) {
                        (false, _) => b"failed".as_slice(),
                        (true, false) => b"serialization",
                        (true, true) => b"deadlock",
                    })?;
                    retries
                }
            };
            write!(out, " {script} {secs} {micros}")?;
            if self.spec.lag {
                write!(out, " {lag:.0}")?;
            }
            if self.spec.retries {
                write!(out, " {retries}")?;
            }
            writeln!(out)
        })();
        written.context("writing the transaction log")
    }

    /// Writes what is buffered (an unfinished aggregate interval is left out, as pgbench
    /// leaves it).
    pub fn finish(mut self) -> Result<()> {
        self.out.flush().context("writing the transaction log")
    }
}

/// An aggregate interval's line; the failures by kind only with `--failures-detailed`, as
/// pgbench writes them.
fn write_interval(out: &mut impl Write, i: &Interval, detailed: bool) -> Result<()> {
    let (l, g) = (&i.latency, &i.lag);
    let [serialization, deadlock] = if detailed { i.failures } else { [0, 0] };
    writeln!(
        out,
        "{} {} {:.0} {:.0} {:.0} {:.0} {:.0} {:.0} {:.0} {:.0} {} {} {} {serialization} {deadlock}",
        i.start,
        i.count,
        l.sum,
        l.sum2,
        l.min,
        l.max,
        g.sum,
        g.sum2,
        g.min,
        g.max,
        i.skipped,
        i.retried,
        i.retries,
    )
    .context("writing the transaction log")
}
