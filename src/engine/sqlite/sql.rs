//! `sqlite` as a SQL engine: a database file in the run's own directory (always hakari's own).

use super::{classify, Keeper};
use crate::durability::Durability;
use crate::engine::sql::{
    Capabilities, Dialect, Prepared, Row, Rows, SqlConnection, SqlDatabase, SqlEngine, SqlOptions,
    SqlValue, Stmt, Visit,
};
use anyhow::{Context, Result};
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, OpenFlags};
use std::time::Duration;

pub struct SqliteSql;

impl SqlEngine for SqliteSql {
    fn dialect(&self) -> Option<Dialect> {
        Some(Dialect::Sqlite)
    }
    fn mapping(&self, level: Durability) -> std::result::Result<String, String> {
        super::mapping(level)
    }
    fn open(&self, options: &SqlOptions) -> Result<Box<dyn SqlDatabase>> {
        if options.url.is_some() {
            anyhow::bail!("sqlite is embedded: it takes no --url (use --data-dir to choose where its file goes)");
        }
        let (uri, flags) = super::location(&options.dir, "sql.sqlite", options.durability);
        let mut db = SqliteDatabase {
            uri,
            flags,
            durability: options.durability,
            cache_bytes: options.cache_bytes,
            keeper: Keeper::default(),
        };
        db.keeper = Keeper::new(db.open_connection()?);
        Ok(Box::new(db))
    }
}

struct SqliteDatabase {
    uri: String,
    flags: OpenFlags,
    durability: Durability,
    cache_bytes: u64,
    keeper: Keeper,
}

impl SqliteDatabase {
    fn open_connection(&self) -> Result<Connection> {
        let conn = Connection::open_with_flags(&self.uri, self.flags)
            .with_context(|| format!("cannot open SQLite database {}", self.uri))?;
        conn.busy_timeout(Duration::from_secs(60))?;
        conn.execute_batch(super::pragmas(self.durability))?;
        if self.cache_bytes > 0 {
            conn.pragma_update(None, "cache_size", -((self.cache_bytes / 1024) as i64))?;
        }
        conn.set_prepared_statement_cache_capacity(256);
        Ok(conn)
    }
}

impl SqlDatabase for SqliteDatabase {
    fn connect(&self) -> Result<Box<dyn SqlConnection>> {
        Ok(Box::new(SqliteConnection {
            conn: self.open_connection()?,
            statements: Prepared::default(),
        }))
    }
    fn version(&self) -> String {
        rusqlite::version().to_string()
    }
    fn settings(&self) -> Vec<(String, String)> {
        self.keeper.settings()
    }
    fn close(self: Box<Self>) -> Result<()> {
        self.keeper.close()
    }
}

pub struct SqliteConnection {
    conn: Connection,
    statements: Prepared<String>,
}

fn to_value(v: &SqlValue) -> Value {
    match v {
        SqlValue::Null => Value::Null,
        SqlValue::Int(i) => Value::Integer(*i),
        SqlValue::Float(f) => Value::Real(*f),
        SqlValue::Text(s) => Value::Text(s.clone()),
        SqlValue::Bytes(b) => Value::Blob(b.clone()),
    }
}

fn from_ref(v: ValueRef<'_>) -> SqlValue {
    match v {
        ValueRef::Null => SqlValue::Null,
        ValueRef::Integer(i) => SqlValue::Int(i),
        ValueRef::Real(f) => SqlValue::Float(f),
        ValueRef::Text(t) => SqlValue::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => SqlValue::Bytes(b.to_vec()),
    }
}

impl SqlConnection for SqliteConnection {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::EMBEDDED
    }
    fn execute(&mut self, sql: &str) -> Result<u64> {
        let before = self.conn.total_changes();
        self.conn.execute_batch(sql).map_err(classify)?;
        Ok(self.conn.total_changes().saturating_sub(before))
    }
    fn query(&mut self, sql: &str) -> Result<Vec<Row>> {
        let mut stmt = self.conn.prepare(sql).map_err(classify)?;
        let columns = stmt.column_count();
        let mut rows = stmt.query([]).map_err(classify)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(classify)? {
            out.push(
                (0..columns)
                    .map(|i| from_ref(row.get_ref_unwrap(i)))
                    .collect(),
            );
        }
        Ok(out)
    }
    fn prepare(&mut self, sql: &str) -> Result<Stmt> {
        // Prepare once now so that a syntax error shows here, not at first use.
        self.conn.prepare_cached(sql).map_err(classify)?;
        Ok(self.statements.add(sql.to_string()))
    }
    fn exec_prepared(&mut self, stmt: Stmt, params: &[SqlValue]) -> Result<u64> {
        let sql = self.statements.get(stmt)?.to_string();
        let mut s = self.conn.prepare_cached(&sql).map_err(classify)?;
        let values: Vec<Value> = params.iter().map(to_value).collect();
        let n = s
            .execute(rusqlite::params_from_iter(values))
            .map_err(classify)?;
        Ok(n as u64)
    }
    fn query_prepared(&mut self, stmt: Stmt, args: &[SqlValue], visit: &mut Visit) -> Result<u64> {
        let sql = self.statements.get(stmt)?.to_string();
        let mut s = self.conn.prepare_cached(&sql).map_err(classify)?;
        let columns = s.column_count();
        let values: Vec<Value> = args.iter().map(to_value).collect();
        let mut rows = s
            .query(rusqlite::params_from_iter(values))
            .map_err(classify)?;
        let mut row_buf: Vec<SqlValue> = Vec::with_capacity(columns);
        let mut n = 0;
        while let Some(row) = rows.next().map_err(classify)? {
            row_buf.clear();
            row_buf.extend((0..columns).map(|i| from_ref(row.get_ref_unwrap(i))));
            visit(&mut row_buf);
            n += 1;
        }
        Ok(n)
    }
    fn columns(&mut self, stmt: Stmt) -> Result<Vec<String>> {
        let sql = self.statements.get(stmt)?.to_string();
        let s = self.conn.prepare_cached(&sql).map_err(classify)?;
        Ok(s.column_names().into_iter().map(String::from).collect())
    }
    fn begin(&mut self) -> Result<()> {
        // IMMEDIATE takes the write lock up front, so two writers never deadlock on an upgrade.
        self.conn
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(classify)?;
        Ok(())
    }
    fn commit(&mut self) -> Result<()> {
        self.conn.execute_batch("COMMIT").map_err(classify)?;
        Ok(())
    }
    fn rollback(&mut self) -> Result<()> {
        if !self.conn.is_autocommit() {
            self.conn.execute_batch("ROLLBACK").map_err(classify)?;
        }
        Ok(())
    }
    /// One transaction of prepared inserts: SQLite's fast path (the caller's, when one is open).
    fn bulk_load(&mut self, table: &str, columns: &[&str], rows: &mut Rows) -> Result<u64> {
        let sql = crate::engine::sql::insert_sql(table, columns);
        // Inside the caller's transaction when one is open; else in a transaction of its own.
        let own = self.conn.is_autocommit();
        if own {
            self.conn.execute_batch("BEGIN").map_err(classify)?;
        }
        let insert = || -> Result<u64> {
            let mut n = 0;
            let mut stmt = self.conn.prepare(&sql).map_err(classify)?;
            for row in rows {
                let values: Vec<Value> = row.iter().map(to_value).collect();
                stmt.execute(rusqlite::params_from_iter(values))
                    .map_err(classify)?;
                n += 1;
            }
            Ok(n)
        };
        let outcome = insert();
        if own {
            match &outcome {
                Ok(_) => self.conn.execute_batch("COMMIT").map_err(classify)?,
                Err(_) => {
                    let _ = self.conn.execute_batch("ROLLBACK");
                }
            }
        }
        outcome
    }
}
