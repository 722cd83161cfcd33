//! One client's ODBC connection: statements prepared once on it and run with bound parameters,
//! rows fetched column by column by their SQL type (long values in parts, as `SQLGetData`
//! hands them), transactions by the connection's commit mode, and bulk loads as arrays of
//! parameters (the ODBC way to send many rows in one call).

use super::dbms::Dbms;
use crate::engine::kv::Conflict;
use crate::engine::sql::{
    insert_sql, Capabilities, Dialect, Prepared, Row, Rows, SqlConnection, SqlValue, Stmt, Visit,
};
use crate::results::redact::redact;
use anyhow::{anyhow, Result};
use odbc_api::handles::StatementConnection;
use odbc_api::parameter::InputParameter;
use odbc_api::{
    Connection, Cursor, CursorRow, DataType, Nullable, ResultSetMetadata, SharedConnection,
};
use std::io::Write;
use std::sync::{Arc, Mutex};

type Shared = SharedConnection<'static>;

/// INSERTs sent in one array of parameters: with `Dbms::rows_per_insert` rows in each, 1,000
/// rows a call where the DBMS takes 50 rows in an INSERT.
const INSERTS_PER_EXECUTE: usize = 20;

/// How a result column is read: by the C type its SQL type fits.
#[derive(Clone, Copy)]
enum Kind {
    Int,
    Float,
    Bytes,
    /// Narrow character data, read as bytes: text (a number when it reads as one) when they are
    /// UTF-8, else bytes. SQLite's driver reports a BLOB column it has not yet read as
    /// characters, and would hand its bytes back as hex if asked for text.
    Chars,
    /// Wide characters, decimals, dates: the driver's text for them.
    Text,
}

fn kind_of(t: DataType) -> Kind {
    match t {
        DataType::Integer
        | DataType::SmallInt
        | DataType::TinyInt
        | DataType::BigInt
        | DataType::Bit => Kind::Int,
        DataType::Real | DataType::Float { .. } | DataType::Double => Kind::Float,
        DataType::Binary { .. } | DataType::Varbinary { .. } | DataType::LongVarbinary { .. } => {
            Kind::Bytes
        }
        DataType::Char { .. } | DataType::Varchar { .. } | DataType::LongVarchar { .. } => {
            Kind::Chars
        }
        _ => Kind::Text,
    }
}

/// A statement prepared on the connection, with its result columns' kinds once known.
struct Statement {
    prepared: odbc_api::Prepared<StatementConnection<Shared>>,
    columns: Option<Vec<Kind>>,
}

pub struct OdbcConnection {
    conn: Shared,
    statements: Prepared<Statement>,
    dialect: Dialect,
    dbms: Dbms,
    /// Autocommit is off: set at the first `begin`, kept so each transaction costs no switch.
    manual_commit: bool,
    /// A transaction opened by `begin` is open.
    in_transaction: bool,
    /// Reused for each long value read in parts.
    buffer: Vec<u8>,
}

/// An ODBC error as one line: the driver's message and its SQLSTATE.
pub fn describe(e: &odbc_api::Error) -> String {
    match e {
        odbc_api::Error::Diagnostics { record, .. } => {
            let message = String::from_utf8_lossy(&record.message);
            let message = message.trim_end_matches('\0').trim();
            format!(
                "{message} (SQLSTATE {})",
                String::from_utf8_lossy(&record.state.0)
            )
        }
        other => other.to_string().replace('\n', " "),
    }
}

/// A lost conflict (serialization failure, deadlock, lock wait, busy database) becomes a
/// [`Conflict`] the caller retries; anything else an error naming what the driver said.
fn classify(e: odbc_api::Error) -> anyhow::Error {
    if let odbc_api::Error::Diagnostics { record, .. } = &e {
        let state = &record.state.0;
        let conflict = state == b"40001"
            || state == b"40P01"
            || matches!(record.native_error, 1205 | 1213)
            || String::from_utf8_lossy(&record.message).contains("database is locked");
        if conflict {
            return Conflict(describe(&e)).into();
        }
    }
    anyhow!(redact(&describe(&e)))
}

/// Reads the current row's columns into `out`, by their kinds.
fn read_row(row: &mut CursorRow, kinds: &[Kind], buf: &mut Vec<u8>, out: &mut Row) -> Result<()> {
    out.clear();
    for (i, kind) in kinds.iter().enumerate() {
        let col = i as u16 + 1;
        let value = match kind {
            Kind::Int => {
                let mut v = Nullable::<i64>::null();
                row.get_data(col, &mut v).map_err(classify)?;
                v.into_opt().map_or(SqlValue::Null, SqlValue::Int)
            }
            Kind::Float => {
                let mut v = Nullable::<f64>::null();
                row.get_data(col, &mut v).map_err(classify)?;
                v.into_opt().map_or(SqlValue::Null, SqlValue::Float)
            }
            Kind::Bytes => match row.get_binary(col, buf).map_err(classify)? {
                true => SqlValue::Bytes(buf.clone()),
                false => SqlValue::Null,
            },
            Kind::Chars => match row.get_binary(col, buf).map_err(classify)? {
                true => match std::str::from_utf8(buf) {
                    Ok(text) => SqlValue::from_text(text),
                    Err(_) => SqlValue::Bytes(buf.clone()),
                },
                false => SqlValue::Null,
            },
            Kind::Text => match row.get_text(col, buf).map_err(classify)? {
                true => SqlValue::from_text(&String::from_utf8_lossy(buf)),
                false => SqlValue::Null,
            },
        };
        out.push(value);
    }
    Ok(())
}

/// The kinds of a cursor's columns.
fn kinds(cursor: &mut impl ResultSetMetadata) -> Result<Vec<Kind>> {
    let n = cursor.num_result_cols().map_err(classify)?;
    (1..=n as u16)
        .map(|c| cursor.col_data_type(c).map(kind_of).map_err(classify))
        .collect()
}

/// Hands every row of `cursor` to `visit`; returns the number of rows.
fn drain(
    cursor: &mut impl Cursor,
    kinds: &[Kind],
    buf: &mut Vec<u8>,
    visit: &mut Visit,
) -> Result<u64> {
    let mut n = 0;
    let mut values = Row::new();
    while let Some(mut row) = cursor.next_row().map_err(classify)? {
        read_row(&mut row, kinds, buf, &mut values)?;
        visit(&mut values);
        n += 1;
    }
    Ok(n)
}

impl OdbcConnection {
    pub fn new(conn: Connection<'static>, dialect: Dialect, dbms: Dbms) -> Result<OdbcConnection> {
        Ok(OdbcConnection {
            conn: Arc::new(Mutex::new(conn)),
            statements: Prepared::default(),
            dialect,
            dbms,
            manual_commit: false,
            in_transaction: false,
            buffer: Vec::new(),
        })
    }

    pub fn dbms(&self) -> Dbms {
        self.dbms
    }

    fn connection(&self) -> std::sync::MutexGuard<'_, Connection<'static>> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `op` as its own transaction when autocommit is off and none is open: committed
    /// when it succeeds, rolled back when it fails.
    fn standalone<T>(&mut self, op: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let own = self.manual_commit && !self.in_transaction;
        let out = op(self);
        if own {
            self.end(&out)?;
        }
        out
    }

    /// Ends the open transaction as `outcome` says: committed when it succeeded, else rolled
    /// back.
    fn end<T>(&mut self, outcome: &Result<T>) -> Result<()> {
        match outcome {
            Ok(_) => self.commit(),
            Err(_) => self.rollback(),
        }
    }

    /// Runs `stmt` with `params`, handing rows (if it returns any) to `visit`; returns the rows
    /// returned, or the rows affected when it returns none.
    fn run(&mut self, stmt: Stmt, params: &[SqlValue], visit: &mut Visit) -> Result<u64> {
        let mut sources = super::params::sources(params);
        let mut bound = super::params::Bound::new(params, &mut sources);
        let entry = self.statements.get_mut(stmt)?;
        let buf = &mut self.buffer;
        if let Some(mut cursor) = entry.prepared.execute(&mut bound).map_err(classify)? {
            if entry.columns.is_none() {
                entry.columns = Some(kinds(&mut cursor)?);
            }
            let kinds = entry.columns.as_deref().unwrap_or_default();
            return drain(&mut cursor, kinds, buf, visit);
        }
        let affected = entry.prepared.row_count().map_err(classify)?;
        Ok(affected.unwrap_or(0) as u64)
    }
}

impl SqlConnection for OdbcConnection {
    fn dialect(&self) -> Dialect {
        self.dialect
    }
    fn statistics_dialect(&self) -> Dialect {
        match self.dbms {
            Dbms::Other => self.dialect,
            known => known.dialect(),
        }
    }
    /// Rows through `bulk_load` (prepared inserts); a server's load streams on a server, and
    /// MariaDB's InnoDB keeping rows in key order.
    fn capabilities(&self) -> Capabilities {
        match self.dbms.is_server() {
            true => Capabilities {
                clusters_by_key: self.dbms == Dbms::Mysql,
                ..Capabilities::server()
            },
            false => Capabilities::EMBEDDED,
        }
    }
    fn execute(&mut self, sql: &str) -> Result<u64> {
        self.standalone(|c| {
            let conn = c.connection();
            let mut statement = conn.preallocate().map_err(classify)?;
            // A statement that answers rows (a PRAGMA) has no count of rows affected.
            if statement.execute(sql, ()).map_err(classify)?.is_some() {
                return Ok(0);
            }
            Ok(statement.row_count().map_err(classify)?.unwrap_or(0) as u64)
        })
    }
    fn query(&mut self, sql: &str) -> Result<Vec<Row>> {
        self.standalone(|c| {
            let conn = c.connection();
            let mut rows = Vec::new();
            if let Some(mut cursor) = conn.execute(sql, (), None).map_err(classify)? {
                let kinds = kinds(&mut cursor)?;
                let mut buf = Vec::new();
                drain(&mut cursor, &kinds, &mut buf, &mut |r| {
                    rows.push(r.to_vec())
                })?;
            }
            Ok(rows)
        })
    }
    fn prepare(&mut self, sql: &str) -> Result<Stmt> {
        use odbc_api::ConnectionTransitions;
        let prepared = Arc::clone(&self.conn)
            .into_prepared(sql)
            .map_err(classify)?;
        Ok(self.statements.add(Statement {
            prepared,
            columns: None,
        }))
    }
    fn exec_prepared(&mut self, stmt: Stmt, params: &[SqlValue]) -> Result<u64> {
        self.standalone(|c| c.run(stmt, params, &mut |_| {}))
    }
    fn query_prepared(&mut self, stmt: Stmt, args: &[SqlValue], visit: &mut Visit) -> Result<u64> {
        self.standalone(|c| c.run(stmt, args, visit))
    }
    fn begin(&mut self) -> Result<()> {
        if self.dbms == Dbms::Sqlite {
            // SQLite's driver begins DEFERRED: two writers that both read first deadlock on the
            // lock upgrade, and one waits out the busy timeout. Take the write lock at BEGIN, as
            // hakari's own sqlite engine does, in autocommit mode so the driver adds no BEGIN.
            if self.manual_commit {
                self.connection().set_autocommit(true).map_err(classify)?;
                self.manual_commit = false;
            }
            self.execute("BEGIN IMMEDIATE")?;
            self.in_transaction = true;
            return Ok(());
        }
        if !self.manual_commit {
            self.connection().set_autocommit(false).map_err(classify)?;
            self.manual_commit = true;
        }
        self.in_transaction = true;
        Ok(())
    }
    fn commit(&mut self) -> Result<()> {
        self.in_transaction = false;
        if self.dbms == Dbms::Sqlite {
            return self.execute("COMMIT").map(|_| ());
        }
        self.connection().commit().map_err(classify)
    }
    fn rollback(&mut self) -> Result<()> {
        self.in_transaction = false;
        if self.dbms == Dbms::Sqlite {
            // A failed statement may have ended the transaction already: nothing to undo.
            return match self.execute("ROLLBACK") {
                Err(e) if e.to_string().contains("no transaction is active") => Ok(()),
                other => other.map(|_| ()),
            };
        }
        self.connection().rollback().map_err(classify)
    }
    /// Arrays of multi-row INSERTs with text parameters, 1,000 rows a call; in one
    /// transaction of its own unless the caller has one open (then autocommit again, so that
    /// a workload without transactions pays no commit per statement).
    fn bulk_load(&mut self, table: &str, columns: &[&str], rows: &mut Rows) -> Result<u64> {
        if self.in_transaction {
            return self.insert_arrays(table, columns, rows);
        }
        let was_manual = self.manual_commit;
        self.begin()?;
        let loaded = self.insert_arrays(table, columns, rows);
        self.end(&loaded)?;
        if !was_manual {
            self.connection().set_autocommit(true).map_err(classify)?;
            self.manual_commit = false;
        }
        loaded
    }
}

/// A value as the text a bulk insert binds (the DBMS converts it to the column's type).
fn as_text(v: &SqlValue, out: &mut Vec<u8>) -> bool {
    out.clear();
    match v {
        SqlValue::Null => return false,
        // Written into the reused buffer: nothing is allocated per cell.
        SqlValue::Int(i) => write!(out, "{i}").expect("writing to a Vec"),
        SqlValue::Float(f) => write!(out, "{f}").expect("writing to a Vec"),
        SqlValue::Text(t) => out.extend_from_slice(t.as_bytes()),
        SqlValue::Bytes(b) => out.extend_from_slice(b),
    }
    true
}

impl OdbcConnection {
    fn insert_arrays(&mut self, table: &str, columns: &[&str], rows: &mut Rows) -> Result<u64> {
        let mut rows = rows.peekable();
        // Binary values need binary parameters: those rows go one statement at a time.
        if let Some(first) = rows.peek() {
            if first.iter().any(|v| matches!(v, SqlValue::Bytes(_))) {
                let conn = self.connection();
                let sql = insert_sql(table, columns);
                let mut insert = conn.prepare(&sql).map_err(classify)?;
                let mut n = 0;
                for row in rows {
                    let bound: Vec<Box<dyn InputParameter>> =
                        row.iter().map(super::params::whole).collect();
                    insert.execute(&bound[..]).map_err(classify)?;
                    n += 1;
                }
                return Ok(n);
            }
        }
        let per_insert = self.dbms.rows_per_insert();
        let conn = self.connection();
        let mut full = TextInserts::new(&conn, table, columns, per_insert)?;
        let mut group: Vec<Row> = Vec::with_capacity(per_insert);
        let mut n = 0u64;
        for row in rows {
            group.push(row);
            if group.len() == per_insert {
                full.append(&group)?;
                n += group.len() as u64;
                group.clear();
            }
        }
        full.flush()?;
        if !group.is_empty() {
            // The last rows, fewer than a statement takes: a statement of their own.
            let mut rest = TextInserts::new(&conn, table, columns, group.len())?;
            rest.append(&group)?;
            rest.flush()?;
            n += group.len() as u64;
        }
        Ok(n)
    }
}

/// A prepared multi-row INSERT (`VALUES (?, ..), (?, ..)`, `rows` rows a statement) with text
/// parameter arrays of `INSERTS_PER_EXECUTE` statements bound to it: a driver that sends the
/// elements of an array one by one (PostgreSQL's) still sends `rows` rows in each.
struct TextInserts<'c> {
    inserter: odbc_api::ColumnarBulkInserter<
        odbc_api::handles::StatementImpl<'c>,
        odbc_api::buffers::TextColumn<u8>,
    >,
    cells: Vec<Vec<u8>>,
    present: Vec<bool>,
}

impl<'c> TextInserts<'c> {
    fn new(
        conn: &'c Connection<'static>,
        table: &str,
        columns: &[&str],
        rows: usize,
    ) -> Result<TextInserts<'c>> {
        let one = format!("({})", vec!["?"; columns.len()].join(", "));
        let sql = format!(
            "INSERT INTO {table} ({}) VALUES {}",
            columns.join(", "),
            vec![one; rows].join(", ")
        );
        let cells = columns.len() * rows;
        let inserter = (conn.prepare(&sql).map_err(classify)?)
            .into_text_inserter(INSERTS_PER_EXECUTE, vec![16; cells])
            .map_err(classify)?;
        Ok(TextInserts {
            inserter,
            cells: vec![Vec::new(); cells],
            present: vec![false; cells],
        })
    }

    /// Adds one statement's rows (exactly the `rows` it was made for), sending a full array.
    fn append(&mut self, group: &[Row]) -> Result<()> {
        for (i, v) in group.iter().flatten().enumerate() {
            self.present[i] = as_text(v, &mut self.cells[i]);
        }
        let cells = (self.cells.iter().zip(&self.present)).map(|(c, &p)| p.then_some(c.as_slice()));
        self.inserter.append(cells).map_err(classify)?;
        if self.inserter.num_rows() == INSERTS_PER_EXECUTE {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.inserter.num_rows() > 0 {
            self.inserter.execute().map_err(classify)?;
            self.inserter.clear();
        }
        Ok(())
    }
}
