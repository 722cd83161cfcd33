//! The script workload's own flags, and the parameters they make.

use super::{ScriptFile, ScriptParams};
use crate::workload::flags::{Flags, Shared};
use anyhow::{bail, Context, Result};
use clap::Args;

#[derive(Args, Clone, Debug)]
pub struct ScriptFlags {
    /// A script file in pgbench's syntax, with an optional weight (FILE@WEIGHT, default 1);
    /// repeat for several: each transaction runs one, drawn by weight.
    #[arg(
        long = "file",
        short = 'f',
        value_name = "FILE[@WEIGHT]",
        required = true
    )]
    pub files: Vec<String>,
    /// A variable for the scripts, as pgbench's -D (repeat for several); :scale is 1 unless set.
    #[arg(long = "set", short = 'D', value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// A script run once before the timed runs on each engine, untimed (create and fill
    /// tables, for instance).
    #[arg(long, value_name = "FILE")]
    pub init: Option<String>,
    /// A script run once after them on each engine, even after a failure (drop what --init
    /// made, for instance).
    #[arg(long, value_name = "FILE")]
    pub cleanup: Option<String>,
    /// Seconds each run lasts (default 10).
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,
    /// Transactions per client per run, instead of a duration.
    #[arg(long, value_name = "N", conflicts_with = "duration")]
    pub transactions: Option<u64>,
    /// Tries of a transaction that meets a serialization failure or a deadlock, the first
    /// included (default 10); one that fails them all is counted as failed, and its client
    /// goes on.
    #[arg(long, value_name = "N")]
    pub max_tries: Option<u64>,
}

/// Reads `FILE[@WEIGHT]`.
fn script_file(arg: &str) -> Result<ScriptFile> {
    let (file, weight) = match arg.rsplit_once('@') {
        Some((file, w)) if !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) => {
            let weight: u64 = w
                .parse()
                .with_context(|| format!("--file {arg}: the weight is too large"))?;
            (file, weight)
        }
        _ => (arg, 1),
    };
    if weight == 0 {
        bail!("--file {arg}: a weight must be at least 1");
    }
    Ok(ScriptFile {
        file: file.to_string(),
        weight,
        text: read(file)?,
    })
}

fn read(file: &str) -> Result<String> {
    std::fs::read_to_string(file).with_context(|| format!("cannot read script file {file}"))
}

impl Flags for ScriptFlags {
    type Workload = ScriptParams;
    const ABOUT: &'static str =
        "Your own transactions: script files in pgbench's syntax (\\set with pgbench's \
        expressions, \\sleep, :variables bound as parameters), run by N clients on any SQL engine.";
    const MORE: &'static str = "A script runs on your own tables, as you asked: with --url, hakari works in that database \
        as it is, and creates, changes and drops nothing there but what your scripts do. It \
        creates tables only through --init and drops them only through --cleanup, both run \
        once, untimed. Without --url, the engine is a fresh database of hakari's (embedded, or a \
        private server) and --init must create what the scripts use.";
    const EXAMPLES: &'static str = "Example (pgbench's TPC-B, written to tpcb.sql):
  \\set aid random(1, 100000 * :scale)
  \\set bid random(1, 1 * :scale)
  \\set tid random(1, 10 * :scale)
  \\set delta random(-5000, 5000)
  BEGIN;
  UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
  SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
  UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
  UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
  INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
  END;

  hakari run script --file tpcb.sql --engine postgres --url postgres://user@host/db --clients 8 --duration 60
  hakari run script --file a.sql@9 --file b.sql@1 --engine mysql,sqlite --set scale=10 --init init.sql --cleanup drop.sql";
    fn workload(&self, shared: &Shared) -> Result<ScriptParams> {
        if shared.preset.is_some() {
            bail!("the script workload has no presets: its transactions are the script files");
        }
        let mut set = Vec::new();
        for s in &self.set {
            match s.split_once('=') {
                Some((name, value)) if !name.is_empty() => {
                    set.push((name.to_string(), value.to_string()))
                }
                _ => bail!("--set {s}: expected NAME=VALUE"),
            }
        }
        let untimed = |file: &Option<String>| -> Result<Option<ScriptFile>> {
            file.as_deref()
                .map(|f| {
                    Ok(ScriptFile {
                        file: f.to_string(),
                        weight: 1,
                        text: read(f)?,
                    })
                })
                .transpose()
        };
        Ok(ScriptParams {
            scripts: (self.files.iter())
                .map(|f| script_file(f))
                .collect::<Result<_>>()?,
            init: untimed(&self.init)?,
            cleanup: untimed(&self.cleanup)?,
            set,
            clients: shared.threads("clients")?.unwrap_or_else(|| vec![1]),
            duration_secs: self.duration.unwrap_or(10.0),
            transactions: self.transactions,
            max_tries: self.max_tries.unwrap_or(10),
            runs: shared.runs.unwrap_or(1),
        })
    }
}
