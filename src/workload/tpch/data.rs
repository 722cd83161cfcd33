//! The eight TPC-H tables: their schema per dialect, rows from the `tpchgen` crate (dbgen's
//! output, byte for byte; as .tbl text, or as Arrow record batches from `tpchgen-arrow`), and
//! the keys and indexes built after the load, as DBT-3 does.

use crate::engine::sql::{ArrowStream, Dialect, Row, SqlValue};
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

/// Which forms of each generated row are wanted: a row of values, its dbgen .tbl line, or both.
#[derive(Clone, Copy, Debug)]
pub struct Forms {
    pub rows: bool,
    pub tbl: bool,
}

/// Generates the rows of part `part` (1-based) of `parts` of `table` at `sf` (tpchgen's parts
/// are consecutive runs of rows: parts 1..=n in order are the whole table in dbgen's order),
/// handing each, in the `forms` wanted, to `emit`. Returns false when `emit` asked to stop.
pub fn generate(
    table: &str,
    sf: f64,
    (part, parts): (i32, i32),
    forms: Forms,
    emit: &mut dyn FnMut(Option<Row>, Option<String>) -> bool,
) -> bool {
    macro_rules! each {
        ($gen:expr, |$r:ident| $row:expr) => {{
            for $r in $gen.iter() {
                let line = forms.tbl.then(|| format!("{}", $r));
                let row = if forms.rows { Some($row) } else { None };
                if !emit(row, line) {
                    return false;
                }
            }
        }};
    }
    match table {
        "region" => each!(RegionGenerator::new(sf, part, parts), |r| vec![
            int(r.r_regionkey),
            text(r.r_name),
            text(r.r_comment)
        ]),
        "nation" => each!(NationGenerator::new(sf, part, parts), |r| vec![
            int(r.n_nationkey),
            text(r.n_name),
            int(r.n_regionkey),
            text(r.n_comment)
        ]),
        "part" => each!(PartGenerator::new(sf, part, parts), |r| vec![
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
        "supplier" => each!(SupplierGenerator::new(sf, part, parts), |r| vec![
            int(r.s_suppkey),
            text(r.s_name),
            text(&r.s_address),
            int(r.s_nationkey),
            text(&r.s_phone),
            dec(r.s_acctbal),
            text(&r.s_comment)
        ]),
        "partsupp" => each!(PartSuppGenerator::new(sf, part, parts), |r| vec![
            int(r.ps_partkey),
            int(r.ps_suppkey),
            int(r.ps_availqty),
            dec(r.ps_supplycost),
            text(r.ps_comment)
        ]),
        "customer" => each!(CustomerGenerator::new(sf, part, parts), |r| vec![
            int(r.c_custkey),
            text(r.c_name),
            text(&r.c_address),
            int(r.c_nationkey),
            text(&r.c_phone),
            dec(r.c_acctbal),
            text(r.c_mktsegment),
            text(r.c_comment)
        ]),
        "orders" => each!(OrderGenerator::new(sf, part, parts), |r| order_row(
            &r,
            r.o_orderkey
        )),
        "lineitem" => each!(LineItemGenerator::new(sf, part, parts), |r| lineitem_row(
            &r,
            r.l_orderkey
        )),
        _ => {}
    }
    true
}

/// Tables too small to split into parts.
fn parts_of(table: &str, workers: usize) -> usize {
    match table {
        "region" | "nation" => 1,
        // Many small parts, so no worker waits long for the one whose part is being loaded.
        _ => workers * 8,
    }
}

/// What a generating worker hands over: a batch of rows and/or their .tbl text, or the end of
/// one of its parts.
enum Batch {
    Data(Vec<Row>, String),
    EndOfPart,
}

/// Batches of a table made by generating workers (one per core), handed to `consume` in dbgen's
/// order, so generating and loading overlap across the cores. The table is cut into parts;
/// worker w makes parts w, w + W, w + 2W, ... into its own bounded channel, and the consumer
/// reads part k from worker k mod W, which keeps the order without holding more than a few
/// batches. With `keep_dir`, the .tbl file is written in that order as the batches pass.
fn ordered_batches<T>(
    table: &str,
    sf: f64,
    rows: bool,
    keep_dir: Option<&Path>,
    consume: impl FnOnce(&mut dyn Iterator<Item = (Vec<Row>, String)>) -> Result<T>,
) -> Result<T> {
    const BATCH: usize = 2048;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let parts = parts_of(table, cores);
    let workers = cores.min(parts);
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
    let forms = Forms {
        rows,
        tbl: !rows || file.is_some(),
    };
    std::thread::scope(|scope| {
        let receivers: Vec<_> = (0..workers)
            .map(|w| {
                let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(4);
                scope.spawn(move || {
                    for part in (w..parts).step_by(workers) {
                        let (mut rows, mut text, mut count) = (Vec::new(), String::new(), 0);
                        let sent = generate(
                            table,
                            sf,
                            (part as i32 + 1, parts as i32),
                            forms,
                            &mut |row, line| {
                                rows.extend(row);
                                if let Some(line) = line {
                                    text.push_str(&line);
                                    text.push('\n');
                                }
                                count += 1;
                                if count < BATCH {
                                    return true;
                                }
                                count = 0;
                                let batch = Batch::Data(
                                    std::mem::take(&mut rows),
                                    std::mem::take(&mut text),
                                );
                                // The consumer hung up (an error): stop generating.
                                tx.send(batch).is_ok()
                            },
                        );
                        if !sent
                            || tx.send(Batch::Data(rows, text)).is_err()
                            || tx.send(Batch::EndOfPart).is_err()
                        {
                            return;
                        }
                    }
                });
                rx
            })
            .collect();
        let mut write_error = None;
        let mut batches = (0..parts)
            .flat_map(|part| {
                let rx = &receivers[part % workers];
                std::iter::from_fn(move || match rx.recv() {
                    Ok(Batch::Data(rows, text)) => Some((rows, text)),
                    Ok(Batch::EndOfPart) | Err(_) => None,
                })
            })
            .inspect(|(_, text)| {
                if let Some(f) = file.as_mut() {
                    if let Err(e) = f.write_all(text.as_bytes()) {
                        write_error.get_or_insert(e);
                    }
                }
            });
        let consumed = consume(&mut batches);
        // Hang up, so workers still sending stop (they end when their send fails).
        drop(batches);
        drop(receivers);
        let value = consumed?;
        if let Some(e) = write_error {
            return Err(e).context("cannot write a .tbl file");
        }
        if let Some(f) = file.as_mut() {
            f.flush().context("cannot write a .tbl file")?;
        }
        Ok(value)
    })
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

/// The rows of a table, in dbgen's order, made while `load` takes them (see `ordered_batches`).
pub fn with_rows<T>(
    table: &str,
    sf: f64,
    keep_dir: Option<&Path>,
    load: impl FnOnce(&mut dyn Iterator<Item = Row>) -> Result<T>,
) -> Result<T> {
    ordered_batches(table, sf, true, keep_dir, |batches| {
        load(&mut batches.flat_map(|(rows, _)| rows))
    })
}

/// The table as batches of dbgen's .tbl lines, in order, made while `load` takes them.
pub fn with_tbl_text<T>(
    table: &str,
    sf: f64,
    keep_dir: Option<&Path>,
    load: impl FnOnce(&mut dyn Iterator<Item = String>) -> Result<T>,
) -> Result<T> {
    ordered_batches(table, sf, false, keep_dir, |batches| {
        load(&mut batches.map(|(_, text)| text))
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
            let forms = Forms {
                rows: true,
                tbl: false,
            };
            generate(table, 0.001, (1, 1), forms, &mut |row, _| {
                n += 1;
                width = row.unwrap().len();
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
    fn parts_in_order_are_the_whole_table_in_dbgens_order() {
        let whole = |table| {
            let forms = Forms {
                rows: true,
                tbl: true,
            };
            let (mut rows, mut text) = (Vec::new(), String::new());
            generate(table, 0.01, (1, 1), forms, &mut |row, line| {
                rows.extend(row);
                text.push_str(&line.unwrap());
                text.push('\n');
                true
            });
            (rows, text)
        };
        for table in ["orders", "lineitem", "partsupp"] {
            let (rows, text) = whole(table);
            let merged: Vec<Row> = with_rows(table, 0.01, None, |rows| Ok(rows.collect())).unwrap();
            assert!(merged == rows, "{table} rows");
            let merged: String = with_tbl_text(table, 0.01, None, |t| Ok(t.collect())).unwrap();
            assert!(merged == text, "{table} text");
        }
    }

    #[test]
    fn arrow_batches_are_the_rows_in_the_same_order() {
        use tpchgen_arrow::arrow::array::{Array, AsArray};
        use tpchgen_arrow::arrow::datatypes::{Int32Type, Int64Type};
        for table in TABLES {
            let rows: Vec<Row> = with_rows(table, 0.01, None, |rows| Ok(rows.collect())).unwrap();
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

    #[test]
    fn tbl_lines_are_dbgens() {
        let dir = tempfile::tempdir().unwrap();
        with_rows("region", 0.01, Some(dir.path()), |rows| Ok(rows.count())).unwrap();
        let text = std::fs::read_to_string(dir.path().join("region.tbl")).unwrap();
        assert_eq!(text.lines().count(), 5);
        assert!(text.starts_with("0|AFRICA|"), "{text}");
    }
}
