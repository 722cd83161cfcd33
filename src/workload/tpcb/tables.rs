//! tpcb's tables: created empty, loaded with the rows of a range of branches (all of them, or
//! one shard's part with `--load all`), finished (keys where they come after the load, planner
//! statistics), dropped.

use super::presets::TpcbParams;
use super::{keys, prefix, schema, statements, DROP};
use crate::engine::sql::{Row, SqlConnection, SqlDatabase, SqlValue};
use crate::shard::Shard;
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
/// balance zero. The accounts go in as many streams as the engine declares it loads at once
/// (`Capabilities::load_streams`), one connection each, over parts of the branches; an engine
/// that refills a table frozen (PostgreSQL) gets whole tables that way instead.
pub fn load(
    params: &TpcbParams,
    db: &dyn SqlDatabase,
    set: usize,
    branches: RangeInclusive<u64>,
) -> Result<()> {
    let mut c = db.connect()?;
    let p = prefix(set);
    let (first, last) = (*branches.start(), *branches.end());
    let can = c.capabilities();
    if can.frozen_refill && can.delimited && branches == (1..=params.branches) {
        return refill(c.as_mut(), &p, params);
    }
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
    let streams = (can.load_streams as u64).min(last - first + 1);
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

/// A whole table set on PostgreSQL, loaded as `pgbench -i` loads it: each table in the
/// transaction that empties it, COPY ... FREEZE (the VACUUM after has nothing to do), the
/// filler left to CHAR's blank padding. One stream: a second gains nothing where the client
/// shares the server's cores (bench/tpcb_load_pgbench.sh), and FREEZE takes one transaction.
fn refill(c: &mut dyn SqlConnection, p: &str, params: &TpcbParams) -> Result<()> {
    let per_branch = params.accounts_per_branch as i64;
    let tellers = params.tellers_per_branch as i64;
    let branches = params.branches as i64;
    let tables: [(&str, &[&str], i64, Option<i64>); 3] = [
        ("branches", &["bid", "bbalance", "filler"], branches, None),
        (
            "tellers",
            &["tid", "bid", "tbalance", "filler"],
            branches * tellers,
            Some(tellers),
        ),
        (
            "accounts",
            &["aid", "bid", "abalance", "filler"],
            branches * per_branch,
            Some(per_branch),
        ),
    ];
    for (table, columns, rows, per) in tables {
        let mut lines = lines(1..=rows, per);
        c.refill_delimited(&format!("{p}{table}"), columns, &mut lines)?;
    }
    Ok(())
}

/// Rows `ids` as '|'-delimited lines in batches: the id, its branch (`per_branch` rows to a
/// branch; none for the branches themselves), a zero balance, an empty filler.
fn lines(ids: RangeInclusive<i64>, per_branch: Option<i64>) -> impl Iterator<Item = String> {
    use std::fmt::Write;
    const BATCH: i64 = 10_000;
    let last = *ids.end();
    ids.step_by(BATCH as usize).map(move |from| {
        let mut text = String::with_capacity(BATCH as usize * 24);
        for id in from..=(from + BATCH - 1).min(last) {
            match per_branch {
                Some(per) => writeln!(text, "{id}|{}|0||", (id - 1) / per + 1),
                None => writeln!(text, "{id}|0||"),
            }
            .expect("writing to a String");
        }
        text
    })
}

/// `branches` cut into `parts` ranges of nearly equal size, in order: as `--shard` cuts them.
fn split(branches: RangeInclusive<u64>, parts: u64) -> Vec<RangeInclusive<u64>> {
    let (before, count) = (branches.start() - 1, branches.end() - branches.start() + 1);
    (1..=parts as usize)
        .map(|index| Shard {
            index,
            count: parts as usize,
            ..Shard::WHOLE
        })
        .filter_map(|shard| shard.part(count))
        .map(|part| part.start() + before..=part.end() + before)
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
    fn lines_name_each_row_and_its_branch_in_batches() {
        let text: Vec<String> = lines(1..=25_001, Some(10_000)).collect();
        assert_eq!(text.len(), 3);
        assert!(text[0].starts_with("1|1|0||\n2|1|0||\n"));
        assert!(text[1].starts_with("10001|2|0||\n"));
        let third: String = (20_001..=25_001).map(|i| format!("{i}|3|0||\n")).collect();
        assert_eq!(text[2], third);
        assert_eq!(lines(1..=2, None).collect::<String>(), "1|0||\n2|0||\n");
    }

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
