//! The self-contained HTML report: one file, no script, font or network; charts as inline SVG.
//! Made from result files only, so any set of runs can be reported again later.

mod over_time;
pub mod throughput;

use super::compare;
use super::markup::escape;
use super::view::{Verdict, View};
use crate::results::{store, RunResult};
use crate::units::thousands;
use anyhow::{bail, Result};
pub use over_time::over_time;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The view of a run, by the workload its result file names (whoever reads result files knows
/// the workloads; the report does not).
pub type Views<'a> = &'a dyn Fn(&str) -> &'static dyn View;

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
pub fn write(loaded: &[Loaded], out: &Path, views: Views) -> Result<usize> {
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
    let html = render(loaded, views);
    let tmp = out.with_extension("html.tmp");
    std::fs::write(&tmp, html)?;
    std::fs::rename(&tmp, out)?;
    Ok(runs)
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
table.summary td:nth-child(3){min-width:20em}
@media print{body{max-width:none;margin:0}h2{page-break-before:auto}svg.chart{page-break-inside:avoid}}
"#;

/// The runs of each workload, workloads by name, runs as given.
fn workloads<'a>(runs: &[&'a RunResult]) -> Vec<(&'a str, Vec<&'a RunResult>)> {
    let mut out: Vec<(&str, Vec<&RunResult>)> = Vec::new();
    for r in runs {
        match out.iter_mut().find(|(w, _)| *w == r.workload) {
            Some((_, list)) => list.push(r),
            None => out.push((&r.workload, vec![r])),
        }
    }
    out.sort_by_key(|(w, _)| *w);
    out
}

/// The answer first: per run its headline figures, against the papers' and against the first
/// run of its workload.
fn summary(workloads: &[(&str, Vec<&RunResult>)], views: Views) -> String {
    let mut s = String::from(
        "<h2 id=summary>Summary</h2><table class=summary><tr><th>workload</th><th>run</th>\
         <th>headline</th><th>against the papers and earlier runs</th></tr>",
    );
    for (w, runs) in workloads {
        for (i, r) in runs.iter().enumerate() {
            let lines: Vec<String> = (views(w).headline(r).iter()).map(|l| escape(l)).collect();
            let mut against: Vec<String> =
                super::summary::against_published(r).into_iter().collect();
            if i > 0 {
                against.extend(super::summary::against_run(runs[0], r));
            }
            let against: Vec<String> = against.iter().map(|a| escape(a)).collect();
            let _ = write!(
                s,
                "<tr><td><a href=\"#{0}\">{0}</a></td><td>{1} {2}</td><td>{3}</td><td>{4}</td></tr>",
                escape(w),
                escape(&r.run_id),
                status_badge(r),
                lines.join("<br>"),
                against.join("<br>"),
            );
        }
    }
    s.push_str("</table>");
    s
}

pub fn render(loaded: &[Loaded], views: Views) -> String {
    let runs: Vec<&RunResult> = loaded.iter().filter_map(|l| l.run.as_ref().ok()).collect();
    let mut body = String::new();
    let mut charts = 0usize;

    let _ = write!(
        body,
        "<h1>hakari report</h1><p class=note>{} run(s), made {} from result files. Figures are ops/s \
         (mean ± sample stddev over runs) unless marked. Published figures are from the papers' \
         old machines: references, not targets. Where the runs were made (environment, engines, \
         settings) is at the end.</p>",
        runs.len(),
        crate::results::time::now_rfc3339()
    );
    let workloads = workloads(&runs);
    body.push_str(&summary(&workloads, views));

    let verdicts = verdicts(&runs, views);
    for (w, of_workload) in &workloads {
        let _ = write!(body, "<h2 id=\"{0}\">Workload: {0}</h2>", escape(w));
        for r in of_workload {
            let (html, n) = run_section(r, views(&r.workload), &verdicts);
            body.push_str(&html);
            charts += n;
        }
        if of_workload.len() > 1 {
            body.push_str(&comparison(of_workload));
        }
    }
    body.push_str("<h2 id=provenance>Where the runs were made</h2>");
    body.push_str(&runs_table(loaded));
    body.push_str(&environment_table(&runs));
    body.push_str(&engines_table(&runs));
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>hakari report</title>\
         <meta name=\"viewport\" content=\"width=device-width\"><style>{STYLE}</style></head>\
         <body data-charts=\"{charts}\">{body}</body></html>\n"
    )
}

fn status_badge(r: &RunResult) -> String {
    if r.complete {
        "<span class=badge>complete</span>".into()
    } else if r.abandoned() == Some(true) {
        "<span class=\"badge incomplete\">incomplete: its process ended without finishing</span>"
            .into()
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
        "<h3>Test environment</h3><table><tr><th>run</th><th>processor</th><th>cores</th><th>RAM</th>\
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
    // The TLS column where some run reached a server (embedded engines have no wire).
    let servers = (runs.iter()).any(|r| r.engines.iter().any(|e| e.settings.contains_key("tls")));
    let mut t = format!(
        "<h3>Engines and durability mapping</h3><table><tr><th>run</th><th>engine</th><th>version</th>\
         <th>durability</th>{}<th>what the level sets</th><th>effective settings</th></tr>",
        if servers { "<th>TLS</th>" } else { "" }
    );
    for r in runs {
        for e in &r.engines {
            let settings: Vec<String> =
                e.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let tls = match servers {
                true => format!("<td>{}</td>", escape(e.tls())),
                false => String::new(),
            };
            let _ = write!(
                t,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}<td>{}</td><td><code>{}</code></td></tr>",
                escape(&r.run_id),
                escape(&e.engine),
                escape(&e.version),
                escape(&e.durability),
                tls,
                escape(&e.durability_mapping),
                escape(&settings.join(", ")),
            );
        }
    }
    t.push_str("</table>");
    t
}

/// Every verdict the runs give others' rows (the newest run's, per engine, level and kind).
fn verdicts(runs: &[&RunResult], views: Views) -> Vec<Verdict> {
    let mut newest_first = runs.to_vec();
    newest_first.sort_by(|a, b| b.started_at.cmp(&a.started_at));
    let mut out: Vec<Verdict> = Vec::new();
    for r in newest_first {
        for v in views(&r.workload).verdicts(r) {
            if !(out.iter()).any(|o| o.matches(&v.engine, &v.level) && o.kind == v.kind) {
                out.push(v);
            }
        }
    }
    out
}

/// One run's tables and charts; returns the HTML and how many charts it drew.
fn run_section(r: &RunResult, view: &dyn View, verdicts: &[Verdict]) -> (String, usize) {
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
    if r.measurements.is_empty() {
        s.push_str("<p class=problem>This run finished no measurement.</p>");
        return (s, 0);
    }
    for part in view.parts(r, verdicts).into_iter().chain([
        crate::report::costs::part(r),
        crate::report::view::Part::html(crate::report::resources::charts(r)),
    ]) {
        let (html, drawn) = part.page();
        s.push_str(&html);
        charts += drawn;
    }
    if !r.metrics.is_empty() && view.derived() {
        s.push_str(&crate::report::tables::derived(r).html());
    }
    for n in &r.notes {
        let _ = write!(s, "<p class=note>note: {}</p>", escape(n));
    }
    for e in &r.errors {
        let _ = write!(s, "<p class=problem>error: {}</p>", escape(e));
    }
    (s, charts)
}

/// Each later run of a workload against the first, figure by figure; "" when no run shares a
/// figure with the first (unrelated runs are not compared).
fn comparison(runs: &[&RunResult]) -> String {
    let base = runs[0];
    let mut s = String::new();
    for other in &runs[1..] {
        let changes = compare::compare(base, other);
        if changes.is_empty() {
            continue;
        }
        let _ = write!(
            s,
            "<p>{} vs {}: {} shared figure(s)</p>",
            escape(&base.run_id),
            escape(&other.run_id),
            changes.len()
        );
        s.push_str("<table><tr><th>figure</th><th>base ops/s</th><th>±</th><th>new ops/s</th><th>±</th><th>change</th><th></th></tr>");
        for c in changes {
            let _ = write!(
                s,
                "<tr><td>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{:+.1}%</td><td>{}</td></tr>",
                escape(&c.figure),
                thousands(c.base.mean),
                thousands(c.base.sd),
                thousands(c.new.mean),
                thousands(c.new.sd),
                c.percent(),
                escape(&c.significance().remark())
            );
        }
        s.push_str("</table>");
    }
    if s.is_empty() {
        return s;
    }
    format!(
        "<h3>Comparison against run {}</h3>{s}<p class=note>{}.</p>",
        escape(&base.run_id),
        escape(super::significance::RULE)
    )
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
