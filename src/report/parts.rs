//! The parts views are made of, beyond a workload's own tables: the throughput grid, the charts
//! over time, the latency percentiles, the open loop's table.

use super::table::Table;
use super::view::{Part, Verdict, View};
use crate::results::RunResult;

/// The parts most runs end with: charts over time and under load (the page), the latency
/// percentiles (both), the open loop's table (the terminal; the page has it among the charts).
pub fn timing(r: &RunResult) -> Vec<Part> {
    let mut parts = vec![over_time(r)];
    parts.extend(following(super::tables::latency(r)));
    parts.push(open_loop(r));
    parts
}

/// A table both forms show where it follows the view's own: after a blank line in the
/// terminal; nothing when it has no rows.
pub fn following(t: Table) -> Vec<Part> {
    if t.is_empty() {
        return Vec::new();
    }
    vec![
        Part::Terminal(format!("\n{}", t.render())),
        Part::html((t.html(), 0)),
    ]
}

/// The charts over time and under load, and the open loop's table (the page).
pub fn over_time(r: &RunResult) -> Part {
    Part::html(super::html::over_time(r))
}

/// The latency percentiles on the page only (where the terminal's tables already show them).
pub fn latency_page(r: &RunResult) -> Part {
    let t = super::tables::latency(r);
    Part::html((
        if t.is_empty() {
            String::new()
        } else {
            t.html()
        },
        0,
    ))
}

/// The open loop's table in the terminal (after a blank line; nothing for a closed loop).
pub fn open_loop(r: &RunResult) -> Part {
    let t = super::over_time::open_loop_table(r);
    Part::Terminal(if t.is_empty() {
        String::new()
    } else {
        format!("\n{}", t.render())
    })
}

/// The page's throughput grid: configurations as rows and steps as columns, the papers' figures
/// and the crash test's verdicts beside them, bars per step and lines against threads.
pub fn throughput_page(r: &RunResult, verdicts: &[Verdict]) -> Part {
    Part::html(super::html::throughput::throughput_body(r, verdicts))
}

/// The view of a workload that says nothing of its own (one this version does not know):
/// throughput per step, then the timing parts.
pub struct Plain;

impl View for Plain {
    fn parts(&self, r: &RunResult, verdicts: &[Verdict]) -> Vec<Part> {
        let mut parts = vec![
            Part::Terminal(super::terminal::throughput_table(r)),
            throughput_page(r, verdicts),
        ];
        parts.extend(timing(r));
        parts
    }
}
