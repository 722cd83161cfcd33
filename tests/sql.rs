//! SQL engines and the tpcb workload through the real binary, on real servers: private ones that
//! hakari starts, and ones started here to play "a server given by --url".

use hakari::durability::Durability;
use hakari::results::store;
mod common;
use common::{hakari, result_files, stderr};

#[test]
fn tpcb_runs_on_every_sql_engine_and_balances_stay_consistent() {
    for engine in hakari::engine::sql_engines() {
        let out = tempfile::tempdir().unwrap();
        let o = hakari(&[
            "run",
            "tpcb",
            "--engine",
            engine.name(),
            "--clients",
            "1,3",
            "--transactions",
            "40",
            "--runs",
            "2",
            "--scale",
            "2",
            "--accounts-per-branch",
            "100",
            "--out",
            out.path().to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}: {}", engine.name(), stderr(&o));
        let r = store::read(&result_files(out.path())[0]).unwrap();
        assert_eq!(r.status, "complete");
        for clients in [1usize, 3] {
            let m = r
                .measurements
                .iter()
                .find(|m| m.threads == clients && m.step == "tpcb")
                .unwrap();
            assert!(
                m.runs.iter().all(|run| run.ops == 40 * clients as u64),
                "{:?}",
                m.runs
            );
            assert!(m.latency.unwrap().p50_us > 0.0);
        }
        assert!(!r.engines[0].version.is_empty());
    }
}

#[test]
fn psql_v11_layouts_and_atomic_tests_run() {
    let out = tempfile::tempdir().unwrap();
    let o = hakari(&[
        "run",
        "tpcb",
        "--preset",
        "psql-v11",
        "--engine",
        "sqlite",
        "--clients",
        "2",
        "--transactions",
        "20",
        "--runs",
        "1",
        "--accounts-per-branch",
        "200",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = store::read(&result_files(out.path())[0]).unwrap();
    let steps: Vec<(String, i64)> = r
        .measurements
        .iter()
        .map(|m| (m.step.clone(), m.config["table_sets"].as_i64().unwrap()))
        .collect();
    for sets in [1, 16] {
        for step in ["tpcb", "atomic-read", "atomic-update"] {
            assert!(
                steps.contains(&(step.to_string(), sets)),
                "{step} with {sets} set(s): {steps:?}"
            );
        }
    }
}

#[test]
fn a_server_that_is_down_gives_a_clear_error() {
    let out = tempfile::tempdir().unwrap();
    for url in [
        "postgres://hakari:pw@127.0.0.1:1/x",
        "mysql://root:pw@127.0.0.1:1/x",
    ] {
        let engine = if url.starts_with("postgres") {
            "postgres"
        } else {
            "mysql"
        };
        let o = hakari(&[
            "run",
            "tpcb",
            "--engine",
            engine,
            "--url",
            url,
            "--out",
            out.path().to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("connect"), "{err}");
        assert!(!err.contains(":pw@"), "the password is hidden: {err}");
    }
    let o = hakari(&[
        "run",
        "tpcb",
        "--engine",
        "postgres",
        "--url",
        "postgres://[bad",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("bad PostgreSQL URL"), "{}", stderr(&o));
    assert!(result_files(out.path()).is_empty());
}

#[test]
fn impossible_levels_are_refused() {
    let o = hakari(&[
        "run",
        "tpcb",
        "--engine",
        "postgres",
        "--durability",
        "in-memory",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("It offers: sync, write-nosync, nosync"),
        "{}",
        stderr(&o)
    );
    let o = hakari(&["run", "tpcb", "--engine", "oracle"]);
    assert!(
        stderr(&o).contains("unknown engine 'oracle' for SQL workloads"),
        "{}",
        stderr(&o)
    );
}

/// A PostgreSQL server that is not hakari's run: its schema `hakari` holds a foreign table.
#[test]
fn postgres_refuses_a_schema_it_does_not_own_and_hides_passwords() {
    let dir = tempfile::tempdir().unwrap();
    let server_dir = dir.path().join("pg");
    std::fs::create_dir(&server_dir).unwrap();
    let pg =
        hakari::server::postgres::start(&server_dir, Durability::Sync, dir.path(), 0, 4).unwrap();
    let url = format!(
        "postgresql://hakari:topsecret@127.0.0.1:{}/hakari",
        pg.process.port
    );
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    c.batch_execute("CREATE SCHEMA hakari; CREATE TABLE hakari.customers (id int); INSERT INTO hakari.customers VALUES (1)").unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = hakari(&[
        "run",
        "tpcb",
        "--engine",
        "postgres",
        "--url",
        &url,
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("tables hakari did not create (customers)"),
        "{err}"
    );
    let n: i64 = c
        .query_one("SELECT count(*) FROM hakari.customers", &[])
        .unwrap()
        .get(0);
    assert_eq!(n, 1, "the foreign table is untouched");
    // In a schema of its own, the run works; the password reaches neither output nor results.
    c.batch_execute("DROP SCHEMA hakari CASCADE; CREATE TABLE public.customers (id int)")
        .unwrap();
    let o = hakari(&[
        "run",
        "tpcb",
        "--engine",
        "postgres",
        "--url",
        &url,
        "--clients",
        "2",
        "--transactions",
        "10",
        "--runs",
        "1",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).to_string() + &stderr(&o);
    assert!(!text.contains("topsecret"));
    let file = std::fs::read_to_string(&result_files(out.path())[0]).unwrap();
    assert!(
        !file.contains("topsecret"),
        "the result file hides the password"
    );
    assert!(file.contains("hakari:***@"));
    let schemas: i64 = c
        .query_one(
            "SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'hakari'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(schemas, 0, "hakari dropped its own schema");
    let n: i64 = c
        .query_one("SELECT count(*) FROM public.customers", &[])
        .unwrap()
        .get(0);
    assert_eq!(n, 0, "public.customers still there");
}

#[test]
fn mysql_refuses_a_database_with_foreign_tables() {
    let dir = tempfile::tempdir().unwrap();
    let server_dir = dir.path().join("my");
    std::fs::create_dir(&server_dir).unwrap();
    let my =
        hakari::server::mariadb::start(&server_dir, Durability::Sync, dir.path(), 0, 4).unwrap();
    use mysql::prelude::Queryable;
    let mut c = mysql::Conn::new(hakari::server::mariadb::socket_opts(&my.socket, None)).unwrap();
    c.query_drop("CREATE DATABASE shop").unwrap();
    c.query_drop("CREATE TABLE shop.orders (id INT)").unwrap();
    c.query_drop("INSERT INTO shop.orders VALUES (7)").unwrap();
    c.query_drop("CREATE DATABASE empty_one").unwrap();
    let out = tempfile::tempdir().unwrap();
    let url = |db: &str| format!("mysql://root@localhost/{db}?socket={}", my.socket.display());
    let o = hakari(&[
        "run",
        "tpcb",
        "--engine",
        "mysql",
        "--url",
        &url("shop"),
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("tables hakari did not create (orders)"),
        "{}",
        stderr(&o)
    );
    let n: Option<i64> = c.query_first("SELECT count(*) FROM shop.orders").unwrap();
    assert_eq!(n, Some(1));
    // An empty database is claimed, used, and left empty.
    let o = hakari(&[
        "run",
        "tpcb",
        "--engine",
        "mysql",
        "--url",
        &url("empty_one"),
        "--clients",
        "2",
        "--transactions",
        "10",
        "--runs",
        "1",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let left: Vec<String> = c
        .query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'empty_one'")
        .unwrap();
    assert!(left.is_empty(), "{left:?}");
}
