//! The eight TPC-H tables: their schema per dialect, rows from the `tpchgen` crate (dbgen's
//! output, byte for byte), and the keys and indexes built after the load, as DBT-3 does.

use crate::engine::sql::{Dialect, Row, SqlValue};
use anyhow::{Context, Result};
use std::fmt::Display;
use std::io::Write;
use std::path::Path;
use tpchgen::generators::{
    CustomerGenerator, LineItem, LineItemGenerator, NationGenerator, Order, OrderGenerator,
    PartGenerator, PartSuppGenerator, RegionGenerator, SupplierGenerator,
};

/// The tables in load order (small ones first, as dbgen writes them).
pub const TABLES: [&str; 8] = [
    "region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem",
];

const SCHEMA: &str = include_str!("sql/schema.sql");

/// CREATE TABLE statements for a dialect (decimal and date types differ).
pub fn schema(dialect: Dialect) -> Vec<String> {
    let (decimal, date) = match dialect {
        Dialect::Sqlite => ("REAL", "TEXT"),
        _ => ("DECIMAL(15,2)", "DATE"),
    };
    crate::workload::tpch::queries::statements(SCHEMA)
        .into_iter()
        .map(|s| s.replace("{decimal}", decimal).replace("{date}", date))
        .collect()
}

pub fn drop_statements() -> Vec<String> {
    TABLES
        .iter()
        .rev()
        .map(|t| format!("DROP TABLE IF EXISTS {t}"))
        .collect()
}

/// Primary keys, then indexes on the foreign keys and dates the queries filter on.
/// (table, columns, primary key?)
const KEYS: &[(&str, &str, bool)] = &[
    ("region", "r_regionkey", true),
    ("nation", "n_nationkey", true),
    ("part", "p_partkey", true),
    ("supplier", "s_suppkey", true),
    ("partsupp", "ps_partkey, ps_suppkey", true),
    ("customer", "c_custkey", true),
    ("orders", "o_orderkey", true),
    ("lineitem", "l_orderkey, l_linenumber", true),
    ("nation", "n_regionkey", false),
    ("supplier", "s_nationkey", false),
    ("partsupp", "ps_suppkey", false),
    ("customer", "c_nationkey", false),
    ("orders", "o_custkey", false),
    ("orders", "o_orderdate", false),
    ("lineitem", "l_partkey, l_suppkey", false),
    ("lineitem", "l_suppkey", false),
    ("lineitem", "l_shipdate", false),
];

/// The key and index statements for a dialect. SQLite cannot add a primary key to a table, so
/// its keys are unique indexes.
pub fn key_statements(dialect: Dialect) -> Vec<String> {
    KEYS.iter()
        .enumerate()
        .map(|(i, (table, cols, pk))| {
            let name = format!("i_{table}_{i}");
            match (pk, dialect) {
                (true, Dialect::Sqlite) => {
                    format!("CREATE UNIQUE INDEX {name} ON {table} ({cols})")
                }
                (true, _) => format!("ALTER TABLE {table} ADD PRIMARY KEY ({cols})"),
                (false, _) => format!("CREATE INDEX {name} ON {table} ({cols})"),
            }
        })
        .collect()
}

pub fn columns(table: &str) -> &'static [&'static str] {
    match table {
        "region" => &["r_regionkey", "r_name", "r_comment"],
        "nation" => &["n_nationkey", "n_name", "n_regionkey", "n_comment"],
        "part" => &[
            "p_partkey",
            "p_name",
            "p_mfgr",
            "p_brand",
            "p_type",
            "p_size",
            "p_container",
            "p_retailprice",
            "p_comment",
        ],
        "supplier" => &[
            "s_suppkey",
            "s_name",
            "s_address",
            "s_nationkey",
            "s_phone",
            "s_acctbal",
            "s_comment",
        ],
        "partsupp" => &[
            "ps_partkey",
            "ps_suppkey",
            "ps_availqty",
            "ps_supplycost",
            "ps_comment",
        ],
        "customer" => &[
            "c_custkey",
            "c_name",
            "c_address",
            "c_nationkey",
            "c_phone",
            "c_acctbal",
            "c_mktsegment",
            "c_comment",
        ],
        "orders" => &[
            "o_orderkey",
            "o_custkey",
            "o_orderstatus",
            "o_totalprice",
            "o_orderdate",
            "o_orderpriority",
            "o_clerk",
            "o_shippriority",
            "o_comment",
        ],
        "lineitem" => &[
            "l_orderkey",
            "l_partkey",
            "l_suppkey",
            "l_linenumber",
            "l_quantity",
            "l_extendedprice",
            "l_discount",
            "l_tax",
            "l_returnflag",
            "l_linestatus",
            "l_shipdate",
            "l_commitdate",
            "l_receiptdate",
            "l_shipinstruct",
            "l_shipmode",
            "l_comment",
        ],
        _ => &[],
    }
}

fn int(v: impl Into<i64>) -> SqlValue {
    SqlValue::Int(v.into())
}
fn text(v: impl Display) -> SqlValue {
    SqlValue::Text(v.to_string())
}
fn dec(v: tpchgen::decimal::TPCHDecimal) -> SqlValue {
    SqlValue::Float(v.as_f64())
}

pub fn order_row(o: &Order<'_>, key: i64) -> Row {
    vec![
        int(key),
        int(o.o_custkey),
        text(o.o_orderstatus.as_str()),
        dec(o.o_totalprice),
        text(o.o_orderdate),
        text(o.o_orderpriority),
        text(o.o_clerk),
        int(o.o_shippriority),
        text(o.o_comment),
    ]
}

pub fn lineitem_row(l: &LineItem<'_>, key: i64) -> Row {
    vec![
        int(key),
        int(l.l_partkey),
        int(l.l_suppkey),
        int(l.l_linenumber),
        SqlValue::Float(l.l_quantity as f64),
        dec(l.l_extendedprice),
        dec(l.l_discount),
        dec(l.l_tax),
        text(l.l_returnflag),
        text(l.l_linestatus),
        text(l.l_shipdate),
        text(l.l_commitdate),
        text(l.l_receiptdate),
        text(l.l_shipinstruct),
        text(l.l_shipmode),
        text(l.l_comment),
    ]
}

/// Generates every row of `table` at `sf`, handing each (as a row, and as its dbgen .tbl line
/// when `tbl` is wanted) to `emit`. Returns false when `emit` asked to stop.
pub fn generate(
    table: &str,
    sf: f64,
    tbl: bool,
    emit: &mut dyn FnMut(Row, Option<String>) -> bool,
) -> bool {
    macro_rules! each {
        ($gen:expr, |$r:ident| $row:expr) => {{
            for $r in $gen.iter() {
                let line = if tbl { Some(format!("{}", $r)) } else { None };
                if !emit($row, line) {
                    return false;
                }
            }
        }};
    }
    match table {
        "region" => each!(RegionGenerator::new(sf, 1, 1), |r| vec![
            int(r.r_regionkey),
            text(r.r_name),
            text(r.r_comment)
        ]),
        "nation" => each!(NationGenerator::new(sf, 1, 1), |r| vec![
            int(r.n_nationkey),
            text(r.n_name),
            int(r.n_regionkey),
            text(r.n_comment)
        ]),
        "part" => each!(PartGenerator::new(sf, 1, 1), |r| vec![
            int(r.p_partkey),
            text(r.p_name),
            text(r.p_mfgr),
            text(r.p_brand),
            text(r.p_type),
            int(r.p_size),
            text(r.p_container),
            dec(r.p_retailprice),
            text(r.p_comment)
        ]),
        "supplier" => each!(SupplierGenerator::new(sf, 1, 1), |r| vec![
            int(r.s_suppkey),
            text(r.s_name),
            text(&r.s_address),
            int(r.s_nationkey),
            text(&r.s_phone),
            dec(r.s_acctbal),
            text(&r.s_comment)
        ]),
        "partsupp" => each!(PartSuppGenerator::new(sf, 1, 1), |r| vec![
            int(r.ps_partkey),
            int(r.ps_suppkey),
            int(r.ps_availqty),
            dec(r.ps_supplycost),
            text(r.ps_comment)
        ]),
        "customer" => each!(CustomerGenerator::new(sf, 1, 1), |r| vec![
            int(r.c_custkey),
            text(r.c_name),
            text(&r.c_address),
            int(r.c_nationkey),
            text(&r.c_phone),
            dec(r.c_acctbal),
            text(r.c_mktsegment),
            text(r.c_comment)
        ]),
        "orders" => each!(OrderGenerator::new(sf, 1, 1), |r| order_row(
            &r,
            r.o_orderkey
        )),
        "lineitem" => each!(LineItemGenerator::new(sf, 1, 1), |r| lineitem_row(
            &r,
            r.l_orderkey
        )),
        _ => {}
    }
    true
}

/// Rows of a table made on a second thread and handed over in batches through a bounded
/// channel, so generating and loading use both cores. The .tbl file, when asked for, is written
/// by the generating thread.
pub fn with_rows<T>(
    table: &str,
    sf: f64,
    keep_dir: Option<&Path>,
    load: impl FnOnce(&mut dyn Iterator<Item = Row>) -> Result<T>,
) -> Result<T> {
    const BATCH: usize = 2048;
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Row>>(8);
    std::thread::scope(|scope| {
        let generator = scope.spawn(move || -> Result<()> {
            let mut file = match keep_dir {
                Some(dir) => {
                    let path = dir.join(format!("{table}.tbl"));
                    Some(std::io::BufWriter::with_capacity(
                        1 << 20,
                        std::fs::File::create(&path)
                            .with_context(|| format!("cannot write {}", path.display()))?,
                    ))
                }
                None => None,
            };
            let mut batch = Vec::with_capacity(BATCH);
            let mut write_error = None;
            let completed = generate(table, sf, file.is_some(), &mut |row, line| {
                if let (Some(f), Some(line)) = (file.as_mut(), line) {
                    if let Err(e) = writeln!(f, "{line}") {
                        write_error = Some(e);
                        return false;
                    }
                }
                batch.push(row);
                if batch.len() == BATCH {
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                    // The loader hung up (an error): stop generating.
                    return tx.send(full).is_ok();
                }
                true
            });
            if let Some(e) = write_error {
                return Err(e).context("cannot write a .tbl file");
            }
            if completed && !batch.is_empty() {
                let _ = tx.send(batch);
            }
            drop(tx);
            if let Some(mut f) = file {
                f.flush().context("cannot write a .tbl file")?;
            }
            Ok(())
        });
        let mut rows = rx.into_iter().flatten();
        let loaded = load(&mut rows);
        // Hang up, so a generator still sending stops, then collect its outcome.
        drop(rows);
        let generated = generator
            .join()
            .map_err(|_| anyhow::anyhow!("the {table} generator panicked"))?;
        let value = loaded?;
        generated?;
        Ok(value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_match_the_columns_and_counts() {
        for table in TABLES {
            let mut n = 0u64;
            let mut width = 0;
            generate(table, 0.001, false, &mut |row, _| {
                n += 1;
                width = row.len();
                true
            });
            assert_eq!(width, columns(table).len(), "{table}");
            assert!(n > 0, "{table}");
        }
        let count = |t| with_rows(t, 0.01, None, |rows| Ok(rows.count())).unwrap();
        assert_eq!(count("orders"), 15_000);
        assert_eq!(count("customer"), 1_500);
        assert_eq!(count("nation"), 25);
    }

    #[test]
    fn tbl_lines_are_dbgens() {
        let dir = tempfile::tempdir().unwrap();
        with_rows("region", 0.01, Some(dir.path()), |rows| Ok(rows.count())).unwrap();
        let text = std::fs::read_to_string(dir.path().join("region.tbl")).unwrap();
        assert_eq!(text.lines().count(), 5);
        assert!(text.starts_with("0|AFRICA|"), "{text}");
    }
}
