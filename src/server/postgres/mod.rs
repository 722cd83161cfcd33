//! A private PostgreSQL: initdb in the run's directory, `postgres` on a free loopback port.

pub mod standbys;

use super::topology::Topology;
use super::{
    command, free_port, hand_over, restart::Relaunch, run_as, Launched, PrivateServer,
    ServerOptions, ServerProcess,
};
use crate::durability::Durability;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

pub const INSTALL_HINT: &str =
    "install PostgreSQL (`sudo apt-get install postgresql`, or scripts/setup-servers.sh), or give --url";

/// The newest installed PostgreSQL's bin directory.
pub fn bin_dir() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|b| b.join("initdb").exists() && b.join("postgres").exists())
        .collect();
    found.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    found.pop()
}

/// The server settings a durability level maps to.
pub fn settings_for(level: Durability) -> Result<Vec<(&'static str, &'static str)>, String> {
    match level {
        Durability::Sync => Ok(vec![("fsync", "on"), ("synchronous_commit", "on")]),
        Durability::WriteNosync => Ok(vec![("fsync", "off"), ("synchronous_commit", "on")]),
        Durability::Nosync => Ok(vec![("fsync", "on"), ("synchronous_commit", "off")]),
        Durability::InMemory => Err(
            "PostgreSQL has no in-memory log (unlogged tables would change the workload's tables)"
                .into(),
        ),
        Durability::None => Err("PostgreSQL is always transactional and logged".into()),
    }
}

/// Initializes a data directory in `dir`/pgdata (initdb), owned by the server's user.
pub(super) fn init_data(dir: &Path, owner_root: &Path) -> Result<()> {
    let Some(bin) = bin_dir() else {
        bail!("no PostgreSQL server binaries found under /usr/lib/postgresql: {INSTALL_HINT}");
    };
    let owner = run_as("postgres")?;
    let data = dir.join("pgdata");
    std::fs::create_dir_all(&data)?;
    hand_over(&[dir, &data], owner, owner_root)?;
    let mut init = command(&bin.join("initdb"), owner);
    init.args(["-D"]).arg(&data).args([
        "-U",
        "hakari",
        "--auth=trust",
        "-E",
        "UTF8",
        "--no-sync",
        "--locale=C",
    ]);
    super::run_tool(&mut init, "initdb")
}

/// Starts `postgres` on the data directory `dir`/pgdata (made by `init_data`), configured for
/// the level, on a free loopback port; after a crash it recovers first, as it always does. The
/// URL reaches `database`. `extra` settings come last (a standby's name, a primary's).
pub(super) fn launch(
    dir: &Path,
    options: &ServerOptions,
    owner_root: &Path,
    database: &str,
    extra: &[(&str, String)],
) -> Result<Launched> {
    let (level, cache_bytes, clients) = (options.level, options.cache_bytes, options.clients);
    let Some(bin) = bin_dir() else {
        bail!("no PostgreSQL server binaries found under /usr/lib/postgresql: {INSTALL_HINT}");
    };
    let settings = settings_for(level).map_err(|e| anyhow::anyhow!(e))?;
    let owner = run_as("postgres")?;
    let data = dir.join("pgdata");
    if !data.is_dir() {
        bail!("no PostgreSQL data directory at {}", data.display());
    }
    // The socket goes into `dir`, which the server's user must own (a copied directory too).
    let tls = options
        .tls
        .as_ref()
        .map(|t| t.copied_into(dir))
        .transpose()?;
    hand_over(&[dir, &data], owner, owner_root)?;
    let log = dir.join("postgres.log");
    let port = free_port()?;
    let mut args: Vec<String> = vec![
        "-D".into(),
        data.display().to_string(),
        "-c".into(),
        "listen_addresses=127.0.0.1".into(),
        "-c".into(),
        format!("port={port}"),
        "-c".into(),
        format!("unix_socket_directories={}", dir.display()),
        "-c".into(),
        format!("max_connections={}", (clients + 20).max(100)),
    ];
    if cache_bytes > 0 {
        args.extend([
            "-c".into(),
            format!("shared_buffers={}kB", cache_bytes / 1024),
        ]);
    }
    for (k, v) in settings {
        args.extend(["-c".into(), format!("{k}={v}")]);
    }
    if let Some(tls) = &tls {
        args.extend(tls_settings(tls, dir, owner)?);
    }
    for (k, v) in extra {
        args.extend(["-c".into(), format!("{k}={v}")]);
    }
    let program = bin.join("postgres");
    let (log_to, socket_dir) = (log.clone(), dir.to_path_buf());
    let spawn = move || -> Result<std::process::Child> {
        let logfile = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_to)?;
        command(&program, owner)
            .args(&args)
            .stdout(Stdio::null())
            .stderr(logfile)
            .spawn()
            .context("cannot start postgres")
    };
    let child = spawn()?;
    // SIGINT is PostgreSQL's fast shutdown: it does not wait for clients.
    let mut process =
        ServerProcess::new("PostgreSQL", port, dir.to_path_buf(), child, libc::SIGINT);
    let ready = move || admin(&socket_dir, port, "postgres").is_ok();
    process.wait_ready(Duration::from_secs(60), &log, ready.clone())?;
    let process = process.restartable(Relaunch {
        spawn: Box::new(spawn),
        ready: Box::new(ready),
    });
    Ok(Launched {
        process,
        url: url(port, database),
        others: Vec::new(),
    })
}

/// The settings that make the server take TLS with the copied files `tls` (in `dir`, given to
/// `owner`), and the rules file they name.
fn tls_settings(
    tls: &crate::server::ServerTls,
    dir: &Path,
    owner: Option<crate::server::RunAs>,
) -> Result<Vec<String>> {
    let mut args: Vec<String> = Vec::new();
    tls.hand_over(owner)?;
    let hba = dir.join("pg_hba.conf");
    // hakari's own connections come over the socket; TCP takes TLS, and only TLS if asked.
    let mut rules = "local all all trust\nhostssl all all 127.0.0.1/32 trust\n".to_string();
    if !tls.only {
        rules.push_str("host all all 127.0.0.1/32 trust\n");
    }
    std::fs::write(&hba, rules)?;
    if let Some(o) = owner {
        std::os::unix::fs::chown(&hba, Some(o.uid), Some(o.gid))?;
    }
    for (k, v) in [
        ("ssl", "on".to_string()),
        ("ssl_cert_file", tls.cert.display().to_string()),
        ("ssl_key_file", tls.key.display().to_string()),
        ("ssl_ca_file", tls.ca.display().to_string()),
        ("hba_file", hba.display().to_string()),
    ] {
        args.extend(["-c".into(), format!("{k}={v}")]);
    }
    Ok(args)
}

/// A connection to `database` on the private server in `dir` as hakari's superuser, over its
/// Unix socket (which takes no TLS, whatever TCP asks for).
pub(super) fn admin(
    dir: &Path,
    port: u16,
    database: &str,
) -> Result<postgres::Client, postgres::Error> {
    postgres::Config::new()
        .host_path(dir)
        .port(port)
        .user("hakari")
        .dbname(database)
        .connect(postgres::NoTls)
}

/// The URL of `database` on a private server at `port`, as hakari's superuser.
pub(super) fn url(port: u16, database: &str) -> String {
    format!("postgresql://hakari@127.0.0.1:{port}/{database}")
}

/// PostgreSQL as a private server.
pub struct Server;
pub static PRIVATE: Server = Server;

impl PrivateServer for Server {
    fn name(&self) -> &'static str {
        "PostgreSQL"
    }
    fn restarts(&self) -> bool {
        true
    }
    fn programs(&self) -> &'static [&'static str] {
        &["postgres", "initdb", "pg_basebackup"]
    }
    fn init(&self, dir: &Path, owner_root: &Path) -> Result<()> {
        crate::server::started_once(self, dir, owner_root)
    }
    fn launch(&self, dir: &Path, options: &ServerOptions, owner_root: &Path) -> Result<Launched> {
        launch(dir, options, owner_root, "hakari", &[])
    }
    /// initdb, launched, hakari's database created.
    fn start(&self, dir: &Path, options: &ServerOptions, owner_root: &Path) -> Result<Launched> {
        init_data(dir, owner_root)?;
        let server = launch(dir, options, owner_root, "postgres", &[])?;
        let mut admin = admin(dir, server.process.port, "postgres")?;
        admin.batch_execute("CREATE DATABASE hakari")?;
        let primary = Launched {
            url: url(server.process.port, "hakari"),
            process: server.process,
            others: Vec::new(),
        };
        match options.topology {
            Topology::Standbys {
                standbys,
                ack,
                quorum,
            } => standbys::add(primary, standbys, ack, quorum, options, owner_root),
            _ => Ok(primary),
        }
    }
}
