//! Crash-test verdicts: their own table, and the verdict beside throughput figures.

use super::super::crashtest::{rows, CrashRow, HEADERS};
use super::super::markup::escape;
use super::super::Shape;
use crate::results::RunResult;
use std::fmt::Write;

/// A crash test's verdict for an engine at a level, to show beside throughput figures.
pub struct CrashVerdict {
    row: CrashRow,
}

impl CrashVerdict {
    pub(super) fn matches(&self, engine: &str, level: &str) -> bool {
        self.row.engine == engine && self.row.durability == level
    }

    /// "power loss: kept", say.
    pub(super) fn text(&self) -> String {
        format!("{}: {}", self.row.kind(), self.row.verdict_text)
    }

    pub(super) fn is_broken(&self) -> bool {
        self.row.is_broken()
    }
}

/// Every verdict of the crash-test runs in the report (the newest run's, per engine, level and
/// kind of crash).
pub(super) fn crash_verdicts(runs: &[&RunResult]) -> Vec<CrashVerdict> {
    let mut out: Vec<CrashVerdict> = Vec::new();
    let mut crash_runs: Vec<&&RunResult> = runs
        .iter()
        .filter(|r| Shape::of(r) == Shape::Crashtest)
        .collect();
    crash_runs.sort_by(|a, b| b.started_at.cmp(&a.started_at));
    for row in crash_runs.into_iter().flat_map(|r| rows(r)) {
        let seen = out
            .iter()
            .any(|o| o.matches(&row.engine, &row.durability) && o.row.kind() == row.kind());
        if !seen {
            out.push(CrashVerdict { row });
        }
    }
    out
}

/// The crash test: one row per engine, level and kind of crash, with the verdict.
pub(super) fn crashtest_body(r: &RunResult) -> String {
    let mut s = String::from("<table><tr>");
    for h in HEADERS {
        let _ = write!(s, "<th>{h}</th>");
    }
    s.push_str("</tr>");
    for row in rows(r) {
        let [crash, verdict, numbers @ ..] = row.cells();
        let class = if row.is_broken() {
            " class=problem"
        } else {
            ""
        };
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td{class}>{}</td>",
            escape(&row.engine),
            escape(&row.durability),
            escape(crash),
            escape(verdict),
        );
        for n in numbers {
            let _ = write!(s, "<td class=n>{}</td>", escape(n));
        }
        s.push_str("</tr>");
    }
    s.push_str("</table><p class=note>Verdicts against each level's promise (sync: nothing lost; \
        write-nosync: nothing lost when only the process dies; nosync and in-memory: recent commits \
        may go). Where the same report holds throughput of an engine and level, its table shows the \
        verdict beside it.</p>");
    s
}
