//! The qualification run (answers checked) and the power test: RF1, the 22 queries of stream 0,
//! RF2, on one connection.

use super::{check_interrupt, record_spent, Config, TestPart};
use super::{queries, query_stream, refresh, validate};
use crate::engine::sql::SqlConnection;
use crate::measure::runner::Span;
use crate::workload::RunContext;
use anyhow::{Context, Result};
use std::time::Instant;

/// The 22 queries with the qualification parameters, answers checked, before any refresh.
pub(super) fn validation(
    config: Config,
    conn: &mut dyn SqlConnection,
    ctx: &mut RunContext,
) -> Result<()> {
    let sf = config.sf;
    for q in 1..=22u8 {
        check_interrupt()?;
        let params = queries::validation_params(q);
        let sql = queries::render(q, &params, conn.dialect(), 0)?;
        let span = Span::start();
        let started = Instant::now();
        // Alone on the database: no conflict to retry.
        let rows =
            queries::run(conn, &sql, &mut 0).with_context(|| format!("Q{q} (validation)"))?;
        let secs = started.elapsed().as_secs_f64();
        let spent = span.finish();
        validate::check(q, sf, &rows)?;
        let step = format!("Q{q}");
        let part = TestPart::of("validation");
        record_spent(ctx, config, part, (&step, secs, rows.len() as u64), spent)?;
    }
    let note = format!(
        "{}: the 22 answers with the qualification parameters match {}",
        config,
        validate::answer_set_name(sf).unwrap_or("")
    );
    eprintln!("  {note}");
    ctx.recorder.note(note);
    Ok(())
}

/// The power test; returns the 22 query times and the two refresh times.
pub(super) fn power_test(
    config: Config,
    conn: &mut dyn SqlConnection,
    set: &refresh::RefreshSet,
    ctx: &mut RunContext,
) -> Result<(Vec<f64>, [f64; 2])> {
    let dialect = conn.dialect();
    let sf = config.sf;
    let seed0 = ctx.seed;
    let mut power_queries = vec![0.0; 22];
    let mut power_refresh = [0.0; 2];
    let part = TestPart::of("power").stream(0);
    let span = Span::start();
    let started = Instant::now();
    let n = refresh::rf1(&mut *conn, set).context("power test RF1")?;
    power_refresh[0] = started.elapsed().as_secs_f64();
    record_spent(
        ctx,
        config,
        part,
        ("RF1", power_refresh[0], n),
        span.finish(),
    )?;
    let times = query_stream(&mut *conn, dialect, (sf, 0, seed0), true, &mut 0)?;
    for t in times {
        power_queries[(t.q - 1) as usize] = t.seconds;
        let q = format!("Q{}", t.q);
        record_spent(ctx, config, part, (&q, t.seconds, t.rows), t.spent)?;
    }
    let span = Span::start();
    let started = Instant::now();
    let n = refresh::rf2(&mut *conn, set).context("power test RF2")?;
    power_refresh[1] = started.elapsed().as_secs_f64();
    record_spent(
        ctx,
        config,
        part,
        ("RF2", power_refresh[1], n),
        span.finish(),
    )?;
    let power_secs = power_refresh.iter().sum::<f64>() + power_queries.iter().sum::<f64>();
    eprintln!("  power test: {power_secs:.2} s");

    Ok((power_queries, power_refresh))
}
