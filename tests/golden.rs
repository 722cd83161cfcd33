//! Result files made by an earlier version, and what `hakari show` and `hakari report` printed for
//! them then: a change to the structure must leave every one of these outputs identical.
//! `HAKARI_BLESS=1 cargo test --test golden` writes the expected outputs anew (only when an output
//! is meant to change, and the diff is read before committing).

mod common;

use common::hakari;
use std::path::{Path, PathBuf};

const FIXTURES: &str = "tests/fixtures";

fn fixtures() -> Vec<PathBuf> {
    let files = common::result_files(&Path::new(FIXTURES).join("results"));
    // One fixture per workload shape and then some (tests/fixtures/make.sh makes them).
    assert!(
        files.len() >= 15,
        "the result fixtures are missing from {FIXTURES}/results"
    );
    files
}

fn blessing() -> bool {
    std::env::var_os("HAKARI_BLESS").is_some()
}

/// Compares `actual` with the file `expected`, or writes it when blessing.
fn check(expected: &Path, actual: &str) {
    if blessing() {
        std::fs::create_dir_all(expected.parent().unwrap()).unwrap();
        std::fs::write(expected, actual).unwrap();
        return;
    }
    let want = std::fs::read_to_string(expected)
        .unwrap_or_else(|e| panic!("{}: {e} (HAKARI_BLESS=1 writes it)", expected.display()));
    if want != actual {
        let line = want
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(actual.lines().count()));
        panic!(
            "{} differs from the output, first at line {}:\nexpected: {:?}\nactual:   {:?}",
            expected.display(),
            line + 1,
            want.lines().nth(line),
            actual.lines().nth(line)
        );
    }
}

fn stdout_of(args: &[&str]) -> String {
    let out = hakari(args);
    assert!(
        out.status.success(),
        "hakari {args:?} failed: {}",
        common::stderr(&out)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

#[test]
fn show_prints_every_fixture_as_before() {
    for file in fixtures() {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let path = file.to_str().unwrap();
        for (format, suffix) in [("table", "txt"), ("csv", "csv")] {
            let actual = stdout_of(&["show", path, "--format", format]);
            check(
                &Path::new(FIXTURES)
                    .join("show")
                    .join(format!("{stem}.{suffix}")),
                &actual,
            );
        }
    }
}

/// The report of all fixtures at once (the comparison sections need several runs of a workload),
/// with the one line that names the time it was made left out.
#[test]
fn report_of_the_fixtures_is_as_before() {
    fixtures();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.html");
    stdout_of(&[
        "report",
        &format!("{FIXTURES}/results"),
        "-o",
        out.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&out).unwrap();
    let made = html
        .find(" from result files.")
        .expect("the report says when");
    let start = html[..made].rfind("made ").expect("made <time>");
    let html = format!("{}made <time>{}", &html[..start], &html[made..]);
    // One tag per line, so a difference is reported where it is.
    let html = html.replace("><", ">\n<");
    check(&Path::new(FIXTURES).join("report.html"), &html);
}

/// Every registered workload has a fixture, so its view's output is held here: a new workload,
/// or a new figure in an old one's view, shows in the golden outputs.
#[test]
fn every_registered_workload_has_a_fixture() {
    let fixtures = fixtures();
    for w in hakari::workloads::all() {
        let found = fixtures.iter().any(|f| {
            let r = hakari::results::store::read(f).unwrap();
            r.workload == w.name
        });
        assert!(
            found,
            "no result fixture of {} in {FIXTURES}/results (tests/fixtures/make.sh)",
            w.name
        );
    }
    // And one whose steps carry resource figures, so the cost tables are held too.
    let costs = fixtures.iter().any(|f| {
        let r = hakari::results::store::read(f).unwrap();
        r.measurements.iter().any(|m| !m.figures.is_empty())
    });
    assert!(costs, "no result fixture with resource figures");
}
