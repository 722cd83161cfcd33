//! Pass/fail checks for scripts and CI: a regression gate between two runs
//! (`compare --fail-if-worse`) and thresholds on one run (`run --require`), as k6's thresholds.
//! Both end the command with exit 4 when they fail.

use super::significance::{ops, Significance};
use crate::results::figures::{self, Definition, Made};
use crate::results::{Measurement, RequirementOutcome};
use anyhow::{bail, Result};
use std::fmt;
use std::str::FromStr;

/// A figure a gate can judge: one of the figures `results/figures.rs` lists.
#[derive(Clone, Copy, Debug)]
pub struct Figure(&'static Definition);

impl PartialEq for Figure {
    fn eq(&self, other: &Figure) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for Figure {}

impl Figure {
    pub const OPS: Figure = Figure(&figures::OPS);
    pub const P50: Figure = Figure(&figures::P50);
    pub const P99: Figure = Figure(&figures::P99);

    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// Whether it is made from the step's resource readings.
    pub fn is_resource(self) -> bool {
        self.0.is_resource()
    }

    /// Every figure a gate can judge: each one the list has but a profile's shares.
    pub fn every() -> impl Iterator<Item = Figure> {
        (figures::DEFINITIONS.iter())
            .filter(|d| !matches!(d.made, Made::Shares(_)))
            .map(Figure)
    }

    fn parse(s: &str) -> Result<Figure> {
        let s = s.trim().to_ascii_lowercase();
        match Figure::every().find(|f| f.name() == s) {
            Some(f) => Ok(f),
            None => bail!(
                "unknown figure '{s}'; figures: {}",
                Figure::every()
                    .map(Figure::name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// Throughput gets worse as it falls, latency and costs as they grow, a cache's hits as
    /// they fall.
    pub fn higher_is_better(self) -> bool {
        self.0.higher_is_better
    }

    /// The figure of `m`: ops/s, latency in microseconds, a cost (None when the step has none).
    pub fn value(self, m: &Measurement) -> Option<f64> {
        figures::value(self.0, m)
    }

    /// The runs' own scatter of the figure: the stddev of ops/s over runs. Latency percentiles
    /// are merged over runs, so no spread is recorded for them: 0.
    pub fn stddev(self, m: &Measurement) -> f64 {
        match self.0.made {
            Made::Throughput => m.ops_per_sec_stddev,
            _ => 0.0,
        }
    }

    /// The unit of its value in exported rows.
    pub fn unit(self) -> &'static str {
        self.0.unit
    }

    pub fn format(self, v: f64) -> String {
        match self.0.made {
            Made::Throughput => format!("{} ops/s", crate::units::thousands(v)),
            Made::Latency(_) => crate::units::duration(v / 1e6),
            _ => figures::format(v, self.0.unit),
        }
    }
}

/// `--fail-if-worse`: how much worse each kind of figure may get.
#[derive(Clone, Debug, PartialEq)]
pub struct Thresholds(pub Vec<(Figure, f64)>);

impl Thresholds {
    pub fn percent(&self, f: Figure) -> Option<f64> {
        self.0.iter().find(|(g, _)| *g == f).map(|(_, p)| *p)
    }
}

impl FromStr for Thresholds {
    type Err = anyhow::Error;
    /// `5%` (throughput), or per figure: `p99:10%,ops:5%`.
    fn from_str(s: &str) -> Result<Thresholds> {
        let mut out: Vec<(Figure, f64)> = Vec::new();
        for part in s.split(',').map(str::trim) {
            let (figure, pct) = match part.split_once(':') {
                Some((f, p)) => (Figure::parse(f)?, p),
                None => (Figure::OPS, part),
            };
            let pct = parse_percent(pct)?;
            if out.iter().any(|(f, _)| *f == figure) {
                bail!("'{}' is given twice", figure.name());
            }
            out.push((figure, pct));
        }
        Ok(Thresholds(out))
    }
}

fn parse_percent(s: &str) -> Result<f64> {
    let Some(n) = s.trim().strip_suffix('%') else {
        bail!("'{s}' is not a percentage (write it as 5%)");
    };
    match n.trim().parse::<f64>() {
        Ok(p) if p.is_finite() && p >= 0.0 => Ok(p),
        _ => bail!("'{s}' is not a percentage of 0 or more"),
    }
}

/// Whether `new` is worse than `base` by more than `percent` and, where the runs' noise can be
/// judged, significantly so (the test `compare` marks); where it cannot (fewer than 2 runs, or
/// a latency percentile, merged over runs), by the threshold alone.
pub fn worse(figure: Figure, base: &Measurement, new: &Measurement, percent: f64) -> bool {
    let (Some(a), Some(b)) = (figure.value(base), figure.value(new)) else {
        return false;
    };
    let loss = if figure.higher_is_better() {
        a - b
    } else {
        b - a
    };
    let judged = match significance(figure, base, new) {
        Significance::Tested(_) => significance(figure, base, new).is_significant(),
        Significance::CannotJudge => true,
    };
    loss > a.abs() * percent / 100.0 && judged
}

/// Whether a figure's change stands out from the runs' noise: throughput by Welch's t-test on
/// the runs; a latency percentile is merged over runs, so its noise cannot be judged.
pub fn significance(figure: Figure, base: &Measurement, new: &Measurement) -> Significance {
    match figure.0.made {
        Made::Throughput => Significance::of(ops(base), ops(new)),
        Made::Latency(_) => Significance::CannotJudge,
        // A resource figure is made per run too: its runs' scatter is its noise.
        _ => {
            let sample = |m: &Measurement| {
                let each = figures::per_run(figure.name(), m);
                let s = crate::measure::stats::Summary::of(&each);
                super::significance::Sample {
                    mean: s.mean,
                    sd: s.stddev,
                    runs: each.len(),
                }
            };
            Significance::of(sample(base), sample(new))
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    AtLeast,
    AtMost,
    Above,
    Below,
}

impl Op {
    fn symbol(self) -> &'static str {
        match self {
            Op::AtLeast => ">=",
            Op::AtMost => "<=",
            Op::Above => ">",
            Op::Below => "<",
        }
    }
    fn holds(self, value: f64, bound: f64) -> bool {
        match self {
            Op::AtLeast => value >= bound,
            Op::AtMost => value <= bound,
            Op::Above => value > bound,
            Op::Below => value < bound,
        }
    }
}

/// `--require 'tpcb.p99<=5ms'`: a bound every matching figure of a run must keep. The dotted
/// words before the figure select measurements: each must name the workload, engine, durability
/// level, step, `t<threads>` or a configuration value of the measurement; none selects all.
#[derive(Clone, Debug, PartialEq)]
pub struct Requirement {
    text: String,
    selectors: Vec<String>,
    figure: Figure,
    op: Op,
    /// ops/s, or microseconds for latency.
    bound: f64,
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for Requirement {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<Requirement> {
        let text: String = s.split_whitespace().collect();
        let Some(at) = text.find(['<', '>']) else {
            bail!("'{s}' has no comparison; write it as FIGURE>=VALUE or FIGURE<=VALUE, e.g. tpcb.ops>=2000 or tpcb.p99<=5ms");
        };
        let (left, right) = text.split_at(at);
        let (op, value) = [
            (">=", Op::AtLeast),
            ("<=", Op::AtMost),
            (">", Op::Above),
            ("<", Op::Below),
        ]
        .into_iter()
        .find_map(|(sym, op)| right.strip_prefix(sym).map(|v| (op, v)))
        .expect("starts with < or >");
        let mut words: Vec<String> = left.split('.').map(str::to_string).collect();
        // A resource figure's name has a dot of its own (`tpcb.server.cpu_us_per_op`).
        if let [.., source, name] = words.as_slice() {
            let dotted = format!("{source}.{name}").to_ascii_lowercase();
            if Figure::every().any(|f| f.name() == dotted) {
                words.truncate(words.len() - 2);
                words.push(dotted);
            }
        }
        let figure = Figure::parse(words.pop().unwrap_or_default().as_str())
            .map_err(|e| anyhow::anyhow!("in '{s}': {e}"))?;
        if words.iter().any(String::is_empty) {
            bail!("in '{s}': an empty name between dots");
        }
        let bound = parse_bound(figure, value).map_err(|e| anyhow::anyhow!("in '{s}': {e}"))?;
        Ok(Requirement {
            text,
            selectors: words,
            figure,
            op,
            bound,
        })
    }
}

/// A throughput in ops/s (`2000`, `2k`, `1.5M`), or a latency with its unit (`5ms`, `250us`, `1s`).
fn parse_bound(figure: Figure, s: &str) -> Result<f64> {
    let number = |n: &str| -> Result<f64> {
        match n.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
            _ => bail!("'{s}' is not a number of 0 or more"),
        }
    };
    if !matches!(figure.0.made, Made::Latency(_)) {
        let (n, scale) = match s.chars().last() {
            Some('k' | 'K') => (&s[..s.len() - 1], 1e3),
            Some('M') => (&s[..s.len() - 1], 1e6),
            _ => (s, 1.0),
        };
        return Ok(number(n)? * scale);
    }
    for (unit, scale) in [("us", 1.0), ("µs", 1.0), ("ms", 1e3), ("s", 1e6)] {
        if let Some(n) = s.strip_suffix(unit) {
            return Ok(number(n)? * scale);
        }
    }
    bail!(
        "give the latency '{s}' a unit: us, ms or s (e.g. {}<=5ms)",
        figure.name()
    )
}

impl Requirement {
    fn selects(&self, m: &Measurement) -> bool {
        self.selectors.iter().all(|w| {
            let w = w.to_ascii_lowercase();
            [&m.workload, &m.engine, &m.durability, &m.step]
                .into_iter()
                .any(|field| field.to_ascii_lowercase() == w)
                || w == format!("t{}", m.threads)
                || m.config.values().any(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| v.to_string())
                        .to_ascii_lowercase()
                        == w
                })
        })
    }

    /// Checks every measurement the requirement selects. Selecting none is a failure: a
    /// requirement that checked nothing must not pass unseen (a typo in an engine name).
    pub fn check(&self, measurements: &[Measurement]) -> RequirementOutcome {
        let mut checked = 0;
        let mut failures = Vec::new();
        for m in measurements.iter().filter(|m| self.selects(m)) {
            let Some(v) = self.figure.value(m) else {
                continue;
            };
            checked += 1;
            if !self.op.holds(v, self.bound) {
                failures.push(format!(
                    "{}: {} {} {}",
                    figure_name(m),
                    self.figure.format(v),
                    if self.op == Op::AtLeast || self.op == Op::Above {
                        "below"
                    } else {
                        "above"
                    },
                    self.figure.format(self.bound)
                ));
            }
        }
        let detail = if checked == 0 {
            "no figure of this run matches it".to_string()
        } else if failures.is_empty() {
            format!(
                "{checked} figure(s) checked, all within {}{}",
                self.op.symbol(),
                self.figure.format(self.bound)
            )
        } else {
            format!(
                "{} of {checked} figure(s) fail: {}",
                failures.len(),
                failures.join("; ")
            )
        };
        RequirementOutcome {
            requirement: self.text.clone(),
            passed: checked > 0 && failures.is_empty(),
            detail,
        }
    }
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
            "key_layout",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::latency::LatencySummary;

    fn measurement(engine: &str, ops: f64, sd: f64, p99_us: f64) -> Measurement {
        Measurement {
            workload: "tpcb".into(),
            engine: engine.into(),
            durability: "sync".into(),
            threads: 4,
            step: "tpcb".into(),
            config: [("table_sets".to_string(), serde_json::json!(1))].into(),
            produced: Default::default(),
            // Three runs: enough for the noise to be judged.
            runs: vec![
                crate::results::RunFigure {
                    ops: 0,
                    seconds: 1.0,
                    ops_per_sec: ops,
                    started_unix_s: None,
                    intervals: Vec::new(),
                    usage: Default::default(),
                    resources: Vec::new(),
                };
                3
            ],
            ops_per_sec_mean: ops,
            ops_per_sec_stddev: sd,
            ops_per_sec_min: ops,
            ops_per_sec_max: ops,
            seconds_mean: 1.0,
            seconds_stddev: 0.0,
            latency: Some(LatencySummary {
                count: 10,
                p99_us,
                ..Default::default()
            }),
            retries: 0,
            late: None,
            open_loop: None,
            figures: Vec::new(),
            verdicts: Vec::new(),
        }
    }

    #[test]
    fn thresholds_parse_bare_and_per_figure() {
        let t: Thresholds = "5%".parse().unwrap();
        assert_eq!(t.0, vec![(Figure::OPS, 5.0)]);
        let t: Thresholds = "p99:10%, ops:5%".parse().unwrap();
        assert_eq!(t.percent(Figure::P99), Some(10.0));
        assert_eq!(t.percent(Figure::OPS), Some(5.0));
        assert_eq!(t.percent(Figure::P50), None);
        for bad in ["5", "-1%", "p98:5%", "ops:5%,ops:6%", "x%"] {
            assert!(bad.parse::<Thresholds>().is_err(), "{bad}");
        }
    }

    #[test]
    fn worse_needs_both_the_threshold_and_the_noise() {
        let base = measurement("sqlite", 1000.0, 10.0, 100.0);
        let noisy = measurement("sqlite", 1000.0, 100.0, 100.0);
        // (why, figure, baseline, new ops/s, new stddev, new p99, threshold %, worse?)
        let cases = [
            (
                "20% fewer ops/s, small noise",
                Figure::OPS,
                &base,
                800.0,
                10.0,
                100.0,
                5.0,
                true,
            ),
            (
                "3% fewer: inside the threshold",
                Figure::OPS,
                &base,
                970.0,
                10.0,
                100.0,
                5.0,
                false,
            ),
            (
                "10% fewer, runs scatter by 100",
                Figure::OPS,
                &noisy,
                900.0,
                100.0,
                100.0,
                5.0,
                false,
            ),
            (
                "faster is never worse",
                Figure::OPS,
                &base,
                2000.0,
                10.0,
                100.0,
                5.0,
                false,
            ),
            (
                "latency grows by 30%",
                Figure::P99,
                &base,
                1000.0,
                10.0,
                130.0,
                10.0,
                true,
            ),
            (
                "latency halves",
                Figure::P99,
                &base,
                1000.0,
                10.0,
                50.0,
                10.0,
                false,
            ),
        ];
        for (why, figure, baseline, ops, sd, p99, threshold, expected) in cases {
            let new = measurement("sqlite", ops, sd, p99);
            assert_eq!(worse(figure, baseline, &new, threshold), expected, "{why}");
        }
        // One run a side: no noise to judge by, so the threshold alone decides.
        let single = |m: Measurement| Measurement {
            runs: m.runs[..1].to_vec(),
            ..m
        };
        let (a, b) = (
            single(noisy.clone()),
            single(measurement("sqlite", 900.0, 0.0, 100.0)),
        );
        assert!(
            worse(Figure::OPS, &a, &b, 5.0),
            "10% fewer over single runs"
        );
        assert!(!worse(Figure::OPS, &a, &b, 15.0), "inside a 15% threshold");
    }

    #[test]
    fn requirements_parse_select_and_check() {
        let r: Requirement = "tpcb.ops>=2000".parse().unwrap();
        assert_eq!(r.bound, 2000.0);
        let r2: Requirement = "tpcb.sqlite.p99 <= 5ms".parse().unwrap();
        assert_eq!(
            (r2.figure, r2.op, r2.bound),
            (Figure::P99, Op::AtMost, 5000.0)
        );
        let ms = [
            measurement("sqlite", 2500.0, 0.0, 4000.0),
            measurement("postgres", 1500.0, 0.0, 9000.0),
        ];
        let o = r.check(&ms);
        assert!(!o.passed, "postgres is below 2000");
        assert!(
            o.detail.contains("postgres") && !o.detail.contains("sqlite sync"),
            "{}",
            o.detail
        );
        assert!(r2.check(&ms).passed, "only sqlite is selected");
        let t4: Requirement = "t4.ops>2k".parse().unwrap();
        assert!(!t4.check(&ms).passed);
        let none: Requirement = "mysql.ops>=1".parse().unwrap();
        let o = none.check(&ms);
        assert!(!o.passed && o.detail.contains("no figure"), "{}", o.detail);
        for bad in [
            "tpcb.ops",
            "tpcb.p99<=5",
            "tpcb.speed>=3",
            "tpcb..ops>=1",
            "ops>=-1",
            "p99<=xms",
        ] {
            assert!(bad.parse::<Requirement>().is_err(), "{bad}");
        }
    }
}
