//! Engines, reached only through the traits: a workload never names an engine.
//!
//! Each engine lives in its own module and is registered once, in [`all`]. What it offers (its
//! family, durability levels, limits, the private server it starts) it declares through its
//! trait; workloads, the session store and the crash test select engines by what they can do.

pub mod bdb;
pub mod bdb_sql;
#[cfg(feature = "duckdb")]
pub mod duckdb;
pub mod kv;
pub mod lmdb;
pub mod memcached;
pub mod mysql;
pub mod null;
pub mod odbc;
pub mod postgres;
pub mod redis;
pub mod rocksdb;
pub mod sql;
pub mod sqlite;
pub mod tls;

use crate::durability::Durability;
use anyhow::{bail, Result};
pub use kv::{KvEngine, KvOptions, KvSession, KvStore};
pub use sql::{SqlConnection, SqlDatabase, SqlEngine, SqlOptions};

/// A registered engine: a key-value store or a SQL database, under the name users type.
#[derive(Clone, Copy)]
pub enum Engine {
    Kv(Named<dyn KvEngine>),
    Sql(Named<dyn SqlEngine>),
}

/// Every engine this build has, in the order tables list them: the key-value family (ordered
/// stores, then the caches), then the SQL engines. `sqlite` is registered in both families.
/// The name given here is the engine's only name: `--engine NAME`, tables, result files.
pub fn all() -> Vec<Engine> {
    vec![
        Engine::Kv(Named::new("bdb", &bdb::Bdb)),
        Engine::Kv(Named::new("lmdb", &lmdb::Lmdb)),
        Engine::Kv(Named::new("rocksdb", &rocksdb::RocksDb)),
        Engine::Kv(Named::new("sqlite", &sqlite::SqliteKv)),
        Engine::Kv(Named::new("null", &null::Null)),
        Engine::Kv(Named::new("redis", &redis::Redis)),
        Engine::Kv(Named::new("memcached", &memcached::Memcached)),
        Engine::Sql(Named::new("sqlite", &sqlite::SqliteSql)),
        Engine::Sql(Named::new("bdb-sql", &bdb_sql::BdbSql)),
        Engine::Sql(Named::new("postgres", &postgres::POSTGRESQL)),
        Engine::Sql(Named::new("mysql", &mysql::Mysql)),
        #[cfg(feature = "duckdb")]
        Engine::Sql(Named::new("duckdb", &duckdb::Duckdb)),
        Engine::Sql(Named::new("odbc", &odbc::Odbc)),
    ]
}

/// An engine with the name it is registered under; it derefs to the engine's trait.
pub struct Named<E: ?Sized + 'static> {
    name: &'static str,
    engine: &'static E,
}

impl<E: ?Sized> Named<E> {
    pub const fn new(name: &'static str, engine: &'static E) -> Named<E> {
        Named { name, engine }
    }

    /// The name users type (`--engine NAME`).
    pub fn name(&self) -> &'static str {
        self.name
    }
}

impl<E: ?Sized> Clone for Named<E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E: ?Sized> Copy for Named<E> {}

impl<E: ?Sized> std::ops::Deref for Named<E> {
    type Target = E;
    fn deref(&self) -> &E {
        self.engine
    }
}

/// The scheme a URL starts with (`postgres` of `postgres://...`, `odbc` of `odbc:DSN=...`).
pub fn url_scheme(url: &str) -> Option<&str> {
    let (scheme, _) = url.split_once(':')?;
    let valid = !scheme.is_empty()
        && (scheme.chars()).all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    valid.then_some(scheme)
}

/// Optional engines this build was made without, with the feature that builds them in.
pub fn not_built() -> Vec<(&'static str, &'static str)> {
    vec![
        #[cfg(not(feature = "duckdb"))]
        ("duckdb", "duckdb"),
    ]
}

impl Engine {
    /// The name users type (`--engine NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Engine::Kv(e) => e.name(),
            Engine::Sql(e) => e.name(),
        }
    }

    /// How this engine honours `level`: `Ok(the knobs it sets)`, or `Err(why it cannot)`.
    pub fn mapping(self, level: Durability) -> std::result::Result<String, String> {
        match self {
            Engine::Kv(e) => e.mapping(level),
            Engine::Sql(e) => e.mapping(level),
        }
    }

    /// The levels it offers, in the vocabulary's order.
    pub fn offered(self) -> Vec<Durability> {
        Durability::ALL
            .into_iter()
            .filter(|d| self.mapping(*d).is_ok())
            .collect()
    }

    /// Refuses, with a message naming what the engine does offer, a combination it cannot run.
    pub fn check(self, level: Durability, threads: usize) -> Result<()> {
        if let Err(why) = self.mapping(level) {
            bail!(
                "engine '{}' does not offer durability '{}': {}. It offers: {}",
                self.name(),
                level,
                why,
                self.offered()
                    .iter()
                    .map(|d| d.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let max = match self {
            Engine::Kv(e) => e.max_threads(level),
            Engine::Sql(_) => None,
        };
        if let Some(max) = max.filter(|max| threads > *max) {
            bail!(
                "engine '{}' at durability '{}' serves at most {} thread(s), not {}",
                self.name(),
                level,
                max,
                threads
            );
        }
        Ok(())
    }

    /// The schemes of the `--url`s it takes.
    pub fn url_schemes(self) -> &'static [&'static str] {
        match self {
            Engine::Kv(e) => e.url_schemes(),
            Engine::Sql(e) => e.url_schemes(),
        }
    }

    /// The loopback clusters its private server can be started as (`--replicas`, `--cluster`).
    pub fn topologies(self) -> &'static [crate::server::topology::Kind] {
        match self {
            Engine::Kv(e) => e.topologies(),
            Engine::Sql(e) => e.topologies(),
        }
    }

    /// Whether `url` is for this engine: its scheme is one of the engine's. A URL whose scheme
    /// no engine takes (a libpq `host=... dbname=...` string has none) goes to every engine, as
    /// a lone `--url` always did, and the engine says what it makes of it.
    pub fn takes_url(self, url: &str) -> bool {
        match url_scheme(url) {
            Some(scheme) if all().iter().any(|e| e.url_schemes().contains(&scheme)) => {
                self.url_schemes().contains(&scheme)
            }
            _ => true,
        }
    }

    /// A key-value store that reads in key order (not a cache).
    pub fn is_ordered_kv(self) -> bool {
        matches!(self, Engine::Kv(e) if e.ordered_scan())
    }

    /// Whether what it stores can be read back (false only for `null`).
    pub fn keeps_data(self) -> bool {
        match self {
            Engine::Kv(e) => e.keeps_data(),
            Engine::Sql(_) => true,
        }
    }

    /// The private server hakari starts for it without `--url`.
    pub fn private_server(self) -> Option<&'static dyn crate::server::PrivateServer> {
        match self {
            Engine::Kv(e) => e.private_server(),
            Engine::Sql(e) => e.private_server(),
        }
    }
}

/// Which engines a user of the registry takes, by what they can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Takes {
    /// Key-value stores that scan in key order (the kv workload).
    OrderedKv,
    /// SQL databases.
    Sql,
    /// Anything that keeps records: SQL engines first (so `sqlite` means its table), then the
    /// key-value stores and caches that keep data (the session workload).
    Records,
    /// Every engine: SQL first (so `sqlite` means its table), then every key-value store and
    /// cache, `null` included (the YCSB workload).
    Any,
    /// Engines a crash can be done to: ordered key-value stores that keep data (their committing
    /// process is killed), and SQL engines with a private server (the server is killed).
    Crashable,
}

impl Takes {
    /// The engines taken, in table order.
    pub fn engines(self) -> Vec<Engine> {
        let all = all();
        let sql = all.iter().copied().filter(|e| matches!(e, Engine::Sql(_)));
        let kv = all.iter().copied().filter(|e| matches!(e, Engine::Kv(_)));
        match self {
            Takes::OrderedKv => kv.filter(|e| e.is_ordered_kv()).collect(),
            Takes::Sql => sql.collect(),
            Takes::Records => {
                let sql: Vec<Engine> = sql.collect();
                let kv = kv.filter(|e| e.keeps_data() && !sql.iter().any(|s| s.name() == e.name()));
                sql.iter().copied().chain(kv).collect()
            }
            Takes::Any => {
                let sql: Vec<Engine> = sql.collect();
                let kv = kv.filter(|e| !sql.iter().any(|s| s.name() == e.name()));
                sql.iter().copied().chain(kv).collect()
            }
            // Redis only as a cluster, one of whose masters is killed.
            Takes::Crashable => kv
                .filter(|e| e.keeps_data() && (e.is_ordered_kv() || !e.topologies().is_empty()))
                .chain(sql.filter(|e| e.private_server().is_some()))
                .collect(),
        }
    }

    fn family(self) -> &'static str {
        match self {
            Takes::OrderedKv => "among ordered key-value stores",
            Takes::Sql => "among SQL engines",
            Takes::Records => "among engines that keep records",
            Takes::Any => "",
            Takes::Crashable => "for the crash test",
        }
    }

    /// Parses `--engine a,b,c`, keeping order and dropping repeats. An unknown name is refused
    /// with what this build has; an optional engine this build lacks, with how to build it in.
    pub fn parse(self, list: &str) -> Result<Vec<Engine>> {
        let taken = self.engines();
        let mut out: Vec<Engine> = Vec::new();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let wanted = name.to_ascii_lowercase();
            if let Some((engine, feature)) = not_built().into_iter().find(|(e, _)| *e == wanted) {
                bail!(
                    "engine '{engine}' is optional and not in this build; build hakari with it: scripts/setup.sh, then `. scripts/env.sh; cargo build --release --features {feature}`"
                );
            }
            let Some(e) = taken.iter().find(|e| e.name() == wanted) else {
                let among = match self.family() {
                    "" => String::new(),
                    family => format!(" {family}"),
                };
                bail!(
                    "unknown engine '{name}'{among}; this build has: {}",
                    names(&taken)
                );
            };
            if !out.iter().any(|o| o.name() == e.name()) {
                out.push(*e);
            }
        }
        if out.is_empty() {
            bail!("no engine named");
        }
        Ok(out)
    }
}

/// Names, comma-separated, for messages.
pub fn names(engines: &[Engine]) -> String {
    engines
        .iter()
        .map(|e| e.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every ordered key-value engine (the kv workload's and the tour's).
pub fn kv_engines() -> Vec<Named<dyn KvEngine>> {
    Takes::OrderedKv
        .engines()
        .into_iter()
        .filter_map(Engine::as_kv)
        .collect()
}

/// Every SQL engine this build has.
pub fn sql_engines() -> Vec<Named<dyn SqlEngine>> {
    Takes::Sql
        .engines()
        .into_iter()
        .filter_map(Engine::as_sql)
        .collect()
}

/// Looks a key-value engine up by the name a user typed.
pub fn kv_engine(name: &str) -> Result<Named<dyn KvEngine>> {
    let found = Takes::OrderedKv.parse(name)?[0].as_kv();
    found.ok_or_else(|| anyhow::anyhow!("'{name}' is not a key-value engine"))
}

/// Looks a SQL engine up by the name a user typed.
pub fn sql_engine(name: &str) -> Result<Named<dyn SqlEngine>> {
    let found = Takes::Sql.parse(name)?[0].as_sql();
    found.ok_or_else(|| anyhow::anyhow!("'{name}' is not a SQL engine"))
}

impl Engine {
    pub fn as_kv(self) -> Option<Named<dyn KvEngine>> {
        match self {
            Engine::Kv(e) => Some(e),
            Engine::Sql(_) => None,
        }
    }

    pub fn as_sql(self) -> Option<Named<dyn SqlEngine>> {
        match self {
            Engine::Sql(e) => Some(e),
            Engine::Kv(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_registered_once_per_family() {
        let all = all();
        for (i, e) in all.iter().enumerate() {
            let same_family = all[i + 1..]
                .iter()
                .filter(|o| o.name() == e.name() && o.as_kv().is_some() == e.as_kv().is_some());
            assert_eq!(same_family.count(), 0, "{} registered twice", e.name());
        }
        let records = Takes::Records.engines();
        assert!(records.iter().all(|e| e.keeps_data()));
        assert!(matches!(
            Takes::Records.parse("sqlite").unwrap()[0],
            Engine::Sql(_)
        ));
        assert!(
            Takes::OrderedKv.parse("redis").is_err(),
            "a cache cannot scan"
        );
        assert!(
            Takes::Crashable.parse("null").is_err(),
            "null keeps nothing"
        );
    }
}
