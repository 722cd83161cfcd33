//! The TPC-H metrics, computed two ways (spec §5.4 with its reporting rules, and OSDL DBT-3's
//! current kit), kept apart from the measuring so the arithmetic can be checked by hand.
//!
//! - Power@Size = 3600·SF / (∏ QI(i,0) · ∏ RI(j,0))^(1/24)
//! - Throughput@Size = S·22·3600 / Ts · SF
//! - QphH@Size = √(Power@Size · Throughput@Size)
//!
//! TPC-H rules (5.3.7.5–6, 5.4.1.4): every query and refresh interval is rounded to the nearest
//! 0.1 s, an interval under 0.05 s counts as 0.1 s, and when the longest power-test query is more
//! than 1000 times the shortest, every query interval under max/1000 is raised to max/1000 (queries
//! only, not the refresh functions). DBT-3 (v2 kit, `dbt3-power-score`): the fractional seconds as
//! measured, no floor, no clamp.

use serde::Serialize;

/// The line every tpch output carries.
pub const DISCLAIMER: &str = "derived from TPC-H; not comparable to published TPC-H results";

/// How the intervals are turned into figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Rules {
    /// TPC-H spec: 0.1 s rounding and floor, 1000:1 clamp on power-test queries.
    Tpch,
    /// OSDL DBT-3 (v2 kit): fractional seconds as measured, no floor, no clamp.
    Dbt3,
}

impl Rules {
    pub fn label(self) -> &'static str {
        match self {
            Rules::Tpch => "TPC-H rules (0.1 s rounding and floor, 1000:1 clamp)",
            Rules::Dbt3 => "DBT-3 rules (fractional seconds, no floor, no clamp)",
        }
    }
    pub fn short(self) -> &'static str {
        match self {
            Rules::Tpch => "tpch",
            Rules::Dbt3 => "dbt3",
        }
    }
}

/// An interval as the spec reports it: to the nearest 0.1 s, never under 0.1 s.
pub fn spec_interval(seconds: f64) -> f64 {
    let tenths = (seconds * 10.0 + 1e-9).round();
    (tenths.max(1.0)) / 10.0
}

/// The spec's 1000:1 clamp: query intervals under max/1000 are raised to max/1000.
pub fn clamp_queries(queries: &[f64]) -> Vec<f64> {
    let max = queries.iter().cloned().fold(0.0, f64::max);
    let min = queries.iter().cloned().fold(f64::INFINITY, f64::min);
    if min > 0.0 && max / min <= 1000.0 {
        return queries.to_vec();
    }
    let floor = max / 1000.0;
    queries.iter().map(|q| q.max(floor)).collect()
}

/// Power@Size from the 22 power-test query intervals and the two refresh intervals.
pub fn power(rules: Rules, sf: f64, queries: &[f64], refreshes: &[f64]) -> f64 {
    let (q, r): (Vec<f64>, Vec<f64>) = match rules {
        Rules::Tpch => (
            clamp_queries(
                &queries
                    .iter()
                    .map(|s| spec_interval(*s))
                    .collect::<Vec<_>>(),
            ),
            refreshes.iter().map(|s| spec_interval(*s)).collect(),
        ),
        Rules::Dbt3 => (queries.to_vec(), refreshes.to_vec()),
    };
    let n = (q.len() + r.len()) as f64;
    let log_sum: f64 = q.iter().chain(r.iter()).map(|s| s.max(1e-9).ln()).sum();
    3600.0 * sf * (-log_sum / n).exp()
}

/// Throughput@Size from the number of query streams and the measurement interval Ts.
pub fn throughput(sf: f64, streams: usize, ts_seconds: f64) -> f64 {
    if ts_seconds <= 0.0 {
        return 0.0;
    }
    streams as f64 * 22.0 * 3600.0 / ts_seconds * sf
}

/// QphH@Size: the geometric mean of power and throughput.
pub fn composite(power: f64, throughput: f64) -> f64 {
    (power * throughput).sqrt()
}

/// The spec reports the metrics to the nearest 0.1.
pub fn round_tenth(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

/// The three figures under one set of rules.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Figures {
    pub rules: Rules,
    pub power: f64,
    pub throughput: Option<f64>,
    pub composite: Option<f64>,
}

/// All figures of one engine at one SF; throughput only when a throughput test ran.
pub fn figures(
    rules: Rules,
    sf: f64,
    queries: &[f64],
    refreshes: &[f64],
    throughput_test: Option<(usize, f64)>,
) -> Figures {
    let mut p = power(rules, sf, queries, refreshes);
    let mut t = throughput_test.map(|(s, ts)| throughput(sf, s, ts));
    if rules == Rules::Tpch {
        p = round_tenth(p);
        t = t.map(round_tenth);
    }
    let c = t.map(|t| {
        let c = composite(p, t);
        if rules == Rules::Tpch {
            round_tenth(c)
        } else {
            c
        }
    });
    Figures {
        rules,
        power: p,
        throughput: t,
        composite: c,
    }
}

/// The minimum number of query streams for a scale factor (spec Table 11, as DBT-3 picks it:
/// "SF below the next step"); 2 below SF 10.
pub fn min_streams(sf: f64) -> usize {
    const STEPS: [(f64, usize); 9] = [
        (10.0, 2),
        (30.0, 3),
        (100.0, 4),
        (300.0, 5),
        (1000.0, 6),
        (3000.0, 7),
        (10000.0, 8),
        (30000.0, 9),
        (100000.0, 10),
    ];
    STEPS
        .iter()
        .find(|(limit, _)| sf < *limit)
        .map(|(_, s)| *s)
        .unwrap_or(11)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn intervals_round_to_a_tenth_with_a_floor() {
        for (input, expected) in [
            (23.74, 23.7),
            (23.75, 23.8),
            (0.049, 0.1),
            (0.0, 0.1),
            (0.05, 0.1),
            (0.14, 0.1),
            (0.15, 0.2),
        ] {
            assert_eq!(spec_interval(input), expected, "spec_interval({input:?})");
        }
    }

    #[test]
    fn power_is_3600_sf_over_the_geometric_mean_with_the_rules_floor() {
        // Every one of the 24 intervals the same, so power is 3600 * SF / interval. DBT-3 takes
        // intervals as measured; TPC-H counts each as at least 0.1 s.
        let cases = [
            (Rules::Tpch, 1.0, 2.0, 1800.0),
            (Rules::Dbt3, 1.0, 2.0, 1800.0),
            (Rules::Dbt3, 10.0, 2.0, 18000.0),
            (Rules::Dbt3, 1.0, 0.01, 360_000.0),
            (Rules::Tpch, 1.0, 0.01, 36_000.0),
        ];
        for (rules, sf, interval, expected) in cases {
            let (q, r) = (vec![interval; 22], vec![interval; 2]);
            let got = power(rules, sf, &q, &r);
            assert!(
                close(got, expected),
                "{rules:?} SF {sf} at {interval} s: {got}"
            );
        }
    }

    #[test]
    fn the_clamp_raises_short_queries_to_max_over_1000() {
        // One query of 200 s, 21 of 0.1 s (ratio 2000 > 1000): the short ones become 0.2 s.
        let mut q = vec![0.1; 21];
        q.push(200.0);
        let clamped = clamp_queries(&q);
        assert!(clamped[..21].iter().all(|&x| close(x, 0.2)));
        assert_eq!(clamped[21], 200.0);
        // Ratio exactly 1000 is not clamped.
        let q2 = vec![0.1, 100.0];
        assert_eq!(clamp_queries(&q2), q2);
        // Hand computation of the power with RFs of 1 s (not clamped):
        // ln sum = 21 ln 0.2 + ln 200 + 2 ln 1 = 21(-1.6094379) + 5.2983174 = -28.4998785
        // power = 3600 * exp(28.4998785/24) = 3600 * 3.27886... = 11,803.9
        let p = power(Rules::Tpch, 1.0, &q, &[1.0, 1.0]);
        let expected = 3600.0 * ((-(21.0 * 0.2f64.ln() + 200f64.ln())) / 24.0).exp();
        assert!(close(p, expected));
        assert!((p - 11_803.9).abs() < 0.1, "{p}");
        // Refresh intervals are not clamped: tiny RFs stay at the 0.1 s floor.
        let p_small_rf = power(Rules::Tpch, 1.0, &q, &[0.01, 0.01]);
        let expected_rf =
            3600.0 * ((-(21.0 * 0.2f64.ln() + 200f64.ln() + 2.0 * 0.1f64.ln())) / 24.0).exp();
        assert!(close(p_small_rf, expected_rf));
        // DBT-3 has no clamp: the geometric mean uses 0.1 s as measured.
        let d = power(Rules::Dbt3, 1.0, &q, &[1.0, 1.0]);
        let expected_d = 3600.0 * ((-(21.0 * 0.1f64.ln() + 200f64.ln())) / 24.0).exp();
        assert!(close(d, expected_d));
    }

    #[test]
    fn throughput_and_composite() {
        // Seed 003's figures: 4 streams at SF 1, 224.68 means Ts = 22*3600*4/224.68 = 1409.99 s.
        let ts = 22.0 * 3600.0 * 4.0 / 224.68;
        assert!(close(throughput(1.0, 4, ts), 224.68));
        // Their composite: sqrt(336.99 * 224.68) = 275.16.
        assert!((composite(336.99, 224.68) - 275.16).abs() < 0.005);
        // 2 streams, 100 s, SF 0.1: 2*22*3600/100*0.1 = 158.4.
        assert!(close(throughput(0.1, 2, 100.0), 158.4));
        let f = figures(
            Rules::Tpch,
            1.0,
            &[2.0; 22],
            &[2.0; 2],
            Some((2, 1584.0 / 10.0)),
        );
        assert_eq!(f.power, 1800.0);
        assert_eq!(f.throughput, Some(1000.0));
        assert_eq!(f.composite, Some(round_tenth((1800.0f64 * 1000.0).sqrt())));
    }

    #[test]
    fn minimum_streams_follow_table_11() {
        for (input, expected) in [
            (0.01, 2),
            (1.0, 2),
            (10.0, 3),
            (30.0, 4),
            (100.0, 5),
            (1000.0, 7),
            (100000.0, 11),
        ] {
            assert_eq!(min_streams(input), expected, "min_streams({input:?})");
        }
    }
}
