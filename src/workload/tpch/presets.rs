//! The tpch workload's parameters and presets.

use crate::durability::Durability;
use anyhow::{bail, Result};
use serde::Serialize;
use std::path::PathBuf;

#[derive(Clone, Debug, Serialize)]
pub struct TpchParams {
    pub preset: Option<&'static str>,
    /// Scale factors, each loaded and measured on a fresh database.
    pub scale_factors: Vec<f64>,
    /// Query streams of the throughput test; None: the spec's minimum for each SF.
    pub streams: Option<usize>,
    /// Run the 22 queries with the qualification (validation) parameters after the load and
    /// compare their answers with the answer set for the SF.
    pub validate: bool,
    /// Also write the generated tables as dbgen .tbl files into this directory.
    pub keep_data: Option<PathBuf>,
    pub default_durability: Vec<Durability>,
    /// Where the paper's figures come from (dbt3).
    pub published: Option<&'static str>,
    /// Which keys and indexes are built after the load.
    pub keys: Keys,
}

/// The keys and indexes built after the load.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Keys {
    /// What the engine's own TPC-H kit builds: DBT-3's primary keys and indexes on the
    /// row stores; none on DuckDB, whose tpch extension (by its documentation) builds none (ART indexes cost most
    /// of a load and slow the refresh functions).
    #[default]
    Kit,
    /// DBT-3's primary keys and indexes on every engine.
    All,
}

impl Keys {
    /// As `--keys` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Keys::Kit => "kit",
            Keys::All => "all",
        }
    }
}

pub fn default_params() -> TpchParams {
    TpchParams {
        preset: None,
        scale_factors: vec![0.01],
        streams: None,
        validate: false,
        keep_data: None,
        default_durability: vec![Durability::Sync],
        published: None,
        keys: Keys::Kit,
    }
}

pub const PRESETS: &[&str] = &["dbt3"];

/// `dbt3`: seed 003's run: PostgreSQL, SF 1, 4 query streams.
pub fn preset(name: &str) -> Result<TpchParams> {
    match name {
        "dbt3" => Ok(TpchParams {
            preset: Some("dbt3"),
            scale_factors: vec![1.0],
            streams: Some(4),
            published: Some("dbt3_postgresql"),
            ..default_params()
        }),
        other => bail!(
            "unknown tpch preset '{other}'; presets: {}",
            PRESETS.join(", ")
        ),
    }
}

/// Parses `--sf 0.1,1,3`: positive numbers, at most 100,000.
pub fn parse_scale_factors(list: &str) -> Result<Vec<f64>> {
    let mut out = Vec::new();
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let sf: f64 = match item.parse() {
            Ok(v) => v,
            Err(_) => bail!("bad --sf '{item}': a scale factor is a number such as 0.01, 1 or 10"),
        };
        if !sf.is_finite() || sf <= 0.0 {
            bail!("bad --sf '{item}': a scale factor must be more than 0");
        }
        if sf > 100_000.0 {
            bail!("bad --sf '{item}': the largest TPC-H scale factor is 100000");
        }
        // The smallest table the generator scales (supplier: SF x 10,000 rows) must have a row.
        if sf < 0.0001 {
            bail!("bad --sf '{item}': the smallest scale factor hakari generates is 0.0001");
        }
        if !out.contains(&sf) {
            out.push(sf);
        }
    }
    if out.is_empty() {
        bail!("--sf names no scale factor");
    }
    Ok(out)
}

/// "0.01", "1", "0.3": how an SF is written in labels.
pub fn sf_label(sf: f64) -> String {
    let s = format!("{sf}");
    s.trim_end_matches(".0").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_factors_parse_and_refuse_nonsense() {
        assert_eq!(
            parse_scale_factors("0.1, 0.3,1,3").unwrap(),
            vec![0.1, 0.3, 1.0, 3.0]
        );
        for bad in ["0", "-1", "abc", "", "1e9", "nan"] {
            assert!(parse_scale_factors(bad).is_err(), "{bad}");
        }
        assert_eq!(sf_label(1.0), "1");
        assert_eq!(sf_label(0.01), "0.01");
    }

    #[test]
    fn dbt3_is_seed_003s_run() {
        let p = preset("dbt3").unwrap();
        assert_eq!(p.scale_factors, vec![1.0]);
        assert_eq!(p.streams, Some(4));
        assert!(preset("tpcc").is_err());
    }
}
