//! Behaviour over time through the real binary: the interval series and the warm-up, the
//! HdrHistogram interval log, the open loop against a stall hakari did not cause (a private
//! PostgreSQL server stopped with SIGSTOP), and bad timing flags.

mod common;

use common::{hakari, only_result, private_postgres, result_files, run_ok, stderr};
use hakari::results::Measurement;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The counted intervals sum to each run's totals, the warm-up intervals are marked and left
/// out, and the histograms of the interval log merge into exactly the step's latency.
#[test]
fn intervals_sum_to_the_totals_and_the_interval_log_merges_into_the_step() {
    let hlog = tempfile::tempdir().unwrap();
    let r = run_ok(&[
        "run",
        "tpcb",
        "--engine",
        "sqlite",
        "--durability",
        "none",
        "--clients",
        "2",
        "--runs",
        "1",
        "--duration",
        "1.5",
        "--warmup",
        "0.5",
        "--interval",
        "0.25",
        "--hlog",
        hlog.path().to_str().unwrap(),
    ]);
    assert_eq!(r.timing.as_ref().unwrap().warmup_s, 0.5);
    let m = &r.measurements[0];
    let run = &m.runs[0];
    let warm = run.intervals.iter().filter(|f| f.warmup).count();
    assert_eq!(
        warm, 2,
        "two warm-up intervals of 0.25 s: {:?}",
        run.intervals
    );
    let counted: u64 = run
        .intervals
        .iter()
        .filter(|f| !f.warmup)
        .map(|f| f.ops)
        .sum();
    assert_eq!(
        counted, run.ops,
        "the counted intervals sum to the run's total"
    );
    assert!(run.intervals.len() >= 6, "{:?}", run.intervals);
    assert!(
        (run.seconds - 1.0).abs() < 0.2,
        "counted from the warm-up's end: {}",
        run.seconds
    );

    // The interval log: one tag for the step's run, one for its warm-up.
    let log = std::fs::read(only_file(hlog.path())).unwrap();
    let mut merged: Histogram<u64> = Histogram::new(3).unwrap();
    let mut warmup_entries = 0;
    for entry in IntervalLogIterator::new(&log) {
        let LogEntry::Interval(h) = entry.unwrap() else {
            continue;
        };
        let tag = h.tag().map(|t| t.as_str().to_string()).unwrap_or_default();
        assert!(tag.starts_with("sqlite.none.tpcb.t2."), "{tag}");
        let decoded: Histogram<u64> = Deserializer::new()
            .deserialize(&mut base64_decode(h.encoded_histogram()).as_slice())
            .unwrap();
        if tag.ends_with(".warmup") {
            warmup_entries += 1;
        } else {
            merged.add(&decoded).unwrap();
        }
    }
    assert_eq!(warmup_entries, 2);
    let latency = m.latency.unwrap();
    assert_eq!(
        merged.len(),
        latency.count,
        "every counted transaction, once"
    );
    assert_eq!(
        merged.value_at_quantile(0.99) as f64 / 1000.0,
        latency.p99_us
    );
    assert_eq!(merged.max() as f64 / 1000.0, latency.max_us);
}

fn only_file(dir: &std::path::Path) -> std::path::PathBuf {
    let files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

/// The log's histograms are base64 text (the standard's encoding).
fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

/// A stall hakari did not cause: the private server's processes are stopped for one second
/// during a run at 200 transactions a second for 6 s. The 200 transactions scheduled during the
/// pause wait for it, their latencies from the intended start falling from 1 s towards 0; the
/// slowest 1% of 1,200 are the 12 scheduled in its first 60 ms, so p99 is near 1 s - 0.06 s and
/// the maximum near 1 s. Service time, what a closed loop reports, sees only the transactions
/// in flight when it began: its p99 stays small.
#[test]
fn a_stopped_server_shows_in_the_open_loops_percentiles_as_the_arithmetic_predicts() {
    let dir = tempfile::tempdir().unwrap();
    let (pg, port) = private_postgres(dir.path());
    let url = format!("postgresql://hakari@127.0.0.1:{port}/hakari");
    let out = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hakari"))
        .args([
            "run",
            "tpcb",
            "--engine",
            "postgres",
            "--url",
            &url,
            "--clients",
            "2",
        ])
        .args([
            "--rate",
            "200",
            "--duration",
            "6",
            "--interval",
            "0.5",
            "--runs",
            "1",
        ])
        .args(["--out", out.path().to_str().unwrap()])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // The first interval line says the timed step is running.
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let first_interval = line.contains("ops/s") && line.contains("p99");
        seen.push(line);
        if first_interval {
            break;
        }
    }
    let step_started = Instant::now() - Duration::from_millis(500);
    let postmaster = postmaster_pid(&pg.process.dir.join("pgdata"));
    std::thread::sleep(Duration::from_millis(1500).saturating_sub(step_started.elapsed()));
    let paused = Instant::now();
    signal_tree(postmaster, "STOP");
    std::thread::sleep(Duration::from_secs(1));
    signal_tree(postmaster, "CONT");
    let pause = paused.elapsed().as_secs_f64();
    let rest: Vec<String> = lines.map(|l| l.unwrap()).collect();
    let status = child.wait().unwrap();
    assert!(status.success(), "{}\n{}", seen.join("\n"), rest.join("\n"));

    let r = hakari::results::store::read(&only_result(out.path())).unwrap();
    let m: &Measurement = &r.measurements[0];
    let open = m.open_loop.as_ref().unwrap();
    let latency = m.latency.unwrap();
    let (p99, max) = (latency.p99_us / 1e6, latency.max_us / 1e6);
    let predicted_p99 = pause - 0.01 * 6.0;
    assert!(
        (pause - 0.05..pause + 0.4).contains(&max),
        "max {max:.3} s for a {pause:.3} s pause"
    );
    assert!(
        (predicted_p99 - 0.1..pause + 0.3).contains(&p99),
        "p99 {p99:.3} s, predicted {predicted_p99:.3} s"
    );
    let service_p99 = open.service.unwrap().p99_us / 1e6;
    eprintln!(
        "pause {pause:.3} s: p99 {p99:.3} s (predicted {predicted_p99:.3} s), max {max:.3} s, \
         service p99 {service_p99:.4} s"
    );
    assert!(service_p99 < 0.1 * pause, "service p99 {service_p99:.3} s");
    assert!(!open.behind, "200/s is well within a server's reach");
    // The series shows when: an interval whose p99 is most of the pause.
    let worst = m.runs[0]
        .intervals
        .iter()
        .map(|f| f.p99_us / 1e6)
        .fold(0.0, f64::max);
    assert!(worst > 0.5 * pause, "{:?}", m.runs[0].intervals);
}

fn postmaster_pid(data_dir: &std::path::Path) -> u32 {
    let text = std::fs::read_to_string(data_dir.join("postmaster.pid")).unwrap();
    text.lines().next().unwrap().trim().parse().unwrap()
}

/// Sends SIGSTOP or SIGCONT to the postmaster and its children.
fn signal_tree(pid: u32, signal: &str) {
    let parent = pid.to_string();
    let ok = Command::new("pkill")
        .args([&format!("-{signal}"), "-P", &parent])
        .status()
        .unwrap();
    assert!(ok.success(), "pkill -{signal}");
    let ok = Command::new("kill")
        .args([&format!("-{signal}"), &parent])
        .status()
        .unwrap();
    assert!(ok.success(), "kill -{signal}");
}

/// Flags that do not fit: one line, exit 2, no result file.
#[test]
fn bad_timing_flags_are_refused_with_exit_2() {
    let cases: [(&[&str], &str); 8] = [
        (&["run", "tpcb", "--rate", "0"], "not a rate above 0"),
        (&["run", "tpcb", "--rate", "100,-5"], "not a rate above 0"),
        (
            &["run", "tpcb", "--duration", "2", "--warmup", "2"],
            "not shorter than the step",
        ),
        (
            &["run", "tpcb", "--duration", "2", "--interval", "3"],
            "longer than the step",
        ),
        (&["run", "tpch", "--rate", "100"], "does not apply to tpch"),
        (
            &["run", "wisconsin", "--warmup", "1"],
            "does not apply to wisconsin",
        ),
        (&["run", "kv", "--arrival", "poisson"], "--rate"),
        (
            &[
                "run",
                "kv",
                "--batches",
                "100",
                "--rate",
                "100",
                "--warmup",
                "2",
            ],
            "not shorter than a step",
        ),
    ];
    for (args, expected) in cases {
        let out = tempfile::tempdir().unwrap();
        let mut all = args.to_vec();
        all.extend(["--out", out.path().to_str().unwrap()]);
        let o = hakari(&all);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(result_files(out.path()).is_empty(), "{args:?}");
    }
}
