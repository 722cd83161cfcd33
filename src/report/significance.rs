//! Whether a change between two runs stands out from their own noise: Welch's t-test on each
//! side's mean, sample stddev and number of runs, two-sided, at the level the output states.
//! With fewer than 2 runs on a side there is no noise to judge by, and it says so.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The level below which a p-value counts as significant.
pub const LEVEL: f64 = 0.05;

/// What the output says of the test.
pub const RULE: &str = "significant: Welch's t-test on the runs, two-sided, p < 0.05; \
                        cannot judge: fewer than 2 runs on a side";

/// A measurement's throughput as one side of a comparison.
pub fn ops(m: &crate::results::Measurement) -> Sample {
    Sample {
        mean: m.ops_per_sec_mean,
        sd: m.ops_per_sec_stddev,
        runs: m.runs.len(),
    }
}

/// One side of a comparison: a figure's mean, sample stddev and number of runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub mean: f64,
    pub sd: f64,
    pub runs: usize,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Significance {
    /// Welch's two-sided p-value.
    Tested(f64),
    /// Fewer than 2 runs on a side: no noise to judge by.
    CannotJudge,
}

impl Significance {
    pub fn of(base: Sample, new: Sample) -> Significance {
        if base.runs < 2 || new.runs < 2 {
            return Significance::CannotJudge;
        }
        let (va, vb) = (
            base.sd * base.sd / base.runs as f64,
            new.sd * new.sd / new.runs as f64,
        );
        let se2 = va + vb;
        if se2 == 0.0 {
            // Runs without scatter: any difference is all signal.
            return Significance::Tested(if base.mean == new.mean { 1.0 } else { 0.0 });
        }
        let t = (new.mean - base.mean) / se2.sqrt();
        // A figure that is not a number (a damaged file) cannot be judged.
        if t.is_nan() || !se2.is_finite() {
            return Significance::CannotJudge;
        }
        // Welch-Satterthwaite degrees of freedom.
        let df = se2 * se2 / (va * va / (base.runs - 1) as f64 + vb * vb / (new.runs - 1) as f64);
        match StudentsT::new(0.0, 1.0, df) {
            Ok(dist) => Significance::Tested(2.0 * (1.0 - dist.cdf(t.abs()))),
            Err(_) => Significance::CannotJudge,
        }
    }

    pub fn p_value(self) -> Option<f64> {
        match self {
            Significance::Tested(p) => Some(p),
            Significance::CannotJudge => None,
        }
    }

    pub fn is_significant(self) -> bool {
        self.p_value().is_some_and(|p| p < LEVEL)
    }

    /// "" for a significant change, else what to say of it.
    pub fn remark(self) -> String {
        match self {
            Significance::Tested(p) if p < LEVEL => String::new(),
            Significance::Tested(p) => format!("not significant (p = {p:.2})"),
            Significance::CannotJudge => "cannot judge (fewer than 2 runs)".into(),
        }
    }

    /// For JSON and CSV: "significant", "not significant" or "cannot judge".
    pub fn verdict(self) -> &'static str {
        match self {
            Significance::Tested(p) if p < LEVEL => "significant",
            Significance::Tested(_) => "not significant",
            Significance::CannotJudge => "cannot judge",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(mean: f64, sd: f64, runs: usize) -> Sample {
        Sample { mean, sd, runs }
    }

    #[test]
    fn single_runs_cannot_be_judged() {
        let s = Significance::of(sample(1000.0, 0.0, 1), sample(1030.0, 0.0, 1));
        assert_eq!(
            s,
            Significance::CannotJudge,
            "a 3% change between two 1-run results"
        );
        assert!(!s.is_significant());
    }

    #[test]
    fn a_large_change_over_quiet_runs_is_significant() {
        // 20% over 5 runs each with 1% noise.
        let s = Significance::of(sample(1000.0, 10.0, 5), sample(1200.0, 12.0, 5));
        assert!(s.is_significant(), "{s:?}");
        assert!(s.p_value().unwrap() < 1e-6);
    }

    #[test]
    fn a_change_inside_the_noise_is_not() {
        // 1% apart with 5% noise, 3 runs each.
        let s = Significance::of(sample(1000.0, 50.0, 3), sample(1010.0, 50.0, 3));
        assert!(!s.is_significant(), "{s:?}");
        assert!(s.p_value().unwrap() > 0.5);
    }

    #[test]
    fn the_p_value_is_welchs() {
        // Welch's test on means 10 and 12, sds 1 and 2, 10 runs each: t = 2.828, df = 13.24;
        // integrating Student's t density numerically (outside statrs) gives p = 0.01403.
        let p = Significance::of(sample(10.0, 1.0, 10), sample(12.0, 2.0, 10))
            .p_value()
            .unwrap();
        assert!((p - 0.01403).abs() < 0.0002, "p = {p}");
    }
}
