//! `lmdb` through the heed bindings: a memory-mapped B+tree with one writer at a time.

use super::kv::{KvEngine, KvOptions, KvSession, KvStore, VisitRecord};
use crate::durability::Durability;
use anyhow::{Context, Result};
use heed::types::Bytes;
use heed::{Database, Env, EnvFlags, EnvOpenOptions, RoTxn, RwTxn, WithTls};

pub struct Lmdb;

const MAX_KEY_BYTES: usize = 511;

impl KvEngine for Lmdb {
    fn version(&self) -> String {
        let v = heed::lmdb_version();
        format!("{}.{}.{}", v.major, v.minor, v.patch)
    }
    fn mapping(&self, level: Durability) -> std::result::Result<String, String> {
        match level {
            Durability::Sync => Ok("default flags (fsync of data and meta page at commit)".into()),
            Durability::WriteNosync => Ok("MDB_NOSYNC (commit writes to the OS, no flush)".into()),
            Durability::Nosync => {
                Err("LMDB has no log buffer of its own: a commit always reaches the OS".into())
            }
            Durability::InMemory => Err(
                "LMDB keeps its data in a file-backed memory map; it has no in-memory mode".into(),
            ),
            Durability::None => {
                Err("LMDB is always transactional; it has no non-transactional mode".into())
            }
        }
    }
    fn max_key_bytes(&self) -> Option<usize> {
        // MDB_MAXKEYSIZE as the bundled LMDB is built (heed without `longer-keys`).
        Some(MAX_KEY_BYTES)
    }
    fn open(&self, options: &KvOptions) -> Result<Box<dyn KvStore>> {
        // Room for every record with B+tree overhead, and slack for copy-on-write pages.
        let per_record = (options.key_size + options.value_size + 16) as u64;
        let map_size =
            (options.expected_records * per_record * 4 + (256 << 20)).next_multiple_of(1 << 20);
        let mut builder = EnvOpenOptions::new();
        builder
            .map_size(map_size as usize)
            .max_readers((options.threads as u32 + 8).max(126));
        if options.durability == Durability::WriteNosync {
            // SAFETY: NO_SYNC only weakens durability, which is what this level asks for.
            unsafe { builder.flags(EnvFlags::NO_SYNC) };
        }
        // SAFETY: the directory is fresh and owned by this run; nothing else maps it.
        let env =
            unsafe { builder.open(&options.dir) }.context("cannot open the LMDB environment")?;
        let mut wtxn = env.write_txn()?;
        // The environment's main database: a named one would be a record in it, and every write
        // transaction would copy and write the main database's page too.
        let db: Database<Bytes, Bytes> = env.create_database(&mut wtxn, None)?;
        wtxn.commit()?;
        let statistics = crate::measure::resources::enabled()
            .then(|| crate::measure::resources::register(Box::new(Statistics(env.clone()))));
        Ok(Box::new(LmdbStore {
            env,
            db,
            map_size,
            statistics,
        }))
    }
}

/// LMDB's environment info for a step's resource readings (`measure/resources.rs`): the id of
/// the last committed transaction (one per write transaction: a count of commits) and the pages
/// in use.
struct Statistics(Env<WithTls>);

impl crate::measure::resources::Source for Statistics {
    fn name(&self) -> String {
        "LMDB environment info".into()
    }
    fn read(&mut self, into: &mut crate::measure::resources::Readings) -> Result<()> {
        use crate::measure::resources::Reading;
        let info = self.0.info();
        into.insert(
            "lmdb.last_txn_id".into(),
            Reading::Counter(info.last_txn_id as f64),
        );
        let pages = info.last_page_number as f64 + 1.0;
        into.insert("lmdb.pages".into(), Reading::Gauge(pages));
        Ok(())
    }
}

struct LmdbStore {
    env: Env<WithTls>,
    db: Database<Bytes, Bytes>,
    map_size: u64,
    /// A copy of the environment in the readings: dropped before the environment closes.
    statistics: Option<crate::measure::resources::Registration>,
}

impl KvStore for LmdbStore {
    fn session(&self) -> Result<Box<dyn KvSession + '_>> {
        Ok(Box::new(LmdbSession {
            env: &self.env,
            db: self.db,
            write: None,
            read: None,
        }))
    }
    fn settings(&self) -> Vec<(String, String)> {
        let flags = self.env.get_flags().unwrap_or(0);
        vec![
            ("map_size".into(), self.map_size.to_string()),
            ("flags".into(), format!("{flags:#x}")),
            (
                "max_readers".into(),
                self.env.info().maximum_number_of_readers.to_string(),
            ),
        ]
    }
    fn close(mut self: Box<Self>) -> Result<()> {
        self.statistics = None;
        self.env.force_sync().ok();
        self.env.prepare_for_closing().wait();
        Ok(())
    }
}

struct LmdbSession<'e> {
    env: &'e Env<WithTls>,
    db: Database<Bytes, Bytes>,
    write: Option<RwTxn<'e>>,
    read: Option<RoTxn<'e, WithTls>>,
}

impl<'e> LmdbSession<'e> {
    fn reader(&self) -> Result<&RoTxn<'e>> {
        match (&self.write, &self.read) {
            (Some(w), _) => Ok(w),
            (None, Some(r)) => Ok(r),
            (None, None) => anyhow::bail!("lmdb: read outside a transaction"),
        }
    }
    fn writer(&mut self) -> Result<&mut RwTxn<'e>> {
        self.write
            .as_mut()
            .context("lmdb: write outside a write transaction")
    }
}

impl KvSession for LmdbSession<'_> {
    fn begin(&mut self, write: bool) -> Result<()> {
        if write {
            self.write = Some(self.env.write_txn()?);
        } else {
            self.read = Some(self.env.read_txn()?);
        }
        Ok(())
    }
    fn commit(&mut self) -> Result<()> {
        if let Some(w) = self.write.take() {
            w.commit()?;
        }
        if let Some(r) = self.read.take() {
            r.commit()?;
        }
        Ok(())
    }
    fn abort(&mut self) {
        if let Some(w) = self.write.take() {
            w.abort();
        }
        self.read = None;
    }
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let db = self.db;
        db.put(self.writer()?, key, value)?;
        Ok(())
    }
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        match self.db.get(self.reader()?, key)? {
            Some(v) => {
                out.clear();
                out.extend_from_slice(v);
                Ok(true)
            }
            None => Ok(false),
        }
    }
    fn delete(&mut self, key: &[u8]) -> Result<bool> {
        let db = self.db;
        Ok(db.delete(self.writer()?, key)?)
    }
    fn scan_from(&mut self, start: &[u8], count: u64, visit: &mut VisitRecord) -> Result<u64> {
        use std::ops::Bound;
        let range = (Bound::Included(start), Bound::Unbounded);
        let mut n = 0;
        for item in self.db.range(self.reader()?, &range)?.take(count as usize) {
            let (k, v) = item?;
            visit(k, v);
            n += 1;
        }
        Ok(n)
    }
    fn scan(&mut self, visit: &mut VisitRecord) -> Result<u64> {
        let txn = self.env.read_txn()?;
        let mut n = 0;
        for item in self.db.iter(&txn)? {
            let (k, v) = item?;
            visit(k, v);
            n += 1;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod limit_tests {
    use super::*;

    #[test]
    fn the_declared_key_limit_is_the_librarys() {
        let dir = tempfile::tempdir().unwrap();
        let env = unsafe { EnvOpenOptions::new().open(dir.path()) }.unwrap();
        assert_eq!(env.max_key_size(), MAX_KEY_BYTES);
    }
}
