//! The session store: seconds per step against session size, the source's series beside.

use super::SessionRow;
use crate::report::chart::{self, AxisKind, Labels, LineSeries};
use crate::report::markup::escape;
use crate::report::published;
use crate::results::{Measurement, RunResult};
use std::fmt::Write;

/// The session store: seconds per step against session size on log axes (the source's chart),
/// one line per engine, level, layout, compression and client count; the source's series hatched.
pub fn session_body(r: &RunResult) -> (String, usize) {
    let mut s = String::new();
    let ms = &r.measurements;
    let size = |m: &Measurement| m.config.get("size").and_then(|v| v.as_u64()).unwrap_or(0);
    let sizes = super::sizes(ms);
    let rows = super::rows(ms);
    let mut charts = 0;
    for step in ["write", "read"] {
        let keys: Vec<&SessionRow> = rows.iter().filter(|k| k.5 == step).collect();
        if keys.is_empty() {
            continue;
        }
        s.push_str(&header(&sizes));
        let mut lines = Vec::new();
        let mut drawn_published: Vec<(String, String)> = Vec::new();
        for k in &keys {
            let of_key: Vec<&Measurement> = ms.iter().filter(|m| super::row_of(m) == **k).collect();
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
                lines.extend(published_lines(&k.2, &k.3, step));
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

/// The source's series for a layout, compression and step, as lines.
fn published_lines(layout: &str, compress: &str, step: &str) -> Vec<LineSeries> {
    published::session_store(layout, compress, step)
        .into_iter()
        .map(|series| LineSeries {
            name: format!("2008: {}", series.label),
            points: series
                .seconds
                .iter()
                .map(|(sz, v)| (*sz as f64, *v, 0.0))
                .collect(),
            published: true,
        })
        .collect()
}

/// The table's header: the labels, then a column per session size.
fn header(sizes: &[u64]) -> String {
    let mut s = String::from("<table><tr><th>engine</th><th>durability</th><th>layout</th><th>compress</th><th>clients</th>");
    for sz in sizes {
        let _ = write!(s, "<th>{} s</th>", crate::units::bytes(*sz));
    }
    s.push_str("</tr>");
    s
}
