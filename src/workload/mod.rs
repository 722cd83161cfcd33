//! One folder per workload: its data generator, its operations and its presets.

pub mod kv;
pub mod session;
#[cfg(test)]
pub(crate) mod statement_log;
pub mod tpcb;
pub mod tpch;
pub mod wisconsin;

use crate::results::recorder::{Recorder, RunHeader};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// What every workload run shares: the seed, a data directory it owns, the result recorder.
pub struct RunContext {
    pub seed: u64,
    pub recorder: Recorder,
    data_root: PathBuf,
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
    pub parameters: serde_json::Value,
}

impl RunContext {
    pub fn new(options: ContextOptions) -> Result<RunContext> {
        // A short seed is easy to type back with --seed.
        let seed = options.seed.unwrap_or_else(|| rand::random::<u32>() as u64);
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
        let parameters = match options.parameters {
            serde_json::Value::Object(map) => map.into_iter().collect(),
            _ => Default::default(),
        };
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
        Ok(RunContext {
            seed,
            recorder,
            data_root,
            _temporary: temporary,
            created_in_user_dir: created,
        })
    }

    /// A fresh, empty directory for one engine run, inside the directory hakari owns.
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
}

/// Runs every configuration of a run in turn. One that fails (an engine that breaks an invariant,
/// a server that goes away) is recorded as an error naming it, and the others still run; the run
/// then ends as failed, keeping every figure that was measured. Ctrl-C stops at once.
pub fn run_each<C>(
    configs: &[C],
    name: impl Fn(&C) -> String,
    ctx: &mut RunContext,
    mut run_one: impl FnMut(&C, &mut RunContext) -> Result<()>,
) -> Result<()> {
    let mut failed = Vec::new();
    for (i, config) in configs.iter().enumerate() {
        let label = name(config);
        eprintln!("[{}/{}] {label}", i + 1, configs.len());
        match run_one(config, ctx).with_context(|| label.clone()) {
            Ok(()) => {}
            Err(e) if e.downcast_ref::<crate::measure::Interrupted>().is_some() => return Err(e),
            Err(e) => {
                let text = crate::errors::sentence(&e);
                if configs.len() > 1 {
                    eprintln!("hakari: error: {text}");
                    ctx.recorder.error(text.clone());
                }
                failed.push(text);
            }
        }
    }
    match failed.len() {
        0 => Ok(()),
        1 if configs.len() == 1 => anyhow::bail!("{}", failed[0]),
        n => anyhow::bail!(
            "{n} of {} configurations failed (see above; their errors are in the result file)",
            configs.len()
        ),
    }
}

impl Drop for RunContext {
    fn drop(&mut self) {
        if self.created_in_user_dir {
            let _ = std::fs::remove_dir_all(&self.data_root);
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every statement the SQL workloads send, on every dialect, as recorded in
    /// `statements.snapshot`: moving SQL between Rust and files must leave each one unchanged.
    /// `HAKARI_BLESS=1` writes the snapshot anew.
    #[test]
    fn every_generated_statement_is_unchanged() {
        let actual = [
            super::tpcb::snapshot::statements(),
            super::wisconsin::snapshot::statements(),
            super::session::snapshot::statements(),
            super::tpch::snapshot::statements(),
        ]
        .concat();
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/workload/statements.snapshot"
        );
        if std::env::var_os("HAKARI_BLESS").is_some() {
            std::fs::write(path, &actual).unwrap();
            return;
        }
        let expected = std::fs::read_to_string(path).unwrap();
        for (i, (want, got)) in expected.lines().zip(actual.lines()).enumerate() {
            assert_eq!(want, got, "statement {} of the snapshot changed", i + 1);
        }
        assert_eq!(expected.lines().count(), actual.lines().count());
    }
}
