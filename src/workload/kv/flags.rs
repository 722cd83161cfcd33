//! The kv workload's own flags, and the parameters they make.

use super::keys::KeyLayout;
use super::presets::{self, KvParams, TxnSize};
use crate::engine::kv::Compression;
use crate::workload::flags::{self, Flags, Shared};
use anyhow::Result;
use clap::Args;

#[derive(Args, Clone, Debug)]
pub struct KvFlags {
    /// Batches of sequential keys per step (bdb-11gr2: 57,600; default 1,000).
    #[arg(long, value_name = "N")]
    pub batches: Option<u64>,
    /// Sequential keys per batch (default 10).
    #[arg(long, value_name = "N")]
    pub batch_size: Option<u64>,
    /// Key size in bytes (at least 8; default 64).
    #[arg(long, value_name = "BYTES", value_parser = flags::bytes::<usize>)]
    pub key_size: Option<usize>,
    /// Value size in bytes (at least 8; default 64).
    #[arg(long, value_name = "BYTES", value_parser = flags::bytes::<usize>)]
    pub value_size: Option<usize>,
    /// Operations per transaction: `batch` (one batch of sequential keys, the default) or `op`.
    #[arg(long, value_name = "batch|op", value_parser = TxnSize::parse)]
    pub txn_size: Option<TxnSize>,
    /// Where the record number sits in the key: `number-last` (after zero padding, the
    /// default) or `number-first` (comparisons end in the first bytes: much faster fetches on
    /// engines that compare whole keys, such as Berkeley DB).
    #[arg(long, value_name = "number-last|number-first", value_parser = KeyLayout::parse)]
    pub key_layout: Option<KeyLayout>,
    /// Engine cache size, e.g. 512MB (0: the engine's default).
    #[arg(long, value_name = "SIZE", value_parser = flags::bytes::<u64>)]
    pub cache_size: Option<u64>,
    /// Page size, e.g. 32K (0: the engine's default).
    #[arg(long, value_name = "SIZE", value_parser = flags::bytes::<u32>)]
    pub page_size: Option<u32>,
    /// Log buffer size, e.g. 8MB (0: the engine's default).
    #[arg(long, value_name = "SIZE", value_parser = flags::bytes::<u64>)]
    pub log_buffer: Option<u64>,
    /// Block compression, instead of the engine's default (RocksDB: snappy): none, snappy, lz4
    /// or zstd. Only engines that compress take it (rocksdb).
    #[arg(long, value_name = "none|snappy|lz4|zstd", value_parser = Compression::parse)]
    pub compression: Option<Compression>,
    /// Bulk read buffer, e.g. 4MB.
    #[arg(long, value_name = "SIZE", value_parser = flags::bytes::<usize>)]
    pub bulk_buffer: Option<usize>,
}

impl Flags for KvFlags {
    type Workload = KvParams;
    const PRESETS: &'static [&'static str] = &presets::PRESETS;
    const ABOUT: &'static str =
        "Key-value records in batches of sequential keys (Berkeley DB papers 000 and 002).";
    /// The workload with these flags (and a preset's parameters under them).
    fn workload(&self, shared: &Shared) -> Result<KvParams> {
        let mut p = shared.start_from(presets::preset, presets::default_params)?;
        flags::set(&mut p.batches, self.batches);
        flags::set(&mut p.batch_size, self.batch_size);
        flags::set(&mut p.key_size, self.key_size);
        flags::set(&mut p.value_size, self.value_size);
        flags::set(&mut p.txn_size, self.txn_size);
        flags::set(&mut p.key_layout, self.key_layout);
        flags::set(&mut p.cache_bytes, self.cache_size);
        flags::set(&mut p.page_size, self.page_size);
        flags::set(&mut p.log_buffer_bytes, self.log_buffer);
        flags::set(&mut p.bulk_buffer_bytes, self.bulk_buffer);
        p.compression = self.compression.or(p.compression);
        flags::set(&mut p.runs, shared.runs);
        flags::set(&mut p.threads, shared.threads("threads")?);
        Ok(p)
    }
}
