//! The wisconsin workload through the real binary at 1,000 tuples on every SQL engine (private
//! PostgreSQL and MariaDB servers started by hakari itself): all 32 queries run, every count is
//! the one the relations imply, and the engines' answers agree.

use hakari::results::{store, RunResult};
use std::process::Output;
mod common;
use common::{hakari, odbc_sqlite, result_files, stderr};

fn all_engines() -> String {
    hakari::engine::sql_engines()
        .iter()
        .map(|e| e.name())
        .collect::<Vec<_>>()
        .join(",")
}

/// Runs wisconsin with `args`; the odbc engine, when asked for, reaches a SQLite file.
fn run(args: &[&str]) -> (Output, Option<RunResult>) {
    let out = tempfile::tempdir().unwrap();
    let odbc = odbc_sqlite(out.path());
    let mut all = vec!["run", "wisconsin", "--out", out.path().to_str().unwrap()];
    all.extend_from_slice(args);
    if args.iter().any(|a| a.split(',').any(|e| e == "odbc")) {
        all.extend(["--url", &odbc]);
    }
    let o = hakari(&all);
    let r = result_files(out.path())
        .first()
        .map(|p| store::read(p).unwrap());
    (o, r)
}

/// Every engine ran every query in `queries`, each run counted right, and all agreed.
fn assert_all_answered(r: &RunResult, queries: &[u64], runs: usize) {
    assert_eq!(r.status, "complete", "{:?}", r.errors);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    for e in hakari::engine::sql_engines() {
        let mine: Vec<_> = r
            .measurements
            .iter()
            .filter(|m| m.engine == e.name())
            .collect();
        let mut numbers: Vec<u64> = mine
            .iter()
            .map(|m| m.config["query"].as_u64().unwrap())
            .collect();
        numbers.sort();
        assert_eq!(numbers, queries, "{}", e.name());
        for m in mine {
            assert_eq!(m.config["answer"], "ok", "{} {}", e.name(), m.step);
            assert_eq!(m.runs.len(), runs);
            let expected = m.config["expected_rows"].as_u64().unwrap();
            assert!(
                m.runs
                    .iter()
                    .all(|run| run.ops == expected && run.seconds > 0.0),
                "{} {}: {:?}",
                e.name(),
                m.step,
                m.runs
            );
        }
        assert!(r
            .metrics
            .iter()
            .any(|m| m.engine.as_deref() == Some(e.name()) && m.name == "load (s)"));
    }
}

#[test]
fn all_32_queries_on_every_sql_engine_count_right_and_agree() {
    let engines = all_engines();
    let (o, r) = run(&["--engine", &engines, "--tuples", "1000", "--runs", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = r.expect("a result file");
    assert_eq!(r.parameters["result_mode"], "store");
    assert_all_answered(&r, &(1..=32).collect::<Vec<_>>(), 2);
    // Query 18 at 1,000 tuples: 376 distinct pairs, not the 100 its name suggests.
    let q18 = r
        .measurements
        .iter()
        .find(|m| m.config["query"] == 18)
        .unwrap();
    assert_eq!(q18.runs[0].ops, 376);
    // The table: queries as rows, one column per engine.
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("mysql ms ± sd"), "{stdout}");
    assert!(stdout.contains("32  update indexed non-key attribute (indexed)"));
}

#[test]
fn fetch_and_count_modes_answer_the_same() {
    let engines = all_engines();
    for mode in ["fetch", "count"] {
        let (o, r) = run(&[
            "--engine",
            &engines,
            "--tuples",
            "1000",
            "--runs",
            "2",
            "--queries",
            "1-25",
            "--result-mode",
            mode,
        ]);
        assert!(o.status.success(), "{mode}: {}", stderr(&o));
        let r = r.unwrap();
        assert_all_answered(&r, &(1..=25).collect::<Vec<_>>(), 2);
        let q1 = r
            .measurements
            .iter()
            .find(|m| m.config["query"] == 1)
            .unwrap();
        assert_eq!(q1.config["result_mode"], mode);
        let q7 = r
            .measurements
            .iter()
            .find(|m| m.config["query"] == 7)
            .unwrap();
        assert_eq!(q7.config["result_mode"], "fetch", "to screen");
    }
}

#[test]
fn the_preset_shows_table_7_beside_bdb_sql() {
    let (o, r) = run(&[
        "--preset",
        "bdb-11gr2",
        "--tuples",
        "1000",
        "--queries",
        "1,9,32",
        "--runs",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = r.unwrap();
    assert_eq!(r.preset.as_deref(), Some("bdb-11gr2"));
    assert!(r.measurements.iter().all(|m| m.engine == "bdb-sql"));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("table 7 ms"), "{stdout}");
    for figure in ["8.175", "31,047", "1.081"] {
        assert!(stdout.contains(figure), "{figure}: {stdout}");
    }
}

#[test]
fn bad_input_gets_a_one_line_error() {
    // A value a flag cannot parse is bad usage (2, clap's error and hint); one the run refuses
    // is an error (1, one line).
    for (args, message, code) in [
        (vec!["--queries", "1,33"], "there is no query 33", 2),
        (vec!["--queries", "9-3"], "backwards", 2),
        (vec!["--tuples", "5000"], "sizes: 1000, 10000, 100000", 1),
        (
            vec!["--result-mode", "print"],
            "unknown result mode 'print'",
            2,
        ),
        (vec!["--preset", "tpc-b"], "unknown preset 'tpc-b'", 1),
    ] {
        let (o, r) = run(&args);
        assert_eq!(o.status.code(), Some(code), "{args:?}");
        let err = stderr(&o);
        let first = err.lines().next().unwrap_or("");
        assert!(first.contains(message), "{args:?}: {err}");
        if code == 1 {
            assert_eq!(err.trim().lines().count(), 1, "{err}");
        }
        assert!(r.is_none(), "nothing ran");
    }
}
