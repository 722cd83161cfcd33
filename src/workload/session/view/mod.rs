//! The session store's view: seconds per step with sizes as columns, the source's series
//! beneath, then rates and bytes stored (the terminal); seconds against size (the page).

mod page;

use crate::report::table::Table;
use crate::report::view::{Part, Verdict, View};
use crate::report::{parts, published};
use crate::results::{Measurement, RunResult};
use crate::units::thousands;

/// The session store: seconds per step with sizes as columns (the source's chart as a table),
/// the source's series beneath where it measured the same layout; then rates and stored bytes.
pub fn tables(r: &RunResult) -> String {
    let ms = &r.measurements;
    let sizes = sizes(ms);
    let rows = rows(ms);
    let find = |k: &SessionRow, size: u64| session_cell(ms, k, size);
    let labels = [
        "engine",
        "durability",
        "layout",
        "compress",
        "clients",
        "step",
    ];
    let sessions = r.parameters.get("sessions").and_then(|v| v.as_u64());
    let reads = r.parameters.get("reads").and_then(|v| v.as_u64());
    let mut headers: Vec<String> = labels.map(String::from).to_vec();
    headers.extend(sizes.iter().map(|s| crate::units::bytes(*s)));
    let mut seconds = Table::new(
        format!(
            "session store: seconds per step (write = {} sessions, read = {} random reads), mean ± sd over runs",
            sessions.map(|n| thousands(n as f64)).unwrap_or_default(),
            reads.map(|n| thousands(n as f64)).unwrap_or_default()
        ),
        headers.clone(),
        labels.len(),
    );
    let mut sources = Vec::new();
    let mut shown_published: Vec<(String, String, String)> = Vec::new();
    // The source's seconds are for 1,000 writes and 10,000 reads; other counts are not comparable.
    let same_counts_as_source = sessions == Some(1000) && reads == Some(10_000);
    for k in &rows {
        let mut cells = label_cells(k);
        for &s in &sizes {
            cells.push(
                find(k, s)
                    .map(|m| format!("{:.3} ± {:.3}", m.seconds_mean, m.seconds_stddev))
                    .unwrap_or_else(|| "-".into()),
            );
        }
        seconds.row(cells);
        // The source's series once per layout, compression and step, under the first row of it.
        let shown = (k.2.clone(), k.3.clone(), k.5.clone());
        if !same_counts_as_source || shown_published.contains(&shown) {
            continue;
        }
        shown_published.push(shown);
        for (cells, source) in published_session_rows(k, &sizes, labels.len()) {
            seconds.row(cells);
            if !sources.contains(&source) {
                sources.push(source);
            }
        }
    }
    let rates = rates_table(ms, &rows, &sizes, headers.clone(), labels.len());
    let cpu = cpu_table(ms, &rows, &sizes, headers, labels.len());
    let mut out = seconds.render();
    for s in sources {
        out.push_str(&format!(
            "published: {s}; old hardware and Perl DBI, a reference, not a target\n"
        ));
    }
    out.push('\n');
    out.push_str(&rates.render());
    if let Some(cpu) = cpu {
        out.push('\n');
        out.push_str(&cpu.render());
    }
    out
}

/// The client's CPU in each step as the source printed it beside its wall-clock seconds: user
/// + system seconds, a mean over runs (None when resources were not read).
fn cpu_table(
    ms: &[Measurement],
    rows: &[SessionRow],
    sizes: &[u64],
    headers: Vec<String>,
    label_columns: usize,
) -> Option<Table> {
    let cpu = |m: &Measurement| {
        let runs = m.runs.len().max(1) as f64;
        let user = m.figure("client.user_s")? / runs;
        let system = m.figure("client.system_s")? / runs;
        Some(format!("{user:.3} + {system:.3}"))
    };
    if !ms.iter().any(|m| cpu(m).is_some()) {
        return None;
    }
    let mut t = Table::new(
        "session store: the client's CPU, user + system seconds per step (mean over runs)",
        headers,
        label_columns,
    );
    for k in rows {
        let mut cells = label_cells(k);
        for &s in sizes {
            let cell = session_cell(ms, k, s).and_then(cpu);
            cells.push(cell.unwrap_or_else(|| "-".into()));
        }
        t.row(cells);
    }
    Some(t)
}

/// The source's series for a row's layout, compression and step, as rows of the seconds table
/// (sizes it did not measure left empty), each with its source.
fn published_session_rows(
    k: &SessionRow,
    sizes: &[u64],
    label_columns: usize,
) -> Vec<(Vec<String>, String)> {
    let mut rows = Vec::new();
    for series in published::session_store(&k.2, &k.3, &k.5) {
        let mut cells = vec![format!("  published: {}", series.label)];
        cells.extend((1..label_columns - 1).map(|_| String::new()));
        cells.push(k.5.clone());
        let mut any = false;
        for &s in sizes {
            match series.seconds.iter().find(|(size, _)| *size == s) {
                Some((_, v)) => {
                    any = true;
                    cells.push(format!("{v}"));
                }
                None => cells.push(String::new()),
            }
        }
        if any {
            rows.push((cells, series.source.clone()));
        }
    }
    rows
}

/// A row of the session tables: engine, level, layout, compression, clients, step.
pub type SessionRow = (String, String, String, String, usize, String);

/// The row a measurement belongs to.
pub fn row_of(m: &Measurement) -> SessionRow {
    let text = crate::report::config_text;
    (
        m.engine.clone(),
        m.durability.clone(),
        text(m, "layout"),
        text(m, "compress"),
        m.threads,
        m.step.clone(),
    )
}

/// The rows of a run's measurements, in the order they were measured.
pub fn rows(ms: &[Measurement]) -> Vec<SessionRow> {
    let mut rows: Vec<SessionRow> = Vec::new();
    for k in ms.iter().map(row_of) {
        if !rows.contains(&k) {
            rows.push(k);
        }
    }
    rows
}

/// The session sizes measured, smallest first.
pub fn sizes(ms: &[Measurement]) -> Vec<u64> {
    let mut sizes: Vec<u64> = ms.iter().filter_map(session_size).collect();
    sizes.sort();
    sizes.dedup();
    sizes
}

/// A row's label cells.
fn label_cells(k: &SessionRow) -> Vec<String> {
    vec![
        k.0.clone(),
        k.1.clone(),
        k.2.clone(),
        k.3.clone(),
        k.4.to_string(),
        k.5.clone(),
    ]
}

fn session_size(m: &Measurement) -> Option<u64> {
    m.config.get("size").and_then(|v| v.as_u64())
}

/// The measurement of row `k` at session size `size`.
pub fn session_cell<'a>(
    ms: &'a [Measurement],
    k: &SessionRow,
    size: u64,
) -> Option<&'a Measurement> {
    ms.iter()
        .find(|m| session_size(m) == Some(size) && row_of(m) == *k)
}

/// Sessions per second, MB/s of payload, and bytes stored per session, sizes as columns.
fn rates_table(
    ms: &[Measurement],
    rows: &[SessionRow],
    sizes: &[u64],
    headers: Vec<String>,
    label_columns: usize,
) -> Table {
    let find = |k: &SessionRow, size: u64| session_cell(ms, k, size);
    let mut rates = Table::new(
        "session store: sessions per second (MB/s of session payload) and bytes stored per session",
        headers,
        label_columns,
    );
    for k in rows {
        let mut cells = label_cells(k);
        for &s in sizes {
            cells.push(
                find(k, s)
                    .map(|m| {
                        let payload = m
                            .produced
                            .get("payload_bytes")
                            .and_then(|v| v.as_u64())
                            .unwrap_or(0);
                        let stored = m
                            .produced
                            .get("stored_bytes")
                            .and_then(|v| v.as_u64())
                            .unwrap_or(0);
                        format!(
                            "{} ({:.1}) {}",
                            thousands(m.ops_per_sec_mean),
                            m.ops_per_sec_mean * payload as f64 / 1e6,
                            if k.5 == "write" {
                                crate::units::bytes(stored)
                            } else {
                                String::new()
                            }
                        )
                        .trim_end()
                        .to_string()
                    })
                    .unwrap_or_else(|| "-".into()),
            );
        }
        rates.row(cells);
    }
    rates
}

/// The session store's section.
pub struct SessionView;

impl View for SessionView {
    fn parts(&self, r: &RunResult, _: &[Verdict]) -> Vec<Part> {
        let mut all = vec![Part::Terminal(tables(r)), Part::html(page::session_body(r))];
        all.extend(parts::timing(r));
        all
    }
}
