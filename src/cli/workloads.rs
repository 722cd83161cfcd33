//! Each workload's flags, and their conversion into the workload's parameters and the options
//! every run shares.

use crate::durability::Durability;
use crate::report::gate::Requirement;
use crate::run::{self, RunOptions};
use crate::units::{parse_counts, parse_size};
use crate::workload::kv::{self, presets::KvParams, Kv};
use crate::workload::session::{self, data::Codec, store::Layout, Session};
use crate::workload::tpcb::{self, Tpcb};
use crate::workload::tpch::{self, Tpch};
use crate::workload::wisconsin::{self, Wisconsin};
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::PathBuf;

/// Flags every workload shares.
#[derive(Args, Clone, Debug)]
pub struct CommonArgs {
    /// Engines to run, comma-separated (see `hakari engines`).
    #[arg(long, short = 'e')]
    pub engine: Option<String>,
    /// Durability levels, comma-separated: none, sync, write-nosync, nosync, in-memory.
    /// Levels named here that an engine does not offer are refused.
    #[arg(long, short = 'd')]
    pub durability: Option<String>,
    /// A paper's exact parameters (kv: bdb-11gr2, bdb-4.3).
    #[arg(long, short = 'p')]
    pub preset: Option<String>,
    /// Times each step is repeated (each run on fresh data).
    #[arg(long)]
    pub runs: Option<usize>,
    /// Seed of every random choice; the result file records it so a run can be replayed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Where result files go.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Directory for the databases; hakari works only in a subdirectory it creates there and
    /// removes it after. Default: a fresh temporary directory.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Worker thread (client) counts, comma-separated (e.g. 1,2,4,8): each worker has its own
    /// handle or connection.
    #[arg(long, short = 't', visible_alias = "clients")]
    pub threads: Option<String>,
    /// Server URL for server engines (postgres://user@host:port/db, mysql://..., redis://...).
    /// Without it, hakari starts a private server when the server's binaries are installed.
    #[arg(long)]
    pub url: Option<String>,
    /// Also write an HTML report of this run beside its result file (<out>/<run-id>.html).
    #[arg(long)]
    pub report: bool,
    /// A threshold the run's figures must keep, checked at the end (repeatable): `ops>=2000`,
    /// `tpcb.p99<=5ms`, `kv.rocksdb.fetch.ops>=1M`. Dotted words before the figure select
    /// measurements by workload, engine, level, step, t<threads> or a configuration value.
    /// Figures: ops (ops/s), p50, p95, p99, p999, max (latency, with us, ms or s). When one
    /// fails, the result file says which and hakari exits 4.
    #[arg(long = "require", value_name = "CONDITION")]
    pub require: Vec<Requirement>,
}

#[derive(Args, Clone, Debug)]
pub struct KvArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Batches of sequential keys per step (bdb-11gr2: 57,600; default 1,000).
    #[arg(long)]
    batches: Option<u64>,
    /// Sequential keys per batch (default 10).
    #[arg(long)]
    batch_size: Option<u64>,
    /// Key size in bytes (at least 8; default 64).
    #[arg(long)]
    key_size: Option<String>,
    /// Value size in bytes (at least 8; default 64).
    #[arg(long)]
    value_size: Option<String>,
    /// Operations per transaction: `batch` (one batch of sequential keys, the default) or `op`.
    #[arg(long)]
    txn_size: Option<String>,
    /// Where the record number sits in the key: `number-last` (after zero padding, the
    /// default) or `number-first` (comparisons end in the first bytes: much faster fetches on
    /// engines that compare whole keys, such as Berkeley DB).
    #[arg(long)]
    key_layout: Option<String>,
    /// Engine cache size, e.g. 512MB (0: the engine's default).
    #[arg(long)]
    cache_size: Option<String>,
    /// Page size, e.g. 32K (0: the engine's default).
    #[arg(long)]
    page_size: Option<String>,
    /// Log buffer size, e.g. 8MB (0: the engine's default).
    #[arg(long)]
    log_buffer: Option<String>,
    /// Bulk read buffer, e.g. 4MB.
    #[arg(long)]
    bulk_buffer: Option<String>,
}

#[derive(Args, Clone, Debug)]
pub struct TpcbArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Scale factor: the number of branches (default 1; bdb-11gr2: 1,000).
    #[arg(long)]
    scale: Option<u64>,
    /// Tellers per branch (default 10, as the TPC-B specification).
    #[arg(long)]
    tellers_per_branch: Option<u64>,
    /// Accounts per branch (specification: 100,000; default 10,000; bdb-11gr2: 100).
    #[arg(long)]
    accounts_per_branch: Option<u64>,
    /// Seconds each run lasts (default 2).
    #[arg(long)]
    duration: Option<f64>,
    /// Transactions per client per run, instead of a duration.
    #[arg(long)]
    transactions: Option<u64>,
    /// Table-set layouts, comma-separated: 1 = all clients share one set of tables; 16 = 16
    /// independent sets, each client bound to one (psql-v11 runs 1,16).
    #[arg(long)]
    table_sets: Option<String>,
}

#[derive(Args, Clone, Debug)]
pub struct SessionArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Bytes of random text per session, comma-separated (default 1K,4K,10K,100K,1000K).
    #[arg(long)]
    sizes: Option<String>,
    /// Layouts, comma-separated: blob (one row or value per session), chunked (rows of at most
    /// 4000 bytes keyed by id and subid). Default: blob.
    #[arg(long)]
    layout: Option<String>,
    /// Compression before storing, comma-separated: none, gzip, zstd, lz4 (default none,gzip).
    #[arg(long)]
    compress: Option<String>,
    /// Sessions written per run (default 1,000).
    #[arg(long)]
    sessions: Option<u64>,
    /// Random session reads per run (default 10,000).
    #[arg(long)]
    reads: Option<u64>,
}

#[derive(Args, Clone, Debug)]
pub struct TpchArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Scale factors, comma-separated (default 0.01; dbt3: 1). Each is loaded and measured on a
    /// fresh database.
    #[arg(long)]
    sf: Option<String>,
    /// Query streams of the throughput test (default: the TPC-H minimum for the SF, 2 below
    /// SF 10; dbt3: 4).
    #[arg(long)]
    streams: Option<usize>,
    /// Also run the 22 queries with the qualification parameters after the load and check their
    /// answers (answer sets exist for SF 0.01, 0.1 and 1); a wrong answer is an error.
    #[arg(long)]
    validate: bool,
    /// Also write the generated tables as dbgen .tbl files into DIR/sf<SF>/.
    #[arg(long, value_name = "DIR")]
    keep_data: Option<PathBuf>,
}

#[derive(Args, Clone, Debug)]
pub struct WisconsinArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Tuples of TENKTUP1 and TENKTUP2 (ONEKTUP and BPRIME get a tenth): 1000, 10000 (the
    /// default, the chapter's size), 100000, 1000000 or 10000000.
    #[arg(long)]
    tuples: Option<u64>,
    /// Query numbers to run, as a list of numbers and ranges (e.g. 1-8,18,20-25; default all 32).
    #[arg(long)]
    queries: Option<String>,
    /// What happens to a query's rows: store (INSERT INTO a result relation, as the original;
    /// the default), fetch (sent to the client), count (SELECT COUNT(*)).
    #[arg(long)]
    result_mode: Option<String>,
}

impl CommonArgs {
    /// The options every run shares; `threads` and `runs` are each workload's.
    fn options(&self) -> Result<RunOptions> {
        Ok(RunOptions {
            engines: self.engine.clone(),
            durability: self
                .durability
                .as_deref()
                .map(Durability::parse_list)
                .transpose()?,
            seed: self.seed,
            out: self.out.clone(),
            data_dir: self.data_dir.clone(),
            url: self.url.clone(),
            report: self.report,
            require: self.require.clone(),
        })
    }

    fn threads(&self, what: &str) -> Result<Option<Vec<usize>>> {
        self.threads
            .as_deref()
            .map(|t| parse_counts(t, what))
            .transpose()
    }
}

/// A size flag (`4K`, `1MB`), when given.
fn size(value: &Option<String>, flag: &str) -> Result<Option<u64>> {
    value
        .as_deref()
        .map(|s| parse_size(s).with_context(|| format!("bad {flag}")))
        .transpose()
}

/// A comma-separated flag of values, when given.
fn list<T>(text: &Option<String>, parse: impl Fn(&str) -> Result<T>) -> Result<Option<Vec<T>>> {
    text.as_deref()
        .map(|t| {
            t.split(',')
                .filter(|x| !x.trim().is_empty())
                .map(parse)
                .collect()
        })
        .transpose()
}

fn set<T>(field: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *field = v;
    }
}

impl KvArgs {
    pub fn run(self) -> Result<i32> {
        run::execute(
            &mut Kv {
                params: self.params()?,
            },
            &self.common.options()?,
        )
    }

    fn params(&self) -> Result<KvParams> {
        let mut p = match &self.common.preset {
            Some(name) => kv::presets::preset(name)?,
            None => kv::presets::default_params(),
        };
        set(&mut p.batches, self.batches);
        set(&mut p.batch_size, self.batch_size);
        set(
            &mut p.key_size,
            size(&self.key_size, "--key-size")?.map(|n| n as usize),
        );
        set(
            &mut p.value_size,
            size(&self.value_size, "--value-size")?.map(|n| n as usize),
        );
        set(
            &mut p.txn_size,
            self.txn_size
                .as_deref()
                .map(kv::presets::TxnSize::parse)
                .transpose()?,
        );
        set(
            &mut p.key_layout,
            self.key_layout
                .as_deref()
                .map(kv::keys::KeyLayout::parse)
                .transpose()?,
        );
        set(&mut p.cache_bytes, size(&self.cache_size, "--cache-size")?);
        if let Some(n) = size(&self.page_size, "--page-size")? {
            p.page_size = u32::try_from(n).context("--page-size is too large")?;
        }
        set(
            &mut p.log_buffer_bytes,
            size(&self.log_buffer, "--log-buffer")?,
        );
        set(
            &mut p.bulk_buffer_bytes,
            size(&self.bulk_buffer, "--bulk-buffer")?.map(|n| n as usize),
        );
        set(&mut p.runs, self.common.runs);
        set(&mut p.threads, self.common.threads("threads")?);
        Ok(p)
    }
}

impl TpcbArgs {
    pub fn run(self) -> Result<i32> {
        let mut p = match &self.common.preset {
            Some(name) => tpcb::presets::preset(name)?,
            None => tpcb::presets::default_params(),
        };
        set(&mut p.branches, self.scale);
        set(&mut p.tellers_per_branch, self.tellers_per_branch);
        set(&mut p.accounts_per_branch, self.accounts_per_branch);
        set(&mut p.duration_secs, self.duration);
        if let Some(t) = self.transactions {
            if t == 0 {
                bail!("--transactions must be at least 1");
            }
            p.transactions = Some(t);
        }
        set(
            &mut p.table_sets,
            self.table_sets
                .as_deref()
                .map(|t| parse_counts(t, "table sets"))
                .transpose()?,
        );
        set(&mut p.runs, self.common.runs);
        set(&mut p.clients, self.common.threads("clients")?);
        run::execute(&mut Tpcb { params: p }, &self.common.options()?)
    }
}

impl SessionArgs {
    pub fn run(self) -> Result<i32> {
        let mut p = session::default_params();
        if let Some(preset) = &self.common.preset {
            bail!("the session workload has no preset '{preset}' (it has none yet)");
        }
        set(
            &mut p.sizes,
            list(&self.sizes, |x| parse_size(x).context("bad --sizes"))?,
        );
        set(&mut p.layouts, list(&self.layout, Layout::parse)?);
        set(&mut p.compress, list(&self.compress, Codec::parse)?);
        set(&mut p.sessions, self.sessions);
        set(&mut p.reads, self.reads);
        set(&mut p.runs, self.common.runs);
        set(&mut p.clients, self.common.threads("clients")?);
        run::execute(&mut Session { params: p }, &self.common.options()?)
    }
}

impl TpchArgs {
    pub fn run(self) -> Result<i32> {
        let mut p = match &self.common.preset {
            Some(name) => tpch::presets::preset(name)?,
            None => tpch::presets::default_params(),
        };
        if let Some(list) = &self.sf {
            p.scale_factors = tpch::presets::parse_scale_factors(list)?;
        }
        if let Some(s) = self.streams {
            if s == 0 {
                bail!("--streams must be at least 1");
            }
            p.streams = Some(s);
        }
        if self.common.runs.is_some() {
            bail!("tpch runs the load, power and throughput tests once per scale factor; it takes no --runs");
        }
        if self.common.threads.is_some() {
            bail!("tpch takes --streams (query streams of the throughput test), not --threads");
        }
        p.validate = self.validate;
        if let Some(dir) = &self.keep_data {
            std::fs::create_dir_all(dir).with_context(|| {
                format!("cannot create --keep-data directory {}", dir.display())
            })?;
            p.keep_data = Some(dir.clone());
        }
        run::execute(&mut Tpch { params: p }, &self.common.options()?)
    }
}

impl WisconsinArgs {
    pub fn run(self) -> Result<i32> {
        let mut p = match &self.common.preset {
            Some(name) => wisconsin::presets::preset(name)?,
            None => wisconsin::presets::default_params(),
        };
        set(&mut p.tuples, self.tuples);
        if let Some(q) = &self.queries {
            p.queries = wisconsin::queries::parse_selection(q)?;
        }
        if let Some(m) = &self.result_mode {
            p.result_mode = wisconsin::presets::ResultMode::parse(m)?;
        }
        set(&mut p.runs, self.common.runs);
        if self.common.threads.is_some() {
            bail!("the wisconsin workload is single user: it takes no --threads");
        }
        run::execute(&mut Wisconsin::new(p), &self.common.options()?)
    }
}
