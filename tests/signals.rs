//! A run stopped from outside (SIGTERM, as `timeout`, systemd and Kubernetes stop a process; or
//! SIGKILL, as the out-of-memory killer does) loses nothing it finished and leaves no server
//! and no directory behind, for every engine family with a private server and for a loopback
//! standby and Galera cluster.

mod common;

use common::stderr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// hakari started with `args` in the background, its data in `data` and results in `out`; its
/// stderr goes to a file the test reads.
fn start(args: &[&str], data: &Path, out: &Path) -> (Child, PathBuf) {
    let log = out.join("stderr.txt");
    let child = Command::new(env!("CARGO_BIN_EXE_hakari"))
        .args(["run"])
        .args(args)
        .args(["--runs", "1", "--data-dir", data.to_str().unwrap()])
        .args(["--out", out.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    (child, log)
}

/// Waits (up to 3 minutes) until the second configuration has started, and a little more.
fn wait_for_second_configuration(child: &mut Child, log: &Path) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(180) {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if text.contains("[2/2]") {
            std::thread::sleep(Duration::from_millis(1500));
            return;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("hakari ended ({status}) before its second configuration: {text}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!(
        "the second configuration did not start: {}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

/// Processes whose command line or working directory lies in `dir`.
fn processes_in(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
            .is_none()
        {
            continue;
        }
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let cwd = std::fs::read_link(entry.path().join("cwd")).unwrap_or_default();
        if cmdline.contains(&needle) || cwd.starts_with(dir) {
            found.push(format!(
                "{}: {cmdline}",
                entry.file_name().to_string_lossy()
            ));
        }
    }
    found
}

/// Waits up to `limit` until no process works in `data`; the ones left when it gives up.
fn no_process_within(data: &Path, limit: Duration) -> Vec<String> {
    let start = Instant::now();
    loop {
        let left = processes_in(data);
        if left.is_empty() || start.elapsed() > limit {
            return left;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn entries(dir: &Path) -> Vec<String> {
    (std::fs::read_dir(dir).unwrap().flatten())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// SIGTERM in the second configuration: exit 143, the result interrupted with the first
/// configuration's figures, no process and no directory left within 10 s.
fn sigterm_keeps_the_first_and_leaves_nothing(args: &[&str]) {
    let (data, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (mut child, log) = start(args, data.path(), out.path());
    wait_for_second_configuration(&mut child, &log);
    // SAFETY: signalling the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(status.code(), Some(143), "{args:?}: {text}");
    assert!(text.contains("interrupted by SIGTERM"), "{text}");
    let files: Vec<PathBuf> = common::result_files(out.path());
    assert_eq!(files.len(), 1, "{args:?}: {text}");
    let r = hakari::results::store::read(&files[0]).unwrap();
    assert_eq!(r.status, "interrupted", "{args:?}");
    assert!(r.writer.is_none(), "a finished file names no writer");
    let first = &r.engines[0].durability;
    assert!(
        !r.measurements.is_empty() && r.measurements.iter().all(|m| &m.durability == first),
        "{args:?}: the first configuration's figures, and only those: {:?}",
        r.measurements
            .iter()
            .map(|m| (&m.durability, &m.step))
            .collect::<Vec<_>>()
    );
    let left = no_process_within(data.path(), Duration::from_secs(10));
    assert!(left.is_empty(), "{args:?}: processes left: {left:?}");
    assert!(
        entries(data.path()).is_empty(),
        "{args:?}: left in the data directory: {:?}",
        entries(data.path())
    );
}

/// SIGKILL in the second configuration: the private servers die with hakari within 15 s; its
/// directory stays until the next hakari run in the same place removes it, saying so; `show`
/// says the run's process ended without finishing.
fn sigkill_leaves_no_server_and_the_next_run_cleans(args: &[&str]) {
    let (data, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (mut child, log) = start(args, data.path(), out.path());
    wait_for_second_configuration(&mut child, &log);
    child.kill().unwrap();
    child.wait().unwrap();
    let left = no_process_within(data.path(), Duration::from_secs(15));
    assert!(
        left.is_empty(),
        "{args:?}: servers outlived hakari: {left:?}"
    );
    let files = common::result_files(out.path());
    let show = common::hakari(&["show", files[0].to_str().unwrap()]);
    assert!(
        stderr(&show).contains("ended without finishing"),
        "{}",
        stderr(&show)
    );
    let next = common::hakari(&[
        "run",
        "kv",
        "--engine",
        "null",
        "--batches",
        "10",
        "--runs",
        "1",
        "--data-dir",
        data.path().to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(next.status.success(), "{}", stderr(&next));
    assert!(
        stderr(&next).contains("left by a hakari process that was killed"),
        "{}",
        stderr(&next)
    );
    assert!(
        entries(data.path()).is_empty(),
        "{:?}",
        entries(data.path())
    );
}

const TPCB: [&str; 6] = [
    "tpcb",
    "--accounts-per-branch",
    "1000",
    "--duration",
    "3",
    "--durability",
];

fn tpcb<'a>(engine: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = TPCB.to_vec();
    // Two levels every topology takes (nosync waits for no standby).
    args.extend(["sync,write-nosync", "--engine", engine]);
    args.extend(extra);
    args
}

fn ycsb(engine: &str) -> Vec<&str> {
    vec![
        "ycsb",
        "--engine",
        engine,
        "--workload",
        "a",
        "--records",
        "1000",
        "--duration",
        "3",
        "--threads",
        "1,2",
    ]
}

#[test]
fn sigterm_on_postgres() {
    sigterm_keeps_the_first_and_leaves_nothing(&tpcb("postgres", &[]));
}

#[test]
fn sigkill_on_postgres() {
    sigkill_leaves_no_server_and_the_next_run_cleans(&tpcb("postgres", &[]));
}

#[test]
fn sigterm_on_mariadb() {
    sigterm_keeps_the_first_and_leaves_nothing(&tpcb("mysql", &[]));
}

#[test]
fn sigkill_on_mariadb() {
    sigkill_leaves_no_server_and_the_next_run_cleans(&tpcb("mysql", &[]));
}

#[test]
fn sigterm_on_redis() {
    sigterm_keeps_the_first_and_leaves_nothing(&ycsb("redis"));
}

#[test]
fn sigkill_on_redis() {
    sigkill_leaves_no_server_and_the_next_run_cleans(&ycsb("redis"));
}

#[test]
fn sigterm_on_memcached() {
    sigterm_keeps_the_first_and_leaves_nothing(&ycsb("memcached"));
}

#[test]
fn sigkill_on_memcached() {
    sigkill_leaves_no_server_and_the_next_run_cleans(&ycsb("memcached"));
}

#[test]
fn sigterm_on_a_standby_cluster() {
    sigterm_keeps_the_first_and_leaves_nothing(&tpcb("postgres", &["--replicas", "1"]));
}

#[test]
fn sigkill_on_a_standby_cluster() {
    sigkill_leaves_no_server_and_the_next_run_cleans(&tpcb("postgres", &["--replicas", "1"]));
}

#[test]
fn sigterm_on_a_galera_cluster() {
    sigterm_keeps_the_first_and_leaves_nothing(&tpcb("mysql", &["--cluster", "galera:3"]));
}

#[test]
fn sigkill_on_a_galera_cluster() {
    sigkill_leaves_no_server_and_the_next_run_cleans(&tpcb("mysql", &["--cluster", "galera:3"]));
}

/// A second SIGTERM right after the first: hakari quits at once, still stopping its servers,
/// removing its directories and leaving the result file marked interrupted.
#[test]
fn a_second_sigterm_quits_at_once_and_still_leaves_nothing() {
    let (data, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let args = tpcb("postgres", &[]);
    let (mut child, log) = start(&args, data.path(), out.path());
    wait_for_second_configuration(&mut child, &log);
    // Apart enough to be two deliveries (two pending SIGTERMs would merge into one), close
    // enough that the first has not finished its clean way out (stopping a server takes longer).
    for _ in 0..2 {
        // SAFETY: signalling the child this test started.
        unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = child.wait().unwrap();
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(status.code(), Some(143), "{text}");
    assert!(text.contains("quitting now"), "{text}");
    let left = no_process_within(data.path(), Duration::from_secs(10));
    assert!(left.is_empty(), "processes left: {left:?}");
    assert!(
        entries(data.path()).is_empty(),
        "{:?}",
        entries(data.path())
    );
    let r = hakari::results::store::read(&common::result_files(out.path())[0]).unwrap();
    assert_eq!(r.status, "interrupted");
}

/// SIGTERM while tpcc loads 8 warehouses: the load stops between warehouses (within seconds),
/// not at its end (a quarter of a minute on), and nothing is left.
#[test]
fn sigterm_stops_a_tpcc_load_between_warehouses() {
    let (data, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let args = [
        "tpcc",
        "--engine",
        "postgres",
        "--warehouses",
        "8",
        "--clients",
        "2",
    ];
    let (mut child, log) = start(&args, data.path(), out.path());
    let begun = Instant::now();
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("[1/1]")
    {
        assert!(begun.elapsed() < Duration::from_secs(60), "no start");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_secs(3));
    // SAFETY: signalling the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let signalled = Instant::now();
    let status = child.wait().unwrap();
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(status.code(), Some(143), "{text}");
    assert!(
        !text.contains("adding keys"),
        "the load ran to its end: {text}"
    );
    let took = signalled.elapsed();
    assert!(
        took < Duration::from_secs(10),
        "stopped {took:?} after the signal: {text}"
    );
    let left = no_process_within(data.path(), Duration::from_secs(10));
    assert!(left.is_empty(), "processes left: {left:?}");
}
