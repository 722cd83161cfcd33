//! For the statement snapshot test only: a SQL database and connection that run nothing and
//! write down every statement a workload sends, so that moving SQL from Rust strings into files
//! can be shown to leave every statement as it was. It stands in for no engine in any test of
//! a workload's behaviour: those run on real engines.

use crate::engine::sql::{
    Capabilities, Dialect, Lines, Row, Rows, SqlConnection, SqlDatabase, SqlValue, Stmt, Visit,
};
use anyhow::Result;
use std::sync::{Arc, Mutex};

/// The log, shared by the database and every connection made from it.
#[derive(Clone)]
pub struct StatementLog {
    lines: Arc<Mutex<Vec<String>>>,
    prepared: Arc<Mutex<Vec<String>>>,
    /// The dialect its connections say they speak.
    pub dialect: Dialect,
}

impl Default for StatementLog {
    fn default() -> Self {
        StatementLog {
            lines: Arc::default(),
            prepared: Arc::default(),
            dialect: Dialect::Sqlite,
        }
    }
}

impl StatementLog {
    pub fn note(&self, line: impl Into<String>) {
        self.lines.lock().unwrap().push(line.into());
    }

    /// Notes `line` and answers `value`.
    fn noted<T>(&self, line: &str, value: T) -> Result<T> {
        self.note(line);
        Ok(value)
    }

    /// Everything written down so far, a line per statement, and the log emptied.
    /// Notes a delimited load of `lines` into `table`; returns the lines.
    fn loaded(&self, what: &str, table: &str, columns: &[&str], lines: Lines) -> Result<u64> {
        let n = lines.map(|batch| batch.lines().count() as u64).sum();
        self.note(format!(
            "{what}: {table} ({}) {n} lines",
            columns.join(", ")
        ));
        Ok(n)
    }

    pub fn take(&self) -> String {
        let mut lines = self.lines.lock().unwrap();
        let text = lines.join("\n");
        lines.clear();
        text + "\n"
    }

    fn describe(values: &[SqlValue]) -> String {
        values
            .iter()
            .map(|v| match v {
                SqlValue::Int(i) => i.to_string(),
                SqlValue::Float(f) => format!("{f}"),
                SqlValue::Text(t) if t.len() > 24 => format!("text({})", t.len()),
                SqlValue::Text(t) => format!("'{t}'"),
                SqlValue::Bytes(b) => format!("bytes({})", b.len()),
                SqlValue::Null => "NULL".into(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl SqlDatabase for StatementLog {
    fn connect(&self) -> Result<Box<dyn SqlConnection>> {
        Ok(Box::new(self.clone()))
    }
    fn version(&self) -> String {
        "log".into()
    }
    fn settings(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    fn close(self: Box<Self>) -> Result<()> {
        Ok(())
    }
}

impl SqlConnection for StatementLog {
    fn dialect(&self) -> Dialect {
        self.dialect
    }
    fn execute(&mut self, sql: &str) -> Result<u64> {
        self.noted(&format!("execute: {sql}"), 1)
    }
    fn query(&mut self, sql: &str) -> Result<Vec<Row>> {
        self.noted(&format!("query: {sql}"), Vec::new())
    }
    fn prepare(&mut self, sql: &str) -> Result<Stmt> {
        self.note(format!("prepare: {sql}"));
        let mut prepared = self.prepared.lock().unwrap();
        prepared.push(sql.to_string());
        Ok(Stmt(prepared.len() - 1))
    }
    fn exec_prepared(&mut self, stmt: Stmt, params: &[SqlValue]) -> Result<u64> {
        let sql = self.prepared.lock().unwrap()[stmt.0].clone();
        self.note(format!("exec: {sql} <- {}", Self::describe(params)));
        Ok(1)
    }
    fn query_prepared(&mut self, stmt: Stmt, args: &[SqlValue], _visit: &mut Visit) -> Result<u64> {
        let sql = self.prepared.lock().unwrap()[stmt.0].clone();
        self.note(format!("query: {sql} <- {}", Self::describe(args)));
        Ok(0)
    }
    fn begin(&mut self) -> Result<()> {
        self.noted("begin", ())
    }
    fn commit(&mut self) -> Result<()> {
        self.noted("commit", ())
    }
    fn rollback(&mut self) -> Result<()> {
        self.noted("rollback", ())
    }
    fn bulk_load(&mut self, table: &str, columns: &[&str], rows: &mut Rows) -> Result<u64> {
        let n = rows.count() as u64;
        self.note(format!(
            "bulk load: {table} ({}) {n} rows",
            columns.join(", ")
        ));
        Ok(n)
    }
    /// As the engine of this dialect declares them (COPY, LOAD DATA, DuckDB's CSV reader),
    /// with no Arrow path: the log shows statements.
    fn capabilities(&self) -> Capabilities {
        let server = matches!(self.dialect, Dialect::Postgres | Dialect::Mysql);
        Capabilities {
            delimited: server || self.dialect == Dialect::Duckdb,
            frozen_refill: self.dialect == Dialect::Postgres,
            pads_char: server,
            clusters_by_key: self.dialect == Dialect::Mysql,
            ..if server {
                Capabilities::server()
            } else {
                Capabilities::EMBEDDED
            }
        }
    }
    fn bulk_load_delimited(&mut self, table: &str, columns: &[&str], lines: Lines) -> Result<u64> {
        self.loaded("bulk load delimited", table, columns, lines)
    }
    fn refill_delimited(&mut self, table: &str, columns: &[&str], lines: Lines) -> Result<u64> {
        self.loaded("refill", table, columns, lines)
    }
}

/// Every dialect, in the order the snapshot lists them.
pub const DIALECTS: [Dialect; 7] = Dialect::ALL;
