//! The crash test's table on the report's page.

use super::{rows, HEADERS};
use crate::report::markup::escape;
use crate::results::RunResult;
use std::fmt::Write;

/// The crash test: one row per engine, level and kind of crash, with the verdict.
pub fn crashtest_body(r: &RunResult) -> String {
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
