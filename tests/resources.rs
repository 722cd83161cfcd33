//! What a run cost the client and the server: hakari's readings held against measures the test
//! takes itself, outside hakari (its own sampling of the server's processes in /proc), against
//! the server's own transaction count, and the verdict on what bound a step.

mod common;

use common::{run_ok, stderr};
use std::collections::HashMap;
use std::process::Command;
use std::time::{Duration, SystemTime};

/// A process as /proc shows it: its parent, its name, its CPU time (user + system, its reaped
/// children's included) and the part of that its reaped children spent, in clock ticks.
struct Process {
    ppid: i32,
    name: String,
    cpu: f64,
    reaped: f64,
}

/// One process from /proc.
fn process(pid: i32) -> Option<Process> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (open, close) = (stat.find('(')?, stat.rfind(')')?);
    let f: Vec<&str> = stat[close + 2..].split(' ').collect();
    // After the name: state, ppid, ..., utime (14th field of the line), stime, cutime, cstime.
    let num = |field: usize| f[field - 3].parse::<f64>().unwrap_or(0.0);
    Some(Process {
        ppid: num(4) as i32,
        name: stat[open + 1..close].to_string(),
        cpu: num(14) + num(15) + num(16) + num(17),
        reaped: num(16) + num(17),
    })
}

/// Every process.
fn processes() -> HashMap<i32, Process> {
    let pids = std::fs::read_dir("/proc").unwrap().flatten();
    pids.filter_map(|e| e.file_name().to_string_lossy().parse::<i32>().ok())
        .filter_map(|pid| Some((pid, process(pid)?)))
        .collect()
}

/// The CPU seconds of every process below `root` whose tree holds a `postgres` process that is
/// a child of `root` (the private server hakari started), with `root` itself left out. Read as
/// at one instant: a backend that ends and is reaped while /proc is read moves its time into
/// the postmaster's reaped children's, and caught between the two it counts in neither (the
/// clients' backends end together as the step ends: a reading there once fell short by about
/// what four of them had spent) or, read before the postmaster (its number lower, once the
/// machine's process numbers have wrapped) and reaped before the postmaster is read, in both.
/// So /proc is read again until no postmaster's reaped children's time changed between just
/// before the read and just after it.
fn server_cpu(root: i32, tick: f64) -> f64 {
    let leaders = |all: &HashMap<i32, Process>| -> Vec<i32> {
        let mut pids: Vec<i32> = (all.iter())
            .filter(|(_, p)| p.ppid == root && p.name == "postgres")
            .map(|(pid, _)| *pid)
            .collect();
        pids.sort();
        pids
    };
    let reaped = |pids: &[i32]| -> Vec<Option<f64>> {
        pids.iter()
            .map(|pid| process(*pid).map(|p| p.reaped))
            .collect()
    };
    let mut all = processes();
    for _ in 0..10 {
        let before = reaped(&leaders(&all));
        all = processes();
        let pids = leaders(&all);
        if before.len() == pids.len() && reaped(&pids) == before {
            break;
        }
    }
    let mut tree = leaders(&all);
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            all.iter()
                .filter(|(_, p)| p.ppid == parent)
                .map(|(pid, _)| *pid),
        );
        i += 1;
    }
    tree.iter()
        .filter_map(|pid| all.get(pid))
        .map(|p| p.cpu / tick)
        .sum()
}

/// These tests measure CPU: run one at a time, so that none takes another's cores.
static ALONE: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn alone() -> std::sync::MutexGuard<'static, ()> {
    ALONE.lock().unwrap_or_else(|e| e.into_inner())
}

fn unix(t: SystemTime) -> f64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// The test's own reading at `at`, interpolated between its samples.
fn at(samples: &[(f64, f64)], at: f64) -> f64 {
    let i = samples
        .partition_point(|(t, _)| *t < at)
        .clamp(1, samples.len() - 1);
    let ((t0, v0), (t1, v1)) = (samples[i - 1], samples[i]);
    v0 + (v1 - v0) * ((at - t0) / (t1 - t0)).clamp(0.0, 1.0)
}

#[test]
fn tpcb_on_a_private_postgres_costs_what_the_server_says() {
    let _alone = alone();
    let out = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hakari"))
        .args([
            "run",
            "tpcb",
            "--engine",
            "postgres",
            "--durability",
            "nosync",
            "--clients",
            "4",
            "--duration",
            "4",
            "--scale",
            "2",
            "--accounts-per-branch",
            "1000",
            "--out",
        ])
        .arg(out.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // SAFETY: sysconf has no preconditions.
    let tick = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let mut samples: Vec<(f64, f64)> = Vec::new();
    while child.try_wait().unwrap().is_none() {
        let cpu = server_cpu(child.id() as i32, tick);
        samples.push((unix(SystemTime::now()), cpu));
        std::thread::sleep(Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let r = hakari::results::store::read(&common::only_result(out.path())).unwrap();
    let m = &r.measurements.iter().find(|m| m.step == "tpcb").unwrap();
    let run = &m.runs[0];

    // Server CPU over the step, hakari's against the test's own sampling of the same processes.
    let start = run.started_unix_s.unwrap();
    let theirs = at(&samples, start + run.seconds) - at(&samples, start);
    let ours = run.usage["server.cpu_user_s"] + run.usage["server.cpu_system_s"];
    assert!(
        theirs > 0.2,
        "the server was busy: {theirs} s ({} samples)",
        samples.len()
    );
    let gap = (samples.windows(2))
        .filter(|w| w[1].0 >= start && w[0].0 <= start + run.seconds)
        .map(|w| w[1].0 - w[0].0)
        .fold(0.0, f64::max);
    // Where the test's own readings fell back (they should not: see `server_cpu`).
    let falls: Vec<String> = (samples.windows(2))
        .filter(|w| w[1].1 < w[0].1)
        .map(|w| format!("{:.3} s at {:+.3} s", w[0].1 - w[1].1, w[1].0 - start))
        .collect();
    // The test's samples about the step's start and end, for a failure to say where it parted.
    let near = |at: f64| -> Vec<String> {
        (samples.iter())
            .filter(|(t, _)| (t - at).abs() < 0.15)
            .map(|(t, v)| format!("{:+.3} s: {v:.3}", t - start))
            .collect()
    };
    assert!(
        (ours - theirs).abs() <= 0.1 * theirs,
        "server CPU: hakari {ours:.3} s, the test's sampling {theirs:.3} s over {:.3} s \
         (its longest gap between samples {gap:.3} s; its readings fell back: {falls:?}; \
         about the start {:?}, about the end {:?})",
        run.seconds,
        near(start),
        near(start + run.seconds)
    );
    // Per operation: over every run of the step.
    let cpu: f64 = (m.runs.iter())
        .map(|r| r.usage["server.cpu_user_s"] + r.usage["server.cpu_system_s"])
        .sum();
    let ops: u64 = m.runs.iter().map(|r| r.ops).sum();
    let per_op = m.figure("server.cpu_us_per_op").unwrap();
    assert!((per_op - cpu * 1e6 / ops as f64).abs() < 1e-6 * per_op.max(1.0));

    // Every tpcb transaction writes, so it takes a transaction id: the server's count of them
    // over the step is hakari's count of transactions, give or take those in flight when the
    // first reading was taken (the workers were released just before it), and retries.
    let xids = run.usage["postgres.xids"];
    let ops = run.ops as f64;
    assert!(
        xids >= ops - 4.0 && xids <= ops + m.retries as f64 + 4.0,
        "the server assigned {xids} transaction ids; hakari counted {ops} transactions"
    );
    // WAL: written by every transaction; per operation from the server's insert position.
    let wal = m.figure("postgres.wal_bytes_per_op").unwrap();
    assert!(
        (50.0..100_000.0).contains(&wal),
        "WAL per transaction: {wal} bytes"
    );
    assert!(m.figure("client.cpu_us_per_op").unwrap() > 0.0);
    // The series: one entry per interval boundary, on the step's own clock.
    assert!(run.resources.len() >= 3, "{:?}", run.resources.len());
    assert!(run
        .resources
        .iter()
        .all(|i| i.rates.contains_key("server.cpu_user_s")));
    // What the terminal shows: the cost table, from the result file.
    let shown = Command::new(env!("CARGO_BIN_EXE_hakari"))
        .args(["show"])
        .arg(common::only_result(out.path()))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains("Cost per operation"), "{text}");
    assert!(
        text.contains("server CPU/op") && text.contains("WAL/op"),
        "{text}"
    );
}

#[test]
fn a_client_pinned_to_one_core_is_the_limit_and_is_said_to_be() {
    let _alone = alone();
    let out = tempfile::tempdir().unwrap();
    // The null engine does nothing: the harness itself is all the work, on the one core it may
    // use.
    let o = Command::new("taskset")
        .args(["-c", "0"])
        .arg(env!("CARGO_BIN_EXE_hakari"))
        .args([
            "run",
            "kv",
            "--engine",
            "null",
            "--durability",
            "none",
            "--threads",
            "2",
            "--batches",
            "2000",
            "--batch-size",
            "1000000",
            "--runs",
            "1",
            "--out",
        ])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let r = hakari::results::store::read(&common::only_result(out.path())).unwrap();
    let insert = r.measurements.iter().find(|m| m.step == "insert").unwrap();
    let cores = insert.figure("client.cpu_cores").unwrap();
    // Long enough to be judged (CPU time comes in clock ticks).
    assert!(insert.seconds_mean >= 1.0, "{} s", insert.seconds_mean);
    assert!(
        insert.verdicts.iter().any(|v| v.kind == "client-bound"),
        "client CPU {cores:.2} cores, verdicts {:?}",
        insert.verdicts
    );
    assert!(stderr(&o).contains("client-bound"), "{}", stderr(&o));
}

#[test]
fn a_run_bound_by_its_server_is_not_called_client_bound() {
    let _alone = alone();
    let r = run_ok(&[
        "run",
        "tpcb",
        "--engine",
        "postgres",
        "--durability",
        "sync",
        "--clients",
        "1",
        "--duration",
        "2",
        "--scale",
        "1",
        "--accounts-per-branch",
        "1000",
    ]);
    let m = r.measurements.iter().find(|m| m.step == "tpcb").unwrap();
    assert!(m.figure("client.cpu_cores").is_some());
    assert!(
        !m.verdicts.iter().any(|v| v.kind == "client-bound"),
        "{:?} (client {:?} cores, server {:?})",
        m.verdicts,
        m.figure("client.cpu_cores"),
        m.figure("server.cpu_cores")
    );
    // Each commit waits for its flush: the device or the WAL's syncs show them.
    assert!(
        m.figure("postgres.wal_syncs_per_op").unwrap_or(0.0) > 0.5,
        "{:?}",
        m.figures
    );
}

/// hakari's readings of its own process count every thread: over a step that is most of the
/// process's life, its CPU and context switches come near what the kernel gives the test for
/// the whole process when reaping it (getrusage's counts, every thread's). /proc/PID/status,
/// read before, counts the main thread's switches alone: a few dozen a second, where the
/// clients' threads switch thousands of times.
#[test]
fn the_clients_cost_counts_every_thread() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = common::private_postgres(dir.path());
    let port = port.to_string();
    let conn = ["-h", "127.0.0.1", "-p", &port, "-U", "hakari", "hakari"];
    let init = common::hakari(&[&["pgbench", "-i", "-q"][..], &conn].concat());
    assert!(init.status.success(), "{}", stderr(&init));
    let out = dir.path().join("out");
    let said = std::fs::File::create(dir.path().join("said")).unwrap();
    // Reaped by wait4 below, which gives its usage.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(env!("CARGO_BIN_EXE_hakari"))
        .args([
            "pgbench", "-c", "4", "-j", "2", "-T", "3", "-M", "prepared", "--out",
        ])
        .arg(&out)
        .args(conn)
        .stdout(said.try_clone().unwrap())
        .stderr(said)
        .spawn()
        .unwrap();
    let (mut status, mut usage) = (0, std::mem::MaybeUninit::<libc::rusage>::zeroed());
    // SAFETY: the child is ours and not yet waited for; wait4 fills both.
    let reaped = unsafe { libc::wait4(child.id() as i32, &mut status, 0, usage.as_mut_ptr()) };
    assert_eq!(reaped, child.id() as i32);
    let said = std::fs::read_to_string(dir.path().join("said")).unwrap();
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{said}"
    );
    // SAFETY: filled by wait4.
    let usage = unsafe { usage.assume_init() };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    let (their_cpu, their_switches) = (
        seconds(usage.ru_utime) + seconds(usage.ru_stime),
        (usage.ru_nvcsw + usage.ru_nivcsw) as f64,
    );
    let r = hakari::results::store::read(&common::only_result(&out)).unwrap();
    let run = &r.measurements[0].runs[0];
    let our_cpu = run.usage["client.cpu_user_s"] + run.usage["client.cpu_system_s"];
    let our_switches = run.usage["client.context_switches"];
    assert!(
        their_switches > 1000.0,
        "the clients waited on the server: {their_switches} switches"
    );
    assert!(
        our_switches <= their_switches && our_switches >= 0.5 * their_switches,
        "context switches over the {:.1}-s step: hakari {our_switches}, the whole process \
         {their_switches}",
        run.seconds
    );
    // The CPU of starting and ending (about 0.1 s) weighs more when a busy machine slows the
    // step; its switches are few beside the step's.
    assert!(
        our_cpu <= their_cpu + 0.01 && our_cpu >= 0.25 * their_cpu,
        "CPU over the {:.1}-s step: hakari {our_cpu:.3} s, the whole process {their_cpu:.3} s",
        run.seconds
    );
}

#[test]
fn no_resources_reads_nothing() {
    let _alone = alone();
    for off in [true, false] {
        let mut args = vec![
            "run",
            "kv",
            "--engine",
            "sqlite",
            "--durability",
            "none",
            "--batches",
            "2",
            "--batch-size",
            "200",
        ];
        if off {
            args.push("--no-resources");
        }
        let r = run_ok(&args);
        for m in &r.measurements {
            assert_eq!(m.figures.is_empty(), off, "{:?}", m.figures);
            assert_eq!(m.runs[0].usage.is_empty(), off);
        }
    }
}

#[test]
fn tpcc_on_a_private_mariadb_gives_redo_fsyncs_and_lock_waits_per_new_order() {
    let _alone = alone();
    // Four terminals on one warehouse contend for its ten districts' rows: lock waits.
    let r = run_ok(&[
        "run",
        "tpcc",
        "--engine",
        "mysql",
        "--durability",
        "sync",
        "--warehouses",
        "1",
        "--clients",
        "4",
        "--duration",
        "4",
        "--ramp-up",
        "1",
    ]);
    let m = r
        .measurements
        .iter()
        .find(|m| m.step == "new-order")
        .unwrap();
    let redo = m.figure("mysql.redo_bytes_per_op").unwrap();
    let fsyncs = m.figure("mysql.data_fsyncs_per_op").unwrap();
    assert!(redo > 100.0, "redo per New-Order: {redo} bytes");
    assert!(fsyncs > 0.0, "data fsyncs per New-Order: {fsyncs}");
    assert!(
        m.figure("mysql.row_lock_waits").is_some(),
        "{:?}",
        m.figures
    );
    // The server's own count of commits covers at least the New-Orders hakari counted.
    let commits = m.figure("mysql.commits").unwrap();
    let new_orders: u64 = m.runs.iter().map(|r| r.ops).sum();
    assert!(
        commits >= new_orders as f64,
        "{commits} commits, {new_orders} New-Orders"
    );
}

#[test]
fn the_openmetrics_export_loads_into_prometheus() {
    let _alone = alone();
    let out = tempfile::tempdir().unwrap();
    let o = common::hakari(&[
        "run",
        "tpcb",
        "--engine",
        "sqlite",
        "--clients",
        "2",
        "--duration",
        "2.5",
        "--interval",
        "0.5",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let file = out.path().join("run.om");
    let o = common::hakari(&[
        "export",
        "--format",
        "openmetrics",
        "-o",
        file.to_str().unwrap(),
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.ends_with("# EOF\n"));
    assert!(
        text.contains("hakari_resource_rate{") && text.contains("reading=\"client.cpu_user_s\"")
    );
    let blocks = out.path().join("tsdb");
    let o = Command::new("promtool")
        .args(["tsdb", "create-blocks-from", "openmetrics"])
        .arg(&file)
        .arg(&blocks)
        .output()
        .expect("promtool (scripts/setup.sh --with-test-tools installs it)");
    assert!(
        o.status.success(),
        "promtool refused the export: {}{}",
        String::from_utf8_lossy(&o.stdout),
        stderr(&o)
    );
    // A block was written, holding the samples.
    let made = std::fs::read_dir(&blocks)
        .unwrap()
        .flatten()
        .any(|e| e.path().join("meta.json").exists());
    assert!(made, "no block in {}", blocks.display());
}

/// The embedded engines' own statistics: RocksDB's WAL, compaction and the device's bytes per
/// byte the user wrote (its statistics object, with --engine-statistics); Berkeley DB's log;
/// LMDB's transaction ids. Each log holds at least every record's key and value, so the bytes
/// per insert are at least their sizes; LMDB commits one write transaction per batch.
#[test]
fn embedded_engines_count_their_logs_compactions_and_commits() {
    let _alone = alone();
    // Without the flag RocksDB's statistics object stays off (it costs fetches 3-4%), and the
    // run says which figures that leaves out.
    let plain = run_ok(&["run", "kv", "--engine", "rocksdb", "--batches", "1000"]);
    for m in &plain.measurements {
        let own: Vec<_> = (m.figures.iter())
            .filter(|f| f.name.starts_with("rocksdb."))
            .collect();
        assert!(
            own.is_empty(),
            "{} without --engine-statistics: {own:?}",
            m.step
        );
        assert!(
            m.figure("client.cpu_us_per_op").is_some(),
            "{:?}",
            m.figures
        );
    }
    assert!(
        (plain.notes.iter()).any(|n| n.contains("--engine-statistics")),
        "{:?}",
        plain.notes
    );
    // 100,000 records of 64 + 100 bytes through 64 KiB memtables: hundreds of flushes, and
    // compactions of the files they leave.
    let r = run_ok(&[
        "run",
        "kv",
        "--engine",
        "rocksdb,bdb,lmdb",
        "--durability",
        "write-nosync",
        "--batches",
        "10000",
        "--value-size",
        "100",
        "--log-buffer",
        "64K",
        "--runs",
        "1",
        "--engine-statistics",
    ]);
    let insert = |engine: &str| {
        (r.measurements.iter())
            .find(|m| m.engine == engine && m.step == "insert")
            .unwrap()
    };
    let rocks = insert("rocksdb");
    let wal = rocks.figure("rocksdb.wal_bytes_per_op").unwrap();
    assert!(wal >= 164.0, "RocksDB's WAL per insert: {wal} bytes");
    assert!(
        rocks.figure("rocksdb.write_amplification").is_some(),
        "{:?}",
        rocks.figures
    );
    let compacted: f64 = (r.measurements.iter())
        .filter(|m| m.engine == "rocksdb")
        .filter_map(|m| m.figure("rocksdb.compaction_bytes"))
        .sum();
    assert!(compacted > 0.0, "no compaction was counted");
    let log = insert("bdb").figure("bdb.log_bytes_per_op").unwrap();
    assert!(log >= 164.0, "Berkeley DB's log per insert: {log} bytes");
    assert_eq!(insert("lmdb").figure("lmdb.commits"), Some(10_000.0));
}

/// Redis's INFO and memcached's stats: their CPU per operation, and the session store's reads
/// of sessions that are all there hit every time. The session view prints the client's user +
/// system seconds per step, as the session-store test printed them.
#[test]
fn redis_and_memcached_give_their_cpu_and_hits() {
    let _alone = alone();
    let out = tempfile::tempdir().unwrap();
    let o = common::hakari(&[
        "run",
        "session",
        "--engine",
        "redis,memcached",
        "--sizes",
        "1K",
        "--layout",
        "blob",
        "--compress",
        "none",
        "--sessions",
        "300",
        "--reads",
        "3000",
        "--runs",
        "1",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("the client's CPU, user + system seconds per step"),
        "{stdout}"
    );
    let r = hakari::results::store::read(&common::only_result(out.path())).unwrap();
    for engine in ["redis", "memcached"] {
        let read = (r.measurements.iter())
            .find(|m| m.engine == engine && m.step == "read")
            .unwrap();
        let cpu = read.figure(&format!("{engine}.cpu_us_per_op"));
        assert!(cpu.is_some_and(|c| c > 0.0), "{engine}: {:?}", read.figures);
        let hits = read.figure(&format!("{engine}.hit_ratio"));
        assert_eq!(hits, Some(1.0), "{engine}: {:?}", read.figures);
    }
}

/// Steps timed as a whole are read as they start and end: a TPC-H load's tables, each query of
/// the power test, the throughput test's Ts; the throughput test's own queries, which run
/// together, are not.
#[test]
fn steps_timed_as_a_whole_are_read_at_their_start_and_end() {
    let _alone = alone();
    let r = run_ok(&["run", "tpch", "--engine", "postgres", "--sf", "0.01"]);
    let find = |step: &str, test: &str| {
        (r.measurements.iter())
            .find(|m| m.step == step && m.config["test"] == test)
            .unwrap_or_else(|| panic!("no {test} {step}"))
    };
    let load = find("load lineitem", "load");
    assert!(load.figure("server.cpu_s").is_some(), "{:?}", load.figures);
    let xids = load.figure("postgres.write_transactions").unwrap();
    assert!(xids >= 1.0, "the load's transaction: {xids}");
    assert!(find("Q1", "power").figure("server.cpu_s").is_some());
    assert!(find("Ts", "throughput").figure("server.cpu_s").is_some());
    let together = find("Q1", "throughput");
    assert!(together.figures.is_empty(), "{:?}", together.figures);
}

/// A MariaDB with performance_schema on gives its wait time by event as a profile; hakari's own
/// private servers run with it off (its default), where the profile is absent.
#[test]
fn mariadb_with_performance_schema_gives_its_wait_profile() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let server_dir = dir.path().join("my");
    std::fs::create_dir(&server_dir).unwrap();
    let options = hakari::server::ServerOptions {
        clients: 4,
        ..hakari::server::ServerOptions::at(hakari::durability::Durability::Sync)
    };
    let extra = ["--performance-schema=ON".to_string()];
    let server =
        hakari::server::mariadb::start_with(&server_dir, &options, dir.path(), &extra).unwrap();
    let r = run_ok(&[
        "run",
        "tpcb",
        "--engine",
        "mysql",
        "--url",
        &server.url,
        "--durability",
        "sync",
        "--clients",
        "4",
        "--duration",
        "2",
        "--runs",
        "1",
    ]);
    let m = r.measurements.iter().find(|m| m.step == "tpcb").unwrap();
    let waits: Vec<&hakari::results::figures::Figure> = (m.figures.iter())
        .filter(|f| f.name.starts_with("mysql.wait."))
        .collect();
    assert!(!waits.is_empty(), "{:?}", m.figures);
    let total: f64 = waits.iter().map(|f| f.value).sum();
    assert!(
        (total - 1.0).abs() < 1e-9,
        "the shares add up to 1: {total}"
    );
}
