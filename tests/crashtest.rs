//! The crash test through the real binary: killed committing processes, a power cut under the
//! FUSE layer, killed private servers; and what it refuses.

use hakari::results::{Measurement, RunResult};
use std::path::Path;
mod common;
use common::{hakari, only_result, result_files, stderr};

/// Runs `hakari crashtest ARGS` into the folder `out`, asserts it succeeded, and returns its
/// one result file, read back, with what it printed.
fn crashtest_into(out: &tempfile::TempDir, args: &[&str]) -> (RunResult, String) {
    let mut all = vec!["crashtest", "--out", out.path().to_str().unwrap()];
    all.extend(args);
    let o = hakari(&all);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let r = hakari::results::store::read(&only_result(out.path())).unwrap();
    (r, stdout)
}

/// [`crashtest_into`] a fresh folder.
fn crashtest(args: &[&str]) -> (RunResult, String) {
    crashtest_into(&tempfile::tempdir().unwrap(), args)
}

/// Lost acknowledged commits, allowed at this level, and nothing corrupted.
fn assert_allowed_loss(m: &Measurement) {
    assert_eq!(
        m.config["verdict"],
        "lost acknowledged commits (allowed at this level)"
    );
    assert_eq!(m.config["corruptions"], 0);
}

#[test]
fn crash_test_keeps_sync_and_allows_nosync_losses() {
    let out = tempfile::tempdir().unwrap();
    let args = [
        "--engine",
        "sqlite,bdb",
        "--durability",
        "sync",
        "--rounds",
        "2",
        "--seed",
        "3",
    ];
    let (r, _) = crashtest_into(&out, &args);
    assert_eq!(r.measurements.len(), 2);
    for m in &r.measurements {
        assert_eq!(m.config["verdict"], "kept", "{} {}", m.engine, m.durability);
        assert_eq!(m.config["lost_total"], 0);
        assert!(
            m.config["acknowledged"].as_u64().unwrap() >= 200,
            "each round committed before the kill"
        );
    }
    let shown = hakari(&["show", only_result(out.path()).to_str().unwrap()]);
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("Crash test") && text.contains("kept"),
        "show prints the verdict table: {text}"
    );
    // Berkeley DB's nosync keeps the log in its buffer: a kill loses the newest commits.
    let (r, _) = crashtest(&["--engine", "bdb", "--durability", "nosync", "--rounds", "3"]);
    let m = &r.measurements[0];
    assert!(
        m.config["lost_total"].as_u64().unwrap() > 0,
        "losses detected: {:?}",
        m.config
    );
    assert_allowed_loss(m);
}

#[test]
fn crash_test_power_loss_keeps_sync_and_loses_write_nosync() {
    // scripts/setup.sh installs fuse3; a machine without the device cannot run this test, and
    // says so rather than passing without it.
    assert!(
        Path::new("/dev/fuse").exists(),
        "/dev/fuse does not exist: the power-loss crash test needs FUSE (fuse3, from scripts/setup.sh)"
    );
    let crash = "power loss (FUSE, unsynced data dropped)";
    let (r, stdout) = crashtest(&[
        "--engine",
        "sqlite,bdb",
        "--durability",
        "sync",
        "--power-loss",
        "--rounds",
        "2",
        "--seed",
        "5",
    ]);
    assert!(stdout.contains(crash));
    assert_eq!(r.parameters["crash"], crash);
    assert_eq!(r.measurements.len(), 2);
    for m in &r.measurements {
        assert_eq!(m.config["crash"], crash);
        assert_eq!(m.config["verdict"], "kept", "{} {}", m.engine, m.durability);
        assert_eq!(m.config["lost_total"], 0);
        assert_eq!(m.config["corruptions"], 0);
    }
    // Berkeley DB's write-nosync hands the log to the OS without a flush: a power cut loses the
    // newest commits (a process kill would not), and that is allowed at this level.
    let (r, _) = crashtest(&[
        "--engine",
        "bdb",
        "--durability",
        "write-nosync",
        "--power-loss",
        "--rounds",
        "3",
        "--seed",
        "5",
    ]);
    let m = &r.measurements[0];
    assert_eq!(m.config["crash"], crash);
    assert!(
        m.config["lost_total"].as_u64().unwrap() > 0,
        "a power cut loses unsynced commits: {:?}",
        m.config
    );
    assert_allowed_loss(m);
}

/// Servers: hakari's private server is killed with its whole process tree while a client
/// commits, and restarted on the same data directory.
#[test]
fn crash_test_fails_a_killed_primary_over_to_its_standby() {
    let (r, _) = crashtest(&[
        "--engine",
        "postgres",
        "--replicas",
        "1",
        "--kill",
        "primary",
        "--replica-ack",
        "async,remote-apply",
        "--rounds",
        "2",
        "--seed",
        "7",
    ]);
    assert_eq!(
        r.parameters["crash"],
        "primary killed (SIGKILL), the most advanced standby promoted"
    );
    assert_eq!(r.measurements.len(), 2);
    for m in &r.measurements {
        assert_eq!(m.config["corruptions"], 0, "{:?}", m.config);
        assert!(
            m.config["acknowledged"].as_u64().unwrap() >= 200,
            "each round committed before the kill: {:?}",
            m.config
        );
    }
    let waited = (r.measurements.iter())
        .find(|m| m.config["replication"] == "primary+1 standbys remote-apply (loopback cluster)")
        .expect("the remote-apply rounds");
    // Every acknowledged commit had been applied on the standby: none may be missing there.
    assert_eq!(waited.config["verdict"], "kept", "{:?}", waited.config);
    assert_eq!(waited.config["lost_total"], 0);
    let settings = &r
        .engines
        .iter()
        .find(|e| e.settings["topology"].contains("remote-apply"));
    assert_eq!(
        settings.expect("its engine record").settings["replication"],
        "applied on 1 of 1 standbys"
    );
}

#[test]
fn crash_test_kills_a_galera_node_and_finds_every_commit_on_another() {
    let (r, _) = crashtest(&[
        "--engine",
        "mysql",
        "--cluster",
        "galera:3",
        "--kill",
        "node",
        "--rounds",
        "1",
        "--seed",
        "5",
    ]);
    let m = &r.measurements[0];
    assert_eq!(
        m.config["crash"],
        "node 1 killed (SIGKILL), the commits read on node 2"
    );
    assert_eq!(m.config["verdict"], "kept", "{:?}", m.config);
    assert_eq!(m.config["lost_total"], 0);
    assert!(m.config["acknowledged"].as_u64().unwrap() >= 100);
    for bad in [
        &[
            "--engine",
            "mysql",
            "--cluster",
            "galera:3",
            "--kill",
            "primary",
        ][..],
        &["--engine", "postgres", "--replicas", "1", "--kill", "node"][..],
        &["--engine", "postgres", "--replicas", "1"][..],
    ] {
        let mut args = vec!["crashtest"];
        args.extend(bad);
        let o = hakari(&args);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", stderr(&o));
    }
}

#[test]
fn crash_test_of_servers_keeps_sync() {
    let (r, _) = crashtest(&[
        "--engine",
        "postgres,mysql",
        "--durability",
        "sync",
        "--rounds",
        "2",
        "--seed",
        "7",
    ]);
    assert_eq!(r.parameters["crash"], "process (SIGKILL)");
    assert_eq!(r.measurements.len(), 2);
    for m in &r.measurements {
        assert_eq!(m.config["verdict"], "kept", "{} {}", m.engine, m.durability);
        assert_eq!(m.config["lost_total"], 0);
        assert_eq!(m.config["corruptions"], 0);
        assert_eq!(m.config["rounds"], 2);
        assert!(
            m.config["acknowledged"].as_u64().unwrap() >= 200,
            "each round committed before the kill: {:?}",
            m.config
        );
    }
    let engines: Vec<&str> = r.engines.iter().map(|e| e.engine.as_str()).collect();
    assert_eq!(engines, ["postgres", "mysql"]);
    assert!(r.engines.iter().all(|e| e.version != "unknown"));
}

#[test]
fn crash_test_refuses_a_power_loss_under_a_server_and_a_foreign_server() {
    let out = tempfile::tempdir().unwrap();
    let o = hakari(&[
        "crashtest",
        "--engine",
        "postgres",
        "--power-loss",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("--power-loss does not take engine 'postgres'"),
        "{err}"
    );
    assert!(
        err.contains("a power loss (--power-loss): the embedded key-value engines (bdb, lmdb, rocksdb, sqlite)"),
        "{err}"
    );
    assert!(
        err.contains(
            "a process crash: those and the servers hakari starts privately (postgres, mysql)"
        ),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        result_files(out.path()).is_empty(),
        "refused before running"
    );
    let o = hakari(&[
        "crashtest",
        "--engine",
        "postgres",
        "--url",
        "postgres://hakari:secret@127.0.0.1:1/x",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("takes no --url"), "{err}");
    assert!(!err.contains("secret"), "{err}");
}

/// A Redis Cluster of 3 masters with a replica each: the master holding the keys is killed, the
/// cluster fails over on its own, and the keys are counted on the replica that took over.
/// Redis replicates asynchronously, so a loss is allowed; a hole would be corruption.
#[test]
fn crash_test_kills_a_redis_cluster_master_and_counts_on_its_replica() {
    let (r, _) = crashtest(&[
        "--engine",
        "redis",
        "--durability",
        "write-nosync",
        "--cluster",
        "redis:3",
        "--replicas",
        "1",
        "--kill",
        "node",
        "--rounds",
        "1",
        "--seed",
        "3",
    ]);
    let m = &r.measurements[0];
    assert!(
        m.config["crash"].as_str().unwrap().contains("failover"),
        "{:?}",
        m.config
    );
    assert_eq!(m.config["corruptions"], 0, "{:?}", m.config);
    assert_ne!(
        m.config["verdict"], "BROKEN PROMISE",
        "nothing was promised"
    );
    assert!(m.config["acknowledged"].as_u64().unwrap() >= 100);
    for (bad, says) in [
        (&["--engine", "redis"][..], "--cluster redis:N"),
        (
            &[
                "--engine",
                "redis",
                "--cluster",
                "redis:3",
                "--kill",
                "node",
            ][..],
            "--replicas 1",
        ),
    ] {
        let mut args = vec!["crashtest"];
        args.extend(bad);
        let o = hakari(&args);
        assert_ne!(o.status.code(), Some(0), "{bad:?}");
        assert!(stderr(&o).contains(says), "{bad:?}: {}", stderr(&o));
    }
}
