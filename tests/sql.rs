//! SQL engines and the tpcb workload through the real binary, on real servers: private ones that
//! hakari starts, and ones started here to play "a server given by --url".

use hakari::durability::Durability;
use hakari::results::store;
mod common;
use common::{
    engine_args, hakari, odbc_sqlite, private_mariadb, private_postgres, result_files, run_ok,
    stderr,
};

#[test]
fn tpcb_runs_on_every_sql_engine_and_balances_stay_consistent() {
    for engine in hakari::engine::sql_engines() {
        let dir = tempfile::tempdir().unwrap();
        let extra = engine_args(engine.name(), dir.path());
        let mut args = vec![
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
        ];
        args.extend(extra.iter().map(String::as_str));
        let r = run_ok(&args);
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
    // The Pervasive paper's preset, embedded and through ODBC (as a Zen user would run it).
    for engine in ["sqlite", "odbc"] {
        let out = tempfile::tempdir().unwrap();
        let extra = engine_args(engine, out.path());
        let mut args = vec![
            "run",
            "tpcb",
            "--preset",
            "psql-v11",
            "--engine",
            engine,
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
        ];
        args.extend(extra.iter().map(String::as_str));
        let o = hakari(&args);
        assert!(o.status.success(), "{engine}: {}", stderr(&o));
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
                    "{engine}: {step} with {sets} set(s): {steps:?}"
                );
            }
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
        stderr(&o).contains("unknown engine 'oracle' among SQL engines"),
        "{}",
        stderr(&o)
    );
}

/// A PostgreSQL server that is not hakari's run: its schema `hakari` holds a foreign table.
#[test]
fn postgres_refuses_a_schema_it_does_not_own_and_hides_passwords() {
    let dir = tempfile::tempdir().unwrap();
    let (_pg, port) = private_postgres(dir.path());
    let url = format!("postgresql://hakari:topsecret@127.0.0.1:{port}/hakari");
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
    let (_my, socket, mut c) = private_mariadb(dir.path());
    use mysql::prelude::Queryable;
    c.query_drop("CREATE DATABASE shop").unwrap();
    c.query_drop("CREATE TABLE shop.orders (id INT)").unwrap();
    c.query_drop("INSERT INTO shop.orders VALUES (7)").unwrap();
    c.query_drop("CREATE DATABASE empty_one").unwrap();
    let out = tempfile::tempdir().unwrap();
    let url = |db: &str| format!("mysql://root@localhost/{db}?socket={}", socket.display());
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

/// The connection contract every SQL engine keeps, at every level it offers (a server: a private
/// server, at its first level): bulk load, prepared statements, commit and rollback (bulk-loaded rows
/// included), errors for bad SQL, and a second connection that sees what was committed.
#[test]
fn every_sql_engine_keeps_the_connection_contract() {
    for engine in hakari::engine::sql_engines() {
        let mut levels = hakari::engine::Engine::Sql(engine).offered();
        if engine.private_server().is_some() {
            levels.truncate(1);
        }
        // The odbc engine reaches SQLite here: the levels a SQLite session can have.
        if engine.name() == "odbc" {
            use hakari::engine::odbc::dbms::Dbms;
            levels.retain(|l| Dbms::Sqlite.durability(*l).is_ok());
        }
        for level in levels {
            connection_contract(engine, level);
        }
    }
}

fn connection_contract(
    engine: hakari::engine::Named<dyn hakari::engine::SqlEngine>,
    level: Durability,
) {
    use hakari::engine::sql::{SqlOptions, SqlValue};
    let name = format!("{} at {level}", engine.name());
    {
        let dir = tempfile::tempdir().unwrap();
        let db = engine
            .open(&SqlOptions {
                url: (engine.name() == "odbc").then(|| odbc_sqlite(dir.path())),
                clients: 2,
                ..SqlOptions::at(dir.path(), level)
            })
            .unwrap_or_else(|e| panic!("{name}: {e:#}"));
        let mut c = db.connect().unwrap();
        c.execute("DROP TABLE IF EXISTS hakari_contract").unwrap();
        c.execute("CREATE TABLE hakari_contract (id INTEGER PRIMARY KEY, name VARCHAR(20), v DOUBLE PRECISION)")
            .unwrap_or_else(|e| panic!("{name}: {e:#}"));
        let columns = ["id", "name", "v"];
        let row = |i: i64| {
            vec![
                SqlValue::Int(i),
                SqlValue::Text(format!("n{i}")),
                SqlValue::Float(i as f64 / 2.0),
            ]
        };
        let loaded = c
            .bulk_load("hakari_contract", &columns, &mut (0..100).map(row))
            .unwrap_or_else(|e| panic!("{name}: {e:#}"));
        assert_eq!(loaded, 100, "{name}");
        let update = c
            .prepare("UPDATE hakari_contract SET v = v + ? WHERE id = ?")
            .unwrap();
        c.begin().unwrap();
        let changed = c
            .exec_prepared(update, &[SqlValue::Float(1.0), SqlValue::Int(7)])
            .unwrap();
        assert_eq!(changed, 1, "{name}");
        c.commit().unwrap();
        c.begin().unwrap();
        c.exec_prepared(update, &[SqlValue::Float(100.0), SqlValue::Int(7)])
            .unwrap();
        c.bulk_load("hakari_contract", &columns, &mut (1000..1010).map(row))
            .unwrap();
        c.rollback().unwrap();
        let select = c
            .prepare("SELECT name, v FROM hakari_contract WHERE id = ?")
            .unwrap();
        let mut seen = Vec::new();
        let n = c
            .query_prepared(select, &[SqlValue::Int(7)], &mut |r| seen.push(r.to_vec()))
            .unwrap();
        assert_eq!(n, 1, "{name}");
        assert_eq!(
            seen[0],
            vec![SqlValue::Text("n7".into()), SqlValue::Float(4.5)],
            "{name}"
        );
        assert!(c.prepare("SELEC nonsense").is_err() || c.query("SELEC nonsense").is_err());
        let mut other = db.connect().unwrap();
        let count = other.query("SELECT count(*) FROM hakari_contract").unwrap();
        assert_eq!(count, vec![vec![SqlValue::Int(100)]], "{name}");
        c.execute("DROP TABLE hakari_contract").unwrap();
        drop((c, other));
        db.close().unwrap();
    }
}

/// A database that speaks PostgreSQL's protocol is a flavour of the postgres engine: the engine's
/// code with declarations of its own. This test flavour (PostgreSQL itself, reached by a scheme
/// of its own and declared without COPY FREEZE, pipelines, load streams, statistics or a private
/// server) shows that each declaration is the flavour's, and that the engine's code follows it.
#[test]
fn a_postgres_wire_flavour_is_the_engine_with_declarations_of_its_own() {
    use hakari::engine::postgres::{Postgres, POSTGRESQL};
    use hakari::engine::sql::{Capabilities, SqlEngine, SqlOptions, SqlValue};
    const WIRE: Postgres = Postgres {
        label: "a PostgreSQL-wire test database",
        url_schemes: &["pgwire"],
        mapping: |level| match level {
            Durability::Sync => Ok("as the server is set".into()),
            _ => Err("only sync here".into()),
        },
        capabilities: || Capabilities {
            delimited: true,
            ..Capabilities::EMBEDDED
        },
        private_server: None,
        topologies: &[],
        statistics: false,
        settings: &["server_version"],
    };
    let dir = tempfile::tempdir().unwrap();
    let (_pg, port) = private_postgres(dir.path());
    let at = |url: String| SqlOptions {
        url: Some(url),
        ..SqlOptions::at(dir.path(), Durability::Sync)
    };
    assert!(WIRE.mapping(Durability::Nosync).is_err());
    let Err(e) = WIRE.open(&SqlOptions::at(&dir.path().join("x"), Durability::Sync)) else {
        panic!("a flavour with no private server needs --url");
    };
    assert!(format!("{e:#}").contains("give its --url"), "{e:#}");
    let db = WIRE
        .open(&at(format!("pgwire://hakari@127.0.0.1:{port}/hakari")))
        .unwrap();
    let mut c = db.connect().unwrap();
    let declared = Capabilities {
        delimited: true,
        ..Capabilities::EMBEDDED
    };
    assert_eq!(c.capabilities(), declared);
    // The engine's own code on it: a table made, loaded as text through COPY, read back.
    c.execute("CREATE TABLE flavoured (id INTEGER, name TEXT)")
        .unwrap();
    let mut lines = ["1|a|\n2|b|\n".to_string()].into_iter();
    let loaded = c
        .bulk_load_delimited("flavoured", &["id", "name"], &mut lines)
        .unwrap();
    assert_eq!(loaded, 2);
    let count = c.query("SELECT count(*) FROM flavoured").unwrap();
    assert_eq!(count, vec![vec![SqlValue::Int(2)]]);
    let settings: Vec<String> = db.settings().into_iter().map(|(k, _)| k).collect();
    assert!(
        settings.contains(&"server_version".to_string()),
        "{settings:?}"
    );
    assert!(!settings.contains(&"fsync".to_string()), "{settings:?}");
    drop(c);
    db.close().unwrap();
    // PostgreSQL's own flavour, on the same server, declares what PostgreSQL has.
    let db = POSTGRESQL
        .open(&at(format!("postgresql://hakari@127.0.0.1:{port}/hakari")))
        .unwrap();
    let mut c = db.connect().unwrap();
    let can = c.capabilities();
    assert!(
        can.delimited && can.frozen_refill && can.extended_protocol,
        "{can:?}"
    );
    assert!(c.connection_limit().is_some_and(|n| n > 1));
    let settings: Vec<String> = db.settings().into_iter().map(|(k, _)| k).collect();
    assert!(settings.contains(&"fsync".to_string()), "{settings:?}");
    drop(c);
    db.close().unwrap();
}

/// A private MariaDB opened in `dir` by the `mysql` engine, and a connection of the tools'
/// (through libmariadb).
fn mysql_with_tool_connection(
    dir: &std::path::Path,
) -> (
    Box<dyn hakari::engine::sql::SqlDatabase>,
    Box<dyn hakari::engine::sql::SqlConnection>,
) {
    let engine = (hakari::engine::sql_engines().into_iter())
        .find(|e| e.name() == "mysql")
        .unwrap();
    let options = hakari::engine::sql::SqlOptions {
        clients: 2,
        ..hakari::engine::sql::SqlOptions::at(dir, Durability::Sync)
    };
    let db = engine.open(&options).unwrap();
    let c = db.connect_tool().unwrap();
    (db, c)
}

/// MariaDB's prepared reads through libmariadb (the tools' client: sysbench's and pgbench's
/// commands): a statement executed again and again hands each execution its own rows, whether
/// a value outgrew its buffer on the way (longer than the 256 bytes first given a column) or
/// the visitor took the row it was handed (as sysbench's results do), and with another
/// statement run between.
#[test]
fn mysql_prepared_reads_run_again_give_their_own_rows() {
    use hakari::engine::sql::SqlValue;
    let dir = tempfile::tempdir().unwrap();
    let (db, mut c) = mysql_with_tool_connection(dir.path());
    c.execute("CREATE TABLE hakari_reads (id INTEGER PRIMARY KEY, t VARCHAR(1000))")
        .unwrap();
    let long = "x".repeat(600);
    c.execute(&format!(
        "INSERT INTO hakari_reads VALUES (1, 'a'), (2, '{long}'), (3, 'bb')"
    ))
    .unwrap();
    let select = c
        .prepare("SELECT id, t FROM hakari_reads WHERE id >= ? ORDER BY id")
        .unwrap();
    let count = c.prepare("SELECT count(*) FROM hakari_reads").unwrap();
    let row = |id: i64, t: &str| vec![SqlValue::Int(id), SqlValue::Text(t.into())];
    for (from, expected) in [
        (1, vec![row(1, "a"), row(2, &long), row(3, "bb")]),
        (3, vec![row(3, "bb")]),
        (2, vec![row(2, &long), row(3, "bb")]),
        (1, vec![row(1, "a"), row(2, &long), row(3, "bb")]),
    ] {
        let mut seen = Vec::new();
        let n = c
            .query_prepared(select, &[SqlValue::Int(from)], &mut |r| {
                seen.push(std::mem::take(r))
            })
            .unwrap();
        assert_eq!(
            (n, &seen),
            (expected.len() as u64, &expected),
            "from {from}"
        );
        let mut counted = Vec::new();
        c.query_prepared(count, &[], &mut |r| counted.push(r.to_vec()))
            .unwrap();
        assert_eq!(counted, vec![vec![SqlValue::Int(3)]]);
    }
    drop(c);
    db.close().unwrap();
}

/// MariaDB's prepared statements through libmariadb keep their parameters' binds from one
/// execution to the next: each execution sends the values it is given, whatever came before (a
/// longer text, a shorter one, another type, NULL), rows counted unread leave the statement
/// ready to run again, and a wrong number of parameters is refused.
#[test]
fn mysql_prepared_parameters_bound_once_send_each_executions_values() {
    use hakari::engine::sql::SqlValue;
    let dir = tempfile::tempdir().unwrap();
    let (db, mut c) = mysql_with_tool_connection(dir.path());
    let echo = c.prepare("SELECT CAST(? AS CHAR(1000))").unwrap();
    let long = "y".repeat(700);
    let text = |t: &str| SqlValue::Text(t.into());
    for (sent, back) in [
        (SqlValue::Int(1), text("1")),
        (text("ab"), text("ab")),
        (text(&long), text(&long)),
        (text("c"), text("c")),
        (SqlValue::Null, SqlValue::Null),
        (SqlValue::Float(1.5), text("1.5")),
        (SqlValue::Int(-2), text("-2")),
    ] {
        let mut seen = Vec::new();
        c.query_prepared(echo, std::slice::from_ref(&sent), &mut |r| {
            seen.push(r.to_vec())
        })
        .unwrap();
        assert_eq!(seen, vec![vec![back]], "sent {sent:?}");
        assert_eq!(c.run_prepared(echo, &[text("z")]).unwrap(), 1);
    }
    let e = c.run_prepared(echo, &[]).unwrap_err();
    assert!(format!("{e:#}").contains("parameter"), "{e:#}");
    let e = (c.run_prepared(echo, &[SqlValue::Int(1), SqlValue::Int(2)])).unwrap_err();
    assert!(
        format!("{e:#}").contains("takes 1 parameters, 2 given"),
        "{e:#}"
    );
    assert_eq!(c.run_prepared(echo, &[text("again")]).unwrap(), 1);
    drop(c);
    db.close().unwrap();
}
