//! The odbc engine through Debian's real ODBC drivers for PostgreSQL, MariaDB and SQLite, each
//! reaching a real database (private servers this test starts, a SQLite file): tpcb keeps its
//! balances, wisconsin's answers agree with the native engine's in the same run, sessions come
//! back byte for byte, TPC-H at SF 0.01 matches TPC's answers, and tpcc's consistency
//! conditions hold. Bad connection strings, wrong
//! passwords and servers that are down end in one line naming the driver, exit 1, no password.

mod common;
use common::{hakari, odbc_sqlite, private_mariadb, private_postgres, run_ok, stderr};
use hakari::results::RunResult;
use std::path::Path;

/// Runs tpcb, wisconsin beside `native` (the native engine reached at `native_url`, or its
/// private server), session and TPC-H through the odbc engine at `url`, checking each.
fn every_workload_through(url: &str, native: &str, native_url: Option<&str>, dialect: &str) {
    let r = run_ok(&[
        "run",
        "tpcb",
        "--engine",
        "odbc",
        "--url",
        url,
        "--clients",
        "1,2",
        "--transactions",
        "30",
        "--runs",
        "1",
        "--accounts-per-branch",
        "100",
    ]);
    complete(&r, "tpcb");
    let tpcb = r
        .measurements
        .iter()
        .find(|m| m.step == "tpcb" && m.threads == 2);
    assert_eq!(tpcb.expect("tpcb at 2 clients").runs[0].ops, 60);
    let settings = &r.engines[0].settings;
    assert_eq!(settings["dialect"], dialect, "{settings:?}");

    let engines = format!("odbc,{native}");
    let mut args = vec![
        "run",
        "wisconsin",
        "--engine",
        &engines,
        "--url",
        url,
        "--tuples",
        "1000",
        "--runs",
        "1",
    ];
    if let Some(native_url) = native_url {
        args.extend(["--url", native_url]);
    }
    // The workload ends the run with an error when the engines' answers disagree.
    complete(&run_ok(&args), "wisconsin");

    let r = run_ok(&[
        "run",
        "session",
        "--engine",
        "odbc",
        "--url",
        url,
        "--sizes",
        "100,9K,300K",
        "--layout",
        "blob,chunked",
        "--compress",
        "none,gzip",
        "--sessions",
        "6",
        "--reads",
        "12",
        "--runs",
        "1",
    ]);
    complete(&r, "session");

    let r = run_ok(&[
        "run",
        "tpch",
        "--engine",
        "odbc",
        "--url",
        url,
        "--sf",
        "0.01",
        "--validate",
        "--seed",
        "42",
    ]);
    complete(&r, "tpch");

    tpcc(url, &[]);
}

/// tpcc through the odbc engine at `url`: its conditions hold after the load and the run (the
/// run fails otherwise) and New-Orders commit.
fn tpcc(url: &str, more: &[&str]) {
    let mut args = vec!["run", "tpcc", "--engine", "odbc", "--url", url];
    args.extend(["--clients", "2", "--duration", "2", "--ramp-up", "0"]);
    args.extend(more);
    let r = run_ok(&args);
    complete(&r, "tpcc");
    let nopm = r.metrics.iter().find(|m| m.name == "NOPM").expect("NOPM");
    assert!(nopm.value > 0.0, "{more:?}");
}

fn complete(r: &RunResult, what: &str) {
    assert_eq!(r.status, "complete", "{what}: {:?}", r.errors);
    assert!(r.errors.is_empty(), "{what}: {:?}", r.errors);
}

#[test]
fn every_workload_through_the_sqlite_driver() {
    let dir = tempfile::tempdir().unwrap();
    every_workload_through(&odbc_sqlite(dir.path()), "sqlite", None, "sqlite");
}

/// The private PostgreSQL on `port` through psqlODBC, and natively. The native engine works in
/// its own schema of the same database, the odbc one in public.
fn postgres_urls(port: u16) -> (String, String) {
    (
        format!("odbc:Driver={{PostgreSQL Unicode}};Server=127.0.0.1;Port={port};Database=hakari;UID=hakari"),
        format!("postgresql://hakari@127.0.0.1:{port}/hakari"),
    )
}

#[test]
fn every_workload_through_the_postgresql_driver() {
    let dir = tempfile::tempdir().unwrap();
    let (_pg, port) = private_postgres(dir.path());
    let (odbc, native) = postgres_urls(port);
    every_workload_through(&odbc, "postgres", Some(&native), "postgres");
}

#[test]
fn every_workload_through_the_mariadb_driver() {
    use mysql::prelude::Queryable;
    let dir = tempfile::tempdir().unwrap();
    let (_my, socket, mut c) = private_mariadb(dir.path());
    c.query_drop("CREATE DATABASE through_odbc").unwrap();
    c.query_drop("CREATE DATABASE native").unwrap();
    let odbc = format!(
        "odbc:Driver={{MariaDB Unicode}};Socket={};Database=through_odbc;UID=root",
        socket.display()
    );
    let native = hakari::server::mariadb::socket_url(&socket, "native");
    every_workload_through(&odbc, "mysql", Some(&native), "mysql");
}

/// The SQL written for Oracle and Actian Zen, which cannot be installed here, run on PostgreSQL
/// through its driver: PostgreSQL takes Oracle's FETCH FIRST, NUMERIC(19) and derived tables
/// without AS, and psqlODBC translates the ODBC escapes Zen's SQL is written with. This checks
/// their text and answers (TPC-H's against TPC's, wisconsin's against the native engine's), not
/// how Oracle or Zen themselves take it.
#[test]
fn oracle_and_zen_sql_through_the_postgresql_driver() {
    let dir = tempfile::tempdir().unwrap();
    let (_pg, port) = private_postgres(dir.path());
    let (url, native) = postgres_urls(port);
    for dialect in ["oracle", "zen"] {
        let odbc = |args: &str| {
            let mut all = vec!["run"];
            all.extend(args.split_whitespace());
            all.extend(["--url", &url, "--dialect", dialect]);
            let r = run_ok(&all);
            complete(&r, &format!("{args} as {dialect}"));
            r
        };
        let r = odbc("tpcb --engine odbc --clients 2 --transactions 30 --runs 1");
        assert_eq!(r.engines[0].settings["dialect"], dialect);
        let tpcb = r.measurements.iter().find(|m| m.step == "tpcb");
        assert_eq!(tpcb.expect("tpcb").runs[0].ops, 60);
        // The workload ends the run with an error when the engines' answers disagree.
        odbc(&format!(
            "wisconsin --engine odbc,postgres --url {native} --tuples 1000 --runs 1"
        ));
        let r = odbc(
            "ycsb --engine odbc --workload e --records 500 --operations 400 --durability sync",
        );
        let scans = r.measurements.iter().find(|m| m.step == "scan");
        assert!(scans.expect("scans").runs[0].ops > 0);
        odbc("tpch --engine odbc --sf 0.01 --validate --seed 42");
        tpcc(&url, &["--dialect", dialect]);
    }
}

/// A database holding someone else's table is refused and left as it was; an empty one is
/// claimed, used and left empty.
#[test]
fn a_database_with_foreign_tables_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("odbc.sqlite");
    let shop = rusqlite::Connection::open(&file).unwrap();
    shop.execute_batch("CREATE TABLE orders (id INTEGER); INSERT INTO orders VALUES (7);")
        .unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = hakari(&[
        "run",
        "tpcb",
        "--engine",
        "odbc",
        "--url",
        &odbc_sqlite(dir.path()),
        "--transactions",
        "5",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("tables hakari did not create (orders)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(tables(&file), ["orders"]);

    let empty = tempfile::tempdir().unwrap();
    run_ok(&[
        "run",
        "tpcb",
        "--engine",
        "odbc",
        "--url",
        &odbc_sqlite(empty.path()),
        "--transactions",
        "5",
        "--runs",
        "1",
    ]);
    assert!(tables(&empty.path().join("odbc.sqlite")).is_empty());
}

fn tables(file: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open(file).unwrap();
    let mut s = c
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite!_%' ESCAPE '!' ORDER BY 1")
        .unwrap();
    let names = s.query_map([], |r| r.get(0)).unwrap();
    names.map(Result::unwrap).collect()
}

/// One line naming the driver and what it said, exit 1, nothing written, no password shown.
#[test]
fn bad_connections_say_what_the_driver_said() {
    let dir = tempfile::tempdir().unwrap();
    let (_pg, port) = private_postgres(dir.path());
    let mut c = postgres::Client::connect(
        &format!("postgresql://hakari@127.0.0.1:{port}/hakari"),
        postgres::NoTls,
    )
    .unwrap();
    c.batch_execute("CREATE ROLE bench LOGIN PASSWORD 'right-one'")
        .unwrap();
    // A server that checks passwords: only hakari's own superuser is trusted.
    let hba = dir.path().join("pg").join("pgdata").join("pg_hba.conf");
    let trusted = std::fs::read_to_string(&hba).unwrap();
    let strict = format!("host all bench 127.0.0.1/32 scram-sha-256\n{trusted}");
    std::fs::write(&hba, strict).unwrap();
    c.batch_execute("SELECT pg_reload_conf()").unwrap();
    let pg_driver = |rest: &str| {
        format!("odbc:Driver={{PostgreSQL Unicode}};Server=127.0.0.1;Port={port};Database=hakari;{rest}")
    };
    let cases = [
        (
            "odbc:Driver={No Such Driver};Database=x;PWD=hunter2".to_string(),
            "DRIVER No Such Driver",
        ),
        ("odbc:DSN=nowhere;PWD=hunter2".to_string(), "DSN nowhere"),
        (
            pg_driver("UID=bench;PWD=hunter2"),
            "password authentication failed",
        ),
        (
            "odbc:Driver={PostgreSQL Unicode};Server=127.0.0.1;Port=1;Database=x;UID=u;PWD=hunter2"
                .to_string(),
            "DRIVER PostgreSQL Unicode",
        ),
        (
            "postgres://u:hunter2@127.0.0.1/x".to_string(),
            "none of the engines asked for (odbc) takes it",
        ),
    ];
    for (url, says) in cases {
        let out = tempfile::tempdir().unwrap();
        let o = hakari(&[
            "run",
            "tpcb",
            "--engine",
            "odbc",
            "--url",
            &url,
            "--transactions",
            "5",
            "--out",
            out.path().to_str().unwrap(),
        ]);
        let err = stderr(&o);
        assert!(matches!(o.status.code(), Some(1 | 2)), "{url}: {err}");
        assert!(err.contains(says), "{url}: {err}");
        assert!(!err.contains("hunter2"), "{url}: {err}");
        assert_eq!(
            err.lines().filter(|l| l.contains("error")).count(),
            1,
            "{url}: {err}"
        );
        assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "{url}");
    }
    let o = hakari(&["run", "tpcb", "--engine", "odbc", "--transactions", "5"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("give --url 'odbc:"), "{}", stderr(&o));
}

/// The dialect follows the DBMS unless --dialect says otherwise; levels a session cannot set
/// are refused, naming what the server has.
#[test]
fn dialect_override_and_levels_a_session_cannot_set() {
    let dir = tempfile::tempdir().unwrap();
    let url = odbc_sqlite(dir.path());
    // The SQLite driver ignores a password; the result file must not keep it either.
    let with_password = format!("{url};PWD=hunter2");
    let r = run_ok(&[
        "run",
        "tpcb",
        "--engine",
        "odbc",
        "--url",
        &with_password,
        "--dialect",
        "standard",
        "--transactions",
        "5",
        "--runs",
        "1",
    ]);
    assert_eq!(r.engines[0].settings["dialect"], "standard");
    let kept = serde_json::to_string(&r).unwrap();
    assert!(
        !kept.contains("hunter2") && kept.contains("PWD=***"),
        "{kept}"
    );
    let tpcb = |extra: &[&str]| {
        let mut args = vec!["run", "tpcb", "--engine", "odbc", "--url", &url];
        args.extend_from_slice(extra);
        hakari(&args)
    };
    let o = tpcb(&["--durability", "nosync", "--transactions", "5"]);
    assert_eq!(o.status.code(), Some(1));
    let says = "durability 'nosync' through ODBC on SQLite";
    assert!(stderr(&o).contains(says), "{}", stderr(&o));
    let o = tpcb(&["--dialect", "klingon"]);
    assert_eq!(o.status.code(), Some(2));
    let says = "unknown dialect 'klingon'";
    assert!(stderr(&o).contains(says), "{}", stderr(&o));
    let o = hakari(&["run", "tpcb", "--engine", "sqlite", "--dialect", "postgres"]);
    assert_eq!(o.status.code(), Some(2));
    let says = "--dialect is for an engine that takes its dialect from the database";
    assert!(stderr(&o).contains(says), "{}", stderr(&o));
}
