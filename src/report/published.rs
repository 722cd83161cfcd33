//! The figures the source papers published (reference/published.toml), to show beside fresh ones.

use std::sync::OnceLock;
use toml::Value;

const PUBLISHED: &str = include_str!("../../reference/published.toml");

pub fn published() -> &'static Value {
    static CELL: OnceLock<Value> = OnceLock::new();
    CELL.get_or_init(|| {
        toml::from_str::<Value>(PUBLISHED)
            .expect("reference/published.toml is valid TOML (checked by a test)")
    })
}

/// A published figure beside a fresh one.
#[derive(Clone, Debug, PartialEq)]
pub struct Published {
    pub mean: f64,
    pub stddev: Option<f64>,
    /// The machine and year, for the label.
    pub source: String,
}

fn number(v: &Value) -> Option<f64> {
    v.as_float().or_else(|| v.as_integer().map(|i| i as f64))
}

/// The row name paper 000 uses for a durability level (tables 3 and 4).
fn bdb_11gr2_row(durability: &str) -> Option<&'static str> {
    Some(match durability {
        "none" => "ds",
        "sync" => "tds_sync",
        "write-nosync" => "tds_write_nosync",
        "nosync" => "tds_nosync",
        "in-memory" => "tds_in_memory",
        _ => return None,
    })
}

/// Paper 000's figure for a kv step (insert/fetch/delete/update) at a level and thread count.
pub fn bdb_11gr2(durability: &str, threads: usize, step: &str) -> Option<Published> {
    let paper = published().get("bdb_11gr2")?;
    let source = format!(
        "BDB 11gR2 white paper, 2010 ({})",
        paper.get("machine")?.as_str()?
    );
    let pick = |columns: &Value, row: &[Value], offset: usize| -> Option<Published> {
        let cols: Vec<&str> = columns
            .as_array()?
            .iter()
            .filter_map(|c| c.as_str())
            .collect();
        let i = cols.iter().position(|c| *c == step)?;
        let sd = cols.iter().position(|c| *c == format!("{step}_sd"));
        Some(Published {
            mean: number(row.get(i - offset)?)?,
            stddev: sd.and_then(|j| row.get(j - offset)).and_then(number),
            source: source.clone(),
        })
    };
    if threads == 1 {
        let single = paper.get("single_thread")?;
        let row = single.get(bdb_11gr2_row(durability)?)?.as_array()?;
        return pick(single.get("columns")?, row, 0);
    }
    if durability != "sync" {
        return None;
    }
    let table = paper.get("threads")?;
    let row = table
        .get("rows")?
        .as_array()?
        .iter()
        .filter_map(|r| r.as_array())
        .find(|r| r.first().and_then(number) == Some(threads as f64))?;
    pick(table.get("columns")?, row, 0)
}

/// Paper 000's table 6: TPC-B TPS on the SQL interface with `threads` threads.
pub fn bdb_11gr2_tpcb(threads: usize) -> Option<Published> {
    let paper = published().get("bdb_11gr2")?;
    let row = paper
        .get("tpcb")?
        .get("rows")?
        .as_array()?
        .iter()
        .filter_map(|r| r.as_array())
        .find(|r| r.first().and_then(number) == Some(threads as f64))?;
    Some(Published {
        mean: number(row.get(1)?)?,
        stddev: None,
        source: format!(
            "BDB 11gR2 white paper, 2010, table 6 ({})",
            paper.get("machine")?.as_str()?
        ),
    })
}

/// Paper 000's table 7: mean elapsed ms of the Wisconsin query (case) `case`, 1..32.
pub fn bdb_11gr2_wisconsin(case: usize) -> Option<Published> {
    let paper = published().get("bdb_11gr2")?;
    let ms = paper
        .get("wisconsin")?
        .get("elapsed_ms")?
        .as_array()?
        .get(case.checked_sub(1)?)?;
    Some(Published {
        mean: number(ms)?,
        stddev: None,
        source: format!(
            "BDB 11gR2 white paper, 2010, table 7 ({})",
            paper.get("machine")?.as_str()?
        ),
    })
}

/// Paper 002's Linux figure for a kv step (write/read/bulk-read) at a level.
pub fn bdb_43(durability: &str, step: &str) -> Option<Published> {
    let paper = published().get("bdb_43")?;
    let key = match (durability, step) {
        ("none", "read") => "ds_read",
        ("none", "write") => "ds_write",
        ("none", "bulk-read") => "ds_bulk_read",
        ("in-memory", "write") => "tds_in_memory_write",
        ("nosync", "write") => "tds_nosync_write",
        ("write-nosync", "write") => "tds_write_nosync_write",
        (d, "read") if d != "none" => "tds_read",
        _ => return None,
    };
    Some(Published {
        mean: number(paper.get(key)?.as_array()?.first()?)?,
        stddev: None,
        source: format!(
            "BDB 4.3 white paper, Linux ({})",
            paper.get("machine_linux")?.as_str()?
        ),
    })
}

/// A published series of the session-store source: seconds per step at each size.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionSeries {
    /// What was measured, e.g. "MySQL 5.0, LONGBLOB".
    pub label: &'static str,
    /// (bytes of session text, wall-clock seconds of the step).
    pub seconds: Vec<(u64, f64)>,
    pub source: String,
}

/// Source 001's series for a layout, compression and step ("write"/"read"), where the source
/// measured the same layout: MySQL and Oracle LOBs whole, Oracle LOBs gzip'ed, Oracle chunks.
pub fn session_store(layout: &str, compress: &str, step: &str) -> Vec<SessionSeries> {
    let Some(paper) = published().get("session_store") else {
        return Vec::new();
    };
    let source = format!(
        "session-store blog, 2008 ({})",
        paper.get("machine").and_then(|m| m.as_str()).unwrap_or("")
    );
    let sizes: Vec<u64> = paper
        .get("columns")
        .and_then(|c| c.as_array())
        .map(|cols| {
            cols.iter()
                .filter_map(|c| c.as_str())
                .filter_map(|c| crate::units::parse_size(c).ok())
                .collect()
        })
        .unwrap_or_default();
    let op = if step == "write" { "insert" } else { "select" };
    let rows: &[(&str, &'static str)] = match (layout, compress) {
        ("blob", "none") => &[
            ("mysql", "MySQL 5.0, LONGBLOB"),
            ("oracle_lob", "Oracle 10g, NCLOB"),
        ],
        ("blob", "gzip") => &[("oracle_lob_gzip", "Oracle 10g, NCLOB of gzip'ed data")],
        ("chunked", "none") => &[("oracle_chunked", "Oracle 10g, VARCHAR2(4000) chunks")],
        _ => &[],
    };
    rows.iter()
        .filter_map(|(row, label)| {
            let values = paper.get(format!("{row}_{op}_s"))?.as_array()?;
            Some(SessionSeries {
                label,
                seconds: sizes
                    .iter()
                    .zip(values)
                    .filter_map(|(s, v)| Some((*s, number(v)?)))
                    .collect(),
                source: source.clone(),
            })
        })
        .collect()
}

/// Seed 003's DBT-3 figures for PostgreSQL 8.0 at SF 1 (old kit: whole seconds).
#[derive(Clone, Debug, PartialEq)]
pub struct Dbt3Published {
    pub scale_factor: f64,
    pub streams: usize,
    pub composite: f64,
    pub power: f64,
    pub throughput: f64,
    pub source: String,
}

pub fn dbt3_postgresql() -> Option<Dbt3Published> {
    let paper = published().get("dbt3_postgresql")?;
    let get = |k: &str| paper.get(k).and_then(number);
    Some(Dbt3Published {
        scale_factor: get("scale_factor")?,
        streams: get("streams")? as usize,
        composite: get("composite")?,
        power: get("query_processing_power")?,
        throughput: get("throughput_numerical_quantity")?,
        source: format!(
            "{} ({})",
            paper.get("source")?.as_str()?,
            paper.get("machine")?.as_str()?
        ),
    })
}

/// The published figure for a fresh one, where its preset reproduces a paper's table.
pub fn for_figure(
    preset: Option<&str>,
    engine: &str,
    durability: &str,
    threads: usize,
    step: &str,
) -> Option<Published> {
    match (engine, step) {
        ("bdb-sql", "tpcb") if preset == Some("bdb-11gr2") && durability == "sync" => {
            return bdb_11gr2_tpcb(threads)
        }
        ("bdb", _) => {}
        _ => return None,
    }
    match preset {
        Some("bdb-11gr2") => bdb_11gr2(durability, threads, step),
        Some("bdb-4.3") if threads == 1 => bdb_43(durability, step),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_papers_tables() {
        let ds = bdb_11gr2("none", 1, "insert").unwrap();
        assert_eq!((ds.mean, ds.stddev), (208139.0, Some(329.0)));
        let sync_update = bdb_11gr2("sync", 1, "update").unwrap();
        assert_eq!(sync_update.mean, 1732.0);
        let t16 = bdb_11gr2("sync", 16, "fetch").unwrap();
        assert_eq!((t16.mean, t16.stddev), (99860.0, Some(820.0)));
        assert!(bdb_11gr2("nosync", 4, "fetch").is_none());
        assert_eq!(bdb_43("none", "bulk-read").unwrap().mean, 13501800.0);
        assert_eq!(bdb_43("nosync", "read").unwrap().mean, 466623.0);
        assert!(bdb_43("sync", "write").is_none());
        assert_eq!(bdb_11gr2_tpcb(10).unwrap().mean, 2859.15);
        assert_eq!(
            for_figure(Some("bdb-11gr2"), "bdb-sql", "sync", 1, "tpcb")
                .unwrap()
                .mean,
            1846.71
        );
        assert!(for_figure(Some("bdb-11gr2"), "sqlite", "sync", 1, "tpcb").is_none());
        let blob_writes = session_store("blob", "none", "write");
        assert_eq!(blob_writes.len(), 2);
        assert_eq!(blob_writes[0].seconds[4], (1000 << 10, 136.0));
        assert_eq!(
            session_store("chunked", "none", "read")[0].seconds[0],
            (1 << 10, 15.0)
        );
        assert!(session_store("chunked", "zstd", "read").is_empty());
    }

    #[test]
    fn dbt3_figures_are_consistent() {
        let d = dbt3_postgresql().unwrap();
        assert_eq!((d.scale_factor, d.streams), (1.0, 4));
        // Composite = sqrt(power * throughput), as DBT-3's get_composite.pl computes it.
        assert!(((d.power * d.throughput).sqrt() - d.composite).abs() < 0.005);
        assert_eq!(bdb_11gr2_wisconsin(1).unwrap().mean, 8.175);
        assert_eq!(bdb_11gr2_wisconsin(9).unwrap().mean, 31047.220);
        assert_eq!(bdb_11gr2_wisconsin(32).unwrap().mean, 1.081);
        assert!(bdb_11gr2_wisconsin(0).is_none() && bdb_11gr2_wisconsin(33).is_none());
    }
}
