//! Throughput workloads (kv, tpcb): configurations as rows and steps as columns, the papers'
//! figures beneath, bars per step and lines against threads.

use super::super::chart::{self, AxisKind, BarSeries, Labels, LineSeries};
use super::super::markup::escape;
use super::super::published;
use super::super::throughput::{Sources, Throughput};
use super::super::view::Verdict;
use crate::results::RunResult;
use crate::units::thousands;
use std::fmt::Write;

/// Configurations as rows and steps as columns, with the paper's figures beneath; bars per step
/// and lines against threads.
pub fn throughput_body(r: &RunResult, verdicts: &[Verdict]) -> (String, usize) {
    let view = Throughput::of(r);
    let mut s = table(&view, verdicts);
    s.push_str(&bars(&view));
    let (lines, drawn) = lines_by_threads(&view);
    s.push_str(&lines);
    (s, 1 + drawn)
}

/// Configurations as rows, steps as columns, published rows beneath.
fn table(view: &Throughput, verdicts: &[Verdict]) -> String {
    let mut s = String::new();
    // The crash test's verdict for the same engine and level, when one is in the report.
    let show_verdicts = view.configs.iter().any(|(e, d, _)| {
        verdicts
            .iter()
            .any(|v| v.matches(e, super::super::level_of(d)))
    });
    s.push_str(&header(&view.steps, show_verdicts));
    let mut sources = Sources::default();
    for (i, (engine, durability, threads)) in view.configs.iter().enumerate() {
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td class=n>{}</td>",
            escape(engine),
            escape(durability),
            threads
        );
        let mut published_row = String::new();
        let mut any = false;
        for cell in view.row(i) {
            match cell.measured {
                Some(m) => {
                    let (mean, sd) = (m.ops_per_sec_mean, m.ops_per_sec_stddev);
                    let (mean, sd) = (thousands(mean), thousands(sd));
                    let _ = write!(s, "<td class=n>{mean}</td><td class=n>{sd}</td>");
                }
                None => s.push_str("<td></td><td></td>"),
            }
            match (cell.measured, &cell.published) {
                (Some(m), Some(p)) => {
                    any = true;
                    let _ = write!(
                        published_row,
                        "<td class=n>{}</td><td class=n>ratio {:.2}</td>",
                        thousands(p.mean),
                        m.ops_per_sec_mean / p.mean
                    );
                    sources.note(p);
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
    for src in &sources.0 {
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
fn bars(view: &Throughput) -> String {
    let name = |(e, d, t): &(String, String, usize)| format!("{e} {d} t{t}");
    let mut series: Vec<BarSeries> = (view.configs.iter().enumerate())
        .map(|(i, config)| BarSeries {
            name: name(config),
            values: (view.row(i).iter())
                .map(|c| {
                    c.measured
                        .map(|m| (m.ops_per_sec_mean, m.ops_per_sec_stddev))
                })
                .collect(),
            published: false,
        })
        .collect();
    for (i, config) in view.configs.iter().enumerate() {
        let values: Vec<Option<(f64, f64)>> = (view.row(i).iter())
            .map(|c| {
                c.published
                    .as_ref()
                    .map(|p| (p.mean, p.stddev.unwrap_or(0.0)))
            })
            .collect();
        if values.iter().any(Option::is_some) {
            series.push(BarSeries {
                name: format!("paper: {}", name(config)),
                values,
                published: true,
            });
        }
    }
    let y_kind = chart::value_axis(&series);
    let log = if y_kind == AxisKind::Log {
        " (log scale)"
    } else {
        ""
    };
    let title = format!("{}: throughput per step{log}", view.run.workload);
    let labels = Labels {
        title: &title,
        x: "step",
        y: "operations per second",
    };
    chart::grouped_bars(&labels, &view.steps, &series, y_kind)
}

/// Lines against threads (clients) when several counts ran; returns them and how many.
fn lines_by_threads(view: &Throughput) -> (String, usize) {
    let thread_counts = view.thread_counts();
    if thread_counts.len() < 2 {
        return (String::new(), 0);
    }
    let ms = &view.run.measurements;
    let preset = view.run.preset.as_deref();
    let ticks: Vec<f64> = thread_counts.iter().map(|t| *t as f64).collect();
    let mut s = String::new();
    for st in &view.steps {
        let mut lines: Vec<LineSeries> = Vec::new();
        for (e, d) in view.lines_of(st) {
            let points: Vec<(f64, f64, f64)> = ms
                .iter()
                .filter(|m| &m.step == st && m.engine == e && view.label(m) == d)
                .map(|m| (m.threads as f64, m.ops_per_sec_mean, m.ops_per_sec_stddev))
                .collect();
            // The paper's figure at every count that ran, including counts this line lacks.
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
        let title = format!("{}: {st} throughput vs threads", view.run.workload);
        let labels = Labels {
            title: &title,
            x: "threads (clients), each with its own handle",
            y: "operations per second",
        };
        s.push_str(&chart::lines(
            &labels,
            &lines,
            AxisKind::Linear,
            AxisKind::Log,
            &ticks,
        ));
    }
    (s, view.steps.len())
}

/// The crash test's verdicts for an engine and level, as one cell.
fn verdict_cell(verdicts: &[Verdict], engine: &str, durability: &str) -> String {
    let level = super::super::level_of(durability);
    let found: Vec<&Verdict> = verdicts
        .iter()
        .filter(|v| v.matches(engine, level))
        .collect();
    let class = if found.iter().any(|v| v.broken) {
        " class=problem"
    } else {
        ""
    };
    let text: Vec<&str> = found.iter().map(|v| v.text.as_str()).collect();
    format!("<td{class}>{}</td>", escape(&text.join("; ")))
}
