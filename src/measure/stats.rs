//! Summary statistics over repeated runs.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (n - 1 in the denominator); 0 for a single value.
    pub stddev: f64,
    pub min: f64,
    pub max: f64,
}

impl Summary {
    pub fn of(values: &[f64]) -> Summary {
        let n = values.len();
        if n == 0 {
            return Summary::default();
        }
        let mean = values.iter().sum::<f64>() / n as f64;
        let stddev = if n > 1 {
            let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
            (ss / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        Summary {
            n,
            mean,
            stddev,
            min: values.iter().cloned().fold(f64::INFINITY, f64::min),
            max: values.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        }
    }

    /// Relative standard deviation, in percent of the mean.
    pub fn rsd_percent(&self) -> f64 {
        if self.mean == 0.0 {
            0.0
        } else {
            100.0 * self.stddev / self.mean
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_hand_computed_values() {
        // mean = 5, squared deviations 9+1+1+9 = 20, sample variance 20/3.
        let s = Summary::of(&[2.0, 4.0, 6.0, 8.0]);
        assert_eq!(s.n, 4);
        assert_eq!(s.mean, 5.0);
        assert!((s.stddev - (20.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(s.min, 2.0);
        assert_eq!(s.max, 8.0);
        assert!((s.rsd_percent() - 100.0 * (20.0f64 / 3.0).sqrt() / 5.0).abs() < 1e-9);
    }

    #[test]
    fn single_and_empty() {
        let s = Summary::of(&[7.5]);
        assert_eq!((s.mean, s.stddev, s.min, s.max), (7.5, 0.0, 7.5, 7.5));
        assert_eq!(Summary::of(&[]).n, 0);
    }

    #[test]
    fn published_style_figures() {
        // Five runs around 1000 ops/s: mean 1000, deviations -20,-10,0,10,20 -> var 1000/4.
        let s = Summary::of(&[980.0, 990.0, 1000.0, 1010.0, 1020.0]);
        assert_eq!(s.mean, 1000.0);
        assert!((s.stddev - 250f64.sqrt()).abs() < 1e-9);
    }
}
