//! The session-store workload (source 001): a web application's sessions written once and read
//! back many times, as one value, as 4000-byte chunks, or compressed first.
//!
//! Per engine x layout x codec x size: write `sessions` sessions into an emptied store, then read
//! `reads` sessions by random id. Compression and decompression are part of the timed steps (the
//! application pays for them); checking the bytes read against the bytes written is not timed,
//! but a mismatch ends the configuration with an error.

pub mod data;
pub mod flags;
pub mod presets;
#[cfg(test)]
pub(crate) mod snapshot;
pub mod store;
mod view;

use crate::durability::Durability;
use crate::engine::Engine;
use crate::engine::Takes;
use crate::measure::progress::Progress;
use crate::measure::runner::{run_step, StepOutcome};
use crate::measure::timing::Timing;
use crate::measure::worker::Worker;
use crate::results::MeasurementKey;
use crate::workload::{preferred_levels, Plan, RunContext, StepLength, Workload};
use anyhow::{bail, Context, Result};
use data::Codec;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use store::{Layout, OpenOptions, SessionClient, SessionStore};

pub use presets::{default_params, SessionParams};

/// The largest size a run accepts: sessions are held in memory to check what is read back.
pub const MAX_SIZE: u64 = 64 << 20;

#[derive(Clone, Copy)]
pub struct Config {
    pub engine: Engine,
    pub durability: Durability,
}

impl std::fmt::Display for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at {}", self.engine.name(), self.durability)
    }
}

/// The workload is its parameters.
impl Workload for SessionParams {
    type Config = Config;
    const NAME: &'static str = "session";
    const VIEW: &'static dyn crate::report::view::View = &view::SessionView;
    const TAKES: Takes = Takes::Records;
    const PACED: bool = true;

    /// Which implementation each codec of the run is.
    fn start(&mut self, ctx: &mut RunContext) {
        let used: Vec<String> = (self.compress.iter())
            .filter(|c| **c != Codec::None)
            .map(|c| c.implementation())
            .collect();
        if !used.is_empty() {
            ctx.recorder
                .note(format!("compression: {}", used.join("; ")));
        }
    }

    #[cfg(test)]
    fn statements() -> String {
        snapshot::statements()
    }

    fn step_length(&self) -> StepLength {
        StepLength::Operations(self.sessions.min(self.reads))
    }

    /// Without named levels each engine runs at `sync`, or at the one level a cache offers.
    fn plan(&self, engines: &[Engine], named: Option<&[Durability]>) -> Result<Plan<Config>> {
        check(self)?;
        let make = |engine, durability, _| Some(Config { engine, durability });
        preferred_levels(engines, named, Durability::Sync, &[1], make)
    }

    fn run_config(&mut self, config: &Config, ctx: &mut RunContext) -> Result<()> {
        run_config(self, *config, ctx)
    }
}

/// Refuses parameters the run cannot honour, before anything starts.
fn check(params: &SessionParams) -> Result<()> {
    if params.runs == 0 || params.sessions == 0 || params.reads == 0 {
        bail!("--runs, --sessions and --reads must be at least 1");
    }
    for &s in &params.sizes {
        if s == 0 || s > MAX_SIZE {
            bail!(
                "session sizes must be from 1 byte to {}; got {s}",
                crate::units::bytes(MAX_SIZE)
            );
        }
    }
    if params.sizes.is_empty() || params.layouts.is_empty() || params.compress.is_empty() {
        bail!("at least one size, layout and compression are needed");
    }
    Ok(())
}

fn run_config(params: &SessionParams, config: Config, ctx: &mut RunContext) -> Result<()> {
    let dir = ctx.config_dir(&config)?;
    let largest = params.sizes.iter().copied().max().unwrap_or(0);
    let store = SessionStore::open(
        config.engine,
        &OpenOptions {
            dir: &dir,
            durability: config.durability,
            url: ctx.url_for(config.engine),
            dialect: ctx.dialect(),
            clients: params.clients.iter().copied().max().unwrap_or(1),
            // base64 makes four bytes of three; the object adds its id and braces.
            max_value_bytes: payload_len(largest),
            records: params.sessions * params.layouts.len() as u64,
            value_sizes: (params.sizes.len() * params.compress.len()) as u64,
            topology: ctx.topology(),
        },
    )?;
    let outcome = measure_config(params, config, &store, ctx);
    let cleanup = params
        .layouts
        .iter()
        .try_for_each(|&l| store.drop_layout(l));
    store.close()?;
    outcome.and(cleanup)
}

/// The length of a session payload holding `text` bytes.
fn payload_len(text: u64) -> u64 {
    data::payload(0, 0, 0).len() as u64 + text.div_ceil(3) * 4 + 4
}

fn measure_config(
    params: &SessionParams,
    config: Config,
    store: &SessionStore,
    ctx: &mut RunContext,
) -> Result<()> {
    let mut settings: BTreeMap<String, String> = store.settings().into_iter().collect();
    for &layout in &params.layouts {
        settings.insert(format!("layout {}", layout.name()), store.describe(layout));
    }
    let version = match (store.version(), config.engine) {
        (Some(v), _) => v,
        (None, Engine::Kv(e)) => e.version(),
        (None, Engine::Sql(_)) => String::new(),
    };
    ctx.record_engine(config.engine, config.durability, version, settings);
    let ids: Vec<String> = (0..params.sessions)
        .map(|i| data::session_id(ctx.seed, i))
        .collect();
    for &layout in &params.layouts {
        store.create(layout)?;
        for &size in &params.sizes {
            let payloads: Vec<Vec<u8>> = (0..params.sessions)
                .map(|i| data::payload(ctx.seed, i, size as usize))
                .collect();
            for &codec in &params.compress {
                if let Some(limit) = store.max_value_bytes() {
                    let biggest = match layout {
                        Layout::Blob => codec.compress(&payloads[0])?.len() as u64,
                        Layout::Chunked => store::CHUNK_BYTES as u64,
                    };
                    // Compressed sizes vary a little between sessions: keep a margin.
                    if biggest + biggest / 20 > limit {
                        let why = format!(
                            "skipped: {} {} {} at {}: a stored session of about {} exceeds the \
                             server's item size limit of {}",
                            config.engine.name(),
                            layout.name(),
                            codec.name(),
                            crate::units::bytes(size),
                            crate::units::bytes(biggest),
                            crate::units::bytes(limit)
                        );
                        eprintln!("note: {why}");
                        ctx.recorder.note(why);
                        continue;
                    }
                }
                for &clients in &params.clients {
                    let cell = Cell {
                        config,
                        layout,
                        codec,
                        size,
                        clients,
                    };
                    measure_cell(params, &cell, store, &ids, &payloads, ctx)?;
                }
            }
        }
        store.drop_layout(layout)?;
    }
    Ok(())
}

/// One engine x layout x codec x size x clients.
struct Cell {
    config: Config,
    layout: Layout,
    codec: Codec,
    size: u64,
    clients: usize,
}

fn measure_cell(
    params: &SessionParams,
    cell: &Cell,
    store: &SessionStore,
    ids: &[String],
    payloads: &[Vec<u8>],
    ctx: &mut RunContext,
) -> Result<()> {
    let mut writes = Vec::new();
    let mut reads = Vec::new();
    let stored_bytes = AtomicU64::new(0);
    let sessions = Sessions {
        cell,
        store,
        ids,
        payloads,
    };
    for run in 0..params.runs {
        let label = format!(
            "{} {} {} {} {} client(s), run {}/{}",
            cell.config.engine.name(),
            cell.layout.name(),
            cell.codec.name(),
            crate::units::bytes(cell.size),
            cell.clients,
            run + 1,
            params.runs
        );
        // The store is emptied first, untimed.
        let mut c = store.client(cell.layout)?;
        for id in ids {
            c.remove(id)?;
        }
        drop(c);
        stored_bytes.store(0, Ordering::Relaxed);
        let progress = Progress::new(&format!("{label}: write"), params.sessions);
        let timing = &ctx.timing;
        let outcome = write_step(&sessions, &stored_bytes, timing, &progress)
            .with_context(|| format!("{label}: writing"))?;
        progress.finish();
        writes.push(outcome);
        let progress = Progress::new(&format!("{label}: read"), params.reads);
        let seed = ctx.seed ^ ((run as u64) << 32) ^ cell.size;
        let draws = Draws {
            sessions: params.sessions,
            reads: params.reads,
            seed,
        };
        let outcome = read_step(draws, &sessions, timing, &progress)
            .with_context(|| format!("{label}: reading"))?;
        progress.finish();
        reads.push(outcome);
    }
    let stored_per_session = stored_bytes.load(Ordering::Relaxed) / params.sessions;
    let key = |step: &str| {
        let mut config = BTreeMap::new();
        config.insert("layout".into(), cell.layout.name().into());
        config.insert("compress".into(), cell.codec.name().into());
        config.insert("size".into(), cell.size.into());
        MeasurementKey::new(
            cell.config.engine.name(),
            cell.config.durability,
            cell.clients,
            step,
            config,
        )
        .producing("payload_bytes", payloads[0].len() as u64)
        .producing("stored_bytes", stored_per_session)
    };
    ctx.measured(key("write"), &writes)?;
    ctx.measured(key("read"), &reads)?;
    Ok(())
}

/// A cell's sessions in its store: what its steps write and read.
struct Sessions<'a> {
    cell: &'a Cell,
    store: &'a SessionStore,
    ids: &'a [String],
    payloads: &'a [Vec<u8>],
}

impl<'a> Sessions<'a> {
    /// A timed step of the cell's clients, each with a client of the store.
    fn step(
        &self,
        timing: &Timing,
        progress: &Progress,
        body: impl Fn(&mut Box<dyn SessionClient + 'a>, &mut Worker) -> Result<()> + Sync,
    ) -> Result<StepOutcome> {
        let (cell, store) = (self.cell, self.store);
        run_step(
            cell.clients,
            timing,
            progress,
            |_| store.client(cell.layout),
            body,
        )
    }
}

/// Every session written once, split among the clients; the bytes stored are counted.
fn write_step(
    s: &Sessions,
    stored_bytes: &AtomicU64,
    timing: &Timing,
    progress: &Progress,
) -> Result<StepOutcome> {
    let (cell, ids, payloads) = (s.cell, s.ids, s.payloads);
    let sessions = payloads.len() as u64;
    s.step(timing, progress, |client, worker| {
        let mine = (worker.index as u64..sessions).step_by(cell.clients);
        for i in mine {
            if !worker.more() {
                break;
            }
            let payload = &payloads[i as usize];
            let mut retries = 0;
            worker.timed(1, || {
                let stored = cell.codec.compress(payload)?;
                stored_bytes.fetch_add(stored.len() as u64, Ordering::Relaxed);
                crate::engine::kv::retry_conflicts(&mut retries, || {
                    client.write(&ids[i as usize], &stored)
                })
            })?;
            (0..retries).for_each(|_| worker.retried());
        }
        Ok(())
    })
}

/// How many random reads of how many sessions, from which seed.
struct Draws {
    sessions: u64,
    reads: u64,
    seed: u64,
}

/// Random sessions read back and compared with what was written, split among the clients.
fn read_step(
    draws: Draws,
    s: &Sessions,
    timing: &Timing,
    progress: &Progress,
) -> Result<StepOutcome> {
    let (cell, ids, payloads) = (s.cell, s.ids, s.payloads);
    s.step(timing, progress, |client, worker| {
        let mut rng = ChaCha8Rng::seed_from_u64(draws.seed ^ worker.index as u64);
        let share = draws.reads / cell.clients as u64
            + u64::from((worker.index as u64) < draws.reads % cell.clients as u64);
        let mut raw = Vec::new();
        for _ in 0..share {
            if !worker.more() {
                break;
            }
            let i = rng.random_range(0..draws.sessions) as usize;
            let expected = &payloads[i];
            let mut retries = 0;
            let session = worker.timed(1, || {
                if !crate::engine::kv::retry_conflicts(&mut retries, || {
                    client.read(&ids[i], &mut raw)
                })? {
                    bail!("session {} is missing", ids[i]);
                }
                cell.codec.decompress(&raw, expected.len())
            })?;
            (0..retries).for_each(|_| worker.retried());
            if session != *expected {
                bail!(
                    "session {} read back {} bytes that differ from the {} written",
                    ids[i],
                    session.len(),
                    expected.len()
                );
            }
        }
        Ok(())
    })
}
