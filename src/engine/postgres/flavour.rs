//! The flavours of the postgres engine: what differs between PostgreSQL and a database that
//! speaks its wire protocol and SQL (CockroachDB, YugabyteDB and the like). The engine's code is
//! written once; a wire-compatible database is one more [`Postgres`] value registered under its
//! own name (`engine::all`), with its own URL schemes, durability mapping, capabilities, private
//! server and recorded settings, not a copy of the engine. go-ycsb's one creator under several
//! names is the model.

use super::super::sql::{Capabilities, Dialect, SqlDatabase, SqlEngine, SqlOptions};
use crate::durability::Durability;
use crate::server::postgres as server;
use crate::server::topology::Kind;
use crate::server::PrivateServer;
use anyhow::Result;

/// A database the postgres engine reaches: PostgreSQL itself ([`POSTGRESQL`]) or one that speaks
/// its protocol and SQL.
#[derive(Clone, Copy)]
pub struct Postgres {
    /// Its name in messages ("PostgreSQL").
    pub label: &'static str,
    /// The schemes of the `--url`s it takes; the driver is handed them as `postgresql://`.
    pub url_schemes: &'static [&'static str],
    /// How it honours each durability level: the knobs it sets, or why it cannot.
    pub mapping: fn(Durability) -> std::result::Result<String, String>,
    /// What its connections can do.
    pub capabilities: fn() -> Capabilities,
    /// The server hakari starts for it without `--url` (None: `--url` is needed).
    pub private_server: Option<&'static dyn PrivateServer>,
    /// The loopback clusters that server can be started as.
    pub topologies: &'static [Kind],
    /// Whether it has PostgreSQL's statistics views (pg_stat_database, pg_stat_wal, wait
    /// events), read into every step's resource readings.
    pub statistics: bool,
    /// The server settings recorded with a result (`SHOW name`; one it lacks is left out).
    pub settings: &'static [&'static str],
}

/// PostgreSQL itself.
pub const POSTGRESQL: Postgres = Postgres {
    label: "PostgreSQL",
    url_schemes: &["postgres", "postgresql"],
    mapping: postgresql_mapping,
    capabilities: || Capabilities {
        delimited: true,
        frozen_refill: true,
        extended_protocol: true,
        pads_char: true,
        ..Capabilities::server()
    },
    private_server: Some(&server::PRIVATE),
    topologies: &[Kind::Standbys],
    statistics: true,
    settings: &[
        "fsync",
        "full_page_writes",
        "wal_level",
        "synchronous_standby_names",
        "shared_buffers",
        "max_connections",
    ],
};

fn postgresql_mapping(level: Durability) -> std::result::Result<String, String> {
    match level {
        Durability::Sync => Ok("fsync=on, synchronous_commit=on".into()),
        Durability::WriteNosync => Ok("fsync=off (commits reach the OS unflushed; an OS crash can also corrupt data files, not only lose recent commits)".into()),
        Durability::Nosync => Ok("synchronous_commit=off (the WAL writer flushes later)".into()),
        other => server::settings_for(other).map(|_| String::new()),
    }
}

impl Postgres {
    /// `url` as the driver takes it: a scheme of this flavour's own becomes `postgresql`.
    pub fn driver_url(&self, url: &str) -> String {
        match url.split_once("://") {
            Some((scheme, rest)) if self.url_schemes.contains(&scheme) => {
                format!("postgresql://{rest}")
            }
            _ => url.to_string(),
        }
    }
}

impl SqlEngine for Postgres {
    fn url_schemes(&self) -> &'static [&'static str] {
        self.url_schemes
    }
    fn dialect(&self) -> Option<Dialect> {
        Some(Dialect::Postgres)
    }
    fn mapping(&self, level: Durability) -> std::result::Result<String, String> {
        (self.mapping)(level)
    }
    fn private_server(&self) -> Option<&'static dyn PrivateServer> {
        self.private_server
    }
    fn topologies(&self) -> &'static [Kind] {
        self.topologies
    }
    fn open(&self, options: &SqlOptions) -> Result<Box<dyn SqlDatabase>> {
        super::open(self, options, Some(super::SCHEMA))
    }
    fn open_as_given(&self, options: &SqlOptions) -> Result<Box<dyn SqlDatabase>> {
        super::open(self, options, None)
    }
}
