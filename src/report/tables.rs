//! The tables a run's section may end with whatever its workload, each made once as a
//! [`Table`] that the terminal and the page both render.

use super::table::Table;
use crate::results::RunResult;

/// The latency percentiles of every measurement that has them, and its retries.
pub fn latency(r: &RunResult) -> Table {
    let latencies = crate::results::figures::LATENCIES;
    let mut headers: Vec<String> = ["engine", "durability", "threads", "step"]
        .map(String::from)
        .to_vec();
    headers.extend(latencies.iter().map(|d| d.label.to_string()));
    headers.push("retries".into());
    let mut t = Table::new(
        "Latency per transaction, merged over threads and runs",
        headers,
        4,
    );
    let varying = super::varying_config(&r.measurements);
    for m in &r.measurements {
        if let Some(l) = &m.latency {
            let mut row = vec![
                m.engine.clone(),
                super::durability_label(m, &varying),
                m.threads.to_string(),
                m.step.clone(),
            ];
            row.extend(
                latencies
                    .iter()
                    .map(|d| crate::units::latency(d.latency_of(l).unwrap_or_default())),
            );
            row.push(m.retries.to_string());
            t.row(row);
        }
    }
    t
}

/// The figures derived from others (`result.metrics`): ratios, load times, tpcc's NOPM.
pub fn derived(r: &RunResult) -> Table {
    let mut t = Table::new(
        "Derived figures",
        vec!["engine".into(), "figure".into(), "value".into()],
        2,
    );
    for m in &r.metrics {
        let unit = if m.unit == "ratio" { "" } else { &m.unit };
        t.row(vec![
            m.engine.clone().unwrap_or_default(),
            m.name.clone(),
            format!("{:.3}{unit}", m.value),
        ]);
    }
    t
}
