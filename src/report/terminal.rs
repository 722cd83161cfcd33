//! The tables printed at the end of a run, shaped like the papers' tables.

use super::published;
use super::table::Table;
use super::throughput::{Sources, View};
use super::Shape;
use crate::results::RunResult;
use crate::units::thousands;

/// Everything printed after a run (or by `hakari show`): tables, mapping, notes.
pub fn render(result: &RunResult) -> String {
    let mut out = String::new();
    out.push_str(&environment_line(result));
    out.push('\n');
    let shape = Shape::of(result);
    if shape == Shape::Tpch {
        out.push_str(&super::tpch::render(result));
        out.push('\n');
        out.push_str(&footer(result));
        return out;
    }
    if shape == Shape::Kv {
        out.push_str(&kv_records_line(result));
    }
    if shape == Shape::Crashtest {
        out.push_str(&super::crashtest::render(result));
    } else if shape == Shape::Wisconsin && !result.measurements.is_empty() {
        out.push_str(&wisconsin_table(result));
    } else {
        out.push_str(&throughput_table(result));
    }
    // A Wisconsin run's latency is its query times, a script run's its statements': both
    // already in their tables.
    let latency = if matches!(shape, Shape::Wisconsin | Shape::Script) {
        String::new()
    } else {
        latency_table(result)
    };
    if !latency.is_empty() {
        out.push('\n');
        out.push_str(&latency);
    }
    let open_loop = super::over_time::open_loop_table(result);
    if !open_loop.is_empty() {
        out.push('\n');
        out.push_str(&open_loop.render());
    }
    if !result.metrics.is_empty() {
        out.push('\n');
        let mut t = Table::new(
            "Derived figures",
            vec!["engine".into(), "figure".into(), "value".into()],
            2,
        );
        for m in &result.metrics {
            t.row(vec![
                m.engine.clone().unwrap_or_default(),
                m.name.clone(),
                format!(
                    "{:.3}{}",
                    m.value,
                    if m.unit == "ratio" { "" } else { &m.unit }
                ),
            ]);
        }
        out.push_str(&t.render());
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

/// The kv records' shape: sizes, where the number sits in the key, transaction grouping.
fn kv_records_line(r: &RunResult) -> String {
    let p = |k: &str| {
        r.parameters.get(k).map(|v| {
            v.as_str()
                .map(String::from)
                .unwrap_or_else(|| v.to_string())
        })
    };
    format!(
        "records: {}-byte keys ({}), {}-byte values, batches of {}, one transaction per {}\n",
        p("key_size").unwrap_or_default(),
        // Runs made before the layout was a choice had the number last.
        p("key_layout").unwrap_or_else(|| "number-last".into()),
        p("value_size").unwrap_or_default(),
        p("batch_size").unwrap_or_default(),
        p("txn_size").unwrap_or_default(),
    )
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

fn throughput_table(r: &RunResult) -> String {
    if r.measurements.is_empty() {
        return "no finished measurements\n".into();
    }
    match Shape::of(r) {
        Shape::Tpcb => return by_clients_table(&View::of(r)),
        Shape::Session => return super::session::tables(r),
        Shape::Ycsb => return super::ycsb::render(r),
        Shape::Script => return super::script::render(r),
        _ => {}
    }
    let view = View::of(r);
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
fn with_sources(mut out: String, sources: &Sources) -> String {
    for s in &sources.0 {
        out.push_str(&format!(
            "published: {s}; old hardware, a reference, not a target\n"
        ));
    }
    out
}

/// Transactions per second with clients as columns, as the papers' scaling tables.
fn by_clients_table(view: &View) -> String {
    let ms = &view.run.measurements;
    let clients = view.thread_counts();
    let mut rows: Vec<(String, String, String)> = Vec::new();
    for m in ms {
        let row = (m.engine.clone(), view.label(m), m.step.clone());
        if !rows.contains(&row) {
            rows.push(row);
        }
    }
    let mut headers = vec!["engine".to_string(), "durability".into(), "test".into()];
    headers.extend(clients.iter().map(|c| format!("{c} cl. TPS ± sd")));
    let title = format!(
        "{} throughput by clients: transactions per second, mean ± sample stddev over runs",
        view.run.workload
    );
    let mut t = Table::new(title, headers, 3);
    let mut sources = Sources::default();
    for (engine, label, step) in rows {
        let mut cells = vec![engine.clone(), label.clone(), step.clone()];
        let mut paper = vec!["  published".to_string(), String::new(), String::new()];
        let mut any = false;
        for &c in &clients {
            let cell = view.cell(&(engine.clone(), label.clone(), c), &step);
            cells.push(match cell.and_then(|cell| cell.measured) {
                Some(m) => format!(
                    "{} ± {}",
                    thousands(m.ops_per_sec_mean),
                    thousands(m.ops_per_sec_stddev)
                ),
                None => "-".into(),
            });
            // The paper's figure, even for a client count that did not run here.
            let published = published::for_figure(
                view.run.preset.as_deref(),
                &engine,
                super::level_of(&label),
                c,
                &step,
            );
            match published {
                Some(p) => {
                    any = true;
                    paper.push(thousands(p.mean));
                    sources.note(&p);
                }
                None => paper.push(String::new()),
            }
        }
        t.row(cells);
        if any {
            t.row(paper);
        }
    }
    with_sources(t.render(), &sources)
}

/// Queries as rows and engines as columns, as table 7; table 7's own figures beside bdb-sql
/// under the bdb-11gr2 preset.
fn wisconsin_table(r: &RunResult) -> String {
    use super::wisconsin as w;
    let ms = &r.measurements;
    let columns = w::columns(ms);
    let rows = w::rows(ms);
    let runs = ms.first().map(|m| m.runs.len()).unwrap_or(0);
    let published_beside: Vec<bool> = columns
        .iter()
        .map(|c| rows.iter().any(|q| w::published_for(r, c, q).is_some()))
        .collect();
    let mut headers = vec!["#".to_string(), "query".into()];
    for (c, p) in columns.iter().zip(&published_beside) {
        headers.push(format!("{} ms ± sd", c.label));
        headers.push("min".into());
        if *p {
            headers.push("table 7 ms".into());
        }
    }
    let mut t = Table::new(
        format!(
            "wisconsin: elapsed ms per query, mean ± sample stddev and min of {runs} run(s); {} tuples, result mode {}",
            w::parameter(r, "tuples"),
            w::parameter(r, "result_mode")
        ),
        headers,
        2,
    );
    let mut sources = Vec::new();
    let mut wrong = false;
    for q in &rows {
        let name = q.step.split_once(' ').map(|(_, n)| n).unwrap_or(&q.step);
        let mut cells = vec![q.number.to_string(), name.to_string()];
        for (c, p) in columns.iter().zip(&published_beside) {
            match w::cell(ms, q, c) {
                Some(cell) => {
                    wrong |= cell.wrong;
                    cells.push(format!(
                        "{}{} ± {}",
                        if cell.wrong { "WRONG " } else { "" },
                        w::ms(cell.mean_ms),
                        w::ms(cell.stddev_ms)
                    ));
                    cells.push(w::ms(cell.min_ms));
                }
                None => cells.extend(["-".into(), "-".into()]),
            }
            if *p {
                match w::published_for(r, c, q) {
                    Some(p) => {
                        cells.push(w::ms(p.mean));
                        if !sources.contains(&p.source) {
                            sources.push(p.source);
                        }
                    }
                    None => cells.push(String::new()),
                }
            }
        }
        t.row(cells);
    }
    let mut out = t.render();
    if wrong {
        out.push_str(
            "WRONG: the answer's row count or checksum was not what it must be (see the errors)\n",
        );
    }
    for s in sources {
        out.push_str(&format!(
            "table 7: {s}, mean of 10 runs; old hardware, a reference, not a target\n"
        ));
    }
    out
}

fn latency_table(r: &RunResult) -> String {
    let mut t = Table::new(
        "Latency per transaction (microseconds), merged over threads and runs",
        [
            "engine",
            "durability",
            "threads",
            "step",
            "p50",
            "p95",
            "p99",
            "p99.9",
            "max",
            "retries",
        ]
        .map(String::from)
        .to_vec(),
        4,
    );
    let us = |v: f64| {
        if v < 10.0 {
            format!("{v:.2}")
        } else {
            thousands(v)
        }
    };
    let varying = super::varying_config(&r.measurements);
    for m in &r.measurements {
        if let Some(l) = &m.latency {
            t.row(vec![
                m.engine.clone(),
                super::durability_label(m, &varying),
                m.threads.to_string(),
                m.step.clone(),
                us(l.p50_us),
                us(l.p95_us),
                us(l.p99_us),
                us(l.p999_us),
                us(l.max_us),
                m.retries.to_string(),
            ]);
        }
    }
    if t.is_empty() {
        String::new()
    } else {
        t.render()
    }
}

fn mapping_table(r: &RunResult) -> String {
    let mut t = Table::new(
        "Durability mapping used",
        ["engine", "version", "durability", "engine settings"]
            .map(String::from)
            .to_vec(),
        4,
    );
    for e in &r.engines {
        t.row(vec![
            e.engine.clone(),
            e.version.clone(),
            e.durability.clone(),
            e.durability_mapping.clone(),
        ]);
    }
    t.render()
}
