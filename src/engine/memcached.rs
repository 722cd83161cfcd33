//! `memcached` through the `memcache` crate: a cache, so only `in-memory` is offered. Its item
//! size limit is real: a private instance is started with the limit raised to fit the run's
//! values; with `--url` the server's own limit is read and reported to the workload.

use super::kv::{KvEngine, KvOptions, KvSession, KvStore, VisitRecord};
use crate::durability::Durability;
use crate::results::redact::redact;
use crate::server::memcached as server;
use crate::server::{Launched, PrivateServer, ServerOptions};
use anyhow::{anyhow, bail, Context, Result};
use std::io::{BufRead, BufReader, Write};

/// Every key hakari writes starts with this.
const PREFIX: &str = "hakari:";
/// memcached keys are at most 250 bytes of text without spaces or control characters.
const MAX_KEY: usize = 250;
/// Room an item needs beside its value (header, key, suffix), so a value of the limit minus
/// this fits.
const ITEM_OVERHEAD: u64 = 512;

pub struct Memcached;

impl KvEngine for Memcached {
    fn private_server(&self) -> Option<&'static dyn crate::server::PrivateServer> {
        Some(&server::PRIVATE)
    }
    fn url_schemes(&self) -> &'static [&'static str] {
        &["memcache", "memcached"]
    }
    fn ordered_scan(&self) -> bool {
        false
    }
    fn evicts(&self) -> bool {
        true
    }
    fn version(&self) -> String {
        crate::server::installed_version("memcached", "-V", |out| {
            Some(out.trim().trim_start_matches("memcached ").to_string())
        })
    }
    fn mapping(&self, level: Durability) -> std::result::Result<String, String> {
        match level {
            Durability::InMemory => Ok("a cache: items live in memory only".into()),
            _ => Err("memcached keeps nothing on disk; it offers in-memory only".into()),
        }
    }
    fn open(&self, options: &KvOptions) -> Result<Box<dyn KvStore>> {
        let (url, private) = crate::server::given_or_started(&options.url, || {
            let sized = ServerOptions {
                value_bytes: options.value_size as u64,
                records: options.expected_records * options.value_sizes.max(1),
                ..ServerOptions::at(options.durability)
            };
            server::PRIVATE.start(&options.dir, &sized, &options.dir)
        })?;
        let address = url
            .strip_prefix("memcache://")
            .or_else(|| url.strip_prefix("memcached://"))
            .ok_or_else(|| {
                anyhow!(
                    "bad memcached URL {}: expected memcache://host:port",
                    redact(&url)
                )
            })?
            .trim_end_matches('/')
            .to_string();
        let settings = stats_settings(&address)
            .with_context(|| format!("cannot reach memcached at {}", redact(&url)))?;
        let setting = |name: &str| settings.iter().find(|(k, _)| k == name).map(|(_, v)| v);
        let item_limit: u64 = setting("item_size_max")
            .and_then(|v| v.parse().ok())
            .unwrap_or(server::DEFAULT_ITEM_LIMIT);
        let memory: u64 = setting("maxbytes")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let client = memcache::connect(format!("memcache://{address}").as_str())
            .map_err(|e| anyhow!("cannot connect to memcached at {}: {e}", redact(&url)))?;
        let version = client
            .version()
            .ok()
            .and_then(|v| v.into_iter().next().map(|(_, v)| v))
            .unwrap_or_default();
        let statistics = (crate::measure::resources::enabled())
            .then(|| std::net::TcpStream::connect(&address).ok())
            .flatten()
            .map(|con| {
                // A server that stops answering must not hold the collecting thread.
                con.set_read_timeout(Some(std::time::Duration::from_secs(2)))
                    .ok();
                crate::measure::resources::register(Box::new(Statistics(BufReader::new(con))))
            });
        Ok(Box::new(MemcachedStore {
            url: format!("memcache://{address}"),
            item_limit,
            settings: vec![
                ("server".into(), format!("memcached {version}")),
                ("item_size_max".into(), item_limit.to_string()),
                ("maxbytes".into(), memory.to_string()),
                (
                    "instance".into(),
                    if private.is_some() {
                        "private (started by hakari, item limit raised to fit)".into()
                    } else {
                        "given by --url".into()
                    },
                ),
            ],
            _statistics: statistics,
            _private: private,
        }))
    }
}

/// `stats settings` over a plain connection (the client crate asks only for `stats`).
fn stats_settings(address: &str) -> Result<Vec<(String, String)>> {
    let stream = std::net::TcpStream::connect(address)?;
    stream.set_read_timeout(Some(std::time::Duration::from_secs(10)))?;
    stats(&mut BufReader::new(stream), "stats settings")
}

/// One `stats` command's `STAT name value` lines, up to its `END`.
fn stats(con: &mut BufReader<std::net::TcpStream>, command: &str) -> Result<Vec<(String, String)>> {
    con.get_mut()
        .write_all(format!("{command}\r\n").as_bytes())?;
    let mut out = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        if con.read_line(&mut line)? == 0 {
            bail!("the connection closed before the end of {command}");
        }
        let line = line.trim_end();
        if line == "END" {
            return Ok(out);
        }
        let mut words = line.split_whitespace();
        if let (Some("STAT"), Some(k), Some(v)) = (words.next(), words.next(), words.next()) {
            out.push((k.to_string(), v.to_string()));
        } else {
            bail!("unexpected answer to {command}: {line}");
        }
    }
}

/// memcached's own counters for a step's resource readings (`measure/resources.rs`): its CPU
/// (`rusage_user`, `rusage_system`), the gets and sets it served and its hits and misses.
struct Statistics(BufReader<std::net::TcpStream>);

impl crate::measure::resources::Source for Statistics {
    fn name(&self) -> String {
        "memcached stats".into()
    }
    fn read(&mut self, into: &mut crate::measure::resources::Readings) -> Result<()> {
        for (name, value) in stats(&mut self.0, "stats")? {
            let reading = match name.as_str() {
                "rusage_user" => "memcached.cpu_user_s",
                "rusage_system" => "memcached.cpu_system_s",
                "cmd_get" => "memcached.gets",
                "cmd_set" => "memcached.sets",
                "get_hits" => "memcached.get_hits",
                "get_misses" => "memcached.get_misses",
                _ => continue,
            };
            if let Ok(v) = value.parse::<f64>() {
                into.insert(
                    reading.into(),
                    crate::measure::resources::Reading::Counter(v),
                );
            }
        }
        Ok(())
    }
}

struct MemcachedStore {
    url: String,
    item_limit: u64,
    settings: Vec<(String, String)>,
    // Before the server, so that it is no longer read once it stops.
    _statistics: Option<crate::measure::resources::Registration>,
    _private: Option<Launched>,
}

impl KvStore for MemcachedStore {
    fn session(&self) -> Result<Box<dyn KvSession + '_>> {
        let client = memcache::connect(self.url.as_str()).context("cannot connect to memcached")?;
        Ok(Box::new(MemcachedSession { client }))
    }
    fn settings(&self) -> Vec<(String, String)> {
        self.settings.clone()
    }
    fn max_value_bytes(&self) -> Option<u64> {
        Some(self.item_limit.saturating_sub(ITEM_OVERHEAD))
    }
    fn close(self: Box<Self>) -> Result<()> {
        Ok(())
    }
}

struct MemcachedSession {
    client: memcache::Client,
}

/// memcached keys are text: binary keys are written in hex.
fn text_key(key: &[u8]) -> Result<String> {
    let mut k = String::with_capacity(PREFIX.len() + key.len() * 2);
    k.push_str(PREFIX);
    match std::str::from_utf8(key) {
        Ok(s) if s.bytes().all(|b| b.is_ascii_graphic()) => k.push_str(s),
        _ => {
            for b in key {
                k.push_str(&format!("{b:02x}"));
            }
        }
    }
    if k.len() > MAX_KEY {
        bail!(
            "memcached keys are at most {MAX_KEY} bytes; this one has {}",
            k.len()
        );
    }
    Ok(k)
}

impl KvSession for MemcachedSession {
    // A cache has no transactions (every set stands alone): the trait's no-op begin and commit.
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.client
            .set(&text_key(key)?, value, 0)
            .map_err(|e| anyhow!("memcached set of {} bytes: {e}", value.len()))
    }
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        match self.client.get::<Vec<u8>>(&text_key(key)?)? {
            Some(v) => {
                *out = v;
                Ok(true)
            }
            None => Ok(false),
        }
    }
    fn delete(&mut self, key: &[u8]) -> Result<bool> {
        Ok(self.client.delete(&text_key(key)?)?)
    }
    fn scan(&mut self, _visit: &mut VisitRecord) -> Result<u64> {
        bail!("memcached cannot list its items: scans are not offered")
    }
}
