//! The key-value engine contract: the little every key-value engine fills in.
//!
//! An engine is opened once per run into a [`KvStore`] (environment + database); every worker
//! thread then takes its own [`KvSession`] (its own handle), as the papers did.

use crate::durability::Durability;
use anyhow::Result;
use std::path::PathBuf;

/// What a key-value store is opened with. Sizes of 0 mean "the engine's own default".
#[derive(Clone, Debug)]
pub struct KvOptions {
    /// A directory the engine owns for this run (created empty by the caller).
    pub dir: PathBuf,
    pub durability: Durability,
    /// How many sessions (threads) will use the store at once.
    pub threads: usize,
    pub key_size: usize,
    pub value_size: usize,
    pub cache_bytes: u64,
    pub page_size: u32,
    pub log_buffer_bytes: u64,
    /// The block compression asked for (`--compression`); None: the engine's own default.
    pub compression: Option<Compression>,
    /// Buffer for bulk (cursor) reads.
    pub bulk_buffer_bytes: usize,
    /// Records the run will hold at most, so engines with a fixed map size can size it.
    pub expected_records: u64,
    /// How many different value sizes the run writes one after another (the session workload's
    /// sizes and compressions; 1 elsewhere): a cache keeps the memory of an item size it held
    /// (memcached's slab pages stay with their size class), so it must hold them all at once.
    pub value_sizes: u64,
    /// A server URL (`--url`) for server engines; None starts a private server.
    pub url: Option<String>,
    /// A private server as one server or a loopback cluster (`--cluster redis:N`).
    pub topology: crate::server::topology::Topology,
    /// Other clients (`--shard`) work in hakari's keys on this server too, and the first of
    /// them removes them: `close` leaves them as they are.
    pub shared: bool,
}

impl KvOptions {
    /// A store in `dir` at `durability` for one thread of 8-byte keys and 16-byte values, every
    /// size the engine's own, embedded or a private server: the rest set as a caller needs.
    pub fn at(dir: &std::path::Path, durability: Durability) -> KvOptions {
        KvOptions {
            dir: dir.to_path_buf(),
            durability,
            threads: 1,
            key_size: 8,
            value_size: 16,
            cache_bytes: 0,
            page_size: 0,
            log_buffer_bytes: 0,
            compression: None,
            bulk_buffer_bytes: 0,
            expected_records: 0,
            value_sizes: 1,
            url: None,
            topology: Default::default(),
            shared: false,
        }
    }
}

/// A block compression a user can ask an engine for (`--compression`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    None,
    Snappy,
    Lz4,
    Zstd,
}

impl Compression {
    pub const ALL: [Compression; 4] = [Self::None, Self::Snappy, Self::Lz4, Self::Zstd];

    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Snappy => "snappy",
            Self::Lz4 => "lz4",
            Self::Zstd => "zstd",
        }
    }

    pub fn parse(s: &str) -> std::result::Result<Compression, String> {
        let names = || Self::ALL.map(Self::name).join(", ");
        (Self::ALL.into_iter())
            .find(|c| c.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("unknown compression '{s}': one of {}", names()))
    }
}

/// The error a session returns when its transaction lost a conflict (deadlock, busy, write
/// conflict): the caller aborts and retries the whole transaction.
#[derive(Debug)]
pub struct Conflict(pub String);

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "transaction conflict: {}", self.0)
    }
}

impl std::error::Error for Conflict {}

/// True when `err` is a [`Conflict`] that a retry may resolve.
pub fn is_conflict(err: &anyhow::Error) -> bool {
    err.downcast_ref::<Conflict>().is_some()
}

/// Runs `attempt` again while it loses a conflict (a lock another client holds), counting
/// retries in `retries`; gives up after 10,000. `attempt` undoes its own failed transaction.
/// Retries back off, growing to a millisecond: some engines report a conflict at once instead of
/// waiting (SQLite's shared-cache table locks), and the lock's holder may need the core.
pub fn retry_conflicts<T>(
    retries: &mut u64,
    mut attempt: impl FnMut() -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    loop {
        match attempt() {
            Err(e) if is_conflict(&e) && *retries < 10_000 => {
                *retries += 1;
                if *retries < 10 {
                    std::thread::yield_now();
                } else {
                    std::thread::sleep(std::time::Duration::from_micros((*retries).min(1_000)));
                }
            }
            outcome => return outcome,
        }
    }
}

/// An opened key-value store, shared by all worker threads of a run.
pub trait KvStore: Send + Sync {
    /// A new handle for one worker thread.
    fn session(&self) -> Result<Box<dyn KvSession + '_>>;

    /// The effective settings (engine knobs as set), recorded with the results.
    fn settings(&self) -> Vec<(String, String)>;

    /// The largest value the store accepts, when it has a limit (memcached's item size).
    fn max_value_bytes(&self) -> Option<u64> {
        None
    }

    /// Flushes and closes; not timed.
    fn close(self: Box<Self>) -> Result<()>;
}

/// One worker's handle. Operations between `begin` and `commit` form one transaction. A store
/// without transactions (the caches: every write stands alone) keeps the defaults, which do
/// nothing; every other engine implements all three.
pub trait KvSession {
    /// Starts a transaction; `write` says whether it will change anything.
    fn begin(&mut self, _write: bool) -> Result<()> {
        Ok(())
    }
    fn commit(&mut self) -> Result<()> {
        Ok(())
    }
    /// Gives up the open transaction after an error (a conflict, usually).
    fn abort(&mut self) {}

    /// Inserts or overwrites.
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()>;
    /// Reads `key` into `out`; false when it is absent.
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool>;
    /// False when the key was absent.
    fn delete(&mut self, key: &[u8]) -> Result<bool>;
    /// Reads every record in key order (with a bulk buffer where the engine has one) and
    /// returns how many it read. `visit` sees each key and value.
    fn scan(&mut self, visit: &mut VisitRecord) -> Result<u64>;
    /// Reads up to `count` records in key order from the first key at or after `start`, and
    /// returns how many it read. Offered where [`KvEngine::ordered_scan`] is.
    fn scan_from(&mut self, _start: &[u8], _count: u64, _visit: &mut VisitRecord) -> Result<u64> {
        anyhow::bail!("this store cannot read in key order")
    }
    /// Records of named fields, for a store that keeps them natively (Redis hashes). None
    /// (every other store): a workload with such records keeps them encoded in one value.
    fn fields(&mut self) -> Option<&mut dyn FieldRecords> {
        None
    }
}

/// What a scan hands each record to: its key and its value.
pub type VisitRecord<'a> = dyn FnMut(&[u8], &[u8]) + 'a;

/// What a scan of records of fields hands each record to: its key and its fields in order.
pub type VisitFields<'a> = dyn FnMut(&[u8], &[Vec<u8>]) + 'a;

/// Records of fields `field0..fieldN` under one key, where a store has them natively, with the
/// range scan such a store keeps beside them (YCSB's redis binding: a sorted set of the keys).
pub trait FieldRecords {
    fn insert(&mut self, key: &[u8], fields: &[Vec<u8>]) -> Result<()>;
    /// Reads every field into `out`, in field order; false when the record is absent.
    fn read(&mut self, key: &[u8], out: &mut Vec<Vec<u8>>) -> Result<bool>;
    fn update(&mut self, key: &[u8], field: usize, value: &[u8]) -> Result<()>;
    /// Up to `count` records in key order from the first key at or after `start`.
    fn scan(&mut self, start: &[u8], count: u64, visit: &mut VisitFields) -> Result<u64>;
}

/// A key-value engine as registered: what it offers and how to open it.
pub trait KvEngine: Sync {
    /// The library's version, as it reports it at run time.
    fn version(&self) -> String;
    /// What its build does that matters to its speed (compression, checksums), for `hakari
    /// engines`; "" when nothing needs saying.
    fn built_with(&self) -> String {
        String::new()
    }
    /// The block compressions it can be asked for (`--compression`); none for engines that do
    /// not compress.
    fn compressions(&self) -> &'static [Compression] {
        &[]
    }
    /// The loopback clusters its private server can be started as.
    fn topologies(&self) -> &'static [crate::server::topology::Kind] {
        &[]
    }
    /// The schemes of the `--url`s it takes (`redis` for redis://...); none for embedded ones.
    fn url_schemes(&self) -> &'static [&'static str] {
        &[]
    }
    /// The private server it starts without `--url`, where the crash test can kill one (a node
    /// of a Redis Cluster); None for embedded engines.
    fn private_server(&self) -> Option<&'static dyn crate::server::PrivateServer> {
        None
    }
    /// How this engine honours `level`: `Ok(the knobs it sets)`, or `Err(why it cannot)`.
    fn mapping(&self, level: Durability) -> std::result::Result<String, String>;
    /// The most worker threads this engine can serve at `level`, if limited.
    fn max_threads(&self, _level: Durability) -> Option<usize> {
        None
    }
    /// The longest key the engine takes, when it has a limit (LMDB's MDB_MAXKEYSIZE): workloads
    /// refuse larger keys before anything runs.
    fn max_key_bytes(&self) -> Option<usize> {
        None
    }
    /// Whether `scan` uses a real bulk buffer (Berkeley DB's DB_MULTIPLE_KEY) rather than a
    /// plain cursor.
    fn has_bulk_read(&self) -> bool {
        false
    }
    /// False only for the `null` engine, which stores nothing: workloads then skip checking
    /// what reads return.
    fn keeps_data(&self) -> bool {
        true
    }
    /// Whether it may drop what it stores to make room (memcached): what a run left there cannot
    /// be kept for a later one (`--keep`).
    fn evicts(&self) -> bool {
        false
    }
    /// False for the caches (redis, memcached): they cannot read in key order, so the kv
    /// workload and the crash test leave them out.
    fn ordered_scan(&self) -> bool {
        true
    }
    /// Whether a range of records can be read from a key on: in key order, or through an index
    /// of the keys the store keeps beside records of fields (Redis).
    fn range_scan(&self) -> bool {
        self.ordered_scan()
    }
    fn open(&self, options: &KvOptions) -> Result<Box<dyn KvStore>>;
}
