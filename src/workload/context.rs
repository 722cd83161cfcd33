//! What every workload run shares: the seed, a data directory it owns, the server URL, the
//! result recorder.

use crate::durability::Durability;
use crate::engine::sql::Dialect;
use crate::engine::sql::SqlOptions;
use crate::engine::{Engine, Named, SqlEngine};
use crate::measure::runner::StepOutcome;
use crate::measure::timing::Timing;
use crate::results::hlog::IntervalLog;
use crate::results::recorder::{Recorder, RunHeader};
use crate::results::{EngineRecord, Measurement, MeasurementKey};
use crate::server::topology::Topology;
use crate::workload::kept::Phases;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// What every workload run shares: the seed, a data directory it owns, the result recorder.
pub struct RunContext {
    /// The workload's name, which every measurement it records carries.
    workload: String,
    pub seed: u64,
    pub recorder: Recorder,
    /// How timed steps are clocked (the driver sets the open loop's rate per configuration).
    pub timing: Timing,
    /// `--hlog`: the interval histograms of every step.
    hlog: Option<IntervalLog>,
    data_root: PathBuf,
    urls: Vec<String>,
    dialect: Option<Dialect>,
    /// What the private server of the configuration running now is started as (the driver
    /// sets it per configuration, as it sets the rate).
    pub topology: Topology,
    /// `--shard`: this client's part of a run several make together.
    pub shard: Option<crate::shard::Shard>,
    /// `--keep`, `--load-only`, `--run-only`: whether tables are loaded, run on and kept.
    pub phases: Phases,
    /// The fresh temporary directory, when no `--data-dir` was given; removed on drop.
    _temporary: Option<tempfile::TempDir>,
    /// The subdirectory hakari created inside a user's `--data-dir`; removed at the end.
    created_in_user_dir: bool,
}

pub struct ContextOptions<'a> {
    pub workload: &'a str,
    pub preset: Option<&'a str>,
    pub seed: Option<u64>,
    pub out_dir: &'a Path,
    pub data_dir: Option<&'a Path>,
    /// The servers given by `--url`; never recorded (they may hold a password).
    pub urls: &'a [String],
    /// `--dialect`, for SQL engines reached by a generic driver.
    pub dialect: Option<Dialect>,
    pub parameters: serde_json::Value,
    pub timing: Timing,
    /// `--hlog DIR`.
    pub hlog: Option<&'a Path>,
    pub phases: Phases,
}

impl RunContext {
    /// Records how an engine ran at a level: its version, how it honours the level, its
    /// effective settings.
    pub fn record_engine(
        &mut self,
        engine: Engine,
        level: Durability,
        version: String,
        settings: impl IntoIterator<Item = (String, String)>,
    ) {
        let mut settings: std::collections::BTreeMap<String, String> =
            settings.into_iter().collect();
        if self.topology != Topology::Single {
            settings.insert(
                "topology".into(),
                format!("{} (loopback cluster)", self.topology),
            );
            settings.insert("replication".into(), self.topology.waits_for());
        }
        self.recorder.engine(EngineRecord {
            engine: engine.name().into(),
            version,
            durability: level.name().into(),
            durability_mapping: engine.mapping(level).unwrap_or_default(),
            settings,
        });
    }

    /// Records a measured step from its runs' outcomes (and their intervals in the `--hlog`
    /// log); says so when an open loop fell behind the rate it was asked for.
    pub fn measured(&mut self, mut key: MeasurementKey, outcomes: &[StepOutcome]) -> Result<()> {
        key.workload = self.workload.clone();
        if self.topology != Topology::Single {
            // Every figure of a cluster says so: all its nodes share this machine.
            let text = format!("{} (loopback cluster)", self.topology);
            key.config.insert("replication".into(), text.into());
        }
        if let Some(log) = &mut self.hlog {
            log.add(&key, outcomes)?;
        }
        let mut m = Measurement::from_runs(key, outcomes);
        let ceiling =
            (self.recorder.result().environment.sync_ceiling.as_ref()).map(|c| c.fsync_per_sec);
        m.verdicts = crate::results::verdicts::of(&m, ceiling);
        for v in &m.verdicts {
            eprintln!("  {}: {}", v.kind, v.why);
        }
        for note in crate::measure::resources::take_notes() {
            eprintln!("  note: {note}");
            self.recorder.note(note);
        }
        if let Some(open) = m.open_loop.as_ref().filter(|o| o.behind) {
            let lag = open.lag.map_or(0.0, |l| l.p99_us);
            let note = format!(
                "{} {} {} at {} ops/s: could not keep up, achieved {} ops/s (lag p99 {})",
                m.engine,
                m.durability,
                m.step,
                crate::units::thousands(open.rate),
                crate::units::thousands(m.ops_per_sec_mean),
                crate::units::duration(lag / 1e6)
            );
            eprintln!("  note: {note}");
            self.recorder.note(note);
        }
        self.recorder.measurement(m)
    }

    /// A note the result file carries, said on stderr as it is made.
    pub fn note(&mut self, text: impl Into<String>) {
        let text = text.into();
        eprintln!("  note: {text}");
        self.recorder.note(text);
    }

    /// The `--hlog` file, when one is written.
    pub fn hlog_path(&self) -> Option<&Path> {
        self.hlog.as_ref().map(|l| l.path())
    }

    pub fn new(options: ContextOptions) -> Result<RunContext> {
        // A short seed is easy to type back with --seed.
        let seed = options.seed.unwrap_or_else(|| rand::random::<u32>() as u64);
        // What killed hakari processes left where this one works (their servers die with them).
        let programs: Vec<&str> = (crate::engine::all().into_iter())
            .filter_map(|e| e.private_server())
            .flat_map(|s| s.programs().iter().copied())
            .collect();
        crate::owned::sweep(
            &options
                .data_dir
                .map_or_else(std::env::temp_dir, Path::to_path_buf),
            &programs,
        );
        let (data_root, temporary, created) = match options.data_dir {
            None => {
                let t = tempfile::Builder::new()
                    .prefix("hakari-")
                    .tempdir()
                    .context("cannot create a temporary data directory")?;
                (t.path().to_path_buf(), Some(t), false)
            }
            Some(dir) => {
                if !dir.is_dir() {
                    anyhow::bail!("the data directory {} does not exist", dir.display());
                }
                // hakari works only inside a subdirectory it creates, never beside the user's files.
                let sub = tempfile::Builder::new()
                    .prefix("hakari-")
                    .tempdir_in(dir)
                    .with_context(|| {
                        format!("the data directory {} is not writable", dir.display())
                    })?
                    .keep();
                (sub, None, true)
            }
        };
        crate::owned::directory_made(&data_root)
            .with_context(|| format!("cannot write in {}", data_root.display()))?;
        crate::measure::resources::watch_device_of(&data_root);
        crate::measure::resources::enable(
            options.timing.resources,
            options.timing.engine_statistics,
        );
        let cut =
            |f: &crate::measure::fault::Fault| f.kind == crate::measure::fault::Kind::Partition;
        crate::server::partition::plan(options.timing.fault.as_ref().is_some_and(cut));
        let mut parameters: std::collections::BTreeMap<_, _> = match options.parameters {
            serde_json::Value::Object(map) => map.into_iter().collect(),
            _ => Default::default(),
        };
        if options.phases.keeps() {
            parameters.insert("phases".into(), serde_json::to_value(options.phases)?);
        }
        let recorder = Recorder::new(
            options.out_dir,
            RunHeader {
                workload: options.workload,
                preset: options.preset,
                seed,
                parameters,
                data_dir: &data_root,
                command_line: std::env::args().collect(),
            },
        )?;
        crate::owned::result_file(recorder.path());
        let hlog = (options.hlog)
            .map(|dir| IntervalLog::new(dir, &recorder.result().run_id))
            .transpose()?;
        Ok(RunContext {
            workload: options.workload.to_string(),
            seed,
            recorder,
            timing: options.timing,
            hlog,
            data_root,
            urls: options.urls.to_vec(),
            dialect: options.dialect,
            topology: Topology::Single,
            shard: None,
            phases: options.phases,
            _temporary: temporary,
            created_in_user_dir: created,
        })
    }

    /// A fresh, empty directory for the data of one configuration, inside the directory hakari
    /// owns, named after what the configuration displays as ("sqlite at sync" becomes
    /// `sqlite-at-sync`); removed when dropped, so it is dropped after the engine closed.
    pub fn config_dir(&self, config: &dyn std::fmt::Display) -> Result<ConfigDir> {
        let keep = |c: char| c.is_ascii_alphanumeric() || c == '.' || c == '-';
        let name: String = (config.to_string().chars())
            .map(|c| if keep(c) { c } else { '-' })
            .collect();
        self.fresh_dir(&name).map(ConfigDir)
    }

    /// What a SQL engine opens with for a configuration: its directory, the `--url` of its
    /// scheme, `--dialect`, the topology, and whether other client machines (`--shard`) share
    /// its tables; `clients` connections at once, the engine's own cache size.
    pub fn sql_options(
        &self,
        engine: Named<dyn SqlEngine>,
        durability: Durability,
        dir: &Path,
        clients: usize,
    ) -> SqlOptions {
        SqlOptions {
            dir: dir.to_path_buf(),
            durability,
            url: self.url_for(Engine::Sql(engine)).map(str::to_string),
            dialect: self.dialect,
            clients,
            cache_bytes: 0,
            topology: self.topology,
            // The first machine drops what all shared, once every one is done; kept tables
            // outlive the run.
            shared: self.shard.is_some_and(|s| !s.is_first()) || self.phases.keeps(),
        }
    }

    /// A SQL engine opened as `--url` names it (claiming, creating and dropping nothing), or
    /// its private server, for `clients` connections, and recorded: how the workloads that run a
    /// user's own statements open (script, sysbench). The directory must outlive the database.
    pub fn open_given(
        &mut self,
        config: &super::SqlConfig,
        clients: usize,
    ) -> Result<(ConfigDir, Box<dyn crate::engine::sql::SqlDatabase>)> {
        let dir = self.config_dir(config)?;
        let options = self.sql_options(config.engine, config.durability, &dir, clients);
        let db = config.engine.open_as_given(&options)?;
        self.record_engine(
            Engine::Sql(config.engine),
            config.durability,
            db.version(),
            db.settings(),
        );
        Ok((dir, db))
    }

    pub fn fresh_dir(&self, name: &str) -> Result<PathBuf> {
        let dir = self.data_root.join(name);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)
                .with_context(|| format!("cannot clear {}", dir.display()))?;
        }
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(dir)
    }

    pub fn data_root(&self) -> &Path {
        &self.data_root
    }

    /// The server `--url` gives `engine` (the first URL of a scheme it takes); None for
    /// embedded engines and private servers.
    pub fn url_for(&self, engine: crate::engine::Engine) -> Option<&str> {
        let mut urls = self.urls.iter().filter(|u| engine.takes_url(u));
        urls.next().map(String::as_str)
    }

    /// What the configuration's private server is started as.
    pub fn topology(&self) -> Topology {
        self.topology
    }

    /// `--dialect`: the SQL a database reached through odbc takes, over its DBMS's own.
    pub fn dialect(&self) -> Option<Dialect> {
        self.dialect
    }
}

/// A configuration's data directory: removed when dropped.
pub struct ConfigDir(PathBuf);

impl std::ops::Deref for ConfigDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for ConfigDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Drop for RunContext {
    fn drop(&mut self) {
        crate::owned::directory_removed(&self.data_root);
        if self.created_in_user_dir {
            let _ = std::fs::remove_dir_all(&self.data_root);
        }
    }
}
