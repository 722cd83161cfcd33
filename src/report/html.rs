//! The self-contained HTML report: one file, no script, font or network; charts as inline SVG.
//! Made from result files only, so any set of runs can be reported again later.

use super::chart::{self, AxisKind, BarSeries, Labels, LineSeries};
use super::compare;
use super::published;
use crate::results::{store, Measurement, RunResult};
use crate::units::thousands;
use anyhow::{bail, Result};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// A result file as read: the run, or why it could not be read.
pub struct Loaded {
    pub path: PathBuf,
    pub run: Result<RunResult, String>,
}

/// Reads every result file named (folders expanded to their `*.json`), keeping the failures.
pub fn load(paths: &[PathBuf]) -> Result<Vec<Loaded>> {
    Ok(store::expand(paths)?
        .into_iter()
        .map(|path| {
            let run = store::read(&path).map_err(|e| format!("{e:#}"));
            Loaded { path, run }
        })
        .collect())
}

/// Writes the report for `loaded` to `out`; fails only when no run could be read.
pub fn write(loaded: &[Loaded], out: &Path) -> Result<usize> {
    let runs = loaded.iter().filter(|l| l.run.is_ok()).count();
    if runs == 0 {
        let why: Vec<String> = loaded
            .iter()
            .filter_map(|l| l.run.as_ref().err().map(|e| e.to_string()))
            .collect();
        bail!(
            "no result file could be read{}",
            if why.is_empty() {
                String::new()
            } else {
                format!(": {}", why.join("; "))
            }
        );
    }
    let html = render(loaded);
    let tmp = out.with_extension("html.tmp");
    std::fs::write(&tmp, html)?;
    std::fs::rename(&tmp, out)?;
    Ok(runs)
}

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = r#"
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{margin-bottom:0}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.8em 0;font-size:.88em;display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid #ccc;padding:.25em .55em;vertical-align:top}th{background:#f3f3f3;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}
h4{margin:1.2em 0 .2em;font-size:.95em}
.published td{color:#555;font-style:italic;background:#fafafa}
.badge{display:inline-block;padding:0 .5em;border-radius:.6em;font-size:.8em;color:#fff;background:#2a7}
.badge.incomplete{background:#c33}.problem{color:#a00}.note{color:#555}
svg.chart{width:100%;max-width:880px;height:auto;display:block;margin:1em 0}
svg .title{font-weight:bold;font-size:15px}svg .axis-name{font-size:12px;fill:#333}
svg .tick{font-size:11px;fill:#444}svg .grid{stroke:#e4e4e4}svg .axis{stroke:#333}
svg .whisker{stroke:#000;stroke-width:1.2;fill:none}svg .legend text{font-size:12px}
code{font-size:.85em;word-break:break-all}
@media print{body{max-width:none;margin:0}h2{page-break-before:auto}svg.chart{page-break-inside:avoid}}
"#;

pub fn render(loaded: &[Loaded]) -> String {
    let runs: Vec<&RunResult> = loaded.iter().filter_map(|l| l.run.as_ref().ok()).collect();
    let mut body = String::new();
    let mut charts = 0usize;

    let _ = write!(
        body,
        "<h1>hakari report</h1><p class=note>{} run(s), made {} from result files. Figures are ops/s \
         (mean ± sample stddev over runs) unless marked. Published figures are from the papers' \
         old machines: references, not targets.</p>",
        runs.len(),
        crate::results::time::now_rfc3339()
    );
    body.push_str(&runs_table(loaded));
    body.push_str(&environment_table(&runs));
    body.push_str(&engines_table(&runs));

    let verdicts = crash_verdicts(&runs);
    let mut workloads: Vec<&str> = runs.iter().map(|r| r.workload.as_str()).collect();
    workloads.dedup();
    workloads.sort();
    workloads.dedup();
    for w in workloads {
        let of_workload: Vec<&RunResult> =
            runs.iter().copied().filter(|r| r.workload == w).collect();
        let _ = write!(body, "<h2 id=\"{0}\">Workload: {0}</h2>", escape(w));
        for r in &of_workload {
            let (html, n) = run_section(r, &verdicts);
            body.push_str(&html);
            charts += n;
        }
        if of_workload.len() > 1 {
            body.push_str(&comparison(&of_workload));
        }
    }
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>hakari report</title>\
         <meta name=\"viewport\" content=\"width=device-width\"><style>{STYLE}</style></head>\
         <body data-charts=\"{charts}\">{body}</body></html>\n"
    )
}

fn status_badge(r: &RunResult) -> String {
    if r.complete {
        "<span class=badge>complete</span>".into()
    } else {
        format!(
            "<span class=\"badge incomplete\">incomplete: {}</span>",
            escape(&r.status)
        )
    }
}

fn runs_table(loaded: &[Loaded]) -> String {
    let mut t = String::from(
        "<table><tr><th>run</th><th>workload</th><th>preset</th><th>status</th><th>started</th><th>seed</th><th>command</th></tr>",
    );
    for l in loaded {
        match &l.run {
            Ok(r) => {
                let _ = write!(
                    t,
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
                    escape(&r.run_id),
                    escape(&r.workload),
                    escape(r.preset.as_deref().unwrap_or("-")),
                    status_badge(r),
                    escape(&r.started_at),
                    r.seed,
                    escape(&r.command_line.join(" ")),
                );
            }
            Err(e) => {
                let _ = write!(
                    t,
                    "<tr class=problem><td colspan=7>{}: could not be read: {}</td></tr>",
                    escape(&l.path.display().to_string()),
                    escape(e)
                );
            }
        }
    }
    t.push_str("</table>");
    t
}

/// Shaped like the papers' "test environment" tables.
fn environment_table(runs: &[&RunResult]) -> String {
    let mut t = String::from(
        "<h2>Test environment</h2><table><tr><th>run</th><th>processor</th><th>cores</th><th>RAM</th>\
         <th>operating system</th><th>kernel</th><th>file system</th><th>storage</th><th>fsync ceiling</th><th>build</th></tr>",
    );
    for r in runs {
        let e = &r.environment;
        let _ = write!(
            t,
            "<tr><td>{}</td><td>{}</td><td class=n>{}</td><td class=n>{:.1} GiB</td><td>{}</td><td>{}</td><td>{} on {}</td><td>{}</td><td class=n>{}</td><td>{}</td></tr>",
            escape(&r.run_id),
            escape(&e.cpu_model),
            e.cpu_cores,
            e.memory_bytes as f64 / (1u64 << 30) as f64,
            escape(&e.os),
            escape(&e.kernel),
            escape(&e.filesystem),
            escape(&e.mount_point),
            escape(&e.device),
            e.sync_ceiling
                .as_ref()
                .map(|c| format!("{} fsync/s", thousands(c.fsync_per_sec)))
                .unwrap_or_else(|| "-".into()),
            escape(&e.build_profile),
        );
    }
    t.push_str("</table>");
    for r in runs {
        for w in &r.environment.warnings {
            let _ = write!(
                t,
                "<p class=problem>{}: {}</p>",
                escape(&r.run_id),
                escape(w)
            );
        }
    }
    t
}

fn engines_table(runs: &[&RunResult]) -> String {
    let mut t = String::from(
        "<h2>Engines and durability mapping</h2><table><tr><th>run</th><th>engine</th><th>version</th>\
         <th>durability</th><th>what the level sets</th><th>effective settings</th></tr>",
    );
    for r in runs {
        for e in &r.engines {
            let settings: Vec<String> =
                e.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let _ = write!(
                t,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
                escape(&r.run_id),
                escape(&e.engine),
                escape(&e.version),
                escape(&e.durability),
                escape(&e.durability_mapping),
                escape(&settings.join(", ")),
            );
        }
    }
    t.push_str("</table>");
    t
}

/// Engine, level (with the config fields that vary between the run's measurements: size,
/// layout, compression, table sets) and threads: what tells one configuration from another.
fn config_label(m: &Measurement, varying: &[String]) -> String {
    format!(
        "{} {} t{}",
        m.engine,
        super::durability_label(m, varying),
        m.threads
    )
}

/// One run's tables and charts; returns the HTML and how many charts it drew.
fn run_section(r: &RunResult, verdicts: &[CrashVerdict]) -> (String, usize) {
    let mut s = String::new();
    let mut charts = 0;
    let _ = write!(
        s,
        "<h3>Run {} {} {}</h3>",
        escape(&r.run_id),
        r.preset
            .as_deref()
            .map(|p| format!("(preset {})", escape(p)))
            .unwrap_or_default(),
        status_badge(r)
    );
    let ms = &r.measurements;
    if ms.is_empty() {
        s.push_str("<p class=problem>This run finished no measurement.</p>");
        return (s, 0);
    }
    let (body, drawn) = match r.workload.as_str() {
        "session" => session_body(r),
        "crashtest" => (crashtest_body(r), 0),
        "tpch" => super::tpch::html(r),
        "wisconsin" => wisconsin_section(r),
        _ => throughput_body(r, verdicts),
    };
    s.push_str(&body);
    charts += drawn;

    // Latency percentiles (a Wisconsin run's are its query times, already in its table).
    if r.workload != "wisconsin" && ms.iter().any(|m| m.latency.is_some()) {
        let varying = super::varying_config(ms);
        s.push_str("<table><tr><th>configuration</th><th>step</th><th>p50 µs</th><th>p95 µs</th><th>p99 µs</th><th>p99.9 µs</th><th>max µs</th><th>retries</th></tr>");
        for m in ms {
            if let Some(l) = &m.latency {
                let _ = write!(
                    s,
                    "<tr><td>{}</td><td>{}</td><td class=n>{:.2}</td><td class=n>{:.2}</td><td class=n>{:.2}</td><td class=n>{:.2}</td><td class=n>{:.2}</td><td class=n>{}</td></tr>",
                    escape(&config_label(m, &varying)),
                    escape(&m.step),
                    l.p50_us,
                    l.p95_us,
                    l.p99_us,
                    l.p999_us,
                    l.max_us,
                    m.retries
                );
            }
        }
        s.push_str("</table>");
    }
    // A tpch section shows its metrics in its own tables.
    if !r.metrics.is_empty() && r.workload != "tpch" {
        s.push_str("<table><tr><th>engine</th><th>derived figure</th><th>value</th></tr>");
        for m in &r.metrics {
            let _ = write!(
                s,
                "<tr><td>{}</td><td>{}</td><td class=n>{:.3} {}</td></tr>",
                escape(m.engine.as_deref().unwrap_or("")),
                escape(&m.name),
                m.value,
                escape(if m.unit == "ratio" { "" } else { &m.unit })
            );
        }
        s.push_str("</table>");
    }
    for n in &r.notes {
        let _ = write!(s, "<p class=note>note: {}</p>", escape(n));
    }
    for e in &r.errors {
        let _ = write!(s, "<p class=problem>error: {}</p>", escape(e));
    }
    (s, charts)
}

/// Configurations as rows and steps as columns, with the paper's figures beneath; bars per step
/// and lines against threads.
fn throughput_body(r: &RunResult, verdicts: &[CrashVerdict]) -> (String, usize) {
    let mut s = String::new();
    let mut charts = 0;
    let ms = &r.measurements;
    let steps = super::step_columns(ms);
    let configs = super::configurations(ms);
    let varying = super::varying_config(ms);
    let label = |m: &Measurement| super::durability_label(m, &varying);
    let preset = r.preset.as_deref();

    // The table: configurations as rows, steps as columns, published rows beneath.
    s.push_str("<table><tr><th>engine</th><th>durability</th><th>threads</th>");
    for st in &steps {
        let _ = write!(s, "<th>{} ops/s</th><th>stddev</th>", escape(st));
    }
    // The crash test's verdict for the same engine and level, when one is in the report.
    let show_verdicts = configs
        .iter()
        .any(|(e, d, _)| verdicts.iter().any(|v| v.matches(e, super::level_of(d))));
    if show_verdicts {
        s.push_str("<th>crash test: promise</th>");
    }
    s.push_str("</tr>");
    let mut sources: Vec<String> = Vec::new();
    for (engine, durability, threads) in &configs {
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td class=n>{}</td>",
            escape(engine),
            escape(durability),
            threads
        );
        let mut published_row = String::new();
        let mut any = false;
        for st in &steps {
            let m = ms.iter().find(|m| {
                &m.engine == engine
                    && &label(m) == durability
                    && m.threads == *threads
                    && &m.step == st
            });
            match m {
                Some(m) => {
                    let _ = write!(
                        s,
                        "<td class=n>{}</td><td class=n>{}</td>",
                        thousands(m.ops_per_sec_mean),
                        thousands(m.ops_per_sec_stddev)
                    );
                }
                None => s.push_str("<td></td><td></td>"),
            }
            match (
                m,
                published::for_figure(preset, engine, super::level_of(durability), *threads, st),
            ) {
                (Some(m), Some(p)) => {
                    any = true;
                    let _ = write!(
                        published_row,
                        "<td class=n>{}</td><td class=n>ratio {:.2}</td>",
                        thousands(p.mean),
                        m.ops_per_sec_mean / p.mean
                    );
                    if !sources.contains(&p.source) {
                        sources.push(p.source);
                    }
                }
                _ => published_row.push_str("<td></td><td></td>"),
            }
        }
        if show_verdicts {
            let level = super::level_of(durability);
            let found: Vec<String> = verdicts
                .iter()
                .filter(|v| v.matches(engine, level))
                .map(|v| format!("{}: {}", v.crash, v.verdict))
                .collect();
            let class = if found.iter().any(|f| f.contains("BROKEN")) {
                " class=problem"
            } else {
                ""
            };
            let _ = write!(s, "<td{class}>{}</td>", escape(&found.join("; ")));
            published_row.push_str("<td></td>");
        }
        s.push_str("</tr>");
        if any {
            let _ = write!(
                s,
                "<tr class=published><td colspan=3>published (paper)</td>{published_row}</tr>"
            );
        }
    }
    s.push_str("</table>");
    for src in &sources {
        let _ = write!(
            s,
            "<p class=note>published: {}; ratio = this machine / paper.</p>",
            escape(src)
        );
    }

    // Grouped bars: one group per step, one bar per configuration, the paper's figures beside.
    let mut series: Vec<BarSeries> = configs
        .iter()
        .map(|(e, d, t)| BarSeries {
            name: format!("{e} {d} t{t}"),
            values: steps
                .iter()
                .map(|st| {
                    ms.iter()
                        .find(|m| {
                            &m.engine == e && &label(m) == d && m.threads == *t && &m.step == st
                        })
                        .map(|m| (m.ops_per_sec_mean, m.ops_per_sec_stddev))
                })
                .collect(),
            published: false,
        })
        .collect();
    for (e, d, t) in &configs {
        let values: Vec<Option<(f64, f64)>> = steps
            .iter()
            .map(|st| {
                published::for_figure(preset, e, super::level_of(d), *t, st)
                    .map(|p| (p.mean, p.stddev.unwrap_or(0.0)))
            })
            .collect();
        if values.iter().any(Option::is_some) {
            series.push(BarSeries {
                name: format!("paper: {e} {d} t{t}"),
                values,
                published: true,
            });
        }
    }
    let y_kind = chart::value_axis(&series);
    let title = format!(
        "{}: throughput per step{}",
        r.workload,
        if y_kind == AxisKind::Log {
            " (log scale)"
        } else {
            ""
        }
    );
    s.push_str(&chart::grouped_bars(
        &Labels {
            title: &title,
            x: "step",
            y: "operations per second",
        },
        &steps,
        &series,
        y_kind,
    ));
    charts += 1;

    // Lines against threads/clients when several counts ran.
    let mut thread_counts: Vec<usize> = ms.iter().map(|m| m.threads).collect();
    thread_counts.sort();
    thread_counts.dedup();
    if thread_counts.len() > 1 {
        let ticks: Vec<f64> = thread_counts.iter().map(|t| *t as f64).collect();
        for st in &steps {
            let mut keys: Vec<(String, String)> = Vec::new();
            for m in ms.iter().filter(|m| &m.step == st) {
                let k = (m.engine.clone(), label(m));
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
            let mut lines: Vec<LineSeries> = Vec::new();
            for (e, d) in keys {
                let points: Vec<(f64, f64, f64)> = ms
                    .iter()
                    .filter(|m| &m.step == st && m.engine == e && label(m) == d)
                    .map(|m| (m.threads as f64, m.ops_per_sec_mean, m.ops_per_sec_stddev))
                    .collect();
                let paper: Vec<(f64, f64, f64)> = thread_counts
                    .iter()
                    .filter_map(|t| {
                        published::for_figure(preset, &e, super::level_of(&d), *t, st)
                            .map(|p| (*t as f64, p.mean, p.stddev.unwrap_or(0.0)))
                    })
                    .collect();
                lines.push(LineSeries {
                    name: format!("{e} {d}"),
                    points,
                    published: false,
                });
                if paper.len() > 1 {
                    lines.push(LineSeries {
                        name: format!("paper: {e} {d}"),
                        points: paper,
                        published: true,
                    });
                }
            }
            let title = format!("{}: {st} throughput vs threads", r.workload);
            s.push_str(&chart::lines(
                &Labels {
                    title: &title,
                    x: "threads (clients), each with its own handle",
                    y: "operations per second",
                },
                &lines,
                AxisKind::Linear,
                AxisKind::Log,
                &ticks,
            ));
            charts += 1;
        }
    }

    (s, charts)
}

/// Table 7's shape (queries as rows, engines as columns, ms) and a bar chart per query.
fn wisconsin_section(r: &RunResult) -> (String, usize) {
    use super::wisconsin as w;
    let ms = &r.measurements;
    let columns = w::columns(ms);
    let rows = w::rows(ms);
    let mut s = format!(
        "<p class=note>Elapsed ms per query: mean ± sample stddev (min) over runs; {} tuples, result mode {}.</p>",
        escape(&w::parameter(r, "tuples")),
        escape(&w::parameter(r, "result_mode"))
    );
    s.push_str("<table><tr><th>#</th><th>query</th>");
    let beside: Vec<bool> = columns
        .iter()
        .map(|c| rows.iter().any(|q| w::published_for(r, c, q).is_some()))
        .collect();
    for (c, p) in columns.iter().zip(&beside) {
        let _ = write!(s, "<th>{} ms</th><th>min</th>", escape(&c.label));
        if *p {
            s.push_str("<th>table 7 ms</th>");
        }
    }
    s.push_str("</tr>");
    let mut sources: Vec<String> = Vec::new();
    for q in &rows {
        let _ = write!(
            s,
            "<tr><td class=n>{}</td><td>{}</td>",
            q.number,
            escape(&q.step)
        );
        for (c, p) in columns.iter().zip(&beside) {
            match w::cell(ms, q, c) {
                Some(cell) => {
                    let _ = write!(
                        s,
                        "<td class=\"n{}\">{}{} ± {}</td><td class=n>{}</td>",
                        if cell.wrong { " problem" } else { "" },
                        if cell.wrong { "WRONG " } else { "" },
                        w::ms(cell.mean_ms),
                        w::ms(cell.stddev_ms),
                        w::ms(cell.min_ms)
                    );
                }
                None => s.push_str("<td></td><td></td>"),
            }
            if *p {
                match w::published_for(r, c, q) {
                    Some(p) => {
                        let _ = write!(s, "<td class=n><i>{}</i></td>", w::ms(p.mean));
                        if !sources.contains(&p.source) {
                            sources.push(p.source);
                        }
                    }
                    None => s.push_str("<td></td>"),
                }
            }
        }
        s.push_str("</tr>");
    }
    s.push_str("</table>");
    for src in &sources {
        let _ = write!(
            s,
            "<p class=note>table 7: {}, mean of 10 runs.</p>",
            escape(src)
        );
    }
    let groups: Vec<String> = rows.iter().map(|q| format!("q{}", q.number)).collect();
    let mut series: Vec<BarSeries> = columns
        .iter()
        .map(|c| BarSeries {
            name: c.label.clone(),
            values: rows
                .iter()
                .map(|q| w::cell(ms, q, c).map(|x| (x.mean_ms, x.stddev_ms)))
                .collect(),
            published: false,
        })
        .collect();
    for c in &columns {
        let values: Vec<Option<(f64, f64)>> = rows
            .iter()
            .map(|q| w::published_for(r, c, q).map(|p| (p.mean, 0.0)))
            .collect();
        if values.iter().any(Option::is_some) {
            series.push(BarSeries {
                name: format!("table 7: {}", c.label),
                values,
                published: true,
            });
        }
    }
    let y_kind = chart::value_axis(&series);
    s.push_str(&chart::grouped_bars(
        &Labels {
            title: "wisconsin: elapsed ms per query",
            x: "query",
            y: "milliseconds (lower is better)",
        },
        &groups,
        &series,
        y_kind,
    ));
    (s, 1)
}

/// A crash test's verdict for an engine at a level, to show beside throughput figures.
pub struct CrashVerdict {
    engine: String,
    level: String,
    crash: String,
    verdict: String,
}

impl CrashVerdict {
    fn matches(&self, engine: &str, level: &str) -> bool {
        self.engine == engine && self.level == level
    }
}

/// Every verdict of the crash-test runs in the report (the newest run's, per engine, level and
/// kind of crash).
fn crash_verdicts(runs: &[&RunResult]) -> Vec<CrashVerdict> {
    let mut out: Vec<CrashVerdict> = Vec::new();
    let mut crash_runs: Vec<&&RunResult> =
        runs.iter().filter(|r| r.workload == "crashtest").collect();
    crash_runs.sort_by(|a, b| b.started_at.cmp(&a.started_at));
    for r in crash_runs {
        for m in &r.measurements {
            let crash = super::config_text(m, "crash");
            let crash = if crash.starts_with("power") {
                "power loss"
            } else {
                "process crash"
            };
            let v = CrashVerdict {
                engine: m.engine.clone(),
                level: m.durability.clone(),
                crash: crash.into(),
                verdict: super::config_text(m, "verdict"),
            };
            if !out
                .iter()
                .any(|o| o.matches(&v.engine, &v.level) && o.crash == v.crash)
            {
                out.push(v);
            }
        }
    }
    out
}

/// The crash test: one row per engine, level and kind of crash, with the verdict.
fn crashtest_body(r: &RunResult) -> String {
    let mut s = String::from(
        "<table><tr><th>engine</th><th>durability</th><th>crash</th><th>verdict</th><th>rounds</th>\
         <th>acknowledged</th><th>lost (total)</th><th>lost (max)</th><th>corruptions</th></tr>",
    );
    for m in &r.measurements {
        let c = |k: &str| escape(&super::config_text(m, k));
        let verdict = super::config_text(m, "verdict");
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td{}>{}</td><td class=n>{}</td><td class=n>{}</td>\
             <td class=n>{}</td><td class=n>{}</td><td class=n>{}</td></tr>",
            escape(&m.engine),
            escape(&m.durability),
            c("crash"),
            if verdict.contains("BROKEN") {
                " class=problem"
            } else {
                ""
            },
            escape(&verdict),
            c("rounds"),
            c("acknowledged"),
            c("lost_total"),
            c("lost_max"),
            c("corruptions"),
        );
    }
    s.push_str("</table><p class=note>Verdicts against each level's promise (sync: nothing lost; \
        write-nosync: nothing lost when only the process dies; nosync and in-memory: recent commits \
        may go). Where the same report holds throughput of an engine and level, its table shows the \
        verdict beside it.</p>");
    s
}

/// The session store: seconds per step against session size on log axes (the source's chart),
/// one line per engine, level, layout, compression and client count; the source's series hatched.
fn session_body(r: &RunResult) -> (String, usize) {
    let mut s = String::new();
    let ms = &r.measurements;
    let text = super::config_text;
    let size = |m: &Measurement| m.config.get("size").and_then(|v| v.as_u64()).unwrap_or(0);
    let mut sizes: Vec<u64> = ms.iter().map(size).collect();
    sizes.sort();
    sizes.dedup();
    let mut charts = 0;
    for step in ["write", "read"] {
        let mut keys: Vec<(String, String, String, String, usize)> = Vec::new();
        for m in ms.iter().filter(|m| m.step == step) {
            let k = (
                m.engine.clone(),
                m.durability.clone(),
                text(m, "layout"),
                text(m, "compress"),
                m.threads,
            );
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        if keys.is_empty() {
            continue;
        }
        s.push_str("<table><tr><th>engine</th><th>durability</th><th>layout</th><th>compress</th><th>clients</th>");
        for sz in &sizes {
            let _ = write!(s, "<th>{} s</th>", crate::units::bytes(*sz));
        }
        s.push_str("</tr>");
        let mut lines = Vec::new();
        let mut drawn_published: Vec<(String, String)> = Vec::new();
        for k in &keys {
            let of_key: Vec<&Measurement> = ms
                .iter()
                .filter(|m| {
                    m.step == step
                        && m.engine == k.0
                        && m.durability == k.1
                        && text(m, "layout") == k.2
                        && text(m, "compress") == k.3
                        && m.threads == k.4
                })
                .collect();
            let _ = write!(
                s,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=n>{}</td>",
                escape(&k.0),
                escape(&k.1),
                escape(&k.2),
                escape(&k.3),
                k.4
            );
            for sz in &sizes {
                match of_key.iter().find(|m| size(m) == *sz) {
                    Some(m) => {
                        let _ = write!(
                            s,
                            "<td class=n>{:.3} ± {:.3}</td>",
                            m.seconds_mean, m.seconds_stddev
                        );
                    }
                    None => s.push_str("<td></td>"),
                }
            }
            s.push_str("</tr>");
            lines.push(LineSeries {
                name: format!("{} {} {} {} c{}", k.0, k.1, k.2, k.3, k.4),
                points: of_key
                    .iter()
                    .map(|m| (size(m) as f64, m.seconds_mean, m.seconds_stddev))
                    .collect(),
                published: false,
            });
            if !drawn_published.contains(&(k.2.clone(), k.3.clone())) {
                drawn_published.push((k.2.clone(), k.3.clone()));
                for series in published::session_store(&k.2, &k.3, step) {
                    lines.push(LineSeries {
                        name: format!("2008: {}", series.label),
                        points: series
                            .seconds
                            .iter()
                            .map(|(sz, v)| (*sz as f64, *v, 0.0))
                            .collect(),
                        published: true,
                    });
                }
            }
        }
        s.push_str("</table>");
        let title = format!("session store: seconds to {step} vs session size (log-log)");
        let ticks: Vec<f64> = sizes.iter().map(|v| *v as f64).collect();
        s.push_str(&chart::lines(
            &Labels {
                title: &title,
                x: "bytes of text per session",
                y: if step == "write" {
                    "seconds for the writes"
                } else {
                    "seconds for the reads"
                },
            },
            &lines,
            AxisKind::Log,
            AxisKind::Log,
            &ticks,
        ));
        charts += 1;
    }
    s.push_str("<p class=note>Published lines: the 2008 session-store blog (Perl DBI on a Core2 VM, 1 run each), a reference, not a target.</p>");
    (s, charts)
}

fn comparison(runs: &[&RunResult]) -> String {
    let base = runs[0];
    let mut s = format!("<h3>Comparison against run {}</h3>", escape(&base.run_id));
    for other in &runs[1..] {
        let changes = compare::compare(base, other);
        let _ = write!(
            s,
            "<p>{} vs {}: {} shared figure(s)</p>",
            escape(&base.run_id),
            escape(&other.run_id),
            changes.len()
        );
        if changes.is_empty() {
            continue;
        }
        s.push_str("<table><tr><th>figure</th><th>base ops/s</th><th>±</th><th>new ops/s</th><th>±</th><th>change</th><th></th></tr>");
        for c in changes {
            let _ = write!(
                s,
                "<tr><td>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{:+.1}%</td><td>{}</td></tr>",
                escape(&c.figure),
                thousands(c.base_mean),
                thousands(c.base_stddev),
                thousands(c.new_mean),
                thousands(c.new_stddev),
                c.percent(),
                if c.significant() { "" } else { "not significant" }
            );
        }
        s.push_str("</table>");
    }
    s.push_str("<p class=note>not significant: the change is within sqrt(sd_base² + sd_new²), the runs' own noise.</p>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }
}
