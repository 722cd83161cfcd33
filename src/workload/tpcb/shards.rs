//! tpcb split over several client machines (`--shard i/N`): shard 1 loads the tables and lists
//! the run's shards in a table of its own; the others wait for that list before their first
//! step; each marks itself done after its last; shard 1 drops the tables once every shard is
//! done, so that no client loses its tables while it still runs.

use crate::engine::sql::{SqlConnection, SqlValue};
use crate::shard::Shard;
use anyhow::{bail, Context, Result};
use std::time::{Duration, Instant};

const SQL: &str = include_str!("sql/shards.sql");

/// How long a shard waits for the others (shard 1's load, or the others' last step).
const PATIENCE: Duration = Duration::from_secs(600);

fn section(name: &str) -> Vec<String> {
    crate::workload::sql::section(SQL, name)
}

/// Shard 1, once the tables are loaded: lists every shard of `run` as running.
pub fn list(c: &mut dyn SqlConnection, shard: Shard, run: &str) -> Result<()> {
    for s in section("create") {
        c.execute(&s)?;
    }
    let insert = c.prepare(&section("list")[0])?;
    for i in 1..=shard.count {
        let row = [
            SqlValue::Text(run.into()),
            SqlValue::Int(i as i64),
            SqlValue::Text("running".into()),
        ];
        c.exec_prepared(insert, &row)?;
    }
    Ok(())
}

/// How many shards of `run` are in `state`; None while the list does not exist yet.
fn count(c: &mut dyn SqlConnection, run: &str, state: &str) -> Option<i64> {
    let query = c.prepare(&section("count")[0]).ok()?;
    let mut n = None;
    let params = [SqlValue::Text(run.into()), SqlValue::Text(state.into())];
    c.query_prepared(query, &params, &mut |row| {
        n = match row.first() {
            Some(SqlValue::Int(i)) => Some(*i),
            Some(SqlValue::Text(t)) => t.parse().ok(),
            _ => None,
        }
    })
    .ok()?;
    n
}

/// Waits until `how_many` shards of `run` are in `state`.
fn wait_for(
    c: &mut dyn SqlConnection,
    run: &str,
    state: &str,
    how_many: usize,
    what: &str,
) -> Result<()> {
    let start = Instant::now();
    while start.elapsed() < PATIENCE {
        if count(c, run, state).is_some_and(|n| n >= how_many as i64) {
            return Ok(());
        }
        if crate::measure::interrupted() {
            bail!(crate::measure::Interrupted);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    bail!("{what} within {} s", PATIENCE.as_secs())
}

/// Shards 2..N, before their first step: waits until shard 1 has loaded and listed the run.
pub fn wait_for_load(c: &mut dyn SqlConnection, shard: Shard, run: &str) -> Result<()> {
    wait_for(c, run, "running", shard.count, "shard 1 did not load the tables for this --start-at (start it with the same --start-at and --url)")
}

/// After its last step: marks this shard done; shard 1 then waits for every other one and
/// drops the list (the caller drops the tables).
pub fn finish(c: &mut dyn SqlConnection, shard: Shard, run: &str) -> Result<()> {
    let mark = c.prepare(&section("mark")[0])?;
    let params = [
        SqlValue::Text("done".into()),
        SqlValue::Text(run.into()),
        SqlValue::Int(shard.index as i64),
    ];
    c.exec_prepared(mark, &params)
        .context("marking this shard done")?;
    if shard.loads() {
        wait_for(
            c,
            run,
            "done",
            shard.count,
            "the other shards did not finish",
        )?;
        for s in section("drop") {
            c.execute(&s)?;
        }
    }
    Ok(())
}
