//! Shares stacked over time: for each span of the x axis (an interval), the bands' shares of
//! the whole laid one on another up to 100% (what a server's sessions were waiting on, interval
//! by interval).

use super::{escape, frame, legend, open_svg, x_axis, AxisKind, Key, Labels, Scale, PALETTE};
use super::{BOTTOM, HEIGHT, LEFT, RIGHT, TOP, WIDTH};
use std::fmt::Write;

/// One band: its name and its share (0..1) in each span of the chart, in the order of `spans`.
pub struct Band {
    pub name: String,
    pub shares: Vec<f64>,
}

/// `bands` stacked in order, the first at the bottom, over the spans `(from, to)` of the x axis
/// (each band has a share for each span).
pub fn stacked(labels: &Labels, spans: &[(f64, f64)], bands: &[Band]) -> String {
    let mut out = String::new();
    open_svg(&mut out, labels);
    let hi = spans.iter().map(|s| s.1).fold(0.0, f64::max).max(1e-3);
    let x = Scale::covering(AxisKind::Linear, 0.0, hi, LEFT, WIDTH - RIGHT);
    let y = |share: f64| HEIGHT - BOTTOM - share.clamp(0.0, 1.0) * (HEIGHT - BOTTOM - TOP);
    for pct in [0, 25, 50, 75, 100] {
        let _ = write!(
            out,
            r#"<line x1="{LEFT}" x2="{r}" y1="{py:.1}" y2="{py:.1}" class="grid"/><text x="{tx}" y="{ty:.1}" text-anchor="end" class="tick">{pct}%</text>"#,
            r = WIDTH - RIGHT,
            py = y(pct as f64 / 100.0),
            tx = LEFT - 6.0,
            ty = y(pct as f64 / 100.0) + 4.0,
        );
    }
    x_axis(&mut out, &x, &x.ticks());
    let mut below = vec![0.0; spans.len()];
    let mut keys = Vec::new();
    for (i, band) in bands.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        for (j, ((from, to), share)) in spans.iter().zip(&band.shares).enumerate() {
            let (a, b) = (x.px(*from), x.px(*to));
            let (top, bottom) = (y(below[j] + share), y(below[j]));
            let _ = write!(
                out,
                r##"<rect x="{a:.1}" y="{top:.1}" width="{w:.1}" height="{h:.1}" fill="{color}" stroke="#fff" stroke-width="0.5"><title>{n}: {p:.0}% from {f} s to {t} s</title></rect>"##,
                w = (b - a).max(0.5),
                h = (bottom - top).max(0.0),
                n = escape(&band.name),
                p = share * 100.0,
                f = super::tick_label(*from),
                t = super::tick_label(*to),
            );
            below[j] += share;
        }
        keys.push(Key {
            name: band.name.clone(),
            color: color.into(),
            line_dash: None,
        });
    }
    frame(&mut out);
    legend(out, &keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bands_fill_the_chart_to_their_sum() {
        let labels = Labels {
            title: "waits",
            x: "s",
            y: "share",
        };
        let bands = [
            Band {
                name: "CPU:running".into(),
                shares: vec![0.5, 0.25],
            },
            Band {
                name: "IO:WALSync".into(),
                shares: vec![0.5, 0.75],
            },
        ];
        let svg = stacked(&labels, &[(0.0, 1.0), (1.0, 2.0)], &bands);
        // A block per band and span; the second band's blocks reach the chart's top: 100%.
        let blocks: Vec<&str> = svg.split("<rect x=").skip(1).take(4).collect();
        assert_eq!(blocks.len(), 4, "{svg}");
        let top = format!("y=\"{:.1}\"", TOP);
        assert!(blocks[2..].iter().all(|b| b.contains(&top)), "{svg}");
        assert!(!blocks[..2].iter().any(|b| b.contains(&top)), "{svg}");
        assert!(svg.contains("IO:WALSync: 75% from 1 s to 2 s") && svg.ends_with("</svg>"));
    }
}
