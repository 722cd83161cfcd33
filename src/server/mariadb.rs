//! A private MariaDB (or MySQL): mariadb-install-db in the run's directory, `mariadbd` on a free
//! loopback port and a Unix socket beside its data.

use super::{command, find, free_port, hand_over, run_as, ServerProcess};
use crate::durability::Durability;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

pub const INSTALL_HINT: &str =
    "install MariaDB (`sudo apt-get install mariadb-server`, or scripts/setup-servers.sh), or give --url";

/// innodb_flush_log_at_trx_commit for a level.
pub fn flush_setting(level: Durability) -> Result<u8, String> {
    match level {
        Durability::Sync => Ok(1),
        Durability::WriteNosync => Ok(2),
        Durability::Nosync => Ok(0),
        Durability::InMemory => Err(
            "InnoDB has no in-memory log (the MEMORY engine would change the workload's tables)"
                .into(),
        ),
        Durability::None => Err("InnoDB is always transactional and logged".into()),
    }
}

pub struct PrivateMariadb {
    pub process: ServerProcess,
    pub socket: PathBuf,
}

pub fn start(
    dir: &Path,
    level: Durability,
    owner_root: &Path,
    cache_bytes: u64,
    clients: usize,
) -> Result<PrivateMariadb> {
    let (Some(server), Some(install)) = (
        find(&["mariadbd", "mysqld"]),
        find(&["mariadb-install-db", "mysql_install_db"]),
    ) else {
        bail!("no MariaDB/MySQL server binaries found: {INSTALL_HINT}");
    };
    let flush = flush_setting(level).map_err(|e| anyhow::anyhow!(e))?;
    let owner = run_as("mysql")?;
    let data = dir.join("data");
    // Its own temporary directory: bootstraps running at once in a shared /tmp trip over each
    // other's temporary tables.
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&data)?;
    std::fs::create_dir_all(&tmp)?;
    hand_over(dir, owner, owner_root)?;
    hand_over(&data, owner, owner_root)?;
    hand_over(&tmp, owner, owner_root)?;
    let mut init = std::process::Command::new(&install);
    init.arg("--no-defaults")
        .arg(format!("--datadir={}", data.display()))
        .arg(format!("--tmpdir={}", tmp.display()))
        .args(["--auth-root-authentication-method=normal", "--skip-test-db"]);
    if owner.is_some() {
        init.arg("--user=mysql");
    }
    let out = init
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .context("cannot run mariadb-install-db")?;
    if !out.status.success() {
        bail!(
            "mariadb-install-db failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let port = free_port()?;
    let socket = dir.join("mysqld.sock");
    let log = dir.join("mariadb.log");
    std::fs::write(&log, b"")?;
    hand_over(&log, owner, owner_root)?;
    let mut args = vec![
        "--no-defaults".to_string(),
        format!("--datadir={}", data.display()),
        format!("--tmpdir={}", tmp.display()),
        format!("--socket={}", socket.display()),
        format!("--port={port}"),
        "--bind-address=127.0.0.1".into(),
        format!("--pid-file={}", dir.join("mysqld.pid").display()),
        format!("--log-error={}", log.display()),
        "--skip-log-bin".into(),
        format!("--innodb-flush-log-at-trx-commit={flush}"),
        format!("--max-connections={}", (clients + 20).max(151)),
    ];
    if cache_bytes > 0 {
        args.push(format!("--innodb-buffer-pool-size={cache_bytes}"));
    }
    let child = command(&server, owner)
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("cannot start mariadbd")?;
    let mut process = ServerProcess::new("MariaDB", port, dir.to_path_buf(), child, libc::SIGTERM);
    let opts = socket_opts(&socket, None);
    process.wait_ready(Duration::from_secs(60), &log, || {
        mysql::Conn::new(opts.clone()).is_ok()
    })?;
    let mut admin = mysql::Conn::new(opts)?;
    use mysql::prelude::Queryable;
    admin.query_drop("CREATE DATABASE hakari")?;
    Ok(PrivateMariadb { process, socket })
}

/// Connection options for root over the private server's socket.
pub fn socket_opts(socket: &Path, database: Option<&str>) -> mysql::Opts {
    mysql::OptsBuilder::new()
        .socket(Some(socket.display().to_string()))
        .user(Some("root"))
        .db_name(database)
        .into()
}
