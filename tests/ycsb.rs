//! YCSB's core workloads through the real binary on every engine (private servers for
//! PostgreSQL, MariaDB, Redis and memcached): every workload loads and runs, reads find every
//! record whole (the workload fails the run otherwise), and the figures add up.

use hakari::results::RunResult;
mod common;
use common::{hakari, run_ok, stderr};

const RECORDS: u64 = 300;
const OPERATIONS: u64 = 400;

/// Every engine ycsb takes, from the registry (odbc reaching a SQLite file through its driver).
fn engines() -> Vec<&'static str> {
    common::engines_taking(hakari::engine::Takes::Any, &[])
}

fn step<'a>(r: &'a RunResult, mix: &str, step: &str) -> &'a hakari::results::Measurement {
    r.measurements
        .iter()
        .find(|m| m.step == step && m.config.get("mix").and_then(|v| v.as_str()) == Some(mix))
        .unwrap_or_else(|| panic!("no {step} figure for workload {mix}"))
}

#[test]
fn every_core_workload_runs_on_every_engine_and_the_counts_add_up() {
    let (records, operations) = (RECORDS.to_string(), OPERATIONS.to_string());
    for engine in engines() {
        let dir = tempfile::tempdir().unwrap();
        let extra = common::engine_args(engine, dir.path());
        let mut args = vec![
            "run",
            "ycsb",
            "--engine",
            engine,
            "--workload",
            "a,b,c,d,e,f",
            "--records",
            &records,
            "--operations",
            &operations,
            "--threads",
            "2",
        ];
        args.extend(extra.iter().map(String::as_str));
        let r = run_ok(&args);
        assert_eq!(r.status, "complete", "{engine}");
        let mixes: &[&str] = if engine == "memcached" {
            assert!(
                r.notes.iter().any(|n| n.contains("cannot run ycsb-e")),
                "memcached: the scan workload is refused with its reason: {:?}",
                r.notes
            );
            &["a", "b", "c", "d", "f"]
        } else {
            &["a", "b", "c", "d", "e", "f"]
        };
        for mix in mixes {
            let load = step(&r, mix, "load");
            assert_eq!(load.runs[0].ops, RECORDS, "{engine} {mix}: load");
            let run = step(&r, mix, "run");
            assert_eq!(run.runs[0].ops, OPERATIONS, "{engine} {mix}: run");
            let ops_of = |name: &str| {
                (r.measurements.iter())
                    .filter(|m| m.step == name && m.config["mix"] == *mix)
                    .map(|m| m.runs[0].ops)
                    .sum::<u64>()
            };
            let per_kind: u64 = ["read", "update", "insert", "scan", "rmw"]
                .iter()
                .map(|k| ops_of(k))
                .sum();
            assert_eq!(per_kind, OPERATIONS, "{engine} {mix}: operations by kind");
            let expected_kinds: &[&str] = match *mix {
                "a" => &["read", "update"],
                "c" => &["read"],
                "d" => &["read", "insert"],
                "e" => &["scan", "insert"],
                "f" => &["read", "rmw"],
                _ => &["read"],
            };
            for kind in expected_kinds {
                assert!(ops_of(kind) > 0, "{engine} {mix}: no {kind}");
                let latency = step(&r, mix, kind).latency.as_ref();
                assert_eq!(
                    latency.map(|l| l.count),
                    Some(ops_of(kind)),
                    "{engine} {mix} {kind}"
                );
            }
        }
    }
}

#[test]
fn each_distribution_is_a_configuration_and_is_recorded() {
    let r = run_ok(&[
        "run",
        "ycsb",
        "--engine",
        "rocksdb",
        "--workload",
        "b",
        "--distribution",
        "zipfian,uniform,latest,hotspot,exponential",
        "--records",
        "500",
        "--operations",
        "500",
    ]);
    for d in ["zipfian", "uniform", "latest", "hotspot", "exponential"] {
        let m = r
            .measurements
            .iter()
            .find(|m| m.step == "run" && m.config["distribution"] == d)
            .unwrap_or_else(|| panic!("no run with the {d} distribution"));
        assert_eq!(m.runs[0].ops, 500);
    }
}

#[test]
fn a_custom_mix_runs_its_shares_for_a_duration_in_an_open_loop() {
    let r = run_ok(&[
        "run",
        "ycsb",
        "--engine",
        "lmdb",
        "--workload",
        "custom",
        "--read",
        "0.5",
        "--update",
        "0.3",
        "--insert",
        "0.1",
        "--scan",
        "0.05",
        "--rmw",
        "0.05",
        "--records",
        "1000",
        "--duration",
        "2",
        "--rate",
        "500",
        "--interval",
        "0.5",
    ]);
    let run = step(&r, "custom", "run");
    let ops = run.runs[0].ops;
    assert!(
        (700..=1100).contains(&ops),
        "about 1,000 operations at 500/s for 2 s, got {ops}"
    );
    assert!(
        run.open_loop.is_some(),
        "the open loop's figures are recorded"
    );
    assert!(run.runs[0].intervals.len() >= 3, "an interval series");
    let reads = step(&r, "custom", "read").runs[0].ops as f64;
    assert!(
        (reads / ops as f64 - 0.5).abs() < 0.1,
        "half the operations read: {reads} of {ops}"
    );
}

#[test]
fn bad_mixes_are_refused_with_a_reason() {
    let cases: [(&[&str], &str); 4] = [
        (&["--workload", "g"], "unknown YCSB workload 'g'"),
        (&["--workload", "custom", "--read", "0.5"], "add up to 0.5"),
        (
            &["--workload", "a", "--read", "1"],
            "apply to --workload custom",
        ),
        (&["--records", "0"], "--records"),
    ];
    for (args, message) in cases {
        let mut all = vec!["run", "ycsb", "--engine", "null"];
        all.extend(args);
        let o = hakari(&all);
        assert!(!o.status.success(), "{args:?} was accepted");
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
    }
    let o = hakari(&["run", "ycsb", "--engine", "memcached", "--workload", "e"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("keeps no key order"), "{}", stderr(&o));
}

/// YCSB's six core workload files as its repository has them (the properties they set; YCSB's
/// licence header aside), for `-P`.
const CORE_FILES: [(&str, &str); 6] = [
    ("workloada", "readproportion=0.5\nupdateproportion=0.5\nscanproportion=0\ninsertproportion=0\nrequestdistribution=zipfian\n"),
    ("workloadb", "readproportion=0.95\nupdateproportion=0.05\nscanproportion=0\ninsertproportion=0\nrequestdistribution=zipfian\n"),
    ("workloadc", "readproportion=1\nupdateproportion=0\nscanproportion=0\ninsertproportion=0\nrequestdistribution=zipfian\n"),
    ("workloadd", "readproportion=0.95\nupdateproportion=0\nscanproportion=0\ninsertproportion=0.05\nrequestdistribution=latest\n"),
    ("workloade", "readproportion=0\nupdateproportion=0\nscanproportion=0.95\ninsertproportion=0.05\nrequestdistribution=zipfian\nmaxscanlength=100\nscanlengthdistribution=uniform\n"),
    ("workloadf", "readproportion=0.5\nupdateproportion=0\nscanproportion=0\ninsertproportion=0\nreadmodifywriteproportion=0.5\nrequestdistribution=zipfian\n"),
];

/// YCSB's own workload files run unchanged (`-P`), sized down by `-p` as YCSB's users do, on an
/// embedded engine and a server: each runs its own mix, in its shares.
#[test]
fn ycsbs_own_workload_files_run_with_their_mixes() {
    let dir = tempfile::tempdir().unwrap();
    for (name, body) in CORE_FILES {
        let text = format!(
            "# Yahoo! Cloud System Benchmark\n# {name}\n\nrecordcount=1000\noperationcount=1000\n\
             workload=site.ycsb.workloads.CoreWorkload\n\nreadallfields=true\n\n{body}"
        );
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    for engine in ["sqlite", "postgres"] {
        for (name, body) in CORE_FILES {
            let file = dir.path().join(name);
            let r = run_ok(&[
                "run",
                "ycsb",
                "--engine",
                engine,
                "-P",
                file.to_str().unwrap(),
                "-p",
                "recordcount=200",
                "-p",
                "operationcount=600",
                "--threads",
                "2",
            ]);
            assert_eq!(step(&r, name, "load").runs[0].ops, 200, "{engine} {name}");
            let ops = step(&r, name, "run").runs[0].ops;
            assert_eq!(ops, 600, "{engine} {name}");
            for (kind, key) in [
                ("read", "readproportion"),
                ("update", "updateproportion"),
                ("insert", "insertproportion"),
                ("scan", "scanproportion"),
                ("rmw", "readmodifywriteproportion"),
            ] {
                let share: f64 = (body.lines())
                    .find_map(|l| l.strip_prefix(&format!("{key}=")))
                    .map_or(0.0, |v| v.parse().unwrap());
                let done = (r.measurements.iter())
                    .filter(|m| m.step == kind && m.config["mix"] == name)
                    .map(|m| m.runs[0].ops)
                    .sum::<u64>() as f64;
                assert!(
                    (done / ops as f64 - share).abs() < 0.08,
                    "{engine} {name}: {kind} {done} of {ops}, {key}={share}"
                );
            }
        }
    }
}

/// `insertorder=ordered` with `zeropadding` names records `user000…n`, as YCSB does: workload E's
/// scans and inserts run on them, every read record whole, on an embedded engine and a server.
#[test]
fn ordered_keys_run_workload_e() {
    for engine in ["sqlite", "postgres"] {
        let r = run_ok(&[
            "run",
            "ycsb",
            "--engine",
            engine,
            "-p",
            "recordcount=300",
            "-p",
            "operationcount=400",
            "-p",
            "scanproportion=0.9",
            "-p",
            "insertproportion=0.05",
            "-p",
            "readproportion=0.05",
            "-p",
            "updateproportion=0",
            "-p",
            "requestdistribution=zipfian",
            "-p",
            "insertorder=ordered",
            "-p",
            "zeropadding=12",
            "--threads",
            "2",
        ]);
        assert_eq!(step(&r, "properties", "run").runs[0].ops, 400, "{engine}");
        assert!(step(&r, "properties", "scan").runs[0].ops > 300, "{engine}");
        let keys = &r.parameters["keys"];
        assert_eq!(
            (keys["ordered"].as_bool(), keys["zero_padding"].as_u64()),
            (Some(true), Some(12))
        );
    }
}

/// CoreWorkload's other properties: the exponential request distribution, field lengths drawn
/// per field, zipfian scan lengths, reads of one field or updates of every field. Each run reads
/// every record or field it chooses back at a length it may have (the workload fails it
/// otherwise), on SQLite and on a key-value store, and the result says what ran.
#[test]
fn exponential_drawn_lengths_and_one_or_all_fields_run() {
    let cases = [("uniform", "false", "true"), ("zipfian", "true", "false")];
    for engine in ["sqlite", "lmdb"] {
        for (lengths, read_all, write_all) in cases {
            let props = [
                "recordcount=300".to_string(),
                "operationcount=600".into(),
                "readproportion=0.3".into(),
                "updateproportion=0.2".into(),
                "readmodifywriteproportion=0.2".into(),
                "scanproportion=0.25".into(),
                "insertproportion=0.05".into(),
                "requestdistribution=exponential".into(),
                "exponential.percentile=90".into(),
                format!("fieldlengthdistribution={lengths}"),
                "minfieldlength=5".into(),
                "fieldlength=50".into(),
                "scanlengthdistribution=zipfian".into(),
                "maxscanlength=20".into(),
                format!("readallfields={read_all}"),
                format!("writeallfields={write_all}"),
            ];
            let mut args = vec!["run", "ycsb", "--engine", engine, "--threads", "2"];
            props.iter().for_each(|p| args.extend(["-p", p.as_str()]));
            let r = run_ok(&args);
            let what = format!("{engine} {lengths} readallfields={read_all}");
            assert_eq!(step(&r, "properties", "run").runs[0].ops, 600, "{what}");
            for kind in ["read", "update", "rmw", "scan", "insert"] {
                assert!(
                    step(&r, "properties", kind).runs[0].ops > 0,
                    "{what}: {kind}"
                );
            }
            let config = &step(&r, "properties", "run").config;
            assert_eq!(config["distribution"], "exponential", "{what}");
            assert_eq!(config["exponential_percentile"], 90.0, "{what}");
            assert_eq!(config["field_lengths"], lengths, "{what}");
            assert_eq!(config["min_field_length"], 5, "{what}");
            assert_eq!(config["scan_lengths"], "zipfian", "{what}");
            let said = |key: &str| config.get(key).map(|v| v.to_string());
            let non_default =
                |value: &str, default: &str| (value != default).then(|| value.to_string());
            assert_eq!(
                said("read_all_fields"),
                non_default(read_all, "true"),
                "{what}"
            );
            assert_eq!(
                said("write_all_fields"),
                non_default(write_all, "false"),
                "{what}"
            );
            let p = &r.parameters;
            assert_eq!(p["read_all_fields"].to_string(), read_all, "{what}");
            assert_eq!(p["write_all_fields"].to_string(), write_all, "{what}");
            assert_eq!(p["exponential"]["percentile"], 90.0, "{what}");
        }
    }
}

/// Unknown properties are named in a warning; a malformed line, a value hakari cannot honour
/// and `-P` beside `--workload` are refused with one clear error.
#[test]
fn property_files_say_what_they_leave_out_and_refuse_what_they_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("w");
    std::fs::write(&file, "recordcount=50\noperationcount=50\ncolumnfamily=x\n").unwrap();
    let f = file.to_str().unwrap();
    let out = dir.path().join("out");
    let o = hakari(&[
        "run",
        "ycsb",
        "--engine",
        "null",
        "-P",
        f,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: ")
            && stderr(&o).contains(":3: columnfamily is not a property hakari knows"),
        "{}",
        stderr(&o)
    );
    std::fs::write(&file, "recordcount=50\njust words\nno_separator\n").unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["-P", f], ":3: 'no_separator' is no property"),
        (
            &["-p", "fieldlengthdistribution=histogram"],
            "fieldlengthdistribution=histogram: hakari does not read YCSB's histogram files",
        ),
        (
            &["-p", "requestdistribution=sequential"],
            "requestdistribution=sequential",
        ),
        (
            &["-p", "recordcount=1", "--workload", "a"],
            "cannot be used with",
        ),
    ];
    for (args, says) in cases {
        let mut all = vec!["run", "ycsb", "--engine", "null"];
        all.extend(args);
        let o = hakari(&all);
        assert!(!o.status.success(), "{args:?} was accepted");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
}

/// YCSB's `target` paces the run as `--rate` does, `maxexecutiontime` bounds it as `--duration`.
#[test]
fn target_and_maxexecutiontime_are_rate_and_duration() {
    let r = run_ok(&[
        "run",
        "ycsb",
        "--engine",
        "null",
        "-p",
        "recordcount=100",
        "-p",
        "operationcount=0",
        "-p",
        "maxexecutiontime=2",
        "-p",
        "target=300",
        "-p",
        "readproportion=1",
    ]);
    let run = step(&r, "properties", "run");
    assert!(run.open_loop.is_some(), "target made an open loop");
    let ops = run.runs[0].ops;
    assert!(
        (400..=700).contains(&ops),
        "about 600 operations at 300/s for 2 s, got {ops}"
    );
}

/// `insertstart` and `insertcount` load a slice of the records, and the operations choose from
/// it (the records outside it are never loaded, and never read); a slice beside --shard, or a
/// distribution that would leave it, is refused.
#[test]
fn a_slice_of_the_records_loads_and_runs() {
    for (engine, distribution) in [("sqlite", "uniform"), ("lmdb", "hotspot")] {
        let props = [
            "recordcount=300",
            "insertstart=100",
            "insertcount=150",
            "operationcount=400",
            "readproportion=0.6",
            "updateproportion=0.4",
        ];
        let dist = format!("requestdistribution={distribution}");
        let mut args = vec!["run", "ycsb", "--engine", engine, "-p", dist.as_str()];
        props.iter().for_each(|p| args.extend(["-p", p]));
        let r = run_ok(&args);
        assert_eq!(step(&r, "properties", "load").runs[0].ops, 150, "{engine}");
        assert_eq!(step(&r, "properties", "run").runs[0].ops, 400, "{engine}");
        let config = &step(&r, "properties", "run").config;
        assert_eq!(config["insert_start"], 100, "{engine}");
        assert_eq!(config["insert_count"], 150, "{engine}");
    }
    let refused = |extra: &[&str]| {
        let mut args = vec!["run", "ycsb", "--engine", "sqlite", "-p", "recordcount=300"];
        args.extend(["-p", "insertstart=100"]);
        args.extend(extra);
        let o = hakari(&args);
        assert!(!o.status.success(), "{extra:?} ran");
        let text = stderr(&o);
        assert_eq!(text.trim().lines().count(), 1, "{text}");
        text
    };
    assert!(refused(&["-p", "requestdistribution=latest"]).contains("does not load"));
    assert!(refused(&["-p", "insertcount=500"]).contains("must name some of the 300 records"));
}
