//! What every integration test needs: run the real binary, read what it wrote.
#![allow(dead_code)] // each test file uses its own part of this

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the hakari binary this build made.
pub fn hakari(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hakari"))
        .args(args)
        .output()
        .expect("hakari runs")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The result files in `dir`, in name (= start time) order; none when it does not exist.
pub fn result_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The one result file in `dir`.
pub fn only_result(dir: &Path) -> PathBuf {
    let files = result_files(dir);
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

/// Runs hakari with `args` and `--out` a fresh folder, asserts it succeeded, and returns the one
/// result file it wrote, as read back.
pub fn run_ok(args: &[&str]) -> hakari::results::RunResult {
    let out = tempfile::tempdir().unwrap();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--out", out.path().to_str().unwrap()]);
    let o = hakari(&all);
    assert!(o.status.success(), "hakari {args:?}: {}", stderr(&o));
    hakari::results::store::read(&only_result(out.path())).unwrap()
}

/// A private server in `dir` at `sync`, serving a few clients, for a test to play "a server
/// given by --url" (hakari's database and superuser in it).
pub fn private(
    server: &dyn hakari::server::PrivateServer,
    dir: &Path,
    root: &Path,
) -> hakari::server::Launched {
    let options = hakari::server::ServerOptions {
        clients: 4,
        ..hakari::server::ServerOptions::at(hakari::durability::Durability::Sync)
    };
    server.start(dir, &options, root).unwrap()
}

/// A private Redis in `root`/redis, as `private` starts it.
pub fn private_redis(root: &Path) -> hakari::server::Launched {
    let dir = root.join("redis");
    std::fs::create_dir(&dir).unwrap();
    private(&hakari::server::redis::PRIVATE, &dir, root)
}

/// What an engine needs beside `--engine` to run with no server given: the odbc engine reaches
/// a SQLite file in `dir` through Debian's SQLite ODBC driver (a real driver and database, and
/// no server to start); every other engine needs nothing.
pub fn engine_args(engine: &str, dir: &Path) -> Vec<String> {
    match engine {
        "odbc" => vec!["--url".into(), odbc_sqlite(dir)],
        _ => Vec::new(),
    }
}

/// The odbc URL of a SQLite file in `dir` (60 s busy timeout, as hakari's own sqlite engine).
pub fn odbc_sqlite(dir: &Path) -> String {
    format!(
        "odbc:Driver=SQLite3;Database={};Timeout=60000",
        dir.join("odbc.sqlite").display()
    )
}

/// A private MariaDB in `dir`/my playing "a server given by --url": the server (stopped when
/// dropped), its socket, and a root connection to it.
pub fn private_mariadb(dir: &Path) -> (hakari::server::Launched, PathBuf, mysql::Conn) {
    let server_dir = dir.join("my");
    std::fs::create_dir(&server_dir).unwrap();
    let server = private(&hakari::server::mariadb::PRIVATE, &server_dir, dir);
    let socket = hakari::server::mariadb::socket(&server_dir);
    let conn = mysql::Conn::new(hakari::server::mariadb::socket_opts(&socket, None)).unwrap();
    (server, socket, conn)
}

/// A private PostgreSQL in `dir`/pg playing "a server given by --url": the server (stopped when
/// dropped) and its loopback port; database and superuser `hakari`, trusted.
pub fn private_postgres(dir: &Path) -> (hakari::server::Launched, u16) {
    let server_dir = dir.join("pg");
    std::fs::create_dir(&server_dir).unwrap();
    let server = private(&hakari::server::postgres::PRIVATE, &server_dir, dir);
    let port = server.process.port;
    (server, port)
}

/// The engines a workload takes, from hakari's own registry (so a new engine cannot go
/// untested), less those a suite leaves to another, each with the reason; a name left out that
/// the registry no longer has fails, so the list cannot go stale.
pub fn engines_taking(
    takes: hakari::engine::Takes,
    left_out: &[(&str, &str)],
) -> Vec<&'static str> {
    let all: Vec<&'static str> = takes.engines().iter().map(|e| e.name()).collect();
    for (name, why) in left_out {
        assert!(
            all.contains(name),
            "{name} is left out ({why}) but the registry has no such engine"
        );
    }
    (all.into_iter())
        .filter(|n| !left_out.iter().any(|(l, _)| l == n))
        .collect()
}

/// Asserts that a merged `result` was made of `count` clients, placed 1 to `count` of `count`
/// by `scheduler` (`--shard auto`), or by hand (None: `--shard i/N`).
pub fn assert_placed_by(
    result: &hakari::results::RunResult,
    count: usize,
    scheduler: Option<hakari::shard::Scheduler>,
) {
    let mut places: Vec<_> = (result.merged_from.iter())
        .map(|c| c.shard.map(|s| (s.index, s.count, s.scheduler)))
        .collect();
    places.sort_by_key(|p| p.map(|(index, _, _)| index));
    let expected: Vec<_> = (1..=count).map(|i| Some((i, count, scheduler))).collect();
    assert_eq!(places, expected);
}

/// Every interval of a log: (absolute start, length, histogram).
pub fn intervals(path: &Path) -> Vec<(f64, f64, hdrhistogram::Histogram<u64>)> {
    use base64::Engine as _;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
    use hdrhistogram::serialization::Deserializer;
    let text = std::fs::read(path).unwrap();
    let mut base = 0.0;
    let mut out = Vec::new();
    for entry in IntervalLogIterator::new(&text) {
        match entry.unwrap() {
            LogEntry::BaseTime(t) => base = t.as_secs_f64(),
            LogEntry::Interval(h) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(h.encoded_histogram())
                    .unwrap();
                let histogram: hdrhistogram::Histogram<u64> = Deserializer::new()
                    .deserialize(&mut bytes.as_slice())
                    .unwrap();
                let start = base + h.start_timestamp().as_secs_f64();
                out.push((start, h.duration().as_secs_f64(), histogram));
            }
            _ => {}
        }
    }
    out
}
