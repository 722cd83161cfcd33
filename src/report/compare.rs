//! Run comparison: each figure of a baseline run beside the same figure of another run, the change
//! in percent, and whether the change stands out from the runs' own noise.

use super::gate::{self, figure_name, Figure, Thresholds};
use super::rows::Rows;
use super::significance::{ops, Sample, Significance, RULE};
use super::table::Table;
use crate::results::{Measurement, RunResult};
use crate::units::thousands;
use serde_json::Value;

/// One throughput figure in two runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub figure: String,
    pub base: Sample,
    pub new: Sample,
}

impl Change {
    pub fn percent(&self) -> f64 {
        percent(self.base.mean, self.new.mean)
    }

    pub fn significance(&self) -> Significance {
        Significance::of(self.base, self.new)
    }
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
            base: ops(a),
            new: ops(b),
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
            let judged = match gate::significance(f, a, b) {
                Significance::CannotJudge => {
                    "; its noise cannot be judged, so by the threshold alone"
                }
                Significance::Tested(_) => "",
            };
            out.push(format!(
                "{}: {} was {}, now {} ({:+.1}%, allowed {}%{judged})",
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
            Significance::of(ops(a), ops(b)).remark(),
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
    out.push_str(&costs(&pairs, thresholds));
    out.push_str(RULE);
    out.push('\n');
    out
}

/// The change of each resource figure both runs have (cost per operation, CPU), with the same
/// test of significance over runs as throughput's; "" when no pair has one.
fn costs(pairs: &[(&Measurement, &Measurement)], thresholds: Option<&Thresholds>) -> String {
    let mut t = Table::new(
        "Change in what each step cost (mean over runs; lower is better but for cache hits)",
        ["figure", "resource", "base", "new", "change", "", "gate"]
            .map(String::from)
            .to_vec(),
        2,
    );
    for (a, b) in pairs {
        let worse = worse_figures(a, b, thresholds);
        for f in Figure::every().filter(|f| f.is_resource()) {
            let (Some(va), Some(vb)) = (f.value(a), f.value(b)) else {
                continue;
            };
            t.row(vec![
                figure_name(a),
                f.name().into(),
                f.format(va),
                f.format(vb),
                format!("{:+.1}%", percent(va, vb)),
                gate::significance(f, a, b).remark(),
                if worse.contains(&f) {
                    "WORSE".into()
                } else {
                    String::new()
                },
            ]);
        }
    }
    if t.is_empty() {
        String::new()
    } else {
        format!("\n{}", t.render())
    }
}

/// One row per shared measurement and figure: both values, the change, whether it is larger
/// than the noise, and with a gate whether the gate calls it worse.
pub fn rows(base: &RunResult, new: &RunResult, thresholds: Option<&Thresholds>) -> Rows {
    let mut rows = Rows::new(&["base_run", "new_run"]);
    for (a, b) in pairs(base, new) {
        let worse = worse_figures(a, b, thresholds);
        for f in Figure::every() {
            let (Some(va), Some(vb)) = (f.value(a), f.value(b)) else {
                continue;
            };
            let (sa, sb) = (f.stddev(a), f.stddev(b));
            let significance = gate::significance(f, a, b);
            let mut cells = vec![
                ("base_run".to_string(), Value::from(base.run_id.clone())),
                ("new_run".to_string(), Value::from(new.run_id.clone())),
            ];
            cells.extend(super::rows::identity(a));
            cells.extend([
                ("figure".to_string(), Value::from(f.name())),
                ("unit".to_string(), Value::from(f.unit())),
                ("base".to_string(), Value::from(va)),
                ("base_stddev".to_string(), Value::from(sa)),
                ("new".to_string(), Value::from(vb)),
                ("new_stddev".to_string(), Value::from(sb)),
                ("change_percent".to_string(), Value::from(percent(va, vb))),
                (
                    "significance".to_string(),
                    Value::from(significance.verdict()),
                ),
                (
                    "p_value".to_string(),
                    significance.p_value().map_or(Value::Null, Value::from),
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

    fn change(base: (f64, f64, usize), new: (f64, f64, usize)) -> Change {
        let sample = |(mean, sd, runs)| Sample { mean, sd, runs };
        Change {
            figure: "x".into(),
            base: sample(base),
            new: sample(new),
        }
    }

    #[test]
    fn percent_and_significance() {
        let c = change((1000.0, 30.0, 5), (1100.0, 40.0, 5));
        assert!((c.percent() - 10.0).abs() < 1e-12);
        assert!(c.significance().is_significant());
        let single = change((1000.0, 0.0, 1), (1030.0, 0.0, 1));
        assert_eq!(single.significance(), Significance::CannotJudge);
        assert_eq!(
            single.significance().remark(),
            "cannot judge (fewer than 2 runs)"
        );
        let zero = change((0.0, 0.0, 3), (10.0, 1.0, 3));
        assert_eq!(zero.percent(), 0.0);
    }
}
