//! The tpch workload's view: tables: load test parts, per-query seconds (power test and each
//! stream), the metrics under both rules, the scaling across SFs, and seed 003's figures beside
//! fresh ones for the `dbt3` preset.

use crate::report::chart::{self, AxisKind, BarSeries, Labels, LineSeries};
use crate::report::markup::escape;
use crate::report::published;
use crate::report::table::Table;
use crate::results::{Measurement, RunResult};

use super::metrics::DISCLAIMER;
use crate::report::parts;
use crate::report::view::{Part, Verdict, View};

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
    super::presets::sf_label(sf)
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

/// The measurements of one (engine, durability, sf).
fn in_group<'a>(
    r: &'a RunResult,
    (engine, durability, sf): &'a (String, String, f64),
) -> impl Iterator<Item = &'a Measurement> + 'a {
    r.measurements
        .iter()
        .filter(move |m| &m.engine == engine && &m.durability == durability && sf_of(m) == *sf)
}

fn metric(r: &RunResult, who: &str, name: &str) -> Option<f64> {
    r.metrics
        .iter()
        .find(|m| m.engine.as_deref() == Some(who) && m.name == name)
        .map(|m| m.value)
}

/// The run's tables, and where the published figures among them come from.
fn tables(r: &RunResult) -> (Vec<Table>, Option<String>) {
    let mut tables = Vec::new();
    let all = groups(r);
    for group in &all {
        let (engine, durability, sf) = group;
        let ms: Vec<&Measurement> = in_group(r, group).collect();
        let title = format!("{engine} {durability} SF {}", sf_label(*sf));
        let load = load_table(&ms, &title);
        if !load.is_empty() {
            tables.push(load);
        }
        tables.push(query_table(&ms, &title));
    }
    let (metrics, source) = metrics_table(r, &all);
    tables.extend(metrics);
    tables.extend(scaling_table(r, &all));
    (tables, source)
}

/// The load test's parts: seconds, and rows per table.
fn load_table(ms: &[&Measurement], title: &str) -> Table {
    let mut load = Table::new(
        format!("tpch load test, {title}: seconds (tables, then keys/indexes, then statistics)"),
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
    load
}

/// Queries and refresh functions as rows; validation, power and each stream as columns.
fn query_table(ms: &[&Measurement], title: &str) -> Table {
    // Columns: validation, power, stream 1..S (refresh pair k beside stream k).
    // The stream numbers present (not 1..=the largest: a damaged file's number may be huge).
    let mut streams: Vec<u64> = (ms.iter())
        .filter(|m| matches!(test_of(m), "throughput" | "refresh stream"))
        .filter_map(|m| stream_of(m))
        .collect();
    streams.sort_unstable();
    streams.dedup();
    let has_validation = ms.iter().any(|m| test_of(m) == "validation");
    let mut headers = vec!["step".to_string()];
    if has_validation {
        headers.push("validation".into());
    }
    headers.push("power".into());
    for s in &streams {
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
                test_of(m) == test && m.step == step && (stream.is_none() || stream_of(m) == stream)
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
        for &s in &streams {
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
    t
}

/// The metrics under both rules, and the published DBT-3 figures for the `dbt3` preset.
fn metrics_table(r: &RunResult, all: &[(String, String, f64)]) -> (Option<Table>, Option<String>) {
    if r.metrics.is_empty() {
        return (None, None);
    }
    let mut source = None;
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
    for (engine, _, sf) in all {
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
    if r.preset.as_deref() == Some("dbt3") {
        if let Some(p) = published::dbt3_postgresql() {
            t.row(vec![
                format!("  published postgres SF {}", sf_label(p.scale_factor)),
                format!("DBT-3 v1.5 ({} streams, whole seconds)", p.streams),
                format!("{:.2}", p.power),
                format!("{:.2}", p.throughput),
                format!("{:.2}", p.composite),
            ]);
            source = Some(format!(
                "published: {}; PostgreSQL 8.0 on 2004 hardware, a reference, not a target",
                p.source
            ));
        }
    }
    (Some(t), source)
}

/// Load time and power per SF, when several SFs ran.
fn scaling_table(r: &RunResult, all: &[(String, String, f64)]) -> Option<Table> {
    let sfs: Vec<f64> = {
        let mut v: Vec<f64> = all.iter().map(|g| g.2).collect();
        v.dedup();
        v
    };
    if sfs.len() < 2 {
        return None;
    }
    {
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
        for group in all {
            let (engine, _, sf) = group;
            let ms = in_group(r, group);
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
        Some(t)
    }
}

fn render(r: &RunResult) -> String {
    let (tables, source) = tables(r);
    let mut out = format!("{DISCLAIMER}\n");
    for t in &tables {
        out.push('\n');
        out.push_str(&t.render());
    }
    if let Some(s) = source {
        out.push_str(&s);
        out.push('\n');
    }
    out
}

/// The report's section: the same tables, then the power test's seconds per step, the metrics
/// (DBT-3's rules) beside seed 003's published ones for the `dbt3` preset, and, across several
/// SFs, load time and power test time per SF (the source's scaling charts).
fn html(r: &RunResult) -> (String, usize) {
    let (tables, source) = tables(r);
    let mut s = format!("<p class=note>{}</p>", escape(DISCLAIMER));
    for t in &tables {
        s.push_str(&t.html());
    }
    if let Some(src) = &source {
        s.push_str(&format!("<p class=note>{}</p>", escape(src)));
    }
    let all = groups(r);
    let mut charts = 0;
    for chart in [power_chart(r, &all), metrics_chart(r, &all)]
        .into_iter()
        .flatten()
        .chain(scaling_charts(r, &all))
    {
        s.push_str(&chart);
        charts += 1;
    }
    (s, charts)
}

fn group_name((engine, durability, sf): &(String, String, f64)) -> String {
    format!("{engine} {durability} SF {}", sf_label(*sf))
}

/// The power test's seconds per query and refresh function, a bar per group.
fn power_chart(r: &RunResult, all: &[(String, String, f64)]) -> Option<String> {
    let steps: Vec<String> = (1..=22)
        .map(|q| format!("Q{q}"))
        .chain(["RF1".into(), "RF2".into()])
        .collect();
    let power: Vec<BarSeries> = all
        .iter()
        .map(|g| BarSeries {
            name: group_name(g),
            values: steps
                .iter()
                .map(|step| {
                    in_group(r, g)
                        .find(|m| test_of(m) == "power" && &m.step == step)
                        .map(|m| (m.seconds_mean, 0.0))
                })
                .collect(),
            published: false,
        })
        .filter(|b| b.values.iter().any(Option::is_some))
        .collect();
    let labels = Labels {
        title: "tpch power test: seconds per query and refresh function",
        x: "step",
        y: "seconds (lower is better)",
    };
    bars_unless_empty(&labels, &steps, &power)
}

/// Grouped bars, or nothing when no series has a value.
fn bars_unless_empty(labels: &Labels, groups: &[String], series: &[BarSeries]) -> Option<String> {
    let axis = chart::value_axis(series);
    (!series.is_empty()).then(|| chart::grouped_bars(labels, groups, series, axis))
}

/// The metrics under DBT-3's rules, a bar per group, the published ones beside for `dbt3`.
fn metrics_chart(r: &RunResult, all: &[(String, String, f64)]) -> Option<String> {
    let figures = ["Power@Size", "Throughput@Size", "QphH@Size"];
    let mut metrics: Vec<BarSeries> = all
        .iter()
        .map(|g| {
            let who = format!("{} SF {}", g.0, sf_label(g.2));
            BarSeries {
                name: group_name(g),
                values: figures
                    .iter()
                    .map(|f| metric(r, &who, &format!("{f} (dbt3)")).map(|v| (v, 0.0)))
                    .collect(),
                published: false,
            }
        })
        .filter(|b| b.values.iter().any(Option::is_some))
        .collect();
    if metrics.is_empty() {
        return None;
    }
    let published = (r.preset.as_deref() == Some("dbt3"))
        .then(published::dbt3_postgresql)
        .flatten();
    if let Some(p) = published {
        metrics.push(BarSeries {
            name: format!("published postgres SF {}", sf_label(p.scale_factor)),
            values: vec![
                Some((p.power, 0.0)),
                Some((p.throughput, 0.0)),
                Some((p.composite, 0.0)),
            ],
            published: true,
        });
    }
    let labels = Labels {
        title: "tpch metrics, DBT-3's rules (higher is better)",
        x: "metric",
        y: "queries per hour x SF",
    };
    bars_unless_empty(&labels, &figures.map(String::from), &metrics)
}

/// Load and power seconds against the scale factor, one line per engine and level, when
/// several scale factors ran.
fn scaling_charts(r: &RunResult, all: &[(String, String, f64)]) -> Vec<String> {
    let mut charts = Vec::new();
    // One line per engine and level through its SFs.
    fn add_point(lines: &mut Vec<LineSeries>, name: String, point: (f64, f64, f64)) {
        match lines.iter_mut().find(|l| l.name == name) {
            Some(l) => l.points.push(point),
            None => lines.push(LineSeries {
                name,
                points: vec![point],
                published: false,
            }),
        }
    }
    let (mut load_lines, mut power_lines) = (Vec::new(), Vec::new());
    for g in all {
        let label = format!("{} {}", g.0, g.1);
        if let Some(m) = in_group(r, g).find(|m| test_of(m) == "load" && m.step == "load total") {
            add_point(&mut load_lines, label.clone(), (g.2, m.seconds_mean, 0.0));
        }
        let power: f64 = in_group(r, g)
            .filter(|m| test_of(m) == "power")
            .map(|m| m.seconds_mean)
            .sum();
        if power > 0.0 {
            add_point(&mut power_lines, label, (g.2, power, 0.0));
        }
    }
    let several = |lines: &[LineSeries]| lines.iter().any(|l| l.points.len() > 1);
    if several(&load_lines) || several(&power_lines) {
        let sfs: Vec<f64> = {
            let mut v: Vec<f64> = all.iter().map(|g| g.2).collect();
            v.sort_by(f64::total_cmp);
            v.dedup();
            v
        };
        for (title, y, series) in [
            (
                "tpch scaling: load test seconds per scale factor",
                "seconds to load (tables, keys, statistics)",
                &load_lines,
            ),
            (
                "tpch scaling: power test seconds per scale factor",
                "seconds for the power test",
                &power_lines,
            ),
        ] {
            charts.push(chart::lines(
                &Labels {
                    title,
                    x: "scale factor",
                    y,
                },
                series,
                AxisKind::Log,
                AxisKind::Log,
                &sfs,
            ));
        }
    }
    charts
}

/// The tpch section: its tables hold the metrics; the page adds the charts and the latency of
/// each query.
pub struct TpchView;

impl View for TpchView {
    fn parts(&self, r: &RunResult, _: &[Verdict]) -> Vec<Part> {
        vec![
            Part::Terminal(render(r)),
            Part::html(html(r)),
            parts::over_time(r),
            parts::latency_page(r),
        ]
    }

    fn derived(&self) -> bool {
        false
    }

    /// The metrics under TPC-H's rules, one line per engine and scale factor.
    fn headline(&self, r: &RunResult) -> Vec<String> {
        let mut lines: Vec<(String, Vec<String>)> = Vec::new();
        for m in r.metrics.iter().filter(|m| m.name.ends_with(" (tpch)")) {
            let who = m.engine.clone().unwrap_or_default();
            let name = m.name.trim_end_matches(" (tpch)").trim_end_matches("@Size");
            let figure = format!("{name} {:.1}", m.value);
            match lines.iter_mut().find(|(w, _)| *w == who) {
                Some((_, figures)) => figures.push(figure),
                None => lines.push((who, vec![figure])),
            }
        }
        (lines.into_iter())
            .map(|(who, figures)| format!("{who}: {} (TPC-H's rules)", figures.join(", ")))
            .collect()
    }
}
