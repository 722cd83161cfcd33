//! The consistency conditions of §3.3.2, checked on every warehouse: each query returns the
//! rows that break its condition, and a broken one is reported with its figures.

use super::PREFIX;
use crate::engine::sql::{SqlConnection, SqlDatabase, SqlValue};
use crate::errors::Inconsistent;
use crate::workload::sql::SqlFile;
use anyhow::{Context, Result};

const CHECKS: &str = include_str!("sql/checks.sql");

/// What each condition says, for the report.
pub fn meaning(condition: u32) -> &'static str {
    match condition {
        1 => "w_ytd = sum(d_ytd)",
        2 => "d_next_o_id - 1 = max(o_id) = max(no_o_id)",
        3 => "max(no_o_id) - min(no_o_id) + 1 = new_order rows, per district",
        4 => "sum(o_ol_cnt) = order_line rows, per district",
        5 => "o_carrier_id is null exactly for orders in new_order",
        6 => "o_ol_cnt = the order's lines, per order",
        7 => "ol_delivery_d is null exactly when o_carrier_id is",
        8 => "w_ytd = sum(h_amount), per warehouse",
        9 => "d_ytd = sum(h_amount), per district",
        10 => "c_balance = delivered sum(ol_amount) - sum(h_amount), per customer",
        11 => "orders - new_orders = 2,100 per district (right after the load)",
        12 => "c_balance + c_ytd_payment = delivered sum(ol_amount), per customer",
        _ => "",
    }
}

/// A condition that did not hold: how many rows break it, and the first few of them.
#[derive(Debug)]
pub struct Broken {
    pub condition: u32,
    pub rows: usize,
    pub first: Vec<String>,
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "condition {} ({}) fails in {} row(s), first: {}",
            self.condition,
            meaning(self.condition),
            self.rows,
            self.first.join("; ")
        )
    }
}

/// Checks `conditions` on the tables; returns those that fail.
pub fn conditions(c: &mut dyn SqlConnection, conditions: &[u32]) -> Result<Vec<Broken>> {
    let named = SqlFile::read(CHECKS, None, &[("p", &PREFIX)]);
    let mut broken = Vec::new();
    for &n in conditions {
        let sql = named.statement(&n.to_string())?;
        let rows = c
            .query(sql)
            .with_context(|| format!("checking condition {n}"))?;
        if !rows.is_empty() {
            broken.push(Broken {
                condition: n,
                rows: rows.len(),
                first: rows.iter().take(3).map(|r| show(r)).collect(),
            });
        }
    }
    Ok(broken)
}

/// Every other node of a cluster, once it has applied every commit, holds what the primary
/// (`c`) holds: the same sums of next order ids, YTDs, balances and stock, the same row counts.
/// Returns the nodes checked (none without a cluster).
pub fn replicas(db: &dyn SqlDatabase, c: &mut dyn SqlConnection) -> Result<Vec<String>> {
    let others = db.replicas()?;
    if others.is_empty() {
        return Ok(Vec::new());
    }
    let named = SqlFile::read(CHECKS, None, &[("p", &PREFIX)]);
    let sql = named.statement("replica")?;
    let figures = |c: &mut dyn SqlConnection| -> Result<String> {
        Ok(c.query(sql)?.iter().map(|r| show(r)).collect())
    };
    let here = figures(c)?;
    let mut checked = Vec::new();
    for (node, mut replica) in others {
        let there = figures(replica.as_mut()).with_context(|| node.clone())?;
        if there != here {
            return Err(Inconsistent(format!(
                "{node} does not hold what the primary holds once it has applied every commit: {there} there, {here} on the primary (next order ids, w_ytd, c_balance, s_ytd, then orders, new_order, order_line, history rows)"
            ))
            .into());
        }
        checked.push(node);
    }
    Ok(checked)
}

fn show(row: &[SqlValue]) -> String {
    let cells: Vec<String> = row
        .iter()
        .map(|v| match v {
            SqlValue::Null => "NULL".into(),
            SqlValue::Int(i) => i.to_string(),
            SqlValue::Float(f) => f.to_string(),
            SqlValue::Text(t) => t.trim_end().to_string(),
            SqlValue::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        })
        .collect();
    format!("({})", cells.join(", "))
}

/// Every condition's statement, for the statement snapshot.
#[cfg(test)]
pub fn statements() -> Vec<String> {
    let named = SqlFile::read(CHECKS, None, &[("p", &PREFIX)]);
    (1..=12)
        .map(|n| n.to_string())
        .chain(["replica".to_string()])
        .map(|n| named.statement(&n).unwrap().to_string())
        .collect()
}
