//! pgbench as the oracle: the same script run by pgbench itself (on a private PostgreSQL) and
//! by `hakari run script`, every `debug()` value printed the same. The expressions cover
//! pgbench's operators, its deterministic functions, its doubles as it prints them (`%.15g`,
//! Infinity, NaN), NULL, booleans and the INT64_MIN constant.

mod common;

use common::{hakari, private_postgres, stderr};
use std::path::{Path, PathBuf};

/// A private PostgreSQL for one test: its directory, the server (stopped when dropped, before the
/// directory) and its URL.
fn server() -> (tempfile::TempDir, hakari::server::Launched, String) {
    let dir = tempfile::tempdir().unwrap();
    let (server, port) = private_postgres(dir.path());
    (
        dir,
        server,
        format!("postgresql://hakari@127.0.0.1:{port}/hakari"),
    )
}

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

/// Each `debug()` line, in order: `debug(script=0,command=1): int 5`, as pgbench prints it.
fn debugged(text: &str) -> Vec<String> {
    (text.lines())
        .filter(|l| l.starts_with("debug("))
        .map(str::to_string)
        .collect()
}

/// pgbench running `script` once (one transaction, no vacuum) against `url`, in its default
/// query mode (simple).
fn through_pgbench(url: &str, script: &Path) -> std::process::Output {
    through_pgbench_in("simple", url, script)
}

/// pgbench running `script` once in query `mode` (simple, extended or prepared).
fn through_pgbench_in(mode: &str, url: &str, script: &Path) -> std::process::Output {
    std::process::Command::new(pgbench())
        .args([
            "-n",
            "-t",
            "1",
            "-M",
            mode,
            "-f",
            script.to_str().unwrap(),
            url,
        ])
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
    let (dir, _server, url) = server();
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
    let (dir, _server, url) = server();
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

/// `scripts` run `per_client` times by each of `clients` clients with `seed`, through pgbench
/// and through hakari: every `debug()` line of each, sorted (clients run side by side), and
/// pgbench's per-transaction log lines (client, script) when `threads` gives it a thread per
/// client. One pgbench thread by default: its threads write their lines into one another.
fn seeded(
    dir: &Path,
    url: &str,
    scripts: &[&str],
    (seed, clients, per_client): (u64, usize, u64),
    threads: bool,
) -> (Vec<String>, Vec<String>, Vec<(usize, usize)>) {
    let (seed, clients, per_client) = (
        seed.to_string(),
        clients.to_string(),
        per_client.to_string(),
    );
    let logs = dir.join("logs");
    let _ = std::fs::remove_dir_all(&logs);
    std::fs::create_dir_all(&logs).unwrap();
    let mut theirs = std::process::Command::new(pgbench());
    theirs.args(["-n", "-c", &clients, "-t", &per_client]);
    theirs.args(["-j", if threads { &clients } else { "1" }]);
    theirs.arg(format!("--random-seed={seed}"));
    theirs.args(["-l", "--log-prefix", logs.join("log").to_str().unwrap()]);
    let out = dir.join("out");
    let mut ours = vec!["run", "script", "--out", out.to_str().unwrap()];
    ours.extend([
        "--seed",
        &seed,
        "--clients",
        &clients,
        "--transactions",
        &per_client,
    ]);
    for s in scripts {
        theirs.args(["-f", s]);
        ours.extend(["--file", s]);
    }
    let o = theirs.arg(url).output().unwrap();
    assert!(o.status.success(), "pgbench: {}", stderr(&o));
    let mut theirs = debugged(&stderr(&o));
    let o = hakari(&ours);
    assert!(o.status.success(), "hakari: {}", stderr(&o));
    let mut ours = debugged(&stderr(&o));
    theirs.sort();
    ours.sort();
    // pgbench's log: "client transaction time script epoch microseconds" per transaction.
    let mut chosen = Vec::new();
    for file in std::fs::read_dir(&logs).unwrap().flatten() {
        for line in std::fs::read_to_string(file.path()).unwrap().lines() {
            let f: Vec<usize> = line.split(' ').map(|x| x.parse().unwrap()).collect();
            chosen.push((f[0], f[3]));
        }
    }
    chosen.sort();
    (theirs, ours, chosen)
}

/// The same seed gives pgbench's draws: each client's random functions, `:default_seed` (and
/// so `hash` and `permute` without a seed), `:random_seed`, and which script each transaction
/// runs, for several seeds and numbers of clients.
#[test]
fn the_same_seed_draws_what_pgbench_draws() {
    let (dir, _server, url) = server();
    let draws = dir.path().join("draws.sql");
    std::fs::write(
        &draws,
        "\\set a debug(random(10, 19))\n\
         \\set b debug(random(-1000000, 1000000000000))\n\
         \\set c debug(random_exponential(1, 1000, 2.5))\n\
         \\set d debug(random_gaussian(1, 1000, 3.0))\n\
         \\set e debug(random_zipfian(1, 1000, 1.07))\n\
         \\set f debug(random_zipfian(1, 100, 3))\n\
         \\set g debug(hash(:a))\n\
         \\set h debug(hash_fnv1a(:b))\n\
         \\set i debug(permute(:a, 1000))\n\
         \\set j debug(:default_seed)\n\
         \\set k debug(:random_seed)\n\
         \\set l debug(:client_id * 1000 + random(1, 999))\n",
    )
    .unwrap();
    let draws = draws.to_str().unwrap();
    for (seed, clients) in [(5432, 1), (1, 3), (987654321012, 2), (0, 4)] {
        let (theirs, ours, _) = seeded(dir.path(), &url, &[draws], (seed, clients, 3), false);
        assert_eq!(theirs.len(), 12 * 3 * clients, "pgbench printed {theirs:?}");
        assert_eq!(ours, theirs, "seed {seed}, {clients} client(s)");
    }
    // Which script each transaction runs, drawn by weight from each thread's own generator:
    // hakari's debug() lines say (client, script), pgbench's log the same.
    let (a, b) = (dir.path().join("a.sql"), dir.path().join("b.sql"));
    std::fs::write(&a, "\\set s debug(:client_id * 10 + 0)\n").unwrap();
    std::fs::write(&b, "\\set s debug(:client_id * 10 + 1)\n").unwrap();
    let a = format!("{}@3", a.to_str().unwrap());
    let b = format!("{}@1", b.to_str().unwrap());
    for (seed, clients) in [(7, 1), (42, 3)] {
        let (_, ours, theirs) = seeded(dir.path(), &url, &[&a, &b], (seed, clients, 20), true);
        let mut ours: Vec<(usize, usize)> = (ours.iter())
            .map(|l| l.rsplit(' ').next().unwrap().parse::<usize>().unwrap())
            .map(|v| (v / 10, v % 10))
            .collect();
        ours.sort();
        assert_eq!(theirs.len(), 20 * clients);
        assert_eq!(ours, theirs, "seed {seed}, {clients} client(s)");
    }
}

/// `\if` blocks, `\gset` and `\aset` (with prefixes, booleans stored as PostgreSQL writes them),
/// NULL and untyped values bound to a statement, escape strings and nested comments: pgbench and hakari on the same PostgreSQL
/// print the same `debug()` values.
#[test]
fn conditionals_and_stored_results_run_as_in_pgbench() {
    let (dir, _server, url) = server();
    let script = dir.path().join("meta.sql");
    std::fs::write(
        &script,
        "\\set z 1\n\
         \\if :z = 0\n\\set a debug(10)\n\\elif :z = 1\n\\set a debug(20)\n\
         \\if :a > 100\n\\set b debug(1 / 0)\n\\else\n\\set b debug(21)\n\\endif\n\
         \\else\n\\set a debug(30)\n\\endif\n\
         \\IF false\n\\set c debug(40)\n\\ENDIF\n\
         SELECT 7 AS seven, 2.5 AS half, 'x1' AS word \\gset\n\
         \\set s debug(:seven * 2)\n\\set h debug(:half + 1)\n\
         SELECT 3 AS one UNION ALL SELECT 4 \\aset p_\n\
         \\set t debug(:p_one)\n\
         SELECT 1 AS one WHERE false \\aset q_\n\
         \\set v0 NULL\n\\set v1 5\n\
         SELECT (:v0)::int IS NULL AS unset, :v1 AS five \\gset\n\
         \\if :unset\n\\set u debug(:five)\n\\else\n\\set u debug(-1)\n\\endif\n\
         SELECT E'it\\'s; :no' AS s, 1 /* a /* nested; */ :c; */ AS one \\gset\n\
         \\set o debug(:one)\n\
         SELECT true AS yes, false AS no \\gset\n\
         \\set y debug(:yes)\n\\set n debug(:no OR :yes)\n",
    )
    .unwrap();
    let o = through_pgbench(&url, &script);
    assert!(o.status.success(), "pgbench: {}", stderr(&o));
    let theirs = debugged(&stderr(&o));
    let out = dir.path().join("out");
    let o = hakari(&[
        "run",
        "script",
        "--engine",
        "postgres",
        "--url",
        &url,
        "--file",
        script.to_str().unwrap(),
        "--transactions",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "hakari: {}", stderr(&o));
    let ours = debugged(&stderr(&o));
    assert_eq!(theirs.len(), 9, "pgbench printed {theirs:?}");
    assert_eq!(ours, theirs);
}

/// Broken conditional blocks and `\gset` where pgbench refuses it: refused by both before the
/// run, hakari in one line.
#[test]
fn broken_blocks_are_refused_as_pgbench_refuses_them() {
    let (dir, _server, url) = server();
    let cases = [
        ("\\endif\n", "\\endif without matching \\if"),
        ("\\if true\n\\set a 1\n", "\\if without matching \\endif"),
        (
            "\\if true\n\\else\n\\else\n\\endif\n",
            "\\else after \\else",
        ),
        (
            "\\if true\n\\else\n\\elif false\n\\endif\n",
            "\\elif after \\else",
        ),
        ("\\set a 1\n\\gset\n", "\\gset must follow an SQL command"),
        (
            "SELECT 1 \\gset\n\\gset\n",
            "\\gset must follow an SQL command",
        ),
    ];
    for (i, (text, says)) in cases.iter().enumerate() {
        let script = dir.path().join(format!("broken{i}.sql"));
        std::fs::write(&script, text).unwrap();
        let o = through_pgbench(&url, &script);
        assert!(!o.status.success(), "pgbench took {text:?}");
        assert!(
            stderr(&o).contains(says),
            "pgbench on {text:?}: {}",
            stderr(&o)
        );
        let out = dir.path().join("out");
        let o = through_hakari(&script, &out, false);
        assert!(!o.status.success(), "hakari took {text:?}");
        let text_err = stderr(&o);
        assert!(text_err.contains(says), "{text:?}: {text_err}");
        assert_eq!(text_err.trim().lines().count(), 1, "{text:?}: {text_err}");
    }
}

/// The history rows a run of pgbench's built-in `script` left, after a fresh `pgbench -i`.
fn history(url: &str, run: &dyn Fn()) -> String {
    let o = std::process::Command::new(pgbench())
        .args(["-i", "-q", "-s", "2", url])
        .output()
        .unwrap();
    assert!(o.status.success(), "pgbench -i: {}", stderr(&o));
    run();
    let o = std::process::Command::new("psql")
        .args([url, "-AtXc"])
        .arg(
            "SELECT string_agg(concat_ws(':', tid, bid, aid, delta), ' ' ORDER BY mtime, aid) \
             || ' / ' || (SELECT sum(abalance) FROM pgbench_accounts) FROM pgbench_history",
        )
        .output()
        .unwrap();
    assert!(o.status.success(), "psql: {}", stderr(&o));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// `--builtin` runs pgbench's own built-in scripts, `:scale` read from its tables: with the same
/// seed, hakari leaves the rows pgbench leaves.
#[test]
fn builtin_scripts_leave_what_pgbench_leaves() {
    let (dir, _server, url) = server();
    let out = dir.path().join("out");
    for builtin in ["tpcb-like", "simple-update"] {
        let theirs = history(&url, &|| {
            let o = std::process::Command::new(pgbench())
                .args(["-n", "-b", builtin, "-t", "25", "--random-seed=11", &url])
                .output()
                .unwrap();
            assert!(o.status.success(), "pgbench: {}", stderr(&o));
        });
        let ours = history(&url, &|| {
            let o = hakari(&[
                "run",
                "script",
                "--builtin",
                builtin,
                "--engine",
                "postgres",
                "--url",
                &url,
                "--transactions",
                "25",
                "--seed",
                "11",
                "--out",
                out.to_str().unwrap(),
            ]);
            assert!(o.status.success(), "hakari: {}", stderr(&o));
        });
        assert_eq!(theirs.split(' ').count(), 25 + 2, "{theirs}");
        assert_eq!(ours, theirs, "{builtin}");
    }
    // A prefix names one script, as pgbench's -b takes it; an ambiguous one is refused.
    let o = hakari(&["run", "script", "--builtin", "s", "--engine", "sqlite"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("names 2 built-in scripts"),
        "{}",
        stderr(&o)
    );
}

/// `\\shell` and `\\setshell` under `--allow-shell` run as in pgbench (variables as arguments,
/// the output's integer stored); without the flag hakari refuses the script before the run, in
/// one line.
#[test]
fn shell_commands_run_only_when_allowed() {
    let (dir, _server, url) = server();
    let script = dir.path().join("shell.sql");
    std::fs::write(
        &script,
        "\\setshell x echo 41\n\\set a debug(:x + 1)\n\\shell true\n\
         \\setshell y echo :x\n\\set b debug(:y * 2)\n",
    )
    .unwrap();
    let o = through_pgbench(&url, &script);
    let theirs = debugged(&stderr(&o));
    let out = dir.path().join("out");
    let s = script.to_str().unwrap();
    let args = ["run", "script", "--file", s, "--transactions", "1", "--out"];
    let o = hakari(&[&args[..], &[out.to_str().unwrap(), "--allow-shell"]].concat());
    assert!(o.status.success(), "hakari: {}", stderr(&o));
    assert_eq!(debugged(&stderr(&o)), theirs);
    assert_eq!(
        theirs.len(),
        2,
        "pgbench printed {theirs:?} ({})",
        stderr(&o)
    );
    let o = hakari(&[&args[..], &[out.to_str().unwrap()]].concat());
    assert!(!o.status.success());
    let text = stderr(&o);
    assert!(text.contains("only with --allow-shell"), "{text}");
    assert_eq!(text.trim().lines().count(), 1, "{text}");
}

/// Compound statements (`\;`, run by pgbench in its simple mode) and pipelines (its extended
/// mode): `\gset` takes a compound's last result and `\aset` every one's; a pipeline's
/// statements run with their variables' values of when they were queued. The same `debug()`
/// values; pipelines misused are refused in pgbench's words, by hakari in one line before its
/// run, and on an engine without pipelines with the reason.
#[test]
fn compounds_and_pipelines_run_as_in_pgbench() {
    let (dir, _server, url) = server();
    let out = dir.path().join("out");
    let on_postgres = |script: &Path| {
        let s = script.to_str().unwrap();
        let args = [
            "run", "script", "--engine", "postgres", "--url", &url, "--file", s,
        ];
        let more = ["--transactions", "1", "--out", out.to_str().unwrap()];
        hakari(&[&args[..], &more[..]].concat())
    };
    let cases = [
        (
            "simple",
            "\\set a 7\n\
             SELECT :a AS v \\; SELECT :a + 1 AS w \\gset\n\
             \\set x debug(:w)\n\
             SELECT 1 AS one \\; SELECT 2 AS two, 3 AS three \\aset p_\n\
             \\set y debug(:p_one + :p_two + :p_three)\n",
        ),
        (
            "extended",
            "\\set a 3\n\\startpipeline\n\
             SELECT set_config('hakari.x', :a, false);\n\
             \\set a debug(:a * 10)\n\
             SELECT set_config('hakari.y', :a, false);\n\
             \\endpipeline\n\
             SELECT current_setting('hakari.x')::int AS x, \
             current_setting('hakari.y')::int AS y \\gset\n\
             \\set r debug(:x * 100 + :y)\n",
        ),
    ];
    for (i, (mode, text)) in cases.iter().enumerate() {
        let script = dir.path().join(format!("case{i}.sql"));
        std::fs::write(&script, text).unwrap();
        let o = through_pgbench_in(mode, &url, &script);
        assert!(o.status.success(), "pgbench: {}", stderr(&o));
        let theirs = debugged(&stderr(&o));
        assert_eq!(theirs.len(), 2, "pgbench printed {theirs:?}");
        let o = on_postgres(&script);
        assert!(o.status.success(), "hakari: {}", stderr(&o));
        assert_eq!(debugged(&stderr(&o)), theirs, "{text}");
    }
    let refused = [
        (
            "\\startpipeline\n\\startpipeline\n\\endpipeline\n",
            "already in pipeline mode",
        ),
        ("\\endpipeline\n", "not in pipeline mode"),
        (
            "\\startpipeline\nSELECT 1;\n",
            "end of script reached with pipeline open",
        ),
        (
            "\\startpipeline\nSELECT 1 AS q \\gset\n\\endpipeline\n",
            "\\gset is not allowed in pipeline mode",
        ),
    ];
    for (i, (text, says)) in refused.iter().enumerate() {
        let script = dir.path().join(format!("refused{i}.sql"));
        std::fs::write(&script, text).unwrap();
        let o = through_pgbench_in("extended", &url, &script);
        assert!(!o.status.success(), "pgbench took {text:?}");
        assert!(stderr(&o).contains(says), "pgbench: {}", stderr(&o));
        let o = on_postgres(&script);
        assert!(!o.status.success(), "hakari took {text:?}");
        let text_err = stderr(&o);
        assert!(text_err.contains(says), "{text:?}: {text_err}");
        assert_eq!(text_err.trim().lines().count(), 1, "{text:?}: {text_err}");
    }
    let script = dir.path().join("case1.sql");
    let o = through_hakari(&script, &out, true);
    assert!(!o.status.success(), "a pipeline ran on sqlite");
    assert!(
        stderr(&o).contains("needs PostgreSQL's protocol"),
        "{}",
        stderr(&o)
    );
}
