//! `hakari merge`: the results of several clients that made one run together (`--shard i/N`)
//! as one result. Each client's interval log (`--hlog`) is aligned on absolute time; for every
//! step, only the window all clients were counting in is kept (an interval belongs to it when
//! its middle does); histograms are added, never percentiles averaged; operations are summed.

use super::hlog::run_tag;
use super::{Measurement, MeasurementKey, MergedClient, OpenLoopFigures, RunFigure, RunResult};
use crate::measure::intervals::IntervalFigure;
use crate::measure::latency::{new_histogram, LatencySummary};
use crate::measure::stats::Summary;
use anyhow::{anyhow, bail, Context, Result};
use base64::Engine as _;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One interval of a client's log: its absolute start and length (seconds since the epoch),
/// its histogram (nanoseconds).
struct Logged {
    start: f64,
    length: f64,
    histogram: Histogram<u64>,
}

/// A client's result and its interval log, by tag.
struct Client {
    file: PathBuf,
    result: RunResult,
    log: BTreeMap<String, Vec<Logged>>,
}

/// Merges the clients' result files; each one's interval log is `<run-id>.hlog` beside it or
/// in one of `hlog_dirs`.
pub fn merge(files: &[PathBuf], hlog_dirs: &[PathBuf]) -> Result<RunResult> {
    if files.len() < 2 {
        bail!("merge needs the result files of at least two clients");
    }
    let clients = files
        .iter()
        .map(|f| load(f, hlog_dirs))
        .collect::<Result<Vec<_>>>()?;
    check_same_run(&clients)?;
    let first = &clients[0].result;
    let mut measurements = Vec::new();
    let mut unlogged = Vec::new();
    for m in &first.measurements {
        // A share of a step (ycsb's reads among its run phase) has no series of its own: its
        // operations are in the step's log, and the share cannot be cut to a window.
        let tag = run_tag(&key_of(m), m.open_loop.as_ref().map(|o| o.rate), 1);
        if clients.iter().all(|c| !c.log.contains_key(&tag)) {
            unlogged.push(format!("{} {}", m.engine, m.step));
            continue;
        }
        measurements.push(merge_measurement(m, &clients)?);
    }
    let mut merged = first.clone();
    merged.run_id = format!("{}-merged", first.run_id);
    merged.command_line = std::env::args()
        .map(|a| super::redact::redact(&a))
        .collect();
    merged.shard = None;
    merged.measurements = measurements;
    merged.metrics.clear();
    merged.requirements.clear();
    merged.notes = vec![format!(
        "merged from {} clients: each step's figures cover the window all of them were counting in; latency histograms added",
        clients.len()
    )];
    if !unlogged.is_empty() {
        merged.notes.push(format!(
            "left out: {} (shares of a step, or a step one client timed whole such as a load: no interval series of their own to cut to the shared window; each client's own result has them)",
            unlogged.join(", ")
        ));
    }
    merged.errors = clients
        .iter()
        .flat_map(|c| c.result.errors.clone())
        .collect();
    merged.merged_from = clients.iter().map(describe).collect();
    Ok(merged)
}

fn load(file: &Path, hlog_dirs: &[PathBuf]) -> Result<Client> {
    let result = super::store::read(file)?;
    if result.status != "complete" {
        bail!(
            "{}: the run is marked {}, not complete",
            file.display(),
            result.status
        );
    }
    if result.shard.is_none() {
        bail!(
            "{}: not a client's part of a run (run it with --shard i/N)",
            file.display()
        );
    }
    let name = format!("{}.hlog", result.run_id);
    let beside = file.parent().map(|d| d.join(&name));
    let path = beside
        .into_iter()
        .chain(hlog_dirs.iter().map(|d| d.join(&name)))
        .find(|p| p.exists())
        .ok_or_else(|| {
            anyhow!(
                "{}: its interval log {name} is neither beside it nor in a --hlog folder given (run the clients with --hlog DIR)",
                file.display()
            )
        })?;
    let text = std::fs::read(&path).with_context(|| path.display().to_string())?;
    let log = read_log(&text).with_context(|| path.display().to_string())?;
    Ok(Client {
        file: file.to_path_buf(),
        result,
        log,
    })
}

/// The intervals of an HdrHistogram interval log, by tag, on absolute time.
fn read_log(text: &[u8]) -> Result<BTreeMap<String, Vec<Logged>>> {
    let mut base = 0.0;
    let mut out: BTreeMap<String, Vec<Logged>> = BTreeMap::new();
    let mut deserializer = Deserializer::new();
    for entry in IntervalLogIterator::new(text) {
        match entry.map_err(|e| anyhow!("the interval log does not parse: {e:?}"))? {
            LogEntry::BaseTime(t) => base = t.as_secs_f64(),
            LogEntry::StartTime(t) if base == 0.0 => base = t.as_secs_f64(),
            LogEntry::Interval(h) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(h.encoded_histogram())
                    .map_err(|e| anyhow!("an interval histogram is not base64: {e}"))?;
                let histogram: Histogram<u64> = deserializer
                    .deserialize(&mut bytes.as_slice())
                    .map_err(|e| anyhow!("an interval histogram does not decode: {e:?}"))?;
                let tag = h.tag().map(|t| t.as_str().to_string()).unwrap_or_default();
                out.entry(tag).or_default().push(Logged {
                    start: base + h.start_timestamp().as_secs_f64(),
                    length: h.duration().as_secs_f64(),
                    histogram,
                });
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The clients made one run: the same workload and parameters, the same timed steps, shards
/// 1..N each once.
fn check_same_run(clients: &[Client]) -> Result<()> {
    let first = &clients[0];
    let count = first.result.shard.map_or(0, |s| s.count);
    // Shards are named 1/N..N/N, one file each: N cannot be more than the files given.
    if count == 0 || count > clients.len() {
        bail!(
            "{} says it is one of {count} shards, but {} result file(s) were given",
            first.file.display(),
            clients.len()
        );
    }
    let mut seen = vec![false; count];
    for c in clients {
        let shard = c.result.shard.context("checked on load")?;
        let name = c.file.display();
        if shard.index == 0 || shard.index > shard.count {
            bail!(
                "{name}: shard {} of {} is not a shard of the run",
                shard.index,
                shard.count
            );
        }
        if shard.count != count {
            bail!(
                "{name} is shard {shard}, {} is shard {}: not one run",
                first.file.display(),
                first.result.shard.context("checked")?
            );
        }
        if std::mem::replace(&mut seen[shard.index - 1], true) {
            bail!("{name}: shard {shard} is given twice");
        }
        let differ = |what: &str, a: String, b: String| -> Result<()> {
            if a != b {
                bail!(
                    "{name} differs from {} in {what}: {b} there, {a} here",
                    first.file.display()
                );
            }
            Ok(())
        };
        differ(
            "workload",
            c.result.workload.clone(),
            first.result.workload.clone(),
        )?;
        for key in first
            .result
            .parameters
            .keys()
            .chain(c.result.parameters.keys())
        {
            let get = |r: &RunResult| {
                r.parameters
                    .get(key)
                    .map_or("absent".into(), |v| v.to_string())
            };
            differ(
                &format!("parameter {key}"),
                get(&c.result),
                get(&first.result),
            )?;
        }
        let timing = |r: &RunResult| serde_json::to_string(&r.timing).unwrap_or_default();
        differ(
            "timing (--interval, --warmup, --rate, --start-at)",
            timing(&c.result),
            timing(&first.result),
        )?;
        // The steps with a latency per operation: a step timed whole that one shard made alone
        // (shard 1's tpcc load) is not part of the run they made together.
        let steps = |r: &RunResult| {
            (r.measurements.iter())
                .filter(|m| m.latency.is_some())
                .map(|m| run_tag(&key_of(m), None, 0))
                .collect::<Vec<_>>()
                .join(" ")
        };
        differ("its timed steps", steps(&c.result), steps(&first.result))?;
    }
    if let Some(missing) = seen.iter().position(|s| !s) {
        bail!("shard {}/{count} is missing", missing + 1);
    }
    Ok(())
}

/// What identifies a measurement in the interval log (its rate apart).
fn key_of(m: &Measurement) -> MeasurementKey {
    let mut config = m.config.clone();
    config.remove("rate");
    MeasurementKey {
        workload: m.workload.clone(),
        engine: m.engine.clone(),
        durability: m.durability.clone(),
        threads: m.threads,
        step: m.step.clone(),
        config,
        produced: m.produced.clone(),
    }
}

/// One measurement over every client: each run merged over the window the clients share.
fn merge_measurement(m: &Measurement, clients: &[Client]) -> Result<Measurement> {
    let key = key_of(m);
    let rate = m.open_loop.as_ref().map(|o| o.rate);
    let mut runs = Vec::new();
    let mut all = new_histogram();
    for run in 1..=m.runs.len() {
        let tag = run_tag(&key, rate, run);
        let logs: Vec<&Vec<Logged>> = clients
            .iter()
            .map(|c| {
                c.log.get(&tag).ok_or_else(|| {
                    anyhow!("{}: no intervals tagged {tag} in its log", c.file.display())
                })
            })
            .collect::<Result<_>>()?;
        let (figure, histogram) = merge_run(&logs, &tag)?;
        all.add(&histogram).map_err(|e| anyhow!("{e:?}"))?;
        runs.push(figure);
    }
    let mine = |c: &Client| {
        (c.result.measurements.iter())
            .find(|x| key_of(x) == key)
            .cloned()
    };
    let theirs: Vec<Measurement> = clients.iter().filter_map(mine).collect();
    let rate_summary = Summary::of(&runs.iter().map(|r| r.ops_per_sec).collect::<Vec<_>>());
    let secs = Summary::of(&runs.iter().map(|r| r.seconds).collect::<Vec<_>>());
    let open_loop = m.open_loop.as_ref().map(|_| OpenLoopFigures {
        // Each client offered its share; together they offered the sum.
        rate: theirs
            .iter()
            .filter_map(|t| t.open_loop.as_ref())
            .map(|o| o.rate)
            .sum(),
        behind: theirs
            .iter()
            .filter_map(|t| t.open_loop.as_ref())
            .any(|o| o.behind),
        service: None,
        lag: None,
        skipped: theirs
            .iter()
            .filter_map(|t| t.open_loop.as_ref())
            .map(|o| o.skipped)
            .sum(),
    });
    let mut config = m.config.clone();
    if let Some(open) = &open_loop {
        config.insert("rate".into(), open.rate.into());
    }
    config.insert("clients_merged".into(), clients.len().into());
    Ok(Measurement {
        threads: theirs.iter().map(|t| t.threads).sum(),
        config,
        runs,
        ops_per_sec_mean: rate_summary.mean,
        ops_per_sec_stddev: rate_summary.stddev,
        ops_per_sec_min: rate_summary.min,
        ops_per_sec_max: rate_summary.max,
        seconds_mean: secs.mean,
        seconds_stddev: secs.stddev,
        latency: LatencySummary::of(&all),
        retries: theirs.iter().map(|t| t.retries).sum(),
        late: theirs.iter().map(|t| t.late).sum(),
        open_loop,
        // Each client read its own CPU and the server's whole counters: the clients' files
        // keep their figures; added up they would count the server once per client.
        figures: Vec::new(),
        verdicts: Vec::new(),
        ..m.clone()
    })
}

/// One run over every client: the window they all counted in, their intervals in it added.
fn merge_run(logs: &[&Vec<Logged>], tag: &str) -> Result<(RunFigure, Histogram<u64>)> {
    let start = logs
        .iter()
        .filter_map(|l| l.first().map(|i| i.start))
        .fold(f64::MIN, f64::max);
    let end = logs
        .iter()
        .filter_map(|l| l.last().map(|i| i.start + i.length))
        .fold(f64::MAX, f64::min);
    if end <= start || end.is_nan() || start.is_nan() {
        bail!("{tag}: the clients' steps do not overlap in time (were they started with one --start-at?)");
    }
    let inside = |i: &&Logged| (start..=end).contains(&(i.start + i.length / 2.0));
    let mut histogram = new_histogram();
    let mut ops_per_sec = 0.0;
    let mut ops = 0;
    // The series' interval: the longest one (the first and last of a step may be shorter).
    let step = (logs.iter().flat_map(|l| l.iter()))
        .map(|i| i.length)
        .fold(1e-3, f64::max);
    let mut buckets: BTreeMap<usize, (u64, Histogram<u64>)> = BTreeMap::new();
    for log in logs {
        let (mut client_ops, mut client_secs) = (0, 0.0);
        for i in log.iter().filter(inside) {
            histogram.add(&i.histogram).map_err(|e| anyhow!("{e:?}"))?;
            client_ops += i.histogram.len();
            client_secs += i.length;
            let b = (((i.start + i.length / 2.0) - start) / step)
                .floor()
                .max(0.0) as usize;
            let bucket = buckets.entry(b).or_insert_with(|| (0, new_histogram()));
            bucket.0 += i.histogram.len();
            bucket.1.add(&i.histogram).map_err(|e| anyhow!("{e:?}"))?;
        }
        ops += client_ops;
        if client_secs > 0.0 {
            ops_per_sec += client_ops as f64 / client_secs;
        }
    }
    let us = |h: &Histogram<u64>, q: f64| h.value_at_quantile(q) as f64 / 1e3;
    let intervals = buckets
        .into_iter()
        .map(|(b, (n, h))| IntervalFigure {
            t_s: b as f64 * step,
            seconds: step,
            ops: n,
            ops_per_sec: n as f64 / step,
            p50_us: us(&h, 0.5),
            p99_us: us(&h, 0.99),
            max_us: h.max() as f64 / 1e3,
            warmup: false,
            lag_max_us: None,
            mean_us: (!h.is_empty()).then(|| h.mean() / 1e3),
            stddev_us: (!h.is_empty()).then(|| h.stdev() / 1e3),
            ..Default::default()
        })
        .collect();
    let figure = RunFigure {
        ops,
        seconds: end - start,
        ops_per_sec,
        started_unix_s: Some(start),
        intervals,
        usage: Default::default(),
        resources: Vec::new(),
    };
    Ok((figure, histogram))
}

/// A client as the merged result names it.
fn describe(c: &Client) -> MergedClient {
    let planned = (c.result.timing.as_ref())
        .and_then(|t| t.start_at.as_deref())
        .and_then(|t| super::time::parse_rfc3339(t).ok())
        .map(super::time::unix_seconds);
    let first_start = (c.result.measurements.first())
        .and_then(|m| m.runs.first())
        .and_then(|r| r.started_unix_s);
    MergedClient {
        run_id: c.result.run_id.clone(),
        shard: c.result.shard,
        environment: c.result.environment.clone(),
        start_offset_ms: planned.zip(first_start).map(|(p, s)| (s - p) * 1e3),
        metrics: c.result.metrics.clone(),
    }
}
