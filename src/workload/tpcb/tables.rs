//! tpcb's tables: created empty, loaded with the rows of a range of branches (all of them, or
//! one shard's part with `--load all`), finished (keys where they come after the load, planner
//! statistics), dropped.

use super::presets::TpcbParams;
use super::{keys, prefix, schema, statements, DROP};
use crate::engine::sql::SqlDatabase;
use crate::shard::Shard;
use crate::workload::kept::Made;
use crate::workload::load::{self, Job, Sink, Source};
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

/// tpcb's rows, a branch's block at a time: its row in branches, its tellers, up to
/// [`BLOCK`] of its accounts; every balance zero, the filler blank.
struct Rows {
    tellers_per_branch: i64,
    accounts_per_branch: i64,
}

/// The rows a part holds at most: a part is made whole before the engine takes it, and one of
/// this size stays in the processor's cache.
const BLOCK: i64 = 1_000;

impl Rows {
    fn per_branch(&self, table: &str) -> i64 {
        match table {
            "branches" => 1,
            "tellers" => self.tellers_per_branch,
            _ => self.accounts_per_branch,
        }
    }

    /// The parts of `table` for `branches`: each branch's blocks of rows, in order.
    fn parts(&self, table: &str, branches: RangeInclusive<u64>) -> Vec<(u64, i64)> {
        let blocks = (self.per_branch(table) + BLOCK - 1) / BLOCK;
        branches
            .flat_map(|b| (0..blocks).map(move |k| (b, k)))
            .collect()
    }
}

impl Source for Rows {
    /// A branch and a block of its rows (from 0).
    type Part = (u64, i64);
    fn write<S: Sink>(&self, table: &str, &(branch, block): &(u64, i64), sink: &mut S) {
        let branch = branch as i64;
        if table == "branches" {
            [branch, 0].into_iter().for_each(|v| sink.int(v));
            sink.blanks(88);
            return sink.end();
        }
        let per_branch = self.per_branch(table);
        let first = (branch - 1) * per_branch + block * BLOCK + 1;
        let last = (first + BLOCK - 1).min(branch * per_branch);
        for id in first..=last {
            [id, branch, 0].into_iter().for_each(|v| sink.int(v));
            sink.blanks(84);
            sink.end();
        }
    }
    /// A counter and blanks: made where they are loaded (SQLite's tpcb load at scale 20 took
    /// 1.875 s with them made ahead on the other core, 1.825 s without: bench/README.md).
    fn cheap(&self) -> bool {
        true
    }
}

/// Loads the rows of `branches` into table set `set`. The accounts go in as many streams as
/// the engine loads with at once, one connection each, over parts of the branches; an engine
/// that refills a whole table frozen (PostgreSQL, as `pgbench -i` loads: each table in the
/// transaction that empties it, COPY ... FREEZE, so the VACUUM after has nothing to do) gets
/// the whole tables in one stream: a second gains nothing where the client shares the server's
/// cores (bench/tpcb_load_pgbench.sh).
pub fn load(
    params: &TpcbParams,
    db: &dyn SqlDatabase,
    set: usize,
    branches: RangeInclusive<u64>,
) -> Result<()> {
    let source = Rows {
        tellers_per_branch: params.tellers_per_branch as i64,
        accounts_per_branch: params.accounts_per_branch as i64,
    };
    let count = branches.end() - branches.start() + 1;
    let whole = branches == (1..=params.branches);
    let streams = load::streams(db.connect()?.capabilities(), count, whole);
    let p = prefix(set);
    let job = |table: &'static str, columns, branches: RangeInclusive<u64>| Job {
        table,
        name: format!("{p}{table}"),
        columns,
        parts: source.parts(table, branches),
        rows_per_part: source.per_branch(table).min(BLOCK) as u64,
        counted: false,
        bytes_per_part: source.per_branch(table).min(BLOCK) as u64 * 24,
        whole: whole && streams == 1,
    };
    let accounts: &[&str] = &["aid", "bid", "abalance", "filler"];
    let mut work: Vec<Vec<Job<(u64, i64)>>> = (split(branches.clone(), streams).into_iter())
        .map(|part| vec![job("accounts", accounts, part)])
        .collect();
    let tellers = job(
        "tellers",
        &["tid", "bid", "tbalance", "filler"],
        branches.clone(),
    );
    let rows = job("branches", &["bid", "bbalance", "filler"], branches);
    work[0].splice(0..0, [rows, tellers]);
    load::spread(db, &source, &work, None).map(drop)
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

/// What makes the tables a later run may use (`--keep`): their sizes, not the seed (they hold
/// no random values).
pub fn made(params: &TpcbParams, sets: usize) -> Made {
    Made::new(
        "tpcb",
        vec![
            format!("--scale {}", params.branches),
            format!("--tellers-per-branch {}", params.tellers_per_branch),
            format!("--accounts-per-branch {}", params.accounts_per_branch),
            format!("--table-sets {sets}"),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_branch_writes_its_row_its_tellers_and_its_accounts() {
        use crate::workload::load::{Delimited, Forms};
        let rows = Rows {
            tellers_per_branch: 2,
            accounts_per_branch: 3,
        };
        let padded = Forms {
            units: false,
            pads_char: true,
        };
        let text = |rows: &Rows, table: &str, branches: RangeInclusive<u64>| {
            let mut sink = Delimited::new(padded, 0);
            for part in rows.parts(table, branches) {
                rows.write(table, &part, &mut sink);
            }
            sink.text
        };
        assert_eq!(text(&rows, "branches", 4..=4), "4|0||\n");
        assert_eq!(text(&rows, "tellers", 2..=2), "3|2|0||\n4|2|0||\n");
        assert_eq!(
            text(&rows, "accounts", 2..=2),
            "4|2|0||\n5|2|0||\n6|2|0||\n"
        );
        // Branches of more than a block of accounts: every account once, in order.
        let big = Rows {
            tellers_per_branch: 1,
            accounts_per_branch: 2 * BLOCK + 5,
        };
        assert_eq!(big.parts("accounts", 2..=3).len(), 6);
        let ids: Vec<i64> = (text(&big, "accounts", 2..=3).lines())
            .map(|l| l.split('|').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(
            ids,
            (2 * BLOCK + 6..=3 * (2 * BLOCK + 5)).collect::<Vec<_>>()
        );
        let mut blank = Delimited::new(Forms::default(), 0);
        rows.write("branches", &(1, 0), &mut blank);
        assert_eq!(blank.text, format!("1|0|{}|\n", " ".repeat(88)));
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
