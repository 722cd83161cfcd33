//! The tpch workload's terminal tables: load test parts, per-query seconds (power test and each
//! stream), the metrics under both rules, the scaling across SFs, and seed 003's figures beside
//! fresh ones for the `dbt3` preset.

use super::published;
use super::table::Table;
use crate::results::{Measurement, RunResult};

pub use crate::workload::tpch::metrics::DISCLAIMER;

fn sf_of(m: &Measurement) -> f64 {
    m.config.get("sf").and_then(|v| v.as_f64()).unwrap_or(0.0)
}
fn test_of(m: &Measurement) -> &str {
    m.config.get("test").and_then(|v| v.as_str()).unwrap_or("")
}
fn stream_of(m: &Measurement) -> Option<u64> {
    m.config.get("stream").and_then(|v| v.as_u64())
}
fn sf_label(sf: f64) -> String {
    crate::workload::tpch::presets::sf_label(sf)
}
fn secs(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.1}")
    }
}

/// (engine, durability, sf) in the order they ran.
fn groups(r: &RunResult) -> Vec<(String, String, f64)> {
    let mut out: Vec<(String, String, f64)> = Vec::new();
    for m in &r.measurements {
        let g = (m.engine.clone(), m.durability.clone(), sf_of(m));
        if !out.contains(&g) {
            out.push(g);
        }
    }
    out
}

fn metric(r: &RunResult, who: &str, name: &str) -> Option<f64> {
    r.metrics
        .iter()
        .find(|m| m.engine.as_deref() == Some(who) && m.name == name)
        .map(|m| m.value)
}

pub fn render(r: &RunResult) -> String {
    let mut out = String::new();
    out.push_str(DISCLAIMER);
    out.push('\n');
    let all = groups(r);
    for (engine, durability, sf) in &all {
        let ms: Vec<&Measurement> = r
            .measurements
            .iter()
            .filter(|m| &m.engine == engine && &m.durability == durability && sf_of(m) == *sf)
            .collect();
        let title = format!("{engine} {durability} SF {}", sf_label(*sf));

        let mut load = Table::new(
            format!(
                "tpch load test, {title}: seconds (tables, then keys/indexes, then statistics)"
            ),
            ["part", "seconds", "rows"].map(String::from).to_vec(),
            1,
        );
        for m in ms.iter().filter(|m| test_of(m) == "load") {
            let rows = if m.step.starts_with("load ")
                && !["load tables", "load keys", "load statistics", "load total"]
                    .contains(&m.step.as_str())
            {
                m.runs
                    .first()
                    .map(|r| r.ops.to_string())
                    .unwrap_or_default()
            } else {
                String::new()
            };
            load.row(vec![
                m.step.trim_start_matches("load ").to_string(),
                secs(m.seconds_mean),
                rows,
            ]);
        }
        if !load.is_empty() {
            out.push('\n');
            out.push_str(&load.render());
        }

        // Columns: validation, power, stream 1..S (refresh pair k beside stream k).
        let streams = ms
            .iter()
            .filter(|m| matches!(test_of(m), "throughput" | "refresh stream"))
            .filter_map(|m| stream_of(m))
            .max()
            .unwrap_or(0);
        let has_validation = ms.iter().any(|m| test_of(m) == "validation");
        let mut headers = vec!["step".to_string()];
        if has_validation {
            headers.push("validation".into());
        }
        headers.push("power".into());
        for s in 1..=streams {
            headers.push(format!("stream {s}"));
        }
        let mut t = Table::new(
            format!("tpch query and refresh seconds, {title} (the throughput test's RF pair k under stream k)"),
            headers,
            1,
        );
        let find = |test: &str, stream: Option<u64>, step: &str| -> String {
            ms.iter()
                .find(|m| {
                    test_of(m) == test
                        && m.step == step
                        && (stream.is_none() || stream_of(m) == stream)
                })
                .map(|m| secs(m.seconds_mean))
                .unwrap_or_else(|| "-".into())
        };
        let steps: Vec<String> = (1..=22)
            .map(|q| format!("Q{q}"))
            .chain(["RF1".to_string(), "RF2".to_string()])
            .collect();
        for step in &steps {
            let mut row = vec![step.clone()];
            if has_validation {
                row.push(if step.starts_with('Q') {
                    find("validation", None, step)
                } else {
                    String::new()
                });
            }
            row.push(find("power", Some(0), step));
            for s in 1..=streams {
                let test = if step.starts_with('Q') {
                    "throughput"
                } else {
                    "refresh stream"
                };
                row.push(find(test, Some(s), step));
            }
            t.row(row);
        }
        if ms.iter().any(|m| test_of(m) == "power") {
            let mut total = vec!["power test".to_string()];
            if has_validation {
                total.push(String::new());
            }
            let sum: f64 = ms
                .iter()
                .filter(|m| test_of(m) == "power")
                .map(|m| m.seconds_mean)
                .sum();
            total.push(secs(sum));
            t.row(total);
        }
        if let Some(ts) = ms
            .iter()
            .find(|m| test_of(m) == "throughput" && m.step == "Ts")
        {
            let mut row = vec!["Ts (throughput test)".to_string()];
            if has_validation {
                row.push(String::new());
            }
            row.push(String::new());
            row.push(secs(ts.seconds_mean));
            t.row(row);
        }
        out.push('\n');
        out.push_str(&t.render());
    }

    if !r.metrics.is_empty() {
        let mut t = Table::new(
            format!("tpch metrics ({DISCLAIMER})"),
            [
                "engine",
                "rules",
                "Power@Size",
                "Throughput@Size",
                "QphH@Size",
            ]
            .map(String::from)
            .to_vec(),
            2,
        );
        let fmt = |v: Option<f64>| v.map(|v| format!("{v:.1}")).unwrap_or_else(|| "-".into());
        for (engine, _, sf) in &all {
            let who = format!("{engine} SF {}", sf_label(*sf));
            for (rules, label) in [
                ("tpch", "TPC-H (0.1 s floor, 1000:1 clamp)"),
                ("dbt3", "DBT-3 (fractional s, no floor/clamp)"),
            ] {
                let p = metric(r, &who, &format!("Power@Size ({rules})"));
                if p.is_none() {
                    continue;
                }
                t.row(vec![
                    who.clone(),
                    label.into(),
                    fmt(p),
                    fmt(metric(r, &who, &format!("Throughput@Size ({rules})"))),
                    fmt(metric(r, &who, &format!("QphH@Size ({rules})"))),
                ]);
            }
        }
        let mut source = None;
        if r.preset.as_deref() == Some("dbt3") {
            if let Some(p) = published::dbt3_postgresql() {
                t.row(vec![
                    format!("  published postgres SF {}", sf_label(p.scale_factor)),
                    format!("DBT-3 v1.5 ({} streams, whole seconds)", p.streams),
                    format!("{:.2}", p.power),
                    format!("{:.2}", p.throughput),
                    format!("{:.2}", p.composite),
                ]);
                source = Some(p.source);
            }
        }
        out.push('\n');
        out.push_str(&t.render());
        if let Some(s) = source {
            out.push_str(&format!(
                "published: {s}; PostgreSQL 8.0 on 2004 hardware, a reference, not a target\n"
            ));
        }
    }

    // Scaling: load time and power per SF, when several SFs ran.
    let sfs: Vec<f64> = {
        let mut v: Vec<f64> = all.iter().map(|g| g.2).collect();
        v.dedup();
        v
    };
    if sfs.len() > 1 {
        let mut t = Table::new(
            "tpch scaling: load time and power test per scale factor",
            [
                "engine",
                "SF",
                "load s",
                "power test s",
                "Power@Size (TPC-H)",
                "Power@Size (DBT-3)",
            ]
            .map(String::from)
            .to_vec(),
            2,
        );
        for (engine, durability, sf) in &all {
            let ms = r
                .measurements
                .iter()
                .filter(|m| &m.engine == engine && &m.durability == durability && sf_of(m) == *sf);
            let mut load = None;
            let mut power = 0.0;
            for m in ms {
                if test_of(m) == "load" && m.step == "load total" {
                    load = Some(m.seconds_mean);
                }
                if test_of(m) == "power" {
                    power += m.seconds_mean;
                }
            }
            let who = format!("{engine} SF {}", sf_label(*sf));
            let fmt = |v: Option<f64>| v.map(|v| format!("{v:.1}")).unwrap_or_else(|| "-".into());
            t.row(vec![
                engine.clone(),
                sf_label(*sf),
                load.map(secs).unwrap_or_else(|| "-".into()),
                secs(power),
                fmt(metric(r, &who, "Power@Size (tpch)")),
                fmt(metric(r, &who, "Power@Size (dbt3)")),
            ]);
        }
        out.push('\n');
        out.push_str(&t.render());
    }
    out
}
