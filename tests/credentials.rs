//! Credentials where each ecosystem keeps them: a server that asks for a password gets it from
//! PostgreSQL's `PGPASSWORD`, `~/.pgpass` or service file, MariaDB's `MYSQL_PWD` or `~/.my.cnf`,
//! Redis's `REDISCLI_AUTH`, or a URL (with a warning); and the password is found nowhere in the
//! results directory (result, interval logs, report), hakari's output, or the command lines of
//! hakari's children.

mod common;

use std::collections::HashSet;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// What a run left: its exit status, stdout and stderr, and the children's command lines seen
/// while it ran.
struct Ran {
    ok: bool,
    output: String,
    children: Vec<String>,
}

/// Every process below `root`, by /proc.
fn below(root: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        if let Some(ppid) = stat[close + 2..]
            .split(' ')
            .nth(1)
            .and_then(|p| p.parse().ok())
        {
            parents.push((pid, ppid));
        }
    }
    let mut tree = vec![root];
    let mut i = 0;
    while i < tree.len() {
        let p = tree[i];
        tree.extend(parents.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    tree.remove(0);
    tree
}

/// hakari with `args` and `env` (HOME set to `home`), its children's command lines sampled
/// while it runs.
fn run(args: &[&str], env: &[(&str, &str)], home: &Path) -> Ran {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hakari"));
    command
        .args(args)
        .env("HOME", home)
        .env_remove("PGPASSWORD")
        .env_remove("PGSERVICE")
        .env_remove("PGPASSFILE")
        .env_remove("MYSQL_PWD")
        .env_remove("REDISCLI_AUTH")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().unwrap();
    let mut seen = HashSet::new();
    while child.try_wait().unwrap().is_none() {
        for pid in below(child.id()) {
            if let Ok(line) = std::fs::read(format!("/proc/{pid}/cmdline")) {
                seen.insert(String::from_utf8_lossy(&line).replace('\0', " "));
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    Ran {
        ok: o.status.success(),
        output: format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
        children: seen.into_iter().collect(),
    }
}

/// Every file under `dir` that holds `secret`.
fn holding(dir: &Path, secret: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                if String::from_utf8_lossy(&bytes).contains(secret) {
                    found.push(path.display().to_string());
                }
            }
        }
    }
    found
}

/// A run that must succeed with the password from where `env` and `home` keep it, leaving it
/// nowhere: not in the results (result file, interval logs, report), the output or a child's
/// command line.
fn succeeds_and_leaves_no_trace(args: &[&str], env: &[(&str, &str)], home: &Path, secret: &str) {
    let out = tempfile::tempdir().unwrap();
    let mut all = args.to_vec();
    let dir = out.path().to_str().unwrap();
    all.extend(["--out", dir, "--hlog", dir, "--report"]);
    let ran = run(&all, env, home);
    assert!(ran.ok, "{args:?}: {}", ran.output);
    assert!(!common::result_files(out.path()).is_empty());
    assert_eq!(
        holding(out.path(), secret),
        Vec::<String>::new(),
        "{args:?}"
    );
    assert!(!ran.output.contains(secret), "{args:?}: {}", ran.output);
    for line in &ran.children {
        assert!(!line.contains(secret), "a child's command line: {line}");
    }
}

/// A run that must fail for want of the password: the server does ask for one.
fn refused(args: &[&str], home: &Path) {
    let out = tempfile::tempdir().unwrap();
    let mut all = args.to_vec();
    all.extend(["--out", out.path().to_str().unwrap()]);
    let ran = run(&all, &[], home);
    assert!(!ran.ok, "{args:?} ran without a password: {}", ran.output);
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn private_file(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

const TPCB: [&str; 10] = [
    "run",
    "tpcb",
    "--durability",
    "sync",
    "--duration",
    "0.3",
    "--runs",
    "1",
    "--accounts-per-branch",
    "1000",
];

#[test]
fn postgres_takes_pgpassword_pgpass_and_a_service_and_keeps_them_to_itself() {
    let dir = tempfile::tempdir().unwrap();
    let (server, port) = common::private_postgres(dir.path());
    let secret = "Pg-Plant3d-7431";
    let mut admin = postgres::Client::connect(&server.url, postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!(
            "CREATE ROLE hk_bench LOGIN SUPERUSER PASSWORD '{secret}'"
        ))
        .unwrap();
    // The role must give its password over loopback: a rule ahead of the server's trust rules.
    let hba: String = admin.query_one("SHOW hba_file", &[]).unwrap().get(0);
    let rules = std::fs::read_to_string(&hba).unwrap();
    std::fs::write(
        &hba,
        format!("host all hk_bench 127.0.0.1/32 scram-sha-256\nhostssl all hk_bench 127.0.0.1/32 scram-sha-256\n{rules}"),
    )
    .unwrap();
    admin.batch_execute("SELECT pg_reload_conf()").unwrap();
    let url = format!("postgres://hk_bench@127.0.0.1:{port}/hakari");
    let with = |more: &[&'static str], url: &str| -> Vec<String> {
        let mut a: Vec<String> = TPCB.iter().map(|s| s.to_string()).collect();
        a.extend([
            "--engine".into(),
            "postgres".into(),
            "--url".into(),
            url.into(),
        ]);
        a.extend(more.iter().map(|s| s.to_string()));
        a
    };
    let home = tempfile::tempdir().unwrap();

    let plain = with(&[], &url);
    refused(&strs(&plain), home.path());
    succeeds_and_leaves_no_trace(
        &strs(&plain),
        &[("PGPASSWORD", secret)],
        home.path(),
        secret,
    );

    private_file(
        &home.path().join(".pgpass"),
        &format!("# hakari's test\n127.0.0.1:{port}:hakari:hk_bench:{secret}\n"),
    );
    succeeds_and_leaves_no_trace(&strs(&plain), &[], home.path(), secret);
    std::fs::remove_file(home.path().join(".pgpass")).unwrap();

    let services = home.path().join("services.conf");
    private_file(
        &services,
        &format!("[bench]\nhost=127.0.0.1\nport={port}\ndbname=hakari\nuser=hk_bench\npassword={secret}\n"),
    );
    let by_service = with(&[], "postgres:///?service=bench");
    let env = [("PGSERVICEFILE", services.to_str().unwrap())];
    succeeds_and_leaves_no_trace(&strs(&by_service), &env, home.path(), secret);

    // Typed in the URL it still works, with a warning; hakari's own command line holds it, as
    // the warning says, but nothing it writes does.
    let typed = with(
        &[],
        &format!("postgres://hk_bench:{secret}@127.0.0.1:{port}/hakari"),
    );
    let out = tempfile::tempdir().unwrap();
    let mut args = strs(&typed);
    args.extend(["--out", out.path().to_str().unwrap(), "--report"]);
    let ran = run(&args, &[], home.path());
    assert!(ran.ok, "{}", ran.output);
    assert!(
        ran.output
            .contains("hakari: warning: the password in --url postgres://hk_bench:***@"),
        "{}",
        ran.output
    );
    assert!(!ran.output.contains(secret), "{}", ran.output);
    assert_eq!(holding(out.path(), secret), Vec::<String>::new());
}

#[test]
fn mariadb_takes_mysql_pwd_and_my_cnf() {
    use mysql::prelude::Queryable;
    let dir = tempfile::tempdir().unwrap();
    let (server, _socket, mut root) = common::private_mariadb(dir.path());
    let secret = "My-Plant3d-5519";
    for host in ["127.0.0.1", "localhost"] {
        root.query_drop(format!(
            "CREATE USER 'hk_bench'@'{host}' IDENTIFIED BY '{secret}'"
        ))
        .unwrap();
        root.query_drop(format!(
            "GRANT ALL ON *.* TO 'hk_bench'@'{host}' WITH GRANT OPTION"
        ))
        .unwrap();
    }
    let url = format!("mysql://hk_bench@127.0.0.1:{}/hakari", server.process.port);
    let mut args: Vec<&str> = TPCB.to_vec();
    args.extend(["--engine", "mysql", "--url", &url]);
    let home = tempfile::tempdir().unwrap();
    refused(&args, home.path());
    succeeds_and_leaves_no_trace(&args, &[("MYSQL_PWD", secret)], home.path(), secret);
    private_file(
        &home.path().join(".my.cnf"),
        &format!("[mysqld]\nport=1\n\n[client]\npassword=\"{secret}\"\n"),
    );
    succeeds_and_leaves_no_trace(&args, &[], home.path(), secret);
}

#[test]
fn redis_takes_rediscli_auth() {
    let dir = tempfile::tempdir().unwrap();
    let server = common::private_redis(dir.path());
    let secret = "Rd-Plant3d-2284";
    let mut con = redis::Client::open(server.url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("requirepass")
        .arg(secret)
        .query(&mut con)
        .unwrap();
    let url = format!("redis://127.0.0.1:{}", server.process.port);
    let args = [
        "run",
        "session",
        "--engine",
        "redis",
        "--url",
        &url,
        "--durability",
        "sync",
        "--sizes",
        "1K",
        "--sessions",
        "20",
        "--reads",
        "40",
        "--runs",
        "1",
    ];
    let home = tempfile::tempdir().unwrap();
    refused(&args, home.path());
    succeeds_and_leaves_no_trace(&args, &[("REDISCLI_AUTH", secret)], home.path(), secret);
}
