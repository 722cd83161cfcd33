//! The key-value workload of the Berkeley DB papers (000 tables 3-5, 002): fixed-size records in
//! batches of sequential keys, steps timed from first to last operation, repeated runs.

pub mod flags;
pub mod keys;
pub mod presets;
mod view;

use crate::durability::Durability;
use crate::engine::kv::{retry_conflicts, KvEngine, KvOptions};
use crate::engine::{Engine, Named, Takes};
use crate::engine::{KvSession, KvStore};
use crate::measure::progress::Progress;
use crate::measure::runner::{run_step, StepOutcome, Worker};
use crate::measure::timing::Timing;
use crate::results::{MeasurementKey, Metric};
use crate::workload::{engine_levels, Plan, RunContext, StepLength, Workload};
use anyhow::{bail, Context, Result};
use presets::{KvParams, Op, Step, TxnSize};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// One configuration to measure: an engine at a durability level with a thread count.
#[derive(Clone, Copy)]
pub struct Config {
    pub engine: Named<dyn KvEngine>,
    pub durability: Durability,
    pub threads: usize,
}

impl std::fmt::Display for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = if self.threads == 1 { "" } else { "s" };
        let (engine, level, threads) = (self.engine.name(), self.durability, self.threads);
        write!(f, "{engine} {level} {threads} thread{s}")
    }
}

/// The workload is its parameters.
impl Workload for KvParams {
    type Config = Config;
    const NAME: &'static str = "kv";
    const VIEW: &'static dyn crate::report::view::View = &view::KvView;
    const TAKES: Takes = Takes::OrderedKv;
    /// Berkeley DB for its own papers' presets.
    const PRESET_ENGINES: &'static [(&'static str, &'static str)] =
        &[("bdb-11gr2", "bdb"), ("bdb-4.3", "bdb")];
    const PACED: bool = true;

    /// A step's timed units: its records, one transaction of a batch or of one record each.
    fn step_length(&self) -> StepLength {
        StepLength::Operations(match self.txn_size {
            TxnSize::Batch => self.batches,
            TxnSize::Op => self.records(),
        })
    }

    fn plan(&self, engines: &[Engine], named: Option<&[Durability]>) -> Result<Plan<Config>> {
        check(self, engines)?;
        let p = self;
        engine_levels(
            engines,
            named,
            &p.default_durability,
            &p.threads,
            |e, durability, threads| {
                let engine = e.as_kv()?;
                Some(Config {
                    engine,
                    durability,
                    threads,
                })
            },
        )
    }

    fn run_config(&mut self, config: &Config, ctx: &mut RunContext) -> Result<()> {
        run_config(self, *config, ctx, &config.to_string())
    }

    fn finish(&mut self, ctx: &mut RunContext) -> Result<()> {
        derive_ratios(self, ctx);
        Ok(())
    }
}

/// Refuses sizes the workload or an engine cannot take, before anything runs.
fn check(params: &KvParams, engines: &[Engine]) -> Result<()> {
    let check_sizes = |what: &str, n: usize| -> Result<()> {
        if n < keys::MIN_SIZE {
            bail!(
                "{what} must be at least {} bytes to hold the record number, not {n}",
                keys::MIN_SIZE
            );
        }
        if n > 1 << 20 {
            bail!("{what} of {n} bytes is too large for the kv workload (at most 1MB)");
        }
        Ok(())
    };
    check_sizes("--key-size", params.key_size)?;
    check_sizes("--value-size", params.value_size)?;
    if params.batches == 0 || params.batch_size == 0 {
        bail!("--batches must be at least 1");
    }
    if params.runs == 0 {
        bail!("--runs must be at least 1");
    }
    for engine in engines.iter().filter_map(|e| e.as_kv()) {
        if let Some(max) = engine.max_key_bytes() {
            if params.key_size > max {
                bail!(
                    "engine '{}' takes keys of at most {max} bytes, not {} (--key-size)",
                    engine.name(),
                    params.key_size
                );
            }
        }
        if let Some(c) = params.compression {
            if !engine.compressions().contains(&c) {
                bail!(
                    "engine '{}' does not compress its blocks: --compression {} is for rocksdb",
                    engine.name(),
                    c.name()
                );
            }
        }
    }
    Ok(())
}

fn run_config(params: &KvParams, config: Config, ctx: &mut RunContext, label: &str) -> Result<()> {
    let reported: Vec<&Step> = params.steps.iter().filter(|s| s.reported).collect();
    let mut outcomes: Vec<Vec<StepOutcome>> = reported.iter().map(|_| Vec::new()).collect();
    for run in 0..params.runs {
        let dir = ctx.config_dir(&config)?;
        let options = KvOptions {
            threads: config.threads,
            key_size: params.key_size,
            value_size: params.value_size,
            cache_bytes: params.cache_bytes,
            page_size: params.page_size,
            log_buffer_bytes: params.log_buffer_bytes,
            compression: params.compression,
            bulk_buffer_bytes: params.bulk_buffer_bytes,
            expected_records: params.records(),
            ..KvOptions::at(&dir, config.durability)
        };
        let store = config.engine.open(&options).with_context(|| {
            format!(
                "engine {} failed to open in {}",
                config.engine.name(),
                dir.display()
            )
        })?;
        if run == 0 {
            let (engine, level) = (Engine::Kv(config.engine), config.durability);
            ctx.record_engine(engine, level, config.engine.version(), store.settings());
        }
        let mut reported_index = 0;
        for (step_index, step) in params.steps.iter().enumerate() {
            let progress = Progress::new(
                &format!("{label} run {}/{}: {}", run + 1, params.runs, step.name),
                expected_ops(params, step, config.threads),
            );
            let seed = step_seed(ctx.seed, run, step_index);
            let timing = &ctx.timing;
            let outcome = run_kv_step(
                store.as_ref(),
                params,
                step,
                config,
                seed,
                timing,
                &progress,
            )
            .with_context(|| format!("step '{}' of run {}", step.name, run + 1))?;
            if step.reported {
                outcomes[reported_index].push(outcome);
                reported_index += 1;
            }
        }
        store.close()?;
    }
    for (step, outs) in reported.iter().zip(&outcomes) {
        let key = MeasurementKey::new(
            config.engine.name(),
            config.durability,
            config.threads,
            step.name,
            measurement_config(params),
        );
        ctx.measured(key, outs)?;
    }
    Ok(())
}

fn measurement_config(params: &KvParams) -> BTreeMap<String, serde_json::Value> {
    let mut c = BTreeMap::new();
    c.insert("key_size".into(), params.key_size.into());
    c.insert("key_layout".into(), params.key_layout.name().into());
    c.insert("value_size".into(), params.value_size.into());
    c.insert("batch_size".into(), params.batch_size.into());
    c.insert("batches".into(), params.batches.into());
    c.insert(
        "txn_size".into(),
        serde_json::to_value(params.txn_size).unwrap(),
    );
    c
}

fn expected_ops(params: &KvParams, step: &Step, threads: usize) -> u64 {
    match step.op {
        Op::Scan => params.records() * threads as u64,
        _ => params.records(),
    }
}

fn step_seed(seed: u64, run: usize, step: usize) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ ((run as u64) << 32) ^ step as u64
}

/// Times one step: each worker takes its own share of a random permutation of the batches.
fn run_kv_step(
    store: &dyn KvStore,
    params: &KvParams,
    step: &Step,
    config: Config,
    seed: u64,
    timing: &Timing,
    progress: &Progress,
) -> Result<StepOutcome> {
    // The batch order is drawn before the clock starts.
    let mut order: Vec<u64> = (0..params.batches).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let share = order.len().div_ceil(config.threads);
    let keeps_data = config.engine.keeps_data();
    run_step(
        config.threads,
        timing,
        progress,
        |_| store.session(),
        |session: &mut Box<dyn KvSession + '_>, worker: &mut Worker| {
            let mine = order.chunks(share).nth(worker.index).unwrap_or(&[]);
            let mut ops = Ops::new(params, session.as_mut(), keeps_data);
            if step.op == Op::Scan {
                let n = ops.scan()?;
                worker.count(n);
                return Ok(());
            }
            let per_txn = match params.txn_size {
                TxnSize::Batch => params.batch_size,
                TxnSize::Op => 1,
            };
            for &batch in mine {
                if !worker.more() {
                    break;
                }
                let first = batch * params.batch_size;
                let mut n = first;
                while n < first + params.batch_size {
                    let count = per_txn.min(first + params.batch_size - n);
                    let retries = worker.timed(count, || ops.transaction(step.op, n, count))?;
                    for _ in 0..retries {
                        worker.retried();
                    }
                    n += count;
                }
            }
            Ok(())
        },
    )
}

/// The operations of one worker, with its reusable buffers.
struct Ops<'a, 's> {
    session: &'a mut (dyn KvSession + 's),
    key: Vec<u8>,
    value: Vec<u8>,
    read: Vec<u8>,
    keeps_data: bool,
    records: u64,
    key_layout: keys::KeyLayout,
    /// The generation the value buffer's filler holds.
    value_generation: Option<u8>,
}

impl<'a, 's> Ops<'a, 's> {
    fn new(params: &KvParams, session: &'a mut (dyn KvSession + 's), keeps_data: bool) -> Self {
        Ops {
            session,
            key: vec![0; params.key_size],
            value: vec![0; params.value_size],
            read: Vec::with_capacity(params.value_size),
            keeps_data,
            records: params.records(),
            key_layout: params.key_layout,
            value_generation: None,
        }
    }

    /// Records `first..first+count` in one transaction, retried whole on a conflict.
    /// Returns how many retries it took.
    fn transaction(&mut self, op: Op, first: u64, count: u64) -> Result<u64> {
        let mut retries = 0;
        retry_conflicts(&mut retries, || {
            self.try_transaction(op, first, count)
                .inspect_err(|_| self.session.abort())
        })?;
        Ok(retries)
    }

    fn try_transaction(&mut self, op: Op, first: u64, count: u64) -> Result<()> {
        let write = op != Op::Fetch;
        // Padding and filler are written when the generation changes, not per operation: only
        // the record number differs from one operation to the next.
        let generation = match op {
            Op::Update => 1,
            _ => 0,
        };
        if write && self.value_generation != Some(generation) {
            keys::encode_value(0, generation, &mut self.value);
            self.value_generation = Some(generation);
        }
        self.session.begin(write)?;
        for n in first..first + count {
            self.key_layout.renumber(n, &mut self.key);
            match op {
                Op::Insert | Op::Update => {
                    keys::renumber_value(n, &mut self.value);
                    self.session.put(&self.key, &self.value)?;
                }
                Op::Fetch => {
                    let found = self.session.get(&self.key, &mut self.read)?;
                    if self.keeps_data && (!found || keys::value_number(&self.read) != Some(n)) {
                        bail!(
                            "fetch of record {n} returned {}",
                            if found {
                                "another record's value"
                            } else {
                                "nothing"
                            }
                        );
                    }
                }
                Op::Delete => {
                    let found = self.session.delete(&self.key)?;
                    if self.keeps_data && !found {
                        bail!("delete of record {n} found no record");
                    }
                }
                Op::Scan => unreachable!("scans are not transactions of single records"),
            }
        }
        self.session.commit()
    }

    fn scan(&mut self) -> Result<u64> {
        let mut last: Option<u64> = None;
        let mut out_of_order = false;
        let layout = self.key_layout;
        let n = self.session.scan(&mut |key, _| {
            let k = layout.decode(key);
            out_of_order |= last.is_some_and(|l| l >= k);
            last = Some(k);
        })?;
        if self.keeps_data {
            if n != self.records {
                bail!("bulk read saw {n} records, expected {}", self.records);
            }
            if out_of_order {
                bail!("bulk read returned keys out of integer order");
            }
        }
        Ok(n)
    }
}

/// The ratios paper 002 prints, from this run's figures: TDS read / DS read, each level's writes
/// relative to the next more relaxed one, and the bulk read's speed-up over single reads.
fn derive_ratios(params: &KvParams, ctx: &mut RunContext) {
    if params.preset != Some("bdb-4.3") {
        return;
    }
    let figure = |ctx: &RunContext, engine: &str, level: Durability, step: &str| {
        ctx.recorder
            .result()
            .measurements
            .iter()
            .find(|m| {
                m.engine == engine
                    && m.durability == level.name()
                    && m.step == step
                    && m.threads == 1
            })
            .map(|m| m.ops_per_sec_mean)
    };
    let engines: Vec<String> = ctx
        .recorder
        .result()
        .engines
        .iter()
        .map(|e| e.engine.clone())
        .collect();
    let mut seen = Vec::new();
    for engine in engines {
        if seen.contains(&engine) {
            continue;
        }
        seen.push(engine.clone());
        let mut metrics = Vec::new();
        let tds_read = [
            Durability::InMemory,
            Durability::Nosync,
            Durability::WriteNosync,
            Durability::Sync,
        ]
        .into_iter()
        .find_map(|l| figure(ctx, &engine, l, "read"));
        if let (Some(t), Some(d)) = (tds_read, figure(ctx, &engine, Durability::None, "read")) {
            metrics.push(("tds_read / ds_read".to_string(), t / d));
        }
        let chain = [
            (
                Durability::InMemory,
                Durability::None,
                "in-memory write / ds write",
            ),
            (
                Durability::Nosync,
                Durability::InMemory,
                "nosync write / in-memory write",
            ),
            (
                Durability::WriteNosync,
                Durability::Nosync,
                "write-nosync write / nosync write",
            ),
            (
                Durability::Sync,
                Durability::WriteNosync,
                "sync write / write-nosync write",
            ),
        ];
        for (level, relaxed, name) in chain {
            if let (Some(a), Some(b)) = (
                figure(ctx, &engine, level, "write"),
                figure(ctx, &engine, relaxed, "write"),
            ) {
                metrics.push((name.to_string(), a / b));
            }
        }
        for level in Durability::ALL {
            if let (Some(bulk), Some(read)) = (
                figure(ctx, &engine, level, "bulk-read"),
                figure(ctx, &engine, level, "read"),
            ) {
                metrics.push((format!("bulk read speed-up at {level}"), bulk / read));
            }
        }
        for (name, value) in metrics {
            ctx.recorder.metric(Metric {
                name,
                value,
                unit: "ratio".into(),
                engine: Some(engine.clone()),
                note: None,
            });
        }
    }
}
