//! The session-store workload through the real binary on every engine it offers (private servers
//! for PostgreSQL, MariaDB, Redis and memcached), and its limits: memcached's item size, bad sizes,
//! a Redis given by --url whose persistence does not match, and keys that are not hakari's.

use hakari::results::store;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
mod common;
use common::{hakari, stderr};

/// Every engine the session store takes, from the registry, but odbc: `tests/odbc.rs` runs the
/// session store through SQLite's ODBC driver.
fn engines() -> Vec<&'static str> {
    common::engines_taking(
        hakari::engine::Takes::Records,
        &[("odbc", "tests/odbc.rs runs it through SQLite's ODBC driver")],
    )
}

#[test]
fn every_engine_layout_and_codec_writes_and_reads_back_what_it_wrote() {
    for engine in engines() {
        // Berkeley DB's SQL interface breaks atomicity under concurrent writers (a finding of the
        // tpcb workload, and here: a chunked session now and then reads back other bytes, which
        // the workload reports as an error); its round trip is checked with one client.
        let clients = if engine == "bdb-sql" { "1" } else { "2" };
        let out = tempfile::tempdir().unwrap();
        let o = hakari(&[
            "run",
            "session",
            "--engine",
            engine,
            "--sizes",
            "100,9K",
            "--layout",
            "blob,chunked",
            "--compress",
            "none,gzip,zstd,lz4",
            "--sessions",
            "12",
            "--reads",
            "40",
            "--clients",
            clients,
            "--runs",
            "1",
            "--out",
            out.path().to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{engine}: {}", stderr(&o));
        let r = store::read(&common::only_result(out.path())).unwrap();
        assert_eq!(r.status, "complete", "{engine}");
        // 2 sizes x 2 layouts x 4 codecs x (write, read).
        assert_eq!(r.measurements.len(), 32, "{engine}");
        for m in &r.measurements {
            let expected_ops = if m.step == "write" { 12 } else { 40 };
            assert_eq!(m.runs[0].ops, expected_ops, "{engine} {}", m.step);
            let payload = m.produced["payload_bytes"].as_u64().unwrap();
            let stored = m.produced["stored_bytes"].as_u64().unwrap();
            match m.config["compress"].as_str().unwrap() {
                "none" => assert_eq!(stored, payload, "{engine}"),
                // base64 of random [a-z0-9] text holds about 3.9 bits per byte: an entropy
                // coder shrinks it; lz4, which only finds repeats, does not.
                "gzip" | "zstd" if m.config["size"].as_u64() == Some(9 << 10) => {
                    assert!(stored < payload * 8 / 10, "{engine}: {stored} of {payload}")
                }
                _ => {}
            }
        }
    }
}

#[test]
fn bad_sizes_and_names_are_refused_before_anything_runs() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    // Values a flag cannot parse are bad usage (2); values it parses but the run refuses, 1.
    for (args, says, code) in [
        (vec!["--sizes", "0"], "session sizes", 1),
        (vec!["--sizes", "lots"], "not a size", 2),
        (vec!["--sizes", "1G"], "session sizes", 1),
        (vec!["--layout", "sharded"], "unknown layout", 2),
        (vec!["--compress", "brotli"], "unknown compression", 2),
        (vec!["--engine", "oracle"], "unknown engine", 1),
        (
            vec!["--engine", "memcached", "--durability", "sync"],
            "in-memory",
            1,
        ),
    ] {
        let mut all = vec!["run", "session", "--out", dir];
        all.extend(&args);
        let o = hakari(&all);
        assert_eq!(o.status.code(), Some(code), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
}

/// A server this test starts itself, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn wait_for(port: u16) {
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "server on {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn memcached_with_its_default_item_limit_skips_the_sizes_that_do_not_fit() {
    let port = hakari::server::free_port().unwrap();
    let mut cmd = Command::new("memcached");
    cmd.args(["-p", &port.to_string(), "-l", "127.0.0.1", "-m", "256"]);
    if unsafe { libc::geteuid() } == 0 {
        cmd.args(["-u", "nobody"]);
    }
    let _server = Server(cmd.stdout(Stdio::null()).spawn().expect("memcached"));
    wait_for(port);
    let out = tempfile::tempdir().unwrap();
    let url = format!("memcache://127.0.0.1:{port}");
    let o = hakari(&[
        "run",
        "session",
        "--engine",
        "memcached",
        "--url",
        &url,
        "--sizes",
        "1K,1000K",
        "--compress",
        "none",
        "--sessions",
        "5",
        "--reads",
        "10",
        "--runs",
        "1",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = store::read(&common::only_result(out.path())).unwrap();
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("item size limit") && n.contains("1000K")),
        "{:?}",
        r.notes
    );
    let sizes: Vec<u64> = r
        .measurements
        .iter()
        .map(|m| m.config["size"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, [1024, 1024]);
}

#[test]
fn a_redis_given_by_url_keeps_its_own_keys_and_its_persistence_must_match() {
    let port = hakari::server::free_port().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let _server = Server(
        Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .args(["--dir", dir.path().to_str().unwrap()])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server"),
    );
    wait_for(port);
    let url = format!("redis://127.0.0.1:{port}/");
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut con = client.get_connection().unwrap();
    let _: () = redis::cmd("SET")
        .arg("someone:else")
        .arg("precious")
        .query(&mut con)
        .unwrap();
    let out = tempfile::tempdir().unwrap();
    let run = |level: &str| {
        hakari(&[
            "run",
            "session",
            "--engine",
            "redis",
            "--url",
            &url,
            "--durability",
            level,
            "--sizes",
            "2K",
            "--sessions",
            "5",
            "--reads",
            "10",
            "--runs",
            "1",
            "--out",
            out.path().to_str().unwrap(),
        ])
    };
    let refused = run("sync");
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("appendonly no"),
        "{}",
        stderr(&refused)
    );
    let o = run("in-memory");
    assert!(o.status.success(), "{}", stderr(&o));
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut con).unwrap();
    assert_eq!(keys, ["someone:else"], "hakari leaves only what it found");
}
