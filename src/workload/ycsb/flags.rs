//! The ycsb workload's own flags, and the parameters they make.

use super::generators::Distribution;
use super::presets::{self, Mix, YcsbParams};
use super::properties;
use crate::workload::flags::{self, Flags, Shared};
use anyhow::{bail, Result};
use clap::Args;

#[derive(Args, Clone, Debug)]
pub struct YcsbFlags {
    /// YCSB core workloads, comma-separated: a (50% reads, 50% updates), b (95% reads, 5%
    /// updates), c (reads only), d (95% reads of the latest records, 5% inserts), e (95% short
    /// scans, 5% inserts), f (50% reads, 50% read-modify-writes), custom (the proportions given
    /// by --read, --update, --insert, --scan, --rmw). Default: a.
    #[arg(long = "workload", value_name = "LIST", value_delimiter = ',')]
    pub workloads: Option<Vec<String>>,
    /// How operations choose records, instead of each workload's own, comma-separated (each a
    /// configuration): zipfian (scrambled, constant 0.99), uniform, latest (the newest records
    /// the most popular), hotspot (80% of operations on 20% of the records), exponential (95% of
    /// operations on the newest 6/7 of the records).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    pub distribution: Option<Vec<Distribution>>,
    /// Records loaded before the run phase (default 100,000).
    #[arg(long, value_name = "N")]
    pub records: Option<u64>,
    /// Operations in the run phase, over all threads (default 100,000).
    #[arg(long, value_name = "N", conflicts_with = "duration")]
    pub operations: Option<u64>,
    /// Seconds the run phase lasts, instead of a number of operations.
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,
    /// Fields per record (default 10).
    #[arg(long, value_name = "N")]
    pub field_count: Option<usize>,
    /// Bytes per field (default 100).
    #[arg(long, value_name = "BYTES", value_parser = flags::bytes::<usize>)]
    pub field_length: Option<usize>,
    /// The longest scan; lengths are uniform from 1 to this (default 100).
    #[arg(long, value_name = "N")]
    pub max_scan_length: Option<u64>,
    /// custom: the share of reads.
    #[arg(long, value_name = "SHARE", help_heading = "Custom workload")]
    pub read: Option<f64>,
    /// custom: the share of updates of one field.
    #[arg(long, value_name = "SHARE", help_heading = "Custom workload")]
    pub update: Option<f64>,
    /// custom: the share of inserts of new records.
    #[arg(long, value_name = "SHARE", help_heading = "Custom workload")]
    pub insert: Option<f64>,
    /// custom: the share of short scans.
    #[arg(long, value_name = "SHARE", help_heading = "Custom workload")]
    pub scan: Option<f64>,
    /// custom: the share of read-modify-writes.
    #[arg(long, value_name = "SHARE", help_heading = "Custom workload")]
    pub rmw: Option<f64>,
    /// A YCSB workload property file, as YCSB's -P (its workloads/workloada, say, unchanged);
    /// repeat for several, later ones winning. What the files leave out is YCSB's CoreWorkload
    /// default; an unknown property is named in a warning.
    #[arg(short = 'P', long = "properties", value_name = "FILE",
        conflicts_with_all = ["workloads", "distribution", "read", "update", "insert", "scan", "rmw"],
        help_heading = "YCSB's own files")]
    pub property_files: Vec<std::path::PathBuf>,
    /// A YCSB property over the files, as YCSB's -p (recordcount=1000000, say); repeat for
    /// several.
    #[arg(short = 'p', long = "property", value_name = "KEY=VALUE",
        conflicts_with_all = ["workloads", "distribution", "read", "update", "insert", "scan", "rmw"],
        help_heading = "YCSB's own files")]
    pub properties: Vec<String>,
}

impl Flags for YcsbFlags {
    type Workload = YcsbParams;
    const ABOUT: &'static str =
        "YCSB's core workloads A-F, a custom mix or YCSB's own workload files (-P, -p) on every \
        engine: a load phase, then reads, updates, inserts, short scans and read-modify-writes on \
        records chosen by YCSB's own generators; ops/s and latency per phase and per operation.";
    /// The workload with these flags.
    fn workload(&self, shared: &Shared) -> Result<YcsbParams> {
        if let Some(preset) = &shared.preset {
            bail!(
                "the ycsb workload has no preset '{preset}'; pick core workloads with --workload"
            );
        }
        let mut p = presets::default_params();
        if !self.property_files.is_empty() || !self.properties.is_empty() {
            let props = properties::gather(&self.property_files, &self.properties)?;
            let name = (self.property_files.last())
                .and_then(|f| f.file_name())
                .map_or("properties".into(), |f| f.to_string_lossy().into_owned());
            let read = properties::read(&props, &name, p)?;
            read.warnings
                .iter()
                .for_each(|w| eprintln!("hakari: warning: {w}"));
            p = read.params;
            p.target = read.target;
        }
        if let Some(names) = &self.workloads {
            p.mixes = (names.iter())
                .map(|n| match n.trim().to_ascii_lowercase().as_str() {
                    "custom" => self.custom(),
                    letter => Mix::core(letter),
                })
                .collect::<Result<_>>()?;
        }
        let custom = p.mixes.iter().any(|m| m.name == "custom");
        if !custom && self.proportions().iter().any(Option::is_some) {
            bail!("--read, --update, --insert, --scan and --rmw apply to --workload custom");
        }
        p.distributions = self.distribution.clone();
        flags::set(&mut p.records, self.records);
        if let Some(ops) = self.operations {
            p.operations = Some(ops);
        }
        if let Some(d) = self.duration {
            p.operations = None;
            p.duration_secs = d;
        }
        flags::set(&mut p.field_count, self.field_count);
        flags::set(&mut p.field_length, self.field_length);
        flags::set(&mut p.max_scan_length, self.max_scan_length);
        flags::set(&mut p.runs, shared.runs);
        flags::set(&mut p.threads, shared.threads("threads")?);
        Ok(p)
    }
}

impl YcsbFlags {
    fn proportions(&self) -> [Option<f64>; 5] {
        [self.read, self.update, self.insert, self.scan, self.rmw]
    }

    /// The custom mix: the shares given (the others 0), zipfian unless --distribution says.
    fn custom(&self) -> Result<Mix> {
        let proportions = self.proportions().map(|s| s.unwrap_or(0.0));
        if proportions.iter().any(|s| !(0.0..=1.0).contains(s)) {
            bail!("--read, --update, --insert, --scan and --rmw are shares from 0 to 1");
        }
        let total: f64 = proportions.iter().sum();
        if total <= 0.0 {
            bail!("--workload custom needs at least one of --read, --update, --insert, --scan, --rmw above 0");
        }
        if (total - 1.0).abs() > 1e-6 {
            bail!("the custom workload's shares add up to {total}, not 1");
        }
        Ok(Mix {
            name: "custom".into(),
            proportions,
            distribution: Distribution::Zipfian,
        })
    }
}
