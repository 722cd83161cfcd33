//! The kv workload's parameters, and the presets that name the papers' exact parameters.

use crate::durability::Durability;
use crate::engine::kv::Compression;
use anyhow::{bail, Result};
use serde::Serialize;

/// What a step does to each record it visits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Op {
    Insert,
    Fetch,
    Update,
    Delete,
    /// One cursor pass over every record (with a bulk buffer where the engine has one).
    Scan,
}

#[derive(Clone, Debug, Serialize)]
pub struct Step {
    pub name: &'static str,
    pub op: Op,
    /// Load steps are run (they build the data and warm the cache) but not reported.
    pub reported: bool,
}

/// How operations are grouped into transactions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TxnSize {
    /// One operation per transaction.
    Op,
    /// One batch of sequential keys per transaction.
    Batch,
}

impl TxnSize {
    pub fn parse(s: &str) -> Result<TxnSize> {
        match s.trim() {
            "op" | "1" => Ok(TxnSize::Op),
            "batch" => Ok(TxnSize::Batch),
            other => bail!("--txn-size takes 'op' or 'batch', not '{other}'"),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct KvParams {
    pub preset: Option<&'static str>,
    pub key_size: usize,
    /// Where the record number sits in the key.
    pub key_layout: super::keys::KeyLayout,
    pub value_size: usize,
    /// Batches per step; each batch is `batch_size` sequential keys.
    pub batches: u64,
    pub batch_size: u64,
    pub txn_size: TxnSize,
    pub steps: Vec<Step>,
    pub runs: usize,
    /// Levels run when the user names none; levels an engine does not offer are skipped with
    /// a note (levels the user names are refused instead).
    pub default_durability: Vec<Durability>,
    pub threads: Vec<usize>,
    pub cache_bytes: u64,
    pub page_size: u32,
    pub log_buffer_bytes: u64,
    /// `--compression`; None: the engine's own default.
    pub compression: Option<Compression>,
    pub bulk_buffer_bytes: usize,
}

impl KvParams {
    pub fn records(&self) -> u64 {
        self.batches * self.batch_size
    }
}

/// Steps of paper 000: load (unreported), then fetch, update, delete and re-insert.
fn bdb_11gr2_steps() -> Vec<Step> {
    vec![
        Step {
            name: "load",
            op: Op::Insert,
            reported: false,
        },
        Step {
            name: "fetch",
            op: Op::Fetch,
            reported: true,
        },
        Step {
            name: "update",
            op: Op::Update,
            reported: true,
        },
        Step {
            name: "delete",
            op: Op::Delete,
            reported: true,
        },
        Step {
            name: "insert",
            op: Op::Insert,
            reported: true,
        },
    ]
}

pub const PRESETS: [&str; 2] = ["bdb-11gr2", "bdb-4.3"];

/// The small default: the shape of paper 000 at a size that runs in seconds.
pub fn default_params() -> KvParams {
    KvParams {
        preset: None,
        key_size: 64,
        key_layout: Default::default(),
        value_size: 64,
        batches: 1_000,
        batch_size: 10,
        txn_size: TxnSize::Batch,
        steps: bdb_11gr2_steps(),
        runs: 5,
        default_durability: vec![Durability::Sync],
        threads: vec![1],
        cache_bytes: 0,
        page_size: 0,
        log_buffer_bytes: 0,
        compression: None,
        bulk_buffer_bytes: 0,
    }
}

pub fn preset(name: &str) -> Result<KvParams> {
    match name {
        // Paper 000, tables 3-5: 64-byte keys and values, 57,600 batches of 10, 512MB cache.
        // One batch per transaction: see docs/workloads/kv.md ("Transactions in the kv workload").
        "bdb-11gr2" => Ok(KvParams {
            preset: Some("bdb-11gr2"),
            batches: 57_600,
            cache_bytes: 512 << 20,
            default_durability: vec![
                Durability::None,
                Durability::Sync,
                Durability::WriteNosync,
                Durability::Nosync,
                Durability::InMemory,
            ],
            ..default_params()
        }),
        // Paper 002: 8-byte keys, 32-byte data, 32KB pages, 4MB bulk buffer, 8MB log buffer,
        // 32MB cache, single-record reads and writes (one per transaction), all in cache.
        "bdb-4.3" => Ok(KvParams {
            preset: Some("bdb-4.3"),
            key_size: 8,
            key_layout: Default::default(),
            value_size: 32,
            batches: 200_000,
            batch_size: 1,
            txn_size: TxnSize::Op,
            steps: vec![
                Step {
                    name: "write",
                    op: Op::Insert,
                    reported: true,
                },
                Step {
                    name: "read",
                    op: Op::Fetch,
                    reported: true,
                },
                Step {
                    name: "bulk-read",
                    op: Op::Scan,
                    reported: true,
                },
            ],
            runs: 5,
            default_durability: vec![
                Durability::None,
                Durability::InMemory,
                Durability::Nosync,
                Durability::WriteNosync,
            ],
            threads: vec![1],
            cache_bytes: 32 << 20,
            page_size: 32 << 10,
            log_buffer_bytes: 8 << 20,
            compression: None,
            bulk_buffer_bytes: 4 << 20,
        }),
        other => bail!(
            "unknown preset '{other}' for the kv workload; presets: {}",
            PRESETS.join(", ")
        ),
    }
}
