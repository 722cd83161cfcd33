//! The eight TPC-H tables: their schema per dialect, rows from the `tpchgen` crate (dbgen's
//! output, byte for byte; as .tbl text, or as Arrow record batches from `tpchgen-arrow`), and
//! the keys and indexes built after the load, as DBT-3 does.

use crate::engine::sql::{ArrowStream, Dialect, Row, SqlValue};
use crate::workload::load::{Job, Sink, Source};
use std::fmt::{Display, Write};
use tpchgen::generators::{
    CustomerGenerator, LineItem, LineItemGenerator, NationGenerator, Order, OrderGenerator,
    PartGenerator, PartSuppGenerator, RegionGenerator, SupplierGenerator,
};

/// The tables in load order (small ones first, as dbgen writes them).
pub const TABLES: [&str; 8] = [
    "region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem",
];

const SCHEMA: &str = include_str!("sql/schema.sql");

/// CREATE TABLE statements for a dialect (decimal, date and 64-bit integer types differ).
pub fn schema(dialect: Dialect) -> Vec<String> {
    let (decimal, date) = match dialect {
        Dialect::Sqlite => ("REAL", "TEXT"),
        _ => ("DECIMAL(15,2)", "DATE"),
    };
    crate::workload::sql::statements(SCHEMA)
        .into_iter()
        .map(|s| {
            s.replace("{decimal}", decimal)
                .replace("{date}", date)
                .replace("{bigint}", crate::workload::sql::bigint(dialect))
        })
        .collect()
}

pub fn drop_statements() -> Vec<String> {
    crate::workload::sql::statements(include_str!("sql/drop.sql"))
}

/// Primary keys, then indexes on the foreign keys and dates the queries filter on, as DBT-3
/// builds them; none on DuckDB unless `keys` asks for all (DuckDB's tpch extension builds none).
pub fn key_statements(dialect: Dialect, keys: super::presets::Keys) -> Vec<String> {
    if dialect == Dialect::Duckdb && keys == super::presets::Keys::Kit {
        return Vec::new();
    }
    let primary_keys = match dialect {
        Dialect::Sqlite => include_str!("sql/sqlite/primary_keys.sql"),
        _ => include_str!("sql/primary_keys.sql"),
    };
    [primary_keys, include_str!("sql/indexes.sql")]
        .map(crate::workload::sql::statements)
        .concat()
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

/// The tables' rows as the one loader takes them ([`Source`]): a part is tpchgen's `(part,
/// parts)`, a consecutive run of rows, so parts 1..=n in order are the whole table in dbgen's
/// order. Each field is written as dbgen writes it (its `Display`), so the delimited text is
/// dbgen's .tbl text byte for byte.
pub struct Tables {
    pub sf: f64,
}

/// A text field as dbgen shows it.
fn shown(sink: &mut impl Sink, v: impl Display) {
    sink.text(|s| {
        let _ = write!(s, "{v}");
    });
}

fn decimal(sink: &mut impl Sink, v: tpchgen::decimal::TPCHDecimal) {
    sink.decimal(v.into_inner(), 2);
}

impl Source for Tables {
    type Part = (i32, i32);

    fn write<S: Sink>(&self, table: &str, &(part, parts): &(i32, i32), sink: &mut S) {
        let sf = self.sf;
        match table {
            "region" => RegionGenerator::new(sf, part, parts).iter().for_each(|r| {
                sink.int(r.r_regionkey);
                shown(sink, r.r_name);
                shown(sink, r.r_comment);
                sink.end();
            }),
            "nation" => NationGenerator::new(sf, part, parts).iter().for_each(|r| {
                sink.int(r.n_nationkey);
                shown(sink, r.n_name);
                sink.int(r.n_regionkey);
                shown(sink, r.n_comment);
                sink.end();
            }),
            "part" => PartGenerator::new(sf, part, parts).iter().for_each(|r| {
                sink.int(r.p_partkey);
                shown(sink, r.p_name);
                shown(sink, r.p_mfgr);
                shown(sink, r.p_brand);
                shown(sink, r.p_type);
                sink.int(r.p_size.into());
                shown(sink, r.p_container);
                decimal(sink, r.p_retailprice);
                shown(sink, r.p_comment);
                sink.end();
            }),
            "supplier" => SupplierGenerator::new(sf, part, parts)
                .iter()
                .for_each(|r| {
                    sink.int(r.s_suppkey);
                    shown(sink, r.s_name);
                    shown(sink, &r.s_address);
                    sink.int(r.s_nationkey);
                    shown(sink, &r.s_phone);
                    decimal(sink, r.s_acctbal);
                    shown(sink, &r.s_comment);
                    sink.end();
                }),
            "partsupp" => PartSuppGenerator::new(sf, part, parts)
                .iter()
                .for_each(|r| {
                    sink.int(r.ps_partkey);
                    sink.int(r.ps_suppkey);
                    sink.int(r.ps_availqty.into());
                    decimal(sink, r.ps_supplycost);
                    shown(sink, r.ps_comment);
                    sink.end();
                }),
            "customer" => CustomerGenerator::new(sf, part, parts)
                .iter()
                .for_each(|r| {
                    sink.int(r.c_custkey);
                    shown(sink, r.c_name);
                    shown(sink, &r.c_address);
                    sink.int(r.c_nationkey);
                    shown(sink, &r.c_phone);
                    decimal(sink, r.c_acctbal);
                    shown(sink, r.c_mktsegment);
                    shown(sink, r.c_comment);
                    sink.end();
                }),
            "orders" => OrderGenerator::new(sf, part, parts).iter().for_each(|r| {
                sink.int(r.o_orderkey);
                sink.int(r.o_custkey);
                shown(sink, r.o_orderstatus);
                decimal(sink, r.o_totalprice);
                shown(sink, r.o_orderdate);
                shown(sink, r.o_orderpriority);
                shown(sink, r.o_clerk);
                sink.int(r.o_shippriority.into());
                shown(sink, r.o_comment);
                sink.end();
            }),
            "lineitem" => LineItemGenerator::new(sf, part, parts)
                .iter()
                .for_each(|r| {
                    sink.int(r.l_orderkey);
                    sink.int(r.l_partkey);
                    sink.int(r.l_suppkey);
                    sink.int(r.l_linenumber.into());
                    sink.int(r.l_quantity);
                    decimal(sink, r.l_extendedprice);
                    decimal(sink, r.l_discount);
                    decimal(sink, r.l_tax);
                    shown(sink, r.l_returnflag);
                    shown(sink, r.l_linestatus);
                    shown(sink, r.l_shipdate);
                    shown(sink, r.l_commitdate);
                    shown(sink, r.l_receiptdate);
                    shown(sink, r.l_shipinstruct);
                    shown(sink, r.l_shipmode);
                    shown(sink, r.l_comment);
                    sink.end();
                }),
            _ => {}
        }
    }
}

/// About how many rows and bytes of .tbl text a table holds per unit of scale (TPC-H's
/// cardinalities; the bytes measured from dbgen's files).
fn size(table: &str) -> (f64, f64) {
    match table {
        "region" => (5.0, 100.0),
        "nation" => (25.0, 110.0),
        "part" => (200_000.0, 120.0),
        "supplier" => (10_000.0, 140.0),
        "partsupp" => (800_000.0, 145.0),
        "customer" => (150_000.0, 160.0),
        "orders" => (1_500_000.0, 105.0),
        _ => (6_001_215.0, 125.0),
    }
}

/// `table` at `sf` as the loader's job: parts of about 4,000 rows (enough of them to keep
/// every core generating, none held long), in dbgen's order.
pub fn job(table: &'static str, sf: f64) -> Job<(i32, i32)> {
    let (rows_per_sf, bytes_per_row) = size(table);
    let rows = match table {
        "region" | "nation" => rows_per_sf,
        _ => rows_per_sf * sf,
    };
    let parts = match table {
        "region" | "nation" => 1,
        _ => (rows / 4_000.0).ceil().max(1.0) as i32,
    };
    let rows_per_part = (rows / parts as f64).ceil() as u64;
    Job {
        table,
        name: table.to_string(),
        columns: columns(table),
        parts: (1..=parts).map(|p| (p, parts)).collect(),
        rows_per_part,
        counted: false,
        bytes_per_part: rows_per_part * bytes_per_row as u64,
        whole: false,
    }
}

/// Tables too small to split into parts.
fn parts_of(table: &str, workers: usize) -> usize {
    match table {
        "region" | "nation" => 1,
        // Many small parts, so no worker waits long for the one whose part is being loaded.
        _ => workers * 8,
    }
}

/// The table as Arrow record batches (tpchgen-arrow's columns and types: the same rows as
/// `with_rows`) in up to `streams` streams, each a consecutive run of parts that its consumer
/// generates as it reads (so each loading thread makes its own rows); the streams in order are
/// the whole table in dbgen's order.
pub fn arrow_streams(table: &'static str, sf: f64, streams: usize) -> Vec<ArrowStream> {
    let parts = parts_of(table, streams.max(1));
    let streams = streams.clamp(1, parts);
    (0..streams)
        .map(|k| {
            let run = (parts * k / streams + 1)..=(parts * (k + 1) / streams);
            let batches =
                run.flat_map(move |part| arrow_part(table, sf, part as i32, parts as i32));
            Box::new(batches.map(|b| b.map_err(anyhow::Error::from))) as ArrowStream
        })
        .collect()
}

type ArrowResult = std::result::Result<
    tpchgen_arrow::arrow::record_batch::RecordBatch,
    tpchgen_arrow::arrow::error::ArrowError,
>;

/// Part `part` of `parts` of `table` as Arrow record batches.
fn arrow_part(
    table: &str,
    sf: f64,
    part: i32,
    parts: i32,
) -> Box<dyn Iterator<Item = ArrowResult> + Send> {
    use tpchgen_arrow::*;
    const BATCH: usize = 8192;
    match table {
        "region" => {
            Box::new(RegionArrow::new(RegionGenerator::new(sf, part, parts)).with_batch_size(BATCH))
        }
        "nation" => {
            Box::new(NationArrow::new(NationGenerator::new(sf, part, parts)).with_batch_size(BATCH))
        }
        "part" => {
            Box::new(PartArrow::new(PartGenerator::new(sf, part, parts)).with_batch_size(BATCH))
        }
        "supplier" => Box::new(
            SupplierArrow::new(SupplierGenerator::new(sf, part, parts)).with_batch_size(BATCH),
        ),
        "partsupp" => Box::new(
            PartSuppArrow::new(PartSuppGenerator::new(sf, part, parts)).with_batch_size(BATCH),
        ),
        "customer" => Box::new(
            CustomerArrow::new(CustomerGenerator::new(sf, part, parts)).with_batch_size(BATCH),
        ),
        "orders" => {
            Box::new(OrderArrow::new(OrderGenerator::new(sf, part, parts)).with_batch_size(BATCH))
        }
        "lineitem" => Box::new(
            LineItemArrow::new(LineItemGenerator::new(sf, part, parts)).with_batch_size(BATCH),
        ),
        _ => Box::new(std::iter::empty()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::load::{Delimited, Forms, Values};

    fn text(table: &'static str, part: (i32, i32)) -> String {
        let mut sink = Delimited::new(Forms::default(), 0);
        Tables { sf: 0.01 }.write(table, &part, &mut sink);
        sink.text
    }

    fn rows(table: &'static str) -> Vec<Row> {
        let mut sink = Values::new(Forms::default(), 0);
        for part in &job(table, 0.01).parts {
            Tables { sf: 0.01 }.write(table, part, &mut sink);
        }
        sink.into_rows().collect()
    }

    #[test]
    fn rows_match_the_columns_and_counts() {
        for table in TABLES {
            let rows = rows(table);
            assert!(!rows.is_empty(), "{table}");
            assert!(
                rows.iter().all(|r| r.len() == columns(table).len()),
                "{table}"
            );
        }
        assert_eq!(rows("orders").len(), 15_000);
        assert_eq!(rows("customer").len(), 1_500);
        assert_eq!(rows("nation").len(), 25);
    }

    /// The source's text is dbgen's .tbl text (tpchgen's own lines), and its parts in order
    /// are the whole table.
    #[test]
    fn the_text_is_dbgens_and_parts_in_order_are_the_whole_table() {
        use tpchgen::generators::*;
        fn lines<T: Display>(rows: impl Iterator<Item = T>) -> String {
            rows.map(|r| format!("{r}\n")).collect()
        }
        let sf = 0.01;
        let dbgen = |table| match table {
            "region" => lines(RegionGenerator::new(sf, 1, 1).iter()),
            "nation" => lines(NationGenerator::new(sf, 1, 1).iter()),
            "part" => lines(PartGenerator::new(sf, 1, 1).iter()),
            "supplier" => lines(SupplierGenerator::new(sf, 1, 1).iter()),
            "partsupp" => lines(PartSuppGenerator::new(sf, 1, 1).iter()),
            "customer" => lines(CustomerGenerator::new(sf, 1, 1).iter()),
            "orders" => lines(OrderGenerator::new(sf, 1, 1).iter()),
            _ => lines(LineItemGenerator::new(sf, 1, 1).iter()),
        };
        for table in TABLES {
            let whole = dbgen(table);
            assert!(text(table, (1, 1)) == whole, "{table}");
            // tpchgen makes region and nation whole in every part: their job is one part.
            let n = match table {
                "region" | "nation" => 1,
                _ => 7,
            };
            let parts: String = (1..=n).map(|p| text(table, (p, n))).collect();
            assert!(parts == whole, "{table} in parts");
        }
        assert!(text("region", (1, 1)).starts_with("0|AFRICA|"));
        assert!(job("lineitem", 1.0).parts.len() > 100);
    }

    #[test]
    fn arrow_batches_are_the_rows_in_the_same_order() {
        use tpchgen_arrow::arrow::array::{Array, AsArray};
        use tpchgen_arrow::arrow::datatypes::{Int32Type, Int64Type};
        for table in TABLES {
            let rows: Vec<Row> = rows(table);
            let (mut names, mut keys) = (Vec::new(), Vec::new());
            let streams = arrow_streams(table, 0.01, 3);
            assert_eq!(
                streams.len(),
                if rows.len() > 25 { 3 } else { 1 },
                "{table}"
            );
            for batch in streams.into_iter().flatten() {
                let batch = batch.unwrap();
                names = batch
                    .schema()
                    .fields()
                    .iter()
                    .map(|f| f.name().clone())
                    .collect();
                let key = batch.column(0);
                keys.extend(
                    (0..key.len()).map(|i| match key.as_primitive_opt::<Int64Type>() {
                        Some(k) => k.value(i),
                        None => key.as_primitive::<Int32Type>().value(i) as i64,
                    }),
                );
            }
            assert_eq!(names, columns(table), "{table}");
            let row_keys: Vec<i64> = rows
                .iter()
                .map(|r| match r[0] {
                    SqlValue::Int(k) => k,
                    ref v => panic!("{table}: key {v:?}"),
                })
                .collect();
            assert_eq!(keys, row_keys, "{table}");
        }
    }
}
