//! Axes: values to pixels on linear or log scales, round tick steps, short tick labels.

use super::AxisKind;

/// More ticks than an axis ever needs: a bound for axes of absurd figures.
const MOST_TICKS: usize = 1_000;

/// Maps values to pixels along one axis.
#[derive(Clone, Copy, Debug)]
pub struct Scale {
    pub kind: AxisKind,
    pub min: f64,
    pub max: f64,
    px_from: f64,
    px_to: f64,
}

impl Scale {
    /// A scale covering `lo..=hi` with round ends: from 0 (linear) or the decade below (log).
    pub fn covering(kind: AxisKind, lo: f64, hi: f64, px_from: f64, px_to: f64) -> Scale {
        let (min, max) = match kind {
            AxisKind::Linear => {
                let hi = if hi > 0.0 { hi } else { 1.0 };
                let step = nice_step(hi / 5.0);
                (0.0, (hi / step).ceil() * step)
            }
            AxisKind::Log => {
                let lo = if lo > 0.0 { lo } else { 1.0 };
                let hi = if hi > lo { hi } else { lo * 10.0 };
                (
                    10f64.powf(lo.log10().floor()),
                    10f64.powf(hi.log10().ceil()),
                )
            }
        };
        Scale {
            kind,
            min,
            max,
            px_from,
            px_to,
        }
    }

    pub fn px(&self, v: f64) -> f64 {
        let t = match self.kind {
            AxisKind::Linear => (v - self.min) / (self.max - self.min),
            AxisKind::Log => {
                let v = v.max(self.min);
                (v.log10() - self.min.log10()) / (self.max.log10() - self.min.log10())
            }
        };
        self.px_from + t.clamp(0.0, 1.0) * (self.px_to - self.px_from)
    }

    /// Tick values: 1-2-5 steps on a linear axis, each decade on a log axis.
    pub fn ticks(&self) -> Vec<f64> {
        match self.kind {
            AxisKind::Linear => {
                let step = nice_step((self.max - self.min) / 5.0);
                let mut out = Vec::new();
                let mut v = (self.min / step).ceil() * step;
                // Bounded: values near f64's limits (a damaged file) make no endless axis.
                while v <= self.max + step * 1e-9 && v.is_finite() && out.len() < MOST_TICKS {
                    out.push(v);
                    v += step;
                }
                out
            }
            AxisKind::Log => {
                let (a, b) = (
                    self.min.log10().round() as i32,
                    self.max.log10().round() as i32,
                );
                (a..=b).take(MOST_TICKS).map(|e| 10f64.powi(e)).collect()
            }
        }
    }
}

/// The smallest of 1, 2, 5 x 10^k that is at least `raw`.
pub fn nice_step(raw: f64) -> f64 {
    if raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if m * magnitude >= raw * (1.0 - 1e-9) {
            return m * magnitude;
        }
    }
    10.0 * magnitude
}

/// Short labels for ticks: 1.5M, 200k, 0.25.
pub fn tick_label(v: f64) -> String {
    let a = v.abs();
    let (value, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let text = if value.fract().abs() < 1e-9 {
        format!("{value:.0}")
    } else if value.abs() >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    };
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    format!("{text}{suffix}")
}
