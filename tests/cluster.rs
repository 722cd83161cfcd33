//! Loopback clusters started for real: PostgreSQL standbys and a MariaDB Galera cluster run
//! tpcb and tpcc; after each run every other node must hold the primary's balances (tpcb checks
//! it) or its orders, stock and payments (tpcc does), and no server process may outlive the run.

mod common;
use common::{hakari, run_ok, stderr};
use std::path::Path;

/// The processes whose command line names `dir` (servers started in it).
fn processes_in(dir: &Path) -> Vec<String> {
    let needle = dir.display().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if text.contains(&needle) {
            found.push(text);
        }
    }
    found
}

/// tpcb at a tiny size on `engine`, with the topology flags `extra`, in `data`.
fn tpcb_on(engine: &str, extra: &[&str], data: &Path) -> hakari::results::RunResult {
    let mut args = vec![
        "run",
        "tpcb",
        "--engine",
        engine,
        "--clients",
        "2",
        "--transactions",
        "40",
        "--runs",
        "1",
        "--scale",
        "2",
        "--accounts-per-branch",
        "100",
        "--data-dir",
        data.to_str().unwrap(),
    ];
    args.extend(extra);
    let r = run_ok(&args);
    assert_eq!(r.status, "complete");
    assert!(
        processes_in(data).is_empty(),
        "servers left running: {:?}",
        processes_in(data)
    );
    r
}

#[test]
fn postgres_standbys_acknowledge_as_asked_and_hold_what_the_primary_holds() {
    let data = tempfile::tempdir().unwrap();
    let r = tpcb_on(
        "postgres",
        &["--replicas", "0,2", "--replica-ack", "async,remote-apply:1"],
        data.path(),
    );
    let replication: Vec<String> = r
        .measurements
        .iter()
        .map(|m| common_text(m.config.get("replication")))
        .collect();
    assert_eq!(
        replication,
        [
            "",
            "primary+2 standbys async (loopback cluster)",
            "primary+2 standbys remote-apply any 1 (loopback cluster)"
        ]
    );
    for m in &r.measurements {
        assert_eq!(m.runs[0].ops, 80, "{replication:?}");
    }
    let quorum = r
        .engines
        .iter()
        .find(|e| {
            e.settings
                .get("topology")
                .is_some_and(|t| t.contains("any 1"))
        })
        .expect("the quorum configuration's engine record");
    assert_eq!(
        quorum.settings["synchronous_standby_names"],
        "ANY 1 (standby1, standby2)"
    );
    assert_eq!(quorum.settings["replication"], "applied on 1 of 2 standbys");
    assert_eq!(
        quorum.settings["synchronous_commit (session)"],
        "remote_apply"
    );
    let checked: Vec<&String> = (r.notes.iter())
        .filter(|n| n.contains("standby1, standby2 held the primary's balances"))
        .collect();
    assert_eq!(
        checked.len(),
        2,
        "both standby configurations checked: {:?}",
        r.notes
    );
}

#[test]
fn a_galera_cluster_of_three_runs_tpcb_and_every_node_agrees() {
    let data = tempfile::tempdir().unwrap();
    let r = tpcb_on("mysql", &["--cluster", "galera:3"], data.path());
    let m = &r.measurements[0];
    assert_eq!(
        common_text(m.config.get("replication")),
        "galera 3 nodes round-robin (loopback cluster)"
    );
    assert_eq!(m.runs[0].ops, 80);
    assert_eq!(r.engines[0].settings["wsrep_on"], "ON");
    assert!(
        (r.notes.iter())
            .any(|n| n.contains("Galera node 2, Galera node 3 held the primary's balances")),
        "{:?}",
        r.notes
    );
}

/// tpcc at one warehouse on a cluster: it completes, its conditions hold, and every other node
/// holds what the primary holds (`nodes`, as tpcc's note names them).
fn tpcc_on_a_cluster(engine: &str, extra: &[&str], nodes: &str) {
    let data = tempfile::tempdir().unwrap();
    let mut args = vec![
        "run",
        "tpcc",
        "--engine",
        engine,
        "--warehouses",
        "1",
        "--clients",
        "2",
        "--duration",
        "3",
        "--ramp-up",
        "0",
        "--data-dir",
        data.path().to_str().unwrap(),
    ];
    args.extend(extra);
    let r = run_ok(&args);
    assert_eq!(r.status, "complete");
    let held = format!("{nodes} held what the primary held");
    assert!(r.notes.iter().any(|n| n.contains(&held)), "{:?}", r.notes);
    assert!(
        (r.notes.iter()).any(|n| n.contains("consistency conditions 1, 2, 3, 4")),
        "{:?}",
        r.notes
    );
    assert!(processes_in(data.path()).is_empty());
}

#[test]
fn tpcc_on_a_postgres_standby_leaves_it_holding_the_primarys_orders() {
    tpcc_on_a_cluster("postgres", &["--replicas", "1"], "standby1");
}

#[test]
fn tpcc_on_a_galera_cluster_leaves_every_node_holding_the_same() {
    tpcc_on_a_cluster(
        "mysql",
        &["--cluster", "galera:3"],
        "Galera node 2, Galera node 3",
    );
}

#[test]
fn a_redis_cluster_of_three_masters_runs_every_ycsb_workload() {
    let data = tempfile::tempdir().unwrap();
    let r = run_ok(&[
        "run",
        "ycsb",
        "--engine",
        "redis",
        "--cluster",
        "redis:3",
        "--replicas",
        "0,1",
        "--workload",
        "a,e",
        "--records",
        "300",
        "--operations",
        "600",
        "--threads",
        "2",
        "--data-dir",
        data.path().to_str().unwrap(),
    ]);
    assert_eq!(r.status, "complete");
    let mut topologies: Vec<String> = (r.measurements.iter())
        .map(|m| common_text(m.config.get("replication")))
        .collect();
    topologies.dedup();
    topologies.sort();
    topologies.dedup();
    assert_eq!(
        topologies,
        [
            "redis cluster 3 masters (loopback cluster)",
            "redis cluster 3 masters 1 replica(s) each (loopback cluster)"
        ]
    );
    // Every record loaded and every operation done (a read checks the record's fields, a scan
    // the records it finds), through the redirects of a cluster.
    for m in &r.measurements {
        let expected = match m.step.as_str() {
            "load" => 300,
            "run" => 600,
            _ => continue,
        };
        assert_eq!(m.runs[0].ops, expected, "{} {:?}", m.step, m.config);
    }
    assert!(
        processes_in(data.path()).is_empty(),
        "servers left running: {:?}",
        processes_in(data.path())
    );
}

#[test]
fn a_redis_cluster_given_by_seed_urls_is_used_and_left_as_found() {
    use hakari::server::topology::Topology;
    use hakari::server::{PrivateServer, ServerOptions};
    let dir = tempfile::tempdir().unwrap();
    let options = ServerOptions {
        topology: Topology::RedisCluster {
            masters: 3,
            replicas: 0,
        },
        ..ServerOptions::at(hakari::durability::Durability::InMemory)
    };
    let cluster = hakari::server::redis::PRIVATE
        .start(dir.path(), &options, dir.path())
        .unwrap();
    let urls = cluster.node_urls();
    // The user's own keys, on whichever masters their slots fall.
    let client = redis::cluster::ClusterClient::new(urls.clone()).unwrap();
    let mut con = client.get_connection().unwrap();
    for i in 0..50 {
        let _: () = redis::Commands::set(&mut con, format!("user:{i}"), i).unwrap();
    }
    let seeds = urls.join(",");
    let r = run_ok(&[
        "run",
        "ycsb",
        "--engine",
        "redis",
        "--url",
        &seeds,
        "--durability",
        "in-memory",
        "--workload",
        "a",
        "--records",
        "200",
        "--operations",
        "400",
        "--threads",
        "2",
    ]);
    assert_eq!(r.status, "complete");
    let load = r.measurements.iter().find(|m| m.step == "load").unwrap();
    assert_eq!(load.runs[0].ops, 200);
    // Only the user's keys are left, on every master.
    let mut keys = 0;
    for url in &urls {
        let mut node = redis::Client::open(url.as_str())
            .unwrap()
            .get_connection()
            .unwrap();
        let n: u64 = redis::cmd("DBSIZE").query(&mut node).unwrap();
        let hakari: Vec<String> = redis::cmd("KEYS").arg("hakari:*").query(&mut node).unwrap();
        assert!(hakari.is_empty(), "{url} still holds {hakari:?}");
        assert!(n > 0, "{url}: the user's keys spread over every master");
        keys += n;
    }
    assert_eq!(keys, 50);
}

#[test]
fn topologies_an_engine_cannot_be_started_as_are_refused() {
    let cases: &[(&[&str], &str)] = &[
        (&["--engine", "sqlite", "--replicas", "1"], "postgres"),
        (&["--engine", "postgres", "--cluster", "galera:3"], "mysql"),
        (
            &[
                "--engine",
                "postgres",
                "--replicas",
                "2",
                "--replica-ack",
                "on:3",
            ],
            "quorum",
        ),
        (
            &[
                "--engine",
                "postgres",
                "--replicas",
                "1",
                "--replica-ack",
                "fast",
            ],
            "unknown replica acknowledgement",
        ),
        (&["--engine", "mysql", "--cluster", "galera:x"], "galera:N"),
        (
            &[
                "--engine",
                "mysql",
                "--cluster",
                "galera:3",
                "--replicas",
                "1",
            ],
            "redis:N",
        ),
        (
            &["--engine", "redis", "--cluster", "redis:2"],
            "at least 3 masters",
        ),
        (
            &[
                "--engine",
                "postgres",
                "--replicas",
                "1",
                "--url",
                "postgres://hakari@127.0.0.1:1/hakari",
            ],
            "--url",
        ),
    ];
    for (flags, says) in cases {
        let mut args = vec!["run", "tpcb", "--transactions", "1"];
        args.extend(*flags);
        let o = hakari(&args);
        assert_eq!(o.status.code(), Some(2), "{flags:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{flags:?}: {}", stderr(&o));
    }
}

#[test]
fn nosync_cannot_wait_for_a_standby() {
    let out = tempfile::tempdir().unwrap();
    let o = hakari(&[
        "run",
        "tpcb",
        "--engine",
        "postgres",
        "--durability",
        "nosync",
        "--replicas",
        "1",
        "--replica-ack",
        "on",
        "--transactions",
        "1",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("waits for neither the local WAL flush nor a standby"),
        "{}",
        stderr(&o)
    );
}

fn common_text(v: Option<&serde_json::Value>) -> String {
    v.and_then(|v| v.as_str()).unwrap_or("").to_string()
}
