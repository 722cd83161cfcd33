//! `--fault`: a fault put into a run on a real private server, and the outage it measures.

mod common;

use common::{hakari, run_ok, stderr};
use hakari::results::RunResult;

/// One faulted run at a time: the recovery is throughput back within 10% of its level before,
/// which another test's server starting on the same two cores can hold down.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// tpcb at a tiny size on `engine`: `clients` for `seconds`, with `fault`, intervals of 0.25 s,
/// and `more` flags (a cluster's).
fn tpcb_with(engine: &str, more: &[&str], clients: &str, seconds: &str, fault: &str) -> RunResult {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let data = tempfile::tempdir().unwrap();
    let mut args = vec![
        "run",
        "tpcb",
        "--engine",
        engine,
        "--clients",
        clients,
        "--duration",
        seconds,
        "--runs",
        "1",
        "--scale",
        "1",
        "--accounts-per-branch",
        "1000",
        "--interval",
        "0.25",
        "--fault",
        fault,
        "--data-dir",
        data.path().to_str().unwrap(),
    ];
    args.extend(more);
    run_ok(&args)
}

/// A figure `m` must have, or a panic naming what it has instead.
fn figure_of(m: &hakari::results::Measurement, engine: &str, name: &str) -> f64 {
    m.figure(name).unwrap_or_else(|| {
        panic!(
            "{engine}: no {name} in {:?} ({:?})",
            m.figures, m.runs[0].intervals
        )
    })
}

/// The recovery is what the series says: the end of the first whole interval after the fault
/// back within 10% of the median interval before it. Whether there is one is the server's
/// affair (0.25 s intervals on two shared cores vary by 15% without a fault, and a server may
/// run slower after a stall or a cut for the rest of a short run: CI once saw PostgreSQL 15%
/// below its level before a cut until the end), so the figure is held to the series, not to a
/// recovery.
fn assert_recovery_as_the_series_says(m: &hakari::results::Measurement, engine: &str) {
    let intervals = &m.runs[0].intervals;
    let usage = &m.runs[0].usage;
    let (began, ended) = (usage["fault.began_s"], usage["fault.ended_s"]);
    let mut before: Vec<f64> = (intervals.iter())
        .filter(|i| i.t_s + i.seconds <= began + 1e-9 && i.seconds >= 0.125)
        .map(|i| i.ops_per_sec)
        .collect();
    before.sort_by(f64::total_cmp);
    let level = match before.len() % 2 {
        1 => before[before.len() / 2],
        _ => (before[before.len() / 2 - 1] + before[before.len() / 2]) / 2.0,
    };
    let back = (intervals.iter())
        .filter(|i| i.t_s + i.seconds / 10.0 >= ended && i.seconds >= 0.125)
        .find(|i| i.ops_per_sec >= 0.9 * level)
        .map(|i| i.t_s + i.seconds - began);
    match (m.figure("fault.recovery_s"), back) {
        (Some(r), Some(b)) => {
            assert!(
                (r - b).abs() < 1e-6,
                "{engine}: recovery {r} s, the series says {b} s"
            );
            assert!(
                (1.0..=4.5).contains(&r),
                "{engine}: recovered {r} s after the fault began"
            );
        }
        (None, None) => {}
        (r, b) => panic!("{engine}: recovery {r:?}, the series says {b:?}: {intervals:?}"),
    }
}

/// tpcb on `engine` with a stall of 1 s at 1.5 s into a 6 s step: the run lives through it, the
/// outage it reports is the stall's length (within 0.3 s), throughput comes back, and the
/// transactions in flight waited the stall out.
fn a_stall_on(engine: &str) {
    let r = tpcb_with(engine, &[], "2", "6", "stall@1.5s:1s");
    assert_eq!(r.status, "complete", "{:?}", r.errors);
    assert_eq!(r.timing.unwrap().fault.as_deref(), Some("stall@1.5s:1s"));
    let m = &r.measurements[0];
    let figure = |name: &str| figure_of(m, engine, name);
    let outage = figure("fault.outage_s");
    assert!(
        (outage - 1.0).abs() <= 0.3,
        "{engine}: the outage of a 1 s stall measured {outage} s"
    );
    assert_recovery_as_the_series_says(m, engine);
    // The units the stall held waited through it.
    let max_us = m.latency.as_ref().unwrap().max_us;
    assert!(
        (900_000.0..=1_300_000.0).contains(&max_us),
        "{engine}: the slowest transaction took {max_us} µs"
    );
    assert!(figure("fault.p99_before_us") > 0.0 && figure("fault.p99_after_us") > 0.0);
    assert_eq!(
        figure("fault.failed"),
        0.0,
        "{engine}: a stall drops no connection"
    );
    // No interval of the series is empty but those of the stall.
    let empty: Vec<f64> = (m.runs[0].intervals.iter())
        .filter(|i| i.ops == 0)
        .map(|i| i.t_s)
        .collect();
    assert!(
        empty.iter().all(|t| (1.5..2.5).contains(t)),
        "{engine}: empty intervals at {empty:?}"
    );
    assert!(
        !empty.is_empty(),
        "{engine}: no interval fell inside the stall"
    );
}

/// A fault given without its instant (`stall:0.5s`): drawn from the seed, in the middle half of
/// what the 4-s step leaves before its end, recorded in the result file as drawn and put in there
/// (the fault's recorded start is the drawn instant); the same seed draws the same instant.
#[test]
fn a_fault_without_an_instant_is_drawn_from_the_seed() {
    let drawn = || {
        let r = tpcb_with("postgres", &["--seed", "7"], "1", "4", "stall:0.5s");
        assert_eq!(r.status, "complete", "{:?}", r.errors);
        let fault = r.timing.as_ref().unwrap().fault.clone().unwrap();
        let at: f64 = (fault.strip_prefix("stall@"))
            .and_then(|rest| rest.strip_suffix("s:0.5s"))
            .and_then(|at| at.parse().ok())
            .unwrap_or_else(|| panic!("recorded as {fault}"));
        assert!((0.875..2.625).contains(&at), "drawn at {at} s");
        let began = r.measurements[0].runs[0].usage["fault.began_s"];
        assert!(
            (began - at).abs() < 0.05,
            "began {began} s, drawn at {at} s"
        );
        assert!(
            (r.notes.iter()).any(|n| n.contains("drawn from seed 7")),
            "{:?}",
            r.notes
        );
        fault
    };
    assert_eq!(drawn(), drawn());
}

#[test]
fn a_stall_on_postgres_is_an_outage_of_its_length() {
    a_stall_on("postgres");
}

#[test]
fn a_stall_on_mariadb_is_an_outage_of_its_length() {
    a_stall_on("mysql");
}

/// tpcb on `engine` whose network is cut for 1 s, 1.5 s into a 6 s step: no connection drops
/// (the packets vanish, and TCP sends them again once the cut is lifted), so nothing fails; the
/// outage is the cut's length and at most TCP's retransmission backoff beyond it (a request
/// resent 0.2 s, 0.6 s and 1.4 s after it was first sent), and no rule of the cut is left.
fn a_partition_on(engine: &str) {
    let r = tpcb_with(engine, &[], "2", "6", "partition@1.5s:1s");
    assert_eq!(r.status, "complete", "{:?}", r.errors);
    let m = &r.measurements[0];
    let figure = |name: &str| figure_of(m, engine, name);
    let outage = figure("fault.outage_s");
    assert!(
        (0.95..=2.2).contains(&outage),
        "{engine}: the outage of a 1 s cut measured {outage} s"
    );
    assert_eq!(
        figure("fault.failed"),
        0.0,
        "{engine}: a cut this short drops no connection"
    );
    assert_recovery_as_the_series_says(m, engine);
    let tables = std::process::Command::new("nft")
        .args(["list", "tables"])
        .output()
        .unwrap();
    let tables = String::from_utf8_lossy(&tables.stdout);
    assert!(
        !tables.contains("hakari_partition_"),
        "{engine}: a cut left in force: {tables}"
    );
}

#[test]
fn a_partition_of_postgres_is_lived_through() {
    a_partition_on("postgres");
}

#[test]
fn a_partition_of_mariadb_is_lived_through() {
    a_partition_on("mysql");
}

/// tpcb on `engine` restarted 1.5 s into a 5 s step: the clients whose connections the
/// shutdown dropped count a failed transaction each, reconnect and go on; the run completes, its
/// balances hold, and no acknowledged transaction is missing from the history (tpcb checks both
/// after a run with a fault).
fn a_restart_of(engine: &str) {
    let r = tpcb_with(engine, &[], "3", "5", "restart@1.5s");
    assert_eq!(r.status, "complete", "{:?}", r.errors);
    let m = &r.measurements[0];
    let figure = |name: &str| figure_of(m, engine, name);
    let failed = figure("fault.failed");
    assert!(
        (1.0..=3.0).contains(&failed),
        "{engine}: {failed} transactions failed (3 clients, each with at most one in flight)"
    );
    let outage = figure("fault.outage_s");
    assert!(outage > 0.0 && outage < 3.0, "{engine}: outage {outage} s");
    assert!(figure("fault.first_failure_s") < 1.0);
    assert!(figure("fault.recovery_s") > 0.0);
    // Work went on after the restart.
    let after: u64 = (m.runs[0].intervals.iter())
        .filter(|i| i.t_s >= 3.0)
        .map(|i| i.ops)
        .sum();
    assert!(after > 0, "{engine}: nothing done after the restart");
    // The server's own count of commits carries on across the restart (read again on a new
    // connection, MariaDB's from zero): one per transaction acknowledged, give or take the
    // readings' own.
    let name = match engine {
        "postgres" => "postgres.xact_commit",
        _ => "mysql.com_commit",
    };
    let run = &m.runs[0];
    let commits = run.usage.get(name).copied().unwrap_or(0.0);
    let per_transaction = commits / run.ops as f64;
    assert!(
        (0.97..1.1).contains(&per_transaction),
        "{engine}: {commits} commits counted by the server for {} transactions ({:?})",
        run.ops,
        r.notes
    );
}

#[test]
fn a_restart_of_postgres_is_lived_through() {
    a_restart_of("postgres");
}

#[test]
fn a_restart_of_mariadb_is_lived_through() {
    a_restart_of("mysql");
}

/// tpcb on a PostgreSQL primary with one synchronous standby, the primary killed 1.5 s into a
/// 5 s step: its clients each lose the transaction in flight, find the promoted standby through
/// the cluster's multi-host URL and go on; no acknowledged transaction is missing from the
/// promoted standby's history and its balances hold (tpcb checks both after a run with a fault).
#[test]
fn a_killed_primary_fails_over_to_its_standby() {
    let cluster = ["--replicas", "1", "--replica-ack", "on"];
    let r = tpcb_with("postgres", &cluster, "3", "5", "kill-primary@1.5s");
    assert_eq!(r.status, "complete", "{:?}", r.errors);
    let m = &r.measurements[0];
    let figure = |name: &str| figure_of(m, "postgres", name);
    let failed = figure("fault.failed");
    assert!(
        (1.0..=3.0).contains(&failed),
        "{failed} transactions failed (3 clients, each with at most one in flight)"
    );
    let outage = figure("fault.outage_s");
    assert!(outage > 0.0 && outage < 3.0, "outage {outage} s");
    assert!(figure("fault.first_failure_s") < 0.5);
    // The fault lasted from the kill until the promoted standby took writes.
    let usage = &m.runs[0].usage;
    let length = usage["fault.ended_s"] - usage["fault.began_s"];
    assert!(
        length > 0.0 && length <= outage + 0.05,
        "{length} s, outage {outage} s"
    );
    let after: u64 = (m.runs[0].intervals.iter())
        .filter(|i| i.t_s >= 3.0)
        .map(|i| i.ops)
        .sum();
    assert!(after > 0, "nothing done after the failover");
    // The server's count of commits carries on from the primary's to the promoted standby's
    // (another server, counting from its own first reading): one per transaction acknowledged,
    // less what the primary had not yet passed to its statistics when it was killed (a backend
    // passes its counts at most once a second: up to a second of the 1.5 s before the kill).
    let run = &m.runs[0];
    let per_transaction = run
        .usage
        .get("postgres.xact_commit")
        .copied()
        .unwrap_or(0.0)
        / run.ops as f64;
    assert!(
        (0.7..1.15).contains(&per_transaction),
        "{per_transaction} server commits per transaction across the failover ({:?})",
        r.notes
    );
}

/// tpcc on a Galera cluster of three, node 1 killed 2 s in: the client connected to it loses its
/// New-Order or Payment in flight and reconnects to the next node that accepts; the other two
/// nodes go on as a primary component of their own, and tpcc's consistency conditions hold on
/// them after the run (and the New-Orders acknowledged are all there). The outage is Galera's:
/// about 6 s here (its 5 s `evs.suspect_timeout`, then the new view), but on a loaded machine
/// CI once saw more than 10 s; by its 15 s `evs.inactive_timeout` the killed node is out of the
/// group whatever became of the first attempt at a view, so the step leaves room past that.
#[test]
fn a_killed_galera_node_is_lived_through() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let data = tempfile::tempdir().unwrap();
    let r = run_ok(&[
        "run",
        "tpcc",
        "--engine",
        "mysql",
        "--cluster",
        "galera:3",
        "--warehouses",
        "1",
        "--clients",
        "3",
        "--duration",
        "22",
        "--interval",
        "0.5",
        "--fault",
        "kill-node@2s",
        "--data-dir",
        data.path().to_str().unwrap(),
    ]);
    assert_eq!(r.status, "complete", "{:?}", r.errors);
    let m = (r.measurements.iter())
        .find(|m| m.figure("fault.outage_s").is_some())
        .expect("a measurement with the fault's figures");
    let figure = |name: &str| figure_of(m, "mysql", name);
    assert!(figure("fault.failed") >= 1.0, "{:?}", m.figures);
    let outage = figure("fault.outage_s");
    assert!(
        outage > 0.0 && outage < 16.0,
        "outage {outage} s ({:?}; {:?})",
        r.notes,
        m.runs[0].intervals
    );
    // Throughput came back once the other nodes went on without the killed one.
    let usage = &m.runs[0].usage;
    let length = usage["fault.ended_s"] - usage["fault.began_s"];
    let recovery = figure("fault.recovery_s");
    assert!(
        recovery >= length,
        "recovered {recovery} s in, the fault lasted {length} s"
    );
}

/// ycsb on a Redis Cluster of three masters with a replica each, master 1 killed 2 s in: the
/// operations on its slots fail (each counted) until the cluster has elected its replica, those
/// on the other masters' go on, and afterwards every slot is served again.
#[test]
fn a_killed_redis_cluster_master_fails_over_to_its_replica() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let r = run_ok(&[
        "run",
        "ycsb",
        "--workload",
        "d",
        "--engine",
        "redis",
        "--cluster",
        "redis:3",
        "--replicas",
        "1",
        "--records",
        "2000",
        "--threads",
        "2",
        "--duration",
        "14",
        "--interval",
        "0.5",
        "--fault",
        "kill-node@2s",
    ]);
    assert_eq!(r.status, "complete", "{:?}", r.errors);
    let m = (r.measurements.iter())
        .find(|m| m.figure("fault.failed").is_some_and(|f| f > 0.0))
        .expect("a step whose operations failed with the master");
    let usage = &m.runs[0].usage;
    let (began, ended) = (usage["fault.began_s"], usage["fault.ended_s"]);
    // cluster-node-timeout is 5 s: no replica is elected before it.
    assert!(ended - began >= 5.0, "failed over in {} s", ended - began);
    // The inserts acknowledged were looked for after it; Redis promises none of them survives
    // a failover (it replicates asynchronously), so what was lost is counted, not asserted.
    let (lost, acknowledged) = (usage["fault.lost"], usage["fault.acknowledged"]);
    assert!(acknowledged > 0.0 && lost <= acknowledged, "{usage:?}");
    assert!(
        (r.notes.iter()).any(|n| n.contains("records the run phase inserted and had acknowledged")),
        "{:?}",
        r.notes
    );
    // Every slot served again: the last whole interval runs at most of the level before.
    let whole: Vec<_> = (m.runs[0].intervals.iter())
        .filter(|i| i.seconds > 0.4)
        .collect();
    let (first, last) = (whole[1], whole[whole.len() - 1]);
    assert!(
        last.t_s >= ended && last.ops_per_sec > 0.5 * first.ops_per_sec,
        "{} ops/s at the end, {} at the start",
        last.ops_per_sec,
        first.ops_per_sec
    );
}

/// ycsb, tpcc, a script of the user's and sysbench's oltp_read_write on PostgreSQL (sysbench on
/// MariaDB too) restarted mid-run: each lives through it as tpcb does (tpcc's New-Orders and consistency conditions checked after it; every record
/// ycsb inserted and had acknowledged is there after it).
#[test]
fn ycsb_tpcc_script_and_sysbench_live_through_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let init = dir.path().join("init.sql");
    std::fs::write(
        &init,
        "CREATE TABLE t (id int PRIMARY KEY, v int);\n\
         INSERT INTO t SELECT g, 0 FROM generate_series(1, 1000) g;\n",
    )
    .unwrap();
    let script = dir.path().join("update.sql");
    std::fs::write(
        &script,
        "\\set id random(1, 1000)\nUPDATE t SET v = v + 1 WHERE id = :id;\n",
    )
    .unwrap();
    let (init, script) = (init.to_str().unwrap(), script.to_str().unwrap());
    let runs: [&[&str]; 3] = [
        &[
            "ycsb",
            "--workload",
            "d",
            "--records",
            "2000",
            "--threads",
            "2",
        ],
        &["tpcc", "--warehouses", "1", "--clients", "3"],
        &["script", "--init", init, "-f", script, "--clients", "2"],
    ];
    for run in runs {
        let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let mut args = vec!["run"];
        args.extend(run);
        args.extend([
            "--engine",
            "postgres",
            "--duration",
            "4",
            "--fault",
            "restart@1.5s",
        ]);
        let r = run_ok(&args);
        assert_eq!(r.status, "complete", "{run:?}: {:?}", r.errors);
        let m = (r.measurements.iter())
            .find(|m| m.figure("fault.outage_s").is_some())
            .unwrap_or_else(|| panic!("{run:?}: no measurement with the fault's figures"));
        assert!(
            m.figure("fault.failed").unwrap() >= 1.0,
            "{run:?}: {:?}",
            m.figures
        );
        assert!(m.figure("fault.outage_s").unwrap() > 0.0, "{run:?}");
        if run[0] == "ycsb" {
            let usage = &m.runs[0].usage;
            assert!(usage["fault.acknowledged"] > 0.0, "{usage:?}");
            assert_eq!(usage["fault.lost"], 0.0, "a restart at sync loses nothing");
        }
    }
    // sysbench's own script, on both drivers (libpq's and libmariadb's lost connections): its
    // thread made anew (a new connection, thread_init again), which it counts as a reconnect,
    // as sysbench's driver does.
    for (engine, driver) in [("postgres", "pgsql"), ("mysql", "mysql")] {
        let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let out = dir.path().join(format!("sysbench-{engine}"));
        let o = hakari(&[
            "run",
            "sysbench",
            "--engine",
            engine,
            "--fault",
            "restart@1.5s",
            "--out",
            out.to_str().unwrap(),
            "oltp_read_write",
            &format!("--db-driver={driver}"),
            "--threads=2",
            "--time=4",
            "--tables=1",
            "--table-size=1000",
        ]);
        assert!(o.status.success(), "sysbench on {engine}: {}", stderr(&o));
        let r = hakari::results::store::read(&common::only_result(&out)).unwrap();
        assert_eq!(r.status, "complete", "sysbench on {engine}: {:?}", r.errors);
        let m = (r.measurements.iter())
            .find(|m| m.figure("fault.outage_s").is_some())
            .expect("sysbench: a measurement with the fault's figures");
        let usage = &m.runs[0].usage;
        assert!(usage["fault.failed"] >= 1.0, "{engine}: {usage:?}");
        assert!(usage["sysbench.reconnects"] >= 1.0, "{engine}: {usage:?}");
    }
}

/// sysbench's own oltp_read_write on a PostgreSQL primary with a synchronous standby, the
/// primary killed 1.5 s in: each thread's connection is lost, made anew (thread_init again) on
/// the promoted standby through the cluster's multi-host URL, and counted as sysbench counts a
/// reconnect; the run goes on after it.
#[test]
fn sysbench_lives_through_a_failover() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let o = hakari(&[
        "run",
        "sysbench",
        "--engine",
        "postgres",
        "--replicas",
        "1",
        "--replica-ack",
        "on",
        "--fault",
        "kill-primary@1.5s",
        "--out",
        dir.path().to_str().unwrap(),
        "oltp_read_write",
        "--db-driver=pgsql",
        "--threads=2",
        "--time=5",
        "--tables=1",
        "--table-size=1000",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = hakari::results::store::read(&common::only_result(dir.path())).unwrap();
    assert_eq!(r.status, "complete", "{:?}", r.errors);
    let m = (r.measurements.iter())
        .find(|m| m.figure("fault.outage_s").is_some())
        .expect("a measurement with the fault's figures");
    let usage = &m.runs[0].usage;
    assert!(usage["fault.failed"] >= 1.0, "{usage:?}");
    // One new connection per thread whose connection the kill took: two threads, one kill.
    let reconnects = usage["sysbench.reconnects"];
    assert!((1.0..=2.0).contains(&reconnects), "{usage:?}");
    let after: u64 = (m.runs[0].intervals.iter())
        .filter(|i| i.t_s >= usage["fault.ended_s"])
        .map(|i| i.ops)
        .sum();
    assert!(after > 0, "nothing done after the failover");
}

/// A fault that cannot be put in: one line saying why, exit 2 before anything starts; a fault
/// a step of unknown length ends before: the run fails saying so.
#[test]
fn a_fault_that_cannot_be_is_refused() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_str().unwrap();
    let tpcb = [
        "run",
        "tpcb",
        "--out",
        o,
        "--scale",
        "1",
        "--accounts-per-branch",
        "100",
    ];
    let cases: [(&[&str], &str); 13] = [
        (&["--fault", "restart@1s:2s"], "takes no length"),
        (
            &["--engine", "postgres", "--fault", "kill-primary@1s"],
            "one server has none: start standbys with --replicas N",
        ),
        (
            &[
                "--engine",
                "postgres",
                "--replicas",
                "1,0",
                "--fault",
                "kill-primary@1s",
            ],
            "one server has none",
        ),
        (
            &[
                "--engine",
                "mysql",
                "--cluster",
                "galera:2",
                "--fault",
                "kill-node@1s",
            ],
            "N of 3 or more",
        ),
        (
            &[
                "--engine",
                "postgres",
                "--replicas",
                "1",
                "--fault",
                "restart@1s",
            ],
            "restarts a single server",
        ),
        (
            &["--fault", "nap@1s:1s"],
            "not a fault this version can put in",
        ),
        (&["--fault", "stall@1s"], "needs its length"),
        (
            &[
                "--engine",
                "postgres",
                "--duration",
                "3",
                "--fault",
                "stall@2.5s:1s",
            ],
            "ends after the step (3 s)",
        ),
        (
            &["--engine", "sqlite", "--fault", "stall@1s:1s"],
            "engine 'sqlite' has no server",
        ),
        (
            &[
                "--engine",
                "postgres",
                "--url",
                "postgres://x@127.0.0.1:1/x",
                "--fault",
                "stall@1s:1s",
            ],
            "a server given by --url is yours",
        ),
        (
            &[
                "--engine",
                "postgres",
                "--transactions",
                "10",
                "--fault",
                "stall:1s",
            ],
            "draws its instant from the seed within a step of known length",
        ),
        // tpcb's three runs at each of its three client counts would each kill a primary of a
        // cluster that lives through one.
        (
            &[
                "--engine",
                "postgres",
                "--replicas",
                "1",
                "--fault",
                "kill-primary@1s",
            ],
            "in each of the 9 timed steps run on one start of the servers (runs times thread counts), and the cluster (primary+1 standbys on) lives through 1 kill(s)",
        ),
        (
            &[
                "--engine",
                "mysql",
                "--cluster",
                "galera:5",
                "--runs",
                "1",
                "--clients",
                "1,2,4",
                "--fault",
                "kill-node@1s",
            ],
            "in each of the 3 timed steps run on one start of the servers (runs times thread counts), and the cluster (galera 5 nodes round-robin) lives through 2 kill(s)",
        ),
    ];
    for (more, says) in cases {
        let args: Vec<&str> = tpcb.iter().chain(more).copied().collect();
        let r = hakari(&args);
        assert_eq!(r.status.code(), Some(2), "{more:?}: {}", stderr(&r));
        assert!(stderr(&r).contains(says), "{more:?}: {}", stderr(&r));
        assert!(
            common::result_files(out.path()).is_empty(),
            "{more:?} wrote a result"
        );
    }
    let r = hakari(&[
        "run",
        "ycsb",
        "--out",
        o,
        "--engine",
        "redis",
        "--fault",
        "restart@1s",
    ]);
    assert_eq!(r.status.code(), Some(2), "{}", stderr(&r));
    assert!(
        stderr(&r).contains("the engines whose server restarts: postgres, mysql"),
        "{}",
        stderr(&r)
    );
    let r = hakari(&["run", "tpch", "--out", o, "--fault", "stall@1s:1s"]);
    assert_eq!(r.status.code(), Some(2), "{}", stderr(&r));
    assert!(
        stderr(&r).contains("--fault does not apply to tpch"),
        "{}",
        stderr(&r)
    );

    // A step of a number of transactions ends before its fault is due.
    let data = tempfile::tempdir().unwrap();
    let mut args = tpcb.to_vec();
    args.extend([
        "--engine",
        "postgres",
        "--transactions",
        "5",
        "--runs",
        "1",
        "--fault",
        "stall@60s:1s",
        "--data-dir",
        data.path().to_str().unwrap(),
    ]);
    let r = hakari(&args);
    assert_eq!(r.status.code(), Some(1), "{}", stderr(&r));
    assert!(
        stderr(&r).contains("before the fault stall@60s:1s was due"),
        "{}",
        stderr(&r)
    );
}
