//! A private PostgreSQL: initdb in the run's directory, `postgres` on a free loopback port.
//! [`init`] and [`launch`] are the two halves of [`start`]; the crash test uses them apart.

use super::{command, free_port, hand_over, run_as, Launched, PrivateServer, ServerProcess};
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

/// A started server, with the user and database hakari created in it.
pub struct PrivatePostgres {
    pub process: ServerProcess,
    pub user: String,
    pub database: String,
}

impl PrivatePostgres {
    pub fn url(&self) -> String {
        format!(
            "postgresql://{}@127.0.0.1:{}/{}",
            self.user, self.process.port, self.database
        )
    }

    /// The URL of the `postgres` database, which exists before hakari's does.
    fn admin_url(&self) -> String {
        format!(
            "postgresql://{}@127.0.0.1:{}/postgres",
            self.user, self.process.port
        )
    }
}

/// A private server started in `dir`: initdb, launched, hakari's database created.
pub fn start(
    dir: &Path,
    level: Durability,
    owner_root: &Path,
    cache_bytes: u64,
    clients: usize,
) -> Result<PrivatePostgres> {
    init(dir, owner_root)?;
    let server = launch(dir, level, owner_root, cache_bytes, clients)?;
    let mut admin = postgres::Client::connect(&server.admin_url(), postgres::NoTls)?;
    admin.batch_execute("CREATE DATABASE hakari")?;
    Ok(server)
}

/// Initializes a data directory in `dir`/pgdata (initdb), owned by the server's user.
pub fn init(dir: &Path, owner_root: &Path) -> Result<()> {
    let Some(bin) = bin_dir() else {
        bail!("no PostgreSQL server binaries found under /usr/lib/postgresql: {INSTALL_HINT}");
    };
    let owner = run_as("postgres")?;
    let data = dir.join("pgdata");
    std::fs::create_dir_all(&data)?;
    hand_over(dir, owner, owner_root)?;
    hand_over(&data, owner, owner_root)?;
    let init = command(&bin.join("initdb"), owner)
        .args(["-D"])
        .arg(&data)
        .args([
            "-U",
            "hakari",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
            "--locale=C",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .context("cannot run initdb")?;
    if !init.status.success() {
        bail!(
            "initdb failed: {}",
            String::from_utf8_lossy(&init.stderr).trim()
        );
    }
    Ok(())
}

/// Starts `postgres` on the data directory `dir`/pgdata (made by [`init`]), configured for
/// `level`, on a free loopback port; after a crash it recovers first, as it always does.
pub fn launch(
    dir: &Path,
    level: Durability,
    owner_root: &Path,
    cache_bytes: u64,
    clients: usize,
) -> Result<PrivatePostgres> {
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
    hand_over(dir, owner, owner_root)?;
    hand_over(&data, owner, owner_root)?;
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
    let logfile = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)?;
    let child = command(&bin.join("postgres"), owner)
        .args(&args)
        .stdout(Stdio::null())
        .stderr(logfile)
        .spawn()
        .context("cannot start postgres")?;
    // SIGINT is PostgreSQL's fast shutdown: it does not wait for clients.
    let mut process =
        ServerProcess::new("PostgreSQL", port, dir.to_path_buf(), child, libc::SIGINT);
    let url = format!("postgresql://hakari@127.0.0.1:{port}/postgres");
    process.wait_ready(Duration::from_secs(60), &log, || {
        postgres::Client::connect(&url, postgres::NoTls).is_ok()
    })?;
    Ok(PrivatePostgres {
        process,
        user: "hakari".into(),
        database: "hakari".into(),
    })
}

/// PostgreSQL as the crash test drives it.
pub struct Server;
pub static PRIVATE: Server = Server;

impl PrivateServer for Server {
    fn init(&self, dir: &Path, owner_root: &Path) -> Result<()> {
        // Started once to create hakari's database, then shut down cleanly.
        start(dir, Durability::Sync, owner_root, 0, 1).map(drop)
    }
    fn launch(&self, dir: &Path, level: Durability, owner_root: &Path) -> Result<Launched> {
        let s = launch(dir, level, owner_root, 0, 1)?;
        let url = s.url();
        Ok(Launched {
            process: s.process,
            url,
        })
    }
}
