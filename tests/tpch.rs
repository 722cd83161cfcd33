//! The tpch workload through the real binary at SF 0.01: every SQL engine with --validate
//! (answers checked against the SF 0.01 answer set), row counts unchanged by RF1/RF2, the result
//! file's tables and metrics, and clear errors for bad input.

use hakari::results::store;
mod common;
use common::{hakari, result_files, stderr};

fn run_validated(engine: &str) {
    let out = tempfile::tempdir().unwrap();
    let o = hakari(&[
        "run",
        "tpch",
        "--engine",
        engine,
        "--sf",
        "0.01",
        "--validate",
        "--seed",
        "42",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{engine}: {}", stderr(&o));
    assert!(
        stdout.contains("derived from TPC-H; not comparable to published TPC-H results"),
        "{stdout}"
    );
    let r = store::read(&result_files(out.path())[0]).unwrap();
    assert_eq!(r.status, "complete");
    assert!(r
        .notes
        .iter()
        .any(|n| n.contains("the 22 answers with the qualification parameters match")));
    let count = |test: &str| {
        r.measurements
            .iter()
            .filter(|m| m.config["test"] == test)
            .count()
    };
    assert_eq!(count("validation"), 22);
    // 22 queries + RF1 + RF2.
    assert_eq!(count("power"), 24);
    // 2 streams (the minimum below SF 10) of 22 queries, plus Ts.
    assert_eq!(count("throughput"), 2 * 22 + 1);
    // Two RF pairs in the refresh stream.
    assert_eq!(count("refresh stream"), 4);
    for name in ["Power@Size", "Throughput@Size", "QphH@Size"] {
        for rules in ["tpch", "dbt3"] {
            let m = r
                .metrics
                .iter()
                .find(|m| m.name == format!("{name} ({rules})"))
                .unwrap_or_else(|| panic!("{name} ({rules})"));
            assert!(m.value > 0.0);
        }
    }
    // The refresh functions changed data but left the counts: the run checks it and fails if not.
    let rf1 = r
        .measurements
        .iter()
        .find(|m| m.config["test"] == "power" && m.step == "RF1")
        .unwrap();
    assert!(rf1.runs[0].ops >= 30, "15 orders and their lineitems");
}

#[test]
fn sqlite_answers_match_at_sf_0_01() {
    run_validated("sqlite");
}

#[test]
fn postgres_answers_match_at_sf_0_01() {
    run_validated("postgres");
}

#[test]
fn mysql_answers_match_at_sf_0_01() {
    run_validated("mysql");
}

/// Berkeley DB's SQL (SQLite 3.7's front end, page locks): Q15's view needs no column list, and
/// the throughput test's streams retry the lock conflicts they lose to one another.
#[test]
fn bdb_sql_answers_match_at_sf_0_01() {
    run_validated("bdb-sql");
}

/// DuckDB (an optional engine): answers checked, RF1 then RF2 leave the counts (the run checks
/// it and fails if not), the load went through the Appender.
#[cfg(feature = "duckdb")]
#[test]
fn duckdb_answers_match_at_sf_0_01() {
    run_validated("duckdb");
}

/// In-memory DuckDB runs the same workload; levels DuckDB cannot honour are refused.
#[cfg(feature = "duckdb")]
#[test]
fn duckdb_in_memory_runs_and_impossible_levels_are_refused() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let o = hakari(&[
        "run",
        "tpch",
        "--engine",
        "duckdb",
        "--durability",
        "in-memory",
        "--sf",
        "0.01",
        "--streams",
        "1",
        "--out",
        dir,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for level in ["write-nosync", "nosync", "none"] {
        let o = hakari(&[
            "run",
            "tpch",
            "--engine",
            "duckdb",
            "--durability",
            level,
            "--out",
            dir,
        ]);
        let e = stderr(&o);
        assert!(!o.status.success(), "{level}");
        assert!(
            e.contains("engine 'duckdb' does not offer durability"),
            "{level}: {e}"
        );
        assert!(e.contains("It offers: sync, in-memory"), "{level}: {e}");
    }
}

/// Without the `duckdb` feature, asking for it says how to build it in.
#[cfg(not(feature = "duckdb"))]
#[test]
fn duckdb_without_the_feature_says_how_to_build_it() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    for engine in ["duckdb", "sqlite,duckdb"] {
        let o = hakari(&[
            "run", "tpch", "--engine", engine, "--sf", "0.01", "--out", dir,
        ]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{engine}: {e}");
        assert!(
            e.contains("'duckdb' is optional and not in this build"),
            "{e}"
        );
        assert!(e.contains("cargo build --release --features duckdb"), "{e}");
        assert_eq!(e.trim().lines().count(), 1, "{e}");
    }
    assert!(result_files(out.path()).is_empty(), "nothing ran");
    let listed = hakari(&["engines"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(text.contains("--features duckdb"), "{text}");
}

#[test]
fn keep_data_writes_tbl_files_and_show_and_report_draw_the_tables() {
    let out = tempfile::tempdir().unwrap();
    let keep = out.path().join("tbl");
    let o = hakari(&[
        "run",
        "tpch",
        "--sf",
        "0.01,0.02",
        "--streams",
        "1",
        "--keep-data",
        keep.to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let orders = std::fs::read_to_string(keep.join("sf0.01").join("orders.tbl")).unwrap();
    assert_eq!(orders.lines().count(), 15_000);
    // dbgen's form: nine fields, each ended by '|', the first the order key from 1.
    assert!(orders.starts_with("1|"), "{}", &orders[..80]);
    for line in orders.lines() {
        assert!(
            line.ends_with('|') && line.matches('|').count() == 9,
            "{line}"
        );
    }
    let file = &result_files(out.path())[0];
    let shown = hakari(&["show", file.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains("tpch load test"), "{text}");
    assert!(text.contains("stream 1"), "{text}");
    assert!(text.contains("DBT-3 (fractional s"), "{text}");
    let html = out.path().join("r.html");
    let o = hakari(&[
        "report",
        file.to_str().unwrap(),
        "-o",
        html.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("<h4>tpch load test, sqlite"),
        "tables as HTML"
    );
    assert!(page.contains("derived from TPC-H"), "the disclaimer");
    // The power test's bars, the metrics' bars, over two SFs load and power per SF, and each
    // SF's throughput test streams as a timeline.
    assert!(page.contains("data-charts=\"6\""), "six charts");
    for sf in ["0.01", "0.02"] {
        let title = format!("sqlite sync SF {sf}: throughput test streams");
        assert!(page.contains(&title), "{title}");
    }
    for lane in [">stream 1</text>", ">refresh</text>"] {
        assert!(page.contains(lane), "the timeline's lane {lane}");
    }
    for title in [
        "tpch power test: seconds per query",
        "tpch metrics, DBT-3",
        "tpch scaling: load test seconds",
        "tpch scaling: power test seconds",
    ] {
        assert!(page.contains(title), "chart {title}");
    }
}

#[test]
fn bad_input_gives_one_line_errors() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    for (args, expected) in [
        (vec!["--sf", "0"], "scale factor must be more than 0"),
        (vec!["--sf", "abc"], "bad --sf 'abc'"),
        (vec!["--streams", "0"], "--streams must be at least 1"),
        (vec!["--engine", "nosuch"], "unknown engine 'nosuch'"),
        (vec!["--sf", "0.3", "--validate"], "needs an answer set"),
        (vec!["--preset", "nosuch"], "unknown tpch preset"),
    ] {
        let mut all = vec!["run", "tpch", "--out", dir];
        all.extend(args.iter());
        let o = hakari(&all);
        let e = stderr(&o);
        assert!(!o.status.success(), "{args:?}");
        assert!(e.contains(expected), "{args:?}: {e}");
        assert_eq!(e.trim().lines().count(), 1, "{args:?}: {e}");
    }
}
