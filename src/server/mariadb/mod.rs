//! A private MariaDB (or MySQL): mariadb-install-db in the run's directory, `mariadbd` on a free
//! loopback port and a Unix socket beside its data.

pub mod galera;

use super::topology::Topology;
use super::{
    command, find, free_port, hand_over, restart::Relaunch, run_as, Launched, PrivateServer,
    ServerOptions, ServerProcess,
};
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

/// Initializes a data directory in `dir`/data (mariadb-install-db), with the server's own
/// temporary directory `dir`/tmp, owned by the server's user.
pub(super) fn init_data(dir: &Path, owner_root: &Path) -> Result<()> {
    let Some(install) = find(&["mariadb-install-db", "mysql_install_db"]) else {
        bail!("no MariaDB/MySQL server binaries found: {INSTALL_HINT}");
    };
    let owner = run_as("mysql")?;
    let (data, tmp) = (dir.join("data"), dir.join("tmp"));
    // Its own temporary directory: bootstraps running at once in a shared /tmp trip over each
    // other's temporary tables.
    std::fs::create_dir_all(&data)?;
    std::fs::create_dir_all(&tmp)?;
    hand_over(&[dir, &data, &tmp], owner, owner_root)?;
    let mut init = std::process::Command::new(&install);
    init.arg("--no-defaults")
        .arg(format!("--datadir={}", data.display()))
        .arg(format!("--tmpdir={}", tmp.display()))
        .args(["--auth-root-authentication-method=normal", "--skip-test-db"]);
    if owner.is_some() {
        init.arg("--user=mysql");
    }
    super::run_tool(&mut init, "mariadb-install-db")
}

/// Starts `mariadbd` on the data directory `dir`/data (made by `init_data`), configured for the
/// level, on a free loopback port and a socket in `dir`; after a crash InnoDB recovers first, as
/// it always does. Returns the server and its socket. `extra` options come last (a Galera
/// node's).
pub(super) fn launch(
    dir: &Path,
    options: &ServerOptions,
    owner_root: &Path,
    extra: &[String],
) -> Result<(ServerProcess, PathBuf)> {
    let (level, cache_bytes, clients) = (options.level, options.cache_bytes, options.clients);
    let Some(server) = find(&["mariadbd", "mysqld"]) else {
        bail!("no MariaDB/MySQL server binaries found: {INSTALL_HINT}");
    };
    let flush = flush_setting(level).map_err(|e| anyhow::anyhow!(e))?;
    let owner = run_as("mysql")?;
    let (data, tmp) = (dir.join("data"), dir.join("tmp"));
    if !data.is_dir() {
        bail!("no MariaDB data directory at {}", data.display());
    }
    std::fs::create_dir_all(&tmp)?;
    let tls = options
        .tls
        .as_ref()
        .map(|t| t.copied_into(dir))
        .transpose()?;
    // The socket, pid file and log go into `dir`, which the server's user must own (a copied
    // directory too).
    hand_over(&[dir, &data, &tmp], owner, owner_root)?;
    let port = free_port()?;
    let socket = socket(dir);
    let log = dir.join("mariadb.log");
    if !log.exists() {
        std::fs::write(&log, b"")?;
    }
    hand_over(&[&log], owner, owner_root)?;
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
    if let Some(tls) = &tls {
        tls.hand_over(owner)?;
        args.extend([
            format!("--ssl-ca={}", tls.ca.display()),
            format!("--ssl-cert={}", tls.cert.display()),
            format!("--ssl-key={}", tls.key.display()),
        ]);
        if tls.only {
            // TCP only with TLS; the Unix socket, hakari's own way in, counts as secure.
            args.push("--require-secure-transport=ON".into());
        }
    }
    args.extend(extra.iter().cloned());
    let spawn = move || -> Result<std::process::Child> {
        command(&server, owner)
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("cannot start mariadbd")
    };
    let child = spawn()?;
    let mut process = ServerProcess::new("MariaDB", port, dir.to_path_buf(), child, libc::SIGTERM);
    let opts = socket_opts(&socket, None);
    let ready = move || mysql::Conn::new(opts.clone()).is_ok();
    process.wait_ready(Duration::from_secs(60), &log, ready.clone())?;
    let process = process.restartable(Relaunch {
        spawn: Box::new(spawn),
        ready: Box::new(ready),
    });
    Ok((process, socket))
}

/// MariaDB as a private server.
pub struct Server;
pub static PRIVATE: Server = Server;

impl PrivateServer for Server {
    fn name(&self) -> &'static str {
        "MariaDB"
    }
    fn programs(&self) -> &'static [&'static str] {
        &["mariadbd", "mysqld"]
    }
    fn restarts(&self) -> bool {
        true
    }
    fn init(&self, dir: &Path, owner_root: &Path) -> Result<()> {
        crate::server::started_once(self, dir, owner_root)
    }
    fn launch(&self, dir: &Path, options: &ServerOptions, owner_root: &Path) -> Result<Launched> {
        let (process, socket) = launch(dir, options, owner_root, &[])?;
        Ok(Launched {
            url: socket_url(&socket, "hakari"),
            process,
            others: Vec::new(),
        })
    }
    /// mariadb-install-db, launched, hakari's database created.
    fn start(&self, dir: &Path, options: &ServerOptions, owner_root: &Path) -> Result<Launched> {
        if let Topology::Galera { nodes, .. } = options.topology {
            return galera::start(dir, nodes, options, owner_root);
        }
        start_with(dir, options, owner_root, &[])
    }
}

/// A single private server started afresh with `extra` server options after hakari's own (a
/// test's `--performance-schema=ON`), hakari's database made in it.
pub fn start_with(
    dir: &Path,
    options: &ServerOptions,
    owner_root: &Path,
    extra: &[String],
) -> Result<Launched> {
    use mysql::prelude::Queryable;
    init_data(dir, owner_root)?;
    let (process, socket) = launch(dir, options, owner_root, extra)?;
    let mut admin = mysql::Conn::new(socket_opts(&socket, None))?;
    admin.query_drop("CREATE DATABASE hakari")?;
    Ok(Launched {
        url: client_url(&mut admin, &socket, process.port)?,
        process,
        others: Vec::new(),
    })
}

/// The URL the workload reaches a private server by: root over its Unix socket, or, where a
/// partition is planned (`--fault partition`, which cuts TCP and no socket), an account of
/// hakari's own over loopback TCP, with the privileges root has and no password (the server
/// listens on 127.0.0.1 only, as a private PostgreSQL trusts its local clients). `admin` is
/// root's connection, on which the account is made (on a Galera cluster's first node, which
/// hands it to the others).
fn client_url(admin: &mut mysql::Conn, socket: &Path, port: u16) -> Result<String> {
    use mysql::prelude::Queryable;
    if !crate::server::partition::planned() {
        return Ok(socket_url(socket, "hakari"));
    }
    // Loopback TCP reaches MariaDB as 'localhost' (or as the address, with names unresolved).
    for host in ["localhost", "127.0.0.1"] {
        admin.query_drop(format!("CREATE USER IF NOT EXISTS 'hakari'@'{host}'"))?;
        admin.query_drop(format!(
            "GRANT ALL PRIVILEGES ON *.* TO 'hakari'@'{host}' WITH GRANT OPTION"
        ))?;
    }
    Ok(format!("mysql://hakari@127.0.0.1:{port}/hakari"))
}

/// The Unix socket of a private server in `dir`.
pub fn socket(dir: &Path) -> PathBuf {
    dir.join("mysqld.sock")
}

/// A `mysql://` URL for root over the private server's socket (`?socket=`, percent-encoded).
pub fn socket_url(socket: &Path, database: &str) -> String {
    let mut path = String::new();
    for b in socket.display().to_string().bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            path.push(b as char);
        } else {
            path.push_str(&format!("%{b:02X}"));
        }
    }
    format!("mysql://root@localhost/{database}?socket={path}")
}

/// Connection options for root over the private server's socket.
pub fn socket_opts(socket: &Path, database: Option<&str>) -> mysql::Opts {
    mysql::OptsBuilder::new()
        .socket(Some(socket.display().to_string()))
        .user(Some("root"))
        .db_name(database)
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socket_url_reads_back_as_the_socket() {
        let socket = Path::new("/tmp/a dir/100%/mysqld.sock");
        let url = socket_url(socket, "hakari");
        assert!(!url.contains(' '), "{url}");
        let opts = mysql::Opts::from_url(&url).unwrap();
        assert_eq!(opts.get_socket(), Some("/tmp/a dir/100%/mysqld.sock"));
        assert_eq!(opts.get_db_name(), Some("hakari"));
        assert_eq!(opts.get_user(), Some("root"));
    }
}
