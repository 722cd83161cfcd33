//! Run comparison: each figure of a baseline run beside the same figure of another run, the change
//! in percent, and whether the change stands out from the runs' own noise.

use super::table::Table;
use crate::results::{Measurement, RunResult};
use crate::units::thousands;

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
        if self.base_mean == 0.0 {
            0.0
        } else {
            100.0 * (self.new_mean - self.base_mean) / self.base_mean
        }
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
    (b_mean - a_mean).abs() > (a_sd * a_sd + b_sd * b_sd).sqrt()
}

/// What identifies a figure across runs: everything but the numbers.
pub fn figure_name(m: &Measurement) -> String {
    let mut name = format!(
        "{} {} {} t{} {}",
        m.workload, m.engine, m.durability, m.threads, m.step
    );
    for (k, v) in &m.config {
        // Sizes that every figure of a kv run shares are left out of the name.
        if ![
            "key_size",
            "value_size",
            "batch_size",
            "batches",
            "txn_size",
        ]
        .contains(&k.as_str())
        {
            name.push_str(&format!(" {k}={}", v.to_string().trim_matches('"')));
        }
    }
    name
}

fn same_figure(a: &Measurement, b: &Measurement) -> bool {
    a.workload == b.workload
        && a.engine == b.engine
        && a.durability == b.durability
        && a.threads == b.threads
        && a.step == b.step
        && a.config == b.config
}

/// The figures the two runs share, in the baseline's order.
pub fn compare(base: &RunResult, new: &RunResult) -> Vec<Change> {
    base.measurements
        .iter()
        .filter_map(|a| {
            let b = new.measurements.iter().find(|b| same_figure(a, b))?;
            Some(Change {
                figure: figure_name(a),
                base_mean: a.ops_per_sec_mean,
                base_stddev: a.ops_per_sec_stddev,
                new_mean: b.ops_per_sec_mean,
                new_stddev: b.ops_per_sec_stddev,
            })
        })
        .collect()
}

/// The terminal table `hakari compare` prints.
pub fn render(base: &RunResult, new: &RunResult) -> String {
    let changes = compare(base, new);
    if changes.is_empty() {
        return format!(
            "runs {} and {} share no figure (different workloads, engines or parameters)\n",
            base.run_id, new.run_id
        );
    }
    let mut t = Table::new(
        format!(
            "Change from {} to {} (ops/s mean ± stddev)",
            base.run_id, new.run_id
        ),
        ["figure", "base", "±", "new", "±", "change", ""]
            .map(String::from)
            .to_vec(),
        1,
    );
    for c in &changes {
        t.row(vec![
            c.figure.clone(),
            thousands(c.base_mean),
            thousands(c.base_stddev),
            thousands(c.new_mean),
            thousands(c.new_stddev),
            format!("{:+.1}%", c.percent()),
            if c.significant() {
                ""
            } else {
                "not significant"
            }
            .into(),
        ]);
    }
    let mut out = t.render();
    out.push_str(
        "not significant: the change is within sqrt(sd_base² + sd_new²), the runs' own noise\n",
    );
    out
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
