//! Builds a run's result file as the run goes: every finished measurement is written at once
//! (atomically), so an interrupted or failed run keeps what finished and says it is incomplete.

use super::environment::Environment;
use super::store::write_atomic;
use super::{EngineRecord, Measurement, Metric, RunResult, SCHEMA_VERSION};
use anyhow::{Context, Result};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub struct Recorder {
    path: PathBuf,
    result: RunResult,
    written: bool,
}

pub struct RunHeader<'a> {
    pub workload: &'a str,
    pub preset: Option<&'a str>,
    pub seed: u64,
    pub parameters: BTreeMap<String, Value>,
    pub data_dir: &'a Path,
    pub command_line: Vec<String>,
}

impl Recorder {
    /// Prepares `out_dir/<run-id>.json`; fails at once if `out_dir` cannot be written.
    pub fn new(out_dir: &Path, header: RunHeader) -> Result<Recorder> {
        std::fs::create_dir_all(out_dir)
            .with_context(|| format!("cannot create the results folder {}", out_dir.display()))?;
        tempfile::NamedTempFile::new_in(out_dir)
            .with_context(|| format!("the results folder {} is not writable", out_dir.display()))?;
        let started = std::time::SystemTime::now();
        let run_id = format!(
            "{}-{}-{:04x}",
            super::time::compact(started),
            header.workload,
            rand::random::<u16>()
        );
        let result = RunResult {
            schema_version: SCHEMA_VERSION,
            hakari_version: env!("CARGO_PKG_VERSION").to_string(),
            run_id: run_id.clone(),
            started_at: super::time::rfc3339(started),
            finished_at: None,
            status: "running".into(),
            complete: false,
            command_line: header
                .command_line
                .iter()
                .map(|a| super::redact::redact(a))
                .collect(),
            seed: header.seed,
            workload: header.workload.to_string(),
            preset: header.preset.map(str::to_string),
            parameters: header.parameters,
            environment: Environment::capture(header.data_dir),
            engines: Vec::new(),
            measurements: Vec::new(),
            metrics: Vec::new(),
            notes: Vec::new(),
            errors: Vec::new(),
            requirements: Vec::new(),
            timing: None,
            shard: None,
            merged_from: Vec::new(),
            writer: None,
        };
        let mut result = result;
        let pid = std::process::id() as i32;
        result.writer = crate::process::start_time(pid).map(|started| super::Writer {
            host: result.environment.hostname.clone(),
            pid,
            started,
        });
        let path = out_dir.join(format!("{run_id}.json"));
        Ok(Recorder {
            path,
            result,
            written: false,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn result(&self) -> &RunResult {
        &self.result
    }

    /// `--shard`: this run is one client's part.
    pub fn shard(&mut self, shard: crate::shard::Shard) {
        self.result.shard = Some(shard);
    }

    pub fn engine(&mut self, record: EngineRecord) {
        let exists = self.result.engines.iter().any(|e| {
            e.engine == record.engine
                && e.durability == record.durability
                && e.settings.get("topology") == record.settings.get("topology")
        });
        if !exists {
            self.result.engines.push(record);
        }
    }

    /// Adds a finished measurement and writes the file (still marked incomplete).
    pub fn measurement(&mut self, m: Measurement) -> Result<()> {
        self.result.measurements.push(m);
        self.write()
    }

    /// Records how the run's steps are clocked.
    pub fn timing(&mut self, timing: super::TimingRecord) {
        self.result.timing = Some(timing);
    }

    pub fn metric(&mut self, m: Metric) {
        self.result.metrics.push(m);
    }

    pub fn note(&mut self, note: impl Into<String>) {
        let note = super::redact::redact(&note.into());
        if !self.result.notes.contains(&note) {
            self.result.notes.push(note);
        }
    }

    /// Records how the run's `--require` thresholds went (written with the next write).
    pub fn requirements(&mut self, outcomes: Vec<super::RequirementOutcome>) {
        self.result.requirements = outcomes;
    }

    /// Records an error of one part of the run (the run goes on).
    pub fn error(&mut self, error: impl Into<String>) {
        self.result
            .errors
            .push(super::redact::redact(&error.into()));
    }

    fn write(&mut self) -> Result<()> {
        write_atomic(&self.path, &self.result)?;
        self.written = true;
        Ok(())
    }

    /// Marks the run finished with `status` ("complete", "interrupted", "failed") and writes it.
    /// A run that measured nothing leaves no file; returns the path when one was written.
    pub fn finish(&mut self, status: &str, error: Option<String>) -> Result<Option<PathBuf>> {
        if let Some(e) = error {
            self.result.errors.push(super::redact::redact(&e));
        }
        self.result.status = status.to_string();
        self.result.complete = status == "complete";
        self.result.finished_at = Some(super::time::now_rfc3339());
        // Finished: no process stands behind the file any more.
        self.result.writer = None;
        // A run that ends complete is on record even when it measured nothing (`--load-only`).
        if self.result.measurements.is_empty() && !self.written && status != "complete" {
            return Ok(None);
        }
        self.write()?;
        Ok(Some(self.path.clone()))
    }
}
