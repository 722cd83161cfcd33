//! The transactions' statements (`sql/transactions.sql`), prepared on one terminal's
//! connection, and what the procedures share to run them.

use super::money;
use crate::engine::sql::{Dialect, Row, SqlConnection, SqlValue, Stmt};
use crate::workload::sql::SqlFile;
use anyhow::{bail, Context, Result};
use std::collections::HashMap;

pub const TRANSACTIONS: &str = include_str!("sql/transactions.sql");

/// Every statement of the file but `stock`, which is prepared once per district (it reads that
/// district's s_dist_NN).
const NAMES: [&str; 31] = [
    "warehouse_tax",
    "district_next",
    "district_advance",
    "customer_discount",
    "insert_order",
    "insert_new_order",
    "item",
    "stock_update",
    "insert_order_line",
    "warehouse_pay",
    "warehouse_name",
    "district_pay",
    "district_name",
    "customers_by_name",
    "customer_pay",
    "customer_data",
    "customer_paid",
    "customer_paid_data",
    "insert_history",
    "customer_status",
    "last_order",
    "order_lines",
    "oldest_new_order",
    "delete_new_order",
    "order_customer",
    "order_carrier",
    "lines_delivered",
    "lines_amount",
    "customer_delivered",
    "district_next_order",
    "low_stock",
];

/// The placeholders of the statements on `dialect`, for `district` (01..10).
pub fn values(dialect: Dialect, district: &str) -> Vec<(&'static str, String)> {
    let for_update = match dialect {
        // SQLite and Berkeley DB SQL lock at BEGIN IMMEDIATE; DuckDB is optimistic.
        Dialect::Sqlite | Dialect::Duckdb => "",
        _ => " FOR UPDATE",
    };
    let mut values = vec![
        ("p", super::PREFIX.to_string()),
        ("for_update", for_update.to_string()),
        ("district", district.to_string()),
    ];
    values.extend(
        money::column_types(dialect)
            .iter()
            .map(|(name, ty)| (*name, ty.to_string())),
    );
    values
}

/// The statements as filled for `dialect` and `district`.
pub fn named(dialect: Dialect, district: &str) -> SqlFile {
    let values = values(dialect, district);
    let refs: Vec<(&str, &dyn std::fmt::Display)> = values
        .iter()
        .map(|(n, v)| (*n, v as &dyn std::fmt::Display))
        .collect();
    SqlFile::read(TRANSACTIONS, None, &refs)
}

/// One terminal's prepared statements.
pub struct Statements {
    by_name: HashMap<&'static str, Stmt>,
    /// `stock` for districts 1..=10.
    stock: Vec<Stmt>,
    pub dialect: Dialect,
}

impl Statements {
    pub fn prepare(conn: &mut dyn SqlConnection) -> Result<Statements> {
        let dialect = conn.dialect();
        let first = named(dialect, "01");
        let mut by_name = HashMap::new();
        for name in NAMES {
            let sql = first.statement(name)?;
            let stmt = conn
                .prepare(sql)
                .with_context(|| format!("preparing [{name}]: {sql}"))?;
            by_name.insert(name, stmt);
        }
        let mut stock = Vec::new();
        for d in 1..=10 {
            let sql = named(dialect, &format!("{d:02}"))
                .statement("stock")?
                .to_string();
            stock.push(conn.prepare(&sql)?);
        }
        Ok(Statements {
            by_name,
            stock,
            dialect,
        })
    }

    pub fn get(&self, name: &str) -> Stmt {
        self.by_name[name]
    }

    pub fn stock(&self, district: i64) -> Stmt {
        self.stock[district as usize - 1]
    }
}

/// Every statement on every dialect, for the statement snapshot.
#[cfg(test)]
pub fn all_filled(dialect: Dialect) -> Vec<String> {
    let first = named(dialect, "01");
    NAMES
        .iter()
        .chain(std::iter::once(&"stock"))
        .map(|n| first.statement(n).unwrap().to_string())
        .collect()
}

/// The first row of a prepared query, if any.
pub fn first_row(
    conn: &mut dyn SqlConnection,
    stmt: Stmt,
    args: &[SqlValue],
) -> Result<Option<Row>> {
    let mut first = None;
    conn.query_prepared(stmt, args, &mut |row| {
        if first.is_none() {
            first = Some(std::mem::take(row));
        }
    })?;
    Ok(first)
}

/// The first row of a prepared query, which must return one; `what` names it in the error.
pub fn one_row(
    conn: &mut dyn SqlConnection,
    stmt: Stmt,
    args: &[SqlValue],
    what: &str,
) -> Result<Row> {
    first_row(conn, stmt, args)?.with_context(|| format!("{what}: no row"))
}

/// A column as an integer.
pub fn int(row: &[SqlValue], i: usize) -> Result<i64> {
    match row.get(i) {
        Some(SqlValue::Int(v)) => Ok(*v),
        Some(SqlValue::Float(f)) if f.fract() == 0.0 => Ok(*f as i64),
        Some(SqlValue::Text(t)) => t
            .trim()
            .parse()
            .with_context(|| format!("column {i} reads '{t}', not an integer")),
        other => bail!("column {i} is {other:?}, not an integer"),
    }
}

/// A column as text (a CHAR's padding dropped).
pub fn text(row: &[SqlValue], i: usize) -> String {
    match row.get(i) {
        Some(SqlValue::Text(t)) => t.trim_end().to_string(),
        Some(SqlValue::Bytes(b)) => String::from_utf8_lossy(b).trim_end().to_string(),
        Some(SqlValue::Int(v)) => v.to_string(),
        _ => String::new(),
    }
}

/// The parameter for an id or count.
pub fn n(v: i64) -> SqlValue {
    SqlValue::Int(v)
}
