//! The throughput test: S query streams, each on its own connection and thread, beside one
//! refresh stream of S RF1/RF2 pairs, all released together.

use super::{query_stream, record, refresh, Config, QueryTime, TestPart};
use crate::engine::sql::SqlDatabase;
use crate::measure::progress::Progress;
use crate::measure::runner::{run_step, Span};
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
    // The streams run together: only the whole test's readings are its own.
    let span = Span::start();
    let Streams {
        finished,
        ts,
        released: t0,
        retries,
    } = run_streams(config, streams, db, sets, ctx)?;
    let spent = span.finish();
    if retries > 0 {
        ctx.recorder.note(format!("{config}: in the throughput test, {retries} time(s) a query's statement or a refresh function lost a lock conflict between streams and was run again (its time includes the tries)"));
    }
    // Seconds from the release of the streams: the report draws them as a timeline.
    let since = |t: Instant| t.saturating_duration_since(t0).as_secs_f64();
    for (stream, times) in finished {
        match times {
            Times::Queries(times) => {
                for t in times {
                    let part = TestPart::of("throughput")
                        .stream(stream)
                        .at(since(t.started));
                    let q = format!("Q{}", t.q);
                    record(ctx, config, part, &q, t.seconds, t.rows)?;
                }
            }
            Times::Refresh(times) => {
                for (k, (rf1, rf2)) in times.into_iter().enumerate() {
                    for (step, t) in [("RF1", rf1), ("RF2", rf2)] {
                        let part = TestPart::of("refresh stream").stream(k + 1);
                        let part = part.at(since(t.started));
                        record(ctx, config, part, step, t.seconds, t.rows)?;
                    }
                }
            }
        }
    }
    let queries = (22 * streams) as u64;
    let part = TestPart::of("throughput").threads(streams);
    super::record_spent(ctx, config, part, ("Ts", ts, queries), spent)?;
    eprintln!("  throughput test: {streams} streams in {ts:.2} s");
    Ok(ts)
}

/// What the streams did, in stream order; Ts; the moment they were released; how often a
/// statement or refresh function was run again after losing a lock conflict.
struct Streams {
    finished: Vec<(usize, Times)>,
    ts: f64,
    released: Instant,
    retries: u64,
}

/// What one stream did: a query stream's queries, or the refresh stream's (RF1, RF2) pairs.
enum Times {
    Queries(Vec<QueryTime>),
    Refresh(Vec<(QueryTime, QueryTime)>),
}

/// The refresh stream (worker 0) and the query streams (workers 1..=S), each on its own
/// connection, opened untimed and released together by the measurement core; returns what each
/// stream did, in stream order, Ts (from the release to the end of the last stream) and the
/// moment of the release.
fn run_streams(
    config: Config,
    streams: usize,
    db: &dyn SqlDatabase,
    sets: &[refresh::RefreshSet],
    ctx: &RunContext,
) -> Result<Streams> {
    let sf = config.sf;
    let finished: Mutex<Vec<(usize, Times)>> = Mutex::new(Vec::new());
    let released: Mutex<Option<Instant>> = Mutex::new(None);
    let retried = Mutex::new(0u64);
    let progress = Progress::hidden();
    let seed0 = ctx.seed;
    let outcome = run_step(
        streams + 1,
        &ctx.timing,
        &progress,
        |_| db.connect(),
        |conn, worker| {
            let stream = worker.index;
            *released.lock().unwrap() = Some(worker.step_start());
            let times = if stream == 0 {
                let mut retries = 0;
                let times = refresh_stream(conn.as_mut(), sets, &mut retries)?;
                *retried.lock().unwrap() += retries;
                Times::Refresh(times)
            } else {
                let seed = seed0 + stream as u64;
                let dialect = conn.dialect();
                let mut retries = 0;
                let times = query_stream(
                    conn.as_mut(),
                    dialect,
                    (sf, stream, seed),
                    false,
                    &mut retries,
                )
                .with_context(|| format!("throughput test: stream {stream}"))?;
                *retried.lock().unwrap() += retries;
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
    let t0 = released.into_inner().unwrap().unwrap_or_else(Instant::now);
    Ok(Streams {
        finished,
        ts: outcome.seconds,
        released: t0,
        retries: retried.into_inner().unwrap(),
    })
}

/// The refresh stream: an RF1 and an RF2 for each set, timed one by one. A refresh function that
/// loses a lock conflict to a query stream is rolled back and run again (an engine with page
/// locks, Berkeley DB's SQL, makes one of them give way); its time includes the tries, and
/// `retries` counts them.
fn refresh_stream(
    c: &mut dyn crate::engine::SqlConnection,
    sets: &[refresh::RefreshSet],
    retries: &mut u64,
) -> Result<Vec<(QueryTime, QueryTime)>> {
    let mut timed = |q: u8, f: &mut dyn FnMut() -> Result<u64>| -> Result<QueryTime> {
        let started = Instant::now();
        let rows = crate::engine::kv::retry_conflicts(retries, f)?;
        let seconds = started.elapsed().as_secs_f64();
        // Beside the query streams: no readings of its own.
        Ok(QueryTime {
            q,
            started,
            seconds,
            rows,
            spent: None,
        })
    };
    let mut times = Vec::new();
    for set in sets {
        let rf1 = timed(1, &mut || {
            refresh::rf1(c, set).with_context(|| format!("throughput test RF1 of set {}", set.set))
        })?;
        let rf2 = timed(2, &mut || {
            refresh::rf2(c, set).with_context(|| format!("throughput test RF2 of set {}", set.set))
        })?;
        times.push((rf1, rf2));
    }
    Ok(times)
}
