//! What users feed hakari, mutated at random: script files, result files, interval logs and the
//! values typed on the command line. Whatever the input, hakari must not panic (nor hang), and
//! every input it refuses must be refused with an error that reads as one line (`{e:#}`, as
//! hakari prints it after "hakari: error: ").
//!
//! Property tests with a fixed number of cases each (and no `proptest-regressions/` files), so
//! the whole file runs in seconds within the normal test suite. A failure prints the smallest
//! input proptest could shrink it to.

use hakari::report::compare;
use hakari::report::gate::{Requirement, Thresholds};
use hakari::report::html::{self, Loaded};
use hakari::results::{store, Measurement, MeasurementKey, RunResult};
use hakari::workload::script::{ScriptFile, ScriptParams};
use hakari::workload::Workload;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, UNIX_EPOCH};

/// A fixed number of cases from a fixed seed (the suite passes or fails the same way every run;
/// `PROPTEST_RNG_SEED=random` or another number explores further), and no failure files written
/// next to the sources.
fn config(cases: u32) -> ProptestConfig {
    let seed = match std::env::var("PROPTEST_RNG_SEED").ok().as_deref() {
        Some("random") => proptest::test_runner::RngSeed::Random,
        Some(n) => proptest::test_runner::RngSeed::Fixed(n.parse().unwrap_or(1)),
        None => proptest::test_runner::RngSeed::Fixed(20261125),
    };
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: seed,
        ..ProptestConfig::default()
    }
}

/// An error as hakari prints it must hold no line break.
fn one_line(e: impl std::fmt::Display) -> Result<(), TestCaseError> {
    let text = format!("{e:#}");
    prop_assert!(
        !text.contains(['\n', '\r']),
        "an error over several lines: {text:?}"
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Mutating bytes

/// One change to an input. Positions and lengths are taken modulo the input's length.
#[derive(Clone, Debug)]
enum Edit {
    /// A piece of the input's own vocabulary, or raw bytes.
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Duplicate(usize, usize),
    /// Cuts a span out and puts it back elsewhere.
    Move(usize, usize, usize),
    Flip(usize, u8),
    Truncate(usize),
    SwapLines(usize, usize),
    DuplicateLine(usize),
    DeleteLine(usize),
}

/// Edits that splice in pieces of `vocabulary` (what the input's format is made of) among
/// random ones.
fn edits(vocabulary: &'static [&'static str], most: usize) -> impl Strategy<Value = Vec<Edit>> {
    let piece = prop_oneof![
        3 => prop::sample::select(vocabulary).prop_map(|s| s.as_bytes().to_vec()),
        1 => prop::collection::vec(any::<u8>(), 1..6),
    ];
    let at = any::<usize>;
    let edit = prop_oneof![
        4 => (at(), piece).prop_map(|(i, p)| Edit::Insert(i, p)),
        2 => (at(), 1..64usize).prop_map(|(i, n)| Edit::Delete(i, n)),
        1 => (at(), 1..64usize).prop_map(|(i, n)| Edit::Duplicate(i, n)),
        1 => (at(), at(), 1..64usize).prop_map(|(i, j, n)| Edit::Move(i, j, n)),
        2 => (at(), 1..=255u8).prop_map(|(i, mask)| Edit::Flip(i, mask)),
        1 => at().prop_map(Edit::Truncate),
        1 => (at(), at()).prop_map(|(i, j)| Edit::SwapLines(i, j)),
        1 => at().prop_map(Edit::DuplicateLine),
        1 => at().prop_map(Edit::DeleteLine),
    ];
    prop::collection::vec(edit, 1..=most)
}

/// The input with the edits made, in order.
fn mutate(input: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut out = input.to_vec();
    for edit in edits {
        let len = out.len();
        let at = |i: usize| i % (len + 1);
        let span = |i: usize, n: usize| at(i)..(at(i) + n).min(len);
        let mut lines: Vec<Vec<u8>> = out
            .split_inclusive(|&b| b == b'\n')
            .map(<[u8]>::to_vec)
            .collect();
        let line = |i: usize| i % lines.len().max(1);
        match edit {
            Edit::Insert(i, bytes) => drop(out.splice(at(*i)..at(*i), bytes.iter().copied())),
            Edit::Delete(i, n) => drop(out.drain(span(*i, *n))),
            Edit::Duplicate(i, n) => {
                let copy = out[span(*i, *n)].to_vec();
                out.splice(at(*i)..at(*i), copy);
            }
            Edit::Move(i, j, n) => {
                let cut: Vec<u8> = out.drain(span(*i, *n)).collect();
                let to = *j % (out.len() + 1);
                out.splice(to..to, cut);
            }
            Edit::Flip(i, mask) if len > 0 => out[*i % len] ^= mask,
            Edit::Flip(..) => {}
            Edit::Truncate(i) => out.truncate(at(*i)),
            Edit::SwapLines(i, j) if !lines.is_empty() => {
                let (a, b) = (line(*i), line(*j));
                lines.swap(a, b);
                out = lines.concat();
            }
            Edit::DuplicateLine(i) if !lines.is_empty() => {
                let copy = lines[line(*i)].clone();
                lines.insert(line(*i), copy);
                out = lines.concat();
            }
            Edit::DeleteLine(i) if !lines.is_empty() => {
                lines.remove(line(*i));
                out = lines.concat();
            }
            Edit::SwapLines(..) | Edit::DuplicateLine(_) | Edit::DeleteLine(_) => {}
        }
    }
    out
}

/// Runs `f` on a thread of its own and waits at most `limit` for it: a hang is a failure too
/// (the thread is left behind; the test process ends it).
fn within<T: Send + 'static>(
    limit: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, TestCaseError> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => Ok(v),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(TestCaseError::fail(format!(
            "still running after {limit:?}"
        ))),
        // The thread panicked: its panic message is on stderr.
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            Err(TestCaseError::fail("panicked (see the message above)"))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 1. Script files (`hakari run script --file`)

/// What pgbench-style scripts are made of.
#[rustfmt::skip]
const SCRIPT_WORDS: &[&str] = &[
    "\\set ", "\\set x ", "\\set aid ", "\\sleep ", "\\sleep 10 ms", "\\sleep :x us",
    "\\sleep -1", "\\if ", "\\elif ", "\\else", "\\endif", "\\gset", "\\aset", "\\shell ls",
    "\\setshell", "\\startpipeline", "\\", "\\\n", "\\\r\n", ";", "\n", "\r\n", " ", "\t", "(",
    ")", "((((((((((", "))))))))))", "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "#", "~",
    "<>", "!=", "=", "<=", ">=", "<", ">", ",", ":", "::", ":aid", ":x", ":undefined",
    ":client_id", ":scale", "?", "'", "\"", "''", "$$", "$tag$", "$1", "--", "/*", "*/", "0",
    "1", "-1", "9223372036854775807", "9223372036854775808", "-9223372036854775807 - 1",
    "1e308", "1e309", "1e-400", ".5", "0.0", "1e", "1.", "random(", "random(1, 10)",
    "random(10, 1)", "random_zipfian(", "random_gaussian(", "random_exponential(", "permute(",
    "hash(", "hash_fnv1a(", "pow(", "sqrt(", "ln(", "exp(", "abs(", "int(", "double(", "least(",
    "greatest(", "pi()", "mod(", "debug(", "CASE WHEN ", " THEN ", " ELSE ", " END", " IS ",
    " NOT ", " NULL", " TRUE", " FALSE", " AND ", " OR ", " isnull", " notnull", "BEGIN;",
    "END;", "COMMIT;", "ROLLBACK;", "START TRANSACTION;", "é", "\u{2028}", "\u{feff}", "\0",
];

/// Real scripts to start from: the fixtures', the one `hakari run script --help` shows, and one
/// with a little of everything the parser knows.
fn scripts() -> &'static [String] {
    static SCRIPTS: OnceLock<Vec<String>> = OnceLock::new();
    SCRIPTS.get_or_init(|| {
        let mut out: Vec<String> = ["init", "read", "update", "cleanup"]
            .iter()
            .map(|name| {
                let path = format!("tests/fixtures/scripts/{name}.sql");
                std::fs::read_to_string(fixture(&path)).unwrap()
            })
            .collect();
        // pgbench's built-in scripts, as --builtin runs them.
        for name in ["tpcb-like", "simple-update", "select-only"] {
            let path = format!("src/workload/script/builtin/{name}.sql");
            out.push(std::fs::read_to_string(fixture(&path)).unwrap());
        }
        out.push(
            r#"-- every kind of statement and expression
\set n 10 * :scale
\set a random(1, :n) + (3 % 2) * abs(-4) - least(1, 2.5, :n) / 2
\set b CASE WHEN :a > 5 AND NOT :a IS NULL THEN 1 << 3 ELSE ~7 # 2 END
\set c random_gaussian(1, :n, 2.5) + random_exponential(1, 10, 1.5) \
    + random_zipfian(1, 10, 1.07) + permute(:a, :n) + hash(:a) + hash_fnv1a(:a, 5)
\set d pow(2, 10) + sqrt(16) + ln(exp(1)) + int(2.7) + double(3) + pi() + greatest(1, 2)
\sleep :a us
\sleep 1 ms
BEGIN;
/* a comment */ SELECT 'it''s', "col", $$ a :not_a_var $$, $q$x$q$, :a::text; -- trailing
UPDATE t SET v = v + :b WHERE k = :c;
END;
"#
            .to_string(),
        );
        out
    })
}

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Reads and checks a script as `hakari run script` does before anything starts (`plan`
/// parses and checks every script; with no engine it plans nothing else).
fn plan_script(text: String) -> Result<(), String> {
    let params = ScriptParams {
        scripts: vec![ScriptFile {
            file: "fuzz.sql".into(),
            weight: 1,
            text,
        }],
        init: None,
        cleanup: None,
        set: vec![("n".into(), "10".into())],
        clients: vec![1],
        duration_secs: 1.0,
        transactions: None,
        max_tries: 1,
        runs: 1,
        builtin: false,
        allow_shell: false,
        query_mode: Default::default(),
        connect_each: false,
        log: None,
        failures_detailed: false,
        verbose_errors: false,
        threads: None,
        time_commands: true,
    };
    params
        .plan(&[], None)
        .map(drop)
        .map_err(|e| format!("{e:#}"))
}

proptest! {
    #![proptest_config(config(2000))]

    /// Real scripts with bytes and lines inserted, deleted, duplicated and moved, and pieces of
    /// pgbench's syntax spliced in.
    #[test]
    fn a_mutated_script_is_read_or_refused_in_one_line(
        which in any::<usize>(),
        edits in edits(SCRIPT_WORDS, 12),
    ) {
        let base = &scripts()[which % scripts().len()];
        let text = String::from_utf8_lossy(&mutate(base.as_bytes(), &edits)).into_owned();
        if let Err(e) = within(Duration::from_secs(10), move || plan_script(text))? {
            one_line(e)?;
        }
    }

    /// `\set x EXPR` with EXPR a soup of the expression language's tokens: the expression
    /// parser and the check of constant expressions at plan time.
    #[test]
    fn a_random_expression_is_read_or_refused_in_one_line(
        tokens in prop::collection::vec(prop::sample::select(EXPRESSION_WORDS), 0..40),
    ) {
        let text = format!("\\set x {}\nSELECT :x;\n", tokens.concat());
        if let Err(e) = within(Duration::from_secs(10), move || plan_script(text))? {
            one_line(e)?;
        }
    }
}

/// The tokens of pgbench's expression language, with edge values.
#[rustfmt::skip]
const EXPRESSION_WORDS: &[&str] = &[
    "(", ")", "(", ")", ",", ",", " + ", " - ", " * ", " / ", " % ", " << ", " >> ", " & ",
    " | ", " # ", "~", " = ", " <> ", " != ", " < ", " <= ", " > ", " >= ", "-", "+", "0", "1",
    "2", "-1", "64", "63", "0.0", "1.5", ".5", "1e308", "1e309", "5e-324",
    "9223372036854775807", "9223372036854775808", "4611686018427387904", ":scale", ":n", ":x",
    ":client_id", ":nope", ":", "random", "random_gaussian", "random_exponential",
    "random_zipfian", "permute", "hash", "hash_murmur2", "hash_fnv1a", "abs", "least",
    "greatest", "pow", "sqrt", "ln", "exp", "int", "double", "mod", "pi", "debug", "nofunc",
    " CASE ", " WHEN ", " THEN ", " ELSE ", " END ", " AND ", " OR ", " NOT ", " IS ", " NULL ",
    " TRUE ", " FALSE ", " isnull ", " notnull ", "'", "@", "é", " ",
];

// ---------------------------------------------------------------------------------------------
// 2. and 3. Result files (`show`, `compare`, `report`, `export`, `merge`)

/// The fixture result files: name and text.
fn results() -> &'static [(String, Vec<u8>)] {
    static RESULTS: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    RESULTS.get_or_init(|| {
        let mut files: Vec<PathBuf> = std::fs::read_dir(fixture("tests/fixtures/results"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        assert!(files.len() > 5, "{files:?}");
        (files.iter())
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(p).unwrap())
            })
            .collect()
    })
}

fn parsed(i: usize) -> RunResult {
    serde_json::from_slice(&results()[i % results().len()].1).unwrap()
}

/// A change to a JSON document, at a node given by its number in document order.
#[derive(Clone, Debug)]
enum JsonEdit {
    /// The node replaced by one of [`json_values`].
    Replace(usize, usize),
    /// A number (or anything) made a string of its own text: `5` becomes `"5"`.
    Stringify(usize),
    /// The key (or array element) dropped.
    Drop(usize),
    /// The node wrapped in arrays or objects, this deep (past serde_json's limit of 128 too).
    Nest(usize, usize, bool),
}

/// What a node may be replaced by.
fn json_values() -> [Value; 19] {
    [
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(1),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1e100),
        json!(-1e100),
        json!(1e-100),
        json!(1e200),
        json!(f64::MAX),
        json!(5e-324),
        json!(0.5),
        json!(""),
        json!("x\ny"),
        json!([]),
        json!({}),
        json!([1, "a", null]),
    ]
}

fn json_edits() -> impl Strategy<Value = Vec<JsonEdit>> {
    let at = any::<usize>;
    let edit = prop_oneof![
        3 => (at(), at()).prop_map(|(i, v)| JsonEdit::Replace(i, v)),
        2 => at().prop_map(JsonEdit::Stringify),
        3 => at().prop_map(JsonEdit::Drop),
        1 => (at(), 1..300usize, any::<bool>()).prop_map(|(i, d, o)| JsonEdit::Nest(i, d, o)),
    ];
    prop::collection::vec(edit, 0..4)
}

/// Every node's JSON pointer, in document order.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                pointers(x, format!("{at}/{i}"), out);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                let k = k.replace('~', "~0").replace('/', "~1");
                pointers(x, format!("{at}/{k}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

fn edit_json(doc: &mut Value, edits: &[JsonEdit]) {
    for edit in edits {
        let mut all = Vec::new();
        pointers(doc, String::new(), &mut all);
        let (JsonEdit::Replace(i, _)
        | JsonEdit::Stringify(i)
        | JsonEdit::Drop(i)
        | JsonEdit::Nest(i, ..)) = edit;
        let at = all[i % all.len()].clone();
        let Some(node) = doc.pointer_mut(&at) else {
            continue;
        };
        match edit {
            JsonEdit::Replace(_, v) => *node = json_values()[v % 19].clone(),
            JsonEdit::Stringify(_) => *node = Value::String(node.to_string()),
            JsonEdit::Nest(_, depth, object) => {
                for _ in 0..*depth {
                    *node = match object {
                        true => json!({ "a": node.take() }),
                        false => json!([node.take()]),
                    };
                }
            }
            JsonEdit::Drop(_) => {
                let Some((parent, key)) = at.rsplit_once('/') else {
                    continue;
                };
                let key = key.replace("~1", "/").replace("~0", "~");
                match doc.pointer_mut(parent) {
                    Some(Value::Object(o)) => drop(o.remove(&key)),
                    Some(Value::Array(a)) => drop(a.remove(key.parse::<usize>().unwrap())),
                    _ => {}
                }
            }
        }
    }
}

/// What JSON text is made of, for byte edits of result files and the pieces that do not fit in
/// a `serde_json::Value` (NaN, numbers out of range).
#[rustfmt::skip]
const JSON_WORDS: &[&str] = &[
    "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\ud800", "null", "true", "-", "0",
    "1e400", "-1e400", "NaN", "Infinity", "18446744073709551616", "-9223372036854775809", "1.5",
    "\"schema_version\": 1,", "\"status\": \"running\",", "\"measurements\": [],",
    "\"runs\": [],", "\"latency\": null,", "\"shard\": {\"index\": 0, \"count\": 2},",
    "[[[[[[[[[[[[[[[[", "é", "\u{0}",
];

/// A mutated fixture result file's text: JSON edits, then byte edits.
fn corrupt(which: usize, json_edits: &[JsonEdit], byte_edits: &[Edit]) -> Vec<u8> {
    let mut doc: Value = serde_json::from_slice(&results()[which % results().len()].1).unwrap();
    edit_json(&mut doc, json_edits);
    let text = serde_json::to_vec_pretty(&doc).unwrap();
    mutate(&text, byte_edits)
}

/// The thresholds `compare --fail-if-worse` would be given, on every figure.
fn thresholds() -> Thresholds {
    "ops:5%,p50:0%,p95:1%,p99:10%,p999:50%,max:100%"
        .parse()
        .unwrap()
}

/// A few `--require` conditions, of each figure.
const REQUIREMENTS: &[&str] = &[
    "ops>=1",
    "tpcb.ops>0.5k",
    "p99<=5ms",
    "sqlite.sync.p50<1s",
    "kv.t1.max<=250us",
    "p999>=0us",
];

/// What `compare`, `show`, `export` and `report` do with runs once read; `base` and `new` of a
/// compare. Renders are not checked, only that they do not panic and that their failures are
/// one line.
fn use_runs(base: &RunResult, new: &RunResult) -> Result<(), TestCaseError> {
    use hakari::output::Format;
    let gate = thresholds();
    compare::pairs(base, new);
    compare::compare(base, new);
    compare::render(base, new, None);
    compare::render(base, new, Some(&gate));
    compare::regressions(base, new, &gate);
    for format in [Format::Json, Format::Csv] {
        if let Err(e) = compare::rows(base, new, Some(&gate)).render(format) {
            one_line(e)?;
        }
        let both = [base.clone(), new.clone()];
        if let Err(e) = hakari::report::rows::measurements(&both).render(format) {
            one_line(e)?;
        }
    }
    for r in [base, new] {
        hakari::report::terminal::render(r, hakari::workloads::view(&r.workload));
        for text in REQUIREMENTS {
            text.parse::<Requirement>().unwrap().check(&r.measurements);
        }
    }
    let loaded = [base, new].map(|r| Loaded {
        path: PathBuf::from(format!("{}.json", r.run_id)),
        run: Ok(r.clone()),
    });
    html::render(&loaded, &hakari::workloads::view);
    Ok(())
}

proptest! {
    #![proptest_config(config(500))]

    /// A result file truncated, with bytes flipped, numbers made strings, keys dropped, values
    /// nested deep: `store::read` (every command's reader) reads it or refuses it in one line;
    /// what it reads goes through `compare` (against the file it was made from), `show`,
    /// `export` and `report`. `report` reads a folder: through `html::load`.
    #[test]
    fn a_corrupt_result_file_is_read_or_refused_in_one_line(
        which in any::<usize>(),
        json_edits in json_edits(),
        byte_edits in prop::collection::vec(edits(JSON_WORDS, 6), 0..=1),
    ) {
        let byte_edits = byte_edits.concat();
        let text = corrupt(which, &json_edits, &byte_edits);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        std::fs::write(&path, &text).unwrap();
        match store::read(&path) {
            Ok(run) => use_runs(&parsed(which), &run)?,
            Err(e) => one_line(e)?,
        }
        for l in html::load(&[dir.path().to_path_buf()]).unwrap() {
            if let Err(e) = &l.run {
                one_line(e)?;
            }
        }
    }
}

/// A change to a parsed run that no run would make (odd figures, no runs, no measurements,
/// another workload).
#[derive(Clone, Debug)]
enum RunEdit {
    /// Figure `field` (of [`set_figure`]) of measurement `m` set to [`ODD_FLOATS`]`[value]`.
    Figure {
        m: usize,
        field: usize,
        value: usize,
    },
    NoLatency(usize),
    NoRuns(usize),
    NoMeasurements,
    Threads(usize, usize),
    Step(usize, &'static str),
    Workload(&'static str),
}

/// Figures no run makes: negative, huge, tiny, not a number, infinite.
const ODD_FLOATS: [f64; 12] = [
    0.0,
    -0.0,
    -1.0,
    1e15,
    1e100,
    -1e100,
    1e-100,
    f64::MAX,
    5e-324,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
];

fn set_figure(m: &mut Measurement, field: usize, v: f64) {
    let latency = m.latency.get_or_insert_with(Default::default);
    match field % 12 {
        0 => m.ops_per_sec_mean = v,
        1 => m.ops_per_sec_stddev = v,
        2 => m.ops_per_sec_min = v,
        3 => m.ops_per_sec_max = v,
        4 => m.seconds_mean = v,
        5 => m.seconds_stddev = v,
        6 => latency.p50_us = v,
        7 => latency.p99_us = v,
        8 => latency.max_us = v,
        9 => latency.mean_us = v,
        10 => m.runs.iter_mut().for_each(|r| r.ops_per_sec = v),
        _ => m.runs.iter_mut().for_each(|r| r.seconds = v),
    }
}

fn run_edits() -> impl Strategy<Value = Vec<RunEdit>> {
    let at = any::<usize>;
    let edit = prop_oneof![
        6 => (at(), at(), at()).prop_map(|(m, field, value)| RunEdit::Figure { m, field, value }),
        1 => at().prop_map(RunEdit::NoLatency),
        1 => at().prop_map(RunEdit::NoRuns),
        1 => Just(RunEdit::NoMeasurements),
        1 => (at(), prop::sample::select(vec![0, 1, usize::MAX]))
            .prop_map(|(m, t)| RunEdit::Threads(m, t)),
        1 => (at(), prop::sample::select(vec!["", "run", "a\nb", "é", "<b>"]))
            .prop_map(|(m, s)| RunEdit::Step(m, s)),
        1 => prop::sample::select(vec!["kv", "tpcb", "ycsb", "crashtest", "script", "nope", ""])
            .prop_map(RunEdit::Workload),
    ];
    prop::collection::vec(edit, 0..5)
}

fn edit_run(r: &mut RunResult, edits: &[RunEdit]) {
    for edit in edits {
        let count = r.measurements.len().max(1);
        let m = |i: &usize| i % count;
        let ms = &mut r.measurements;
        match edit {
            RunEdit::Workload(w) => {
                r.workload = w.to_string();
                ms.iter_mut().for_each(|m| m.workload = w.to_string());
            }
            RunEdit::NoMeasurements => ms.clear(),
            _ if ms.is_empty() => {}
            RunEdit::Figure { m: i, field, value } => {
                set_figure(&mut ms[m(i)], *field, ODD_FLOATS[value % ODD_FLOATS.len()])
            }
            RunEdit::NoLatency(i) => ms[m(i)].latency = None,
            RunEdit::NoRuns(i) => ms[m(i)].runs.clear(),
            RunEdit::Threads(i, t) => ms[m(i)].threads = *t,
            RunEdit::Step(i, s) => ms[m(i)].step = s.to_string(),
        }
    }
}

proptest! {
    #![proptest_config(config(300))]

    /// Two runs as `compare` and `report` get them (the same file twice, or two files), with
    /// figures made 0, huge, tiny or negative, runs or measurements emptied, workloads
    /// mismatched: rendering them does not panic.
    #[test]
    fn odd_figures_render_without_panic(
        base in any::<usize>(),
        new in prop::option::of(any::<usize>()),
        base_edits in run_edits(),
        new_edits in run_edits(),
    ) {
        let (mut a, mut b) = (parsed(base), parsed(new.unwrap_or(base)));
        edit_run(&mut a, &base_edits);
        edit_run(&mut b, &new_edits);
        use_runs(&a, &b)?;
    }
}

// ---------------------------------------------------------------------------------------------
// 3. and 4. `hakari merge`: client result files and their interval logs

/// Two clients' parts of one run (`--shard 1/2`, `--shard 2/2`) from a fixture result, each
/// with the interval log `--hlog` would have written: (result file, log) per client.
fn clients() -> &'static [(Vec<u8>, Vec<u8>); 2] {
    static CLIENTS: OnceLock<[(Vec<u8>, Vec<u8>); 2]> = OnceLock::new();
    CLIENTS.get_or_init(|| {
        let which = (results().iter())
            .position(|(name, _)| name.contains("tpcb"))
            .unwrap();
        let run = parsed(which);
        [1, 2].map(|i| {
            let mut doc: Value = serde_json::from_slice(&results()[which].1).unwrap();
            doc["run_id"] = json!(format!("client{i}"));
            doc["shard"] = json!({ "index": i, "count": 2 });
            doc["timing"] = json!({ "interval_s": 1.0, "start_at": "2026-11-18T11:06:40Z" });
            (
                serde_json::to_vec_pretty(&doc).unwrap(),
                interval_log(&run, i),
            )
        })
    })
}

/// The interval log of a client, as `results::hlog` writes it: three one-second intervals per
/// run of each measurement, the clients' overlapping.
fn interval_log(run: &RunResult, client: u64) -> Vec<u8> {
    use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
    use hdrhistogram::serialization::V2DeflateSerializer;
    let start = UNIX_EPOCH + Duration::from_secs(1_795_000_000);
    let mut text = Vec::new();
    let mut serializer = V2DeflateSerializer::new();
    let mut writer = IntervalLogWriterBuilder::new()
        .add_comment("hakari interval log: latency in nanoseconds, one tag per step and run")
        .with_start_time(start)
        .with_base_time(start)
        .with_max_value_divisor(1e6)
        .begin_log_with(&mut text, &mut serializer)
        .unwrap();
    for (n, m) in run.measurements.iter().enumerate() {
        let key = MeasurementKey {
            workload: m.workload.clone(),
            engine: m.engine.clone(),
            durability: m.durability.clone(),
            threads: m.threads,
            step: m.step.clone(),
            config: m.config.clone(),
            produced: m.produced.clone(),
        };
        for k in 1..=m.runs.len() {
            let tag = hakari::results::hlog::run_tag(&key, None, k);
            for j in 0..3u64 {
                let mut h = hakari::measure::latency::new_histogram();
                for v in 1..=50u64 {
                    h.record(v * 1_000 * (client + j)).unwrap();
                }
                let at = (n * 100 + k * 10) as u64 + j;
                let offset = Duration::from_millis(at * 1000 + client * 100);
                (writer.write_histogram(&h, offset, Duration::from_secs(1), Tag::new(&tag)))
                    .unwrap();
            }
        }
    }
    drop(writer);
    text
}

/// Merges the two clients as `hakari merge` does, each file first changed by `change`, and
/// renders the merged result as `merge` prints it.
fn merge_clients(change: impl Fn(usize, &[u8], &[u8]) -> (Vec<u8>, Vec<u8>)) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, (result, log)) in clients().iter().enumerate() {
        let (result, log) = change(i, result, log);
        let file = dir.path().join(format!("part{i}.json"));
        std::fs::write(&file, result).unwrap();
        std::fs::write(dir.path().join(format!("client{}.hlog", i + 1)), log).unwrap();
        files.push(file);
    }
    let merged = hakari::results::merge::merge(&files, &[]).map_err(|e| format!("{e:#}"))?;
    hakari::report::terminal::render(&merged, hakari::workloads::view(&merged.workload));
    Ok(())
}

#[test]
fn the_clients_made_here_merge() {
    merge_clients(|_, result, log| (result.to_vec(), log.to_vec())).unwrap();
}

/// What interval log lines are made of.
#[rustfmt::skip]
const HLOG_WORDS: &[&str] = &[
    "#[StartTime: ", "#[BaseTime: ", "#[StartTime: 1.0 (seconds since epoch)]\n",
    "#[BaseTime: 99999999999999999999.0 (seconds since epoch)]\n", "#", "\"StartTimestamp\"",
    "Tag=", "Tag=,", ",", ".", "0.000", "1.000", "-1.000", "18446744073709551615.999999999",
    "1e308", "NaN", "inf", "1.0000000000000000001", "HISTFAAAA",
    "HISTFAAAAFx4nJNpmSzMwMDAxwAAHEgC", "====", "!@#$", "\n", "\r\n", "AAAA", "/+/+", "é",
];

proptest! {
    #![proptest_config(config(500))]

    /// A client's interval log with lines dropped, duplicated, swapped or cut, timestamps made
    /// huge or negative, histograms made bad base64 or bad HdrHistogram: `merge` merges it or
    /// refuses it in one line.
    #[test]
    fn a_corrupt_interval_log_merges_or_is_refused_in_one_line(
        client in 0..2usize,
        edits in edits(HLOG_WORDS, 8),
    ) {
        let merged = merge_clients(|i, result, log| {
            let log = if i == client { mutate(log, &edits) } else { log.to_vec() };
            (result.to_vec(), log)
        });
        if let Err(e) = merged {
            one_line(e)?;
        }
    }

    /// A client's result file corrupted as in `a_corrupt_result_file_...`: `merge` merges it
    /// (when the change leaves a valid client part) or refuses it in one line.
    #[test]
    fn a_corrupt_client_result_merges_or_is_refused_in_one_line(
        client in 0..2usize,
        json_edits in json_edits(),
        byte_edits in prop::collection::vec(edits(JSON_WORDS, 4), 0..=1),
    ) {
        let mut doc: Value = serde_json::from_slice(&clients()[client].0).unwrap();
        edit_json(&mut doc, &json_edits);
        let corrupt = mutate(&serde_json::to_vec_pretty(&doc).unwrap(), &byte_edits.concat());
        let merged = merge_clients(|i, result, log| {
            let result = if i == client { corrupt.clone() } else { result.to_vec() };
            (result, log.to_vec())
        });
        if let Err(e) = merged {
            one_line(e)?;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 5. Values typed on the command line

/// What command-line values are made of. No line breaks: an argument with one is echoed as
/// typed in the messages that quote it, which is fair.
#[rustfmt::skip]
const ARGUMENT_WORDS: &[&str] = &[
    "0", "1", "2", "7", "32", "33", "-1", "-", "+", ".", ",", ":", "/", "%", "k", "K", "M", "G",
    "B", "iB", "KB", "us", "µs", "ms", "s", "T", "Z", "<", ">", "<=", ">=", "=", "p50", "p99",
    "p999", "ops", "max", "tpcb", "kv", "sqlite", "sync", "async", "none", "remote-write", "on",
    "1e308", "1e309", "NaN", "inf", "18446744073709551615", "18446744073709551616",
    "9223372036854775807", "292277026596", "2026-11-18T11:06:40Z", " ", "\t", "é", "\0",
];

/// Each of the parsers of typed values, as the command line calls it; the error, if any, as
/// hakari prints it.
fn parse_typed(text: &str) -> Vec<Result<(), String>> {
    use hakari::durability::Durability;
    let shown = |e: anyhow::Error| format!("{e:#}");
    let requirement = text.parse::<Requirement>().map(|r| {
        // A condition that reads is checked against a run's figures.
        r.check(&parsed(0).measurements);
    });
    vec![
        hakari::units::parse_size(text).map(drop).map_err(shown),
        hakari::units::parse_counts(text, "threads")
            .map(drop)
            .map_err(shown),
        Durability::parse_list(text).map(drop).map_err(shown),
        text.parse::<Thresholds>().map(drop).map_err(shown),
        requirement.map_err(shown),
        hakari::workload::wisconsin::queries::parse_selection(text)
            .map(drop)
            .map_err(shown),
        hakari::shard::Shard::parse(text).map(drop),
        hakari::server::topology::parse_ack(text).map(drop),
        hakari::results::time::parse_rfc3339(text).map(drop),
    ]
}

proptest! {
    #![proptest_config(config(2000))]

    /// `--size`, `--threads`, `--durability`, `--fail-if-worse`, `--require`, `--queries`,
    /// `--shard`, `--replica-ack`, `--start-at`: any text is read or refused in one line.
    #[test]
    fn a_typed_value_is_read_or_refused_in_one_line(
        text in prop_oneof![
            "[^\n\r]{0,24}",
            prop::collection::vec(prop::sample::select(ARGUMENT_WORDS), 0..10)
                .prop_map(|w| w.concat()),
        ],
    ) {
        for outcome in parse_typed(&text) {
            if let Err(e) = outcome {
                one_line(e)?;
            }
        }
    }

    /// `--start-at` with numbers of any size in every field, or near the valid ranges.
    #[test]
    fn a_start_time_of_any_size_is_read_or_refused(
        y in any::<i64>(), mo in any::<i64>(), d in any::<i64>(), h in any::<i64>(),
        mi in any::<i64>(), s in any::<f64>(), near in any::<bool>(),
    ) {
        let text = match near {
            true => {
                let (y, mo, d) = (y % 400_000_000_000, mo % 14, d % 33);
                format!("{y}-{mo}-{d}T{}:{}:{}Z", h % 25, mi % 61, s % 61.0)
            }
            false => format!("{y}-{mo}-{d}T{h}:{mi}:{s}Z"),
        };
        if let Err(e) = hakari::results::time::parse_rfc3339(&text) {
            one_line(e)?;
        }
    }
}

#[test]
fn typed_values_that_read() {
    assert!(parse_typed("2026-11-18T11:06:40Z")[8].is_ok());
    assert!(parse_typed("1/2")[6].is_ok());
    assert!(parse_typed("4K")[0].is_ok());
}

// ---------------------------------------------------------------------------------------------
// What the properties and a reading of the parsers found, each the smallest input, kept as a
// test now that hakari refuses it in one line or reads it. The comments say what it did before.

/// A client whose result file says shard 0/2 (or 3/2, or 1/0): `merge` indexes its list of
/// shards seen with it unchecked (src/results/merge.rs:166, check_same_run:
/// `seen[shard.index - 1]`) and panics "index out of bounds"; a count of u64::MAX panics
/// "capacity overflow" in `vec![false; count]` (line 158), and a count of 2^40 asks it for a
/// terabyte.
#[test]
fn a_client_numbered_out_of_its_run_is_refused() {
    for shard in [
        json!({ "index": 0, "count": 2 }),
        json!({ "index": 3, "count": 2 }),
        json!({ "index": 1, "count": 0 }),
        json!({ "index": 1, "count": u64::MAX }),
    ] {
        let merged = merge_clients(|i, result, log| {
            let mut doc: Value = serde_json::from_slice(result).unwrap();
            if i == 0 {
                doc["shard"] = shard.clone();
            }
            (serde_json::to_vec(&doc).unwrap(), log.to_vec())
        });
        let e = merged.expect_err("a shard out of its run merged");
        assert!(!e.contains('\n'), "{e}");
    }
}

/// `--start-at` (and a client's `timing.start_at`, which `merge` reads) past the last second a
/// `SystemTime` holds. Before times went through chrono, parse_rfc3339 added ~2^63 s to the
/// epoch and std panicked "overflow when adding duration to instant".
#[test]
fn a_start_time_past_the_clock_is_refused() {
    let e = hakari::results::time::parse_rfc3339("292277026596-12-04T15:30:00Z").unwrap_err();
    assert!(!e.contains('\n'), "{e}");
}

/// `random_gaussian`'s parameter NaN (`sqrt(-1)`, `0.0 / 0`) passes the `p < 2.0` check, and
/// the draw (src/workload/script/random.rs, `gaussian`) loops for ever waiting for a normal
/// value inside `-NaN..NaN`. The check of constant expressions makes the draw at plan time, so
/// `hakari run script` hangs before anything starts.
#[test]
fn a_gaussian_parameter_of_nan_is_refused() {
    for expr in ["sqrt(-1)", "0.0 / 0"] {
        let text = format!("\\set x random_gaussian(1, 10, {expr})\nSELECT :x;\n");
        let planned = within(Duration::from_secs(10), move || plan_script(text)).unwrap();
        let e = planned.expect_err("a NaN parameter was taken");
        assert!(!e.contains('\n'), "{e}");
    }
}

/// Runs the hakari binary with at most 4 GB of address space and 60 s: an abort, a stack
/// overflow or a hang ends that process, not the tests.
fn hakari_bounded(args: &[&str]) -> std::process::Output {
    std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 4000000; exec timeout 60 \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_hakari"))
        .args(args)
        .output()
        .unwrap()
}

/// The process ended by itself with one of hakari's exit codes, and a failure said why in one
/// line.
fn ended_cleanly(o: &std::process::Output) {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.code().is_some_and(|c| (0..=4).contains(&c)),
        "{}: {stderr}",
        o.status
    );
    if !o.status.success() {
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    }
}

/// `\set x ((((...1...))))` 10,000 deep (or 10,000 unary minus signs): the expression parser
/// recurses once per level (src/workload/script/expr.rs, `Parser::expr`/`prefix`) and
/// overflows the main thread's 8 MiB stack: "fatal runtime error: stack overflow, aborting"
/// (about 7,000 levels still pass). pgbench's parser stops at 10,000 with an error.
#[test]
fn a_deeply_nested_expression_is_refused_or_read() {
    let dir = tempfile::tempdir().unwrap();
    let n = 10_000;
    for (name, expr) in [
        ("parens", format!("{}1{}", "(".repeat(n), ")".repeat(n))),
        ("minus", format!("{}1", "-".repeat(n))),
    ] {
        let file = dir.path().join(format!("{name}.sql"));
        std::fs::write(&file, format!("\\set x {expr}\nSELECT :x;\n")).unwrap();
        let out = dir.path().join(name);
        let file = file.to_str().unwrap();
        let out = out.to_str().unwrap();
        ended_cleanly(&hakari_bounded(&[
            "run",
            "script",
            "--file",
            file,
            "--engine",
            "sqlite",
            "--transactions",
            "1",
            "--out",
            out,
        ]));
    }
}

/// A result file with a figure past 1e154 or below 1e-323 (valid JSON numbers): a chart's
/// axis end becomes infinite (a stddev squares the figure, or the axis rounds up past f64::MAX)
/// or its lowest decade 0, and src/report/chart/scale.rs `Scale::ticks` then collects 2^31
/// log-axis ticks (a 16 GiB allocation: "memory allocation of 17179869224 bytes failed"), or
/// steps a linear axis for ever. `show` and `report` abort: a tpcb throughput of f64::MAX or
/// 5e-324, or one Wisconsin run of 1e160 seconds (1e150 passes). Infinities in a parsed run do
/// the same.
#[test]
fn an_extreme_figure_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    for (workload, pointer, figure) in [
        ("tpcb", "/measurements/0/ops_per_sec_mean", f64::MAX),
        ("tpcb", "/measurements/0/ops_per_sec_mean", 5e-324),
        ("wisconsin", "/measurements/0/runs/0/seconds", 1e160),
    ] {
        let (_, text) = (results().iter())
            .find(|(name, _)| name.contains(workload))
            .unwrap();
        let mut doc: Value = serde_json::from_slice(text).unwrap();
        *doc.pointer_mut(pointer).unwrap() = json!(figure);
        let file = dir.path().join("extreme.json");
        std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
        let file = file.to_str().unwrap();
        let html = dir.path().join("report.html");
        ended_cleanly(&hakari_bounded(&["show", file]));
        ended_cleanly(&hakari_bounded(&[
            "report",
            file,
            "-o",
            html.to_str().unwrap(),
        ]));
    }
}

/// A tpch result file whose throughput measurement says stream 1,000,000,000,000: the tpch
/// view makes a column per stream up to the largest (src/workload/tpch/view.rs:127 and 157,
/// `for s in 1..=streams`), so `show` and `report` fill the memory ("memory allocation of 14
/// bytes failed" under a 4 GB limit; on a machine without one, the out-of-memory killer).
#[test]
fn a_tpch_stream_number_of_a_trillion_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    let (_, text) = (results().iter())
        .find(|(name, _)| name.contains("tpch"))
        .unwrap();
    let mut doc: Value = serde_json::from_slice(text).unwrap();
    let throughput = (doc["measurements"].as_array_mut().unwrap().iter_mut())
        .find(|m| m["config"]["test"] == "throughput")
        .unwrap();
    throughput["config"]["stream"] = json!(1_000_000_000_000u64);
    let file = dir.path().join("streams.json");
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    ended_cleanly(&hakari_bounded(&["show", file.to_str().unwrap()]));
}

/// Two runs compared, one's throughput NaN (what `compare` and `report` get from a run whose
/// figure is 0/0): Welch's t is NaN, and statrs' StudentsT::cdf(NaN), called at
/// src/report/significance.rs:57, panics inside statrs (function/beta.rs:131: "called
/// `Result::unwrap()` on an `Err` value: XOutOfRange"). Found by
/// `odd_figures_render_without_panic` (NaN is left out of its figures for now).
#[test]
fn a_throughput_of_nan_is_compared() {
    let wisconsin = (results().iter())
        .position(|(name, _)| name.contains("wisconsin"))
        .unwrap();
    let base = parsed(wisconsin);
    let mut new = base.clone();
    new.measurements[0].ops_per_sec_mean = f64::NAN;
    compare::render(&base, &new, None);
}
