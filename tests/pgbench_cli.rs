//! `hakari pgbench` against pgbench itself (Debian's pgbench 15), on the same private
//! PostgreSQL: the same command line makes the same tables (their definitions and a checksum
//! of every row), runs the same number of transactions where the count is fixed, leaves the
//! balances consistent, prints the lines pgbench's report has, and fails where pgbench fails.

mod common;

use std::path::Path;
use std::process::{Command, Output};

/// The server's address for both tools: pgbench's options, no password (the server trusts
/// loopback), and each run in its own database.
struct Server {
    _server: hakari::server::Launched,
    port: u16,
    admin: postgres::Client,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let (server, port) = common::private_postgres(dir);
        let admin = postgres::Client::connect(&server.url, postgres::NoTls).unwrap();
        Server {
            _server: server,
            port,
            admin,
        }
    }

    /// A fresh database `name`.
    fn database(&mut self, name: &str) {
        // One statement each: batched, they would run as one transaction, which these refuse.
        for sql in [
            format!("DROP DATABASE IF EXISTS {name}"),
            format!("CREATE DATABASE {name}"),
        ] {
            self.admin.batch_execute(&sql).unwrap();
        }
    }

    /// A fresh database for `tool`'s run, with the tables `pgbench -i` makes; its name.
    fn initialized(&mut self, tool: Tool, dir: &Path) -> String {
        let db = format!("by_{tool:?}").to_lowercase();
        self.database(&db);
        let init = self.run(Tool::Pgbench, &["-i", "-q"], &db, dir);
        assert!(init.status.success(), "{}", text(&init));
        db
    }

    /// `tool` with `args` on a fresh database `pgbench -i` made, which must succeed; what it
    /// printed.
    fn report(&mut self, tool: Tool, args: &[&str], dir: &Path) -> String {
        let db = self.initialized(tool, dir);
        let o = self.run(tool, args, &db, dir);
        let report = text(&o);
        assert!(o.status.success(), "{tool:?}: {report}");
        report
    }

    fn connect(&self, db: &str) -> postgres::Client {
        let url = format!("postgres://hakari@127.0.0.1:{}/{db}", self.port);
        postgres::Client::connect(&url, postgres::NoTls).unwrap()
    }

    /// `tool` (pgbench or hakari pgbench) with `args`, on database `db`.
    fn run(&self, tool: Tool, args: &[&str], db: &str, out: &Path) -> Output {
        self.run_with(tool, args, db, out, &[])
    }

    /// As [`Server::run`], with `env` set for the tool too.
    fn run_with(
        &self,
        tool: Tool,
        args: &[&str],
        db: &str,
        out: &Path,
        env: &[(&str, &str)],
    ) -> Output {
        let port = self.port.to_string();
        let mut c = match tool {
            Tool::Pgbench => Command::new("pgbench"),
            Tool::Hakari => {
                let mut c = Command::new(env!("CARGO_BIN_EXE_hakari"));
                c.args(["pgbench", "--out", out.to_str().unwrap()]);
                c
            }
        };
        c.args(args)
            .args(["-h", "127.0.0.1", "-p", &port, "-U", "hakari", db])
            .current_dir(out)
            .env_remove("PGPASSWORD")
            .env_remove("PGSERVICE")
            .env_remove("PGOPTIONS")
            .envs(env.iter().copied())
            .output()
            .expect("the tool runs")
    }
}

#[derive(Clone, Copy, Debug)]
enum Tool {
    Pgbench,
    Hakari,
}

/// The count of pgbench's "number of transactions actually processed" line, as printed.
fn processed(tool: Tool, out: &str) -> String {
    (out.lines())
        .find_map(|l| l.strip_prefix("number of transactions actually processed: "))
        .unwrap_or_else(|| panic!("{tool:?}: no count in {out}"))
        .to_string()
}

/// The measurements of the one result hakari pgbench wrote in `out`.
fn measurements(out: &Path) -> Vec<serde_json::Value> {
    let result: serde_json::Value =
        serde_json::from_slice(&std::fs::read(common::only_result(out)).unwrap()).unwrap();
    result["measurements"].as_array().unwrap().clone()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// What pgbench's tables are in `db`: each table's kind, persistence and options, its columns,
/// constraints and partition bounds, and a checksum of its rows in key order.
fn tables(c: &mut postgres::Client) -> Vec<String> {
    let mut out = Vec::new();
    let classes = c
        .query(
            "SELECT c.relname::text, c.relkind::text, c.relpersistence::text, \
                    coalesce(array_to_string(c.reloptions, ','), ''), \
                    coalesce(pg_get_expr(c.relpartbound, c.oid), ''), \
                    coalesce(pg_get_partkeydef(c.oid), ''), coalesce(t.spcname::text, '') \
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace \
             WHERE n.nspname = 'public' AND c.relname LIKE 'pgbench%' ORDER BY 1",
            &[],
        )
        .unwrap();
    for r in classes {
        let row: Vec<String> = (0..7).map(|i| r.get::<_, String>(i)).collect();
        out.push(row.join(" | "));
    }
    let columns = c
        .query(
            "SELECT table_name::text || '.' || column_name::text || ' ' || data_type::text || \
                    coalesce('(' || character_maximum_length || ')', '') || ' ' || is_nullable::text \
             FROM information_schema.columns WHERE table_schema = 'public' \
             AND table_name LIKE 'pgbench%' ORDER BY table_name, ordinal_position",
            &[],
        )
        .unwrap();
    out.extend(columns.iter().map(|r| r.get::<_, String>(0)));
    let constraints = c
        .query(
            "SELECT conrelid::regclass::text || ' ' || conname::text || ' ' || pg_get_constraintdef(oid) \
             FROM pg_constraint WHERE conrelid::regclass::text LIKE 'pgbench%' ORDER BY 1",
            &[],
        )
        .unwrap();
    out.extend(constraints.iter().map(|r| r.get::<_, String>(0)));
    for (table, key) in [
        ("branches", "bid"),
        ("tellers", "tid"),
        ("accounts", "aid"),
        ("history", "tid, bid, aid, delta"),
    ] {
        let sum: String = c
            .query_one(
                &format!(
                    "SELECT count(*) || ' ' || coalesce(md5(string_agg(t::text, ',' ORDER BY {key})), '') \
                     FROM pgbench_{table} t"
                ),
                &[],
            )
            .unwrap()
            .get(0);
        out.push(format!("{table}: {sum}"));
    }
    out
}

/// The same `-i` command line makes the same tables with both tools (in the same tablespaces).
#[test]
fn initialisation_makes_the_tables_pgbench_makes() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    // A tablespace (its name needs quoting): a directory of the server's own user.
    let data: String = (server.admin.query_one("SHOW data_directory", &[]))
        .unwrap()
        .get(0);
    let owner = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&data).unwrap());
    let space = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
    std::os::unix::fs::chown(space.path(), Some(owner), None).unwrap();
    let create = format!(
        "CREATE TABLESPACE \"hk ts\" LOCATION '{}'",
        space.path().display()
    );
    server.admin.batch_execute(&create).unwrap();
    let cases: &[&[&str]] = &[
        &["-i", "-s", "2"],
        &["-i", "-I", "dtGvp"],
        &["-i", "-s", "2", "--foreign-keys", "-F", "90", "-q"],
        &["-i", "--unlogged-tables", "-n"],
        &["-i", "-s", "3", "--partitions", "3"],
        &[
            "-i",
            "--partitions",
            "4",
            "--partition-method",
            "hash",
            "--unlogged-tables",
        ],
        &["-i", "-I", "dt"],
        &["-i", "--tablespace", "hk ts", "--partitions", "2"],
        &["-i", "--index-tablespace", "hk ts", "--unlogged-tables"],
    ];
    for args in cases {
        let mut made = Vec::new();
        for tool in [Tool::Pgbench, Tool::Hakari] {
            let db = format!("by_{tool:?}").to_lowercase();
            server.database(&db);
            let o = server.run(tool, args, &db, dir.path());
            assert!(o.status.success(), "{tool:?} {args:?}: {}", text(&o));
            made.push(tables(&mut server.connect(&db)));
        }
        assert_eq!(
            made[0], made[1],
            "{args:?}: pgbench's tables, then hakari's"
        );
    }
}

/// Where the number of transactions is fixed (-t), both tools run that many, each leaves as
/// many history rows as it ran updating transactions, and the balances add up; the report has
/// pgbench's lines.
#[test]
fn fixed_runs_process_the_same_transactions() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let script = dir.path().join("mine.sql");
    std::fs::write(
        &script,
        "\\set aid random(1, 100000 * :scale)\n\\set delta :step\nUPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\nINSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, 1, :aid, :delta, CURRENT_TIMESTAMP);\n",
    )
    .unwrap();
    let file = format!("{}@1", script.display());
    let cases: Vec<(Vec<&str>, i64)> = vec![
        // (arguments, history rows per transaction)
        (vec!["-c", "2", "-t", "15"], 1),
        // Three clients on two threads: pgbench deals them 2 and 1, hakari too.
        (vec!["-c", "3", "-t", "10", "-j", "2", "-M", "prepared"], 1),
        (vec!["-c", "2", "-t", "10", "-M", "extended"], 1),
        (vec!["-c", "2", "-t", "20", "-S"], 0),
        (vec!["-c", "2", "-t", "12", "-N", "-M", "simple"], 1),
        (vec!["-c", "1", "-t", "30", "-f", &file, "-D", "step=3"], 1),
        (
            vec![
                "-c",
                "2",
                "-t",
                "25",
                "-b",
                "select-only@1",
                "-b",
                "simple-update@1",
            ],
            -1,
        ),
        (vec!["-c", "2", "-t", "10", "-C", "-M", "prepared"], 1),
    ];
    for (args, history_per) in &cases {
        let mut counts = Vec::new();
        for tool in [Tool::Pgbench, Tool::Hakari] {
            let db = format!("by_{tool:?}").to_lowercase();
            server.database(&db);
            let init = server.run(Tool::Pgbench, &["-i", "-q"], &db, dir.path());
            assert!(init.status.success(), "{}", text(&init));
            let o = server.run(tool, args, &db, dir.path());
            let out = text(&o);
            assert!(o.status.success(), "{tool:?} {args:?}: {out}");
            let processed = processed(tool, &out);
            for wanted in [
                "transaction type: ",
                "query mode: ",
                "number of clients: ",
                "latency average = ",
                "tps = ",
            ] {
                assert!(
                    out.contains(wanted),
                    "{tool:?} {args:?}: no \"{wanted}\" in {out}"
                );
            }
            let mut c = server.connect(&db);
            let history: i64 = c
                .query_one("SELECT count(*) FROM pgbench_history", &[])
                .unwrap()
                .get(0);
            let clients: i64 = args[1].parse().unwrap();
            let per_client: i64 = args[3].parse().unwrap();
            if *history_per >= 0 {
                assert_eq!(
                    history,
                    history_per * clients * per_client,
                    "{tool:?} {args:?}"
                );
            }
            // Every update of an account is in the history, with its delta.
            let (accounts, deltas): (i64, i64) = {
                let r = c
                    .query_one(
                        "SELECT (SELECT sum(abalance) FROM pgbench_accounts)::int8, \
                                coalesce((SELECT sum(delta) FROM pgbench_history), 0)::int8",
                        &[],
                    )
                    .unwrap();
                (r.get(0), r.get(1))
            };
            assert_eq!(accounts, deltas, "{tool:?} {args:?}");
            let threads = out.lines().find(|l| l.starts_with("number of threads: "));
            counts.push((processed, threads.map(str::to_string)));
        }
        assert_eq!(
            counts[0], counts[1],
            "{args:?}: pgbench's count and threads, then hakari's"
        );
        let counts: Vec<String> = counts.into_iter().map(|(c, _)| c).collect();
        assert_eq!(
            counts[0],
            format!(
                "{}/{}",
                args[1].parse::<u64>().unwrap() * args[3].parse::<u64>().unwrap(),
                args[1].parse::<u64>().unwrap() * args[3].parse::<u64>().unwrap()
            )
        );
    }
}

/// Under -R with -L both tools start transactions on a Poisson schedule at the rate asked (so
/// each runs about rate x seconds of them) and report the skipped and the late.
#[test]
fn a_rate_with_a_latency_limit_reports_skipped_and_late() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    for tool in [Tool::Pgbench, Tool::Hakari] {
        let db = server.initialized(tool, dir.path());
        let args = [
            "-c", "2", "-T", "3", "-R", "200", "-L", "20", "-S", "-P", "1",
        ];
        let o = server.run(tool, &args, &db, dir.path());
        let out = text(&o);
        assert!(o.status.success(), "{tool:?}: {out}");
        let processed: f64 = processed(tool, &out).parse().unwrap();
        assert!(
            (450.0..=750.0).contains(&processed),
            "{tool:?}: {processed} transactions at 200/s for 3 s"
        );
        // -P: a line a second, `progress: T s, TPS tps, lat MS ms stddev MS, N failed, lag MS
        // ms, N skipped`.
        let progress: Vec<f64> = (out.lines())
            .filter_map(|l| l.strip_prefix("progress: "))
            .map(|l| {
                let f: Vec<&str> = l.split([' ', ',']).filter(|w| !w.is_empty()).collect();
                assert_eq!(
                    (f[1], f[3], f[4], f[6], f[7], f[10], f[11], f[13], f[15]),
                    ("s", "tps", "lat", "ms", "stddev", "failed", "lag", "ms", "skipped"),
                    "{tool:?}: {l}"
                );
                assert_eq!(f.len(), 16, "{tool:?}: {l}");
                for i in [2, 5, 8, 9, 12, 14] {
                    f[i].parse::<f64>()
                        .unwrap_or_else(|_| panic!("{tool:?}: {l}"));
                }
                f[0].parse().unwrap()
            })
            .collect();
        // pgbench leaves out the line at the test's very end; hakari prints it when whole.
        assert!(
            progress.starts_with(&[1.0, 2.0]) && progress.len() <= 3,
            "{tool:?}: {out}"
        );
        for wanted in [
            "number of transactions skipped: ",
            "number of transactions above the 20.0 ms latency limit: ",
            "rate limit schedule lag: avg ",
        ] {
            assert!(out.contains(wanted), "{tool:?}: no \"{wanted}\" in {out}");
        }
    }
}

/// Without -P neither tool prints a line per interval, however long the test runs (hakari's own
/// steps print theirs once they have run five seconds).
#[test]
fn no_progress_lines_without_p() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    for tool in [Tool::Pgbench, Tool::Hakari] {
        let out = server.report(tool, &["-c", "1", "-T", "7", "-S"], dir.path());
        assert!(!out.contains("progress: "), "{tool:?}: {out}");
    }
}

/// The log files in `dir`, each as its lines of fields.
fn logs(dir: &Path) -> Vec<Vec<Vec<String>>> {
    let mut files: Vec<_> = (std::fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("pgbench_log.")
        })
        .collect();
    files.sort();
    (files.iter())
        .map(|f| {
            (std::fs::read_to_string(f).unwrap().lines())
                .map(|l| l.split(' ').map(str::to_string).collect())
                .collect()
        })
        .collect()
}

/// Reads a per-transaction line as pgbench's documentation describes it: `client_id
/// transaction_no time script_no time_epoch time_us [schedule_lag] [retries]`, the time in
/// microseconds or `skipped`/`failed`; returns (client, transaction number).
fn transaction_line(fields: &[String], lag: bool, retries: bool, window: (u64, u64)) -> (u64, u64) {
    let n = |i: usize| -> u64 {
        fields[i]
            .parse()
            .unwrap_or_else(|_| panic!("{fields:?}: field {i}"))
    };
    assert_eq!(
        fields.len(),
        6 + usize::from(lag) + usize::from(retries),
        "{fields:?}"
    );
    assert!(
        fields[2].parse::<u64>().is_ok() || ["skipped", "failed"].contains(&fields[2].as_str()),
        "{fields:?}"
    );
    assert_eq!(n(3), 0, "one script: {fields:?}");
    assert!(
        (window.0..=window.1).contains(&n(4)),
        "{fields:?} outside {window:?}"
    );
    assert!(n(5) < 1_000_000, "{fields:?}");
    if lag {
        n(6);
    }
    if retries {
        n(6 + usize::from(lag));
    }
    (n(0), n(1))
}

/// Reads an aggregate line as the documentation describes it (pgbench 15's fifteen fields):
/// `interval_start num_transactions sum_latency sum_latency_2 min_latency max_latency sum_lag
/// sum_lag_2 min_lag max_lag skipped retried retries serialization_failures deadlock_failures`;
/// returns (interval_start, num_transactions).
fn aggregate_line(fields: &[String]) -> (u64, u64) {
    assert_eq!(fields.len(), 15, "{fields:?}");
    let n: Vec<f64> = (fields.iter())
        .map(|f| f.parse().unwrap_or_else(|_| panic!("{fields:?}")))
        .collect();
    let (count, sum, sum2, min, max) = (n[1], n[2], n[3], n[4], n[5]);
    if count > 0.0 {
        assert!(
            min <= max && min * count <= sum + 0.5 && sum <= max * count + 0.5,
            "{fields:?}"
        );
        assert!(
            sum2 + 0.5 >= sum * sum / count,
            "{fields:?}: sum of squares below sum^2 / n"
        );
    }
    (n[0] as u64, count as u64)
}

/// `-l` writes logs that a reader of pgbench's documented formats reads the same from both
/// tools: a file per thread (four clients on two threads), a line per transaction (with the lag
/// under -R and the retries when more than one try is allowed) numbered by its client, and with
/// `--aggregate-interval` a line per interval whose counts add up to the transactions of the
/// whole intervals.
#[test]
fn logs_read_as_pgbench_documents_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    for tool in [Tool::Pgbench, Tool::Hakari] {
        let db = server.initialized(tool, dir.path());
        let epoch = || {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs()
        };

        let each = tempfile::tempdir().unwrap();
        let started = epoch();
        let args = [
            "-c",
            "4",
            "-j",
            "2",
            "-t",
            "5",
            "-R",
            "200",
            "--max-tries",
            "2",
            "-l",
            "-S",
        ];
        let o = server.run(tool, &args, &db, each.path());
        assert!(o.status.success(), "{tool:?}: {}", text(&o));
        let window = (started, epoch());
        let files = logs(each.path());
        assert_eq!(files.len(), 2, "{tool:?}: a file per thread");
        let mut seen: Vec<(u64, u64)> = (files.iter().flatten())
            .map(|line| transaction_line(line, true, true, window))
            .collect();
        seen.sort();
        let wanted: Vec<(u64, u64)> = (0..4).flat_map(|c| (1..=5).map(move |t| (c, t))).collect();
        assert_eq!(
            seen, wanted,
            "{tool:?}: each client's transactions, numbered"
        );

        let aggregated = tempfile::tempdir().unwrap();
        let args = [
            "-c",
            "4",
            "-j",
            "2",
            "-T",
            "3",
            "-l",
            "--aggregate-interval",
            "1",
            "-S",
        ];
        let o = server.run(tool, &args, &db, aggregated.path());
        let out = text(&o);
        assert!(o.status.success(), "{tool:?}: {out}");
        let processed: u64 = processed(tool, &out).parse().unwrap();
        let files = logs(aggregated.path());
        assert_eq!(files.len(), 2, "{tool:?}: a file per thread");
        let mut logged = 0;
        for file in &files {
            let lines: Vec<(u64, u64)> = file.iter().map(|l| aggregate_line(l)).collect();
            assert!(lines.len() >= 2, "{tool:?}: {file:?}");
            for pair in lines.windows(2) {
                assert_eq!(
                    pair[1].0,
                    pair[0].0 + 1,
                    "{tool:?}: intervals one second apart"
                );
            }
            logged += lines.iter().map(|l| l.1).sum::<u64>();
        }
        // The unfinished last interval is not logged.
        assert!(
            logged > 0 && logged <= processed,
            "{tool:?}: {logged} logged of {processed}"
        );
    }
}

/// `-r` lists each command of the script (its meta-commands too) with its average latency in
/// milliseconds and its failures, in pgbench's columns; both tools list the same commands in
/// the same order, each as pgbench reads it: the built-in script's, and a file's with a
/// statement over two lines (its first shown), blanks kept as written, a compound statement
/// (one command, its `\;` read as `;`), two statements on one line, and meta-commands indented,
/// with blanks after them and continued over two lines with a backslash (all their lines shown).
#[test]
fn per_statement_latencies_list_the_scripts_statements() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let file = dir.path().join("shapes.sql");
    std::fs::write(
        &file,
        "SELECT 1\n  + 2;\nselect   3 ;   \n-- a comment\nSELECT 4 \\; SELECT 5;\n\\set x 1\nSELECT :x; SELECT 6;\n\
         \t\\set y  2   \n\\set z 1 + \\\n   :y  \r\n\\sleep 1 \\\r\n us\n",
    )
    .unwrap();
    let file = file.display().to_string();
    for (script, commands) in [(None, 11), (Some(["-f", file.as_str()]), 9)] {
        let mut listed = Vec::new();
        for tool in [Tool::Pgbench, Tool::Hakari] {
            let db = server.initialized(tool, dir.path());
            let mut args = vec!["-c", "1", "-t", "20", "-r"];
            args.extend(script.iter().flatten());
            let o = server.run(tool, &args, &db, dir.path());
            let out = text(&o);
            assert!(o.status.success(), "{tool:?}: {out}");
            // The list ends the standard output (pgbench) or a blank line does (hakari); a line
            // that is not a command's figures goes on the command before it.
            let stdout = String::from_utf8_lossy(&o.stdout);
            let lines = (stdout.split('\n'))
                .skip_while(|l| *l != "statement latencies in milliseconds and failures:")
                .skip(1)
                .take_while(|l| !l.is_empty());
            let mut statements: Vec<String> = Vec::new();
            for line in lines {
                let figures = (line.strip_prefix("   "))
                    .and_then(|l| l.trim_start().split_once(' '))
                    .and_then(|(ms, rest)| Some((ms.parse::<f64>().ok()?, rest)))
                    .and_then(|(ms, rest)| {
                        let (failures, statement) = rest.trim_start().split_once(' ')?;
                        Some((ms, failures.parse::<u64>().ok()?, statement))
                    });
                match figures {
                    Some((ms, failures, statement)) => {
                        assert!(ms >= 0.0 && failures == 0, "{tool:?}: {line}");
                        statements.push(statement.trim_start().to_string());
                    }
                    None => {
                        let last = statements.last_mut().expect("a command before");
                        last.push('\n');
                        last.push_str(line);
                    }
                }
            }
            listed.push(statements);
        }
        assert_eq!(listed[0].len(), commands, "{:?}", listed[0]);
        assert_eq!(listed[0], listed[1], "pgbench's commands, then hakari's");
    }
}

/// hakari pgbench times each command, as pgbench does, only under -r: its result has a
/// command's figures then, and none without.
#[test]
fn commands_are_timed_only_under_r() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    for (flag, timed) in [(None, false), (Some("-r"), true)] {
        let out = dir.path().join(if timed { "timed" } else { "untimed" });
        std::fs::create_dir(&out).unwrap();
        let db = server.initialized(Tool::Hakari, dir.path());
        let mut args = vec!["-c", "2", "-t", "15"];
        args.extend(flag);
        let o = server.run(Tool::Hakari, &args, &db, &out);
        assert!(o.status.success(), "{}", text(&o));
        let measurements = measurements(&out);
        let steps: Vec<&str> = (measurements.iter())
            .map(|m| m["step"].as_str().unwrap())
            .collect();
        assert!(steps.contains(&"run"), "{steps:?}");
        let commands: Vec<&&str> = steps.iter().filter(|s| s.contains(':')).collect();
        match timed {
            // The built-in TPC-B's eleven commands, each done 30 times.
            true => assert_eq!(commands.len(), 11, "{steps:?}"),
            false => assert!(commands.is_empty(), "{steps:?}"),
        }
    }
}

/// pgbench's sessions set no `synchronous_commit`: they commit as the server, the database's
/// settings and libpq's `PGOPTIONS` say. A script records the value each session has, for both
/// tools, with the server's default, with `PGOPTIONS` and with the database's own setting; and
/// hakari's result names the level that value is.
#[test]
fn sessions_commit_as_the_server_and_pgoptions_say() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let script = dir.path().join("setting.sql");
    std::fs::write(
        &script,
        "INSERT INTO seen VALUES (current_setting('synchronous_commit'));\n",
    )
    .unwrap();
    let script = script.to_str().unwrap();
    let cases = [
        (None, None, "on", "sync"),
        (Some("-c synchronous_commit=off"), None, "off", "nosync"),
        (None, Some("off"), "off", "nosync"),
        (None, Some("local"), "local", "sync"),
    ];
    for (i, (options, database, expected, level)) in cases.into_iter().enumerate() {
        for tool in [Tool::Pgbench, Tool::Hakari] {
            let db = server.initialized(tool, dir.path());
            let mut c = server.connect(&db);
            c.batch_execute("CREATE TABLE seen (setting text)").unwrap();
            if let Some(value) = database {
                c.batch_execute(&format!(
                    "ALTER DATABASE {db} SET synchronous_commit = {value}"
                ))
                .unwrap();
            }
            let out = dir.path().join(format!("{i}-{tool:?}"));
            std::fs::create_dir(&out).unwrap();
            let env: Vec<(&str, &str)> = options.map(|o| ("PGOPTIONS", o)).into_iter().collect();
            let args = ["-n", "-c", "2", "-t", "3", "-f", script];
            let o = server.run_with(tool, &args, &db, &out, &env);
            let said = text(&o);
            assert!(o.status.success(), "{tool:?}: {said}");
            let seen: Vec<String> = (c.query("SELECT DISTINCT setting FROM seen", &[]).unwrap())
                .iter()
                .map(|r| r.get(0))
                .collect();
            // A value between on and off: pgbench's sessions keep it, hakari's commit at on
            // and say so.
            match (tool, expected) {
                (Tool::Hakari, "local") => {
                    assert_eq!(seen, ["on"], "{said}");
                    assert!(said.contains("synchronous_commit=local"), "{said}");
                }
                _ => assert_eq!(seen, [expected], "{tool:?} {options:?} {database:?}"),
            }
            if let Tool::Hakari = tool {
                let measurements = measurements(&out);
                let levels: Vec<&str> = (measurements.iter())
                    .map(|m| m["durability"].as_str().unwrap())
                    .collect();
                assert!(
                    !levels.is_empty() && levels.iter().all(|l| *l == level),
                    "{levels:?}"
                );
            }
        }
    }
}

/// `--no-resources` (hakari's own option) reads none of the run's costs: no cost table in the
/// report and no `client.` or `server.` figure in the result, where the same run without it
/// has both.
#[test]
fn no_resources_reads_none_of_the_runs_costs() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let db = server.initialized(Tool::Hakari, dir.path());
    for read in [true, false] {
        let out = dir.path().join(if read { "read" } else { "unread" });
        std::fs::create_dir(&out).unwrap();
        let mut args = vec!["-c", "2", "-t", "15"];
        if !read {
            args.push("--no-resources");
        }
        let o = server.run(Tool::Hakari, &args, &db, &out);
        let said = text(&o);
        assert!(o.status.success(), "{said}");
        assert_eq!(said.contains("Cost per operation"), read, "{said}");
        let measurements = measurements(&out);
        let costs = (measurements.iter())
            .flat_map(|m| m["figures"].as_array().unwrap())
            .filter(|f| {
                let name = f["name"].as_str().unwrap();
                name.starts_with("client.") || name.starts_with("server.")
            })
            .count();
        assert_eq!(costs > 0, read, "{measurements:?}");
    }
}

/// pgbench's report with each number masked and its runs of blanks made one, so that two
/// reports of the same test compare line by line; `-r`'s commands and pgbench's "(including
/// failures)" (there only when some failed) left out.
fn layout(report: &str) -> Vec<String> {
    let from = report.find("transaction type:").expect("a report");
    let mut lines = Vec::new();
    for line in report[from..].lines() {
        if line.starts_with("   ") {
            continue;
        }
        let line = line.replace(" (including failures)", "");
        let mut masked = String::new();
        for c in line
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
        {
            let digit = c.is_ascii_digit() || (c == '.' && masked.ends_with('#'));
            match (digit, masked.ends_with('#')) {
                (true, true) => {}
                (true, false) => masked.push('#'),
                (false, _) => masked.push(c),
            }
        }
        lines.push(masked);
    }
    lines
}

/// A script whose clients lose serialization failures: each updates one row under REPEATABLE
/// READ, after a pause; written into `dir`, its path.
fn serialization(dir: &Path) -> String {
    let path = dir.join("serialization.sql");
    std::fs::write(&path, "BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT abalance FROM pgbench_accounts WHERE aid = 1;\n\\sleep 1 ms\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1;\nEND;\n").unwrap();
    path.display().to_string()
}

/// A script whose clients deadlock: each updates two rows in either order, a pause between.
fn deadlock(dir: &Path) -> String {
    let path = dir.join("deadlock.sql");
    std::fs::write(&path, "\\set a random(1, 2)\n\\set b 3 - :a\nBEGIN;\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :a;\n\\sleep 2 ms\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :b;\nEND;\n").unwrap();
    path.display().to_string()
}

/// The transactions the server rolled back in database `db` (pg_stat_database's count, which
/// each backend adds to when it is idle or ends).
fn rollbacks(admin: &mut postgres::Client, db: &str) -> u64 {
    let sql = "SELECT xact_rollback FROM pg_stat_database WHERE datname = $1";
    let n: i64 = admin.query_one(sql, &[&db]).unwrap().get(0);
    n as u64
}

/// With two scripts by weight, retries and -r, both tools print pgbench's report line for
/// line: the run's figures, then a section per script (its weight, transactions, failures,
/// retries, latency and commands), whose transactions add up to the run's; but hakari has a
/// thread per client, as the manual says. The failures and retries each report counts are the
/// transactions the server rolled back; hakari times each command in every try, as pgbench.
#[test]
fn a_report_of_several_scripts_reads_as_pgbench_s() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let path = serialization(dir.path());
    let file = format!("{path}@1");
    // The file first: both number the scripts in the command line's order.
    #[rustfmt::skip]
    let args = [
        "-c", "3", "-t", "30", "-f", &file, "-b", "select-only@2", "--max-tries", "2", "-r",
        "--failures-detailed",
    ];
    let mut layouts = Vec::new();
    let mut listed = Vec::new();
    for tool in [Tool::Pgbench, Tool::Hakari] {
        let db = server.initialized(tool, dir.path());
        let rollbacks = rollbacks(&mut server.admin, &db);
        let o = server.run(tool, &args, &db, dir.path());
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(o.status.success(), "{tool:?}: {}", text(&o));
        // Each lost try was rolled back once, as the server counts it.
        let count = |prefix: &str| -> u64 {
            (out.lines().find_map(|l| l.strip_prefix(prefix)))
                .and_then(|rest| rest.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{tool:?}: no \"{prefix}\" in {out}"))
        };
        let lost = count("number of failed transactions: ") + count("total number of retries: ");
        assert!(lost > 0, "{tool:?}: no conflict lost: {out}");
        let mut counted = 0;
        for _ in 0..50 {
            counted = self::rollbacks(&mut server.admin, &db) - rollbacks;
            if counted == lost {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        assert_eq!(
            counted, lost,
            "{tool:?}: the server's rollbacks, then the report's: {out}"
        );
        let mut lines = layout(&out);
        // hakari's own lines (where its result went) follow pgbench's report.
        let end = (lines.iter())
            .rposition(|l| l.starts_with("- statement latencies"))
            .expect("-r's lists");
        lines.truncate(end + 1);
        layouts.push(lines);
        listed.push(out.lines().filter(|l| l.starts_with("   ")).count());
        // Each script's transactions add up to the run's.
        let total: u64 = (out.lines())
            .filter(|l| l.starts_with(" - ") && l.contains(" transactions ("))
            .map(|l| l[3..].split(' ').next().unwrap().parse::<u64>().unwrap())
            .sum();
        let processed = processed(tool, &out);
        assert_eq!(
            Some(total),
            processed.split('/').next().and_then(|n| n.parse().ok()),
            "{tool:?}: {out}"
        );
    }
    assert_eq!(layouts[0], layouts[1], "pgbench's report, then hakari's");
    assert_eq!(
        listed[0], listed[1],
        "-r's commands: pgbench's, then hakari's"
    );
    // As pgbench, hakari times each command in every try that ran it: the script's first ran
    // in each transaction done, each failed, and each retry.
    let result = (std::fs::read_dir(dir.path()).unwrap().flatten())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("hakari's result file");
    let result: serde_json::Value =
        serde_json::from_slice(&std::fs::read(result).unwrap()).unwrap();
    let step = |name: String| {
        (result["measurements"].as_array().unwrap().iter())
            .find(|m| m["step"].as_str() == Some(name.as_str()))
            .unwrap_or_else(|| panic!("no step {name}"))
            .clone()
    };
    let script = step(format!("script {path}"));
    let done: u64 = (script["runs"].as_array().unwrap().iter())
        .map(|r| r["ops"].as_u64().unwrap())
        .sum();
    let failed = (script["figures"].as_array().unwrap().iter())
        .find(|f| f["name"] == "script.failed")
        .map_or(0, |f| f["value"].as_f64().unwrap() as u64);
    let retries = script["retries"].as_u64().unwrap();
    let first = step(format!("{path}:1"));
    assert!(failed + retries > 0, "{script}");
    assert_eq!(
        first["latency"]["count"].as_u64(),
        Some(done + failed + retries),
        "{first}"
    );
}

/// Bad input fails in both, with pgbench's exit code: an unknown initialization step, a
/// partitioning method without partitions, a script file that is not there, a database that is
/// not there, an option of initialization in a test and one of a test with -i.
#[test]
fn bad_command_lines_fail_as_pgbench_fails() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    server.database("pgbench");
    let broken = dir.path().join("broken.sql");
    std::fs::write(&broken, "\\set r random(0, 0)\nSELECT 1 / :r;\n").unwrap();
    let broken = broken.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["-i", "-I", "dtx"], "pgbench"),
        (&["-i", "--partition-method", "hash"], "pgbench"),
        (&["-t", "1", "-f", "/nonexistent/script.sql"], "pgbench"),
        (&["-t", "1"], "no_such_database"),
        (&["-I", "dtg"], "pgbench"),
        (&["-i", "-c", "4"], "pgbench"),
        (&["-t", "1", "--aggregate-interval", "1"], "pgbench"),
        (
            &[
                "-t",
                "1",
                "-l",
                "--sampling-rate",
                "0.5",
                "--aggregate-interval",
                "1",
            ],
            "pgbench",
        ),
        (&["-T", "3", "-l", "--aggregate-interval", "2"], "pgbench"),
        // Tries without a limit need -L or -T to end them.
        (&["-t", "1", "--max-tries", "0"], "pgbench"),
        // A client that meets an error while running stops: exit 2.
        (&["-t", "3", "-c", "2", "-f", broken], "pgbench"),
    ];
    for (args, db) in cases {
        let p = server.run(Tool::Pgbench, args, db, dir.path());
        let h = server.run(Tool::Hakari, args, db, dir.path());
        assert!(
            !p.status.success(),
            "pgbench {args:?} succeeded: {}",
            text(&p)
        );
        assert_eq!(
            h.status.code(),
            p.status.code(),
            "{args:?}: hakari's exit code, then pgbench's: {}\n{}",
            text(&h),
            text(&p)
        );
    }
}

/// A socket directory as `-h` reaches the server over its Unix-domain socket, as libpq does
/// (with no TLS there, whatever sslmode says): `-i` and a test both work, for both tools.
#[test]
fn a_socket_directory_as_the_host_works() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let socket = dir.path().join("pg");
    let port = server.port.to_string();
    for tool in [Tool::Pgbench, Tool::Hakari] {
        let db = format!("by_{tool:?}").to_lowercase();
        server.database(&db);
        for args in [&["-i", "-q"][..], &["-t", "5"][..]] {
            let mut c = match tool {
                Tool::Pgbench => Command::new("pgbench"),
                Tool::Hakari => {
                    let mut c = Command::new(env!("CARGO_BIN_EXE_hakari"));
                    c.args(["pgbench", "--out", dir.path().to_str().unwrap()]);
                    c
                }
            };
            let o = (c.args(args))
                .args([
                    "-h",
                    socket.to_str().unwrap(),
                    "-p",
                    &port,
                    "-U",
                    "hakari",
                    &db,
                ])
                .env("PGSSLMODE", "prefer")
                .output()
                .unwrap();
            assert!(o.status.success(), "{tool:?} {args:?}: {}", text(&o));
        }
    }
}

/// --progress-timestamp: -P's lines say when as a Unix timestamp to the millisecond, as
/// pgbench's do, each within the run on this machine's clock.
#[test]
fn progress_timestamp_says_when_as_pgbench_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let now = || {
        (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH))
            .unwrap()
            .as_secs_f64()
    };
    for tool in [Tool::Pgbench, Tool::Hakari] {
        let db = server.initialized(tool, dir.path());
        let before = now();
        let args = [
            "-c",
            "1",
            "-T",
            "3",
            "-S",
            "-P",
            "1",
            "--progress-timestamp",
        ];
        let o = server.run(tool, &args, &db, dir.path());
        let after = now();
        let out = text(&o);
        assert!(o.status.success(), "{tool:?}: {out}");
        let times: Vec<&str> = (out.lines())
            .filter_map(|l| l.strip_prefix("progress: "))
            .map(|l| l.split(' ').next().unwrap())
            .collect();
        assert!(times.len() >= 2, "{tool:?}: {out}");
        for t in times {
            let decimals = t.split_once('.').map_or(0, |(_, d)| d.len());
            assert_eq!(decimals, 3, "{tool:?}: {t}");
            let at: f64 = t.parse().unwrap();
            assert!(
                (before..=after).contains(&at),
                "{tool:?}: {at} is not within the run ({before}..{after})"
            );
        }
    }
}

/// The transactions' statements on pgbench's tables, and their BEGIN and END, as the server
/// logged them (`log_statement = all`) from the first BEGIN on (pgbench's set-up queries come
/// before it), each with how it came: a simple query's text, the unnamed statement's execution
/// (the extended protocol without a prepared statement), or a named prepared statement's; each
/// number masked (the values drawn), a trailing semicolon dropped (hakari sends a script's
/// statement without it); counted.
fn logged(log: &str) -> std::collections::BTreeMap<String, usize> {
    let mut statements = std::collections::BTreeMap::new();
    let first = log.find("BEGIN").unwrap_or(log.len());
    let begun = log[..first].rfind('\n').map_or(0, |n| n + 1);
    for line in log[begun..].lines() {
        let (kind, text) = if let Some((_, text)) = line.split_once("LOG:  statement: ") {
            ("simple", text)
        } else if let Some((_, text)) = line.split_once("LOG:  execute <unnamed>: ") {
            ("unnamed", text)
        } else if let Some((_, named)) = line.split_once("LOG:  execute ") {
            let text = named.split_once(": ").map_or(named, |(_, text)| text);
            ("named", text)
        } else {
            continue;
        };
        let text = text.trim_end_matches(';');
        if !text.contains("pgbench_") && text != "BEGIN" && text != "END" {
            continue;
        }
        let mut masked = format!("{kind}: ");
        for c in text.chars() {
            match c {
                '0'..='9' | '-' if masked.ends_with('#') => {}
                '0'..='9' | '-' => masked.push('#'),
                c => masked.push(c),
            }
        }
        *statements.entry(masked).or_default() += 1;
    }
    statements
}

/// -M simple, extended and prepared send the statements as pgbench sends them, as the server's
/// own log names each: the same statements of each kind for the same transactions.
#[test]
fn each_protocol_sends_statements_as_pgbench_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let log = dir.path().join("pg").join("postgres.log");
    assert!(log.exists(), "the private server logs to {}", log.display());
    for mode in ["simple", "extended", "prepared"] {
        let mut statements = Vec::new();
        for tool in [Tool::Pgbench, Tool::Hakari] {
            let db = server.initialized(tool, dir.path());
            let all = format!("ALTER DATABASE {db} SET log_statement = 'all'");
            server.admin.batch_execute(&all).unwrap();
            let from = std::fs::read(&log).unwrap().len();
            let o = server.run(tool, &["-c", "2", "-t", "3", "-M", mode], &db, dir.path());
            assert!(o.status.success(), "{tool:?} -M {mode}: {}", text(&o));
            let text = String::from_utf8_lossy(&std::fs::read(&log).unwrap()[from..]).into_owned();
            statements.push(logged(&text));
        }
        let sent = match mode {
            "simple" => "simple",
            "extended" => "unnamed",
            _ => "named",
        };
        // Two clients, three transactions each, five statements on pgbench's tables each.
        let count: usize = (statements[0].iter())
            .filter(|(s, _)| s.starts_with(sent) && s.contains("pgbench_"))
            .map(|(_, n)| n)
            .sum();
        assert_eq!(count, 30, "pgbench -M {mode}: {:?}", statements[0]);
        assert_eq!(
            statements[0], statements[1],
            "-M {mode}: pgbench's, then hakari's"
        );
    }
}

/// With `--failures-detailed` both tools give the failed transactions by kind: one script loses
/// serialization failures (REPEATABLE READ, every client on one row), the other deadlocks (two
/// rows updated in either order); each report's kinds add up to its failed transactions, -P's
/// lines count them second by second, and each transaction log names each failure by its kind,
/// as many of each as the report counts.
#[test]
fn failures_detailed_counts_each_kind_as_pgbench_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let s = serialization(dir.path());
    let d = deadlock(dir.path());
    let args = [
        "-c",
        "4",
        "-T",
        "3",
        "-f",
        &s,
        "-f",
        &d,
        "--failures-detailed",
        "-l",
        "-P",
        "1",
    ];
    for tool in [Tool::Pgbench, Tool::Hakari] {
        let db = server.initialized(tool, dir.path());
        // Deadlocks found in 20 ms, not the default second: at a second each, four clients
        // made six transactions in three seconds, and once all six were the deadlock script's
        // (CI, stop 69).
        let quick = format!("ALTER DATABASE {db} SET deadlock_timeout = '20ms'");
        server.admin.batch_execute(&quick).unwrap();
        let out = dir.path().join(format!("{tool:?}"));
        std::fs::create_dir(&out).unwrap();
        let o = server.run(tool, &args, &db, &out);
        let report = text(&o);
        assert!(o.status.success(), "{tool:?}: {report}");
        let count = |what: &str| -> u64 {
            let prefix = format!("number of {what}: ");
            (report.lines().find_map(|l| l.strip_prefix(prefix.as_str())))
                .and_then(|rest| rest.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{tool:?}: no \"{prefix}\" in {report}"))
        };
        let (failed, serial, dead) = (
            count("failed transactions"),
            count("serialization failures"),
            count("deadlock failures"),
        );
        assert_eq!(failed, serial + dead, "{tool:?}: {report}");
        assert!(serial > 0 && dead > 0, "{tool:?}: {report}");
        // -P's lines count the failures of each whole second (the last part of one left out).
        let each: Vec<u64> = (report.lines())
            .filter(|l| l.starts_with("progress: "))
            .map(|l| {
                let at = l.find(" failed").unwrap_or_else(|| panic!("{tool:?}: {l}"));
                l[..at].rsplit(' ').next().unwrap().parse().unwrap()
            })
            .collect();
        let seconds: u64 = each.iter().sum();
        assert!(each.len() >= 2, "{tool:?}: {report}");
        assert!(seconds > 0 && seconds <= failed, "{tool:?}: {report}");
        let logged = |kind: &str| {
            (logs(&out).iter().flatten())
                .filter(|fields| fields[2] == kind)
                .count() as u64
        };
        assert_eq!(
            (
                logged("serialization"),
                logged("deadlock"),
                logged("failed")
            ),
            (serial, dead, 0),
            "{tool:?}"
        );
    }
}

/// Under `-L` with tries unlimited (`--max-tries 0`), both tools say each lost deadlock with the
/// server's whole message (its DETAIL, naming the processes) and the share of the latency limit
/// the tries used, and their reports have no line of a maximum number of tries.
#[test]
fn verbose_errors_give_the_whole_message_and_the_limit_used() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let file = deadlock(dir.path());
    #[rustfmt::skip]
    let args = [
        "-c", "4", "-T", "3", "-R", "300", "-L", "50", "-f", &file, "--max-tries", "0",
        "--verbose-errors",
    ];
    for tool in [Tool::Pgbench, Tool::Hakari] {
        let report = server.report(tool, &args, dir.path());
        assert!(
            !report.contains("maximum number of tries"),
            "{tool:?}: {report}"
        );
        let lines: Vec<&str> = report.lines().collect();
        let detailed = (lines.windows(2)).any(|w| {
            w[0].ends_with("; ERROR:  deadlock detected") && w[1].starts_with("DETAIL:  Process ")
        });
        assert!(detailed, "{tool:?}: no deadlock with its DETAIL: {report}");
        let shares: Vec<f64> = (lines.iter())
            .filter_map(|l| {
                l.split_once(" transaction after the error (try ")
                    .or(l.split_once(" the failed transaction (try "))
            })
            .map(|(_, rest)| {
                let (tries, share) = rest
                    .split_once(", ")
                    .unwrap_or_else(|| panic!("{tool:?}: {rest}"));
                assert!(tries.parse::<u64>().is_ok(), "{tool:?}: {rest}");
                let share = share.strip_suffix("% of the maximum time of tries was used)");
                share
                    .and_then(|s| s.parse().ok())
                    .unwrap_or_else(|| panic!("{tool:?}: {rest}"))
            })
            .collect();
        assert!(
            !shares.is_empty() && shares.iter().all(|s| *s > 0.0),
            "{tool:?}: {report}"
        );
    }
}

/// With tries unlimited over a duration (`--max-tries 0 -T`), both tools retry every lost
/// conflict until it goes through: some retried, none failed, the transaction in flight at the
/// end left uncounted.
#[test]
fn unlimited_tries_fail_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let file = serialization(dir.path());
    let args = ["-c", "4", "-T", "3", "-f", &file, "--max-tries", "0"];
    for tool in [Tool::Pgbench, Tool::Hakari] {
        let report = server.report(tool, &args, dir.path());
        let count = |prefix: &str| -> u64 {
            (report.lines().find_map(|l| l.strip_prefix(prefix)))
                .and_then(|rest| rest.split(' ').next()?.parse().ok())
                .unwrap_or_else(|| panic!("{tool:?}: no \"{prefix}\" in {report}"))
        };
        assert_eq!(
            count("number of failed transactions: "),
            0,
            "{tool:?}: {report}"
        );
        assert!(count("total number of retries: ") > 0, "{tool:?}: {report}");
    }
}

/// With `--verbose-errors` both tools say each lost conflict (REPEATABLE READ, every client on
/// one row, two tries each, 40 transactions a client), then whether the transaction is tried again or fails, in pgbench's
/// words: as many failures said as the report counts, and some retries; the command lost at
/// numbered as pgbench numbers it (a compound statement before it is one command).
#[test]
fn verbose_errors_say_each_lost_conflict_as_pgbench_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path());
    let file = dir.path().join("compound.sql");
    std::fs::write(&file, "BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT 1 \\; SELECT abalance FROM pgbench_accounts WHERE aid = 1;\n\\sleep 1 ms\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1;\nEND;\n").unwrap();
    let file = file.display().to_string();
    let mut numbered = Vec::new();
    let args = [
        "-c",
        "4",
        "-t",
        "40",
        "-f",
        &file,
        "--max-tries",
        "2",
        "--verbose-errors",
    ];
    for tool in [Tool::Pgbench, Tool::Hakari] {
        let report = server.report(tool, &args, dir.path());
        let failed: u64 = (report.lines())
            .find_map(|l| l.strip_prefix("number of failed transactions: "))
            .and_then(|rest| rest.split(' ').next()?.parse().ok())
            .unwrap_or_else(|| panic!("{tool:?}: {report}"));
        // Each lost conflict, then whether the transaction is tried again or fails, as
        // pgbench words them; as many failures said as counted.
        let said: Vec<&str> = (report.lines())
            .filter(|l| l.starts_with("pgbench: client "))
            .collect();
        // Each client's lines in turn (pgbench's clients share a thread, their lines mix).
        let mut by_client = std::collections::BTreeMap::<&str, Vec<&str>>::new();
        for line in &said {
            let client = line.split(' ').nth(2).unwrap();
            by_client.entry(client).or_default().push(line);
        }
        let mut ended = 0;
        for (client, pair) in by_client
            .iter()
            .flat_map(|(c, l)| l.chunks(2).map(move |p| (c, p)))
        {
            let lost = format!("pgbench: client {client} got an error in command ");
            assert!(pair[0].starts_with(&lost), "{tool:?}: {pair:?}");
            assert!(pair[0].contains(" (SQL) of script "), "{tool:?}: {pair:?}");
            let next = [
                format!(
                    "pgbench: client {client} repeats the transaction after the error (try 1/2)"
                ),
                format!("pgbench: client {client} ends the failed transaction (try 2/2)"),
            ];
            assert!(
                next.iter().any(|n| pair.get(1) == Some(&n.as_str())),
                "{tool:?}: {pair:?}"
            );
            ended += u64::from(pair[1] == next[1]);
        }
        assert_eq!(ended, failed, "{tool:?}: {report}");
        assert!(
            said.len() as u64 > 2 * failed,
            "{tool:?}: no retry said: {report}"
        );
        // Which commands the conflicts were lost at.
        let commands: std::collections::BTreeSet<String> = (said.iter())
            .filter_map(|l| l.split(" got an error in command ").nth(1))
            .filter_map(|rest| rest.split(' ').next())
            .map(str::to_string)
            .collect();
        numbered.push(commands);
    }
    assert_eq!(
        numbered[0], numbered[1],
        "pgbench's commands, then hakari's"
    );
}
