//! The kv workload's own flags, and the parameters they make.

use super::presets::KvParams;
use super::{keys, presets, Kv};
use crate::workload::flags::{self, Shared};
use anyhow::{Context, Result};
use clap::Args;

#[derive(Args, Clone, Debug)]
pub struct KvFlags {
    /// Batches of sequential keys per step (bdb-11gr2: 57,600; default 1,000).
    #[arg(long)]
    pub batches: Option<u64>,
    /// Sequential keys per batch (default 10).
    #[arg(long)]
    pub batch_size: Option<u64>,
    /// Key size in bytes (at least 8; default 64).
    #[arg(long)]
    pub key_size: Option<String>,
    /// Value size in bytes (at least 8; default 64).
    #[arg(long)]
    pub value_size: Option<String>,
    /// Operations per transaction: `batch` (one batch of sequential keys, the default) or `op`.
    #[arg(long)]
    pub txn_size: Option<String>,
    /// Where the record number sits in the key: `number-last` (after zero padding, the
    /// default) or `number-first` (comparisons end in the first bytes: much faster fetches on
    /// engines that compare whole keys, such as Berkeley DB).
    #[arg(long)]
    pub key_layout: Option<String>,
    /// Engine cache size, e.g. 512MB (0: the engine's default).
    #[arg(long)]
    pub cache_size: Option<String>,
    /// Page size, e.g. 32K (0: the engine's default).
    #[arg(long)]
    pub page_size: Option<String>,
    /// Log buffer size, e.g. 8MB (0: the engine's default).
    #[arg(long)]
    pub log_buffer: Option<String>,
    /// Bulk read buffer, e.g. 4MB.
    #[arg(long)]
    pub bulk_buffer: Option<String>,
}

impl KvFlags {
    /// The workload with these flags (and a preset's parameters under them).
    pub fn workload(&self, shared: &Shared) -> Result<Kv> {
        Ok(Kv {
            params: self.params(shared)?,
        })
    }

    fn params(&self, shared: &Shared) -> Result<KvParams> {
        let mut p = match &shared.preset {
            Some(name) => presets::preset(name)?,
            None => presets::default_params(),
        };
        flags::set(&mut p.batches, self.batches);
        flags::set(&mut p.batch_size, self.batch_size);
        flags::set(
            &mut p.key_size,
            flags::size(&self.key_size, "--key-size")?.map(|n| n as usize),
        );
        flags::set(
            &mut p.value_size,
            flags::size(&self.value_size, "--value-size")?.map(|n| n as usize),
        );
        flags::set(
            &mut p.txn_size,
            self.txn_size
                .as_deref()
                .map(presets::TxnSize::parse)
                .transpose()?,
        );
        flags::set(
            &mut p.key_layout,
            self.key_layout
                .as_deref()
                .map(keys::KeyLayout::parse)
                .transpose()?,
        );
        flags::set(
            &mut p.cache_bytes,
            flags::size(&self.cache_size, "--cache-size")?,
        );
        if let Some(n) = flags::size(&self.page_size, "--page-size")? {
            p.page_size = u32::try_from(n).context("--page-size is too large")?;
        }
        flags::set(
            &mut p.log_buffer_bytes,
            flags::size(&self.log_buffer, "--log-buffer")?,
        );
        flags::set(
            &mut p.bulk_buffer_bytes,
            flags::size(&self.bulk_buffer, "--bulk-buffer")?.map(|n| n as usize),
        );
        flags::set(&mut p.runs, shared.runs);
        flags::set(&mut p.threads, shared.threads("threads")?);
        Ok(p)
    }
}
