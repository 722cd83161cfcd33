//! hakari in shell pipelines and CI: quiet on a closed pipe, errors as sentences, limits checked
//! before a run, machine-readable output, the regression gate and run requirements.

use hakari::results::{store, RunResult};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
mod common;
use common::{hakari, result_files, stderr};

const BIN: &str = env!("CARGO_BIN_EXE_hakari");

/// A small real run of the kv workload on the null engine; returns its result file.
fn null_run(out: &Path, extra: &[&str]) -> (Output, Option<PathBuf>) {
    let before = result_files(out);
    let mut args = vec![
        "run",
        "kv",
        "--engine",
        "null",
        "--batches",
        "200",
        "--runs",
        "3",
        "--out",
    ];
    args.push(out.to_str().unwrap());
    args.extend_from_slice(extra);
    let o = hakari(&args);
    let file = result_files(out).into_iter().find(|f| !before.contains(f));
    (o, file)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs hakari with RUST_BACKTRACE=1, as developers' shells often have it.
fn hakari_bt_to(args: &[&str], stdout: Stdio) -> Output {
    Command::new(BIN)
        .args(args)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap()
}

fn hakari_bt(args: &[&str]) -> Output {
    hakari_bt_to(args, Stdio::piped())
}

/// Runs hakari with stdout a pipe whose reader is already gone.
fn with_closed_stdout(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    hakari_bt_to(args, writer.into())
}

#[test]
fn a_closed_pipe_ends_every_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let (o, file) = null_run(&out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let file = file.unwrap();
    let f = file.to_str().unwrap();
    let html = dir.path().join("r.html");
    let csv = dir.path().join("all.csv");
    let out_s = out.to_str().unwrap().to_string();
    let lists: Vec<Vec<&str>> = vec![
        vec!["engines"],
        vec!["engines", "--format", "json"],
        vec!["engines", "--format", "csv"],
        vec!["show", f],
        vec!["show", f, "--format", "csv"],
        vec!["compare", f, f],
        vec!["compare", f, f, "--format", "json"],
        vec!["export", &out_s],
        vec!["completions", "bash"],
        vec!["man"],
        vec!["--help"],
        vec!["run", "kv", "--help"],
        vec!["report", f, "-o", html.to_str().unwrap()],
        vec![
            "probe",
            "fsync",
            "--seconds",
            "0.05",
            "--data-dir",
            dir.path().to_str().unwrap(),
        ],
    ];
    for args in &lists {
        let o = with_closed_stdout(args);
        let err = stderr(&o);
        assert!(o.status.success(), "{args:?}: {:?} {err}", o.status);
        // `report` says where it wrote on stdout only; nothing else may reach stderr.
        assert!(err.is_empty(), "{args:?} printed on stderr: {err}");
    }
    // A whole run and a crash test still finish, write their result files and exit 0; stderr
    // has only their progress.
    let runs: [&[&str]; 2] = [
        &[
            "run",
            "kv",
            "--engine",
            "null",
            "--batches",
            "50",
            "--runs",
            "1",
            "--out",
            &out_s,
        ],
        &[
            "crashtest",
            "--engine",
            "sqlite",
            "--durability",
            "sync",
            "--rounds",
            "1",
            "--out",
            &out_s,
        ],
    ];
    for args in runs {
        let o = with_closed_stdout(args);
        let err = stderr(&o);
        assert!(o.status.success(), "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{err}"
        );
    }
    assert_eq!(
        result_files(&out).len(),
        3,
        "the run and the crash test wrote their results"
    );
    let o = with_closed_stdout(&["export", &out_s, "-o", csv.to_str().unwrap()]);
    assert!(o.status.success());
    assert!(csv.exists());
}

/// Errors a user can cause: one line, no debug dump (`{`), no panic, no backtrace.
fn assert_sentence(o: &Output, code: i32, expect: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "{err}");
    assert!(err.contains(expect), "expected '{expect}' in: {err}");
    assert!(
        !err.contains('{') && !err.contains('}'),
        "a debug dump: {err}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("stack backtrace"),
        "{err}"
    );
}

#[test]
fn errors_a_user_can_cause_read_as_sentences() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let o_s = out.to_str().unwrap();
    // A wrong MariaDB password, on a real server.
    let server_dir = dir.path().join("my");
    std::fs::create_dir(&server_dir).unwrap();
    let _my = common::private(&hakari::server::mariadb::PRIVATE, &server_dir, dir.path());
    let socket = hakari::server::mariadb::socket(&server_dir);
    {
        use mysql::prelude::Queryable;
        let mut c = mysql::Conn::new(hakari::server::mariadb::socket_opts(&socket, None)).unwrap();
        c.query_drop("CREATE DATABASE bench").unwrap();
        c.query_drop("CREATE USER 'bench'@'localhost' IDENTIFIED BY 'right'")
            .unwrap();
        c.query_drop("GRANT ALL ON bench.* TO 'bench'@'localhost'")
            .unwrap();
    }
    let url = format!(
        "mysql://bench:wrongpass@localhost/bench?socket={}",
        socket.display()
    );
    let o = hakari_bt(&[
        "run", "tpcb", "--engine", "mysql", "--url", &url, "--out", o_s,
    ]);
    assert_sentence(&o, 1, "Access denied");
    assert!(!stderr(&o).contains("MySqlError") && !stderr(&o).contains("wrongpass"));
    assert!(
        result_files(&out).is_empty(),
        "no result file from a run that never started"
    );

    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{ not json").unwrap();
    let missing = dir.path().join("missing.json");
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (
            vec!["run", "kv", "--engine", "nosuch"],
            1,
            "unknown engine 'nosuch'",
        ),
        (
            vec!["run", "kv", "--engine", "lmdb", "--durability", "nosync"],
            1,
            "does not offer",
        ),
        (vec!["show", bad.to_str().unwrap()], 1, "bad.json"),
        (vec!["show", missing.to_str().unwrap()], 1, "missing.json"),
        (
            vec!["compare", missing.to_str().unwrap(), bad.to_str().unwrap()],
            1,
            "missing.json",
        ),
        (
            vec!["run", "kv", "--require", "ops>=fast"],
            2,
            "not a number",
        ),
        (vec!["run", "kv", "--require", "p99<=5"], 2, "unit"),
        (
            vec!["compare", "a", "b", "--fail-if-worse", "5"],
            2,
            "percentage",
        ),
        (vec!["engines", "--format", "xml"], 2, "xml"),
        (vec!["export", missing.to_str().unwrap()], 1, "missing.json"),
    ];
    for (args, code, expect) in cases {
        let o = hakari_bt(&args);
        if code == 2 {
            // clap's usage errors show the usage line, whose placeholders are in <...>.
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
            assert!(stderr(&o).contains(expect), "{args:?}: {}", stderr(&o));
            assert!(!stderr(&o).contains("panicked"));
        } else {
            assert_sentence(&o, code, expect);
        }
    }
}

#[test]
fn an_engines_declared_limit_is_checked_before_anything_runs() {
    let out = tempfile::tempdir().unwrap();
    let o = hakari(&[
        "run",
        "kv",
        "--engine",
        "lmdb",
        "--key-size",
        "100000",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("engine 'lmdb' takes keys of at most 511 bytes, not 100000"),
        "{err}"
    );
    assert!(!err.contains("[1/"), "nothing started: {err}");
    assert!(result_files(out.path()).is_empty());
    // At the limit it runs.
    let o = hakari(&[
        "run",
        "kv",
        "--engine",
        "lmdb",
        "--key-size",
        "511",
        "--batches",
        "20",
        "--runs",
        "1",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn json_and_csv_output_parse_and_agree_with_the_result_file() {
    // engines: every registered engine and level, as JSON and as CSV.
    let o = hakari(&["engines", "--format", "json"]);
    assert!(o.status.success());
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    for e in hakari::engine::kv_engines() {
        let offered: Vec<&str> = rows
            .iter()
            .filter(|r| {
                r["engine"] == e.name() && r["family"] == "key-value" && r["offered"] == true
            })
            .map(|r| r["level"].as_str().unwrap())
            .collect();
        let want: Vec<&str> = hakari::engine::Engine::Kv(e)
            .offered()
            .iter()
            .map(|d| d.name())
            .collect();
        assert_eq!(offered, want, "{}", e.name());
    }
    for e in hakari::engine::sql_engines() {
        assert!(rows
            .iter()
            .any(|r| r["engine"] == e.name() && r["family"] == "sql"));
    }
    let o = hakari(&["engines", "--format", "csv"]);
    let mut csv_rows = csv::Reader::from_reader(&o.stdout[..]);
    assert_eq!(csv_rows.records().count(), rows.len());

    // show: one row per measurement, figures equal to the file's; CSV the same rows.
    let dir = tempfile::tempdir().unwrap();
    let (o, file) = null_run(dir.path(), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let file = file.unwrap();
    let r = store::read(&file).unwrap();
    let o = hakari(&["show", file.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: Vec<serde_json::Map<String, serde_json::Value>> =
        serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json.len(), r.measurements.len());
    for (row, m) in json.iter().zip(&r.measurements) {
        assert_eq!(row["run_id"], r.run_id.as_str());
        assert_eq!(row["step"], m.step.as_str());
        assert_eq!(
            row["ops_per_sec_mean"].as_f64().unwrap(),
            m.ops_per_sec_mean
        );
        assert_eq!(row["p99_us"].as_f64().unwrap(), m.latency.unwrap().p99_us);
        for (k, v) in &m.config {
            assert_eq!(&row[k], v, "config field {k} is a column");
        }
    }
    let o = hakari(&["show", file.to_str().unwrap(), "--format", "csv"]);
    let mut reader = csv::Reader::from_reader(&o.stdout[..]);
    let headers = reader.headers().unwrap().clone();
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), json.len());
    for (rec, row) in records.iter().zip(&json) {
        assert_eq!(headers.len(), row.len());
        for (h, cell) in headers.iter().zip(rec.iter()) {
            let v = &row[h];
            let text = match v {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Null => String::new(),
                other => other.to_string(),
            };
            assert_eq!(cell, text, "column {h}");
            if let Some(n) = v.as_f64() {
                assert_eq!(cell.parse::<f64>().unwrap(), n, "column {h} round-trips");
            }
        }
    }

    // export: every measurement of every file in a folder, one row each.
    let (o, _) = null_run(dir.path(), &["--threads", "1,2"]);
    assert!(o.status.success());
    let total: usize = result_files(dir.path())
        .iter()
        .map(|f| store::read(f).unwrap().measurements.len())
        .sum();
    let o = hakari(&["export", dir.path().to_str().unwrap(), "--csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut reader = csv::Reader::from_reader(&o.stdout[..]);
    assert!(reader.headers().unwrap().iter().any(|h| h == "txn_size"));
    assert_eq!(reader.records().count(), total);
    let o = hakari(&["export", dir.path().to_str().unwrap(), "--format", "json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rows.len(), total);
}

/// A copy of `r` whose throughput is scaled by `factor`, with the runs' stddev set to `sd` of the
/// mean.
fn planted(r: &RunResult, factor: f64, sd: f64, path: &Path) -> PathBuf {
    let mut r = r.clone();
    r.run_id.push_str("-planted");
    for m in &mut r.measurements {
        m.ops_per_sec_mean *= factor;
        m.ops_per_sec_stddev = m.ops_per_sec_mean * sd;
        for run in &mut m.runs {
            run.ops_per_sec *= factor;
        }
    }
    store::write_atomic(path, &r).unwrap();
    path.to_path_buf()
}

#[test]
fn the_regression_gate_fails_on_a_planted_regression_and_passes_within_noise() {
    let dir = tempfile::tempdir().unwrap();
    let (o, file) = null_run(dir.path(), &[]);
    assert!(o.status.success());
    let base_file = file.unwrap();
    let base = store::read(&base_file).unwrap();
    let quiet_base = planted(&base, 1.0, 0.01, &dir.path().join("base.json"));
    let b = quiet_base.to_str().unwrap();
    let gate = |new: &Path, thresholds: &str| {
        hakari(&[
            "compare",
            b,
            new.to_str().unwrap(),
            "--fail-if-worse",
            thresholds,
        ])
    };
    // 20% slower, 1% noise: every figure is worse; exit 4, each one named.
    let slower = planted(&base, 0.8, 0.01, &dir.path().join("slower.json"));
    let o = gate(&slower, "5%");
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("regression gate FAILED"), "{err}");
    for m in &base.measurements {
        assert!(
            err.contains(&format!("t1 {}", m.step)),
            "{} named: {err}",
            m.step
        );
    }
    assert!(stdout(&o).contains("WORSE: ops"));
    // 3% slower: inside the threshold.
    let close = planted(&base, 0.97, 0.01, &dir.path().join("close.json"));
    assert_eq!(gate(&close, "5%").status.code(), Some(0));
    // 10% slower, but both runs scatter by 10%: inside the noise of the difference.
    let noisy_base = planted(&base, 1.0, 0.1, &dir.path().join("noisy-base.json"));
    let noisy = planted(&base, 0.9, 0.1, &dir.path().join("noisy.json"));
    let o = hakari(&[
        "compare",
        noisy_base.to_str().unwrap(),
        noisy.to_str().unwrap(),
        "--fail-if-worse",
        "5%",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("regression gate passed"));
    // The same run against itself, and per-figure thresholds (latency unchanged).
    assert_eq!(gate(&quiet_base, "p99:10%,ops:5%").status.code(), Some(0));
    // The JSON rows carry the gate's verdict.
    let o = hakari(&[
        "compare",
        b,
        slower.to_str().unwrap(),
        "--fail-if-worse",
        "5%",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(4));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert!(rows
        .iter()
        .filter(|r| r["figure"] == "ops")
        .all(|r| r["worse"] == true && r["change_percent"].as_f64().unwrap() < -19.0));
    assert!(rows
        .iter()
        .filter(|r| r["figure"] == "p99")
        .all(|r| r["worse"] == false));
}

#[test]
fn requirements_are_checked_recorded_and_decide_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let (o, file) = null_run(
        dir.path(),
        &["--require", "kv.ops>=1", "--require", "fetch.p99<=1s"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r = store::read(&file.unwrap()).unwrap();
    assert_eq!(r.requirements.len(), 2);
    assert!(
        r.requirements.iter().all(|q| q.passed),
        "{:?}",
        r.requirements
    );

    // Impossible throughput, and a selector that matches nothing: exit 4, the file says which.
    let (o, file) = null_run(
        dir.path(),
        &[
            "--require",
            "fetch.ops>=1e15",
            "--require",
            "rocksdb.ops>=1",
        ],
    );
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains("requirement fetch.ops>=1e15: FAILED"));
    let r = store::read(&file.unwrap()).unwrap();
    assert_eq!(
        r.status, "complete",
        "the measurements themselves are whole"
    );
    assert!(!r.requirements[0].passed && r.requirements[0].detail.contains("fetch"));
    assert!(r.requirements[1].detail.contains("no figure"));
}

#[test]
fn completions_and_man_page_come_from_the_clap_definitions() {
    let o = hakari(&["completions", "bash"]);
    assert!(o.status.success());
    let script = stdout(&o);
    assert!(script.contains("--fail-if-worse") && script.contains("wisconsin"));
    let o = hakari(&["completions", "zsh"]);
    assert!(stdout(&o).contains("#compdef hakari"));
    let o = hakari(&["man"]);
    assert!(stdout(&o).starts_with(".ie") || stdout(&o).contains(".TH hakari"));
    let dir = tempfile::tempdir().unwrap();
    let o = hakari(&["man", "--dir", dir.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_to_string(dir.path().join("hakari-run-kv.1")).unwrap();
    assert!(page.contains("key\\-size"), "{page}");
    assert!(
        !dir.path().join("hakari-crash-child.1").exists(),
        "hidden commands have no page"
    );
    let help = stdout(&hakari(&["--help"]));
    assert!(help.contains("Exit codes:") && help.contains("130"));
}

/// `hakari run`'s subcommands are made from the workload registry: each workload with its
/// summary, its own flags, its presets and (the script's) its examples.
#[test]
fn run_help_lists_every_registered_workload_with_its_own_help() {
    let help = stdout(&hakari(&["run", "--help"]));
    for w in [
        "kv",
        "tpcb",
        "tpcc",
        "session",
        "tpch",
        "wisconsin",
        "ycsb",
        "script",
    ] {
        assert!(
            help.lines().any(|l| l.trim_start().starts_with(w)),
            "{w} missing from run --help:\n{help}"
        );
    }
    assert!(
        help.contains("TPC-B-like transactions by N clients"),
        "{help}"
    );
    let kv = stdout(&hakari(&["run", "kv", "--help"]));
    assert!(
        kv.contains("--key-size") && kv.contains("bdb-11gr2, bdb-4.3"),
        "{kv}"
    );
    assert!(kv.contains("--interval") && kv.contains("--shard"), "{kv}");
    let script = stdout(&hakari(&["run", "script", "--help"]));
    // Words as a reader sees them, whatever the terminal's width wrapped.
    let script = script.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(script.contains("--init") && script.contains("creates tables only through --init"));
    assert!(
        script.contains("--builtin tpcb-like --engine postgres"),
        "{script}"
    );
    assert!(script.contains("has no presets"), "{script}");
    let o = hakari(&["run", "tpce"]);
    assert_eq!(o.status.code(), Some(2), "an unknown workload is bad usage");
}
