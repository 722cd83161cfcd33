//! The throughput test: S query streams, each on its own connection and thread, beside one
//! refresh stream of S RF1/RF2 pairs, all released together.

use super::{query_stream, record, refresh, Config};
use crate::engine::sql::SqlDatabase;
use crate::measure::progress::Progress;
use crate::measure::runner::run_step;
use crate::workload::RunContext;
use anyhow::{Context, Result};
use std::sync::Mutex;
use std::time::Instant;

/// Runs the test; returns its interval, Ts, in seconds.
pub(super) fn throughput_test(
    config: Config,
    streams: usize,
    db: &dyn SqlDatabase,
    sets: &[refresh::RefreshSet],
    ctx: &mut RunContext,
) -> Result<f64> {
    super::check_interrupt()?;
    let (finished, ts) = run_streams(config, streams, db, sets, ctx.seed)?;
    for (stream, times) in finished {
        match times {
            Times::Queries(times) => {
                for (q, secs, rows) in times {
                    let q = format!("Q{q}");
                    record(ctx, config, "throughput", Some(stream), 1, &q, secs, rows)?;
                }
            }
            Times::Refresh(times) => {
                for (k, (rf1, n1, rf2, n2)) in times.into_iter().enumerate() {
                    let pair = Some(k + 1);
                    record(ctx, config, "refresh stream", pair, 1, "RF1", rf1, n1)?;
                    record(ctx, config, "refresh stream", pair, 1, "RF2", rf2, n2)?;
                }
            }
        }
    }
    let queries = (22 * streams) as u64;
    record(ctx, config, "throughput", None, streams, "Ts", ts, queries)?;
    eprintln!("  throughput test: {streams} streams in {ts:.2} s");
    Ok(ts)
}

/// What one stream did: a query stream's (query, seconds, rows), or the refresh stream's
/// (RF1 seconds, rows, RF2 seconds, rows) per pair.
enum Times {
    Queries(Vec<(u8, f64, u64)>),
    Refresh(Vec<(f64, u64, f64, u64)>),
}

/// The refresh stream (worker 0) and the query streams (workers 1..=S), each on its own
/// connection, opened untimed and released together by the measurement core; returns what each
/// stream did, in stream order, and Ts: from the release to the end of the last stream.
fn run_streams(
    config: Config,
    streams: usize,
    db: &dyn SqlDatabase,
    sets: &[refresh::RefreshSet],
    seed0: u64,
) -> Result<(Vec<(usize, Times)>, f64)> {
    let (dialect, sf) = (config.engine.dialect(), config.sf);
    let finished: Mutex<Vec<(usize, Times)>> = Mutex::new(Vec::new());
    let progress = Progress::hidden();
    let outcome = run_step(
        streams + 1,
        &progress,
        |_| db.connect(),
        |conn, worker| {
            let stream = worker.index;
            let times = if stream == 0 {
                Times::Refresh(refresh_stream(conn.as_mut(), sets)?)
            } else {
                let seed = seed0 + stream as u64;
                let times = query_stream(conn.as_mut(), dialect, sf, stream, seed)
                    .with_context(|| format!("throughput test: stream {stream}"))?;
                worker.count(times.len() as u64);
                Times::Queries(times)
            };
            finished.lock().unwrap().push((stream, times));
            Ok(())
        },
    )?;
    let mut finished = finished.into_inner().unwrap();
    finished.sort_by_key(|(stream, _)| *stream);
    // The query streams first, as the result file has always listed them.
    finished.rotate_left(1);
    Ok((finished, outcome.seconds))
}

/// The refresh stream: an RF1 and an RF2 for each set, timed one by one.
fn refresh_stream(
    c: &mut dyn crate::engine::SqlConnection,
    sets: &[refresh::RefreshSet],
) -> Result<Vec<(f64, u64, f64, u64)>> {
    let mut times = Vec::new();
    for set in sets {
        let s = Instant::now();
        let n1 = refresh::rf1(c, set)
            .with_context(|| format!("throughput test RF1 of set {}", set.set))?;
        let rf1 = s.elapsed().as_secs_f64();
        let s = Instant::now();
        let n2 = refresh::rf2(c, set)
            .with_context(|| format!("throughput test RF2 of set {}", set.set))?;
        times.push((rf1, n1, s.elapsed().as_secs_f64(), n2));
    }
    Ok(times)
}
