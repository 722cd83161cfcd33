//! YCSB's core workloads (`workloads/workloada` .. `workloadf` in YCSB's repository) and the
//! workload's parameters with their defaults.

use super::generators::{Distribution, Exponential, Hotspot, KeyNaming, LengthDistribution};
use anyhow::{bail, Result};
use serde::Serialize;

/// The kinds of operation, in the order tables list them; the index is the kind the runner
/// keeps a histogram for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    Read,
    Update,
    Insert,
    Scan,
    /// Read-modify-write: a read, then an update of the record read.
    Rmw,
}

impl Operation {
    pub const ALL: [Operation; 5] = [
        Operation::Read,
        Operation::Update,
        Operation::Insert,
        Operation::Scan,
        Operation::Rmw,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Operation::Read => "read",
            Operation::Update => "update",
            Operation::Insert => "insert",
            Operation::Scan => "scan",
            Operation::Rmw => "rmw",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// A mix of operations: the proportion of each, in [`Operation::ALL`]'s order, and how records
/// are chosen.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mix {
    /// `a`..`f`, or `custom`.
    pub name: String,
    pub proportions: [f64; 5],
    pub distribution: Distribution,
}

impl Mix {
    /// YCSB's core workload `letter`.
    pub fn core(letter: &str) -> Result<Mix> {
        use Distribution::{Latest, Zipfian};
        let (proportions, distribution) = match letter {
            // Update heavy: a session store recording recent actions.
            "a" => ([0.5, 0.5, 0.0, 0.0, 0.0], Zipfian),
            // Read mostly: photo tagging.
            "b" => ([0.95, 0.05, 0.0, 0.0, 0.0], Zipfian),
            // Read only: a user profile cache.
            "c" => ([1.0, 0.0, 0.0, 0.0, 0.0], Zipfian),
            // Read latest: user status updates.
            "d" => ([0.95, 0.0, 0.05, 0.0, 0.0], Latest),
            // Short ranges: threaded conversations.
            "e" => ([0.0, 0.0, 0.05, 0.95, 0.0], Zipfian),
            // Read-modify-write: a user database.
            "f" => ([0.5, 0.0, 0.0, 0.0, 0.5], Zipfian),
            other => bail!("unknown YCSB workload '{other}'; choose from a, b, c, d, e, f, custom"),
        };
        Ok(Mix {
            name: letter.into(),
            proportions,
            distribution,
        })
    }

    /// The share of operations of kind `op`.
    pub fn share(&self, op: Operation) -> f64 {
        self.proportions[op.index()]
    }

    /// The operations this mix runs, with their shares.
    pub fn operations(&self) -> impl Iterator<Item = (Operation, f64)> + '_ {
        (Operation::ALL.into_iter())
            .map(|op| (op, self.share(op)))
            .filter(|(_, share)| *share > 0.0)
    }

    /// Picks an operation for `u` drawn uniformly from [0, 1).
    pub fn pick(&self, u: f64) -> Operation {
        let total: f64 = self.proportions.iter().sum();
        let mut at = u * total;
        for (op, share) in self.operations() {
            if at < share {
                return op;
            }
            at -= share;
        }
        self.operations()
            .last()
            .map_or(Operation::Read, |(op, _)| op)
    }
}

/// The workload's parameters; the result file records them.
#[derive(Clone, Debug, Serialize)]
pub struct YcsbParams {
    /// The mixes to run (`--workload`).
    pub mixes: Vec<Mix>,
    /// Distributions to run each mix with, instead of its own (`--distribution`).
    pub distributions: Option<Vec<Distribution>>,
    /// Records loaded before the run phase.
    pub records: u64,
    /// Operations in the run phase, over all threads; None: run for `duration_secs`.
    pub operations: Option<u64>,
    pub duration_secs: f64,
    pub field_count: usize,
    /// The longest field (every field's length when `field_lengths` is constant).
    pub field_length: usize,
    /// How each field's length is drawn, from `min_field_length` to `field_length` (YCSB's
    /// `fieldlengthdistribution` and `minfieldlength`).
    pub field_lengths: LengthDistribution,
    pub min_field_length: usize,
    /// The longest scan; scan lengths are drawn from `min_scan_length` to this, as
    /// `scan_lengths` says (YCSB's `maxscanlength`, `minscanlength`, `scanlengthdistribution`).
    pub max_scan_length: u64,
    pub min_scan_length: u64,
    pub scan_lengths: LengthDistribution,
    /// Reads (and scans) fetch every field, else one chosen at random (YCSB's `readallfields`).
    pub read_all_fields: bool,
    /// Updates write every field, else one chosen at random (YCSB's `writeallfields`).
    pub write_all_fields: bool,
    pub threads: Vec<usize>,
    pub runs: usize,
    /// Operations per second in all, from YCSB's `target` property (`--rate` wins over it).
    pub target: Option<f64>,
    /// The hotspot distribution's shape (YCSB's default unless its properties say).
    pub hotspot: Hotspot,
    /// The exponential distribution's shape (YCSB's default unless its properties say).
    pub exponential: Exponential,
    /// How records are named (YCSB's `insertorder` and `zeropadding`).
    pub keys: KeyNaming,
    /// The records this run loads and chooses from: `insert_count` (None: the rest) from
    /// `insert_start` (YCSB's `insertstart` and `insertcount`).
    pub insert_start: u64,
    pub insert_count: Option<u64>,
}

impl YcsbParams {
    /// The record numbers this run loads, and its operations choose from (inserts aside).
    pub fn slice(&self) -> std::ops::Range<u64> {
        let count = (self.insert_count).unwrap_or(self.records.saturating_sub(self.insert_start));
        self.insert_start..self.insert_start + count
    }

    /// Whether the run loads fewer than all the records.
    pub fn sliced(&self) -> bool {
        self.slice() != (0..self.records)
    }
}

pub fn default_params() -> YcsbParams {
    YcsbParams {
        mixes: vec![Mix::core("a").expect("a core workload")],
        distributions: None,
        records: 100_000,
        operations: Some(100_000),
        duration_secs: 0.0,
        field_count: 10,
        field_length: 100,
        field_lengths: LengthDistribution::Constant,
        min_field_length: 1,
        max_scan_length: 100,
        min_scan_length: 1,
        scan_lengths: LengthDistribution::Uniform,
        read_all_fields: true,
        write_all_fields: false,
        threads: vec![1],
        runs: 1,
        target: None,
        hotspot: Hotspot::default(),
        exponential: Exponential::default(),
        keys: KeyNaming::default(),
        insert_start: 0,
        insert_count: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixes_pick_operations_in_their_proportions() {
        let f = Mix::core("f").unwrap();
        assert_eq!(f.pick(0.2), Operation::Read);
        assert_eq!(f.pick(0.7), Operation::Rmw);
        let e = Mix::core("e").unwrap();
        assert_eq!(e.pick(0.01), Operation::Insert);
        assert_eq!(e.pick(0.5), Operation::Scan);
        assert_eq!(e.pick(0.999_999), Operation::Scan);
        assert!(Mix::core("g").is_err());
        for letter in ["a", "b", "c", "d", "e", "f"] {
            let sum: f64 = Mix::core(letter).unwrap().proportions.iter().sum();
            assert!((sum - 1.0).abs() < 1e-9, "workload {letter} sums to {sum}");
        }
    }
}
