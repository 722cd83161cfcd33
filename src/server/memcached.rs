//! A private memcached on a free loopback port, with its item size limit raised to fit the
//! values the run will store and enough memory that nothing is evicted.

use super::{
    command, find, free_port, hand_over, run_as, Launched, PrivateServer, ServerOptions,
    ServerProcess,
};
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

pub const INSTALL_HINT: &str =
    "install memcached (`sudo apt-get install memcached`, or scripts/setup-servers.sh), or give --url";

/// memcached's default item size limit.
pub const DEFAULT_ITEM_LIMIT: u64 = 1 << 20;
/// The largest limit memcached accepts.
pub const MAX_ITEM_LIMIT: u64 = 1 << 30;

/// memcached as a private server, its item size limit raised to fit the run's values and its
/// memory to hold them.
pub struct Server;
pub static PRIVATE: Server = Server;

impl PrivateServer for Server {
    fn name(&self) -> &'static str {
        "memcached"
    }
    fn programs(&self) -> &'static [&'static str] {
        &["memcached"]
    }
    fn launch(&self, dir: &Path, options: &ServerOptions, owner_root: &Path) -> Result<Launched> {
        let process = launch(dir, owner_root, options.value_bytes, options.records)?;
        Ok(Launched {
            url: format!("memcache://127.0.0.1:{}", process.port),
            process,
            others: Vec::new(),
        })
    }
}

fn launch(dir: &Path, owner_root: &Path, value_bytes: u64, records: u64) -> Result<ServerProcess> {
    let Some(server) = find(&["memcached"]) else {
        bail!("no memcached found: {INSTALL_HINT}");
    };
    // The limit is a power of two with room for the key and item header.
    let item_limit = (value_bytes + 4096)
        .next_power_of_two()
        .clamp(DEFAULT_ITEM_LIMIT, MAX_ITEM_LIMIT);
    // memcached refuses an item limit above half its memory; slabs waste up to ~2x.
    let needed_mb = (records * (value_bytes + 512) * 2) >> 20;
    let memory_mb = needed_mb.max(2 * (item_limit >> 20)).max(64);
    let port = free_port()?;
    let log = dir.join("memcached.log");
    // memcached will not run as root. It is started as nobody rather than told to become
    // nobody (-u): its own change of user would clear the signal that ends it with hakari.
    let owner = run_as("nobody")?;
    hand_over(&[dir], owner, owner_root)?;
    let mut cmd = command(&server, owner);
    // It keeps no files; working in its directory ties it to the run that owns it.
    cmd.current_dir(dir)
        .args(["-p", &port.to_string(), "-l", "127.0.0.1", "-U", "0"])
        .args(["-m", &memory_mb.to_string()])
        .args(["-I", &format!("{}k", item_limit >> 10)]);
    let child = cmd
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log)?)
        .spawn()
        .context("cannot start memcached")?;
    let mut process =
        ServerProcess::new("memcached", port, dir.to_path_buf(), child, libc::SIGTERM);
    let url = format!("memcache://127.0.0.1:{port}");
    process.wait_ready(Duration::from_secs(30), &log, || {
        memcache::connect(url.as_str())
            .and_then(|c| c.version())
            .is_ok()
    })?;
    Ok(process)
}
