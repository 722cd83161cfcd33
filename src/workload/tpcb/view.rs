//! The tpcb view: transactions per second with clients as columns, as the papers' scaling
//! tables; on the page the throughput grid and its charts.

use crate::report::parts;
use crate::report::published;
use crate::report::table::Table;
use crate::report::terminal::with_sources;
use crate::report::throughput::{Sources, Throughput};
use crate::report::view::{Part, Verdict, View};
use crate::results::RunResult;
use crate::units::thousands;

/// The tpcb section.
pub struct TpcbView;

impl View for TpcbView {
    fn parts(&self, r: &RunResult, verdicts: &[Verdict]) -> Vec<Part> {
        let mut all = vec![
            Part::Terminal(by_clients_table(&Throughput::of(r))),
            parts::throughput_page(r, verdicts),
        ];
        all.extend(parts::timing(r));
        all
    }
}

/// Transactions per second with clients as columns, as the papers' scaling tables.
fn by_clients_table(view: &Throughput) -> String {
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
                crate::report::level_of(&label),
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
