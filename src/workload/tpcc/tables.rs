//! tpcc's tables: found from an earlier run (`--keep`) or made afresh, loaded warehouse by
//! warehouse through each engine's bulk path, keyed and analysed after, and marked loaded in the
//! meta table last, so that a load cut short never looks complete.

use super::money;
use super::population::{parts, rows_of, rows_per_warehouse, Population, COLUMNS};
use super::random::Constants;
use super::PREFIX;
use crate::engine::sql::{Dialect, SqlConnection, SqlDatabase, SqlValue};
use crate::measure::progress::Progress;
use crate::workload::load::{self, Job};
use crate::workload::sql::{fill, statements, SqlFile};
use anyhow::{bail, Context, Result};
use std::fmt::Display;
use std::ops::RangeInclusive;

const SCHEMA: &str = include_str!("sql/schema.sql");
const KEYS: &str = include_str!("sql/keys.sql");
const DROP: &str = include_str!("sql/drop.sql");

/// Every table, in the order they are created and keyed.
pub const TABLES: [&str; 9] = [
    "warehouse",
    "district",
    "customer",
    "history",
    "new_order",
    "orders",
    "order_line",
    "item",
    "stock",
];

/// The keys after the tables' own: the two secondary indexes.
const INDEXES: [&str; 2] = ["customer_name", "orders_customer"];

fn placeholders(dialect: Dialect) -> Vec<(&'static str, String)> {
    // MySQL's TIMESTAMP may fill itself in on insert and update (the first one of a table,
    // without explicit_defaults_for_timestamp): DATETIME stays as written.
    let timestamp = match dialect {
        Dialect::Mysql => "DATETIME",
        _ => "TIMESTAMP",
    };
    let mut v = vec![("p", PREFIX.to_string()), ("timestamp", timestamp.into())];
    v.extend(
        money::column_types(dialect)
            .iter()
            .map(|(n, t)| (*n, t.to_string())),
    );
    v
}

fn read(text: &str, dialect_text: Option<&str>, dialect: Dialect) -> SqlFile {
    let values = placeholders(dialect);
    let refs: Vec<(&str, &dyn Display)> = values
        .iter()
        .map(|(n, v)| (*n, v as &dyn Display))
        .collect();
    SqlFile::read(text, dialect_text, &refs)
}

/// The CREATE TABLE statements of `dialect`, the meta table's last; `keyed` (an engine that
/// keeps rows in key order, `Capabilities::clusters_by_key`), each with the primary key
/// `keys.sql` gives it.
pub fn schema(dialect: Dialect, keyed: bool) -> Result<Vec<String>> {
    let named = read(SCHEMA, None, dialect);
    let keys = read(KEYS, None, dialect);
    (TABLES.iter().chain(&["meta"]))
        .map(|t| {
            let create = named.statement(t)?;
            match (keyed, keys.statement(t)) {
                (true, Ok(key)) => {
                    let columns = key
                        .split_once("PRIMARY KEY")
                        .map(|(_, c)| c.trim())
                        .context("a primary key in keys.sql")?;
                    let body = create.trim_end().trim_end_matches(')').trim_end();
                    Ok(format!("{body},\n  PRIMARY KEY {columns}\n)"))
                }
                _ => Ok(create.to_string()),
            }
        })
        .collect()
}

/// The keys and indexes of `dialect`, made once the rows are in (only the indexes where the
/// tables were made `keyed`).
pub fn keys(dialect: Dialect, keyed: bool) -> Result<Vec<String>> {
    // Neither SQLite nor DuckDB adds a primary key to a table that exists: both take the
    // unique indexes of SQLite's file.
    let own = match dialect {
        Dialect::Sqlite | Dialect::Duckdb => Some(include_str!("sql/sqlite/keys.sql")),
        _ => None,
    };
    let named = read(KEYS, own, dialect);
    let tables: &[&str] = if keyed { &[] } else { &TABLES };
    (tables.iter().filter(|t| **t != "history").chain(&INDEXES))
        .map(|t| named.statement(t).map(str::to_string))
        .collect()
}

pub fn drop_statements() -> Vec<String> {
    statements(&fill(DROP, &[("p", &PREFIX)]))
}

/// What an earlier run left: the meta row of tables loaded whole.
pub struct Loaded {
    pub warehouses: u64,
    pub constants: Constants,
    pub loaded_at: String,
}

/// The meta row of tables a run loaded whole and kept; None when there are none (or a load
/// was cut short: the meta row is written last).
pub fn loaded(c: &mut dyn SqlConnection) -> Option<Loaded> {
    let sql = format!("SELECT warehouses, c_last, c_id, ol_i_id, loaded_at FROM {PREFIX}meta");
    let rows = c.query(&sql).ok()?;
    let row = rows.first()?;
    let int = |i: usize| super::statements::int(row, i).ok();
    Some(Loaded {
        warehouses: int(0)? as u64,
        constants: Constants {
            c_last: int(1)?,
            c_id: int(2)?,
            ol_i_id: int(3)?,
        },
        loaded_at: super::statements::text(row, 4),
    })
}

/// The tables made afresh (dropping any hakari left behind).
pub fn create(db: &dyn SqlDatabase) -> Result<()> {
    let mut c = db.connect()?;
    let dialect = c.dialect();
    let keyed = c.capabilities().clusters_by_key;
    for stmt in drop_statements().iter().chain(&schema(dialect, keyed)?) {
        c.execute(stmt)
            .with_context(|| format!("setting up: {stmt}"))?;
    }
    Ok(())
}

/// Loads `warehouses` warehouses (and the items) into the empty tables; returns rows loaded.
/// The work is spread over as many loaders as the engine takes at once, one connection each
/// (`work` says how).
pub fn load(db: &dyn SqlDatabase, population: &Population, warehouses: u64) -> Result<u64> {
    // Loaders split the warehouses, or the tables where they are made with their keys.
    let can = db.connect()?.capabilities();
    let parts = match can.clusters_by_key {
        true => COLUMNS.len() as u64,
        false => warehouses,
    };
    let streams = load::streams(can, parts, false);
    let work: Vec<Vec<Job<(i64, i64)>>> = (work(can.clusters_by_key, streams, warehouses).iter())
        .map(|jobs| {
            jobs.iter()
                .map(|(table, homes)| job(table, homes))
                .collect()
        })
        .collect();
    let progress = Progress::new(
        &format!("loading {warehouses} warehouse(s)"),
        warehouses * rows_per_warehouse(),
    );
    let outcome = load::spread(db, population, &work, Some(&progress));
    progress.finish();
    outcome
}

/// `table`'s rows of warehouses `homes`, a part at a time (a district's rows, a tenth of the
/// items), in one bulk statement.
fn job(table: &'static str, homes: &Homes) -> Job<(i64, i64)> {
    let columns = (COLUMNS.iter().find(|(t, _)| *t == table)).map_or(&[][..], |(_, c)| *c);
    let per_part = rows_of(table) / parts(table) as u64;
    Job {
        table,
        name: format!("{PREFIX}{table}"),
        columns,
        parts: (homes.clone())
            .flat_map(|w| (1..=parts(table)).map(move |k| (w, k)))
            .collect(),
        rows_per_part: per_part,
        // The items are not a warehouse's rows.
        counted: table != "item",
        bytes_per_part: per_part * row_bytes(table),
        whole: false,
    }
}

/// What each of `streams` loaders loads, in order: a table and its warehouses (item's: 0..=0).
/// Loader s takes warehouses s+1, s+1+streams, ... whole, a statement per table and warehouse.
/// Where the tables are made with their keys (InnoDB keeps rows in primary-key order), each
/// loader takes whole tables instead, the costliest to the loader with the least so far, a
/// table in one statement: no two loaders insert into one index at once.
fn work(keyed: bool, streams: u64, warehouses: u64) -> Vec<Vec<(&'static str, Homes)>> {
    let mut work = vec![Vec::new(); streams as usize];
    let tables = COLUMNS.iter().map(|(t, _)| *t);
    let all = 1..=warehouses as i64;
    if !keyed {
        work[0].push(("item", 0..=0));
        for w in all {
            let loader = &mut work[((w - 1) as u64 % streams) as usize];
            loader.extend(tables.clone().filter(|t| *t != "item").map(|t| (t, w..=w)));
        }
        return work;
    }
    let homes = |table: &str| if table == "item" { 0..=0 } else { all.clone() };
    let cost = |table: &str| {
        let h = homes(table);
        load_cost(table) * (h.end() - h.start() + 1) as u64
    };
    let mut by_cost: Vec<&str> = tables.collect();
    by_cost.sort_by_key(|t| std::cmp::Reverse(cost(t)));
    let mut costs = vec![0; streams as usize];
    for table in by_cost {
        let least = (0..costs.len()).min_by_key(|&s| costs[s]).unwrap_or(0);
        costs[least] += cost(table);
        work[least].push((table, homes(table)));
    }
    work
}

/// What loading one warehouse's rows of `table` costs a keyed server, in its own units: about
/// 190 units a row and one a byte (MariaDB, bench/tpcc_load_mariadb.sh: order_line 2.7 µs a row
/// of about 70 bytes, stock 5.5 µs of 310, customer 8.9 µs of 660).
fn load_cost(table: &str) -> u64 {
    rows_of(table) * (190 + row_bytes(table))
}

/// About how many bytes a row of `table` takes as delimited text.
fn row_bytes(table: &str) -> u64 {
    match table {
        "customer" => 660,
        "stock" => 310,
        "item" => 85,
        "order_line" => 70,
        "history" => 60,
        "orders" => 40,
        "new_order" => 15,
        _ => 100,
    }
}

/// The warehouses a loader's part covers.
type Homes = RangeInclusive<i64>;

/// The keys, the planner's statistics, then the meta row that marks the tables loaded whole.
pub fn finish(
    db: &dyn SqlDatabase,
    warehouses: u64,
    seed: u64,
    constants: &Constants,
    loaded_at: &str,
) -> Result<()> {
    let mut c = db.connect()?;
    let dialect = c.dialect();
    // The keys, then each table's statistics: on a server, as many at once as there are
    // loaders (a key is built by one backend, one core).
    let keys = keys(dialect, c.capabilities().clusters_by_key)?;
    let tasks = keys.len() + TABLES.len();
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..load::streams(c.capabilities(), tasks as u64, false))
            .map(|_| {
                let (keys, next) = (&keys, &next);
                scope.spawn(move || -> Result<()> {
                    let mut c = db.connect()?;
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if let Some(stmt) = keys.get(i) {
                            c.execute(stmt)
                                .with_context(|| format!("adding the keys: {stmt}"))?;
                        } else if let Some(table) = TABLES.get(i - keys.len()) {
                            let table = format!("{PREFIX}{table}");
                            crate::workload::sql::gather_statistics(c.as_mut(), &table)?;
                        } else {
                            return Ok(());
                        }
                    }
                })
            })
            .collect();
        (workers.into_iter()).try_for_each(|w| w.join().expect("a finishing thread panicked"))
    })?;
    let meta = format!(
        "INSERT INTO {PREFIX}meta (warehouses, seed, c_last, c_id, ol_i_id, loaded_at) VALUES ({warehouses}, '{seed}', {}, {}, {}, '{loaded_at}')",
        constants.c_last, constants.c_id, constants.ol_i_id
    );
    c.execute(&meta).context("marking the tables loaded")?;
    Ok(())
}

pub fn drop_all(db: &dyn SqlDatabase) -> Result<()> {
    let mut c = db.connect()?;
    for stmt in drop_statements() {
        c.execute(&stmt)?;
    }
    Ok(())
}

/// The sum of the next order ids of the districts of warehouses `homes`: the database's own
/// count of the New-Orders their terminals committed.
pub fn next_order_sum(c: &mut dyn SqlConnection, homes: &RangeInclusive<u64>) -> Result<i64> {
    let rows = c.query(&format!(
        "SELECT SUM(d_next_o_id) FROM {PREFIX}district WHERE d_w_id BETWEEN {} AND {}",
        homes.start(),
        homes.end()
    ))?;
    let row = rows.first().context("SUM(d_next_o_id) returned no row")?;
    match row.first() {
        Some(SqlValue::Float(f)) => Ok(*f as i64),
        _ => super::statements::int(row, 0),
    }
}

/// More terminals than the server takes connections: refused before the run.
pub fn check_connections(c: &mut dyn SqlConnection, terminals: usize) -> Result<()> {
    let Some(limit) = c.connection_limit() else {
        return Ok(());
    };
    // hakari itself holds one more connection while the terminals run.
    if terminals as u64 + 1 > limit {
        bail!(
            "{terminals} terminals need {} connections; the server takes {limit} (raise max_connections, or give fewer --clients)",
            terminals + 1
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_part_is_loaded_once_and_keyed_tables_by_one_loader() {
        for (keyed, streams, warehouses) in
            [(false, 2, 5), (true, 2, 5), (true, 3, 1), (false, 1, 2)]
        {
            let work = work(keyed, streams, warehouses);
            let mut all: Vec<(&str, i64)> = (work.concat().into_iter())
                .flat_map(|(t, homes)| homes.map(move |w| (t, w)))
                .collect();
            all.sort();
            let mut expected: Vec<(&str, i64)> = (COLUMNS.iter())
                .flat_map(|(t, _)| match *t {
                    "item" => vec![(*t, 0)],
                    _ => (1..=warehouses as i64).map(|w| (*t, w)).collect(),
                })
                .collect();
            expected.sort();
            assert_eq!(all, expected, "{keyed} {streams} {warehouses}");
            if keyed {
                for (table, _) in COLUMNS {
                    let loaders = work.iter().filter(|p| p.iter().any(|(t, _)| *t == table));
                    assert_eq!(loaders.count(), 1, "{table}");
                }
                // order_line and stock, the costliest, in two loaders at two loaders.
                if streams == 2 {
                    let with = |t: &str| work.iter().position(|p| p.iter().any(|(u, _)| *u == t));
                    assert_ne!(with("order_line"), with("stock"));
                }
            }
        }
    }
}
