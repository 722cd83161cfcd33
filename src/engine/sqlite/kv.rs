//! `sqlite` (bundled SQLite) as a key-value store: one `kv` table keyed by the record key.

use super::{classify, Keeper};
use crate::durability::Durability;
use crate::engine::kv::{KvEngine, KvOptions, KvSession, KvStore, VisitRecord};
use anyhow::{Context, Result};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use std::time::Duration;

pub struct SqliteKv;

impl KvEngine for SqliteKv {
    fn version(&self) -> String {
        rusqlite::version().to_string()
    }
    fn mapping(&self, level: Durability) -> std::result::Result<String, String> {
        super::mapping(level)
    }
    fn open(&self, options: &KvOptions) -> Result<Box<dyn KvStore>> {
        let (uri, flags) = super::location(&options.dir, "kv.sqlite", options.durability);
        let store = SqliteStore {
            uri,
            flags,
            options: options.clone(),
            keeper: Keeper::default(),
        };
        let first = store.connect(true)?;
        first
            .execute_batch(
                "CREATE TABLE IF NOT EXISTS kv (k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID",
            )
            .context("cannot create the kv table")?;
        Ok(Box::new(SqliteStore {
            keeper: Keeper::new(first),
            ..store
        }))
    }
}

struct SqliteStore {
    uri: String,
    flags: OpenFlags,
    options: KvOptions,
    keeper: Keeper,
}

impl SqliteStore {
    fn connect(&self, first: bool) -> Result<Connection> {
        let conn = Connection::open_with_flags(&self.uri, self.flags)
            .with_context(|| format!("cannot open SQLite database {}", self.uri))?;
        conn.busy_timeout(Duration::from_secs(30))?;
        if first && self.options.page_size > 0 {
            conn.pragma_update(None, "page_size", self.options.page_size)?;
        }
        let pragmas = super::pragmas(self.options.durability);
        conn.execute_batch(pragmas)?;
        if self.options.cache_bytes > 0 {
            // A negative cache_size is in KiB.
            conn.pragma_update(
                None,
                "cache_size",
                -((self.options.cache_bytes / 1024) as i64),
            )?;
        }
        Ok(conn)
    }
}

impl KvStore for SqliteStore {
    fn session(&self) -> Result<Box<dyn KvSession + '_>> {
        Ok(Box::new(SqliteSession {
            conn: self.connect(false)?,
            in_txn: false,
        }))
    }
    fn settings(&self) -> Vec<(String, String)> {
        self.keeper.settings()
    }
    fn close(self: Box<Self>) -> Result<()> {
        self.keeper.close()
    }
}

struct SqliteSession {
    conn: Connection,
    in_txn: bool,
}

impl KvSession for SqliteSession {
    fn begin(&mut self, write: bool) -> Result<()> {
        // IMMEDIATE takes the write lock up front, so two writers never deadlock on an upgrade.
        self.conn
            .execute_batch(if write { "BEGIN IMMEDIATE" } else { "BEGIN" })
            .map_err(classify)?;
        self.in_txn = true;
        Ok(())
    }
    fn commit(&mut self) -> Result<()> {
        self.conn.execute_batch("COMMIT").map_err(classify)?;
        self.in_txn = false;
        Ok(())
    }
    fn abort(&mut self) {
        if self.in_txn || !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        self.in_txn = false;
    }
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO kv (k, v) VALUES (?1, ?2)")?
            .execute(params![key, value])
            .map_err(classify)?;
        Ok(())
    }
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        let mut stmt = self.conn.prepare_cached("SELECT v FROM kv WHERE k = ?1")?;
        let found = stmt
            .query_row([key], |row| {
                let v = row.get_ref(0)?.as_blob()?;
                out.clear();
                out.extend_from_slice(v);
                Ok(())
            })
            .optional()
            .map_err(classify)?;
        Ok(found.is_some())
    }
    fn delete(&mut self, key: &[u8]) -> Result<bool> {
        let n = self
            .conn
            .prepare_cached("DELETE FROM kv WHERE k = ?1")?
            .execute([key])
            .map_err(classify)?;
        Ok(n > 0)
    }
    fn scan_from(&mut self, start: &[u8], count: u64, visit: &mut VisitRecord) -> Result<u64> {
        let mut stmt =
            (self.conn).prepare_cached("SELECT k, v FROM kv WHERE k >= ?1 ORDER BY k LIMIT ?2")?;
        let mut rows = stmt.query(params![start, count as i64]).map_err(classify)?;
        let mut n = 0;
        while let Some(row) = rows.next().map_err(classify)? {
            visit(row.get_ref(0)?.as_blob()?, row.get_ref(1)?.as_blob()?);
            n += 1;
        }
        Ok(n)
    }
    fn scan(&mut self, visit: &mut VisitRecord) -> Result<u64> {
        let mut stmt = self.conn.prepare_cached("SELECT k, v FROM kv ORDER BY k")?;
        let mut rows = stmt.query([]).map_err(classify)?;
        let mut n = 0;
        while let Some(row) = rows.next().map_err(classify)? {
            visit(row.get_ref(0)?.as_blob()?, row.get_ref(1)?.as_blob()?);
            n += 1;
        }
        Ok(n)
    }
}
