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
        required_unless_present = "builtin"
    )]
    pub files: Vec<String>,
    /// One of pgbench's built-in scripts, as its -b: tpcb-like, simple-update or select-only (or
    /// a prefix naming one), with an optional weight; repeat for several. They run on the tables
    /// `pgbench -i` makes, and :scale is read from pgbench_branches unless --set gives it.
    #[arg(long, short = 'b', value_name = "NAME[@WEIGHT]")]
    pub builtin: Vec<String>,
    /// Let the scripts run shell commands (\shell, \setshell), as pgbench does; without it a
    /// script that has one is refused before the run.
    #[arg(long)]
    pub allow_shell: bool,
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
    /// included (default 10; 0: no limit but the run's end and --latency-limit); one that
    /// fails them all is counted as failed, and its client goes on.
    #[arg(long, value_name = "N")]
    pub max_tries: Option<u64>,
    /// How the statements go to the server, as pgbench's -M: prepared (once per client, the
    /// default here), simple (each variable's value written into the text; pgbench's default)
    /// or extended (parsed anew each time, the values bound; PostgreSQL only).
    #[arg(long, short = 'M', value_enum, value_name = "MODE")]
    pub query_mode: Option<super::QueryMode>,
    /// A new connection for each transaction, its time counted in the transaction's, as
    /// pgbench's -C.
    #[arg(long, short = 'C')]
    pub connect_each: bool,
}

/// pgbench's built-in scripts by name (`builtin/`: the statements `pgbench --show-script`
/// prints).
const BUILTIN: [(&str, &str); 3] = [
    ("tpcb-like", include_str!("builtin/tpcb-like.sql")),
    ("simple-update", include_str!("builtin/simple-update.sql")),
    ("select-only", include_str!("builtin/select-only.sql")),
];

/// Reads `NAME[@WEIGHT]` of `--builtin`: a name or a prefix of exactly one, as pgbench's -b.
pub fn builtin_script(arg: &str) -> Result<ScriptFile> {
    let (name, weight) = weighted("--builtin", arg)?;
    let found: Vec<_> = BUILTIN
        .iter()
        .filter(|(n, _)| n.starts_with(name))
        .collect();
    let names = || BUILTIN.map(|(n, _)| n).join(", ");
    match found[..] {
        [(n, text)] if !name.is_empty() => Ok(ScriptFile {
            file: n.to_string(),
            weight,
            text: text.to_string(),
        }),
        [] | [_] => bail!("--builtin {arg}: no such built-in script ({})", names()),
        _ => bail!(
            "--builtin {arg}: names {} built-in scripts ({})",
            found.len(),
            names()
        ),
    }
}

/// Reads `FILE[@WEIGHT]`.
pub fn script_file(arg: &str) -> Result<ScriptFile> {
    let (file, weight) = weighted("--file", arg)?;
    Ok(ScriptFile {
        file: file.to_string(),
        weight,
        text: read(file)?,
    })
}

/// `WHAT[@WEIGHT]`, the weight 1 when not given.
fn weighted<'a>(flag: &str, arg: &'a str) -> Result<(&'a str, u64)> {
    let (file, weight) = match arg.rsplit_once('@') {
        Some((file, w)) if !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) => {
            let weight: u64 = w
                .parse()
                .with_context(|| format!("{flag} {arg}: the weight is too large"))?;
            (file, weight)
        }
        _ => (arg, 1),
    };
    if weight == 0 {
        bail!("{flag} {arg}: a weight must be at least 1");
    }
    Ok((file, weight))
}

/// `NAME=VALUE` of `--set` (pgbench's `-D`), each as (name, value).
pub fn variables(flag: &str, given: &[String]) -> Result<Vec<(String, String)>> {
    (given.iter())
        .map(|s| match s.split_once('=') {
            Some((name, value)) if !name.is_empty() => Ok((name.to_string(), value.to_string())),
            _ => bail!("{flag} {s}: expected NAME=VALUE"),
        })
        .collect()
}

fn read(file: &str) -> Result<String> {
    std::fs::read_to_string(file).with_context(|| format!("cannot read script file {file}"))
}

impl Flags for ScriptFlags {
    type Workload = ScriptParams;
    const ABOUT: &'static str =
        "Your own transactions: script files in pgbench's syntax (\\set with pgbench's \
        expressions, \\if, \\gset, \\aset, \\sleep, \\; compounds, PostgreSQL's pipelines, \
        :variables bound as parameters), or pgbench's built-in scripts, run by N clients on any \
        SQL engine; --seed N draws as pgbench's --random-seed=N.";
    const MORE: &'static str = "A script runs on your own tables, as you asked: with --url, hakari works in that database \
        as it is, and creates, changes and drops nothing there but what your scripts do. It \
        creates tables only through --init and drops them only through --cleanup, both run \
        once, untimed. Without --url, the engine is a fresh database of hakari's (embedded, or a \
        private server) and --init must create what the scripts use.";
    const EXAMPLES: &'static str = "Examples:
  hakari run script --builtin tpcb-like --engine postgres --url postgres://user@host/db --clients 8 --duration 60 --seed 5432
  hakari run script --file mine.sql --engine postgres --url postgres://user@host/db --clients 8
  hakari run script --file a.sql@9 --file b.sql@1 --engine mysql,sqlite --set scale=10 --init init.sql --cleanup drop.sql";
    fn workload(&self, shared: &Shared) -> Result<ScriptParams> {
        if shared.preset.is_some() {
            bail!("the script workload has no presets: its transactions are the script files");
        }
        let set = variables("--set", &self.set)?;
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
            scripts: (self.files.iter().map(|f| script_file(f)))
                .chain(self.builtin.iter().map(|b| builtin_script(b)))
                .collect::<Result<_>>()?,
            builtin: !self.builtin.is_empty(),
            allow_shell: self.allow_shell,
            init: untimed(&self.init)?,
            cleanup: untimed(&self.cleanup)?,
            set,
            clients: shared.threads("clients")?.unwrap_or_else(|| vec![1]),
            duration_secs: self.duration.unwrap_or(10.0),
            transactions: self.transactions,
            max_tries: self.max_tries.unwrap_or(10),
            query_mode: self.query_mode.unwrap_or_default(),
            connect_each: self.connect_each,
            log: None,
            failures_detailed: false,
            verbose_errors: false,
            threads: None,
            time_commands: true,
            runs: shared.runs.unwrap_or(1),
        })
    }
}
