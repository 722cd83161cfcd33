//! `rocksdb`: an LSM tree with a write-ahead log. A transaction is a WriteBatch applied at commit.

use super::kv::{Compression, KvEngine, KvOptions, KvSession, KvStore, VisitRecord};
use crate::durability::Durability;
use anyhow::{Context, Result};
use rocksdb::{BlockBasedOptions, Cache, Options, WriteBatch, WriteOptions, DB};

pub struct RocksDb;

/// The RocksDB release the `librocksdb-sys` crate bundles (it has no run-time version call).
const BUNDLED_VERSION: &str = "10.4.2";

impl KvEngine for RocksDb {
    fn version(&self) -> String {
        BUNDLED_VERSION.into()
    }
    fn built_with(&self) -> String {
        format!("compression {COMPRESSION}; {}", checksum())
    }
    fn compressions(&self) -> &'static [Compression] {
        &Compression::ALL
    }
    fn mapping(&self, level: Durability) -> std::result::Result<String, String> {
        Ok(match level {
            Durability::Sync => "WAL on, WriteOptions.sync=true",
            Durability::WriteNosync => {
                "WAL on, WriteOptions.sync=false (each write reaches the OS)"
            }
            Durability::Nosync => {
                "WAL on, manual_wal_flush=true (the log stays in RocksDB's buffer)"
            }
            Durability::InMemory => "in-memory Env (MemEnv): nothing reaches a file",
            Durability::None => "WAL off (WriteOptions.disable_wal=true)",
        }
        .into())
    }
    fn open(&self, options: &KvOptions) -> Result<Box<dyn KvStore>> {
        let mut opts = Options::default();
        opts.create_if_missing(true);
        opts.increase_parallelism(options.threads.max(2) as i32);
        let mut table = BlockBasedOptions::default();
        if options.cache_bytes > 0 {
            table.set_block_cache(&Cache::new_lru_cache(options.cache_bytes as usize));
        }
        if options.page_size > 0 {
            table.set_block_size(options.page_size as usize);
        }
        opts.set_block_based_table_factory(&table);
        if let Some(c) = options.compression {
            opts.set_compression_type(match c {
                Compression::None => rocksdb::DBCompressionType::None,
                Compression::Snappy => rocksdb::DBCompressionType::Snappy,
                Compression::Lz4 => rocksdb::DBCompressionType::Lz4,
                Compression::Zstd => rocksdb::DBCompressionType::Zstd,
            });
        }
        if options.log_buffer_bytes > 0 {
            opts.set_write_buffer_size(options.log_buffer_bytes as usize);
        }
        if options.durability == Durability::Nosync {
            opts.set_manual_wal_flush(true);
        }
        let mem_env;
        if options.durability == Durability::InMemory {
            mem_env = rocksdb::Env::mem_env().context("cannot create RocksDB's in-memory Env")?;
            opts.set_env(&mem_env);
        }
        // Tickers only (no histograms, no timers): the cheapest level that counts bytes. Even
        // so their counting costs fetches 3-4% (bench/README.md), over the readings' 1%: on
        // only when asked.
        use crate::measure::resources;
        if resources::enabled() && !resources::engine_statistics() {
            resources::note(UNCOUNTED.into());
        }
        let statistics = resources::engine_statistics().then(|| {
            opts.enable_statistics();
            opts.set_statistics_level(rocksdb::statistics::StatsLevel::ExceptHistogramOrTimers);
            // A copy of the options shares their statistics object with the database.
            resources::register(Box::new(Statistics(opts.clone())))
        });
        let db = DB::open(&opts, &options.dir).context("cannot open the RocksDB database")?;
        let mut write = WriteOptions::default();
        write.set_sync(options.durability == Durability::Sync);
        write.disable_wal(options.durability == Durability::None);
        Ok(Box::new(RocksStore {
            db,
            write,
            durability: options.durability,
            cache_bytes: options.cache_bytes,
            block_bytes: match options.page_size {
                0 => None,
                n => Some(n),
            },
            _statistics: statistics,
        }))
    }
}

/// Why a RocksDB run without `--engine-statistics` has no figures of RocksDB's own.
const UNCOUNTED: &str = "RocksDB's own counts (the bytes the user, the WAL, flushes and compactions wrote, write stalls, block cache hits) need --engine-statistics: its statistics object costs its fetches 3-4%";

/// RocksDB's own counters for a step's resource readings (`measure/resources.rs`): the bytes
/// the user wrote, the WAL, flushes and compactions wrote, write stalls and the block cache.
struct Statistics(Options);

impl crate::measure::resources::Source for Statistics {
    fn name(&self) -> String {
        "RocksDB statistics".into()
    }
    fn read(&mut self, into: &mut crate::measure::resources::Readings) -> Result<()> {
        use rocksdb::statistics::Ticker;
        for (name, ticker) in [
            ("rocksdb.bytes_written", Ticker::BytesWritten),
            ("rocksdb.wal_bytes", Ticker::WalFileBytes),
            ("rocksdb.flush_bytes", Ticker::FlushWriteBytes),
            ("rocksdb.compaction_bytes", Ticker::CompactWriteBytes),
            ("rocksdb.stall_us", Ticker::StallMicros),
            ("rocksdb.block_cache_hit", Ticker::BlockCacheHit),
            ("rocksdb.block_cache_miss", Ticker::BlockCacheMiss),
        ] {
            let v = self.0.get_ticker_count(ticker) as f64;
            into.insert(name.into(), crate::measure::resources::Reading::Counter(v));
        }
        Ok(())
    }
}

struct RocksStore {
    db: DB,
    write: WriteOptions,
    durability: Durability,
    cache_bytes: u64,
    block_bytes: Option<u32>,
    _statistics: Option<crate::measure::resources::Registration>,
}

/// RocksDB's default compression: Snappy when the build has it (hakari's does), as in
/// `options.cc` (`Snappy_Supported() ? kSnappyCompression : kNoCompression`).
const COMPRESSION: &str = "snappy (RocksDB's default; lz4 and zstd also built in)";

/// How RocksDB checksums its WAL records and blocks: CRC32C, in hardware when the build
/// targets SSE4.2 and PCLMUL (`.cargo/config.toml`), else its table-driven software.
fn checksum() -> &'static str {
    if cfg!(all(target_feature = "sse4.2", target_feature = "pclmulqdq")) {
        "crc32c in hardware (SSE4.2, PCLMUL)"
    } else {
        "crc32c in software (the build does not target SSE4.2)"
    }
}

// SAFETY: WriteOptions is a plain options struct that is only read after construction.
unsafe impl Sync for RocksStore {}
unsafe impl Send for RocksStore {}

impl KvStore for RocksStore {
    fn session(&self) -> Result<Box<dyn KvSession + '_>> {
        Ok(Box::new(RocksSession {
            store: self,
            batch: None,
        }))
    }
    fn settings(&self) -> Vec<(String, String)> {
        let prop = |name: &str| {
            self.db
                .property_value(name)
                .ok()
                .flatten()
                .unwrap_or_default()
        };
        vec![
            (
                "sync".into(),
                (self.durability == Durability::Sync).to_string(),
            ),
            (
                "disable_wal".into(),
                (self.durability == Durability::None).to_string(),
            ),
            (
                "manual_wal_flush".into(),
                (self.durability == Durability::Nosync).to_string(),
            ),
            (
                "mem_env".into(),
                (self.durability == Durability::InMemory).to_string(),
            ),
            (
                "block_cache_bytes".into(),
                if self.cache_bytes > 0 {
                    self.cache_bytes.to_string()
                } else {
                    "default".into()
                },
            ),
            (
                "block_cache_capacity".into(),
                prop("rocksdb.block-cache-capacity"),
            ),
            ("compression".into(), self.compression_in_effect()),
            ("checksum".into(), checksum().into()),
            (
                "block_size".into(),
                self.block_bytes
                    .map_or("4096 (RocksDB's default)".into(), |b| b.to_string()),
            ),
        ]
    }
    fn close(self: Box<Self>) -> Result<()> {
        if self.durability == Durability::Nosync {
            self.db.flush_wal(true).ok();
        }
        Ok(())
    }
}

impl RocksStore {
    /// The compression RocksDB says it uses, from the OPTIONS file it writes in the database
    /// (`compression=kSnappyCompression`); what the build defaults to if it cannot be read (the
    /// in-memory Env writes no file).
    fn compression_in_effect(&self) -> String {
        let newest_options = std::fs::read_dir(self.db.path()).ok().and_then(|entries| {
            (entries.flatten())
                .filter(|e| e.file_name().to_string_lossy().starts_with("OPTIONS-"))
                .max_by_key(|e| e.file_name())
        });
        let text = newest_options.and_then(|e| std::fs::read_to_string(e.path()).ok());
        let line = text
            .as_deref()
            .and_then(|t| (t.lines().map(str::trim)).find_map(|l| l.strip_prefix("compression=")));
        match line {
            Some(kind) => format!("{kind} (from RocksDB's OPTIONS file)"),
            None => COMPRESSION.into(),
        }
    }
}

struct RocksSession<'s> {
    store: &'s RocksStore,
    batch: Option<WriteBatch>,
}

impl KvSession for RocksSession<'_> {
    fn begin(&mut self, write: bool) -> Result<()> {
        if write {
            self.batch = Some(WriteBatch::default());
        }
        Ok(())
    }
    fn commit(&mut self) -> Result<()> {
        if let Some(b) = self.batch.take() {
            self.store.db.write_opt(b, &self.store.write)?;
        }
        Ok(())
    }
    fn abort(&mut self) {
        self.batch = None;
    }
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        match &mut self.batch {
            Some(b) => b.put(key, value),
            None => self.store.db.put_opt(key, value, &self.store.write)?,
        }
        Ok(())
    }
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        match self.store.db.get_pinned(key)? {
            Some(v) => {
                out.clear();
                out.extend_from_slice(&v);
                Ok(true)
            }
            None => Ok(false),
        }
    }
    /// RocksDB's delete cannot tell whether the key existed without a read first, which would
    /// double the step's cost; it reports true.
    fn delete(&mut self, key: &[u8]) -> Result<bool> {
        match &mut self.batch {
            Some(b) => b.delete(key),
            None => self.store.db.delete_opt(key, &self.store.write)?,
        }
        Ok(true)
    }
    fn scan_from(&mut self, start: &[u8], count: u64, visit: &mut VisitRecord) -> Result<u64> {
        let mut it = self.store.db.raw_iterator();
        it.seek(start);
        let mut n = 0;
        while n < count {
            let (Some(k), Some(v)) = (it.key(), it.value()) else {
                break;
            };
            visit(k, v);
            n += 1;
            it.next();
        }
        it.status()?;
        Ok(n)
    }
    fn scan(&mut self, visit: &mut VisitRecord) -> Result<u64> {
        let mut it = self.store.db.raw_iterator();
        it.seek_to_first();
        let mut n = 0;
        while let (Some(k), Some(v)) = (it.key(), it.value()) {
            visit(k, v);
            n += 1;
            it.next();
        }
        it.status()?;
        Ok(n)
    }
}
