//! `hakari run sysbench` against Debian's sysbench 1.0.20, on the same private MariaDB and
//! PostgreSQL, each tool in a database of its own: the same `--rand-seed` draws the same
//! values; `prepare` makes the same tables (definitions, row count, ids, a checksum of each)
//! with values of the same form; `run` for a fixed number of events, from the same rows (a copy
//! of sysbench's), leaves the same rows, sends the statements the server counts alike, and
//! counts reads, writes and other statements per transaction as sysbench prints them. The
//! scripts are the ones Debian's sysbench package installs, unchanged.
//!
//! sysbench's `prepare` draws its values on its main thread, whose generator no seed fixes (a
//! library it loads seeds the C library's generator from the clock before `--rand-seed` is
//! read): two sysbench prepares differ from each other, so rows are compared after `run`, where
//! the seed decides every value.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

/// Every script Debian's package ships that runs on both servers, with a size for the test.
const SCRIPTS: &[&str] = &[
    "oltp_read_write",
    "oltp_read_only",
    "oltp_write_only",
    "oltp_point_select",
    "oltp_update_index",
    "oltp_update_non_index",
    "oltp_insert",
    "oltp_delete",
    "select_random_points",
    "select_random_ranges",
];

const SIZE: &[&str] = &["--tables=2", "--table-size=200"];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tool {
    Sysbench,
    Hakari,
    /// hakari with `--no-resources`: no statement of its own while the script runs (the
    /// readings of MariaDB's statistics are statements too).
    Unread,
    /// hakari with `--output sysbench`: sysbench's report layout, read as sysbench's is.
    Report,
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `tool` with `args` (sysbench's command line after the script), in `dir`.
fn run(tool: Tool, script: &str, args: &[String], dir: &Path) -> Output {
    let mut c = match tool {
        Tool::Sysbench => Command::new("sysbench"),
        Tool::Hakari | Tool::Unread | Tool::Report => {
            let mut c = Command::new(env!("CARGO_BIN_EXE_hakari"));
            c.args(["run", "sysbench", "--out", dir.to_str().unwrap()]);
            match tool {
                Tool::Unread => c.arg("--no-resources"),
                Tool::Report => c.args(["--output", "sysbench"]),
                _ => &mut c,
            };
            c
        }
    };
    c.arg(script)
        .args(args)
        .current_dir(dir)
        .env_remove("MYSQL_PWD")
        .env_remove("PGPASSWORD")
        .output()
        .expect("the tool runs")
}

fn run_ok(tool: Tool, script: &str, args: &[String], dir: &Path) -> String {
    let o = run(tool, script, args, dir);
    assert!(
        o.status.success(),
        "{tool:?} {script} {args:?}:\n{}",
        text(&o)
    );
    text(&o)
}

fn strings(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// The lines a script printed that start with `prefix`.
fn lines(out: &str, prefix: &str) -> Vec<String> {
    (out.lines())
        .filter(|l| l.starts_with(prefix))
        .map(str::to_string)
        .collect()
}

/// sysbench's "read: N write: N other: N" per transaction, from its report.
fn sysbench_per_transaction(out: &str) -> [f64; 3] {
    let count = |name: &str| -> f64 {
        let line = (out.lines())
            .find(|l| l.trim_start().starts_with(&format!("{name}:")))
            .unwrap_or_else(|| panic!("no {name} line in:\n{out}"));
        line.split_whitespace().last().unwrap().parse().unwrap()
    };
    let transactions: f64 = (out.lines())
        .find(|l| l.trim_start().starts_with("transactions:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap()
        .parse()
        .unwrap();
    ["read", "write", "other"].map(|n| count(n) / transactions)
}

/// The run's reads, writes and other statements per transaction, from hakari's result file.
fn hakari_per_transaction(dir: &Path) -> [f64; 3] {
    let files = common::result_files(dir);
    let newest = files
        .iter()
        .max_by_key(|f| f.metadata().unwrap().modified().unwrap());
    let r = hakari::results::store::read(newest.unwrap()).unwrap();
    let m = (r.measurements.iter())
        .find(|m| m.step == "run")
        .expect("a run step");
    ["reads", "writes", "other"].map(|n| {
        m.figure(&format!("sysbench.{n}_per_op"))
            .unwrap_or_else(|| panic!("no sysbench.{n}_per_op in {:?}", m.figures))
    })
}

/// MariaDB: the statements the server counted (`Com_*`).
fn com(conn: &mut mysql::Conn) -> BTreeMap<String, i64> {
    use mysql::prelude::Queryable;
    let rows: Vec<(String, String)> = conn
        .query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_select', 'Com_insert', 'Com_update', 'Com_delete', 'Com_begin', 'Com_commit', 'Com_rollback')")
        .unwrap();
    rows.into_iter()
        .map(|(k, v)| (k, v.parse().unwrap()))
        .collect()
}

fn delta(after: &BTreeMap<String, i64>, before: &BTreeMap<String, i64>) -> BTreeMap<String, i64> {
    (after.iter())
        .map(|(k, v)| (k.clone(), v - before.get(k).copied().unwrap_or(0)))
        .collect()
}

/// sysbench's options for the test's private PostgreSQL on `port`.
fn pgsql_options(port: u16) -> Vec<String> {
    vec![
        "--db-driver=pgsql".to_string(),
        "--pgsql-host=127.0.0.1".into(),
        format!("--pgsql-port={port}"),
        "--pgsql-user=hakari".into(),
        "--pgsql-db=hakari".into(),
    ]
}

#[test]
fn the_same_seed_draws_the_same_values() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = common::private_postgres(dir.path());
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sysbench/draws.lua"
    );
    let server = pgsql_options(port);
    for args in [
        strings(&["--events=1", "--rand-seed=7", "run"]),
        strings(&[
            "--events=1",
            "--rand-seed=91",
            "--rand-type=pareto",
            "--draws=50",
            "run",
        ]),
        strings(&[
            "--events=1",
            "--rand-seed=12345",
            "--rand-type=gaussian",
            "--rand-spec-iter=5",
            "run",
        ]),
    ] {
        let ours: Vec<String> = server.iter().cloned().chain(args.clone()).collect();
        // The unique sequence is seeded before --rand-seed is read, from the clock in sysbench.
        let drawn = |out: String| -> Vec<String> {
            lines(&out, "draw ")
                .into_iter()
                .filter(|l| !l.contains(" unique "))
                .collect()
        };
        let theirs = drawn(run_ok(Tool::Sysbench, script, &args, dir.path()));
        let hakari = drawn(run_ok(Tool::Hakari, script, &ours, dir.path()));
        assert!(theirs.len() >= 180, "{args:?}: {theirs:?}");
        assert_eq!(hakari, theirs, "{args:?}");
    }
}

/// An event that returns a true value ends its thread's loop, uncounted, as in sysbench: two
/// threads that stop at their fifth event count eight events under both tools.
#[test]
fn an_event_returning_true_ends_its_thread_uncounted() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = common::private_postgres(dir.path());
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sysbench/stops.lua"
    );
    let args = strings(&["--threads=2", "--time=60", "run"]);
    let server = pgsql_options(port);
    let ours: Vec<String> = server.iter().cloned().chain(args.clone()).collect();
    let events = |out: String| -> Vec<String> {
        (out.lines())
            .filter(|l| l.trim_start().starts_with("total number of events:"))
            .filter_map(|l| l.split_whitespace().last().map(str::to_string))
            .collect()
    };
    let theirs = events(run_ok(Tool::Sysbench, script, &args, dir.path()));
    let hakari = events(run_ok(Tool::Report, script, &ours, dir.path()));
    assert_eq!(theirs, ["8"], "sysbench's count");
    assert_eq!(hakari, theirs);
}

/// What both tools' `prepare` made: each table's definition, row count and ids alike, and
/// values of sysbench's form (k in 1..=table size, c and pad of digit groups).
fn assert_same_form(script: &str, theirs: &[Table], ours: &[Table]) {
    assert_eq!(theirs.len(), ours.len(), "{script}: tables");
    for (t, o) in theirs.iter().zip(ours) {
        assert_eq!(
            t.definition, o.definition,
            "{script}: {} definition",
            t.name
        );
        assert_eq!(t.rows, o.rows, "{script}: {} rows", t.name);
        assert_eq!(t.ids, o.ids, "{script}: {} ids", t.name);
        for table in [t, o] {
            assert!(table.values_in_form, "{script}: {} values", table.name);
        }
    }
}

/// One table as a test compares it.
#[derive(Debug)]
struct Table {
    name: String,
    definition: String,
    rows: i64,
    ids: String,
    values_in_form: bool,
    checksum: String,
}

const SHAPES: &str = "c REGEXP '^([0-9]{11}-){9}[0-9]{11}$' AND pad REGEXP '^([0-9]{11}-){4}[0-9]{11}$' AND k BETWEEN 1 AND 200";

fn mysql_tables(conn: &mut mysql::Conn, db: &str) -> Vec<Table> {
    use mysql::prelude::Queryable;
    let names: Vec<String> = conn
        .query(format!("SELECT table_name FROM information_schema.tables WHERE table_schema = '{db}' ORDER BY table_name"))
        .unwrap();
    (names.into_iter())
        .map(|name| {
            let (_, definition): (String, String) = conn
                .query_first(format!("SHOW CREATE TABLE {db}.{name}"))
                .unwrap()
                .unwrap();
            // AUTO_INCREMENT=N is where the table's counter stands, which a run moves.
            let definition = definition
                .split_whitespace()
                .filter(|w| !w.starts_with("AUTO_INCREMENT="))
                .collect::<Vec<_>>()
                .join(" ");
            let (rows, ids, in_form): (i64, Option<String>, Option<i64>) = conn
                .query_first(format!(
                    "SELECT count(*), md5(group_concat(id ORDER BY id)), coalesce(sum({SHAPES}), 0) = count(*) FROM {db}.{name}"
                ))
                .unwrap()
                .unwrap();
            let checksum: Option<String> = conn
                .query_first(format!(
                    "SELECT md5(group_concat(concat_ws('|', id, k, c, pad) ORDER BY id SEPARATOR '/')) FROM {db}.{name}"
                ))
                .unwrap()
                .unwrap();
            Table {
                name,
                definition,
                rows,
                ids: ids.unwrap_or_default(),
                values_in_form: in_form == Some(1),
                checksum: checksum.unwrap_or_default(),
            }
        })
        .collect()
}

/// MariaDB: for every script, `prepare` makes the same tables; from a copy of sysbench's rows,
/// `run` with the same seed leaves the same rows, the statements MariaDB counted and the counts
/// per transaction sysbench prints.
#[test]
fn every_script_on_mariadb_matches_sysbench() {
    use mysql::prelude::Queryable;
    let dir = tempfile::tempdir().unwrap();
    // group_concat over 200 ids needs more than its default 1,024 bytes.
    let (_server, socket, mut admin) = common::private_mariadb(dir.path());
    admin
        .query_drop("SET SESSION group_concat_max_len = 1000000")
        .unwrap();
    let with = |db: &str, more: &[&str]| -> Vec<String> {
        let mut a = strings(&[
            "--db-driver=mysql",
            &format!("--mysql-socket={}", socket.display()),
            "--mysql-user=root",
            &format!("--mysql-db={db}"),
        ]);
        a.extend(strings(SIZE));
        a.extend(strings(more));
        a
    };
    // What hakari sends of its own to connect and describe the server, from a script that
    // connects one thread as the scripts do and sends nothing: taken off hakari's counts.
    let quiet = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sysbench/draws.lua"
    );
    let before = com(&mut admin);
    let mut quiet_args = with("mysql", &["--draws=1", "--connect", "--events=1", "run"]);
    quiet_args.retain(|a| !SIZE.contains(&a.as_str()));
    run_ok(Tool::Unread, quiet, &quiet_args, dir.path());
    let baseline = delta(&com(&mut admin), &before);

    for script in SCRIPTS {
        let made: Vec<Vec<Table>> = [Tool::Sysbench, Tool::Hakari]
            .map(|tool| {
                let db = format!("{tool:?}_{script}").to_lowercase();
                admin.query_drop(format!("CREATE DATABASE {db}")).unwrap();
                run_ok(tool, script, &with(&db, &["prepare"]), dir.path());
                mysql_tables(&mut admin, &db)
            })
            .into();
        assert_same_form(script, &made[0], &made[1]);

        let mut after = Vec::new();
        for tool in [Tool::Sysbench, Tool::Unread, Tool::Hakari] {
            // Each starts from sysbench's rows.
            let db = format!("{tool:?}_{script}_run").to_lowercase();
            admin.query_drop(format!("CREATE DATABASE {db}")).unwrap();
            for t in &made[0] {
                let from = format!("sysbench_{script}.{}", t.name);
                admin
                    .query_drop(format!("CREATE TABLE {db}.{} LIKE {from}", t.name))
                    .unwrap();
                admin
                    .query_drop(format!("INSERT INTO {db}.{} SELECT * FROM {from}", t.name))
                    .unwrap();
            }
            let before = com(&mut admin);
            let out = run_ok(
                tool,
                script,
                &with(&db, &["--events=40", "--rand-seed=3", "run"]),
                dir.path(),
            );
            let counted = delta(&com(&mut admin), &before);
            let (counted, per) = match tool {
                Tool::Sysbench => (counted, Some(sysbench_per_transaction(&out))),
                Tool::Unread => (delta(&counted, &baseline), None),
                Tool::Hakari | Tool::Report => {
                    (BTreeMap::new(), Some(hakari_per_transaction(dir.path())))
                }
            };
            let tables: Vec<String> = (mysql_tables(&mut admin, &db).into_iter())
                .map(|t| format!("{} {} {}", t.name, t.rows, t.checksum))
                .collect();
            after.push((tables, counted, per));
        }
        let (s, unread, h) = (&after[0], &after[1], &after[2]);
        assert_eq!(s.0, unread.0, "{script}: the tables after run");
        assert_eq!(s.0, h.0, "{script}: the tables after run (readings on)");
        assert_eq!(s.1, unread.1, "{script}: statements MariaDB counted");
        assert_eq!(s.2, h.2, "{script}: read/write/other per transaction");
        assert!(s.1.values().any(|&n| n >= 40), "{script}: {:?}", s.1);
    }

    admin.query_drop("CREATE DATABASE hk_values").unwrap();
    assert_same_values(&with("hk_values", &[]), dir.path());
}

/// The values a script reads, through a prepared statement and a plain query (`connection`:
/// the options that reach a database of its own): text as the server sent it ('007' stays
/// '007', '1e5' a string, PostgreSQL's NUMERIC '7.00'), numbers, NULL; on MariaDB a prepared
/// statement's rows counted but not handed over, with sysbench's alert for the fetch.
fn assert_same_values(connection: &[String], dir: &Path) {
    let values = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sysbench/values.lua"
    );
    let mut args = connection.to_vec();
    args.retain(|a| !SIZE.contains(&a.as_str()));
    args.extend(strings(&["--events=1", "run"]));
    let shown = |tool| {
        let out = run_ok(tool, values, &args, dir);
        (out.lines())
            .filter(|l| {
                ["prepared", "query", "ALERT"]
                    .iter()
                    .any(|p| l.starts_with(p))
                    || l.contains('|')
            })
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let theirs = shown(Tool::Sysbench);
    // (PostgreSQL keeps CHAR's padding: '007       '.)
    let read = |l: &String| l.contains("|007") && l.contains("|1e5|");
    assert!(theirs.iter().any(read), "{theirs:?}");
    assert_eq!(shown(Tool::Hakari), theirs, "the values a script reads");
}

fn postgres_tables(c: &mut postgres::Client) -> Vec<Table> {
    let names: Vec<String> = (c.query("SELECT relname::text FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY 1", &[]))
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    // CHAR(n) keeps its padding in PostgreSQL.
    let shapes = (SHAPES.replace(" REGEXP ", " ~ "))
        .replace("c ~", "rtrim(c) ~")
        .replace("pad ~", "rtrim(pad) ~");
    (names.into_iter())
        .map(|name| {
            let definition: String = c
                .query_one(
                    "SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ', ' ORDER BY a.attnum) \
                     || ' | ' || (SELECT string_agg(pg_get_indexdef(indexrelid), '; ' ORDER BY 1) FROM pg_index WHERE indrelid = $1::text::regclass) \
                     FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum \
                     WHERE a.attrelid = $1::text::regclass AND a.attnum > 0 AND NOT a.attisdropped",
                    &[&name],
                )
                .unwrap()
                .get(0);
            let row = c
                .query_one(
                    &format!(
                        "SELECT count(*), coalesce(md5(string_agg(id::text, ',' ORDER BY id)), ''), \
                         coalesce(sum(({shapes})::int), 0) = count(*), \
                         coalesce(md5(string_agg(concat_ws('|', id, k, c, pad), '/' ORDER BY id)), '') FROM {name}"
                    ),
                    &[],
                )
                .unwrap();
            Table {
                name,
                definition,
                rows: row.get(0),
                ids: row.get(1),
                values_in_form: row.get(2),
                checksum: row.get(3),
            }
        })
        .collect()
}

/// PostgreSQL: for every script, `prepare` makes the same tables; from a copy of sysbench's
/// rows, `run` with the same seed leaves the same rows, the rows and index scans each table's
/// statistics counted, and the counts per transaction sysbench prints.
#[test]
fn every_script_on_postgres_matches_sysbench() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = common::private_postgres(dir.path());
    let url = |db: &str| format!("postgres://hakari@127.0.0.1:{port}/{db}");
    let mut admin = postgres::Client::connect(&url("hakari"), postgres::NoTls).unwrap();
    let with = |db: &str, more: &[&str]| -> Vec<String> {
        let mut a = strings(&[
            "--db-driver=pgsql",
            "--pgsql-host=127.0.0.1",
            &format!("--pgsql-port={port}"),
            "--pgsql-user=hakari",
            &format!("--pgsql-db={db}"),
        ]);
        a.extend(strings(SIZE));
        a.extend(strings(more));
        a
    };
    let connect = |db: &str| postgres::Client::connect(&url(db), postgres::NoTls).unwrap();
    let counted = |db: &str| -> Vec<(String, i64, i64, i64, i64)> {
        let mut c = connect(db);
        // The tools' backends flush their statistics as they exit; give them the moment.
        std::thread::sleep(std::time::Duration::from_millis(1000));
        c.query(
            "SELECT relname::text, n_tup_ins, n_tup_upd, n_tup_del, coalesce(idx_scan, 0) \
             FROM pg_stat_user_tables ORDER BY relname",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect()
    };
    for script in SCRIPTS {
        let made: Vec<Vec<Table>> = [Tool::Sysbench, Tool::Hakari]
            .map(|tool| {
                let db = format!("{tool:?}_{script}").to_lowercase();
                admin
                    .batch_execute(&format!("CREATE DATABASE {db}"))
                    .unwrap();
                run_ok(tool, script, &with(&db, &["prepare"]), dir.path());
                postgres_tables(&mut connect(&db))
            })
            .into();
        assert_same_form(script, &made[0], &made[1]);

        let mut after = Vec::new();
        // hakari's counts per transaction as its --output sysbench prints them, read as
        // sysbench's report is (the MariaDB test reads them from the result file).
        for tool in [Tool::Sysbench, Tool::Report] {
            // Both start from sysbench's rows (its database as the template).
            let db = format!("{tool:?}_{script}_run").to_lowercase();
            let copy = format!("CREATE DATABASE {db} TEMPLATE sysbench_{script}");
            let mut tries = 0;
            while let Err(e) = admin.batch_execute(&copy) {
                tries += 1;
                assert!(tries < 50, "{copy}: {e}");
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            let out = run_ok(
                tool,
                script,
                &with(&db, &["--events=40", "--rand-seed=3", "run"]),
                dir.path(),
            );
            // A database made from a template starts with no statistics of its own.
            let now = counted(&db);
            let per = sysbench_per_transaction(&out);
            let changes = now;
            let tables: Vec<String> = (postgres_tables(&mut connect(&db)).into_iter())
                .map(|t| format!("{} {} {}", t.name, t.rows, t.checksum))
                .collect();
            after.push((tables, changes, per));
        }
        let (s, h) = (&after[0], &after[1]);
        assert_eq!(s.0, h.0, "{script}: the tables after run");
        assert_eq!(
            s.1, h.1,
            "{script}: rows and index scans PostgreSQL counted"
        );
        assert_eq!(s.2, h.2, "{script}: read/write/other per transaction");
    }

    admin.batch_execute("CREATE DATABASE hk_values").unwrap();
    assert_same_values(&with("hk_values", &[]), dir.path());
}

/// Bad input: a missing script, an unknown option, a Lua error, a password on the command
/// line, a driver hakari lacks: one line naming it, a non-zero exit.
#[test]
fn bad_input_is_one_line_and_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = common::private_postgres(dir.path());
    let broken = dir.path().join("broken.lua");
    std::fs::write(
        &broken,
        "function event()\n  local x = nil\n  return x.y\nend\n",
    )
    .unwrap();
    let server = pgsql_options(port);
    let on_server =
        |more: &[&str]| -> Vec<String> { server.iter().cloned().chain(strings(more)).collect() };
    let cases: [(&str, Vec<String>, &str); 6] = [
        (
            "no_such_script",
            strings(&["run"]),
            "no script 'no_such_script'",
        ),
        (
            "oltp_read_only",
            on_server(&["--no-such-option=1", "run"]),
            "--no-such-option: not an option",
        ),
        (
            "oltp_read_only",
            strings(&["--mysql-password=x", "run"]),
            "~/.my.cnf",
        ),
        (
            "oltp_read_only",
            strings(&["--db-driver=drizzle", "run"]),
            "mysql driver",
        ),
        (
            "oltp_read_only",
            on_server(&["--percentile=97", "run"]),
            "--percentile=97",
        ),
        (
            broken.to_str().unwrap(),
            on_server(&["--events=3", "run"]),
            "broken.lua:3:",
        ),
    ];
    for (script, args, says) in cases {
        let o = run(Tool::Hakari, script, &args, dir.path());
        assert!(!o.status.success(), "{script} {args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "{script} {args:?}: {}", text(&o));
        let last = err.lines().filter(|l| l.contains(says)).count();
        assert_eq!(last, 1, "{script}: said once: {err}");
    }
}

/// Everything after the script is sysbench's, even an option hakari also has (`--threads`,
/// `--rate`) given right after it: once refused as hakari's own.
#[test]
fn options_after_the_script_are_sysbenchs_even_hakaris_names() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = common::hakari(&[
        "run",
        "sysbench",
        "--out",
        out,
        "oltp_point_select",
        "--threads=2",
        "--rate=5",
        "help",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("oltp_point_select options:"), "{said}");
    let o = common::hakari(&["run", "sysbench", "--threads", "2", "oltp_point_select"]);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("--threads=N after the script"),
        "{}",
        text(&o)
    );
}
