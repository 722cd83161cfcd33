//! pgbench as the oracle: the same script run by pgbench itself (on a private PostgreSQL) and
//! by `hakari run script`, every `debug()` value printed the same. The expressions cover
//! pgbench's operators, its deterministic functions, its doubles as it prints them (`%.15g`,
//! Infinity, NaN), NULL, booleans and the INT64_MIN constant.

mod common;

use common::{hakari, private_postgres, stderr};
use std::path::{Path, PathBuf};

/// pgbench of the newest PostgreSQL installed (Debian keeps it beside the server).
fn pgbench() -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL installed (scripts/setup-servers.sh)")
        .flatten()
        .map(|e| e.path().join("bin/pgbench"))
        .filter(|p| p.exists())
        .collect();
    found.sort();
    found.pop().expect("pgbench installed with PostgreSQL")
}

/// What each `debug()` printed, in order, the prefix before the type cut off (pgbench:
/// `debug(script=0,command=1): `, hakari: `debug: `).
fn debugged(text: &str) -> Vec<String> {
    (text.lines())
        .filter(|l| l.starts_with("debug"))
        .map(|l| l.split_once(": ").map_or(l, |(_, v)| v).to_string())
        .collect()
}

/// pgbench running `script` once (one transaction, no vacuum) against `url`.
fn through_pgbench(url: &str, script: &Path) -> std::process::Output {
    std::process::Command::new(pgbench())
        .args(["-n", "-t", "1", "-f", script.to_str().unwrap(), url])
        .output()
        .unwrap()
}

/// hakari running `script` (one transaction when `once`), its results in `out`.
fn through_hakari(script: &Path, out: &Path, once: bool) -> std::process::Output {
    let mut args = vec!["run", "script", "--file", script.to_str().unwrap()];
    args.extend(["--out", out.to_str().unwrap()]);
    if once {
        args.extend(["--transactions", "1"]);
    }
    hakari(&args)
}

/// The script's debug() lines through pgbench and through hakari.
fn both(dir: &Path, url: &str, script: &Path) -> (Vec<String>, Vec<String>) {
    let o = through_pgbench(url, script);
    assert!(o.status.success(), "pgbench: {}", stderr(&o));
    let theirs = debugged(&stderr(&o));
    let o = through_hakari(script, &dir.join("out"), true);
    assert!(o.status.success(), "hakari: {}", stderr(&o));
    (theirs, debugged(&stderr(&o)))
}

#[test]
fn every_debug_value_is_the_one_pgbench_prints() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = private_postgres(dir.path());
    let url = format!("postgresql://hakari@127.0.0.1:{port}/hakari");
    let expressions = [
        // Integers, their operators and INT64_MIN, which only a minus makes a constant.
        "1 + 2 * 3 - 4",
        "7 / 2",
        "-7 / 2",
        "-7 % 3",
        "9223372036854775807",
        "-9223372036854775808",
        "5 & 3",
        "5 | 3",
        "5 # 3",
        "~5",
        "1 << 10",
        "-16 >> 2",
        // Doubles as pgbench prints them: %.15g, Infinity, NaN.
        "0.1 + 0.2",
        "1.0 / 3",
        "2.0",
        "1e20",
        "1.0e15",
        "1.0e14 + 0.5",
        "123456789012345678.0",
        "1e-7",
        "0.0001",
        "-2.5e-5",
        "1.0e300 * 1.0e300",
        "-1.0e300 * 1.0e300",
        "sqrt(-1.0)",
        "pi()",
        "exp(1.0)",
        "ln(10.0)",
        "pow(2, 10)",
        "power(2.0, 0.5)",
        "sqrt(2)",
        // Conversions and the other functions.
        "int(5.7)",
        "int(-5.7)",
        "double(3)",
        "abs(-17)",
        "abs(-1.5)",
        "greatest(1, 5.5, 3)",
        "least(4, 2, 9)",
        "mod(-7, 3)",
        "hash_fnv1a(10, 5432)",
        "hash_murmur2(10, 5432)",
        "hash(10, 5432)",
        "permute(3, 10, 7)",
        "permute(0, 1, 5)",
        // NULL, booleans, comparisons, CASE.
        "NULL",
        "1 < 2",
        "2 <= 1",
        "1 = 1.0",
        "3 <> 4",
        "NULL IS NULL",
        "5 IS NOT NULL",
        "true AND false",
        "true OR NULL",
        "NOT true",
        "case when 1 > 2 then 10 when 2 > 1 then 20 else 30 end",
        "case when false then 1 end",
        // Lazily: the branch not taken is never evaluated (:z is 0).
        "case when :z = 0 then -1 else 1 / :z end",
        ":z = 0 or 1 / :z > 1",
        ":z <> 0 and 1 / :z > 1",
    ];
    let script = dir.path().join("debug.sql");
    let text: String = (expressions.iter().enumerate())
        .map(|(i, e)| format!("\\set v{i} debug({e})\n"))
        .collect();
    let text = format!("\\set z 0\n{text}");
    std::fs::write(&script, text).unwrap();
    let (theirs, ours) = both(dir.path(), &url, &script);
    assert_eq!(
        theirs.len(),
        expressions.len(),
        "pgbench printed {theirs:?}"
    );
    for ((e, t), o) in expressions.iter().zip(&theirs).zip(&ours) {
        assert_eq!(o, t, "debug({e}): hakari {o}, pgbench {t}");
    }
    assert_eq!(ours.len(), theirs.len());
}

/// Scripts pgbench refuses before its run: hakari refuses them too, before its run, in one line.
#[test]
fn what_pgbench_refuses_before_its_run_hakari_refuses_too() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = private_postgres(dir.path());
    let url = format!("postgresql://hakari@127.0.0.1:{port}/hakari");
    let cases = [
        ("empty.sql", "", "empty command list"),
        ("comment.sql", "-- only a comment\n", "empty command list"),
        (
            "chained.sql",
            "\\set x 1 < 2 < 3\n",
            "comparisons do not chain",
        ),
        (
            "equal.sql",
            "\\set x 1 = 1 = true\n",
            "comparisons do not chain",
        ),
        ("big.sql", "\\set x 9223372036854775808\n", "out of range"),
    ];
    for (name, text, says) in cases {
        let script = dir.path().join(name);
        std::fs::write(&script, text).unwrap();
        let o = through_pgbench(&url, &script);
        assert!(!o.status.success(), "pgbench took {name}");
        assert!(
            !stderr(&o).contains("transaction type"),
            "pgbench ran {name}"
        );
        let out = dir.path().join("out");
        let o = through_hakari(&script, &out, false);
        assert!(!o.status.success(), "hakari took {name}");
        let text = stderr(&o);
        assert!(text.contains(says), "{name}: {text}");
        assert_eq!(text.trim().lines().count(), 1, "{name}: {text}");
        assert!(
            common::result_files(&out).is_empty(),
            "{name}: a result was written"
        );
    }
}
