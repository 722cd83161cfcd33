//! A connection through PostgreSQL's own client library, libpq, as pgbench and sysbench's
//! `pgsql` driver make theirs: the tools' clients run on it ([`SqlDatabase::connect_tool`]),
//! so that their client costs what the tool's own costs. libpq reads the URL, the environment
//! (`PGPASSWORD`, `PGSSLMODE`, ...), `~/.pgpass` and service files itself. Values go as text
//! (bytes in binary) and come back as text, typed by the column's type. Each command is sent,
//! then its answer awaited through `measure::multiplex`, so that several clients can share a
//! thread as pgbench's `-j` threads share theirs.
//!
//! [`SqlDatabase::connect_tool`]: crate::engine::sql::SqlDatabase::connect_tool

use super::copy::{copy_row, delimited_copy, without_line_end_delimiters};
use super::{by_state, numbered_placeholders, pipeline_text, server_error};
use crate::engine::sql::{
    Capabilities, Dialect, Kept, Lines, Prepared, Row, Rows, SqlConnection, SqlValue, Stmt, Visit,
};
use crate::measure::fault::ConnectionLost;
use crate::measure::multiplex;
use crate::results::redact::redact;
use anyhow::{anyhow, bail, Result};
use pq_sys as pq;
use pq_sys::ExecStatusType as Exec;
use result::{each_row, string, Res};
use std::ffi::{c_char, c_int, c_void, CString};

mod result;

/// libpq's connection, finished when dropped.
struct Conn(*mut pq::PGconn);

// SAFETY: libpq allows a connection to move between threads; one thread uses it at a time.
unsafe impl Send for Conn {}

impl Drop for Conn {
    fn drop(&mut self) {
        // SAFETY: the pointer came from PQconnectdb and is finished once.
        unsafe { pq::PQfinish(self.0) }
    }
}

/// Parameters as libpq takes them: pointers, lengths and formats (0 text, 1 binary). Kept
/// with the connection so that a statement's execution allocates nothing; written anew before
/// each call.
#[derive(Default)]
struct Params {
    values: Vec<*const c_char>,
    lengths: Vec<c_int>,
    formats: Vec<c_int>,
}

// SAFETY: the pointers are read only by the libpq call made right after they were written, on
// the thread that owns the connection; between calls they are not read.
unsafe impl Send for Params {}

pub struct Connection {
    conn: Conn,
    statements: Prepared<Statement>,
    capabilities: Capabilities,
    /// Each parameter's text, NUL-ended as libpq takes it (kept to reuse its buffers).
    texts: Vec<Vec<u8>>,
    params: Params,
    /// Its waits for its socket, on a thread shared or not.
    watch: multiplex::Watch,
    /// The row being read, its text values' allocations kept between statements.
    row: Row,
}

/// A statement prepared on the server under `name`; its columns' names asked once, when needed.
struct Statement {
    name: CString,
    columns: Option<Vec<String>>,
}

/// libpq prints the server's notices on standard error; hakari's runs keep them out of their
/// output, as sysbench's driver does.
unsafe extern "C" fn quiet(_: *mut c_void, _: *const c_char) {}

/// `text` for libpq (which reads up to a NUL).
fn c_text(text: &str) -> Result<CString> {
    CString::new(text).map_err(|_| anyhow!("a statement with a NUL character in it"))
}

impl Connection {
    /// Connects to `url` and runs `setup` (the session's settings) there.
    pub fn open(url: &str, setup: &str, capabilities: Capabilities) -> Result<Connection> {
        let target = c_text(url)?;
        // SAFETY: PQconnectdb takes a NUL-ended string and gives a connection to finish.
        let conn = Conn(unsafe { pq::PQconnectdb(target.as_ptr()) });
        if conn.0.is_null() || unsafe { pq::PQstatus(conn.0) } == pq::ConnStatusType::CONNECTION_BAD
        {
            let said = string(unsafe { pq::PQerrorMessage(conn.0) }).unwrap_or_default();
            bail!(
                "cannot connect to PostgreSQL at {} (libpq): {}",
                redact(url),
                said.trim_end()
            );
        }
        // SAFETY: `quiet` keeps no state and ignores its arguments.
        unsafe { pq::PQsetNoticeProcessor(conn.0, Some(quiet), std::ptr::null_mut()) };
        let mut c = Connection {
            conn,
            statements: Prepared::default(),
            capabilities,
            texts: Vec::new(),
            params: Params::default(),
            watch: multiplex::Watch::new(),
            row: Row::new(),
        };
        c.execute(setup)?;
        Ok(c)
    }

    /// The result when it is not an error, else the error as hakari's other PostgreSQL
    /// connection classifies it (a conflict, a lost connection, the server's error).
    fn checked(&self, result: Res) -> Result<Res> {
        match result.status() {
            Exec::PGRES_COMMAND_OK
            | Exec::PGRES_TUPLES_OK
            | Exec::PGRES_EMPTY_QUERY
            | Exec::PGRES_COPY_IN => Ok(result),
            _ => Err(self.error(&result)),
        }
    }

    fn error(&self, result: &Res) -> anyhow::Error {
        // SAFETY: the connection is live.
        let lost = unsafe { pq::PQstatus(self.conn.0) } == pq::ConnStatusType::CONNECTION_BAD;
        let Some(state) = result.field(pq::PG_DIAG_SQLSTATE) else {
            let said = string(unsafe { pq::PQresultErrorMessage(result.0) })
                .filter(|s| !s.is_empty())
                .or_else(|| string(unsafe { pq::PQerrorMessage(self.conn.0) }))
                .unwrap_or_else(|| "no result from the server".into());
            let e = anyhow!("{}", said.trim_end());
            return if lost { e.context(ConnectionLost) } else { e };
        };
        let message = result
            .field(pq::PG_DIAG_MESSAGE_PRIMARY)
            .unwrap_or_default();
        let more = [
            pq::PG_DIAG_MESSAGE_DETAIL,
            pq::PG_DIAG_MESSAGE_HINT,
            pq::PG_DIAG_CONTEXT,
        ]
        .map(|f| result.field(f));
        by_state(
            server_error(state, message, more),
            |s| s.message.clone(),
            lost,
        )
    }

    /// `values` into `p` as libpq takes them: text, NUL-ended, in buffers kept between calls;
    /// bytes as they are, in binary (for `bytea` the raw bytes, for text its bytes). The
    /// pointers live as long as `texts` and `values` are untouched.
    fn params(texts: &mut Vec<Vec<u8>>, p: &mut Params, values: &[SqlValue]) {
        if texts.len() < values.len() {
            texts.resize_with(values.len(), Vec::new);
        }
        p.values.clear();
        p.lengths.clear();
        p.formats.clear();
        for (buf, v) in texts.iter_mut().zip(values) {
            buf.clear();
            match v {
                // The most common parameter, written without the formatting machinery.
                SqlValue::Int(i) => {
                    buf.extend_from_slice(itoa::Buffer::new().format(*i).as_bytes())
                }
                SqlValue::Float(f) => buf.extend_from_slice(format!("{f:?}").as_bytes()),
                SqlValue::Text(t) => buf.extend_from_slice(t.as_bytes()),
                SqlValue::Null | SqlValue::Bytes(_) => {}
            }
            buf.push(0);
            let (at, len, format) = match v {
                SqlValue::Null => (std::ptr::null(), 0, 0),
                SqlValue::Bytes(b) => (b.as_ptr(), b.len(), 1),
                _ => (buf.as_ptr(), buf.len() - 1, 0),
            };
            p.values.push(at as *const c_char);
            p.lengths.push(len as c_int);
            p.formats.push(format);
        }
    }

    /// Runs a prepared statement, its result in text (`binary` false) or in the server's
    /// binary form of each type.
    fn run(&mut self, stmt: Stmt, values: &[SqlValue], binary: bool) -> Result<Res> {
        let name = self.statements.get(stmt)?.name.as_ptr();
        Self::params(&mut self.texts, &mut self.params, values);
        let p = &self.params;
        // SAFETY: the name and the parameters' buffers outlive the call; the counts match.
        let sent = unsafe {
            pq::PQsendQueryPrepared(
                self.conn.0,
                name,
                p.values.len() as c_int,
                p.values.as_ptr(),
                p.lengths.as_ptr(),
                p.formats.as_ptr(),
                binary.into(),
            )
        };
        self.checked(self.answer(sent))
    }

    /// `sql` through the simple protocol: one round trip, as pgbench's simple mode.
    fn exec(&self, sql: &str) -> Result<Res> {
        let sql = c_text(sql)?;
        // SAFETY: the connection is live and the text NUL-ended.
        let sent = unsafe { pq::PQsendQuery(self.conn.0, sql.as_ptr()) };
        self.checked(self.answer(sent))
    }

    /// The answer to what was just sent (`sent`: what the PQsend call returned) as PQexec
    /// gives it (the last result, or the first error; a COPY's start), waiting through its
    /// watch: a client that shares its thread gives way to the others while the server works.
    /// A null result when nothing was sent or nothing came.
    fn answer(&self, sent: c_int) -> Res {
        let conn = self.conn.0;
        let mut kept: Option<Res> = None;
        if sent == 1 {
            let shared = multiplex::shared();
            loop {
                // A client alone on its thread waits before it reads, as PQexec does. One
                // that shares its thread reads first, as pgbench's clients do: where its
                // backend shares its core, the backend often runs and answers the moment the
                // statement is sent, and a client that finds its answer goes on at once,
                // keeping that pair on its core, rather than giving way to the thread's other
                // clients, whose backends the other core may hold (`bench/README.md`). A lost
                // connection: PQgetResult reports it.
                // SAFETY (each call): the connection is live; libpq reads its socket itself.
                let mut read_first = shared;
                while unsafe { pq::PQisBusy(conn) } != 0 {
                    if !read_first {
                        let socket = unsafe { pq::PQsocket(conn) };
                        if socket < 0 {
                            break;
                        }
                        self.watch.readable(socket);
                    }
                    read_first = false;
                    if unsafe { pq::PQconsumeInput(conn) } == 0 {
                        break;
                    }
                }
                let next = Res(unsafe { pq::PQgetResult(conn) });
                if next.0.is_null() {
                    break;
                }
                let copying = matches!(
                    next.status(),
                    Exec::PGRES_COPY_IN | Exec::PGRES_COPY_OUT | Exec::PGRES_COPY_BOTH
                );
                if !kept.as_ref().is_some_and(Res::failed) {
                    kept = Some(next);
                }
                let lost = unsafe { pq::PQstatus(conn) } == pq::ConnStatusType::CONNECTION_BAD;
                if copying || lost {
                    break;
                }
            }
        }
        kept.unwrap_or(Res(std::ptr::null_mut()))
    }
}

impl SqlConnection for Connection {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }
    fn execute(&mut self, sql: &str) -> Result<u64> {
        Ok(self.exec(sql)?.count())
    }
    fn query(&mut self, sql: &str) -> Result<Vec<Row>> {
        let result = self.exec(sql)?;
        let value = |r, i| match result.value(r, i) {
            None => SqlValue::Null,
            Some(t) => SqlValue::from_text(&String::from_utf8_lossy(t)),
        };
        let columns = result.columns();
        Ok((0..result.rows())
            .map(|r| (0..columns).map(|i| value(r, i)).collect())
            .collect())
    }
    fn prepare(&mut self, sql: &str) -> Result<Stmt> {
        let name = c_text(&format!("hakari_{}", self.statements.count()))?;
        let sql = c_text(&numbered_placeholders(sql))?;
        // SAFETY: the connection is live and both texts NUL-ended; no types given.
        let sent = unsafe {
            pq::PQsendPrepare(
                self.conn.0,
                name.as_ptr(),
                sql.as_ptr(),
                0,
                std::ptr::null(),
            )
        };
        self.checked(self.answer(sent))?;
        Ok(self.statements.add(Statement {
            name,
            columns: None,
        }))
    }
    fn exec_prepared(&mut self, stmt: Stmt, params: &[SqlValue]) -> Result<u64> {
        Ok(self.run(stmt, params, false)?.count())
    }
    fn query_prepared(&mut self, stmt: Stmt, args: &[SqlValue], visit: &mut Visit) -> Result<u64> {
        let result = self.run(stmt, args, false)?;
        each_row(&result, &mut self.row, visit)
    }
    /// The rows left unread, as pgbench clears a result it does not store.
    fn run_prepared(&mut self, stmt: Stmt, args: &[SqlValue]) -> Result<u64> {
        Ok(self.run(stmt, args, false)?.rows() as u64)
    }
    /// In binary, as sysbench's PostgreSQL driver asks for a prepared statement's result.
    fn query_prepared_kept(&mut self, stmt: Stmt, args: &[SqlValue]) -> Result<Box<dyn Kept>> {
        Ok(Box::new(self.run(stmt, args, true)?))
    }
    fn query_kept(&mut self, sql: &str) -> Result<Box<dyn Kept>> {
        Ok(Box::new(self.exec(sql)?))
    }
    fn query_unnamed(&mut self, sql: &str, params: &[SqlValue], visit: &mut Visit) -> Result<u64> {
        // Every value as text of a type the server infers, as pgbench's -M extended sends it.
        let sql = c_text(&numbered_placeholders(sql))?;
        Self::params(&mut self.texts, &mut self.params, params);
        let p = &self.params;
        // SAFETY: the text and the parameters' buffers outlive the call; the counts match.
        let sent = unsafe {
            pq::PQsendQueryParams(
                self.conn.0,
                sql.as_ptr(),
                p.values.len() as c_int,
                std::ptr::null(),
                p.values.as_ptr(),
                p.lengths.as_ptr(),
                p.formats.as_ptr(),
                0,
            )
        };
        let result = self.checked(self.answer(sent))?;
        each_row(&result, &mut self.row, visit)?;
        Ok(result.count())
    }
    fn columns(&mut self, stmt: Stmt) -> Result<Vec<String>> {
        let statement = self.statements.get(stmt)?;
        if let Some(columns) = &statement.columns {
            return Ok(columns.clone());
        }
        // SAFETY: the connection is live and the name NUL-ended.
        let sent = unsafe { pq::PQsendDescribePrepared(self.conn.0, statement.name.as_ptr()) };
        let described = self.checked(self.answer(sent))?;
        let columns: Vec<String> = (0..described.columns())
            .map(|i| described.column_name(i))
            .collect();
        self.statements.get_mut(stmt)?.columns = Some(columns.clone());
        Ok(columns)
    }
    fn begin(&mut self) -> Result<()> {
        self.exec("BEGIN").map(drop)
    }
    fn commit(&mut self) -> Result<()> {
        self.exec("COMMIT").map(drop)
    }
    fn rollback(&mut self) -> Result<()> {
        self.exec("ROLLBACK").map(drop)
    }
    fn capabilities(&self) -> Capabilities {
        self.capabilities
    }
    /// The batch as one simple-protocol query string, as the other PostgreSQL connection sends
    /// it.
    fn send_pipeline(&mut self, batch: &[(String, Vec<SqlValue>)]) -> Result<()> {
        self.exec(&pipeline_text(batch)?).map(drop)
    }
    /// COPY ... FROM STDIN in text format.
    fn bulk_load(&mut self, table: &str, columns: &[&str], rows: &mut Rows) -> Result<u64> {
        let sql = format!("COPY {table} ({}) FROM STDIN", columns.join(", "));
        self.copy_in(&sql, rows, copy_row)
    }
    fn bulk_load_delimited(&mut self, table: &str, columns: &[&str], lines: Lines) -> Result<u64> {
        let sql = delimited_copy(table, columns, "");
        self.copy_in(&sql, lines, |batch, buf| {
            without_line_end_delimiters(batch.as_bytes(), buf)
        })
    }
    /// TRUNCATE, then COPY ... FREEZE, in one transaction, as the other PostgreSQL connection.
    fn refill_delimited(&mut self, table: &str, columns: &[&str], lines: Lines) -> Result<u64> {
        self.begin()?;
        let sql = delimited_copy(table, columns, ", FREEZE");
        let loaded = (self.execute(&format!("TRUNCATE {table}"))).and_then(|_| {
            self.copy_in(&sql, lines, |batch, buf| {
                without_line_end_delimiters(batch.as_bytes(), buf)
            })
        });
        match loaded {
            Ok(n) => self.commit().map(|()| n),
            Err(e) => {
                let _ = self.rollback();
                Err(e)
            }
        }
    }
}

impl Connection {
    /// Runs a COPY ... FROM STDIN, `write` putting each item into the buffer (and saying how
    /// many rows it held); the buffer goes to the server in pieces of about 64 KiB.
    fn copy_in<T>(
        &mut self,
        sql: &str,
        items: impl Iterator<Item = T>,
        mut write: impl FnMut(T, &mut Vec<u8>) -> u64,
    ) -> Result<u64> {
        self.exec(sql)?;
        let conn = self.conn.0;
        let said = || string(unsafe { pq::PQerrorMessage(conn) }).unwrap_or_default();
        // SAFETY: the connection is live and in COPY IN; the buffer outlives the call.
        let put = |buf: &[u8]| match unsafe {
            pq::PQputCopyData(conn, buf.as_ptr() as *const c_char, buf.len() as c_int)
        } {
            1 => Ok(()),
            _ => Err(anyhow!("{sql}: {}", said().trim_end())),
        };
        let (mut buf, mut n) = (Vec::with_capacity(1 << 17), 0);
        for item in items {
            n += write(item, &mut buf);
            if buf.len() >= 1 << 16 {
                put(&buf)?;
                buf.clear();
            }
        }
        put(&buf)?;
        // SAFETY: as above; then each result of the COPY is read and cleared.
        if unsafe { pq::PQputCopyEnd(conn, std::ptr::null()) } != 1 {
            bail!("{sql}: {}", said().trim_end());
        }
        loop {
            let result = Res(unsafe { pq::PQgetResult(conn) });
            if result.0.is_null() {
                return Ok(n);
            }
            self.checked(result)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn parameters_are_text_and_bytes_binary() {
        let mut texts = Vec::new();
        let values = [
            SqlValue::Int(7),
            SqlValue::Null,
            SqlValue::Bytes(vec![1, 2]),
            SqlValue::Text("ab".into()),
        ];
        let mut p = Params::default();
        Connection::params(&mut texts, &mut p, &values);
        assert_eq!(p.lengths, [1, 0, 2, 2]);
        assert_eq!(p.formats, [0, 0, 1, 0]);
        assert!(p.values[1].is_null());
        // SAFETY: the texts are NUL-ended and live in `texts`.
        let first = unsafe { CStr::from_ptr(p.values[0]) };
        assert_eq!(first.to_str().unwrap(), "7");
    }
}
