//! The throughput test: S query streams, each on its own connection and thread, beside one
//! refresh stream of S RF1/RF2 pairs, all released together.

use super::{query_stream, record, refresh, Config};
use crate::engine::sql::SqlDatabase;
use crate::workload::RunContext;
use anyhow::{bail, Context, Result};
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
    let (stream_results, refresh_result, ts_started) =
        run_streams(config, streams, db, sets, ctx.seed);
    let mut ts_end = ts_started;
    let mut errors = Vec::new();
    for (i, (r, ended)) in stream_results.into_iter().enumerate() {
        ts_end = ts_end.max(ended);
        match r {
            Ok(times) => {
                for (q, secs, rows) in times {
                    record(
                        ctx,
                        config,
                        "throughput",
                        Some(i + 1),
                        1,
                        &format!("Q{q}"),
                        secs,
                        rows,
                    )?;
                }
            }
            Err(e) => errors.push(format!("stream {}: {}", i + 1, crate::errors::sentence(&e))),
        }
    }
    match refresh_result {
        Ok((times, ended)) => {
            ts_end = ts_end.max(ended);
            for (k, (rf1, n1, rf2, n2)) in times.into_iter().enumerate() {
                let pair = Some(k + 1);
                record(ctx, config, "refresh stream", pair, 1, "RF1", rf1, n1)?;
                record(ctx, config, "refresh stream", pair, 1, "RF2", rf2, n2)?;
            }
        }
        Err(e) => errors.push(format!("refresh stream: {}", crate::errors::sentence(&e))),
    }
    if !errors.is_empty() {
        bail!("throughput test: {}", errors.join("; "));
    }
    let ts = ts_end.duration_since(ts_started).as_secs_f64();
    record(
        ctx,
        config,
        "throughput",
        None,
        streams,
        "Ts",
        ts,
        (22 * streams) as u64,
    )?;
    eprintln!("  throughput test: {streams} streams in {ts:.2} s");

    Ok(ts)
}

type StreamTimes = Vec<(u8, f64, u64)>;
type RefreshTimes = Vec<(f64, u64, f64, u64)>;

/// The query streams and the refresh stream, each on its own thread and connection, released
/// together; returns each stream's times and end, the refresh stream's, and the start.
#[allow(clippy::type_complexity)]
fn run_streams(
    config: Config,
    streams: usize,
    db: &dyn SqlDatabase,
    sets: &[refresh::RefreshSet],
    seed0: u64,
) -> (
    Vec<(Result<StreamTimes>, Instant)>,
    Result<(RefreshTimes, Instant)>,
    Instant,
) {
    let dialect = config.engine.dialect();
    let sf = config.sf;
    let barrier = std::sync::Barrier::new(streams + 1);
    let t0 = std::sync::Mutex::new(None::<Instant>);
    let (stream_results, refresh_result) = {
        let (barrier, t0) = (&barrier, &t0);
        std::thread::scope(|scope| {
            let handles: Vec<_> = (1..=streams)
                .map(|stream| {
                    scope.spawn(move || {
                        // Connections are opened before the start, outside the timed interval.
                        let conn = db.connect();
                        barrier.wait();
                        let r = conn.and_then(|mut c| {
                            query_stream(c.as_mut(), dialect, sf, stream, seed0 + stream as u64)
                        });
                        (r, Instant::now())
                    })
                })
                .collect();
            let refresher = scope.spawn(move || {
                let conn = db.connect();
                barrier.wait();
                t0.lock().unwrap().get_or_insert_with(Instant::now);
                let mut c = conn?;
                let mut times = Vec::new();
                for set in sets {
                    let s = Instant::now();
                    let n1 = refresh::rf1(c.as_mut(), set)
                        .with_context(|| format!("throughput test RF1 of set {}", set.set))?;
                    let rf1 = s.elapsed().as_secs_f64();
                    let s = Instant::now();
                    let n2 = refresh::rf2(c.as_mut(), set)
                        .with_context(|| format!("throughput test RF2 of set {}", set.set))?;
                    times.push((rf1, n1, s.elapsed().as_secs_f64(), n2));
                }
                Ok::<_, anyhow::Error>((times, Instant::now()))
            });
            let streams: Vec<_> = handles
                .into_iter()
                .map(|h| h.join().expect("a query stream panicked"))
                .collect();
            let refresh = refresher.join().expect("the refresh stream panicked");
            (streams, refresh)
        })
    };
    let ts_started = t0
        .into_inner()
        .unwrap()
        .expect("the refresh stream started");
    (stream_results, refresh_result, ts_started)
}
