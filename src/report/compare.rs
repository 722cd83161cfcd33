//! Run comparison: each figure of a baseline run beside the same figure of another run, the change
//! in percent, and whether the change stands out from the runs' own noise.

use super::gate::{self, figure_name, noise, Figure, Thresholds};
use super::rows::Rows;
use super::table::Table;
use crate::results::{Measurement, RunResult};
use crate::units::thousands;
use serde_json::Value;

/// One figure in two runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub figure: String,
    pub base_mean: f64,
    pub base_stddev: f64,
    pub new_mean: f64,
    pub new_stddev: f64,
}

impl Change {
    pub fn percent(&self) -> f64 {
        percent(self.base_mean, self.new_mean)
    }

    pub fn significant(&self) -> bool {
        significant(
            self.base_mean,
            self.base_stddev,
            self.new_mean,
            self.new_stddev,
        )
    }
}

/// A difference is significant when it exceeds the noise of the difference itself: the stddev of
/// a difference of two independent means, sqrt(sd_a^2 + sd_b^2). A difference inside it could be
/// the runs' own scatter.
pub fn significant(a_mean: f64, a_sd: f64, b_mean: f64, b_sd: f64) -> bool {
    (b_mean - a_mean).abs() > noise(a_sd, b_sd)
}

fn same_figure(a: &Measurement, b: &Measurement) -> bool {
    a.workload == b.workload
        && a.engine == b.engine
        && a.durability == b.durability
        && a.threads == b.threads
        && a.step == b.step
        && a.config == b.config
}

/// The measurements the two runs share, in the baseline's order.
pub fn pairs<'a>(
    base: &'a RunResult,
    new: &'a RunResult,
) -> Vec<(&'a Measurement, &'a Measurement)> {
    base.measurements
        .iter()
        .filter_map(|a| Some((a, new.measurements.iter().find(|b| same_figure(a, b))?)))
        .collect()
}

/// The throughput figures the two runs share, in the baseline's order.
pub fn compare(base: &RunResult, new: &RunResult) -> Vec<Change> {
    pairs(base, new)
        .into_iter()
        .map(|(a, b)| Change {
            figure: figure_name(a),
            base_mean: a.ops_per_sec_mean,
            base_stddev: a.ops_per_sec_stddev,
            new_mean: b.ops_per_sec_mean,
            new_stddev: b.ops_per_sec_stddev,
        })
        .collect()
}

/// The figures of one shared measurement that `thresholds` call worse.
fn worse_figures(a: &Measurement, b: &Measurement, thresholds: Option<&Thresholds>) -> Vec<Figure> {
    thresholds
        .map(|t| {
            t.0.iter()
                .filter(|(f, pct)| gate::worse(*f, a, b, *pct))
                .map(|(f, _)| *f)
                .collect()
        })
        .unwrap_or_default()
}

/// The regressions the gate finds, one line each ("figure: p99 was X, now Y (+Z%)"); empty when
/// the gate passes.
pub fn regressions(base: &RunResult, new: &RunResult, thresholds: &Thresholds) -> Vec<String> {
    let mut out = Vec::new();
    for (a, b) in pairs(base, new) {
        for f in worse_figures(a, b, Some(thresholds)) {
            let (va, vb) = (f.value(a).unwrap_or(0.0), f.value(b).unwrap_or(0.0));
            out.push(format!(
                "{}: {} was {}, now {} ({:+.1}%, allowed {}%)",
                figure_name(a),
                f.name(),
                f.format(va),
                f.format(vb),
                percent(va, vb),
                thresholds.percent(f).unwrap_or(0.0)
            ));
        }
    }
    out
}

fn percent(base: f64, new: f64) -> f64 {
    if base == 0.0 {
        0.0
    } else {
        100.0 * (new - base) / base
    }
}

/// The terminal table `hakari compare` prints: throughput with its noise, p99, and with a gate,
/// which figures it calls worse.
pub fn render(base: &RunResult, new: &RunResult, thresholds: Option<&Thresholds>) -> String {
    let pairs = pairs(base, new);
    if pairs.is_empty() {
        return format!(
            "runs {} and {} share no figure (different workloads, engines or parameters)\n",
            base.run_id, new.run_id
        );
    }
    let mut t = Table::new(
        format!(
            "Change from {} to {} (ops/s mean ± stddev over runs; p99 over all operations)",
            base.run_id, new.run_id
        ),
        [
            "figure", "base", "±", "new", "±", "change", "", "p99 base", "p99 new", "change",
            "gate",
        ]
        .map(String::from)
        .to_vec(),
        1,
    );
    for (a, b) in &pairs {
        let p99 = |m: &Measurement| Figure::P99.value(m);
        let worse = worse_figures(a, b, thresholds);
        t.row(vec![
            figure_name(a),
            thousands(a.ops_per_sec_mean),
            thousands(a.ops_per_sec_stddev),
            thousands(b.ops_per_sec_mean),
            thousands(b.ops_per_sec_stddev),
            format!("{:+.1}%", percent(a.ops_per_sec_mean, b.ops_per_sec_mean)),
            if significant(
                a.ops_per_sec_mean,
                a.ops_per_sec_stddev,
                b.ops_per_sec_mean,
                b.ops_per_sec_stddev,
            ) {
                ""
            } else {
                "not significant"
            }
            .into(),
            p99(a).map(|v| Figure::P99.format(v)).unwrap_or_default(),
            p99(b).map(|v| Figure::P99.format(v)).unwrap_or_default(),
            match (p99(a), p99(b)) {
                (Some(x), Some(y)) => format!("{:+.1}%", percent(x, y)),
                _ => String::new(),
            },
            if worse.is_empty() {
                String::new()
            } else {
                format!(
                    "WORSE: {}",
                    worse
                        .iter()
                        .map(|f| f.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            },
        ]);
    }
    let mut out = t.render();
    out.push_str(
        "not significant: the change is within sqrt(sd_base² + sd_new²), the runs' own noise\n",
    );
    out
}

/// One row per shared measurement and figure: both values, the change, whether it is larger
/// than the noise, and with a gate whether the gate calls it worse.
pub fn rows(base: &RunResult, new: &RunResult, thresholds: Option<&Thresholds>) -> Rows {
    let mut rows = Rows::new(&["base_run", "new_run"]);
    for (a, b) in pairs(base, new) {
        let worse = worse_figures(a, b, thresholds);
        for f in Figure::ALL {
            let (Some(va), Some(vb)) = (f.value(a), f.value(b)) else {
                continue;
            };
            let (sa, sb) = (f.stddev(a), f.stddev(b));
            let mut cells = vec![
                ("base_run".to_string(), Value::from(base.run_id.clone())),
                ("new_run".to_string(), Value::from(new.run_id.clone())),
            ];
            cells.extend(super::rows::identity(a));
            cells.extend([
                ("figure".to_string(), Value::from(f.name())),
                (
                    "unit".to_string(),
                    Value::from(if f == Figure::Ops { "ops/s" } else { "us" }),
                ),
                ("base".to_string(), Value::from(va)),
                ("base_stddev".to_string(), Value::from(sa)),
                ("new".to_string(), Value::from(vb)),
                ("new_stddev".to_string(), Value::from(sb)),
                ("change_percent".to_string(), Value::from(percent(va, vb))),
                (
                    "significant".to_string(),
                    Value::from(significant(va, sa, vb, sb)),
                ),
                ("worse".to_string(), Value::from(worse.contains(&f))),
            ]);
            rows.push(cells);
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_and_significance() {
        let c = Change {
            figure: "x".into(),
            base_mean: 1000.0,
            base_stddev: 30.0,
            new_mean: 1100.0,
            new_stddev: 40.0,
        };
        assert!((c.percent() - 10.0).abs() < 1e-12);
        // Noise of the difference: sqrt(30² + 40²) = 50 < 100.
        assert!(c.significant());
        let small = Change {
            new_mean: 1049.0,
            ..c.clone()
        };
        assert!(!small.significant(), "49 is inside the noise of 50");
        let down = Change {
            new_mean: 900.0,
            ..c.clone()
        };
        assert!((down.percent() + 10.0).abs() < 1e-12);
        assert!(down.significant());
        let zero = Change {
            base_mean: 0.0,
            ..c
        };
        assert_eq!(zero.percent(), 0.0);
        assert!(
            significant(10.0, 0.0, 10.5, 0.0),
            "without noise any change counts"
        );
        assert!(!significant(10.0, 0.0, 10.0, 0.0));
    }
}
