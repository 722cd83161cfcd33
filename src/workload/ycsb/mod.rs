//! YCSB's core workloads (Cooper et al., "Benchmarking Cloud Serving Systems with YCSB", 2010)
//! on every engine: a load phase that inserts the records, then a run phase of reads, updates,
//! inserts, short scans and read-modify-writes in a workload's proportions, on records chosen
//! by YCSB's own generators. Each phase is timed and recorded apart; the run phase also per
//! kind of operation.

pub mod flags;
pub mod generators;
pub mod presets;
mod properties;
mod shards;
pub(crate) mod store;
mod view;
mod worker;

use crate::durability::Durability;
use crate::engine::{Engine, Takes};
use crate::measure::progress::Progress;
use crate::measure::runner::{run_step, StepOutcome, Worker};
use crate::measure::timing::Timing;
use crate::results::MeasurementKey;
use crate::shard::Shard;
use crate::workload::kept::{Kept, Made};
use crate::workload::{preferred_levels, Plan, RunContext, StepLength, Workload};
use anyhow::{bail, Context, Result};
use generators::{Distribution, Exponential, InsertSequence, LengthDistribution};
use presets::{Mix, Operation, YcsbParams};
use shards::{Mark, Meeting, Phase};
use std::collections::BTreeMap;
use store::{OpenOptions, Records, Shape};
use worker::WorkerState;

/// One configuration: an engine at a durability level, a mix with its distribution, threads.
#[derive(Clone)]
pub struct Config {
    pub engine: Engine,
    pub durability: Durability,
    pub threads: usize,
    pub mix: Mix,
}

impl std::fmt::Display for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = if self.threads == 1 { "" } else { "s" };
        write!(
            f,
            "{} {} ycsb-{} {} {} thread{s}",
            self.engine.name(),
            self.durability,
            self.mix.name,
            self.mix.distribution.name(),
            self.threads
        )
    }
}

/// Whether `engine` can read a range of records from a key on (workload E's scans).
fn range_scan(engine: Engine) -> bool {
    match engine {
        Engine::Sql(_) => true,
        Engine::Kv(e) => e.range_scan(),
    }
}

impl Workload for YcsbParams {
    type Config = Config;
    const NAME: &'static str = "ycsb";
    const VIEW: &'static dyn crate::report::view::View = &view::YcsbView;
    const TAKES: Takes = Takes::Any;
    const PACED: bool = true;
    const SHARDED: bool = true;
    const KEEPS: bool = true;

    #[cfg(test)]
    fn statements() -> String {
        store::snapshot()
    }

    fn rate(&self) -> Option<f64> {
        self.target
    }

    fn step_length(&self) -> StepLength {
        match self.operations {
            Some(ops) => {
                StepLength::Operations(ops / *self.threads.iter().max().unwrap_or(&1) as u64)
            }
            None => StepLength::Seconds(self.duration_secs),
        }
    }

    /// Each engine runs at write-nosync (commits reach the OS, as most stores' defaults do)
    /// where it offers it, else at the first level it offers.
    fn plan(&self, engines: &[Engine], named: Option<&[Durability]>) -> Result<Plan<Config>> {
        check(self)?;
        let base = preferred_levels(
            engines,
            named,
            Durability::WriteNosync,
            &self.threads,
            |engine, durability, threads| Some((engine, durability, threads)),
        )?;
        let mut plan = Plan {
            configs: Vec::new(),
            notes: base.notes,
        };
        for (engine, durability, threads) in base.configs {
            for mix in &self.mixes {
                if mix.share(Operation::Scan) > 0.0 && !range_scan(engine) {
                    plan.notes.push(format!(
                        "skipped: {} cannot run ycsb-{}: its scans need a range of keys read \
                         in order, and {} keeps no key order",
                        engine.name(),
                        mix.name,
                        engine.name()
                    ));
                    continue;
                }
                let distributions = match &self.distributions {
                    Some(list) => list.clone(),
                    None => vec![mix.distribution],
                };
                for distribution in distributions {
                    let mix = Mix {
                        distribution,
                        ..mix.clone()
                    };
                    plan.configs.push(Config {
                        engine,
                        durability,
                        threads,
                        mix,
                    });
                }
            }
        }
        Ok(plan)
    }

    fn run_config(&mut self, config: &Config, ctx: &mut RunContext) -> Result<()> {
        run_config(self, config, ctx)
    }
}

/// Refuses parameters the run cannot honour, before anything starts.
fn check(p: &YcsbParams) -> Result<()> {
    if p.records == 0 || p.runs == 0 || p.field_count == 0 || p.field_length == 0 {
        bail!("--records, --runs, --field-count and --field-length must be at least 1");
    }
    if p.operations == Some(0) {
        bail!("--operations must be at least 1");
    }
    if p.operations.is_none() && p.duration_secs <= 0.0 {
        bail!("--duration must be more than 0 seconds");
    }
    if p.max_scan_length == 0 {
        bail!("--max-scan-length must be at least 1");
    }
    if p.min_scan_length == 0 || p.min_scan_length > p.max_scan_length {
        bail!(
            "the shortest scan (minscanlength={}) must be from 1 to the longest \
             (--max-scan-length, maxscanlength: {})",
            p.min_scan_length,
            p.max_scan_length
        );
    }
    if p.field_lengths != LengthDistribution::Constant && p.min_field_length > p.field_length {
        bail!(
            "the shortest field (minfieldlength={}) is longer than the longest (--field-length, \
             fieldlength: {})",
            p.min_field_length,
            p.field_length
        );
    }
    check_slice(p)?;
    if p.field_count > 1000 || p.field_length > 1 << 20 {
        bail!("records of more than 1000 fields or fields over 1MB are not supported");
    }
    Ok(())
}

/// A slice of the records (`insertstart`, `insertcount`) must lie within them, and be chosen
/// from only by distributions that stay in it, as YCSB's do: uniform, hotspot, and zipfian when
/// the slice runs to the last record (its range goes on into the run's inserts); `latest` and
/// `exponential` read back from the newest record, below a slice that does not start at 0.
fn check_slice(p: &YcsbParams) -> Result<()> {
    let slice = p.slice();
    if p.insert_count == Some(0) || slice.end > p.records || slice.is_empty() {
        bail!(
            "insertstart={} and insertcount={} must name some of the {} records (recordcount)",
            p.insert_start,
            p.insert_count.unwrap_or(slice.end - slice.start),
            p.records
        );
    }
    if !p.sliced() {
        return Ok(());
    }
    let distributions = match &p.distributions {
        Some(list) => list.clone(),
        None => p.mixes.iter().map(|m| m.distribution).collect(),
    };
    for d in distributions {
        let stays = match d {
            Distribution::Uniform | Distribution::Hotspot => true,
            Distribution::Zipfian => slice.end == p.records,
            Distribution::Latest | Distribution::Exponential => slice.start == 0,
        };
        if !stays {
            bail!(
                "requestdistribution={}: it would choose records outside insertstart={}, \
                 insertcount={} (of {}), which this run does not load",
                d.name(),
                p.insert_start,
                slice.end - slice.start,
                p.records
            );
        }
    }
    Ok(())
}

fn shape(p: &YcsbParams) -> Shape {
    Shape {
        fields: p.field_count,
        field_length: p.field_length,
        read_one: !p.read_all_fields,
        write_all: p.write_all_fields,
    }
}

fn run_config(p: &YcsbParams, config: &Config, ctx: &mut RunContext) -> Result<()> {
    let shard = ctx.shard.unwrap_or(Shard::WHOLE);
    if p.sliced() && shard.count > 1 {
        bail!(
            "insertstart and insertcount split the records as --shard does: give one or the other"
        );
    }
    // The clients of a sharded run share the records; shard 1 removes them at the end.
    let sharded = shard.count > 1;
    let mut loads = Vec::new();
    let mut runs = Vec::new();
    // --load-only loads once.
    let times = if ctx.phases.runs() { p.runs } else { 1 };
    for run in 0..times {
        let dir = ctx.config_dir(config)?;
        let records = Records::open(
            config.engine,
            &OpenOptions {
                dir: &dir,
                durability: config.durability,
                url: ctx.url_for(config.engine),
                dialect: ctx.dialect(),
                threads: config.threads,
                shape: shape(p),
                records: p.records + expected_inserts(p, &config.mix) * shard.count as u64,
                topology: ctx.topology(),
                shared: !shard.is_first() || ctx.phases.keeps(),
            },
        )
        .with_context(|| format!("engine {} failed to open", config.engine.name()))?;
        if run == 0 {
            let version = (records.version())
                .or_else(|| config.engine.as_kv().map(|e| e.version()))
                .unwrap_or_default();
            ctx.record_engine(
                config.engine,
                config.durability,
                version,
                records.settings(),
            );
        }
        let meeting = sharded.then(|| {
            let at = (ctx.timing.start_at).map_or(0.0, crate::results::time::unix_seconds);
            Meeting::new(
                &records,
                shape(p),
                shard,
                &format!("{at:.3} {config} {run}"),
            )
        });
        let outcome = measure_run(p, config, &records, ctx, run, meeting.as_ref());
        let (outcome, kept) = match outcome {
            Ok((load, measured, kept)) => (Ok((load, measured)), kept),
            Err(e) => (Err(e), Vec::new()),
        };
        for note in kept {
            ctx.note(note);
        }
        if let (Err(_), Some(m)) = (&outcome, &meeting) {
            // Best effort: the failure itself is what this client reports.
            let _ = m.mark(Mark::Failed);
        }
        let finished = meeting.as_ref().map_or(Ok(()), Meeting::finish);
        // The table is hakari's own: dropped even when the run failed, by shard 1 once every
        // shard is done.
        let dropped = match shard.is_first() && !ctx.phases.keeps() {
            true => finished.and_then(|()| records.drop_table(shape(p))),
            false => finished,
        };
        records.close()?;
        let (load, measured) = outcome?;
        dropped?;
        match load {
            // Without --load all only shard 1 loads: the others have no load to merge with its.
            Some(load) if sharded && !shard.load_all => ctx.recorder.note(format!(
                "{config} run {}/{}: shard {shard} loaded {} records in {} before the run phase (not part of any figure: only shard 1 loads; with --load all every shard loads its part, timed)",
                run + 1,
                p.runs,
                load.ops,
                crate::units::duration(load.seconds)
            )),
            Some(load) => loads.push(load),
            None => {}
        }
        runs.extend(measured);
    }
    record(p, config, ctx, loads, runs)
}

/// Inserts the run phase expects (YCSB's `expectednewkeys`, doubled as YCSB does).
fn expected_inserts(p: &YcsbParams, mix: &Mix) -> u64 {
    let operations = p.operations.unwrap_or(p.records) as f64;
    (operations * mix.share(Operation::Insert) * 2.0) as u64
}

/// What one run measured: its load (None when another shard loads, or the records were kept),
/// its run phase (None with `--load-only`), and its notes on kept records.
type Measured = (Option<StepOutcome>, Option<StepOutcome>, Vec<String>);

/// One run: the load phase (on fresh records), then the run phase.
fn measure_run(
    p: &YcsbParams,
    config: &Config,
    records: &Records,
    ctx: &RunContext,
    run: usize,
    meeting: Option<&Meeting>,
) -> Result<Measured> {
    let shard = meeting.map_or(Shard::WHOLE, |m| m.shard);
    let each_loads = shard.load_all && meeting.is_some();
    let label = format!("{config} run {}/{}", run + 1, p.runs);
    let made = made(p);
    let inserts = config.mix.share(Operation::Insert) > 0.0 && ctx.phases.runs();
    let kept = records.with_ledger(|l| made.find(l, ctx.phases))?;
    if kept.is_none() {
        records.with_ledger(|l| made.forget(l))?;
    }
    if shard.is_first() && kept.is_none() {
        records.create(shape(p))?;
    }
    // The others check in, and with --load all load, once shard 1 has made the table.
    match meeting {
        Some(m) if shard.is_first() => m.open()?,
        Some(m) => {
            eprintln!("  shard {shard}: waiting for shard 1 to create the records");
            m.opened()?;
        }
        None => {}
    }
    // The load is a closed loop of inserts: no rate, no warm-up. When every shard loads its
    // part, the loads start together.
    let load_start = match meeting {
        Some(m) if each_loads && kept.is_none() => Some(m.start(Phase::Load, ctx.timing.start_at)?),
        _ => None,
    };
    let load_timing = Timing {
        interval: ctx.timing.interval,
        print_intervals: ctx.timing.print_intervals,
        keep_histograms: ctx.timing.keep_histograms,
        start_at: load_start,
        resources: ctx.timing.resources,
        ..Timing::default()
    };
    let seed = ctx.seed ^ ((run as u64) << 40);
    let part = match p.sliced() {
        true => Some(p.slice()),
        false => shard
            .load_part(p.records)
            .map(|part| part.start() - 1..*part.end()),
    };
    let load = match part.filter(|_| kept.is_none()) {
        Some(numbers) => {
            let progress = Progress::new(&format!("{label}: load"), numbers.end - numbers.start);
            let outcome = load(p, config, records, numbers, &load_timing, &progress, seed);
            Some(outcome.context("load phase")?)
        }
        None => None,
    };
    let mut timing = match p.operations {
        Some(_) => ctx.timing.clone(),
        None => ctx.timing.lasting(p.duration_secs),
    };
    if let Some(m) = meeting {
        if !shard.is_first() && !each_loads {
            eprintln!("  shard {shard}: checked in; waiting for shard 1 to load the records");
        }
        timing.start_at = Some(m.start(Phase::Run, ctx.timing.start_at)?);
    }
    let mut notes: Vec<String> = kept.iter().map(|k| k.note(&label, "ycsb")).collect();
    // A run phase that inserts leaves more records than the parameters say: not kept.
    match inserts {
        true if ctx.phases.keeps() => {
            records.with_ledger(|l| made.forget(l))?;
            notes.push(format!("{label}: the run phase inserts, so its records are left on the server but not kept for another run (one with --keep loads afresh)"));
        }
        false if kept.is_none() => {
            records.with_ledger(|l| made.remember(l, ctx.phases, &Kept::now(seed)))?
        }
        _ => {}
    }
    if !ctx.phases.runs() {
        return Ok((load, None, notes));
    }
    let progress = Progress::new(&format!("{label}: run"), p.operations.unwrap_or(0));
    let measured =
        run_phase(p, config, records, shard, &timing, &progress, seed).context("run phase")?;
    let counted = (measured.fault.as_ref())
        .and(measured.resources.as_ref())
        .map(|r| &r.counted);
    if let Some((Some(lost), Some(acknowledged))) =
        counted.map(|c| (c.get("fault.lost"), c.get("fault.acknowledged")))
    {
        notes.push(format!("{label}: after the fault, {lost} of the {acknowledged} records the run phase inserted and had acknowledged are missing"));
    }
    Ok((load, Some(measured), notes))
}

/// What makes the records a later run may use (`--keep`), in YCSB's property names. The values
/// are random: the seed that drew them is recorded beside, not required.
fn made(p: &YcsbParams) -> Made {
    let slice = p.slice();
    Made::new(
        "ycsb",
        vec![
            format!("recordcount={}", p.records),
            format!("insertstart={}", slice.start),
            format!("insertcount={}", slice.end - slice.start),
            format!("fieldcount={}", p.field_count),
            format!("fieldlength={}", p.field_length),
            format!("minfieldlength={}", p.min_field_length),
            format!("fieldlengthdistribution={}", p.field_lengths.name()),
            format!(
                "insertorder={}",
                if p.keys.ordered { "ordered" } else { "hashed" }
            ),
            format!("zeropadding={}", p.keys.zero_padding),
        ],
    )
}

/// Inserts the records numbered `numbers` (all of them, or this shard's part), each worker
/// its share.
fn load(
    p: &YcsbParams,
    config: &Config,
    records: &Records,
    numbers: std::ops::Range<u64>,
    timing: &Timing,
    progress: &Progress,
    seed: u64,
) -> Result<StepOutcome> {
    let share = (numbers.end - numbers.start).div_ceil(config.threads as u64);
    run_step(
        config.threads,
        timing,
        progress,
        |i| WorkerState::new(p, config, records, Shard::WHOLE, seed, i),
        |s: &mut WorkerState, worker: &mut Worker| {
            let first = numbers.start + worker.index as u64 * share;
            for n in first..(first + share).min(numbers.end) {
                if worker.should_stop() {
                    break;
                }
                s.new_record(n);
                let retries = worker.timed(1, || s.client.insert(&s.key, &s.fields))?;
                (0..retries).for_each(|_| worker.retried());
            }
            Ok(())
        },
    )
}

fn run_phase(
    p: &YcsbParams,
    config: &Config,
    records: &Records,
    shard: Shard,
    timing: &Timing,
    progress: &Progress,
    seed: u64,
) -> Result<StepOutcome> {
    let inserts = InsertSequence::new(p.records);
    let keeps_data = config.engine.keeps_data();
    let threads = config.threads as u64;
    let mut outcome = run_step(
        config.threads,
        timing,
        progress,
        |i| WorkerState::new(p, config, records, shard, seed ^ 0x5eed, i),
        |s: &mut WorkerState, worker: &mut Worker| {
            // Each worker does its share of the operations, as YCSB's client threads do.
            let quota = (p.operations)
                .map(|ops| ops / threads + u64::from((worker.index as u64) < ops % threads));
            let mut done = 0;
            while worker.more() && quota.is_none_or(|q| done < q) {
                let op = worker::pick(config, s);
                let retries = worker.timed_as(op.index(), 1, || {
                    worker::operation(p, s, op, &inserts, keeps_data)
                })?;
                (0..retries).for_each(|_| worker.retried());
                done += 1;
            }
            Ok(())
        },
    )?;
    if outcome.fault.is_some() {
        worker::lost_inserts(p, config, records, shard, seed, &inserts, &mut outcome)?;
    }
    Ok(outcome)
}

/// Records the load phase, the run phase, and the run phase per kind of operation.
fn record(
    p: &YcsbParams,
    config: &Config,
    ctx: &mut RunContext,
    loads: Vec<StepOutcome>,
    runs: Vec<StepOutcome>,
) -> Result<()> {
    let key = |step: &str| {
        MeasurementKey::new(
            config.engine.name(),
            config.durability,
            config.threads,
            step,
            measurement_config(p, &config.mix),
        )
    };
    if !loads.is_empty() {
        ctx.measured(key("load"), &loads)?;
    }
    if runs.is_empty() {
        return Ok(());
    }
    for (op, _) in config.mix.operations() {
        let per_op: Vec<StepOutcome> = (runs.iter())
            .map(|r| r.share(r.by_kind.get(op.index())))
            .collect();
        ctx.measured(key(op.name()), &per_op)?;
    }
    ctx.measured(key("run"), &runs)
}

fn measurement_config(p: &YcsbParams, mix: &Mix) -> BTreeMap<String, serde_json::Value> {
    let mut c = BTreeMap::new();
    c.insert("mix".into(), mix.name.clone().into());
    c.insert("distribution".into(), mix.distribution.name().into());
    c.insert("records".into(), p.records.into());
    if p.sliced() {
        c.insert("insert_start".into(), p.insert_start.into());
        c.insert(
            "insert_count".into(),
            (p.slice().end - p.slice().start).into(),
        );
    }
    if let Some(ops) = p.operations {
        c.insert("operations".into(), ops.into());
    }
    c.insert("field_count".into(), p.field_count.into());
    c.insert("field_length".into(), p.field_length.into());
    // What YCSB's properties changed from CoreWorkload's defaults, where this mix uses it.
    let e = p.exponential;
    if mix.distribution == Distribution::Exponential && e != Exponential::default() {
        c.insert("exponential_percentile".into(), e.percentile.into());
        c.insert("exponential_frac".into(), e.frac.into());
    }
    if p.field_lengths != LengthDistribution::Constant {
        c.insert("field_lengths".into(), p.field_lengths.name().into());
        c.insert("min_field_length".into(), p.min_field_length.into());
    }
    let scans = mix.share(Operation::Scan) > 0.0;
    if scans && (p.scan_lengths != LengthDistribution::Uniform || p.min_scan_length != 1) {
        c.insert("scan_lengths".into(), p.scan_lengths.name().into());
        c.insert("min_scan_length".into(), p.min_scan_length.into());
        c.insert("max_scan_length".into(), p.max_scan_length.into());
    }
    if !p.read_all_fields {
        c.insert("read_all_fields".into(), false.into());
    }
    if p.write_all_fields {
        c.insert("write_all_fields".into(), true.into());
    }
    c
}
