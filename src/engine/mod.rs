//! Engines, reached only through the traits: a workload never names an engine.
//!
//! Each engine lives in its own module and is registered here by name.

pub mod bdb;
pub mod bdb_sql;
#[cfg(feature = "duckdb")]
pub mod duckdb;
pub mod kv;
pub mod lmdb;
pub mod memcached;
pub mod mysql;
pub mod null;
pub mod postgres;
pub mod redis;
pub mod rocksdb;
pub mod sql;
pub mod sqlite;

use anyhow::{bail, Result};
pub use kv::{KvEngine, KvOptions, KvSession, KvStore};
pub use sql::{SqlConnection, SqlDatabase, SqlEngine, SqlOptions};

/// Every key-value engine this build has, in the order tables list them.
pub fn kv_engines() -> Vec<&'static dyn KvEngine> {
    vec![
        &bdb::BDB,
        &lmdb::LMDB,
        &rocksdb::ROCKSDB,
        &sqlite::SQLITE_KV,
        &null::NULL,
    ]
}

/// Key-value servers used as caches and session stores (`redis`, `memcached`): they cannot scan
/// in key order, so the kv workload and the crash test leave them out; the session workload
/// uses them.
pub fn cache_engines() -> Vec<&'static dyn KvEngine> {
    vec![&redis::REDIS, &memcached::MEMCACHED]
}

/// Looks a key-value engine up by the name a user typed.
pub fn kv_engine(name: &str) -> Result<&'static dyn KvEngine> {
    lookup(name, &kv_engines(), |e| e.name(), "key-value")
}

/// Parses `--engine a,b,c` for key-value workloads, keeping order, dropping repeats.
pub fn parse_kv_engines(list: &str) -> Result<Vec<&'static dyn KvEngine>> {
    parse_list(list, &kv_engines(), |e| e.name(), "key-value")
}

/// Every SQL engine this build has.
pub fn sql_engines() -> Vec<&'static dyn SqlEngine> {
    vec![
        &sqlite::SQLITE_SQL,
        &bdb_sql::BDB_SQL,
        &postgres::POSTGRES,
        &mysql::MYSQL,
        #[cfg(feature = "duckdb")]
        &duckdb::DUCKDB,
    ]
}

/// Optional engines this build was made without, with the feature that builds them in.
pub fn not_built() -> Vec<(&'static str, &'static str)> {
    vec![
        #[cfg(not(feature = "duckdb"))]
        ("duckdb", "duckdb"),
    ]
}

/// Refuses an optional engine this build lacks, saying how to build it in.
pub fn check_built(name: &str) -> Result<()> {
    let wanted = name.trim().to_ascii_lowercase();
    if let Some((engine, feature)) = not_built().into_iter().find(|(e, _)| *e == wanted) {
        bail!(
            "engine '{engine}' is optional and not in this build; build hakari with it: scripts/setup.sh, then `. scripts/env.sh; cargo build --release --features {feature}`"
        );
    }
    Ok(())
}

/// Parses `--engine a,b` for SQL workloads, keeping order, dropping repeats.
pub fn parse_sql_engines(list: &str) -> Result<Vec<&'static dyn SqlEngine>> {
    for name in list.split(',') {
        check_built(name)?;
    }
    parse_list(list, &sql_engines(), |e| e.name(), "SQL")
}

/// The engine of `all` named `name`; the error lists what this build has.
fn lookup<E: ?Sized>(
    name: &str,
    all: &[&'static E],
    name_of: fn(&E) -> &'static str,
    family: &str,
) -> Result<&'static E> {
    let wanted = name.trim().to_ascii_lowercase();
    match all.iter().find(|e| name_of(e) == wanted) {
        Some(e) => Ok(*e),
        None => bail!(
            "unknown engine '{}' for {family} workloads; this build has: {}",
            name.trim(),
            all.iter()
                .map(|e| name_of(e))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn parse_list<E: ?Sized>(
    list: &str,
    all: &[&'static E],
    name_of: fn(&E) -> &'static str,
    family: &str,
) -> Result<Vec<&'static E>> {
    let mut out: Vec<&'static E> = Vec::new();
    for name in list.split(',').filter(|s| !s.trim().is_empty()) {
        let e = lookup(name, all, name_of, family)?;
        if !out.iter().any(|o| name_of(o) == name_of(e)) {
            out.push(e);
        }
    }
    if out.is_empty() {
        bail!("no engine named");
    }
    Ok(out)
}
