//! Engines, reached only through the traits: a workload never names an engine.
//!
//! Each engine lives in its own module and is registered here by name.

// pub mod bdb; (being written)
pub mod kv;
pub mod lmdb;
pub mod null;
pub mod rocksdb;
pub mod sql;
pub mod sqlite;

use anyhow::{bail, Result};
pub use kv::{KvEngine, KvOptions, KvSession, KvStore};
pub use sql::{SqlConnection, SqlDatabase, SqlEngine, SqlOptions};

/// Every key-value engine this build has, in the order tables list them.
pub fn kv_engines() -> Vec<&'static dyn KvEngine> {
    vec![
        // &bdb::BDB,
        &lmdb::LMDB,
        &rocksdb::ROCKSDB,
        &sqlite::SQLITE_KV,
        &null::NULL,
    ]
}

/// Looks a key-value engine up by the name a user typed.
pub fn kv_engine(name: &str) -> Result<&'static dyn KvEngine> {
    let wanted = name.trim().to_ascii_lowercase();
    if let Some(e) = kv_engines().into_iter().find(|e| e.name() == wanted) {
        return Ok(e);
    }
    bail!(
        "unknown engine '{}' for key-value workloads; this build has: {}",
        name,
        kv_engines()
            .iter()
            .map(|e| e.name())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Parses `--engine a,b,c`, keeping order, dropping repeats.
pub fn parse_kv_engines(list: &str) -> Result<Vec<&'static dyn KvEngine>> {
    let mut out: Vec<&'static dyn KvEngine> = Vec::new();
    for name in list.split(',').filter(|s| !s.trim().is_empty()) {
        let e = kv_engine(name)?;
        if !out.iter().any(|o| o.name() == e.name()) {
            out.push(e);
        }
    }
    if out.is_empty() {
        bail!("no engine named");
    }
    Ok(out)
}

/// Every SQL engine this build has.
pub fn sql_engines() -> Vec<&'static dyn SqlEngine> {
    vec![&sqlite::SQLITE_SQL]
}

/// Parses `--engine a,b` for SQL workloads, keeping order, dropping repeats.
pub fn parse_sql_engines(list: &str) -> Result<Vec<&'static dyn SqlEngine>> {
    let mut out: Vec<&'static dyn SqlEngine> = Vec::new();
    for name in list.split(',').filter(|s| !s.trim().is_empty()) {
        let wanted = name.trim().to_ascii_lowercase();
        let Some(e) = sql_engines().into_iter().find(|e| e.name() == wanted) else {
            bail!(
                "unknown engine '{}' for SQL workloads; this build has: {}",
                name,
                sql_engines()
                    .iter()
                    .map(|e| e.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        };
        if !out.iter().any(|o| o.name() == e.name()) {
            out.push(e);
        }
    }
    if out.is_empty() {
        bail!("no engine named");
    }
    Ok(out)
}
