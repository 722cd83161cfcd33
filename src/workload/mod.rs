//! One folder per workload: its data generator, its operations, its SQL and its presets, behind
//! one contract, [`Workload`]. The driver (`crate::run`) does what every workload shares.

mod context;
pub mod flags;
pub mod kept;
pub mod kv;
pub mod load;
pub mod script;
pub mod session;
pub mod shards;
pub mod sql;
#[cfg(test)]
pub(crate) mod statement_log;
pub mod sysbench;
pub mod tpcb;
pub mod tpcc;
pub mod tpch;
pub mod wisconsin;
pub mod ycsb;

pub use context::{ContextOptions, RunContext};

use crate::durability::Durability;
use crate::engine::{Engine, Named, SqlEngine, Takes};
use anyhow::Result;

/// A workload: what it is called, which engines it takes, the configurations it runs, and how to
/// run one. Its parameters are what it serializes to: the result file records them. Planning
/// with skip notes, fresh data directories, the failure policy, interrupts, result files and
/// exit codes are the driver's (`crate::run::execute`).
pub trait Workload: serde::Serialize {
    /// One thing measured on its own: an engine at a durability level, with the workload's own
    /// dimensions (threads, scale factor). It displays as a few words for progress lines.
    type Config: std::fmt::Display;
    /// The name on the command line and in result files.
    const NAME: &'static str;
    /// How its results are shown, in the terminal and in the report (its folder's `view.rs`).
    const VIEW: &'static dyn crate::report::view::View;
    /// Which engines it takes.
    const TAKES: Takes;
    /// The engines a paper preset ran, where not the embedded default `sqlite`: (preset, engines).
    const PRESET_ENGINES: &'static [(&'static str, &'static str)] = &[];
    /// Whether its timed steps are streams of operations that can be scheduled at a rate
    /// (`--rate`) and warmed up (`--warmup`).
    const PACED: bool = false;
    /// Whether it can be split over several client machines (`--shard`): what each client
    /// writes as its own is its shard's part.
    const SHARDED: bool = false;
    /// Whether it can keep the tables it loaded for later runs (`--keep`, `--load-only`,
    /// `--run-only`: [`kept`]).
    const KEEPS: bool = false;

    /// How long its timed steps run, as far as is known before the run (for checking
    /// `--warmup` and `--interval`).
    fn step_length(&self) -> StepLength {
        StepLength::Unknown
    }

    /// How many timed steps run on one start of a configuration's servers, each with its turn
    /// of `--fault` (a cluster lives through only so many kills: refused before the run).
    fn steps_per_server(&self) -> usize {
        1
    }

    /// The open-loop rate its own input asks for (YCSB's `target`), taken when `--rate` is not
    /// given.
    fn rate(&self) -> Option<f64> {
        None
    }

    /// Checks the parameters and lists the configurations. Levels the user named must all be
    /// offered (else the run is refused before anything starts); default levels an engine lacks
    /// are skipped with a note ([`engine_levels`] does both).
    fn plan(&self, engines: &[Engine], named: Option<&[Durability]>) -> Result<Plan<Self::Config>>;
    /// Measures one configuration on fresh data and records what it measured.
    fn run_config(&mut self, config: &Self::Config, ctx: &mut RunContext) -> Result<()>;
    /// Every statement it sends on every dialect, for the statement snapshot
    /// (`src/workload/statements.snapshot`); "" for a workload that sends none of its own.
    #[cfg(test)]
    fn statements() -> String
    where
        Self: Sized,
    {
        String::new()
    }
    /// Before the first configuration: notes the result file should carry.
    fn start(&mut self, _ctx: &mut RunContext) {}
    /// After every configuration succeeded: figures derived across them, checks across them.
    fn finish(&mut self, _ctx: &mut RunContext) -> Result<()> {
        Ok(())
    }
}

/// How long a workload's timed steps run, as known before the run.
pub enum StepLength {
    /// Each runs this many seconds.
    Seconds(f64),
    /// The shortest does this many operations.
    Operations(u64),
    Unknown,
}

/// The engines `W` runs when none is named: its preset's, else the embedded default.
pub fn default_engines<W: Workload>(preset: Option<&str>) -> &'static str {
    W::PRESET_ENGINES
        .iter()
        .find(|(name, _)| Some(*name) == preset)
        .map_or("sqlite", |(_, engines)| engines)
}

/// The configurations of a run, and notes on what was skipped and why.
pub struct Plan<C> {
    pub configs: Vec<C>,
    pub notes: Vec<String>,
}

/// Every engine at every level (and thread count), made into configurations by `make` (which
/// drops engines of another family): levels the user named must all be offered; default levels
/// an engine lacks are skipped, each with a note saying why.
pub fn engine_levels<C>(
    engines: &[Engine],
    named: Option<&[Durability]>,
    defaults: &[Durability],
    threads: &[usize],
    make: impl Fn(Engine, Durability, usize) -> Option<C>,
) -> Result<Plan<C>> {
    let mut configs = Vec::new();
    let mut notes = Vec::new();
    for &engine in engines {
        for &level in named.unwrap_or(defaults) {
            for &t in threads {
                match engine.check(level, t) {
                    Ok(()) => configs.extend(make(engine, level, t)),
                    Err(e) if named.is_some() => return Err(e),
                    Err(e) => notes.push(format!("skipped: {e}")),
                }
            }
        }
    }
    Ok(Plan { configs, notes })
}

/// As [`engine_levels`], with one default level: each engine runs at `preferred` where it offers
/// it, else at the first level it offers, with a note saying so.
pub fn preferred_levels<C>(
    engines: &[Engine],
    named: Option<&[Durability]>,
    preferred: Durability,
    threads: &[usize],
    make: impl Fn(Engine, Durability, usize) -> Option<C>,
) -> Result<Plan<C>> {
    let mut plan = Plan {
        configs: Vec::new(),
        notes: Vec::new(),
    };
    for &engine in engines {
        let offered = engine.offered();
        let default = if offered.contains(&preferred) {
            preferred
        } else {
            let Some(&level) = offered.first() else {
                anyhow::bail!("engine '{}' offers no durability level", engine.name());
            };
            if named.is_none() {
                plan.notes.push(match offered.len() {
                    1 => format!(
                        "{} runs at {level}, the only level it offers",
                        engine.name()
                    ),
                    _ => format!(
                        "{} runs at {level}: it does not offer {preferred}",
                        engine.name()
                    ),
                });
            }
            level
        };
        let one = engine_levels(&[engine], named, &[default], threads, &make)?;
        plan.configs.extend(one.configs);
    }
    Ok(plan)
}

/// Each SQL engine at `sync` (the servers' own default) where it offers it: the plan of the
/// workloads that run a user's own statements (script, sysbench).
pub fn sql_at_sync(engines: &[Engine], named: Option<&[Durability]>) -> Result<Plan<SqlConfig>> {
    preferred_levels(
        engines,
        named,
        Durability::Sync,
        &[1],
        |engine, level, _| {
            Some(SqlConfig {
                engine: engine.as_sql()?,
                durability: level,
            })
        },
    )
}

/// A SQL engine at a durability level: the configuration of workloads with no other dimension.
#[derive(Clone, Copy)]
pub struct SqlConfig {
    pub engine: Named<dyn SqlEngine>,
    pub durability: Durability,
}

impl std::fmt::Display for SqlConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at {}", self.engine.name(), self.durability)
    }
}

/// [`engine_levels`] for SQL engines, one configuration per engine and level.
pub fn sql_levels(
    engines: &[Engine],
    named: Option<&[Durability]>,
    defaults: &[Durability],
) -> Result<Plan<SqlConfig>> {
    engine_levels(engines, named, defaults, &[1], |engine, durability, _| {
        let engine = engine.as_sql()?;
        Some(SqlConfig { engine, durability })
    })
}
