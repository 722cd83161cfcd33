//! What each step cost, from its resource figures (`results/figures.rs`): one table of cost per
//! operation and one of the CPU and memory it took, a column for each figure some step has, and
//! the verdicts on what bound a step. Every view gets it: the figures are the run's, not a
//! workload's.

use super::table::Table;
use super::view::Part;
use crate::results::figures::{self, Definition, Made};
use crate::results::{Measurement, RunResult};

/// The cost tables and verdicts of a run (nothing when no step has resource figures).
pub fn part(r: &RunResult) -> Part {
    let per_op =
        |d: &Definition| matches!(d.made, Made::PerOp(..) | Made::Share(..) | Made::Ratio(..));
    let profile = |d: &Definition| matches!(d.made, Made::Shares(..));
    // A fault's figures are measured from the operations, not read: a table of their own.
    let fault = |d: &Definition| d.name.starts_with("fault.");
    let read = " (hakari's readings; --no-resources turns them off)";
    let tables: Vec<Table> = [
        table(r, "Cost per operation", read, &per_op),
        table(
            r,
            "CPU, memory and the server's own counts over the counted time",
            read,
            &|d| d.is_resource() && !per_op(d) && !profile(d) && !fault(d),
        ),
        table(r, "What the fault cost", " (--fault)", &fault),
        waits(r),
    ]
    .into_iter()
    .flatten()
    .collect();
    if tables.is_empty() {
        return Part::Tables(Vec::new());
    }
    let mut verdicts = Table::new(
        "What bound each step",
        vec![
            "engine".into(),
            "level".into(),
            "threads".into(),
            "step".into(),
            "verdict".into(),
            "why".into(),
        ],
        4,
    );
    for m in r.measurements.iter() {
        for v in &m.verdicts {
            let mut row = labels(m);
            row.extend([v.kind.clone(), v.why.clone()]);
            verdicts.row(row);
        }
    }
    let mut tables = tables;
    if !verdicts.is_empty() {
        tables.push(verdicts);
    }
    Part::Tables(tables)
}

/// How many of a profile's largest shares a row shows.
const TOP: usize = 5;

/// The wait-event profile of each step that has one: its largest shares of the samples.
fn waits(r: &RunResult) -> Option<Table> {
    let profiles: Vec<(&Measurement, Vec<String>)> = (r.measurements.iter())
        .map(|m| {
            let shares = (m.figures.iter())
                .filter(|f| {
                    figures::definition(&f.name).is_some_and(|d| matches!(d.made, Made::Shares(_)))
                })
                .take(TOP)
                .map(|f| {
                    let event = f.name.splitn(3, '.').nth(2).unwrap_or(&f.name);
                    format!("{event} {:.0}%", f.value * 100.0)
                })
                .collect();
            (m, shares)
        })
        .filter(|(_, s): &(_, Vec<String>)| !s.is_empty())
        .collect();
    if profiles.is_empty() {
        return None;
    }
    let has = |prefix: &str| {
        (r.measurements.iter()).any(|m| m.figures.iter().any(|f| f.name.starts_with(prefix)))
    };
    let how = match (has("postgres.wait."), has("mysql.wait.")) {
        (true, false) => "wait events sampled 10 times a second; CPU:running is on a core",
        (false, true) => "performance_schema's wait time by event",
        _ => "PostgreSQL: wait events sampled 10 times a second, CPU:running on a core; MariaDB/MySQL: performance_schema's wait time by event",
    };
    let mut t = Table::new(
        format!("What the server's sessions were doing ({how})"),
        vec![
            "engine".into(),
            "level".into(),
            "threads".into(),
            "step".into(),
            "largest shares".into(),
        ],
        4,
    );
    for (m, shares) in profiles {
        let mut row = labels(m);
        row.push(shares.join(", "));
        t.row(row);
    }
    Some(t)
}

fn labels(m: &Measurement) -> Vec<String> {
    vec![
        m.engine.clone(),
        m.durability.clone(),
        m.threads.to_string(),
        m.step.clone(),
    ]
}

/// A table of the figures `keep` selects that some measurement has, its title followed by
/// `source`; None when there are none.
fn table(
    r: &RunResult,
    title: &str,
    source: &str,
    keep: &dyn Fn(&Definition) -> bool,
) -> Option<Table> {
    let columns: Vec<&Definition> = (figures::DEFINITIONS.iter())
        .filter(|d| keep(d))
        .filter(|d| r.measurements.iter().any(|m| m.figure(d.name).is_some()))
        .collect();
    if columns.is_empty() {
        return None;
    }
    let mut headers = vec![
        "engine".into(),
        "level".into(),
        "threads".into(),
        "step".into(),
    ];
    headers.extend(columns.iter().map(|d| d.label.to_string()));
    let mut t = Table::new(format!("{title}{source}"), headers, 4);
    let any = |m: &&Measurement| columns.iter().any(|d| m.figure(d.name).is_some());
    for m in r.measurements.iter().filter(any) {
        let mut row = labels(m);
        row.extend(columns.iter().map(|d| {
            m.figure(d.name)
                .map(|v| figures::format(v, d.unit))
                .unwrap_or_else(|| "-".into())
        }));
        t.row(row);
    }
    Some(t)
}
