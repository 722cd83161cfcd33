//! What the workloads' flags share: the shared values they read (a preset, repeats, thread
//! counts) and helpers that parse a flag when it was given.

use crate::units::{parse_counts, parse_size};
use anyhow::Result;

/// The flags every workload reads beside its own.
#[derive(Clone, Debug, Default)]
pub struct Shared {
    /// `--preset`: a paper's exact parameters.
    pub preset: Option<String>,
    /// `--runs`: times each step is repeated.
    pub runs: Option<usize>,
    /// `--threads` (`--clients`), as typed.
    pub threads: Option<String>,
}

impl Shared {
    /// The parameters to start from: the named preset's (refused if unknown), else the defaults.
    pub fn start_from<P>(&self, preset: fn(&str) -> Result<P>, defaults: fn() -> P) -> Result<P> {
        self.preset
            .as_deref()
            .map_or_else(|| Ok(defaults()), preset)
    }

    /// The thread (client) counts, when given; `what` names them in errors.
    pub fn threads(&self, what: &str) -> Result<Option<Vec<usize>>> {
        self.threads
            .as_deref()
            .map(|t| parse_counts(t, what))
            .transpose()
    }
}

/// A size (`4K`, `1MB`) as a flag's value parser: in bytes, refused if `T` cannot hold it.
pub fn bytes<T: TryFrom<u64>>(text: &str) -> Result<T> {
    let n = parse_size(text)?;
    T::try_from(n).map_err(|_| anyhow::anyhow!("{text} is too large here"))
}

/// Sets `field` to the flag's value when the flag was given.
pub fn set<T>(field: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *field = v;
    }
}

/// A workload's own flags on the command line: clap parses them, and they make its parameters.
/// The workload registry (`crate::workloads`) makes its subcommand from them.
pub trait Flags: clap::Args + clap::FromArgMatches {
    type Workload: crate::workload::Workload;
    /// What `hakari run --help` says of it, and the first paragraph of its own `--help`.
    const ABOUT: &'static str;
    /// More paragraphs for its own `--help`.
    const MORE: &'static str = "";
    /// Examples after its flags in its own `--help`.
    const EXAMPLES: &'static str = "";
    /// Its presets' names (`--preset`).
    const PRESETS: &'static [&'static str] = &[];
    /// The workload with these flags (and a preset's parameters under them).
    fn workload(&self, shared: &Shared) -> Result<Self::Workload>;
    /// Run options its own command line names in its tool's words (sysbench's `--rate`,
    /// `--db-driver`, `--mysql-host`); none by default.
    fn overrides(&self) -> Result<Overrides> {
        Ok(Overrides::default())
    }
}

/// Run options a workload's own command line gives: each over hakari's flag of the same
/// meaning where that was not given, refused where both were.
#[derive(Clone, Default)]
pub struct Overrides {
    pub engine: Option<String>,
    pub url: Option<String>,
    pub seed: Option<u64>,
    pub rate: Option<f64>,
    pub interval: Option<f64>,
    pub warmup: Option<f64>,
    /// How the terminal shows the run, over the workload's own view (sysbench's report).
    pub terminal: Option<&'static dyn crate::report::view::View>,
}
