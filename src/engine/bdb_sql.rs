//! `bdb-sql`: Berkeley DB's SQL interface (Debian's libdb5.3-sql). It exports the sqlite3 C API
//! over Berkeley DB's B-trees, so it is loaded at run time with local symbol binding (dlopen,
//! RTLD_LOCAL): its `sqlite3_*` symbols never meet those of the SQLite that rusqlite links in.
//! A database `x.db` keeps its Berkeley DB environment (regions, logs) in `x.db-journal/`.

use super::kv::Conflict;
use super::sql::{
    Capabilities, Dialect, Prepared, Row, Rows, SqlConnection, SqlDatabase, SqlEngine, SqlOptions,
    SqlValue, Stmt, Visit,
};
use crate::durability::Durability;
use anyhow::{anyhow, bail, Context, Result};
use std::ffi::{c_char, c_double, c_int, c_void, CStr, CString};
use std::path::PathBuf;
use std::ptr;
use std::sync::OnceLock;

pub const LIBRARY: &str = "libdb_sql-5.3.so";

#[repr(C)]
struct Sqlite3 {
    _opaque: [u8; 0],
}
#[repr(C)]
struct Sqlite3Stmt {
    _opaque: [u8; 0],
}

// Result and type codes are SQLite's, which Berkeley DB's SQL library keeps.
use rusqlite::ffi::{
    SQLITE_BLOB, SQLITE_BUSY, SQLITE_DONE, SQLITE_FLOAT, SQLITE_INTEGER, SQLITE_LOCKED, SQLITE_OK,
    SQLITE_OPEN_CREATE, SQLITE_OPEN_FULLMUTEX, SQLITE_OPEN_READWRITE, SQLITE_ROW, SQLITE_TEXT,
};
/// SQLITE_TRANSIENT: the library copies bound text and blobs.
const TRANSIENT: isize = -1;

/// The functions hakari uses, resolved once from the library.
struct Api {
    _lib: libloading::os::unix::Library,
    open_v2: unsafe extern "C" fn(*const c_char, *mut *mut Sqlite3, c_int, *const c_char) -> c_int,
    close: unsafe extern "C" fn(*mut Sqlite3) -> c_int,
    exec: unsafe extern "C" fn(
        *mut Sqlite3,
        *const c_char,
        *const c_void,
        *mut c_void,
        *mut *mut c_char,
    ) -> c_int,
    free: unsafe extern "C" fn(*mut c_void),
    prepare_v2: unsafe extern "C" fn(
        *mut Sqlite3,
        *const c_char,
        c_int,
        *mut *mut Sqlite3Stmt,
        *mut *const c_char,
    ) -> c_int,
    bind_int64: unsafe extern "C" fn(*mut Sqlite3Stmt, c_int, i64) -> c_int,
    bind_double: unsafe extern "C" fn(*mut Sqlite3Stmt, c_int, c_double) -> c_int,
    bind_text: unsafe extern "C" fn(*mut Sqlite3Stmt, c_int, *const c_char, c_int, isize) -> c_int,
    bind_blob: unsafe extern "C" fn(*mut Sqlite3Stmt, c_int, *const c_void, c_int, isize) -> c_int,
    bind_null: unsafe extern "C" fn(*mut Sqlite3Stmt, c_int) -> c_int,
    step: unsafe extern "C" fn(*mut Sqlite3Stmt) -> c_int,
    reset: unsafe extern "C" fn(*mut Sqlite3Stmt) -> c_int,
    finalize: unsafe extern "C" fn(*mut Sqlite3Stmt) -> c_int,
    column_count: unsafe extern "C" fn(*mut Sqlite3Stmt) -> c_int,
    column_type: unsafe extern "C" fn(*mut Sqlite3Stmt, c_int) -> c_int,
    column_int64: unsafe extern "C" fn(*mut Sqlite3Stmt, c_int) -> i64,
    column_double: unsafe extern "C" fn(*mut Sqlite3Stmt, c_int) -> c_double,
    column_text: unsafe extern "C" fn(*mut Sqlite3Stmt, c_int) -> *const u8,
    column_blob: unsafe extern "C" fn(*mut Sqlite3Stmt, c_int) -> *const c_void,
    column_bytes: unsafe extern "C" fn(*mut Sqlite3Stmt, c_int) -> c_int,
    changes: unsafe extern "C" fn(*mut Sqlite3) -> c_int,
    get_autocommit: unsafe extern "C" fn(*mut Sqlite3) -> c_int,
    errmsg: unsafe extern "C" fn(*mut Sqlite3) -> *const c_char,
    libversion: unsafe extern "C" fn() -> *const c_char,
}

fn api() -> Result<&'static Api> {
    static API: OnceLock<std::result::Result<Api, String>> = OnceLock::new();
    API.get_or_init(|| load().map_err(|e| format!("{e:#}")))
        .as_ref()
        .map_err(|e| anyhow!("{e}"))
}

fn load() -> Result<Api> {
    use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
    // SAFETY: loading a C library whose initialisers are safe; RTLD_LOCAL keeps its symbols out
    // of the global namespace.
    let lib = unsafe { Library::open(Some(LIBRARY), RTLD_NOW | RTLD_LOCAL) }.with_context(|| {
        format!("cannot load {LIBRARY}: install Berkeley DB's SQL interface (`sudo apt-get install libdb5.3-sql-dev`, or scripts/setup.sh)")
    })?;
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: the symbol has the sqlite3 C API's signature, as the field's type says.
            unsafe {
                *lib.get(concat!($name, "\0").as_bytes())
                    .with_context(|| format!("{LIBRARY} lacks {}", $name))?
            }
        };
    }
    Ok(Api {
        open_v2: sym!("sqlite3_open_v2"),
        close: sym!("sqlite3_close"),
        exec: sym!("sqlite3_exec"),
        free: sym!("sqlite3_free"),
        prepare_v2: sym!("sqlite3_prepare_v2"),
        bind_int64: sym!("sqlite3_bind_int64"),
        bind_double: sym!("sqlite3_bind_double"),
        bind_text: sym!("sqlite3_bind_text"),
        bind_blob: sym!("sqlite3_bind_blob"),
        bind_null: sym!("sqlite3_bind_null"),
        step: sym!("sqlite3_step"),
        reset: sym!("sqlite3_reset"),
        finalize: sym!("sqlite3_finalize"),
        column_count: sym!("sqlite3_column_count"),
        column_type: sym!("sqlite3_column_type"),
        column_int64: sym!("sqlite3_column_int64"),
        column_double: sym!("sqlite3_column_double"),
        column_text: sym!("sqlite3_column_text"),
        column_blob: sym!("sqlite3_column_blob"),
        column_bytes: sym!("sqlite3_column_bytes"),
        changes: sym!("sqlite3_changes"),
        get_autocommit: sym!("sqlite3_get_autocommit"),
        errmsg: sym!("sqlite3_errmsg"),
        libversion: sym!("sqlite3_libversion"),
        _lib: lib,
    })
}

pub struct BdbSql;

/// The SQLite-compatible version string the library reports, with Berkeley DB's own version.
pub fn version() -> Result<String> {
    let a = api()?;
    // SAFETY: libversion returns a static string.
    let sqlite = unsafe { CStr::from_ptr((a.libversion)()) }
        .to_string_lossy()
        .into_owned();
    Ok(format!(
        "Berkeley DB {} (SQL API {sqlite})",
        super::bdb::library_version()
    ))
}

fn pragma(level: Durability) -> std::result::Result<&'static str, String> {
    match level {
        Durability::Sync => Ok("PRAGMA synchronous=FULL"),
        Durability::WriteNosync => Ok("PRAGMA synchronous=NORMAL"),
        Durability::Nosync => Ok("PRAGMA synchronous=OFF"),
        Durability::InMemory => Err("each connection to an in-memory Berkeley DB SQL database is a database of its own (its SQL API predates shared-cache URIs), so clients could not share it".into()),
        Durability::None => Err("Berkeley DB's SQL interface is always transactional (Transactional Data Store)".into()),
    }
}

impl SqlEngine for BdbSql {
    fn dialect(&self) -> Option<Dialect> {
        Some(Dialect::Sqlite)
    }
    fn mapping(&self, level: Durability) -> std::result::Result<String, String> {
        Ok(match level {
            Durability::Sync => "PRAGMA synchronous=FULL (log flushed at commit)".into(),
            Durability::WriteNosync => "PRAGMA synchronous=NORMAL (DB_TXN_WRITE_NOSYNC)".into(),
            Durability::Nosync => "PRAGMA synchronous=OFF (DB_TXN_NOSYNC)".into(),
            other => return pragma(other).map(str::to_string),
        })
    }
    fn open(&self, options: &SqlOptions) -> Result<Box<dyn SqlDatabase>> {
        if options.url.is_some() {
            bail!("bdb-sql is embedded: it takes no --url");
        }
        api()?;
        let path = options.dir.join("bdbsql.db");
        let db = BdbSqlDatabase {
            path,
            durability: options.durability,
            cache_bytes: options.cache_bytes,
            keeper: None,
        };
        // One connection held open for the database's life, for its settings.
        let keeper = db.open_raw()?;
        Ok(Box::new(BdbSqlDatabase {
            keeper: Some(std::sync::Mutex::new(keeper)),
            ..db
        }))
    }
}

struct BdbSqlDatabase {
    path: PathBuf,
    durability: Durability,
    cache_bytes: u64,
    keeper: Option<std::sync::Mutex<BdbSqlConnection>>,
}

impl BdbSqlDatabase {
    fn open_raw(&self) -> Result<BdbSqlConnection> {
        let a = api()?;
        let name = CString::new(self.path.display().to_string())?;
        let mut db = ptr::null_mut();
        // SAFETY: name is a valid C string; db receives a handle (closed in Drop).
        let rc = unsafe {
            (a.open_v2)(
                name.as_ptr(),
                &mut db,
                SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                ptr::null(),
            )
        };
        let mut conn = BdbSqlConnection {
            api: a,
            db,
            statements: Prepared::default(),
        };
        if rc != SQLITE_OK {
            bail!(
                "cannot open the Berkeley DB SQL database: {}",
                conn.errmsg()
            );
        }
        // No busy handler: Berkeley DB reports a deadlock at once and the caller retries the
        // whole transaction.
        conn.execute(pragma(self.durability).map_err(|e| anyhow!(e))?)?;
        if self.cache_bytes > 0 {
            conn.execute(&format!("PRAGMA cache_size = -{}", self.cache_bytes / 1024))?;
        }
        Ok(conn)
    }
}

impl SqlDatabase for BdbSqlDatabase {
    fn connect(&self) -> Result<Box<dyn SqlConnection>> {
        Ok(Box::new(self.open_raw()?))
    }
    fn version(&self) -> String {
        version().unwrap_or_else(|e| e.to_string())
    }
    fn settings(&self) -> Vec<(String, String)> {
        let mut out = vec![("library".into(), LIBRARY.into())];
        if let Some(k) = &self.keeper {
            let mut c = k.lock().unwrap();
            for p in ["synchronous", "cache_size", "page_size", "journal_mode"] {
                if let Ok(rows) = c.query(&format!("PRAGMA {p}")) {
                    if let Some(SqlValue::Int(v)) = rows.first().and_then(|r| r.first()) {
                        out.push((p.to_string(), v.to_string()));
                    } else if let Some(SqlValue::Text(v)) = rows.first().and_then(|r| r.first()) {
                        out.push((p.to_string(), v.clone()));
                    }
                }
            }
        }
        out
    }
    fn close(self: Box<Self>) -> Result<()> {
        drop(self.keeper);
        Ok(())
    }
}

struct BdbSqlConnection {
    api: &'static Api,
    db: *mut Sqlite3,
    statements: Prepared<*mut Sqlite3Stmt>,
}

// SAFETY: the connection is opened with SQLITE_OPEN_FULLMUTEX and used by one thread at a time.
unsafe impl Send for BdbSqlConnection {}

impl BdbSqlConnection {
    fn errmsg(&self) -> String {
        // SAFETY: errmsg returns a string owned by the connection, valid until the next call.
        unsafe { CStr::from_ptr((self.api.errmsg)(self.db)) }
            .to_string_lossy()
            .into_owned()
    }

    fn error(&self, rc: c_int, what: &str) -> anyhow::Error {
        let msg = format!("Berkeley DB SQL {what}: {} ({rc})", self.errmsg());
        if rc & 0xff == SQLITE_BUSY || rc & 0xff == SQLITE_LOCKED {
            Conflict(msg).into()
        } else {
            anyhow!(msg)
        }
    }

    fn raw_prepare(&self, sql: &str) -> Result<*mut Sqlite3Stmt> {
        let c = CString::new(sql)?;
        let mut stmt = ptr::null_mut();
        // SAFETY: valid connection and C string; stmt is finalized by the caller or in Drop.
        let rc =
            unsafe { (self.api.prepare_v2)(self.db, c.as_ptr(), -1, &mut stmt, ptr::null_mut()) };
        if rc != SQLITE_OK {
            return Err(self.error(rc, &format!("prepare of `{sql}`")));
        }
        Ok(stmt)
    }

    fn bind(&self, stmt: *mut Sqlite3Stmt, params: &[SqlValue]) -> Result<()> {
        let a = self.api;
        for (i, p) in params.iter().enumerate() {
            let n = i as c_int + 1;
            // SAFETY: stmt is a live statement; text and blobs are copied (TRANSIENT).
            let rc = unsafe {
                match p {
                    SqlValue::Null => (a.bind_null)(stmt, n),
                    SqlValue::Int(v) => (a.bind_int64)(stmt, n, *v),
                    SqlValue::Float(v) => (a.bind_double)(stmt, n, *v),
                    SqlValue::Text(s) => (a.bind_text)(
                        stmt,
                        n,
                        s.as_ptr() as *const c_char,
                        s.len() as c_int,
                        TRANSIENT,
                    ),
                    SqlValue::Bytes(b) => (a.bind_blob)(
                        stmt,
                        n,
                        b.as_ptr() as *const c_void,
                        b.len() as c_int,
                        TRANSIENT,
                    ),
                }
            };
            if rc != SQLITE_OK {
                return Err(self.error(rc, "bind"));
            }
        }
        Ok(())
    }

    fn column(&self, stmt: *mut Sqlite3Stmt, i: c_int) -> SqlValue {
        let a = self.api;
        // SAFETY: stmt is positioned on a row and i < column_count.
        unsafe {
            match (a.column_type)(stmt, i) {
                SQLITE_INTEGER => SqlValue::Int((a.column_int64)(stmt, i)),
                SQLITE_FLOAT => SqlValue::Float((a.column_double)(stmt, i)),
                SQLITE_TEXT => {
                    let p = (a.column_text)(stmt, i);
                    let n = (a.column_bytes)(stmt, i) as usize;
                    SqlValue::Text(
                        String::from_utf8_lossy(std::slice::from_raw_parts(p, n)).into_owned(),
                    )
                }
                SQLITE_BLOB => {
                    let p = (a.column_blob)(stmt, i) as *const u8;
                    let n = (a.column_bytes)(stmt, i) as usize;
                    SqlValue::Bytes(if n == 0 {
                        Vec::new()
                    } else {
                        std::slice::from_raw_parts(p, n).to_vec()
                    })
                }
                _ => SqlValue::Null,
            }
        }
    }

    /// Steps `stmt` to the end, handing rows to `visit`; resets it after.
    fn run(&self, stmt: *mut Sqlite3Stmt, visit: &mut Visit) -> Result<u64> {
        let a = self.api;
        let columns = unsafe { (a.column_count)(stmt) };
        let mut rows = 0;
        let mut buf = Vec::with_capacity(columns as usize);
        let outcome = loop {
            match unsafe { (a.step)(stmt) } {
                SQLITE_ROW => {
                    buf.clear();
                    buf.extend((0..columns).map(|i| self.column(stmt, i)));
                    visit(&mut buf);
                    rows += 1;
                }
                SQLITE_DONE => break Ok(rows),
                rc => break Err(self.error(rc, "step")),
            }
        };
        unsafe { (a.reset)(stmt) };
        outcome
    }

    fn stmt(&self, s: Stmt) -> Result<*mut Sqlite3Stmt> {
        self.statements.get(s).copied()
    }
}

impl SqlConnection for BdbSqlConnection {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::EMBEDDED
    }
    fn execute(&mut self, sql: &str) -> Result<u64> {
        let c = CString::new(sql)?;
        let mut err: *mut c_char = ptr::null_mut();
        // SAFETY: valid connection and C string; err is freed with sqlite3_free.
        let rc =
            unsafe { (self.api.exec)(self.db, c.as_ptr(), ptr::null(), ptr::null_mut(), &mut err) };
        if !err.is_null() {
            unsafe { (self.api.free)(err as *mut c_void) };
        }
        if rc != SQLITE_OK {
            return Err(self.error(rc, "exec"));
        }
        Ok(unsafe { (self.api.changes)(self.db) } as u64)
    }
    fn query(&mut self, sql: &str) -> Result<Vec<Row>> {
        let stmt = self.raw_prepare(sql)?;
        let mut out = Vec::new();
        let r = self.run(stmt, &mut |row| out.push(row.to_vec()));
        unsafe { (self.api.finalize)(stmt) };
        r.map(|_| out)
    }
    fn prepare(&mut self, sql: &str) -> Result<Stmt> {
        let stmt = self.raw_prepare(sql)?;
        Ok(self.statements.add(stmt))
    }
    fn exec_prepared(&mut self, stmt: Stmt, params: &[SqlValue]) -> Result<u64> {
        let s = self.stmt(stmt)?;
        self.bind(s, params)?;
        self.run(s, &mut |_| {})?;
        Ok(unsafe { (self.api.changes)(self.db) } as u64)
    }
    fn query_prepared(&mut self, stmt: Stmt, args: &[SqlValue], visit: &mut Visit) -> Result<u64> {
        let s = self.stmt(stmt)?;
        self.bind(s, args)?;
        self.run(s, visit)
    }
    fn begin(&mut self) -> Result<()> {
        self.execute("BEGIN").map(|_| ())
    }
    fn commit(&mut self) -> Result<()> {
        self.execute("COMMIT").map(|_| ())
    }
    fn rollback(&mut self) -> Result<()> {
        self.execute("ROLLBACK").map(|_| ())
    }
    /// One transaction of prepared inserts, as for SQLite.
    fn bulk_load(&mut self, table: &str, columns: &[&str], rows: &mut Rows) -> Result<u64> {
        let sql = crate::engine::sql::insert_sql(table, columns);
        let stmt = self.raw_prepare(&sql)?;
        let mut n = 0;
        // Rows join a transaction the caller has open; otherwise the load is one of its own.
        // SAFETY: the connection's handle is open for as long as `self` lives.
        let own = unsafe { (self.api.get_autocommit)(self.db) } != 0;
        let result = (|| -> Result<()> {
            if own {
                self.begin()?;
            }
            for row in rows {
                self.bind(stmt, &row)?;
                self.run(stmt, &mut |_| {})?;
                n += 1;
            }
            if own {
                self.commit()?;
            }
            Ok(())
        })();
        unsafe { (self.api.finalize)(stmt) };
        if result.is_err() && own {
            let _ = self.rollback();
        }
        result.map(|_| n)
    }
}

impl Drop for BdbSqlConnection {
    fn drop(&mut self) {
        for s in self.statements.drain() {
            unsafe { (self.api.finalize)(s) };
        }
        unsafe { (self.api.close)(self.db) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sqlite::SqliteSql;

    fn options(dir: &std::path::Path) -> SqlOptions {
        SqlOptions::at(dir, Durability::Sync)
    }

    /// Both SQLite and Berkeley DB's SQLite-API library in one process, each with its own data;
    /// and bdb-sql really is Berkeley DB: its environment (regions, log files) sits beside the file.
    #[test]
    fn coexists_with_the_bundled_sqlite_and_is_berkeley_db() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let bdb = BdbSql.open(&options(a.path())).unwrap();
        let lite = SqliteSql.open(&options(b.path())).unwrap();
        let (mut cb, mut cl) = (bdb.connect().unwrap(), lite.connect().unwrap());
        cb.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
            .unwrap();
        cl.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
            .unwrap();
        let mut rows = (0..50).map(|i| vec![SqlValue::Int(i), SqlValue::Text(format!("v{i}"))]);
        assert_eq!(cb.bulk_load("t", &["id", "v"], &mut rows).unwrap(), 50);
        cl.execute("INSERT INTO t VALUES (1, 'lite')").unwrap();
        let ins = cb.prepare("UPDATE t SET v = ? WHERE id = ?").unwrap();
        assert_eq!(
            cb.exec_prepared(ins, &[SqlValue::Text("x".into()), SqlValue::Int(3)])
                .unwrap(),
            1
        );
        assert_eq!(
            cb.query("SELECT count(*), max(v) FROM t").unwrap(),
            vec![vec![SqlValue::Int(50), SqlValue::Text("x".into())]]
        );
        assert_eq!(
            cl.query("SELECT count(*) FROM t").unwrap(),
            vec![vec![SqlValue::Int(1)]]
        );
        // The versions differ: two libraries are loaded, not one symbol set shadowing the other.
        let v = bdb.version();
        assert!(v.starts_with("Berkeley DB 5.3"), "{v}");
        assert_ne!(v, lite.version());
        let env: Vec<String> = std::fs::read_dir(a.path().join("bdbsql.db-journal"))
            .expect("Berkeley DB keeps its environment in bdbsql.db-journal/")
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            env.iter().any(|f| f.starts_with("__db.")),
            "region files: {env:?}"
        );
        assert!(
            env.iter().any(|f| f.starts_with("log.")),
            "log files: {env:?}"
        );
        drop((cb, cl));
        bdb.close().unwrap();
        lite.close().unwrap();
    }
}
