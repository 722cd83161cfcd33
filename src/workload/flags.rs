//! What the workloads' flags share: the shared values they read (a preset, repeats, thread
//! counts) and helpers that parse a flag when it was given.

use crate::units::{parse_counts, parse_size};
use anyhow::{Context, Result};

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
    /// The thread (client) counts, when given; `what` names them in errors.
    pub fn threads(&self, what: &str) -> Result<Option<Vec<usize>>> {
        self.threads
            .as_deref()
            .map(|t| parse_counts(t, what))
            .transpose()
    }
}

/// A size flag (`4K`, `1MB`), when given.
pub fn size(value: &Option<String>, flag: &str) -> Result<Option<u64>> {
    value
        .as_deref()
        .map(|s| parse_size(s).with_context(|| format!("bad {flag}")))
        .transpose()
}

/// A comma-separated flag of values, when given.
pub fn list<T>(text: &Option<String>, parse: impl Fn(&str) -> Result<T>) -> Result<Option<Vec<T>>> {
    text.as_deref()
        .map(|t| {
            t.split(',')
                .filter(|x| !x.trim().is_empty())
                .map(parse)
                .collect()
        })
        .transpose()
}

pub fn set<T>(field: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *field = v;
    }
}
