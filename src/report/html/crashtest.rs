//! Crash-test verdicts: their own table, and the verdict beside throughput figures.

use super::super::markup::escape;
use super::super::Shape;
use crate::results::RunResult;
use std::fmt::Write;

/// A crash test's verdict for an engine at a level, to show beside throughput figures.
pub struct CrashVerdict {
    engine: String,
    level: String,
    pub(super) crash: String,
    pub(super) verdict: String,
}

impl CrashVerdict {
    pub(super) fn matches(&self, engine: &str, level: &str) -> bool {
        self.engine == engine && self.level == level
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
    for r in crash_runs {
        for m in &r.measurements {
            let crash = super::super::config_text(m, "crash");
            let crash = if crash.starts_with("power") {
                "power loss"
            } else {
                "process crash"
            };
            let v = CrashVerdict {
                engine: m.engine.clone(),
                level: m.durability.clone(),
                crash: crash.into(),
                verdict: super::super::config_text(m, "verdict"),
            };
            if !out
                .iter()
                .any(|o| o.matches(&v.engine, &v.level) && o.crash == v.crash)
            {
                out.push(v);
            }
        }
    }
    out
}

/// The crash test: one row per engine, level and kind of crash, with the verdict.
pub(super) fn crashtest_body(r: &RunResult) -> String {
    let mut s = String::from(
        "<table><tr><th>engine</th><th>durability</th><th>crash</th><th>verdict</th><th>rounds</th>\
         <th>acknowledged</th><th>lost (total)</th><th>lost (max)</th><th>corruptions</th></tr>",
    );
    for m in &r.measurements {
        let c = |k: &str| escape(&super::super::config_text(m, k));
        let verdict = super::super::config_text(m, "verdict");
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td{}>{}</td><td class=n>{}</td><td class=n>{}</td>\
             <td class=n>{}</td><td class=n>{}</td><td class=n>{}</td></tr>",
            escape(&m.engine),
            escape(&m.durability),
            c("crash"),
            if verdict.contains("BROKEN") {
                " class=problem"
            } else {
                ""
            },
            escape(&verdict),
            c("rounds"),
            c("acknowledged"),
            c("lost_total"),
            c("lost_max"),
            c("corruptions"),
        );
    }
    s.push_str("</table><p class=note>Verdicts against each level's promise (sync: nothing lost; \
        write-nosync: nothing lost when only the process dies; nosync and in-memory: recent commits \
        may go). Where the same report holds throughput of an engine and level, its table shows the \
        verdict beside it.</p>");
    s
}
