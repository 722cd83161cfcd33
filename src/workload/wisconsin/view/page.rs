//! The Wisconsin benchmark: table 7's shape and a bar chart per query.

use super as w;
use crate::report::chart::{self, BarSeries, Labels};
use crate::report::markup::escape;
use crate::results::RunResult;
use std::fmt::Write;

/// Table 7's shape (queries as rows, engines as columns, ms) and a bar chart per query.
pub fn wisconsin_section(r: &RunResult) -> (String, usize) {
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
    s.push_str(&bars(r, &columns, &rows));
    (s, 1)
}

/// A bar per engine column for each query, table 7's figures beside.
fn bars(r: &RunResult, columns: &[w::Column], rows: &[w::QueryRow]) -> String {
    let ms = &r.measurements;
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
    for c in columns {
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
    chart::grouped_bars(
        &Labels {
            title: "wisconsin: elapsed ms per query",
            x: "query",
            y: "milliseconds (lower is better)",
        },
        &groups,
        &series,
        y_kind,
    )
}
