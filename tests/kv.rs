//! The kv workload through the real binary: every engine at every level it offers, at tiny
//! sizes; refusals and bad input; the result file's schema.

use hakari::durability::Durability;
use hakari::results::store;
use std::process::Command;
mod common;
use common::{hakari, result_files, stderr};

#[test]
fn every_engine_runs_every_level_it_offers() {
    for engine in hakari::engine::kv_engines() {
        // Levels that serve one thread only (Berkeley DB's Data Store) run alone.
        let (single, multi): (Vec<Durability>, Vec<Durability>) =
            hakari::engine::Engine::Kv(engine)
                .offered()
                .into_iter()
                .partition(|d| engine.max_threads(*d) == Some(1));
        run_levels(engine, &multi, &[1, 2]);
        run_levels(engine, &single, &[1]);
    }
}

fn run_levels(
    engine: hakari::engine::Named<dyn hakari::engine::KvEngine>,
    levels: &[Durability],
    threads: &[usize],
) {
    if levels.is_empty() {
        return;
    }
    let levels: Vec<&str> = levels.iter().map(|d| d.name()).collect();
    let thread_list: Vec<String> = threads.iter().map(|t| t.to_string()).collect();
    {
        let out_dir = tempfile::tempdir().unwrap();
        let o = hakari(&[
            "run",
            "kv",
            "--engine",
            engine.name(),
            "--durability",
            &levels.join(","),
            "--threads",
            &thread_list.join(","),
            "--batches",
            "40",
            "--runs",
            "2",
            "--seed",
            "7",
            "--out",
            out_dir.path().to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}: {}", engine.name(), stderr(&o));
        let files = result_files(out_dir.path());
        assert_eq!(files.len(), 1, "one result file");
        let r = store::read(&files[0]).unwrap();
        assert_eq!(r.status, "complete");
        assert!(r.complete);
        assert_eq!(r.seed, 7);
        for level in &levels {
            for t in threads {
                for step in ["fetch", "update", "delete", "insert"] {
                    let m = r
                        .measurements
                        .iter()
                        .find(|m| m.durability == *level && m.threads == *t && m.step == step)
                        .unwrap_or_else(|| panic!("{} {level} t{t} {step} missing", engine.name()));
                    assert_eq!(m.runs.len(), 2);
                    assert!(m.runs.iter().all(|run| run.ops == 400), "{:?}", m.runs);
                    assert!(m.ops_per_sec_mean > 0.0);
                    assert!(m.latency.is_some());
                }
            }
            let e = r
                .engines
                .iter()
                .find(|e| e.durability == *level)
                .expect("engine record per level");
            assert!(!e.durability_mapping.is_empty());
            assert!(!e.version.is_empty());
        }
    }
}

#[test]
fn a_level_the_engine_lacks_is_refused_naming_what_it_offers() {
    let out_dir = tempfile::tempdir().unwrap();
    let o = hakari(&[
        "run",
        "kv",
        "--engine",
        "sqlite,lmdb",
        "--durability",
        "sync,nosync",
        "--batches",
        "5",
        "--runs",
        "1",
        "--out",
        out_dir.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("does not offer durability 'nosync'"), "{err}");
    assert!(
        err.contains("It offers: none, sync, write-nosync, in-memory"),
        "{err}"
    );
    assert!(
        result_files(out_dir.path()).is_empty(),
        "no result file for a refused run"
    );
}

#[test]
fn bad_input_exits_non_zero_with_one_clear_line() {
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().to_str().unwrap();
    // A value the run refuses is an error (1) in one line; a value the flag cannot parse is
    // bad usage (2), named in clap's first line.
    let cases: Vec<(Vec<&str>, &str, i32)> = vec![
        (vec!["--engine", "oracle"], "unknown engine 'oracle'", 1),
        (vec!["--preset", "bdb-9"], "unknown preset 'bdb-9'", 1),
        (
            vec!["--durability", "fast"],
            "unknown durability level 'fast'",
            1,
        ),
        (vec!["--key-size", "4"], "at least 8 bytes", 1),
        (vec!["--threads", "0"], "at least 1", 1),
        (vec!["--batches", "0"], "--batches must be at least 1", 1),
        (vec!["--data-dir", "/nonexistent/dir"], "does not exist", 1),
        (vec!["--value-size", "12Q"], "for '--value-size <BYTES>'", 2),
        (
            vec!["--txn-size", "3"],
            "--txn-size takes 'op' or 'batch'",
            2,
        ),
    ];
    for (args, expected, code) in cases {
        let mut all = vec!["run", "kv", "--out", out];
        all.extend(&args);
        let o = hakari(&all);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
        let first = err.lines().next().unwrap_or("");
        assert!(first.contains(expected), "{args:?}: {err}");
        if code == 1 {
            assert_eq!(err.trim().lines().count(), 1, "{args:?}: one line: {err}");
        }
    }
    assert!(result_files(out_dir.path()).is_empty());
    let o = hakari(&["run", "kv", "--no-such-flag"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn an_unwritable_results_folder_is_refused_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let o = hakari(&[
        "run",
        "kv",
        "--engine",
        "null",
        "--batches",
        "5",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("results folder"), "{}", stderr(&o));
}

#[test]
fn a_user_data_dir_gets_only_a_subdirectory_removed_after() {
    let data = tempfile::tempdir().unwrap();
    std::fs::write(data.path().join("keep.txt"), b"mine").unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = hakari(&[
        "run",
        "kv",
        "--engine",
        "sqlite",
        "--durability",
        "sync",
        "--batches",
        "5",
        "--runs",
        "1",
        "--data-dir",
        data.path().to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let left: Vec<_> = std::fs::read_dir(data.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("keep.txt")]);
    let r = store::read(&result_files(out.path())[0]).unwrap();
    assert!(r
        .environment
        .data_dir
        .starts_with(data.path().to_str().unwrap()));
}

#[test]
fn result_files_round_trip_and_foreign_files_are_refused() {
    let out = tempfile::tempdir().unwrap();
    let o = hakari(&[
        "run",
        "kv",
        "--engine",
        "null",
        "--batches",
        "5",
        "--runs",
        "3",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let path = &result_files(out.path())[0];
    let r = store::read(path).unwrap();
    // Re-serialize and read back: nothing lost.
    let again = out.path().join("again.json");
    store::write_atomic(&again, &r).unwrap();
    let r2 = store::read(&again).unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        serde_json::to_value(&r2).unwrap()
    );
    // Scripts can read the documented fields.
    let raw: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let m = &raw["measurements"][0];
    for field in [
        "workload",
        "engine",
        "durability",
        "threads",
        "step",
        "ops_per_sec_mean",
        "ops_per_sec_stddev",
        "runs",
    ] {
        assert!(!m[field].is_null(), "field {field}");
    }
    assert_eq!(raw["schema_version"], 1);
    for field in [
        "cpu_model",
        "cpu_cores",
        "memory_bytes",
        "kernel",
        "filesystem",
        "device",
    ] {
        assert!(!raw["environment"][field].is_null(), "environment.{field}");
    }
    // Other versions, truncated and foreign JSON get clear messages.
    let mut other = raw.clone();
    other["schema_version"] = 99.into();
    let p = out.path().join("v99.json");
    std::fs::write(&p, other.to_string()).unwrap();
    assert!(store::read(&p)
        .unwrap_err()
        .to_string()
        .contains("schema version 99"));
    let text = std::fs::read_to_string(path).unwrap();
    std::fs::write(&p, &text[..text.len() / 2]).unwrap();
    assert!(store::read(&p)
        .unwrap_err()
        .to_string()
        .contains("truncated"));
    std::fs::write(&p, "{\"hello\": 1}").unwrap();
    assert!(store::read(&p)
        .unwrap_err()
        .to_string()
        .contains("not a hakari result file"));
}

#[test]
fn presets_skip_levels_an_engine_lacks_with_a_note() {
    let out = tempfile::tempdir().unwrap();
    let o = hakari(&[
        "run",
        "kv",
        "--preset",
        "bdb-4.3",
        "--engine",
        "lmdb",
        "--batches",
        "200",
        "--runs",
        "1",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = store::read(&result_files(out.path())[0]).unwrap();
    // lmdb offers only write-nosync of the preset's none, in-memory, nosync, write-nosync.
    let levels: std::collections::BTreeSet<_> = r
        .measurements
        .iter()
        .map(|m| m.durability.clone())
        .collect();
    assert_eq!(
        levels.into_iter().collect::<Vec<_>>(),
        vec![Durability::WriteNosync.name().to_string()]
    );
    assert_eq!(
        r.notes.iter().filter(|n| n.contains("skipped")).count(),
        3,
        "{:?}",
        r.notes
    );
    let steps: Vec<_> = r.measurements.iter().map(|m| m.step.as_str()).collect();
    assert_eq!(steps, vec!["write", "read", "bulk-read"]);
    assert_eq!(
        r.measurements[2].runs[0].ops, 200,
        "bulk read sees every record"
    );
}

#[test]
fn engines_lists_every_engine_with_levels() {
    let o = hakari(&["engines"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    for e in hakari::engine::kv_engines() {
        assert!(text.contains(e.name()), "{text}");
    }
    assert!(text.contains("not offered"), "refusal reasons are shown");
}

#[test]
fn ctrl_c_keeps_finished_steps_and_marks_the_file_interrupted() {
    let out = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hakari"))
        .args([
            "run",
            "kv",
            "--engine",
            "null,sqlite",
            "--durability",
            "sync",
            "--batches",
            "100000",
            "--runs",
            "1",
            "--out",
            out.path().to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the null engine's configuration is written, then interrupt sqlite's.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while result_files(out.path()).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "null engine never finished"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let r = store::read(&result_files(out.path())[0]).unwrap();
    assert_eq!(r.status, "interrupted");
    assert!(!r.complete);
    assert!(r.measurements.iter().all(|m| m.engine == "null"));
    assert_eq!(r.measurements.len(), 4);
}

#[test]
fn rocksdb_compresses_as_asked_and_other_engines_refuse_compression() {
    for (asked, in_effect) in [
        (None, "kSnappyCompression"),
        (Some("none"), "kNoCompression"),
        (Some("lz4"), "kLZ4Compression"),
        (Some("zstd"), "kZSTD"),
    ] {
        let mut args = vec![
            "run",
            "kv",
            "--engine",
            "rocksdb",
            "--batches",
            "20",
            "--runs",
            "1",
        ];
        if let Some(c) = asked {
            args.extend(["--compression", c]);
        }
        let r = common::run_ok(&args);
        let said = &r.engines[0].settings["compression"];
        assert!(said.starts_with(in_effect), "{asked:?}: {said}");
    }
    let o = common::hakari(&["run", "kv", "--engine", "lmdb", "--compression", "lz4"]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("engine 'lmdb' does not compress its blocks"),
        "{}",
        common::stderr(&o)
    );
    let o = common::hakari(&["run", "kv", "--engine", "rocksdb", "--compression", "gzip"]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(common::stderr(&o).contains("unknown compression 'gzip'"));
}
