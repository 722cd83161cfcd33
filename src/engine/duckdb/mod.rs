//! `duckdb`: DuckDB 1.5 through the `duckdb` crate (the default `duckdb` feature links the
//! prebuilt library scripts/setup.sh fetches; `duckdb-bundled` compiles it). An embedded database file in the run's own directory
//! (always hakari's), or an in-memory database at `in-memory`; every connection is a clone of
//! one database instance, as DuckDB wants within a process. Rows and Arrow record batches (TPC-H's
//! generated tables) are bulk loaded through DuckDB's Appender; delimited text (the same tables
//! when their .tbl files are kept) through DuckDB's own CSV reader, `COPY ... FROM` a named pipe
//! the text is written into as it is generated.
//!
//! Durability: at every commit DuckDB writes its WAL to the OS and syncs it: `sync`. DuckDB 1.5
//! has no setting that skips the sync (2.0's `fsync_mode` came later), and no commit leaves its
//! log in DuckDB's own buffer, so there is no `write-nosync` or `nosync`; `in-memory` is an
//! in-memory database; transactions cannot be turned off (no `none`).

mod arrow;
mod values;

use super::sql::{
    ArrowStream, Capabilities, Dialect, Lines, Prepared, Row, Rows, SqlConnection, SqlDatabase,
    SqlEngine, SqlOptions, SqlValue, Stmt, Visit,
};
use crate::durability::Durability;
use ::duckdb::types::Value;
use ::duckdb::{Config, Connection};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::sync::Mutex;
use values::{classify, from_ref, to_value};

pub struct Duckdb;

/// The database file inside the run's directory.
const FILE: &str = "hakari.duckdb";

impl SqlEngine for Duckdb {
    fn dialect(&self) -> Option<Dialect> {
        Some(Dialect::Duckdb)
    }
    fn mapping(&self, level: Durability) -> std::result::Result<String, String> {
        match level {
            Durability::Sync => Ok("database file (the WAL is written and synced at every commit, DuckDB's only mode)".into()),
            Durability::WriteNosync => Err("DuckDB 1.5 always syncs its WAL at commit: it has no setting that skips the sync".into()),
            Durability::Nosync => Err("DuckDB writes and syncs its WAL at every commit: no commit is left in its own buffer".into()),
            Durability::InMemory => Ok("in-memory database (:memory:), no WAL".into()),
            Durability::None => Err("DuckDB always runs transactions (MVCC); there is no mode without them".into()),
        }
    }
    fn open(&self, options: &SqlOptions) -> Result<Box<dyn SqlDatabase>> {
        if options.url.is_some() {
            bail!("duckdb is embedded: it takes no --url (use --data-dir to choose where its file goes)");
        }
        if let Err(why) = self.mapping(options.durability) {
            bail!(
                "engine 'duckdb' does not offer durability '{}': {why}",
                options.durability
            );
        }
        std::fs::create_dir_all(&options.dir)
            .with_context(|| format!("cannot create {}", options.dir.display()))?;
        // Spilled intermediates go to the run's directory too (an in-memory database would
        // otherwise spill to `.tmp` in the working directory).
        let temp = options.dir.join("duckdb.tmp");
        let mut config = Config::default()
            .with("temp_directory", temp.to_string_lossy().as_ref())
            .context("DuckDB configuration")?;
        if options.cache_bytes > 0 {
            config = config
                .max_memory(&format!("{}B", options.cache_bytes))
                .context("DuckDB memory_limit")?;
        }
        let (conn, path) = if options.durability == Durability::InMemory {
            (Connection::open_in_memory_with_flags(config), None)
        } else {
            let path = options.dir.join(FILE);
            (Connection::open_with_flags(&path, config), Some(path))
        };
        let conn = conn.map_err(classify).with_context(|| match &path {
            Some(p) => format!("cannot open DuckDB database {}", p.display()),
            None => "cannot open an in-memory DuckDB database".to_string(),
        })?;
        Ok(Box::new(DuckdbDatabase {
            path,
            dir: options.dir.clone(),
            keeper: Mutex::new(Some(conn)),
        }))
    }
}

struct DuckdbDatabase {
    /// The database file; None for an in-memory database.
    path: Option<PathBuf>,
    /// The run's directory (hakari's own): named pipes for loads go there.
    dir: PathBuf,
    /// The connection that opened the database; every other one is its clone, and the
    /// database lives as long as it does.
    keeper: Mutex<Option<Connection>>,
}

impl DuckdbDatabase {
    fn with_keeper<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let guard = self.keeper.lock().unwrap();
        match guard.as_ref() {
            Some(c) => f(c),
            None => bail!("the DuckDB database is closed"),
        }
    }
}

impl SqlDatabase for DuckdbDatabase {
    fn connect(&self) -> Result<Box<dyn SqlConnection>> {
        let conn = self.with_keeper(|k| k.try_clone().map_err(classify))?;
        conn.set_prepared_statement_cache_capacity(256);
        Ok(Box::new(DuckdbConnection {
            conn,
            statements: Prepared::default(),
            in_transaction: false,
            dir: self.dir.clone(),
        }))
    }
    fn version(&self) -> String {
        self.with_keeper(|k| {
            k.query_row("SELECT version()", [], |r| r.get::<_, String>(0))
                .map_err(classify)
        })
        .unwrap_or_else(|_| "unknown".into())
    }
    fn settings(&self) -> Vec<(String, String)> {
        let mut out = vec![(
            "database".to_string(),
            match &self.path {
                Some(p) => p.display().to_string(),
                None => ":memory:".to_string(),
            },
        )];
        let read = |k: &Connection| -> Result<Vec<(String, String)>> {
            let mut s = k
                .prepare(
                    "SELECT name, CAST(value AS VARCHAR) FROM duckdb_settings() \
                     WHERE name IN ('threads', 'memory_limit', 'temp_directory', \
                     'checkpoint_threshold', 'storage_compatibility_version') \
                     ORDER BY name",
                )
                .map_err(classify)?;
            let rows = s
                .query_map([], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))
                })
                .map_err(classify)?;
            let mut v = Vec::new();
            for r in rows {
                let (name, value) = r.map_err(classify)?;
                v.push((name, value.unwrap_or_default()));
            }
            Ok(v)
        };
        if let Ok(v) = self.with_keeper(read) {
            out.extend(v);
        }
        out
    }
    fn close(self: Box<Self>) -> Result<()> {
        if let Some(c) = self.keeper.lock().unwrap().take() {
            c.close()
                .map_err(|(_, e)| classify(e))
                .context("closing DuckDB")?;
        }
        Ok(())
    }
}

pub struct DuckdbConnection {
    conn: Connection,
    statements: Prepared<String>,
    in_transaction: bool,
    dir: PathBuf,
}

impl DuckdbConnection {
    /// Runs `sql`'s rows through `visit`; returns the number of rows.
    fn each_row(&mut self, sql: &str, params: &[SqlValue], visit: &mut Visit) -> Result<u64> {
        let mut s = self.conn.prepare_cached(sql).map_err(classify)?;
        let values: Vec<Value> = params.iter().map(to_value).collect();
        let mut rows = s
            .query(::duckdb::params_from_iter(values))
            .map_err(classify)?;
        let columns = rows.as_ref().map(|s| s.column_count()).unwrap_or(0);
        let mut buf: Vec<SqlValue> = Vec::with_capacity(columns);
        let mut n = 0;
        while let Some(row) = rows.next().map_err(classify)? {
            buf.clear();
            for i in 0..columns {
                buf.push(from_ref(row.get_ref(i).map_err(classify)?)?);
            }
            visit(&mut buf);
            n += 1;
        }
        Ok(n)
    }

    fn appended(
        &mut self,
        table: &str,
        columns: &[&str],
        rows: &mut dyn Iterator<Item = Row>,
    ) -> Result<u64> {
        // The values come in `columns`' order, which need not be the table's.
        let mut appender = self
            .conn
            .appender_with_columns(table, columns)
            .map_err(classify)?;
        let mut n = 0;
        let mut values: Vec<Value> = Vec::with_capacity(columns.len());
        for row in rows {
            if row.len() != columns.len() {
                bail!(
                    "a row of {} values for {} columns of {table}",
                    row.len(),
                    columns.len()
                );
            }
            values.clear();
            values.extend(row.iter().map(to_value));
            appender
                .append_row(::duckdb::appender_params_from_iter(values.iter()))
                .map_err(classify)?;
            n += 1;
        }
        appender.flush().map_err(classify)?;
        Ok(n)
    }
}

impl SqlConnection for DuckdbConnection {
    fn dialect(&self) -> Dialect {
        Dialect::Duckdb
    }
    fn execute(&mut self, sql: &str) -> Result<u64> {
        let single = !sql.trim().trim_end_matches(';').contains(';');
        if single {
            Ok(self.conn.execute(sql, []).map_err(classify)? as u64)
        } else {
            self.conn.execute_batch(sql).map_err(classify)?;
            Ok(0)
        }
    }
    fn query(&mut self, sql: &str) -> Result<Vec<Row>> {
        let mut out = Vec::new();
        self.each_row(sql, &[], &mut |r| out.push(r.to_vec()))?;
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
            .execute(::duckdb::params_from_iter(values))
            .map_err(classify)?;
        Ok(n as u64)
    }
    fn query_prepared(&mut self, stmt: Stmt, args: &[SqlValue], visit: &mut Visit) -> Result<u64> {
        let sql = self.statements.get(stmt)?.to_string();
        self.each_row(&sql, args, visit)
    }
    fn begin(&mut self) -> Result<()> {
        self.conn
            .execute_batch("BEGIN TRANSACTION")
            .map_err(classify)?;
        self.in_transaction = true;
        Ok(())
    }
    fn commit(&mut self) -> Result<()> {
        // A failed commit ends the transaction too (DuckDB rolls it back).
        self.in_transaction = false;
        self.conn.execute_batch("COMMIT").map_err(classify)
    }
    fn rollback(&mut self) -> Result<()> {
        if std::mem::take(&mut self.in_transaction) {
            if let Err(e) = self.conn.execute_batch("ROLLBACK") {
                // A transaction a failed statement already ended has nothing left to undo.
                if !e.to_string().contains("no transaction is active") {
                    return Err(classify(e));
                }
            }
        }
        Ok(())
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            delimited: true,
            arrow: true,
            ..Capabilities::EMBEDDED
        }
    }
    /// DuckDB's own CSV reader: `COPY table FROM` a named pipe, which this thread fills with the
    /// batches as they come while the statement runs on a helper thread. dbgen's trailing '|'
    /// is dropped from each line (DuckDB would read it as one more, empty, column).
    fn bulk_load_delimited(&mut self, table: &str, columns: &[&str], lines: Lines) -> Result<u64> {
        let fifo = self.dir.join(format!("load-{table}.pipe"));
        make_fifo(&fifo)?;
        let sql = format!(
            "COPY {table} ({}) FROM '{}' (FORMAT csv, DELIMITER '|', HEADER false, \
             AUTO_DETECT false, NULLSTR '\\N')",
            columns.join(", "),
            fifo.display()
        );
        // The statement runs on a helper thread, which takes the connection along (DuckDB's is
        // Send, not Sync).
        let conn = &mut self.conn;
        let outcome = super::sql::while_statement_runs(
            move || conn.execute(&sql, []).map(|n| n as u64).map_err(classify),
            |finished| {
                // Opening a pipe's write end waits for a reader; poll, so a COPY that fails
                // before it opens the pipe cannot leave this thread waiting forever.
                let mut pipe = loop {
                    match open_write_end(&fifo) {
                        Ok(p) => break Some(p),
                        Err(_) if finished() => break None,
                        Err(_) => std::thread::sleep(std::time::Duration::from_millis(1)),
                    }
                };
                if let Some(p) = pipe.as_mut() {
                    use std::io::Write;
                    for text in lines {
                        // A failed write means the reader is gone: its error is the COPY's.
                        if p.write_all(text.replace("|\n", "\n").as_bytes()).is_err() {
                            break;
                        }
                    }
                }
            },
        );
        let _ = std::fs::remove_file(&fifo);
        outcome
    }
    /// DuckDB's Appender, in the caller's transaction when one is open, else in one of its own.
    fn bulk_load(&mut self, table: &str, columns: &[&str], rows: &mut Rows) -> Result<u64> {
        let own = !self.in_transaction;
        if own {
            self.begin()?;
        }
        let outcome = self.appended(table, columns, rows);
        if own {
            match &outcome {
                Ok(_) => self.commit()?,
                Err(_) => {
                    let _ = self.rollback();
                }
            }
        }
        outcome
    }
    /// DuckDB's Appender, a whole record batch at a time, each stream on a connection of its own
    /// (see `arrow::append_streams`).
    fn bulk_load_arrow(&mut self, table: &str, streams: Vec<ArrowStream>) -> Result<u64> {
        if self.in_transaction {
            bail!("an Arrow load of {table} runs in transactions of its own, not in an open one");
        }
        arrow::append_streams(&self.conn, table, streams)
    }
}

fn make_fifo(path: &std::path::Path) -> Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())?;
    // SAFETY: a valid NUL-terminated path.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
        return Err(std::io::Error::last_os_error())
            .with_context(|| format!("cannot make the named pipe {}", path.display()));
    }
    Ok(())
}

/// The pipe's write end once a reader has it open (ENXIO until then), then blocking.
fn open_write_end(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    let f = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    // SAFETY: fcntl on a descriptor this function owns.
    unsafe {
        let flags = libc::fcntl(f.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(f.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK);
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(dir: &std::path::Path, level: Durability) -> Box<dyn SqlDatabase> {
        Duckdb
            .open(&SqlOptions {
                clients: 2,
                ..SqlOptions::at(dir, level)
            })
            .unwrap()
    }

    #[test]
    fn levels_offered() {
        let offered: Vec<Durability> = Durability::ALL
            .into_iter()
            .filter(|d| Duckdb.mapping(*d).is_ok())
            .collect();
        assert_eq!(offered, vec![Durability::Sync, Durability::InMemory]);
    }

    #[test]
    fn prepared_statements_transactions_appender_and_types() {
        let dir = tempfile::tempdir().unwrap();
        for level in [Durability::Sync, Durability::InMemory] {
            let db = open(dir.path(), level);
            let mut c = db.connect().unwrap();
            c.execute("DROP TABLE IF EXISTS t; CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR, v DOUBLE, b BLOB, m DECIMAL(15,2), d DATE)")
                .unwrap();
            let rows = (0..100).map(|i| {
                vec![
                    SqlValue::Int(i),
                    SqlValue::Text(format!("n{i}")),
                    SqlValue::Float(i as f64 / 2.0),
                    SqlValue::Bytes(vec![i as u8; 3]),
                    SqlValue::Float(i as f64 + 0.07),
                    SqlValue::Text("1995-03-15".into()),
                ]
            });
            assert_eq!(
                c.bulk_load(
                    "t",
                    &["id", "name", "v", "b", "m", "d"],
                    &mut rows.into_iter()
                )
                .unwrap(),
                100
            );
            let upd = c.prepare("UPDATE t SET v = v + ? WHERE id = ?").unwrap();
            c.begin().unwrap();
            assert_eq!(
                c.exec_prepared(upd, &[SqlValue::Float(1.0), SqlValue::Int(7)])
                    .unwrap(),
                1
            );
            c.commit().unwrap();
            c.begin().unwrap();
            c.exec_prepared(upd, &[SqlValue::Float(100.0), SqlValue::Int(7)])
                .unwrap();
            c.rollback().unwrap();
            let sel = c
                .prepare("SELECT name, v, b, m, d, m * 2 FROM t WHERE id = ?")
                .unwrap();
            let mut seen = Vec::new();
            let n = c
                .query_prepared(sel, &[SqlValue::Int(7)], &mut |r| seen.push(r.to_vec()))
                .unwrap();
            assert_eq!(n, 1);
            assert_eq!(
                seen[0],
                vec![
                    SqlValue::Text("n7".into()),
                    SqlValue::Float(4.5),
                    SqlValue::Bytes(vec![7; 3]),
                    SqlValue::Float(7.07),
                    SqlValue::Text("1995-03-15".into()),
                    SqlValue::Float(14.14),
                ]
            );
            // Sums of integers come back as HUGEINT, counts as BIGINT: both plain integers.
            let q = c.query("SELECT count(*), sum(id), sum(m) FROM t").unwrap();
            assert_eq!(q[0][0], SqlValue::Int(100));
            assert_eq!(q[0][1], SqlValue::Int(4950));
            assert_eq!(q[0][2], SqlValue::Float(4957.0));
            // Rows loaded inside the caller's transaction are undone with it.
            c.begin().unwrap();
            let more = vec![vec![
                SqlValue::Int(1000),
                SqlValue::Text("x".into()),
                SqlValue::Float(0.0),
                SqlValue::Null,
                SqlValue::Float(1.0),
                SqlValue::Text("1998-12-01".into()),
            ]];
            c.bulk_load(
                "t",
                &["id", "name", "v", "b", "m", "d"],
                &mut more.into_iter(),
            )
            .unwrap();
            c.rollback().unwrap();
            assert_eq!(
                c.query("SELECT count(*) FROM t").unwrap(),
                vec![vec![SqlValue::Int(100)]]
            );
            assert_eq!(c.execute("DELETE FROM t WHERE id < 10").unwrap(), 10);
            assert!(c.prepare("SELEC nonsense").is_err());
            // A second connection sees committed rows.
            let mut c2 = db.connect().unwrap();
            assert_eq!(
                c2.query("SELECT count(*) FROM t").unwrap(),
                vec![vec![SqlValue::Int(90)]]
            );
            drop(c);
            drop(c2);
            assert!(db.version().starts_with('v'), "{}", db.version());
            let settings = db.settings();
            assert!(settings.iter().any(|(k, _)| k == "threads"), "{settings:?}");
            db.close().unwrap();
        }
    }

    #[test]
    fn refused_levels_and_url() {
        let dir = tempfile::tempdir().unwrap();
        let mut o = SqlOptions::at(dir.path(), Durability::Nosync);
        assert!(Duckdb.open(&o).is_err());
        o.durability = Durability::Sync;
        o.url = Some("duckdb://x".into());
        assert!(Duckdb.open(&o).is_err());
    }
}
