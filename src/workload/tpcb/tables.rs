//! tpcb's tables: created empty, loaded with the rows of a range of branches (all of them, or
//! one shard's part with `--load all`), analyzed, dropped.

use super::presets::TpcbParams;
use super::{prefix, schema, statements, DROP};
use crate::engine::sql::{Row, SqlDatabase, SqlValue};
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
/// balance zero.
pub fn load(
    params: &TpcbParams,
    db: &dyn SqlDatabase,
    set: usize,
    branches: RangeInclusive<u64>,
) -> Result<()> {
    let mut c = db.connect()?;
    let p = prefix(set);
    let filler = |n: usize| SqlValue::Text(" ".repeat(n));
    let (first, last) = (*branches.start() as i64, *branches.end() as i64);
    let mut rows = (first..=last).map(|b| vec![SqlValue::Int(b), SqlValue::Int(0), filler(88)]);
    c.bulk_load(
        &format!("{p}branches"),
        &["bid", "bbalance", "filler"],
        &mut rows,
    )?;
    // Tellers and accounts: an id, the branch it belongs to, a zero balance, the filler.
    let mut members = |table: &str, columns: &[&str], per_branch: u64| {
        let per_branch = per_branch as i64;
        let ids = (first - 1) * per_branch + 1..=last * per_branch;
        let mut rows = ids.map(|id| -> Row {
            let branch = (id - 1) / per_branch + 1;
            vec![
                SqlValue::Int(id),
                SqlValue::Int(branch),
                SqlValue::Int(0),
                filler(84),
            ]
        });
        c.bulk_load(&format!("{p}{table}"), columns, &mut rows)
    };
    let tellers = ["tid", "bid", "tbalance", "filler"];
    members("tellers", &tellers, params.tellers_per_branch)?;
    let accounts = ["aid", "bid", "abalance", "filler"];
    members("accounts", &accounts, params.accounts_per_branch)?;
    Ok(())
}

/// Gathers the planner's statistics on table set `set`, once it is loaded.
pub fn analyze(db: &dyn SqlDatabase, set: usize) -> Result<()> {
    let mut c = db.connect()?;
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
