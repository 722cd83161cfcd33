//! Load once, run many (`--keep`, `--load-only`, `--run-only`) through the real binary on a
//! private PostgreSQL playing the user's server: a kept tpcb, ycsb and tpch database is used by
//! a second run (its load absent, its note present) and refused when the scale differs; a run
//! without the flags loads afresh and forgets what was kept.

mod common;

use common::{hakari, private_postgres, result_files, stderr};
use hakari::results::RunResult;
use std::path::Path;

/// Runs `args` with `--out out`; the exit code, stderr, and the result file it wrote (if any).
fn run(out: &Path, args: &[&str]) -> (Option<i32>, String, Option<RunResult>) {
    let before = result_files(out);
    let mut all = args.to_vec();
    all.extend(["--out", out.to_str().unwrap()]);
    let o = hakari(&all);
    let new = (result_files(out).into_iter()).find(|f| !before.contains(f));
    let result = new.map(|f| hakari::results::store::read(&f).unwrap());
    (o.status.code(), stderr(&o), result)
}

fn steps(r: &RunResult) -> Vec<&str> {
    r.measurements.iter().map(|m| m.step.as_str()).collect()
}

fn noted(r: &RunResult, text: &str) -> bool {
    r.notes.iter().any(|n| n.contains(text))
}

fn kept_rows(url: &str) -> Vec<(String, String, String)> {
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let present: bool = (c.query_one("SELECT to_regclass('hakari.hakari_kept') IS NOT NULL", &[]))
        .unwrap()
        .get(0);
    if !present {
        return Vec::new();
    }
    let rows = c
        .query(
            "SELECT workload, parameters, state FROM hakari.hakari_kept ORDER BY 1",
            &[],
        )
        .unwrap();
    rows.iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect()
}

#[test]
fn tpcb_loaded_once_runs_many_times_and_a_fresh_run_forgets_it() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = private_postgres(dir.path());
    let url = format!("postgresql://hakari@127.0.0.1:{port}/hakari");
    let out = dir.path().join("out");
    let tpcb = |extra: &[&str]| {
        let mut args = vec!["run", "tpcb", "--engine", "postgres", "--url", &url];
        args.extend(["--accounts-per-branch", "1000", "--duration", "1"]);
        args.extend(["--clients", "2", "--runs", "1"]);
        args.extend(extra);
        run(&out, &args)
    };

    let (code, text, loaded) = tpcb(&["--load-only"]);
    assert_eq!(code, Some(0), "{text}");
    let loaded = loaded.unwrap();
    assert!(steps(&loaded).is_empty(), "{:?}", steps(&loaded));
    assert!(
        noted(&loaded, "loaded branches 1..=1"),
        "{:?}",
        loaded.notes
    );
    assert_eq!(
        kept_rows(&url),
        [(
            "tpcb".into(),
            "--scale 1; --tellers-per-branch 10; --accounts-per-branch 1000; --table-sets 1".into(),
            String::new()
        )]
    );

    for _ in 0..2 {
        let (code, text, r) = tpcb(&["--run-only"]);
        assert_eq!(code, Some(0), "{text}");
        let r = r.unwrap();
        assert_eq!(steps(&r), ["tpcb"]);
        assert!(noted(&r, "ran on the tpcb data an earlier run loaded at"));
        assert!(!noted(&r, "loaded branches"), "{:?}", r.notes);
        assert_eq!(r.parameters["phases"], "run-only");
    }

    let (code, text, _) = tpcb(&["--run-only", "--scale", "2"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("was made with --scale 1, and this run asks for --scale 2"),
        "{text}"
    );
    assert_eq!(kept_rows(&url).len(), 1, "a refused run leaves them");

    // Without the flags: loaded afresh, then dropped, and nothing is kept any more.
    let (code, text, fresh) = tpcb(&[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(noted(&fresh.unwrap(), "loaded branches 1..=1"));
    assert!(kept_rows(&url).is_empty());
    let (code, text, _) = tpcb(&["--run-only"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("no tpcb data kept on this server"), "{text}");
}

#[test]
fn ycsb_and_tpch_kept_are_used_by_a_second_run_and_refused_at_another_scale() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, port) = private_postgres(dir.path());
    let url = format!("postgresql://hakari@127.0.0.1:{port}/hakari");
    let out = dir.path().join("out");
    let ycsb = |extra: &[&str]| {
        let mut args = vec!["run", "ycsb", "--engine", "postgres", "--url", &url];
        if !extra.contains(&"--records") {
            args.extend(["--records", "2000"]);
        }
        args.extend(["--operations", "2000"]);
        args.extend(["--threads", "2", "--durability", "nosync"]);
        args.extend(extra);
        run(&out, &args)
    };
    let (code, text, first) = ycsb(&["--workload", "c", "--keep"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(steps(&first.unwrap()).contains(&"load"));
    let (code, text, second) = ycsb(&["--workload", "b", "--keep"]);
    assert_eq!(code, Some(0), "{text}");
    let second = second.unwrap();
    assert!(!steps(&second).contains(&"load"), "{:?}", steps(&second));
    assert!(steps(&second).contains(&"run"));
    assert!(noted(
        &second,
        "ran on the ycsb data an earlier run loaded at"
    ));
    let (code, text, _) = ycsb(&["--workload", "c", "--keep", "--records", "3000"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("was made with recordcount=2000, insertcount=2000, and this run asks for recordcount=3000, insertcount=3000"),
        "{text}"
    );
    // A run phase that inserts leaves more records than were kept: they stay, not as kept.
    let (code, text, inserted) = ycsb(&["--workload", "d", "--run-only"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        noted(&inserted.unwrap(), "not kept for another run"),
        "{text}"
    );
    assert!(kept_rows(&url).is_empty());

    let tpch = |extra: &[&str]| {
        let mut args = vec!["run", "tpch", "--engine", "postgres", "--url", &url];
        if !extra.contains(&"--sf") {
            args.extend(["--sf", "0.01"]);
        }
        args.extend(["--streams", "1"]);
        args.extend(extra);
        run(&out, &args)
    };
    let (code, text, first) = tpch(&["--keep", "--validate"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(steps(&first.unwrap()).contains(&"load total"));
    assert_eq!(kept_rows(&url)[0].2, "2", "refresh sets 1 and 2 used");
    let (code, text, second) = tpch(&["--run-only"]);
    assert_eq!(code, Some(0), "{text}");
    let second = second.unwrap();
    assert!(!steps(&second).iter().any(|s| s.starts_with("load")));
    assert!(noted(&second, "refresh sets 1..=2 were used"));
    assert_eq!(kept_rows(&url)[0].2, "4", "then sets 3 and 4");
    let (code, text, _) = tpch(&["--run-only", "--validate"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("--validate needs the tables as loaded"),
        "{text}"
    );
    let (code, text, _) = tpch(&["--keep", "--sf", "0.02"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("was made with --sf 0.01, and this run asks for --sf 0.02"),
        "{text}"
    );
}

#[test]
fn ycsb_records_kept_on_redis_are_run_on_and_a_fresh_run_removes_them() {
    let dir = tempfile::tempdir().unwrap();
    let server = common::private_redis(dir.path());
    let url = format!("redis://127.0.0.1:{}", server.process.port);
    let out = dir.path().join("out");
    let ycsb = |extra: &[&str]| {
        let mut args = vec!["run", "ycsb", "--engine", "redis", "--url", &url];
        args.extend(["--records", "2000", "--operations", "2000"]);
        args.extend(["--durability", "sync", "--threads", "2"]);
        args.extend(extra);
        run(&out, &args)
    };
    let mut con = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let mut keys = || -> usize { redis::cmd("DBSIZE").query(&mut con).unwrap() };
    let (code, text, loaded) = ycsb(&["--workload", "c", "--load-only"]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(steps(&loaded.unwrap()), ["load"]);
    let held = keys();
    assert!(held > 2000, "the records and the record of them: {held}");
    let (code, text, ran) = ycsb(&["--workload", "b", "--run-only"]);
    assert_eq!(code, Some(0), "{text}");
    let ran = ran.unwrap();
    assert!(!steps(&ran).contains(&"load") && steps(&ran).contains(&"run"));
    assert!(noted(&ran, "ran on the ycsb data an earlier run loaded at"));
    assert_eq!(keys(), held, "left as they were");
    let (code, text, _) = ycsb(&["--workload", "b"]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(
        keys(),
        0,
        "a run without the flags leaves nothing of hakari's"
    );
}

#[test]
fn the_flags_are_refused_where_nothing_can_be_kept() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for (args, says) in [
        (
            &["run", "tpcb", "--keep"][..],
            "--keep keeps the data on a server given by --url, and sqlite has none",
        ),
        (
            &["run", "ycsb", "--engine", "rocksdb", "--load-only"][..],
            "--load-only keeps the data on a server given by --url, and rocksdb has none",
        ),
        (
            &["run", "tpcb", "--keep", "--run-only"][..],
            "cannot be used with",
        ),
        (&["run", "kv", "--keep"][..], "unexpected argument '--keep'"),
        (
            &[
                "run",
                "ycsb",
                "--engine",
                "memcached",
                "--url",
                "memcache://127.0.0.1:1",
                "--keep",
            ][..],
            "--keep: memcached may evict what it stores",
        ),
        (
            &[
                "run",
                "tpcb",
                "--engine",
                "postgres",
                "--url",
                "postgres://hakari@127.0.0.1:1/hakari",
                "--shard",
                "1/2",
                "--keep",
            ][..],
            "--keep and --shard 1/2 do not go together yet",
        ),
    ] {
        let (code, text, result) = run(&out, args);
        assert_eq!(code, Some(2), "{args:?}: {text}");
        assert!(text.contains(says), "{args:?}: {text}");
        assert!(result.is_none(), "{args:?} wrote a result");
    }
}
