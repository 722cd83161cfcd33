//! The tables printed at the end of a run, shaped like the papers' tables.

use super::table::Table;
use super::throughput::{Sources, Throughput};
use super::view::View;
use crate::results::RunResult;
use crate::units::thousands;

/// Everything printed after a run (or by `hakari show`): the environment, the view's tables,
/// the derived figures, the mapping and the notes.
pub fn render(result: &RunResult, view: &dyn View) -> String {
    let mut out = String::new();
    out.push_str(&environment_line(result));
    out.push('\n');
    if result.measurements.is_empty() {
        out.push_str("no finished measurements\n");
    } else {
        for part in view.parts(result, &[]) {
            out.push_str(&part.terminal());
        }
        let costs = super::costs::part(result).terminal();
        if !costs.is_empty() {
            out.push('\n');
            out.push_str(&costs);
        }
    }
    if !result.metrics.is_empty() && view.derived() {
        out.push('\n');
        out.push_str(&super::tables::derived(result).render());
    }
    out.push('\n');
    out.push_str(&footer(result));
    out
}

/// What every run's tables end with: how each engine honoured its level, notes and warnings.
fn footer(result: &RunResult) -> String {
    let mut out = mapping_table(result);
    for note in &result.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    for w in &result.environment.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out
}

fn environment_line(r: &RunResult) -> String {
    let e = &r.environment;
    format!(
        "{} run {} ({}), seed {}: {} x {} cores, {:.1} GiB, {} {}, data on {} ({}, {}{})\n",
        r.workload,
        r.run_id,
        r.status,
        r.seed,
        e.cpu_model,
        e.cpu_cores,
        e.memory_bytes as f64 / (1u64 << 30) as f64,
        e.os,
        e.kernel,
        e.mount_point,
        e.filesystem,
        e.device,
        e.sync_ceiling
            .as_ref()
            .map(|c| format!(", {} fsync/s", thousands(c.fsync_per_sec)))
            .unwrap_or_default()
    )
}

/// Configurations as rows and steps as columns, the papers' figures beneath ("" with no
/// measurement).
pub fn throughput_table(r: &RunResult) -> String {
    if r.measurements.is_empty() {
        return String::new();
    }
    let view = Throughput::of(r);
    let mut headers = vec!["engine".into(), "durability".into(), "threads".into()];
    for s in &view.steps {
        headers.push(format!("{s} ops/s"));
        headers.push("stddev".into());
    }
    let title = format!(
        "{} throughput: mean and sample stddev of ops/s over runs",
        r.workload
    );
    let mut t = Table::new(title, headers, 3);
    let mut sources = Sources::default();
    for (i, (engine, durability, threads)) in view.configs.iter().enumerate() {
        let mut row = vec![engine.clone(), durability.clone(), threads.to_string()];
        let mut paper_row = vec!["  published".into(), String::new(), String::new()];
        for cell in view.row(i) {
            match cell.measured {
                Some(m) => row.extend([m.ops_per_sec_mean, m.ops_per_sec_stddev].map(thousands)),
                None => row.extend(["-".into(), "-".into()]),
            }
            match &cell.published {
                Some(p) => {
                    paper_row.push(thousands(p.mean));
                    paper_row.push(p.stddev.map(thousands).unwrap_or_else(|| "-".into()));
                    sources.note(p);
                }
                None => paper_row.extend(["".into(), "".into()]),
            }
        }
        t.row(row);
        if view.row(i).iter().any(|c| c.published.is_some()) {
            t.row(paper_row);
        }
    }
    with_sources(t.render(), &sources)
}

/// A table with the sources of its published figures beneath.
pub fn with_sources(mut out: String, sources: &Sources) -> String {
    for s in &sources.0 {
        out.push_str(&format!(
            "published: {s}; old hardware, a reference, not a target\n"
        ));
    }
    out
}

/// Whether any engine of the run reached a server (and says how: TLS or not).
fn any_tls(r: &RunResult) -> bool {
    r.engines.iter().any(|e| e.settings.contains_key("tls"))
}

fn mapping_table(r: &RunResult) -> String {
    let mut t = Table::new(
        "Durability mapping used",
        ["engine", "version", "durability", "engine settings", "TLS"]
            .map(String::from)
            .into_iter()
            .take(if any_tls(r) { 5 } else { 4 })
            .collect(),
        if any_tls(r) { 5 } else { 4 },
    );
    for e in &r.engines {
        let mut row = vec![
            e.engine.clone(),
            e.version.clone(),
            e.durability.clone(),
            e.durability_mapping.clone(),
        ];
        if any_tls(r) {
            row.push(e.tls().to_string());
        }
        t.row(row);
    }
    t.render()
}
