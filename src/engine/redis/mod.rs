//! `redis` through the `redis` crate: values are strings under keys prefixed `hakari:`. With
//! `--url` the server's own persistence settings must match the level asked for (hakari does not
//! reconfigure a server it did not start); otherwise a private server is started for the run,
//! or with `--cluster redis:N` a private Redis Cluster, reached through the crate's cluster
//! client (which follows MOVED and ASK redirects).

mod statistics;

use super::kv::{FieldRecords, KvEngine, KvOptions, KvSession, KvStore, VisitFields, VisitRecord};
use crate::durability::Durability;
use crate::results::redact::redact;
use crate::server::redis as server;
use crate::server::{Launched, PrivateServer, ServerOptions};
use anyhow::{anyhow, bail, Context, Result};
use redis::cluster::{cluster_pipe, ClusterClient, ClusterConnection};
use redis::{Commands, IntoConnectionInfo};

/// A connection to one server or to a cluster: the same commands, routed by the cluster
/// client to the node that holds each key.
enum Con {
    Single(redis::Connection),
    // Boxed: a cluster connection holds a connection per node.
    Cluster(Box<ClusterConnection>),
}

/// Runs `$e` with `$c` bound to whichever connection `$con` holds.
macro_rules! on {
    ($con:expr, $c:ident => $e:expr) => {
        match $con {
            Con::Single($c) => $e,
            Con::Cluster($c) => $e,
        }
        .map_err(lost)
    };
}

/// A command's error, marked where it says the node went away (its connection dropped or
/// refused, a cluster failing over): with `--fault` the worker reconnects.
fn lost(e: redis::RedisError) -> anyhow::Error {
    use redis::{ErrorKind, ServerErrorKind};
    let away = e.is_io_error()
        || e.is_connection_dropped()
        || e.is_connection_refusal()
        || e.is_timeout()
        || matches!(
            e.kind(),
            ErrorKind::ClusterConnectionNotFound
                | ErrorKind::Server(
                    ServerErrorKind::ClusterDown
                        | ServerErrorKind::TryAgain
                        | ServerErrorKind::MasterDown
                )
        );
    match away {
        true => anyhow::Error::new(e).context(crate::measure::fault::ConnectionLost),
        false => e.into(),
    }
}

/// Where sessions connect: one server, or a cluster's nodes.
enum Target {
    Single(redis::Client),
    Cluster(ClusterClient),
}

/// Every key hakari writes starts with this; nothing else on a shared server is touched.
const PREFIX: &[u8] = b"hakari:";

pub struct Redis;

impl KvEngine for Redis {
    fn topologies(&self) -> &'static [crate::server::topology::Kind] {
        &[crate::server::topology::Kind::RedisCluster]
    }
    fn private_server(&self) -> Option<&'static dyn crate::server::PrivateServer> {
        Some(&server::PRIVATE)
    }
    fn url_schemes(&self) -> &'static [&'static str] {
        &["redis", "rediss"]
    }
    fn ordered_scan(&self) -> bool {
        false
    }
    /// Records of fields keep their keys in a sorted set, so ranges of them can be read.
    fn range_scan(&self) -> bool {
        true
    }
    fn version(&self) -> String {
        crate::server::installed_version("redis-server", "--version", |out| {
            out.split_whitespace()
                .find_map(|w| w.strip_prefix("v=").map(String::from))
        })
    }
    fn mapping(&self, level: Durability) -> std::result::Result<String, String> {
        server::persistence(level).map(|(aof, fsync)| match aof {
            "yes" => format!("appendonly yes, appendfsync {fsync}"),
            _ => "appendonly no, save \"\" (nothing on disk)".into(),
        })
    }
    fn open(&self, options: &KvOptions) -> Result<Box<dyn KvStore>> {
        let (url, private) = crate::server::given_or_started(&options.url, || {
            let at = ServerOptions {
                topology: options.topology,
                ..ServerOptions::at(options.durability)
            };
            server::PRIVATE.start(&options.dir, &at, &options.dir)
        })?;
        // A cluster given by --url may be named by several seed nodes, comma-separated.
        let (url, certificates) = tls_certificates(&url)?;
        let seeds: Vec<&str> = url.split(',').map(str::trim).collect();
        let reach = Reach {
            certificates,
            // A server given by --url whose URL has no password takes redis-cli's REDISCLI_AUTH.
            password: (private.is_none())
                .then(|| std::env::var("REDISCLI_AUTH").ok())
                .flatten()
                .filter(|p| !p.is_empty()),
        };
        let client = (reach.client(seeds[0]))
            .map_err(|e| anyhow!("bad Redis URL {}: {e}", redact(seeds[0])))?;
        let mut con = client
            .get_connection()
            .map_err(|e| anyhow!("cannot connect to Redis at {}: {e}", redact(&url)))?;
        let config = |con: &mut redis::Connection, name: &str| -> Result<String> {
            let pair: Vec<String> = redis::cmd("CONFIG").arg("GET").arg(name).query(con)?;
            pair.get(1)
                .cloned()
                .ok_or_else(|| anyhow!("Redis did not report {name}"))
        };
        let appendonly = config(&mut con, "appendonly")?;
        let appendfsync = config(&mut con, "appendfsync")?;
        let version: String = redis::cmd("INFO")
            .arg("server")
            .query::<String>(&mut con)
            .map(|info| {
                info.lines()
                    .find_map(|l| {
                        l.strip_prefix("redis_version:")
                            .map(|v| v.trim().to_string())
                    })
                    .unwrap_or_default()
            })?;
        if private.is_none() {
            persistence_matches(&url, options.durability, &appendonly, &appendfsync)?;
        }
        let cluster_seeds = match &private {
            Some(cluster) if !cluster.others.is_empty() => Some(cluster.node_urls()),
            Some(_) => None,
            // A server given by --url is a cluster when it says so.
            None => {
                cluster_enabled(&mut con)?.then(|| seeds.iter().map(|s| s.to_string()).collect())
            }
        };
        let statistics = crate::measure::resources::enabled()
            .then(|| statistics::register(&url, con, cluster_seeds.as_deref(), &reach));
        let target = match cluster_seeds {
            Some(seeds) => {
                let mut builder = redis::cluster::ClusterClientBuilder::new(seeds);
                if let Some(c) = reach.certificates.clone() {
                    builder = builder.certs(c);
                }
                if let Some(p) = &reach.password {
                    builder = builder.password(p);
                }
                let client = builder.build();
                Target::Cluster(client.map_err(|e| anyhow!("cannot reach the Redis Cluster: {e}"))?)
            }
            None => Target::Single(client),
        };
        Ok(Box::new(RedisStore {
            target,
            settings: vec![
                ("server".into(), format!("Redis {version}")),
                ("appendonly".into(), appendonly),
                ("appendfsync".into(), appendfsync),
                ("tls".into(), tls_in_use(&url, reach.certificates.is_some())),
                (
                    "instance".into(),
                    crate::server::origin(private.is_some()).into(),
                ),
            ],
            _statistics: statistics,
            _private: private,
            shared: options.shared,
        }))
    }
}

/// A server hakari did not start keeps its persistence: it must be the level's.
fn persistence_matches(
    url: &str,
    level: Durability,
    appendonly: &str,
    appendfsync: &str,
) -> Result<()> {
    let (want_aof, want_fsync) = server::persistence(level).map_err(|e| anyhow!(e))?;
    if appendonly == want_aof && (want_aof == "no" || appendfsync == want_fsync) {
        return Ok(());
    }
    bail!(
        "the Redis server at {} runs with appendonly {appendonly}, appendfsync {appendfsync}; \
         durability '{level}' needs appendonly {want_aof}{}. hakari does not reconfigure a \
         server it did not start: pick the level that matches, or leave out --url for a \
         private server",
        redact(url),
        if want_aof == "yes" {
            format!(", appendfsync {want_fsync}")
        } else {
            String::new()
        }
    )
}

/// How a server is reached: its TLS certificates and the password the URL leaves out.
struct Reach {
    certificates: Option<redis::TlsCertificates>,
    password: Option<String>,
}

impl Reach {
    /// A client of the server at `url`.
    fn client(&self, url: &str) -> redis::RedisResult<redis::Client> {
        let mut info = url.into_connection_info()?;
        if let (Some(p), None) = (&self.password, info.redis_settings().password()) {
            let settings = info.redis_settings().clone().set_password(p);
            info = info.set_redis_settings(settings);
        }
        match &self.certificates {
            Some(c) => redis::Client::build_with_tls(info, c.clone()),
            None => redis::Client::open(info),
        }
    }
}

struct RedisStore {
    target: Target,
    settings: Vec<(String, String)>,
    // Before the server, so that it is no longer read once it stops.
    _statistics: Option<crate::measure::resources::Registration>,
    _private: Option<Launched>,
    /// `--shard`: another client removes hakari's keys at the end.
    shared: bool,
}

impl KvStore for RedisStore {
    fn session(&self) -> Result<Box<dyn KvSession + '_>> {
        let con = match &self.target {
            Target::Single(c) => {
                Con::Single(c.get_connection().context("cannot connect to Redis")?)
            }
            Target::Cluster(c) => Con::Cluster(Box::new(
                c.get_connection()
                    .context("cannot connect to the Redis Cluster")?,
            )),
        };
        Ok(Box::new(RedisSession { con }))
    }
    fn settings(&self) -> Vec<(String, String)> {
        self.settings.clone()
    }
    fn close(self: Box<Self>) -> Result<()> {
        // Remove what hakari wrote (keys with its prefix) so a shared server is left as found;
        // a private cluster is stopped and removed whole.
        let client = match &self.target {
            _ if self.shared => return Ok(()),
            Target::Cluster(_) if self._private.is_some() => return Ok(()),
            Target::Cluster(c) => return clean_cluster(&mut c.get_connection()?),
            Target::Single(client) => client,
        };
        let mut con = client.get_connection()?;
        let pattern = [PREFIX, b"*"].concat();
        let keys: Vec<Vec<u8>> = con
            .scan_match::<_, Vec<u8>>(pattern)?
            .collect::<std::result::Result<_, _>>()?;
        for chunk in keys.chunks(1000) {
            let _: () = con.del(chunk)?;
        }
        Ok(())
    }
}

/// Whether the server `con` reaches runs in cluster mode.
fn cluster_enabled(con: &mut redis::Connection) -> Result<bool> {
    let info: String = redis::cmd("INFO").arg("cluster").query(con)?;
    Ok(info.lines().any(|l| l.trim() == "cluster_enabled:1"))
}

/// Deletes hakari's keys from every master of a cluster given by --url.
fn clean_cluster(con: &mut ClusterConnection) -> Result<()> {
    use redis::cluster_routing::{RoutingInfo, SingleNodeRoutingInfo};
    let nodes = con.route_command(
        redis::cmd("CLUSTER").arg("NODES"),
        RoutingInfo::SingleNode(SingleNodeRoutingInfo::Random),
    )?;
    let nodes: String = redis::from_redis_value(nodes)?;
    let pattern = [PREFIX, b"*"].concat();
    // A line: id host:port@bus flags ...; only masters hold keys.
    for line in nodes.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 3 || !fields[2].split(',').any(|f| f == "master") {
            continue;
        }
        let address = fields[1].split('@').next().unwrap_or("");
        let Some((host, port)) = address.rsplit_once(':') else {
            continue;
        };
        let route = RoutingInfo::SingleNode(SingleNodeRoutingInfo::ByAddress {
            host: host.to_string(),
            port: port.parse()?,
        });
        let mut cursor = 0u64;
        loop {
            let mut scan = redis::cmd("SCAN");
            scan.arg(cursor)
                .arg("MATCH")
                .arg(&pattern)
                .arg("COUNT")
                .arg(1000);
            let (next, keys): (u64, Vec<Vec<u8>>) =
                redis::from_redis_value(con.route_command(&scan, route.clone())?)?;
            for key in keys {
                let _: () = con.del(key)?;
            }
            cursor = next;
            if cursor == 0 {
                break;
            }
        }
    }
    Ok(())
}

struct RedisSession {
    con: Con,
}

fn prefixed(key: &[u8]) -> Vec<u8> {
    [PREFIX, key].concat()
}

impl KvSession for RedisSession {
    // Each command is atomic on its own and Redis has no multi-key transactions to map onto:
    // the trait's no-op begin and commit.
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let k = prefixed(key);
        let _: () = on!(&mut self.con, c => c.set(k, value))?;
        Ok(())
    }
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        let k = prefixed(key);
        let v: Option<Vec<u8>> = on!(&mut self.con, c => c.get(k))?;
        match v {
            Some(v) => {
                *out = v;
                Ok(true)
            }
            None => Ok(false),
        }
    }
    fn delete(&mut self, key: &[u8]) -> Result<bool> {
        let k = prefixed(key);
        let n: u64 = on!(&mut self.con, c => c.del(k))?;
        Ok(n > 0)
    }
    fn scan(&mut self, _visit: &mut VisitRecord) -> Result<u64> {
        bail!("redis keeps no key order: ordered scans are not offered")
    }
    fn fields(&mut self) -> Option<&mut dyn FieldRecords> {
        Some(self)
    }
}

/// The sorted set (every score 0, so ordered by key) that indexes records of fields, as YCSB's
/// redis binding keeps one for its scans.
const INDEX: &[u8] = b"hakari:index";

fn field_name(i: usize) -> String {
    format!("field{i}")
}

/// A hash's fields in field order, from HGETALL's name-value pairs.
fn in_field_order(pairs: Vec<(String, Vec<u8>)>, out: &mut Vec<Vec<u8>>) -> Result<()> {
    out.clear();
    out.resize(pairs.len(), Vec::new());
    for (name, value) in pairs {
        let i: usize = (name.strip_prefix("field"))
            .and_then(|n| n.parse().ok())
            .filter(|i| *i < out.len())
            .with_context(|| format!("a record holds an unexpected field '{name}'"))?;
        out[i] = value;
    }
    Ok(())
}

impl FieldRecords for RedisSession {
    fn insert(&mut self, key: &[u8], fields: &[Vec<u8>]) -> Result<()> {
        let items: Vec<(String, &[u8])> = (fields.iter().enumerate())
            .map(|(i, f)| (field_name(i), f.as_slice()))
            .collect();
        match &mut self.con {
            Con::Single(c) => redis::pipe()
                .atomic()
                .hset_multiple(prefixed(key), &items)
                .ignore()
                .zadd(INDEX, key, 0)
                .ignore()
                .query::<()>(c)
                .map_err(lost)?,
            // The record and the index live in different slots, so on different nodes: two
            // commands, not one transaction (as YCSB's redis binding does on a cluster).
            Con::Cluster(c) => cluster_pipe()
                .hset_multiple(prefixed(key), &items)
                .ignore()
                .zadd(INDEX, key, 0)
                .ignore()
                .query::<()>(c.as_mut())
                .map_err(lost)?,
        }
        Ok(())
    }
    fn read(&mut self, key: &[u8], out: &mut Vec<Vec<u8>>) -> Result<bool> {
        let pairs: Vec<(String, Vec<u8>)> = on!(&mut self.con, c => c.hgetall(prefixed(key)))?;
        in_field_order(pairs, out)?;
        Ok(!out.is_empty())
    }
    fn update(&mut self, key: &[u8], field: usize, value: &[u8]) -> Result<()> {
        let _: () = on!(&mut self.con, c => c.hset(prefixed(key), field_name(field), value))?;
        Ok(())
    }
    fn scan(&mut self, start: &[u8], count: u64, visit: &mut VisitFields) -> Result<u64> {
        let from = [b"[", start].concat();
        let keys: Vec<Vec<u8>> =
            on!(&mut self.con, c => c.zrangebylex_limit(INDEX, from, "+", 0, count as isize))?;
        let records: Vec<Vec<(String, Vec<u8>)>> = match &mut self.con {
            Con::Single(c) => {
                let mut pipe = redis::pipe();
                for k in &keys {
                    pipe.hgetall(prefixed(k));
                }
                pipe.query(c).map_err(lost)?
            }
            Con::Cluster(c) => {
                let mut pipe = cluster_pipe();
                for k in &keys {
                    pipe.hgetall(prefixed(k));
                }
                pipe.query(c.as_mut()).map_err(lost)?
            }
        };
        let mut fields = Vec::new();
        for (k, pairs) in keys.iter().zip(records) {
            in_field_order(pairs, &mut fields)?;
            visit(k, &fields);
        }
        Ok(keys.len() as u64)
    }
}

/// The URL without the TLS files redis-cli takes (`cacert`, `cert`, `key` as query
/// parameters), and the certificates they name: a `rediss://` server checked against a CA of
/// the user's own, or presenting a client certificate. Without `cacert`, `rediss://` checks the
/// server against the system's roots (`#insecure` at the end: not at all).
fn tls_certificates(url: &str) -> Result<(String, Option<redis::TlsCertificates>)> {
    let names = ["cacert", "cert", "key"];
    let (rest, given) = crate::engine::tls::take_params(url, |k| names.contains(&k));
    crate::engine::tls::provider();
    if given.is_empty() {
        return Ok((rest, None));
    }
    if !rest.starts_with("rediss://") {
        bail!("cacert, cert and key are for a TLS connection: write the URL as rediss://...");
    }
    let file = |name: &str| -> Result<Option<Vec<u8>>> {
        let Some((_, path)) = given.iter().rev().find(|(k, _)| k == name) else {
            return Ok(None);
        };
        std::fs::read(path)
            .map(Some)
            .map_err(|e| anyhow!("cannot read the {name} file {path}: {e}"))
    };
    let client_tls = match (file("cert")?, file("key")?) {
        (Some(client_cert), Some(client_key)) => Some(redis::ClientTlsConfig {
            client_cert,
            client_key,
        }),
        (None, None) => None,
        _ => bail!("cert and key go together: give both files, or neither"),
    };
    let root_cert = file("cacert")?;
    Ok((
        rest,
        Some(redis::TlsCertificates {
            client_tls,
            root_cert,
        }),
    ))
}

/// What the settings say of the connection's encryption.
fn tls_in_use(url: &str, own_ca: bool) -> String {
    match (
        url.starts_with("rediss://"),
        url.contains("#insecure"),
        own_ca,
    ) {
        (false, _, _) => "none (redis://)".into(),
        (true, true, _) => "TLS, server not checked (rediss://...#insecure)".into(),
        (true, false, true) => "TLS, server checked against cacert (rediss://)".into(),
        (true, false, false) => "TLS, server checked against the system's roots (rediss://)".into(),
    }
}
