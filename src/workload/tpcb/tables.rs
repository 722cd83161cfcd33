//! tpcb's tables: created empty, loaded with the rows of a range of branches (all of them, or
//! one shard's part with `--load all`), finished (keys where they come after the load, planner
//! statistics), dropped.

use super::presets::TpcbParams;
use super::{keys, prefix, schema, statements, DROP};
use crate::engine::sql::{Dialect, Row, SqlDatabase, SqlValue};
use anyhow::{Context, Result};
use std::ops::RangeInclusive;

/// Table set `set`, made afresh (dropping one hakari left behind).
pub fn create(db: &dyn SqlDatabase, set: usize) -> Result<()> {
    let mut c = db.connect()?;
    let dialect = c.dialect();
    for stmt in statements(DROP, set)
        .iter()
        .chain(schema(dialect, set).iter())
    {
        c.execute(stmt)
            .with_context(|| format!("setting up: {stmt}"))?;
    }
    Ok(())
}

/// The rows of `branches` in table set `set`: each branch, its tellers and its accounts, every
/// balance zero. On a server the accounts go in parallel streams, one connection each, over
/// parts of the branches (a server's loader is one core per connection); an embedded engine
/// takes one writer at a time, so it gets one stream.
pub fn load(
    params: &TpcbParams,
    db: &dyn SqlDatabase,
    set: usize,
    branches: RangeInclusive<u64>,
) -> Result<()> {
    let mut c = db.connect()?;
    let p = prefix(set);
    let (first, last) = (*branches.start(), *branches.end());
    let mut rows =
        (first..=last).map(|b| vec![SqlValue::Int(b as i64), SqlValue::Int(0), filler(88)]);
    c.bulk_load(
        &format!("{p}branches"),
        &["bid", "bbalance", "filler"],
        &mut rows,
    )?;
    let tellers = ["tid", "bid", "tbalance", "filler"];
    let mut rows = members(branches.clone(), params.tellers_per_branch);
    c.bulk_load(&format!("{p}tellers"), &tellers, &mut rows)?;
    let streams = match c.dialect() {
        Dialect::Postgres | Dialect::Mysql => load_streams().min(last - first + 1),
        _ => 1,
    };
    let table = format!("{p}accounts");
    let accounts = ["aid", "bid", "abalance", "filler"];
    let per_branch = params.accounts_per_branch;
    if streams == 1 {
        let mut rows = members(branches, per_branch);
        c.bulk_load(&table, &accounts, &mut rows)?;
        return Ok(());
    }
    drop(c);
    let parts = split(first..=last, streams);
    std::thread::scope(|scope| {
        let loaders: Vec<_> = (parts.into_iter())
            .map(|part| {
                let table = &table;
                scope.spawn(move || -> Result<u64> {
                    let mut c = db.connect()?;
                    c.bulk_load(table, &accounts, &mut members(part, per_branch))
                })
            })
            .collect();
        for loader in loaders {
            loader.join().expect("a loader thread panicked")?;
        }
        Ok(())
    })
}

/// How many streams load a server's accounts: one per core of this machine, where the server
/// usually is (a stream is a loading backend on the server and a generating thread here).
fn load_streams() -> u64 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u64)
}

/// `branches` cut into `parts` ranges of nearly equal size, in order.
fn split(branches: RangeInclusive<u64>, parts: u64) -> Vec<RangeInclusive<u64>> {
    let (first, count) = (*branches.start(), branches.end() - branches.start() + 1);
    (0..parts)
        .map(|i| first + count * i / parts..=first + count * (i + 1) / parts - 1)
        .filter(|r| !r.is_empty())
        .collect()
}

/// The filler column's value: blanks, as a CHAR(n) holds them.
fn filler(n: usize) -> SqlValue {
    SqlValue::Text(" ".repeat(n))
}

/// Tellers or accounts of `branches`: an id, the branch it belongs to, a zero balance, the filler.
fn members(branches: RangeInclusive<u64>, per_branch: u64) -> impl Iterator<Item = Row> {
    let per_branch = per_branch as i64;
    let (first, last) = (*branches.start() as i64, *branches.end() as i64);
    let ids = (first - 1) * per_branch + 1..=last * per_branch;
    ids.map(move |id| -> Row {
        let branch = (id - 1) / per_branch + 1;
        vec![
            SqlValue::Int(id),
            SqlValue::Int(branch),
            SqlValue::Int(0),
            filler(84),
        ]
    })
}

/// Adds the keys where they come after the load, then gathers the planner's statistics on table
/// set `set`, once it is loaded.
pub fn finish(db: &dyn SqlDatabase, set: usize) -> Result<()> {
    let mut c = db.connect()?;
    for stmt in keys(c.dialect(), set) {
        c.execute(&stmt)
            .with_context(|| format!("adding the keys: {stmt}"))?;
    }
    for table in ["branches", "tellers", "accounts", "history"] {
        crate::workload::sql::gather_statistics(c.as_mut(), &format!("{}{table}", prefix(set)))?;
    }
    Ok(())
}

pub fn drop_all(db: &dyn SqlDatabase, sets: usize) -> Result<()> {
    let mut c = db.connect()?;
    for set in 0..sets {
        for stmt in statements(DROP, set) {
            c.execute(&stmt)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branches_split_into_ranges_that_cover_them_once() {
        for (count, parts) in [(1, 1), (5, 2), (7, 3), (50, 2), (500, 16), (3, 8)] {
            let got = split(11..=10 + count, parts.min(count));
            let ids: Vec<u64> = got.iter().flat_map(|r| r.clone()).collect();
            assert_eq!(
                ids,
                (11..=10 + count).collect::<Vec<_>>(),
                "{count} in {parts}"
            );
            assert_eq!(got.len() as u64, parts.min(count));
        }
    }
}
