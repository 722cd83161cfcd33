//! Several clients making one run: hakari processes, each a shard of a tpcb, tpcc or ycsb run against
//! one private PostgreSQL, started together with --start-at, then merged. The merged histogram
//! must be the one built from the clients' own interval histograms in the shared window, and
//! its operations their sum; what the shards write must not overlap.

mod common;
use common::{assert_placed_by, hakari, intervals, only_result, private_postgres, stderr};
use hdrhistogram::Histogram;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// Starts `count` clients of one run, shard i of N each, together 10 s from now, against the
/// PostgreSQL at `url`; returns their result files once each has succeeded.
fn run_shards(dir: &Path, url: &str, count: usize, args: &[&str]) -> Vec<std::path::PathBuf> {
    let start_at = SystemTime::now() + Duration::from_secs(10);
    let start_at = hakari::results::time::rfc3339(start_at);
    let mut args = args.to_vec();
    args.extend(["--engine", "postgres", "--start-at", &start_at]);
    start_shards(dir, url, count, &args, Duration::ZERO)
}

/// Starts `count` clients of one run at `url`, shard i of N each, `apart` from each other (the
/// last first); returns their result files once each has succeeded.
fn start_shards(
    dir: &Path,
    url: &str,
    count: usize,
    args: &[&str],
    apart: Duration,
) -> Vec<std::path::PathBuf> {
    let outs: Vec<_> = (1..=count)
        .map(|i| dir.join(format!("client{i}")))
        .collect();
    let clients: Vec<_> = (1..=count)
        .rev()
        .map(|i| {
            std::thread::sleep(apart);
            let shard = format!("{i}/{count}");
            std::process::Command::new(env!("CARGO_BIN_EXE_hakari"))
                .arg("run")
                .args(args)
                .args(["--url", url, "--shard", &shard])
                .arg("--hlog")
                .arg(dir.join("hlog"))
                .arg("--out")
                .arg(&outs[i - 1])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    all_succeed(clients);
    outs.iter().map(|o| only_result(o)).collect()
}

/// Waits for every client, asserting each succeeded.
fn all_succeed(clients: Vec<std::process::Child>) {
    for client in clients {
        let o = client.wait_with_output().unwrap();
        assert!(o.status.success(), "a client failed: {}", stderr(&o));
    }
}

/// `hakari merge` of the clients' `files` (their interval logs in `dir`/hlog) into
/// `dir`/merged.json, which it returns once the merge has succeeded.
fn merge(dir: &Path, files: &[std::path::PathBuf]) -> std::path::PathBuf {
    let merged = dir.join("merged.json");
    let mut args = vec!["merge"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    let hlog = dir.join("hlog");
    args.extend([
        "--hlog",
        hlog.to_str().unwrap(),
        "-o",
        merged.to_str().unwrap(),
    ]);
    let o = hakari(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    merged
}

/// How many tables of hakari's the server at `url` still holds.
fn tables_left(url: &str) -> i64 {
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    c.query_one(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'hakari'",
        &[],
    )
    .unwrap()
    .get(0)
}

#[test]
fn two_shards_started_together_merge_into_one_result() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = private_postgres(dir.path());
    let url = format!("postgresql://hakari@127.0.0.1:{port}/hakari");
    let hlog = dir.path().join("hlog");
    let tpcb = ["tpcb", "--clients", "2", "--duration", "3", "--runs", "1"];
    let scale = ["--scale", "2", "--accounts-per-branch", "100"];
    let files = run_shards(dir.path(), &url, 2, &[&tpcb[..], &scale].concat());
    let merged_file = merge(dir.path(), &files);
    let merged = hakari::results::store::read(&merged_file).unwrap();
    assert_eq!(merged.merged_from.len(), 2);
    for c in &merged.merged_from {
        let offset = c.start_offset_ms.expect("a start offset");
        assert!(offset.abs() < 1_000.0, "client started {offset} ms off");
    }
    let m = &merged.measurements[0];
    assert_eq!(m.threads, 4, "2 clients of 2 connections");

    // The same window, built here from the clients' own logs.
    let logs: Vec<Vec<(f64, f64, Histogram<u64>)>> = files
        .iter()
        .map(|f| {
            let r = hakari::results::store::read(f).unwrap();
            intervals(&hlog.join(format!("{}.hlog", r.run_id)))
        })
        .collect();
    let start = logs.iter().map(|l| l[0].0).fold(f64::MIN, f64::max);
    let end = (logs.iter())
        .map(|l| l.last().map(|i| i.0 + i.1).unwrap())
        .fold(f64::MAX, f64::min);
    let mut expected =
        hdrhistogram::Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3).unwrap();
    for (s, len, h) in logs.iter().flatten() {
        if (start..=end).contains(&(s + len / 2.0)) {
            expected.add(h).unwrap();
        }
    }
    let latency = m.latency.expect("merged latency");
    assert_eq!(latency.count, expected.len());
    assert_eq!(
        m.runs[0].ops,
        expected.len(),
        "merged ops are the window's sum"
    );
    assert_eq!(
        latency.p99_us,
        expected.value_at_quantile(0.99) as f64 / 1e3
    );
    assert_eq!(latency.max_us, expected.max() as f64 / 1e3);
    let per_client: u64 = files
        .iter()
        .map(|f| hakari::results::store::read(f).unwrap().measurements[0].runs[0].ops)
        .sum();
    assert!(
        expected.len() <= per_client && expected.len() * 2 >= per_client,
        "the window holds most of what the clients did: {} of {per_client}",
        expected.len()
    );

    // Shard 1 dropped the tables once both were done.
    assert_eq!(tables_left(&url), 0, "hakari's tables are gone");

    // A client whose parameters differ is refused, the difference named.
    let mut other = hakari::results::store::read(&files[1]).unwrap();
    other
        .parameters
        .insert("duration_secs".into(), serde_json::json!(30.0));
    let changed = dir.path().join("changed.json");
    std::fs::write(&changed, serde_json::to_string(&other).unwrap()).unwrap();
    let o = hakari(&[
        "merge",
        files[0].to_str().unwrap(),
        changed.to_str().unwrap(),
        "--hlog",
        hlog.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("parameter duration_secs"),
        "{}",
        stderr(&o)
    );
}

/// Two tpcc clients, each running the terminals of its own warehouse: each checks that its
/// warehouse's districts grew by exactly the New-Orders its terminals committed (a terminal at
/// the other's warehouse would break that for both), shard 1 checks the conditions once both
/// have stopped, and the merged result gives NOPM from the shared window.
#[test]
fn two_tpcc_shards_run_their_own_warehouses_and_shard_1_checks_them_all() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = private_postgres(dir.path());
    let url = format!("postgresql://hakari@127.0.0.1:{port}/hakari");
    let tpcc = [
        "tpcc",
        "--warehouses",
        "2",
        "--clients",
        "2",
        "--duration",
        "4",
        "--ramp-up",
        "0",
    ];
    let files = run_shards(dir.path(), &url, 2, &tpcc);
    let results: Vec<_> = (files.iter())
        .map(|f| hakari::results::store::read(f).unwrap())
        .collect();
    let held = |r: &hakari::results::RunResult| {
        (r.notes.iter())
            .any(|n| n.contains("consistency conditions 1, 2, 3, 4") && n.contains("after run 1/1"))
    };
    assert!(held(&results[0]), "{:?}", results[0].notes);
    assert!(!held(&results[1]), "{:?}", results[1].notes);
    assert!(
        (results[1].notes.iter()).any(|n| n.contains("shard 1 checks the consistency conditions")),
        "{:?}",
        results[1].notes
    );
    assert_eq!(
        tables_left(&url),
        0,
        "shard 1 dropped the tables once both were done"
    );
    let merged_file = merge(dir.path(), &files);
    let o = hakari(&["show", merged_file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let shown = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(shown.contains("(merged from 2 shards"), "{shown}");
    // engine, durability, terminals, warehouses, NOPM, TPM: both shards' terminals, figures.
    let row: Vec<&str> = (shown.lines())
        .find(|l| l.starts_with("postgres"))
        .unwrap_or_else(|| panic!("{shown}"))
        .split_whitespace()
        .collect();
    assert_eq!(row[2..4], ["4", "2"], "{shown}");
    assert!(row[4] != "-" && row[5] != "-", "{shown}");
}

#[test]
fn a_shard_needs_a_shared_server_and_a_workload_that_splits() {
    let cases: &[(&[&str], &str)] = &[
        (&["tpcb", "--engine", "postgres", "--shard", "2/2"], "--url"),
        (&["kv", "--shard", "1/2"], "tpcb"),
        (&["ycsb", "--load", "all"], "--shard"),
        (&["tpcb", "--shard", "3/2"], "i/N"),
        (&["tpch", "--shard", "1/2"], "tpcc (each runs"),
        (&["tpcb", "--start-at", "tomorrow"], "not a time like"),
        // An impossible date is refused, not taken for March 3rd.
        (
            &["tpcb", "--start-at", "2026-02-31T00:00:00Z"],
            "not a time like",
        ),
    ];
    for (flags, says) in cases {
        let mut args = vec!["run"];
        args.extend(*flags);
        let o = hakari(&args);
        assert_eq!(o.status.code(), Some(2), "{flags:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{flags:?}: {}", stderr(&o));
    }
}

/// Three ycsb clients, each loading its own part of the records (YCSB's insertstart and
/// insertcount) from one instant, then inserting records of their own: a record loaded twice or
/// inserted by two shards would break the table's primary key, one loaded by none would be
/// missing when read; either fails its client. Then tpcb with every shard loading its
/// branches, whose balances are checked after the run.
#[test]
fn every_shard_loads_its_part_and_inserts_its_own_records() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = private_postgres(dir.path());
    let url = format!("postgresql://hakari@127.0.0.1:{port}/hakari");
    let ycsb = [
        "ycsb",
        "--workload",
        "d",
        "--records",
        "3001",
        "--operations",
        "2000",
    ];
    let flags = ["--threads", "2", "--load", "all", "--durability", "nosync"];
    let files = run_shards(
        &dir.path().join("ycsb"),
        &url,
        3,
        &[&ycsb[..], &flags].concat(),
    );
    let merged_file = dir.path().join("merged.json");
    let mut args = vec!["merge"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    let hlog = dir.path().join("ycsb/hlog");
    args.extend([
        "--hlog",
        hlog.to_str().unwrap(),
        "-o",
        merged_file.to_str().unwrap(),
    ]);
    let o = hakari(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let merged = hakari::results::store::read(&merged_file).unwrap();
    let step = |r: &hakari::results::RunResult, name: &str| {
        let m = r.measurements.iter().find(|m| m.step == name);
        m.unwrap_or_else(|| panic!("no {name} step")).runs[0].ops
    };
    let loaded: Vec<u64> = files
        .iter()
        .map(|f| step(&hakari::results::store::read(f).unwrap(), "load"))
        .collect();
    assert_eq!(loaded, [1001, 1000, 1000], "each shard loaded its part");
    assert!(step(&merged, "load") <= 3001);
    for f in &files {
        let r = hakari::results::store::read(f).unwrap();
        assert!(step(&r, "insert") > 0, "{} inserted nothing", f.display());
    }
    // However their loads ended, the run phases started at the instant shard 1 named.
    let starts: Vec<f64> = files
        .iter()
        .map(|f| {
            let r = hakari::results::store::read(f).unwrap();
            let m = r.measurements.iter().find(|m| m.step == "run").unwrap();
            m.runs[0].started_unix_s.unwrap()
        })
        .collect();
    let spread = starts.iter().fold(f64::MIN, |a, &b| a.max(b))
        - starts.iter().fold(f64::MAX, |a, &b| a.min(b));
    assert!(spread < 0.05, "run phases started {spread} s apart");
    assert_eq!(tables_left(&url), 0, "shard 1 dropped the records");

    let tpcb = ["tpcb", "--clients", "2", "--duration", "2", "--runs", "1"];
    let scale = [
        "--scale",
        "3",
        "--accounts-per-branch",
        "100",
        "--load",
        "all",
    ];
    let files = run_shards(
        &dir.path().join("tpcb"),
        &url,
        3,
        &[&tpcb[..], &scale].concat(),
    );
    for f in &files {
        let r = hakari::results::store::read(f).unwrap();
        let note = r.notes.iter().find(|n| n.contains("loaded branches"));
        assert!(note.is_some(), "{:?}", r.notes);
    }
    assert_eq!(tables_left(&url), 0, "shard 1 dropped the tables");
}

/// Three ycsb clients on a Redis given by --url, started a second apart with no start time
/// (as a scheduler starts them): each checks in, and shard 1 names when the loads start and
/// when the run phases start, so both start together on every client. Twice: what the first
/// run's shards marked in the store does not mislead the second's.
#[test]
fn ycsb_shards_started_apart_check_in_and_start_together() {
    let dir = tempfile::tempdir().unwrap();
    let server = common::private_redis(dir.path());
    let url = format!("redis://127.0.0.1:{}", server.process.port);
    let ycsb = [
        "ycsb",
        "--engine",
        "redis",
        "--workload",
        "d",
        "--records",
        "3001",
        "--operations",
        "2000",
        "--threads",
        "2",
        "--load",
        "all",
        "--durability",
        "sync",
    ];
    for round in ["first", "second"] {
        let called = hakari::results::time::unix_seconds(SystemTime::now());
        let files = start_shards(
            &dir.path().join(round),
            &url,
            3,
            &ycsb,
            Duration::from_secs(1),
        );
        let results: Vec<_> = (files.iter())
            .map(|f| hakari::results::store::read(f).unwrap())
            .collect();
        let started = |name: &str| -> Vec<f64> {
            (results.iter())
                .map(|r| {
                    let m = r.measurements.iter().find(|m| m.step == name);
                    m.unwrap_or_else(|| panic!("no {name} step")).runs[0]
                        .started_unix_s
                        .unwrap()
                })
                .collect()
        };
        for step in ["load", "run"] {
            let starts = started(step);
            let spread = starts.iter().fold(f64::MIN, |a, &b| a.max(b))
                - starts.iter().fold(f64::MAX, |a, &b| a.min(b));
            assert!(
                spread < 0.05,
                "{round} run: {step} phases started {spread} s apart"
            );
        }
        let loaded: Vec<u64> = (results.iter())
            .map(|r| {
                r.measurements
                    .iter()
                    .find(|m| m.step == "load")
                    .unwrap()
                    .runs[0]
                    .ops
            })
            .collect();
        assert_eq!(
            loaded,
            [1001, 1000, 1000],
            "{round} run: each loaded its part"
        );
        // The last client (shard 1) was started 3 s after the call.
        let earliest = started("load").into_iter().fold(f64::MAX, f64::min);
        assert!(
            earliest > called + 3.0,
            "{round} run: the loads waited for the last client"
        );
    }
    let mut con = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let left: usize = redis::cmd("DBSIZE").query(&mut con).unwrap();
    assert_eq!(left, 0, "shard 1 left nothing of hakari's");
}

/// A shard that fails says so where the others meet: here shard 1 cannot split one branch in
/// two and fails before it lists the run, and shard 2, waiting for that list, stops at once
/// with the reason instead of waiting out its patience.
#[test]
fn a_failed_shard_stops_the_others_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = private_postgres(dir.path());
    let url = format!("postgresql://hakari@127.0.0.1:{port}/hakari");
    let start_at = hakari::results::time::rfc3339(SystemTime::now() + Duration::from_secs(3));
    let client = |shard: &str, scale: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_hakari"))
            .args(["run", "tpcb", "--engine", "postgres", "--url", &url])
            .args(["--shard", shard, "--start-at", &start_at, "--scale", scale])
            .args([
                "--duration",
                "2",
                "--runs",
                "1",
                "--accounts-per-branch",
                "100",
            ])
            .arg("--out")
            .arg(dir.path().join(shard.replace('/', "-")))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let started = std::time::Instant::now();
    let second = client("2/2", "2");
    let first = client("1/2", "1").wait_with_output().unwrap();
    assert_eq!(first.status.code(), Some(1), "{}", stderr(&first));
    assert!(
        stderr(&first).contains("at least 2 branches"),
        "{}",
        stderr(&first)
    );
    let second = second.wait_with_output().unwrap();
    assert_eq!(second.status.code(), Some(1), "{}", stderr(&second));
    assert!(stderr(&second).contains("failed"), "{}", stderr(&second));
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "shard 2 stopped after {:?}",
        started.elapsed()
    );
    assert_eq!(tables_left(&url), 0, "nothing of hakari's is left");
}

/// A tpcb client's run, small: one connection for 2 s on branches of 100 accounts.
const SMALL_TPCB: [&str; 10] = [
    "run",
    "tpcb",
    "--clients",
    "1",
    "--duration",
    "2",
    "--runs",
    "1",
    "--accounts-per-branch",
    "100",
];

/// Three clients started as `srun -n 3` starts them (each told its place by SLURM_PROCID and
/// SLURM_NTASKS, `--shard auto`), all leaving results in one folder, and `hakari merge --wait 3`
/// started before them: it waits until all three are complete, then merges them. A client
/// that failed ends such a wait with its reason, and nothing is merged.
#[test]
fn clients_placed_by_the_scheduler_merge_once_all_are_in() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = private_postgres(dir.path());
    let url = format!("postgresql://hakari@127.0.0.1:{port}/hakari");
    let drop = dir.path().join("results");
    std::fs::create_dir(&drop).unwrap();
    let merged = dir.path().join("merged.json");
    let waiting = std::process::Command::new(env!("CARGO_BIN_EXE_hakari"))
        .args(["merge", "--wait", "3", drop.to_str().unwrap()])
        .args(["-o", merged.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start_at = hakari::results::time::rfc3339(SystemTime::now() + Duration::from_secs(8));
    let clients: Vec<_> = (0..3)
        .map(|rank| {
            std::process::Command::new(env!("CARGO_BIN_EXE_hakari"))
                .args(SMALL_TPCB)
                .args(["--scale", "3"])
                .args(["--engine", "postgres", "--url", &url])
                .args(["--shard", "auto", "--start-at", &start_at])
                .args([
                    "--hlog",
                    drop.to_str().unwrap(),
                    "--out",
                    drop.to_str().unwrap(),
                ])
                .env("SLURM_PROCID", rank.to_string())
                .env("SLURM_NTASKS", "3")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    all_succeed(clients);
    let o = waiting.wait_with_output().unwrap();
    assert!(o.status.success(), "merge --wait: {}", stderr(&o));
    let result = hakari::results::store::read(&merged).unwrap();
    assert_eq!(result.merged_from.len(), 3);
    assert_placed_by(&result, 3, Some(hakari::shard::Scheduler::Slurm));

    // A failed client ends the wait with its reason.
    let failed_drop = dir.path().join("failed");
    std::fs::create_dir(&failed_drop).unwrap();
    let clients = hakari::results::store::expand(std::slice::from_ref(&drop)).unwrap();
    let one = (clients.iter())
        .map(|f| hakari::results::store::read(f).unwrap())
        .find(|r| r.merged_from.is_empty() && r.shard.is_some())
        .unwrap();
    let mut failed = one.clone();
    failed.status = "failed".into();
    failed.complete = false;
    failed.errors = vec!["the server went away".into()];
    let path = failed_drop.join(format!("{}.json", failed.run_id));
    hakari::results::store::write_atomic(&path, &failed).unwrap();
    let o = hakari(&["merge", "--wait", "3", failed_drop.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("ended failed: the server went away"),
        "{}",
        stderr(&o)
    );
}

/// Two tpcb clients with no `--start-at`, the second started two seconds after the first: each
/// checks in where the shards meet, shard 1 names the start once both have, and their timed
/// steps start within 50 ms of each other (their interval logs' first intervals, on absolute
/// time). A shard that never comes fails the run, named, after `--shard-timeout`.
#[test]
fn shards_check_in_and_start_together_with_no_start_time() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = private_postgres(dir.path());
    let url = format!("postgresql://hakari@127.0.0.1:{port}/hakari");
    let hlog = dir.path().join("hlog");
    let client = |shard: &str, out: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_hakari"))
            .args(SMALL_TPCB)
            .args(["--scale", "2"])
            .args(["--engine", "postgres", "--url", &url, "--shard", shard])
            .args([
                "--hlog",
                hlog.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let outs = [dir.path().join("c1"), dir.path().join("c2")];
    let first = client("1/2", &outs[0]);
    std::thread::sleep(Duration::from_secs(2));
    let second = client("2/2", &outs[1]);
    all_succeed(vec![first, second]);
    let starts: Vec<f64> = (outs.iter())
        .map(|o| {
            let r = hakari::results::store::read(&only_result(o)).unwrap();
            intervals(&hlog.join(format!("{}.hlog", r.run_id)))[0].0
        })
        .collect();
    let apart_ms = (starts[0] - starts[1]).abs() * 1000.0;
    assert!(
        apart_ms < 50.0,
        "the clients' steps started {apart_ms:.1} ms apart"
    );

    let alone = dir.path().join("alone");
    let o = hakari(&[
        "run",
        "tpcb",
        "--clients",
        "1",
        "--duration",
        "1",
        "--runs",
        "1",
        "--scale",
        "2",
        "--accounts-per-branch",
        "100",
        "--engine",
        "postgres",
        "--url",
        &url,
        "--shard",
        "1/2",
        "--shard-timeout",
        "3",
        "--out",
        alone.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("shard 2/2 did not check in within 3 s"),
        "{}",
        stderr(&o)
    );
    // Nothing looks complete: the result is marked failed.
    if let Some(f) = common::result_files(&alone).first() {
        assert_ne!(hakari::results::store::read(f).unwrap().status, "complete");
    }
    assert_eq!(tables_left(&url), 0, "shard 1 dropped hakari's tables");
}
