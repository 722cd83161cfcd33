//! The crash test's view: one row per engine, level and kind of crash, read once from the result
//! file, for the terminal table, the HTML table and the verdicts shown beside throughput.

mod page;

use crate::crashtest::Verdict;
use crate::report::parts;
use crate::report::table::Table;
use crate::report::view::{self, Part, View};
use crate::results::{Measurement, RunResult};

/// One engine at one level under one kind of crash.
pub struct CrashRow {
    pub engine: String,
    pub durability: String,
    /// "process crash" or "power loss …", as the test recorded it.
    pub crash: String,
    /// None for a verdict this version does not know (a newer result file).
    pub verdict: Option<Verdict>,
    pub verdict_text: String,
    pub rounds: String,
    pub acknowledged: String,
    pub lost_total: String,
    pub lost_max: String,
    pub corruptions: String,
}

impl CrashRow {
    pub fn of(m: &Measurement) -> CrashRow {
        let text = |k: &str| crate::report::config_text(m, k);
        let verdict_text = text("verdict");
        // A failover's rows differ by what the standbys acknowledged.
        let durability = match text("replication") {
            r if r.is_empty() => m.durability.clone(),
            r => format!("{} on {r}", m.durability),
        };
        CrashRow {
            engine: m.engine.clone(),
            durability,
            crash: text("crash"),
            verdict: Verdict::parse(&verdict_text),
            verdict_text,
            rounds: text("rounds"),
            acknowledged: text("acknowledged"),
            lost_total: text("lost_total"),
            lost_max: text("lost_max"),
            corruptions: text("corruptions"),
        }
    }

    pub fn is_broken(&self) -> bool {
        self.verdict == Some(Verdict::Broken)
    }

    /// The kind of crash in two words: "power loss" or "process crash".
    pub fn kind(&self) -> &'static str {
        if self.crash.starts_with("power") {
            "power loss"
        } else {
            "process crash"
        }
    }

    /// The cells after engine and durability, as both tables show them.
    pub fn cells(&self) -> [&str; 7] {
        [
            &self.crash,
            &self.verdict_text,
            &self.rounds,
            &self.acknowledged,
            &self.lost_total,
            &self.lost_max,
            &self.corruptions,
        ]
    }
}

/// Every row of a crash-test run.
pub fn rows(result: &RunResult) -> Vec<CrashRow> {
    result.measurements.iter().map(CrashRow::of).collect()
}

/// The column headings of both tables.
pub const HEADERS: [&str; 9] = [
    "engine",
    "durability",
    "crash",
    "verdict",
    "rounds",
    "acknowledged",
    "lost (total)",
    "lost (max)",
    "corruptions",
];

/// The verdict table printed after a crash test.
pub fn render(result: &RunResult) -> String {
    let crash = |c: Option<&serde_json::Value>| c.and_then(|v| v.as_str()).map(String::from);
    let crashes: Vec<String> = crash(result.parameters.get("crash"))
        .into_iter()
        .chain(
            result
                .measurements
                .iter()
                .filter_map(|m| crash(m.config.get("crash"))),
        )
        .collect();
    let title = if !crashes.is_empty() && crashes.iter().all(|c| c.starts_with("power loss")) {
        "Crash test (power cut while committing: unsynced writes dropped, reopened with recovery)"
    } else {
        "Crash test (process killed with SIGKILL while committing, a server with its whole process tree; reopened or restarted with recovery)"
    };
    let mut t = Table::new(title, HEADERS.map(String::from).to_vec(), 4);
    for row in rows(result) {
        let mut cells = vec![row.engine.clone(), row.durability.clone()];
        cells.extend(row.cells().map(String::from));
        t.row(cells);
    }
    t.render()
}

/// The crash test's section: its verdicts, and beside other runs' throughput the verdict for
/// the same engine and level.
pub struct CrashView;

impl View for CrashView {
    fn parts(&self, r: &RunResult, _: &[view::Verdict]) -> Vec<Part> {
        let mut parts = vec![
            Part::Terminal(render(r)),
            Part::html((page::crashtest_body(r), 0)),
        ];
        parts.extend(parts::timing(r));
        parts
    }

    /// Each engine, level and kind of crash with its verdict.
    fn headline(&self, r: &RunResult) -> Vec<String> {
        (rows(r).iter())
            .map(|row| {
                format!(
                    "{} {} {}: {}",
                    row.engine,
                    row.durability,
                    row.kind(),
                    row.verdict_text
                )
            })
            .collect()
    }

    fn verdicts(&self, r: &RunResult) -> Vec<view::Verdict> {
        (rows(r).into_iter())
            .map(|row| view::Verdict {
                kind: row.kind().into(),
                text: format!("{}: {}", row.kind(), row.verdict_text),
                broken: row.is_broken(),
                engine: row.engine,
                level: row.durability,
            })
            .collect()
    }
}
