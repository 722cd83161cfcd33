//! A private Redis: `redis-server` on a free loopback port, its files in the run's directory,
//! persistence set for the durability level.

pub mod cluster;

use super::topology::Topology;
use super::{
    command, find, free_port, Launched, PrivateServer, ServerOptions, ServerProcess, ServerTls,
};
use crate::durability::Durability;
use anyhow::{anyhow, bail, Context, Result};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

pub const INSTALL_HINT: &str =
    "install Redis (`sudo apt-get install redis-server`, or scripts/setup-servers.sh), or give --url";

/// The `appendonly` and `appendfsync` settings for a level.
pub fn persistence(level: Durability) -> Result<(&'static str, &'static str), String> {
    match level {
        Durability::Sync => Ok(("yes", "always")),
        // Redis writes the append-only file before it replies, and leaves flushing to the OS.
        Durability::WriteNosync => Ok(("yes", "no")),
        Durability::InMemory => Ok(("no", "no")),
        Durability::Nosync => Err(
            "Redis writes its append-only file before replying; it has no log buffer of its own"
                .into(),
        ),
        Durability::None => Err("Redis always applies commands atomically and in order".into()),
    }
}

/// Redis as a private server: no data directory to prepare; its append-only file goes into the
/// run's directory.
pub struct Server;
pub static PRIVATE: Server = Server;

impl PrivateServer for Server {
    fn name(&self) -> &'static str {
        "Redis"
    }
    fn programs(&self) -> &'static [&'static str] {
        &["redis-server"]
    }
    fn launch(&self, dir: &Path, options: &ServerOptions, _owner_root: &Path) -> Result<Launched> {
        if let Topology::RedisCluster { masters, replicas } = options.topology {
            return cluster::start(dir, masters, replicas, options.level);
        }
        let process = launch(dir, options.level, options.tls.as_ref(), &[])?;
        let scheme = if options.tls.is_some() {
            "rediss"
        } else {
            "redis"
        };
        Ok(Launched {
            url: format!("{scheme}://127.0.0.1:{}/", process.port),
            process,
            others: Vec::new(),
        })
    }
}

/// `redis-server` in `dir` at `level`, serving TLS with `tls` (on its port, and only TLS: Redis
/// takes one or the other on a port), with `extra` arguments (a cluster node's).
fn launch(
    dir: &Path,
    level: Durability,
    tls: Option<&ServerTls>,
    extra: &[String],
) -> Result<ServerProcess> {
    let Some(server) = find(&["redis-server"]) else {
        bail!("no redis-server found: {INSTALL_HINT}");
    };
    let (appendonly, appendfsync) = persistence(level).map_err(|e| anyhow!(e))?;
    let port = free_port()?;
    let log = dir.join("redis.log");
    let mut listen = vec!["--port".to_string(), port.to_string()];
    if let Some(tls) = tls {
        listen = ["--port", "0", "--tls-port", &port.to_string()]
            .map(String::from)
            .to_vec();
        for (flag, file) in [
            ("--tls-cert-file", &tls.cert),
            ("--tls-key-file", &tls.key),
            ("--tls-ca-cert-file", &tls.ca),
        ] {
            listen.extend([flag.to_string(), file.display().to_string()]);
        }
        listen.extend(["--tls-auth-clients".to_string(), "no".to_string()]);
    }
    let socket = dir.join("redis.sock");
    let child = command(&server, None)
        .args(&listen)
        .args(["--bind", "127.0.0.1"])
        .args(["--unixsocket", &socket.display().to_string()])
        .args(["--dir", &dir.display().to_string()])
        .args(["--logfile", &log.display().to_string()])
        .args(["--save", "", "--appendonly", appendonly])
        .args(["--appendfsync", appendfsync, "--daemonize", "no"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("cannot start redis-server")?;
    let mut process = ServerProcess::new("Redis", port, dir.to_path_buf(), child, libc::SIGTERM);
    // Ready when it answers on its socket (which takes no TLS).
    let url = format!("redis+unix://{}", socket.display());
    process.wait_ready(Duration::from_secs(30), &log, || {
        redis::Client::open(url.as_str())
            .and_then(|c| c.get_connection())
            .and_then(|mut c| redis::cmd("PING").query::<String>(&mut c))
            .is_ok()
    })?;
    Ok(process)
}
