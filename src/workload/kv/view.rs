//! The kv view: the records' shape, then throughput per step with the papers' figures beneath.

use crate::report::parts;
use crate::report::table::Table;
use crate::report::view::{Part, Verdict, View};
use crate::results::RunResult;
use crate::units::thousands;

/// The kv section.
pub struct KvView;

impl View for KvView {
    fn parts(&self, r: &RunResult, verdicts: &[Verdict]) -> Vec<Part> {
        let mut all = vec![
            Part::Terminal(kv_records_line(r)),
            Part::Terminal(crate::report::terminal::throughput_table(r)),
            parts::throughput_page(r, verdicts),
        ];
        all.extend(cpu_table(r).map(|t| Part::Tables(vec![t])));
        all.extend(parts::timing(r));
        all
    }
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

/// What the Berkeley DB paper explains its read curve by: how busy the cores were and how many
/// context switches each operation took, beside each step's ops/s, by thread count (None when
/// resources were not read). The client is the engine here for the embedded libraries.
fn cpu_table(r: &RunResult) -> Option<Table> {
    let cores = r.environment.cpu_cores.max(1) as f64;
    let rows: Vec<Vec<String>> = (r.measurements.iter())
        .filter_map(|m| {
            let busy = m.figure("client.cpu_cores")?;
            let switches = m.figure("client.context_switches_per_op")?;
            Some(vec![
                m.engine.clone(),
                m.durability.clone(),
                m.threads.to_string(),
                m.step.clone(),
                thousands(m.ops_per_sec_mean),
                format!("{:.0}%", 100.0 * busy / cores),
                format!("{:.2}", switches * 1000.0),
            ])
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    let mut t = Table::new(
        format!(
            "CPU and context switches beside throughput (hakari's process, which holds an \
             embedded engine; % of the machine's {} cores)",
            r.environment.cpu_cores
        ),
        [
            "engine",
            "level",
            "threads",
            "step",
            "ops/s",
            "CPU busy",
            "cs/1k ops",
        ]
        .map(String::from)
        .to_vec(),
        4,
    );
    for row in rows {
        t.row(row);
    }
    Some(t)
}
