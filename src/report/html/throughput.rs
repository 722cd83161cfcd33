//! Throughput workloads (kv, tpcb): configurations as rows and steps as columns, the papers'
//! figures beneath, bars per step and lines against threads.

use super::super::chart::{self, AxisKind, BarSeries, Labels, LineSeries};
use super::super::markup::escape;
use super::super::published;
use super::CrashVerdict;
use crate::results::{Measurement, RunResult};
use crate::units::thousands;
use std::fmt::Write;

/// Configurations as rows and steps as columns, with the paper's figures beneath; bars per step
/// and lines against threads.
pub(super) fn throughput_body(r: &RunResult, verdicts: &[CrashVerdict]) -> (String, usize) {
    let view = View::of(r);
    let mut s = table(&view, verdicts);
    s.push_str(&bars(&view));
    let mut charts = 1;
    let (lines, drawn) = lines_by_threads(&view);
    s.push_str(&lines);
    charts += drawn;
    (s, charts)
}

/// What the table and charts of one run share.
struct View<'a> {
    r: &'a RunResult,
    ms: &'a [Measurement],
    steps: Vec<String>,
    configs: Vec<(String, String, usize)>,
    varying: Vec<String>,
    preset: Option<&'a str>,
}

impl<'a> View<'a> {
    fn of(r: &'a RunResult) -> View<'a> {
        let ms = &r.measurements;
        View {
            r,
            ms,
            steps: super::super::step_columns(ms),
            configs: super::super::configurations(ms),
            varying: super::super::varying_config(ms),
            preset: r.preset.as_deref(),
        }
    }

    fn label(&self, m: &Measurement) -> String {
        super::super::durability_label(m, &self.varying)
    }
}

/// Configurations as rows, steps as columns, published rows beneath.
fn table(view: &View, verdicts: &[CrashVerdict]) -> String {
    let View {
        ms,
        steps,
        configs,
        preset,
        ..
    } = view;
    let preset = *preset;
    let label = |m: &Measurement| view.label(m);
    let mut s = String::new();
    // The crash test's verdict for the same engine and level, when one is in the report.
    let show_verdicts = configs.iter().any(|(e, d, _)| {
        verdicts
            .iter()
            .any(|v| v.matches(e, super::super::level_of(d)))
    });
    s.push_str(&header(steps, show_verdicts));
    let mut sources: Vec<String> = Vec::new();
    for (engine, durability, threads) in configs.iter() {
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td class=n>{}</td>",
            escape(engine),
            escape(durability),
            threads
        );
        let mut published_row = String::new();
        let mut any = false;
        for st in steps.iter() {
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
                published::for_figure(
                    preset,
                    engine,
                    super::super::level_of(durability),
                    *threads,
                    st,
                ),
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
            s.push_str(&verdict_cell(verdicts, engine, durability));
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
    s
}

/// The table's header: the labels, a mean and a stddev per step, the verdict when shown.
fn header(steps: &[String], show_verdicts: bool) -> String {
    let mut s = String::from("<table><tr><th>engine</th><th>durability</th><th>threads</th>");
    for st in steps {
        let _ = write!(s, "<th>{} ops/s</th><th>stddev</th>", escape(st));
    }
    if show_verdicts {
        s.push_str("<th>crash test: promise</th>");
    }
    s.push_str("</tr>");
    s
}

/// Grouped bars: one group per step, one bar per configuration, the paper's figures beside.
fn bars(view: &View) -> String {
    let View {
        r,
        ms,
        steps,
        configs,
        preset,
        ..
    } = view;
    let preset = *preset;
    let label = |m: &Measurement| view.label(m);
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
    for (e, d, t) in configs.iter() {
        let values: Vec<Option<(f64, f64)>> = steps
            .iter()
            .map(|st| {
                published::for_figure(preset, e, super::super::level_of(d), *t, st)
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
    chart::grouped_bars(
        &Labels {
            title: &title,
            x: "step",
            y: "operations per second",
        },
        steps,
        &series,
        y_kind,
    )
}

/// Lines against threads (clients) when several counts ran; returns them and how many.
fn lines_by_threads(view: &View) -> (String, usize) {
    let View {
        r,
        ms,
        steps,
        preset,
        ..
    } = view;
    let preset = *preset;
    let label = |m: &Measurement| view.label(m);
    let mut s = String::new();
    let mut charts = 0;
    let mut thread_counts: Vec<usize> = ms.iter().map(|m| m.threads).collect();
    thread_counts.sort();
    thread_counts.dedup();
    if thread_counts.len() > 1 {
        let ticks: Vec<f64> = thread_counts.iter().map(|t| *t as f64).collect();
        for st in steps.iter() {
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
                        published::for_figure(preset, &e, super::super::level_of(&d), *t, st)
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

/// The crash test's verdicts for an engine and level, as one cell.
fn verdict_cell(verdicts: &[CrashVerdict], engine: &str, durability: &str) -> String {
    let level = super::super::level_of(durability);
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
    format!("<td{class}>{}</td>", escape(&found.join("; ")))
}
