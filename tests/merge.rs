//! Several clients making one run: two hakari processes, each a shard of a tpcb run against one
//! private PostgreSQL, started together with --start-at, then merged. The merged histogram must
//! be the one built from the clients' own interval histograms in the shared window, and its
//! operations their sum.

mod common;
use common::{hakari, only_result, private_postgres, stderr};
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// Every interval of a log: (absolute start, length, histogram).
fn intervals(path: &Path) -> Vec<(f64, f64, Histogram<u64>)> {
    use base64::Engine as _;
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
                let histogram: Histogram<u64> = Deserializer::new()
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

#[test]
fn two_shards_started_together_merge_into_one_result() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = private_postgres(dir.path());
    let url = format!("postgresql://hakari@127.0.0.1:{port}/hakari");
    let hlog = dir.path().join("hlog");
    let start_at = SystemTime::now() + Duration::from_secs(10);
    let start_at = hakari::results::time::rfc3339(start_at);
    let outs: Vec<_> = (1..=2)
        .map(|i| dir.path().join(format!("client{i}")))
        .collect();
    let clients: Vec<_> = (1..=2)
        .map(|i| {
            let shard = format!("{i}/2");
            std::process::Command::new(env!("CARGO_BIN_EXE_hakari"))
                .args(["run", "tpcb", "--engine", "postgres", "--url", &url])
                .args(["--shard", &shard, "--start-at", &start_at])
                .args(["--clients", "2", "--duration", "3", "--runs", "1"])
                .args(["--scale", "2", "--accounts-per-branch", "100"])
                .arg("--hlog")
                .arg(&hlog)
                .arg("--out")
                .arg(&outs[i - 1])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for client in clients {
        let o = client.wait_with_output().unwrap();
        assert!(o.status.success(), "a client failed: {}", stderr(&o));
    }
    let files: Vec<_> = outs.iter().map(|o| only_result(o)).collect();
    let merged_file = dir.path().join("merged.json");
    let o = hakari(&[
        "merge",
        files[0].to_str().unwrap(),
        files[1].to_str().unwrap(),
        "--hlog",
        hlog.to_str().unwrap(),
        "-o",
        merged_file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
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
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let left: i64 = c
        .query_one(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'hakari'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(left, 0, "hakari's tables are gone");

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

#[test]
fn a_shard_needs_a_shared_server_a_start_and_a_workload_that_splits() {
    let cases: &[(&[&str], &str)] = &[
        (&["tpcb", "--engine", "postgres", "--shard", "2/2"], "--url"),
        (
            &[
                "tpcb",
                "--engine",
                "postgres",
                "--shard",
                "1/2",
                "--url",
                "postgres://hakari@127.0.0.1:1/hakari",
            ],
            "--start-at",
        ),
        (&["kv", "--shard", "1/2"], "tpcb"),
        (&["tpcb", "--shard", "3/2"], "i/N"),
        (&["tpcb", "--start-at", "tomorrow"], "UTC time"),
    ];
    for (flags, says) in cases {
        let mut args = vec!["run"];
        args.extend(*flags);
        let o = hakari(&args);
        assert_eq!(o.status.code(), Some(2), "{flags:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{flags:?}: {}", stderr(&o));
    }
}
