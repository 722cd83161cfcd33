//! A connection through MariaDB's own client library (Connector/C, libmariadb), as sysbench's
//! `mysql` driver makes its: the tools' clients run on it ([`SqlDatabase::connect_tool`]) so
//! that their client costs what the tool's own costs (the `mysql` crate builds a value per
//! column and reads every statement's column definitions again at each execution). Prepared
//! statements go through the binary protocol with parameters bound in place and results fetched
//! row by row into buffers kept with the statement; plain statements through the text protocol.
//! It carries plaintext connections to one server: TLS and clusters stay with the crate.
//!
//! [`SqlDatabase::connect_tool`]: crate::engine::sql::SqlDatabase::connect_tool

use super::binds::{fetch_of, text_value, Fetch, Inputs, Outputs};
use super::{insert_rows, server_error};
use crate::engine::sql::{
    Capabilities, Dialect, Kept, Prepared, Row, Rows, SqlConnection, SqlValue,
};
use crate::engine::sql::{Stmt, Visit};
use crate::results::redact::redact;
use anyhow::{anyhow, Result};
use mysqlclient_sys as my;
use std::borrow::Cow;
use std::ffi::{c_char, c_uint, c_ulong, CStr, CString};

/// The first size of a text column's buffer; a longer value grows it.
const TEXT_BUFFER: usize = 256;

/// The library's connection handle, closed when dropped.
struct Handle(*mut my::MYSQL);

// SAFETY: a handle may move between threads; one thread uses it at a time (Connector/C's rule).
unsafe impl Send for Handle {}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: the handle came from mysql_init and is closed once.
        unsafe { my::mysql_close(self.0) }
    }
}

/// A C string the library gave: empty for null.
fn text(s: *const c_char) -> String {
    if s.is_null() {
        return String::new();
    }
    // SAFETY: the library gives NUL-ended strings that outlive this call.
    unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
}

fn c_text(s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| anyhow!("a MySQL statement or setting holds a NUL byte"))
}

/// A text query's rows stored in the library, each value as the server sent it; freed when
/// dropped.
struct Stored {
    result: *mut my::MYSQL_RES,
    columns: usize,
    /// Each row's values and their lengths (the values live as long as the result).
    rows: Vec<(my::MYSQL_ROW, Vec<c_ulong>)>,
}

impl Drop for Stored {
    fn drop(&mut self) {
        // SAFETY: the result came from mysql_store_result and is freed once.
        unsafe { my::mysql_free_result(self.result) }
    }
}

impl Kept for Stored {
    fn rows(&self) -> usize {
        self.rows.len()
    }
    fn columns(&self) -> usize {
        self.columns
    }
    fn value(&self, r: usize, i: usize) -> Option<Cow<'_, [u8]>> {
        let (row, lengths) = &self.rows[r];
        // SAFETY: a row of the live result has `columns` cells; a cell is null or `len` bytes.
        let cell = unsafe { *row.add(i) };
        (!cell.is_null()).then(|| {
            Cow::Borrowed(unsafe {
                std::slice::from_raw_parts(cell as *const u8, lengths[i] as usize)
            })
        })
    }
}

/// A prepared statement with the buffers its parameters are sent from and its results read
/// into; closed when dropped.
struct Statement {
    stmt: *mut my::MYSQL_STMT,
    names: Vec<String>,
    inputs: Inputs,
    outputs: Outputs,
    /// Its result binds are in place: libmariadb keeps them from one execution to the next
    /// (it makes them anew only for a statement with more than one result, which is bound
    /// again after each execution).
    bound: bool,
}

// SAFETY: as the handle it belongs to.
unsafe impl Send for Statement {}

impl Drop for Statement {
    fn drop(&mut self) {
        // SAFETY: the statement came from mysql_stmt_init and is closed once, before its
        // connection (the connection's statements are dropped first).
        unsafe { my::mysql_stmt_close(self.stmt) };
    }
}

/// A connection through libmariadb.
pub struct Connection {
    /// Dropped (closed) before the handle they belong to.
    statements: Prepared<Statement>,
    handle: Handle,
    in_transaction: bool,
    /// The row being read, kept between executions.
    row: Row,
}

static INIT: std::sync::Once = std::sync::Once::new();

impl Connection {
    /// Connects as `opts` says: over its Unix socket when it names one, else over TCP.
    pub fn open(opts: &mysql::Opts) -> Result<Connection> {
        // The library's global state, made once before any thread connects (mysql_init would
        // make it too, but not safely from several threads at once).
        // SAFETY: no arguments; called once.
        INIT.call_once(|| unsafe {
            my::mysql_server_init(0, std::ptr::null_mut(), std::ptr::null_mut());
        });
        // SAFETY: a null argument asks the library for a new handle.
        let handle = Handle(unsafe { my::mysql_init(std::ptr::null_mut()) });
        if handle.0.is_null() {
            return Err(anyhow!("cannot connect to MySQL: out of memory"));
        }
        let host = c_text(&opts.get_ip_or_hostname())?;
        let socket = opts.get_socket().map(c_text).transpose()?;
        let user = opts.get_user().map(c_text).transpose()?;
        let pass = opts.get_pass().map(c_text).transpose()?;
        let db = opts.get_db_name().map(c_text).transpose()?;
        let protocol = match socket {
            Some(_) => my::mysql_protocol_type::MYSQL_PROTOCOL_SOCKET,
            None => my::mysql_protocol_type::MYSQL_PROTOCOL_TCP,
        } as c_uint;
        let ptr = |s: &Option<CString>| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
        // SAFETY: the handle is live; each option's argument is what the option takes, and
        // every string outlives the calls.
        let connected = unsafe {
            use my::mysql_option as opt;
            my::mysql_options(
                handle.0,
                opt::MYSQL_SET_CHARSET_NAME,
                c"utf8mb4".as_ptr().cast(),
            );
            my::mysql_options(
                handle.0,
                opt::MYSQL_OPT_PROTOCOL,
                (&protocol as *const c_uint).cast(),
            );
            my::mysql_real_connect(
                handle.0,
                host.as_ptr(),
                ptr(&user),
                ptr(&pass),
                ptr(&db),
                c_uint::from(opts.get_tcp_port()),
                ptr(&socket),
                0,
            )
        };
        if connected.is_null() {
            // SAFETY: the handle is live.
            let said = text(unsafe { my::mysql_error(handle.0) });
            return Err(anyhow!("cannot connect to MySQL: {}", redact(&said)));
        }
        Ok(Connection {
            statements: Prepared::default(),
            handle,
            in_transaction: false,
            row: Row::new(),
        })
    }

    /// The connection's last error.
    fn failed(&self) -> anyhow::Error {
        let h = self.handle.0;
        // SAFETY: the handle is live; the strings live until its next call.
        let (code, state, message) = unsafe {
            (
                my::mysql_errno(h),
                text(my::mysql_sqlstate(h)),
                text(my::mysql_error(h)),
            )
        };
        server_error(code, state, message)
    }

    /// A statement's last error.
    fn stmt_failed(stmt: *mut my::MYSQL_STMT) -> anyhow::Error {
        // SAFETY: the statement is live; the strings live until its next call.
        let (code, state, message) = unsafe {
            (
                my::mysql_stmt_errno(stmt),
                text(my::mysql_stmt_sqlstate(stmt)),
                text(my::mysql_stmt_error(stmt)),
            )
        };
        server_error(code, state, message)
    }

    /// `sql` through the text protocol, its rows stored in the library as it sent them, or
    /// None when the statement returns no rows (then the rows it changed are in
    /// `mysql_affected_rows`).
    fn stored(&mut self, sql: &str) -> Result<Option<Stored>> {
        let h = self.handle.0;
        // SAFETY (each call): the handle is live; the result is freed by Stored's drop.
        if unsafe { my::mysql_real_query(h, sql.as_ptr().cast(), sql.len() as c_ulong) } != 0 {
            return Err(self.failed());
        }
        let result = unsafe { my::mysql_store_result(h) };
        if result.is_null() {
            return match unsafe { my::mysql_field_count(h) } {
                0 => Ok(None),
                _ => Err(self.failed()),
            };
        }
        let columns = unsafe { my::mysql_num_fields(result) } as usize;
        let mut stored = Stored {
            result,
            columns,
            rows: Vec::new(),
        };
        loop {
            let row = unsafe { my::mysql_fetch_row(result) };
            if row.is_null() {
                break;
            }
            let lengths =
                unsafe { std::slice::from_raw_parts(my::mysql_fetch_lengths(result), columns) };
            stored.rows.push((row, lengths.to_vec()));
        }
        Ok(Some(stored))
    }

    /// `sql` through the text protocol; each row's values typed by their columns as the
    /// binary protocol's are ([`text_value`]), or None when the statement returns no rows.
    fn text_query(&mut self, sql: &str) -> Result<Option<Vec<Row>>> {
        let Some(stored) = self.stored(sql)? else {
            return Ok(None);
        };
        // SAFETY: the result is live; its fields are `columns` long.
        let fields = unsafe {
            std::slice::from_raw_parts(my::mysql_fetch_fields(stored.result), stored.columns)
        };
        let fetch: Vec<Fetch> = fields.iter().map(fetch_of).collect();
        let rows = (0..stored.rows.len()).map(|r| {
            (fetch.iter().enumerate())
                .map(|(i, &f)| {
                    stored
                        .value(r, i)
                        .map_or(SqlValue::Null, |v| text_value(f, &v))
                })
                .collect()
        });
        Ok(Some(rows.collect()))
    }

    /// Executes a prepared statement with `params`, then hands each row to `visit` (with none,
    /// the rows are stored in the library, counted and dropped, unread, as sysbench's driver
    /// leaves them); the rows it returned, or the rows it changed when it returns none.
    fn run(&mut self, stmt: Stmt, params: &[SqlValue], visit: Option<&mut Visit>) -> Result<u64> {
        let row = &mut self.row;
        let s = self.statements.get_mut(stmt)?;
        let raw = s.stmt;
        let inputs = &mut s.inputs;
        // SAFETY (each call): the statement is live; the parameters' binds point at the
        // statement's own buffers, which move only when they are bound again here, and the
        // result binds at its result buffers, untouched until the rows have been read.
        unsafe {
            if inputs.set(params) {
                // The library copies as many binds as the statement has parameters.
                let wanted = my::mysql_stmt_param_count(raw) as usize;
                if wanted != params.len() {
                    inputs.types.clear();
                    return Err(anyhow!(
                        "the statement takes {wanted} parameters, {} given",
                        params.len()
                    ));
                }
                inputs.point();
                if my::mysql_stmt_bind_param(raw, inputs.binds.as_mut_ptr()) != my::FALSE {
                    // Bound again at the next execution.
                    inputs.types.clear();
                    return Err(Self::stmt_failed(raw));
                }
            }
            if my::mysql_stmt_execute(raw) != 0 {
                return Err(Self::stmt_failed(raw));
            }
            if s.names.is_empty() {
                return Ok(my::mysql_stmt_affected_rows(raw));
            }
        }
        let Some(visit) = visit else {
            // SAFETY: as above; the stored rows are freed once.
            unsafe {
                if my::mysql_stmt_store_result(raw) != 0 {
                    let e = Self::stmt_failed(raw);
                    my::mysql_stmt_free_result(raw);
                    return Err(e);
                }
                let n = my::mysql_stmt_num_rows(raw);
                my::mysql_stmt_free_result(raw);
                return Ok(n);
            }
        };
        let out = &mut s.outputs;
        // SAFETY: as above.
        if !s.bound || unsafe { my::mysql_stmt_more_results(raw) } != my::FALSE {
            // The binds point into the buffers' heap memory, which stays where it is until a
            // buffer grows (`grow` binds again).
            for i in 0..out.binds.len() {
                out.point(i);
            }
            // SAFETY: as above.
            if unsafe { my::mysql_stmt_bind_result(raw, out.binds.as_mut_ptr()) } != my::FALSE {
                return Err(Self::stmt_failed(raw));
            }
            s.bound = true;
        }
        let mut n = 0;
        loop {
            // SAFETY: as above.
            match unsafe { my::mysql_stmt_fetch(raw) } as u32 {
                0 => {}
                my::MYSQL_NO_DATA => break,
                my::MYSQL_DATA_TRUNCATED => grow(raw, out)?,
                _ => {
                    let e = Self::stmt_failed(raw);
                    // SAFETY: as above; what is left of the result is dropped.
                    unsafe { my::mysql_stmt_free_result(raw) };
                    return Err(e);
                }
            }
            // The row is written over the last (a visitor that keeps rows takes them).
            row.resize(out.binds.len(), SqlValue::Null);
            for (i, slot) in row.iter_mut().enumerate() {
                out.read(i, slot);
            }
            visit(row);
            n += 1;
        }
        Ok(n)
    }
}

/// Gives each column whose value was longer than its buffer a buffer that holds it, and reads
/// the value again.
fn grow(stmt: *mut my::MYSQL_STMT, out: &mut Outputs) -> Result<()> {
    for i in 0..out.binds.len() {
        let needed = out.lengths[i] as usize;
        if matches!(out.fetch[i], Fetch::Int { .. } | Fetch::Float) || needed <= out.texts[i].len()
        {
            continue;
        }
        out.texts[i].resize(needed, 0);
        out.point(i);
        // SAFETY: the statement is live and its current row holds column i; the bind points
        // at a buffer of its length.
        if unsafe { my::mysql_stmt_fetch_column(stmt, &mut out.binds[i], i as c_uint, 0) } != 0 {
            return Err(Connection::stmt_failed(stmt));
        }
    }
    // Later rows are read into the grown buffers.
    // SAFETY: as above.
    if unsafe { my::mysql_stmt_bind_result(stmt, out.binds.as_mut_ptr()) } != my::FALSE {
        return Err(Connection::stmt_failed(stmt));
    }
    Ok(())
}

impl SqlConnection for Connection {
    fn dialect(&self) -> Dialect {
        Dialect::Mysql
    }
    fn execute(&mut self, sql: &str) -> Result<u64> {
        let mut n = 0;
        // The text protocol takes one statement at a time (as the crate's connection splits).
        for stmt in sql.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            if self.text_query(stmt)?.is_none() {
                // SAFETY: the handle is live.
                n += unsafe { my::mysql_affected_rows(self.handle.0) };
            }
        }
        Ok(n)
    }
    fn query(&mut self, sql: &str) -> Result<Vec<Row>> {
        Ok(self.text_query(sql)?.unwrap_or_default())
    }
    /// As the server sent each value, in text, as sysbench's MySQL driver hands them over.
    fn query_kept(&mut self, sql: &str) -> Result<Box<dyn Kept>> {
        match self.stored(sql)? {
            Some(stored) => Ok(Box::new(stored)),
            None => Ok(Box::new(Vec::<Row>::new())),
        }
    }
    fn prepare(&mut self, sql: &str) -> Result<Stmt> {
        // SAFETY (each call): the handle is live; the statement is closed by Statement's drop
        // from here on; the metadata result is freed once, after its fields are read.
        let stmt = unsafe { my::mysql_stmt_init(self.handle.0) };
        if stmt.is_null() {
            return Err(self.failed());
        }
        let mut s = Statement {
            stmt,
            names: Vec::new(),
            inputs: Inputs::default(),
            outputs: Outputs::new(Vec::new(), Vec::new()),
            bound: false,
        };
        if unsafe { my::mysql_stmt_prepare(stmt, sql.as_ptr().cast(), sql.len() as c_ulong) } != 0 {
            return Err(Self::stmt_failed(stmt));
        }
        let meta = unsafe { my::mysql_stmt_result_metadata(stmt) };
        if !meta.is_null() {
            let n = unsafe { my::mysql_num_fields(meta) } as usize;
            let fields = unsafe { std::slice::from_raw_parts(my::mysql_fetch_fields(meta), n) };
            s.names = fields.iter().map(|f| text(f.name)).collect();
            let sizes = fields
                .iter()
                .map(|f| (f.length as usize).clamp(16, TEXT_BUFFER));
            s.outputs = Outputs::new(fields.iter().map(fetch_of).collect(), sizes.collect());
            unsafe { my::mysql_free_result(meta) };
        }
        Ok(self.statements.add(s))
    }
    fn exec_prepared(&mut self, stmt: Stmt, params: &[SqlValue]) -> Result<u64> {
        let reads = !self.statements.get(stmt)?.names.is_empty();
        let n = self.run(stmt, params, None)?;
        // A statement that returns rows changed none.
        Ok(if reads { 0 } else { n })
    }
    fn query_prepared(&mut self, stmt: Stmt, args: &[SqlValue], visit: &mut Visit) -> Result<u64> {
        self.run(stmt, args, Some(visit))
    }
    fn run_prepared(&mut self, stmt: Stmt, params: &[SqlValue]) -> Result<u64> {
        self.run(stmt, params, None)
    }
    fn columns(&mut self, stmt: Stmt) -> Result<Vec<String>> {
        Ok(self.statements.get(stmt)?.names.clone())
    }
    fn begin(&mut self) -> Result<()> {
        self.execute("BEGIN")?;
        self.in_transaction = true;
        Ok(())
    }
    fn commit(&mut self) -> Result<()> {
        self.in_transaction = false;
        self.execute("COMMIT").map(|_| ())
    }
    fn rollback(&mut self) -> Result<()> {
        self.in_transaction = false;
        self.execute("ROLLBACK").map(|_| ())
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            pads_char: true,
            clusters_by_key: true,
            ..Capabilities::server()
        }
    }
    /// Multi-row INSERTs, as sysbench's own `bulk_insert` sends them.
    fn bulk_load(&mut self, table: &str, columns: &[&str], rows: &mut Rows) -> Result<u64> {
        let own = !self.in_transaction;
        if own {
            self.begin()?;
        }
        let n = insert_rows(table, columns, rows, &mut |sql| {
            self.execute(sql).map(|_| ())
        })?;
        if own {
            self.commit()?;
        }
        Ok(n)
    }
}
