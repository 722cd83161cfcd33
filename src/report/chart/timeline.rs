//! A timeline: one lane per stream, a bar for each thing it ran, placed at its start and as
//! long as it took (the TPC-H throughput test's streams, which query each ran when).

use super::{escape, open_svg, tick_label, x_axis, AxisKind, Labels, Scale, PALETTE};
use super::{BOTTOM, HEIGHT, LEFT, RIGHT, TOP, WIDTH};
use std::fmt::Write;

/// One thing a lane ran: from `start` for `seconds`, named `label`; bars of one `group` share a
/// colour (a query number, say).
pub struct Bar {
    pub start: f64,
    pub seconds: f64,
    pub label: String,
    pub group: usize,
}

pub struct Lane {
    pub name: String,
    pub bars: Vec<Bar>,
}

pub fn timeline(labels: &Labels, lanes: &[Lane]) -> String {
    let mut out = String::new();
    open_svg(&mut out, labels);
    let end = lanes
        .iter()
        .flat_map(|l| l.bars.iter().map(|b| b.start + b.seconds))
        .fold(0.0, f64::max);
    let xs = Scale::covering(AxisKind::Linear, 0.0, end.max(1e-3), LEFT, WIDTH - RIGHT);
    x_axis(&mut out, &xs, &xs.ticks());
    let height = (HEIGHT - BOTTOM - TOP) / lanes.len().max(1) as f64;
    for (i, lane) in lanes.iter().enumerate() {
        let y = TOP + i as f64 * height;
        let _ = write!(
            out,
            r#"<text x="{tx}" y="{ty:.1}" text-anchor="end" class="tick">{}</text>"#,
            escape(&lane.name),
            tx = LEFT - 6.0,
            ty = y + height / 2.0 + 4.0,
        );
        for bar in &lane.bars {
            let (a, b) = (xs.px(bar.start), xs.px(bar.start + bar.seconds));
            let _ = write!(
                out,
                r##"<rect x="{a:.1}" y="{y1:.1}" width="{w:.1}" height="{h:.1}" fill="{c}" stroke="#fff" stroke-width="0.5"><title>{name}: {l} from {s} s for {d} s</title></rect>"##,
                y1 = y + 2.0,
                w = (b - a).max(0.5),
                h = (height - 4.0).max(1.0),
                c = PALETTE[bar.group % PALETTE.len()],
                name = escape(&lane.name),
                l = escape(&bar.label),
                s = tick_label(bar.start),
                d = tick_label(bar.seconds),
            );
            if b - a > 22.0 {
                let _ = write!(
                    out,
                    r##"<text x="{tx:.1}" y="{ty:.1}" text-anchor="middle" class="tick" fill="#fff">{}</text>"##,
                    escape(&bar.label),
                    tx = (a + b) / 2.0,
                    ty = y + height / 2.0 + 4.0,
                );
            }
        }
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bar_is_drawn_with_its_name_and_time() {
        let lanes = vec![
            Lane {
                name: "stream 1".into(),
                bars: vec![
                    Bar {
                        start: 0.0,
                        seconds: 2.0,
                        label: "Q14".into(),
                        group: 14,
                    },
                    Bar {
                        start: 2.0,
                        seconds: 1.0,
                        label: "Q2".into(),
                        group: 2,
                    },
                ],
            },
            Lane {
                name: "refresh".into(),
                bars: vec![],
            },
        ];
        let labels = Labels {
            title: "streams",
            x: "seconds",
            y: "",
        };
        let svg = timeline(&labels, &lanes);
        assert_eq!(svg.matches("<rect x=").count(), 2, "two bars");
        assert!(svg.contains("stream 1: Q2 from 2 s for 1 s"), "{svg}");
        assert!(svg.contains(">refresh</text>"));
    }
}
