//! Charts as inline SVG, made in Rust so the report needs no script or network: grouped bars with
//! stddev whiskers, and lines on linear or log axes. Every chart has a title, axis names with
//! units, and a legend.

mod scale;
mod stacked;
mod timeline;

use super::markup::escape;
pub use scale::{nice_step, tick_label, Scale};
pub use stacked::{stacked, Band};
use std::fmt::Write;
pub use timeline::{timeline, Bar, Lane};

const WIDTH: f64 = 880.0;
const HEIGHT: f64 = 380.0;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 200.0; // room for the legend
const TOP: f64 = 40.0;
const BOTTOM: f64 = 70.0;

const PALETTE: [&str; 10] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#7f7f7f",
];

/// Published figures are drawn in this colour, hatched, so they never pass for fresh ones.
pub const PUBLISHED_COLOR: &str = "#555555";

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AxisKind {
    Linear,
    Log,
}

/// A log value axis when the bars' positive values span more than two decades (a linear one
/// would flatten the small ones to nothing), else linear.
pub fn value_axis(series: &[BarSeries]) -> AxisKind {
    axis_for(
        series
            .iter()
            .flat_map(|s| s.values.iter().flatten().map(|v| v.0)),
    )
}

/// A log axis when `values`' positive ones span more than two decades, else linear.
pub fn axis_for(values: impl Iterator<Item = f64>) -> AxisKind {
    let (lo, hi) = (values.filter(|v| *v > 0.0)).fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if hi / lo > 100.0 {
        AxisKind::Log
    } else {
        AxisKind::Linear
    }
}

/// One series of a grouped bar chart: a value (mean, stddev) per group, or none.
pub struct BarSeries {
    pub name: String,
    pub values: Vec<Option<(f64, f64)>>,
    pub published: bool,
}

/// One line: points (x, y, stddev of y).
pub struct LineSeries {
    pub name: String,
    pub points: Vec<(f64, f64, f64)>,
    pub published: bool,
}

pub struct Labels<'a> {
    pub title: &'a str,
    pub x: &'a str,
    pub y: &'a str,
}

fn open_svg(out: &mut String, labels: &Labels) {
    let _ = write!(
        out,
        r#"<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{t}"><title>{t}</title><defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="{PUBLISHED_COLOR}" fill-opacity="0.25"/><line x1="0" y1="0" x2="0" y2="6" stroke="{PUBLISHED_COLOR}" stroke-width="3"/></pattern></defs><text x="{cx}" y="22" class="title" text-anchor="middle">{t}</text>"#,
        t = escape(labels.title),
        cx = (LEFT + WIDTH - RIGHT) / 2.0,
    );
    let _ = write!(
        out,
        r#"<text x="{cx}" y="{y}" class="axis-name" text-anchor="middle">{x}</text><text transform="translate(18 {cy}) rotate(-90)" class="axis-name" text-anchor="middle">{yl}</text>"#,
        cx = (LEFT + WIDTH - RIGHT) / 2.0,
        y = HEIGHT - 12.0,
        x = escape(labels.x),
        cy = (TOP + HEIGHT - BOTTOM) / 2.0,
        yl = escape(labels.y),
    );
}

fn y_axis(out: &mut String, scale: &Scale) {
    for t in scale.ticks() {
        let y = scale.px(t);
        let _ = write!(
            out,
            r##"<line x1="{LEFT}" x2="{x2}" y1="{y:.1}" y2="{y:.1}" class="grid"/><text x="{tx}" y="{ty:.1}" text-anchor="end" class="tick">{label}</text>"##,
            x2 = WIDTH - RIGHT,
            tx = LEFT - 6.0,
            ty = y + 4.0,
            label = tick_label(t),
        );
    }
    frame(out);
}

/// The plot's left and bottom axis lines.
fn frame(out: &mut String) {
    let _ = write!(
        out,
        r#"<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{b}" class="axis"/><line x1="{LEFT}" x2="{r}" y1="{b}" y2="{b}" class="axis"/>"#,
        b = HEIGHT - BOTTOM,
        r = WIDTH - RIGHT,
    );
}

/// A legend key: a swatch of the bar's fill, or a line sample with the series' dash.
struct Key {
    name: String,
    color: String,
    /// For a line chart's series: its stroke-dasharray ("" for a solid line).
    line_dash: Option<&'static str>,
}

/// The picture finished: the legend to the right of the plot, then its end. Long names wrap
/// onto further lines (21 characters each) rather than running out of the picture.
fn legend(mut out: String, keys: &[Key]) -> String {
    let mut y = TOP;
    let x = WIDTH - RIGHT + 14.0;
    for key in keys {
        let swatch = match key.line_dash {
            Some(dash) => format!(
                r#"<line x1="{x}" x2="{x2}" y1="{ym}" y2="{ym}" stroke="{c}" stroke-width="2" stroke-dasharray="{dash}"/>"#,
                x2 = x + 14.0,
                ym = y + 6.0,
                c = key.color,
            ),
            None => format!(
                r#"<rect x="{x}" y="{y}" width="12" height="12" fill="{}"/>"#,
                key.color
            ),
        };
        let lines = wrap(&key.name, 21);
        let mut text = String::new();
        for (j, line) in lines.iter().enumerate() {
            let _ = write!(
                text,
                r#"<tspan x="{tx}" dy="{dy}">{}</tspan>"#,
                escape(line),
                tx = x + 20.0,
                dy = if j == 0 { 0.0 } else { 13.0 },
            );
        }
        let _ = write!(
            out,
            r#"<g class="legend">{swatch}<text x="{tx}" y="{ty}">{text}</text></g>"#,
            tx = x + 20.0,
            ty = y + 10.0,
        );
        y += 13.0 * lines.len() as f64 + 6.0;
    }
    out.push_str("</svg>");
    out
}

/// Splits `text` at spaces into lines of at most `width` characters (a longer word stays whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// A grey band over the x range `from..to`, named.
fn shaded(out: &mut String, xs: &Scale, (from, to, name): (f64, f64, &str)) {
    let (a, b) = (xs.px(from.max(xs.min)), xs.px(to));
    let _ = write!(
        out,
        r##"<rect x="{a:.1}" y="{TOP}" width="{w:.1}" height="{h}" fill="#000" fill-opacity="0.07"/><text x="{tx:.1}" y="{ty}" class="tick" text-anchor="middle">{n}</text>"##,
        w = (b - a).max(0.0),
        h = HEIGHT - BOTTOM - TOP,
        tx = (a + b) / 2.0,
        ty = TOP + 12.0,
        n = escape(name),
    );
}

/// Published lines are grey; each gets its own dash so several can be told apart.
const PUBLISHED_DASHES: [&str; 4] = ["6 4", "2 3", "10 3 2 3", "12 6"];

fn fill_of(i: usize, published: bool) -> String {
    if published {
        "url(#hatch)".into()
    } else {
        PALETTE[i % PALETTE.len()].into()
    }
}

/// Grouped bars (one group per `groups` entry, one bar per series) with stddev whiskers.
pub fn grouped_bars(
    labels: &Labels,
    groups: &[String],
    series: &[BarSeries],
    y_kind: AxisKind,
) -> String {
    let mut out = String::new();
    open_svg(&mut out, labels);
    let values = series.iter().flat_map(|s| s.values.iter().flatten());
    let hi = values.clone().map(|(m, sd)| m + sd).fold(0.0, f64::max);
    let lo = values
        .map(|(m, _)| *m)
        .filter(|m| *m > 0.0)
        .fold(f64::INFINITY, f64::min);
    let scale = Scale::covering(y_kind, lo, hi, HEIGHT - BOTTOM, TOP);
    y_axis(&mut out, &scale);
    let plot_w = WIDTH - RIGHT - LEFT;
    let group_w = plot_w / groups.len().max(1) as f64;
    let bar_w = (group_w * 0.8) / series.len().max(1) as f64;
    for (g, name) in groups.iter().enumerate() {
        let gx = LEFT + group_w * g as f64;
        let _ = write!(
            out,
            r#"<text x="{x:.1}" y="{y}" text-anchor="middle" class="tick">{name}</text>"#,
            x = gx + group_w / 2.0,
            y = HEIGHT - BOTTOM + 16.0,
            name = escape(name),
        );
        for (s, ser) in series.iter().enumerate() {
            let Some((mean, sd)) = ser.values.get(g).copied().flatten() else {
                continue;
            };
            let x = gx + group_w * 0.1 + bar_w * s as f64;
            let y = scale.px(mean);
            let base = scale.px(scale.min);
            let _ = write!(
                out,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{fill}"><title>{n}: {v}</title></rect>"#,
                w = (bar_w - 1.0).max(1.0),
                h = (base - y).max(0.0),
                fill = fill_of(s, ser.published),
                n = escape(&ser.name),
                v = tick_label(mean),
            );
            if sd > 0.0 {
                let cx = x + bar_w / 2.0;
                let (y1, y2) = (scale.px((mean - sd).max(scale.min)), scale.px(mean + sd));
                let _ = write!(
                    out,
                    r#"<path d="M{cx:.1} {y1:.1}V{y2:.1}M{a:.1} {y1:.1}H{b:.1}M{a:.1} {y2:.1}H{b:.1}" class="whisker"/>"#,
                    a = cx - 3.0,
                    b = cx + 3.0,
                );
            }
        }
    }
    let keys: Vec<Key> = series
        .iter()
        .enumerate()
        .map(|(i, s)| Key {
            name: s.name.clone(),
            color: fill_of(i, s.published),
            line_dash: None,
        })
        .collect();
    legend(out, &keys)
}

/// Lines through (x, y) points, with stddev whiskers, on linear or log axes. `x_ticks` names the
/// ticks (thread counts, sizes) where they matter; empty means automatic.
/// Tick marks and labels along the x axis.
fn x_axis(out: &mut String, xs: &Scale, ticks: &[f64]) {
    for &t in ticks {
        let x = xs.px(t);
        let _ = write!(
            out,
            r#"<line x1="{x:.1}" x2="{x:.1}" y1="{b}" y2="{b2}" class="axis"/><text x="{x:.1}" y="{ty}" text-anchor="middle" class="tick">{label}</text>"#,
            b = HEIGHT - BOTTOM,
            b2 = HEIGHT - BOTTOM + 4.0,
            ty = HEIGHT - BOTTOM + 18.0,
            label = tick_label(t),
        );
    }
}

pub fn lines(
    labels: &Labels,
    series: &[LineSeries],
    x_kind: AxisKind,
    y_kind: AxisKind,
    x_ticks: &[f64],
) -> String {
    lines_shaded(labels, series, x_kind, y_kind, x_ticks, &[])
}

/// Lines over shaded stretches of the x axis `(from, to, name)`, such as a warm-up or a fault.
pub fn lines_shaded(
    labels: &Labels,
    series: &[LineSeries],
    x_kind: AxisKind,
    y_kind: AxisKind,
    x_ticks: &[f64],
    shades: &[(f64, f64, &str)],
) -> String {
    let mut out = String::new();
    open_svg(&mut out, labels);
    let points = series.iter().flat_map(|s| s.points.iter());
    let x_hi = points.clone().map(|p| p.0).fold(0.0, f64::max);
    let x_lo = points
        .clone()
        .map(|p| p.0)
        .filter(|x| *x > 0.0)
        .fold(f64::INFINITY, f64::min);
    let y_hi = points.clone().map(|p| p.1 + p.2).fold(0.0, f64::max);
    let y_lo = points
        .map(|p| p.1)
        .filter(|y| *y > 0.0)
        .fold(f64::INFINITY, f64::min);
    let xs = Scale::covering(x_kind, x_lo, x_hi, LEFT, WIDTH - RIGHT);
    let ys = Scale::covering(y_kind, y_lo, y_hi, HEIGHT - BOTTOM, TOP);
    y_axis(&mut out, &ys);
    let ticks = if x_ticks.is_empty() {
        xs.ticks()
    } else {
        x_ticks.to_vec()
    };
    x_axis(&mut out, &xs, &ticks);
    for &shade in shades {
        shaded(&mut out, &xs, shade);
    }
    let mut keys = Vec::new();
    let mut published_seen = 0;
    for (i, s) in series.iter().enumerate() {
        let color = if s.published {
            PUBLISHED_COLOR.to_string()
        } else {
            PALETTE[i % PALETTE.len()].to_string()
        };
        let mut pts: Vec<&(f64, f64, f64)> = s.points.iter().collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let path: Vec<String> = pts
            .iter()
            .enumerate()
            .map(|(j, p)| {
                format!(
                    "{}{:.1} {:.1}",
                    if j == 0 { "M" } else { "L" },
                    xs.px(p.0),
                    ys.px(p.1)
                )
            })
            .collect();
        let dash = if s.published {
            published_seen += 1;
            PUBLISHED_DASHES[(published_seen - 1) % PUBLISHED_DASHES.len()]
        } else {
            ""
        };
        let _ = write!(
            out,
            r#"<path d="{}" fill="none" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/>"#,
            path.join("")
        );
        for p in pts {
            let (x, y) = (xs.px(p.0), ys.px(p.1));
            let _ = write!(
                out,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="{color}"><title>{n}: {xl}, {yl}</title></circle>"#,
                n = escape(&s.name),
                xl = tick_label(p.0),
                yl = tick_label(p.1),
            );
            if p.2 > 0.0 {
                let _ = write!(
                    out,
                    r#"<path d="M{x:.1} {a:.1}V{b:.1}" class="whisker"/>"#,
                    a = ys.px((p.1 - p.2).max(ys.min)),
                    b = ys.px(p.1 + p.2),
                );
            }
        }
        keys.push(Key {
            name: s.name.clone(),
            color,
            line_dash: Some(dash),
        });
    }
    legend(out, &keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_lines_differ_and_long_legend_names_wrap() {
        let labels = Labels {
            title: "t",
            x: "x",
            y: "y",
        };
        let series: Vec<LineSeries> = [
            "MySQL 2008 LONGBLOB (published)",
            "Oracle 2008 LOB (published)",
            "Oracle 2008 LOB gzip (published)",
        ]
        .iter()
        .map(|n| LineSeries {
            name: n.to_string(),
            points: vec![(1.0, 1.0, 0.0), (2.0, 2.0, 0.0)],
            published: true,
        })
        .collect();
        let svg = lines(
            &labels,
            &series,
            AxisKind::Linear,
            AxisKind::Linear,
            &[1.0, 2.0],
        );
        for dash in &PUBLISHED_DASHES[..3] {
            assert_eq!(
                svg.matches(&format!("stroke-dasharray=\"{dash}\"")).count(),
                2,
                "one line and its legend key with dash {dash}"
            );
        }
        // Every word of every name is in the picture, none cut.
        assert!(svg.contains(">MySQL 2008 LONGBLOB</tspan>"), "{svg}");
        assert!(svg.contains(">(published)</tspan>"));
        assert_eq!(wrap("a bb ccc", 4), ["a bb", "ccc"]);
        assert_eq!(
            wrap("averyveryverylongword x", 5),
            ["averyveryverylongword", "x"]
        );
    }

    #[test]
    fn nice_steps_are_1_2_5() {
        for (input, expected) in [
            (0.7, 1.0),
            (1.0, 1.0),
            (1.3, 2.0),
            (3.0, 5.0),
            (7.0, 10.0),
            (45_000.0, 50_000.0),
            (0.012, 0.02),
        ] {
            assert_eq!(nice_step(input), expected, "nice_step({input:?})");
        }
    }

    #[test]
    fn linear_scale_starts_at_zero_and_ends_round() {
        let s = Scale::covering(AxisKind::Linear, 693.0, 264_665.0, 300.0, 40.0);
        assert_eq!(s.min, 0.0);
        assert_eq!(s.max, 300_000.0);
        assert_eq!(s.ticks(), vec![0.0, 100_000.0, 200_000.0, 300_000.0]);
        assert_eq!(s.px(0.0), 300.0);
        assert_eq!(s.px(300_000.0), 40.0);
        assert!((s.px(150_000.0) - 170.0).abs() < 1e-9);
    }

    #[test]
    fn log_scale_spans_whole_decades() {
        let s = Scale::covering(AxisKind::Log, 1_024.0, 1_000_000.0, 0.0, 600.0);
        assert_eq!((s.min, s.max), (1_000.0, 1_000_000.0));
        assert_eq!(s.ticks(), vec![1e3, 1e4, 1e5, 1e6]);
        assert!(
            (s.px(10_000.0) - 200.0).abs() < 1e-9,
            "a decade is a third of the axis"
        );
        assert!((s.px(100_000.0) - 400.0).abs() < 1e-9);
        // Values below the axis are pinned to its start, not drawn off the chart.
        assert_eq!(s.px(1.0), 0.0);
    }

    #[test]
    fn tick_labels_are_short() {
        for (input, expected) in [
            (0.0, "0"),
            (250.0, "250"),
            (1_500.0, "1.5k"),
            (2_000_000.0, "2M"),
            (0.25, "0.25"),
        ] {
            assert_eq!(tick_label(input), expected, "tick_label({input:?})");
        }
    }

    #[test]
    fn charts_have_title_axes_legend_and_escape_text() {
        let labels = Labels {
            title: "ops <&> s",
            x: "step",
            y: "ops/s",
        };
        let svg = grouped_bars(
            &labels,
            &["fetch".into(), "insert".into()],
            &[
                BarSeries {
                    name: "bdb <sync>".into(),
                    values: vec![Some((100.0, 5.0)), None],
                    published: false,
                },
                BarSeries {
                    name: "paper".into(),
                    values: vec![Some((80.0, 0.0)), Some((50.0, 1.0))],
                    published: true,
                },
            ],
            AxisKind::Linear,
        );
        assert!(svg.starts_with("<svg class=\"chart\""));
        assert!(svg.contains("ops &lt;&amp;&gt; s"));
        assert!(svg.contains("bdb &lt;sync&gt;"));
        assert_eq!(
            svg.matches("<rect x=").count(),
            3 + 2,
            "three bars and two legend keys"
        );
        assert!(svg.contains("url(#hatch)"));
        let line = lines(
            &labels,
            &[LineSeries {
                name: "tps".into(),
                points: vec![(1.0, 10.0, 1.0), (4.0, 30.0, 0.0)],
                published: false,
            }],
            AxisKind::Log,
            AxisKind::Linear,
            &[1.0, 4.0],
        );
        assert_eq!(line.matches("<circle").count(), 2);
        assert!(line.contains(">4</text>"), "named ticks are drawn");
        assert!(line.ends_with("</svg>"));
    }
}
