//! The figures of a measurement, as data: one list of definitions, each a name, how it is made
//! (throughput and latency from the step's operations; the rest from what its readings cost,
//! `measure/resources.rs`), its unit and which way is better. The cost tables, exports,
//! `compare`, `--require` and `--fail-if-worse` iterate this list, so adding a figure is one
//! entry here (and, if its reading is new, the line in a source that reads it).

use crate::measure::latency::LatencySummary;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One figure of a measurement: `server.cpu_us_per_op` = 212.0 µs/op.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    pub name: String,
    pub value: f64,
    pub unit: String,
}

/// How a figure is made: from the step's operations, or from the readings' changes over the
/// counted span of every run.
#[derive(Clone, Copy, Debug)]
pub enum Made {
    /// Operations per second, the mean over runs.
    Throughput,
    /// A latency of the operations, merged over workers and runs, in µs.
    Latency(fn(&LatencySummary) -> f64),
    /// The sum of these counters' changes, times the factor.
    Total(&'static [&'static str], f64),
    /// The same divided by the operations counted.
    PerOp(&'static [&'static str], f64),
    /// The same divided by the seconds counted.
    PerSecond(&'static [&'static str], f64),
    /// The largest level of a gauge.
    Largest(&'static str),
    /// hits / (hits + misses).
    Share(&'static str, &'static str),
    /// One sum of counters over another (device bytes per byte the engine was given).
    Ratio(&'static [&'static str], &'static [&'static str]),
    /// A profile: each reading under the prefix as its share of their sum, a figure each
    /// (named as its reading: `postgres.wait.Lock:transactionid`).
    Shares(&'static str),
}

/// A figure's definition.
#[derive(Clone, Copy, Debug)]
pub struct Definition {
    pub name: &'static str,
    /// Its column heading.
    pub label: &'static str,
    pub unit: &'static str,
    pub made: Made,
    /// Whether a larger value is better (a cache hit ratio) or worse (a cost).
    pub higher_is_better: bool,
}

pub(super) const fn cost(
    name: &'static str,
    label: &'static str,
    unit: &'static str,
    made: Made,
) -> Definition {
    Definition {
        name,
        label,
        unit,
        made,
        higher_is_better: false,
    }
}

const fn latency(
    name: &'static str,
    label: &'static str,
    of: fn(&LatencySummary) -> f64,
) -> Definition {
    cost(name, label, "us", Made::Latency(of))
}

/// Throughput: higher is better.
pub const OPS: Definition = Definition {
    higher_is_better: true,
    ..cost("ops", "ops/s", "ops/s", Made::Throughput)
};
pub const P50: Definition = latency("p50", "p50", |l| l.p50_us);
pub const P95: Definition = latency("p95", "p95", |l| l.p95_us);
pub const P99: Definition = latency("p99", "p99", |l| l.p99_us);
pub const P999: Definition = latency("p999", "p99.9", |l| l.p999_us);
/// The slowest operation.
pub const MAX: Definition = latency("max", "max", |l| l.max_us);

/// The latency figures, in the order every latency table shows them.
pub const LATENCIES: [Definition; 5] = [P50, P95, P99, P999, MAX];

impl Definition {
    /// A latency figure's value in `l`, in µs (None for any other figure).
    pub fn latency_of(&self, l: &LatencySummary) -> Option<f64> {
        match self.made {
            Made::Latency(of) => Some(of(l)),
            _ => None,
        }
    }
}

mod definitions;
pub use definitions::DEFINITIONS;

impl Definition {
    /// Whether it is made from a step's resource readings (not its operations).
    pub fn is_resource(&self) -> bool {
        !matches!(self.made, Made::Throughput | Made::Latency(_))
    }
}

/// A figure's value in a measurement (None where the step has none).
pub fn value(d: &Definition, m: &super::Measurement) -> Option<f64> {
    match d.made {
        Made::Throughput => Some(m.ops_per_sec_mean),
        Made::Latency(of) => m.latency.as_ref().map(of),
        _ => m.figure(d.name),
    }
}

/// The definition of a figure by its name.
pub fn definition(name: &str) -> Option<&'static Definition> {
    DEFINITIONS.iter().find(|d| match d.made {
        Made::Shares(prefix) => name.starts_with(prefix),
        _ => d.name == name,
    })
}

/// Every figure whose readings are there, from the runs' costs summed (`usage`: each run's
/// counters' changes and gauges' largest levels), their operations and seconds.
pub fn make(usage: &[&BTreeMap<String, f64>], ops: u64, seconds: f64) -> Vec<Figure> {
    let sum = |keys: &[&str]| -> Option<f64> {
        let present = keys
            .iter()
            .any(|k| usage.iter().any(|u| u.contains_key(*k)));
        present.then(|| {
            (usage.iter())
                .flat_map(|u| keys.iter().filter_map(|k| u.get(*k)))
                .sum()
        })
    };
    let mut out = Vec::new();
    for d in DEFINITIONS.iter().filter(|d| d.is_resource()) {
        if let Made::Shares(prefix) = d.made {
            out.extend(shares(usage, prefix, d.unit));
            continue;
        }
        let value = match d.made {
            Made::Total(keys, k) => sum(keys).map(|v| v * k),
            Made::PerOp(keys, k) => sum(keys).filter(|_| ops > 0).map(|v| v * k / ops as f64),
            Made::PerSecond(keys, k) => {
                sum(keys).filter(|_| seconds > 0.0).map(|v| v * k / seconds)
            }
            Made::Largest(key) => (usage.iter().filter_map(|u| u.get(key)))
                .copied()
                .reduce(f64::max),
            Made::Share(hit, miss) => match (sum(&[hit]), sum(&[miss])) {
                (Some(h), Some(m)) if h + m > 0.0 => Some(h / (h + m)),
                _ => None,
            },
            Made::Ratio(over, under) => match (sum(over), sum(under)) {
                (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                _ => None,
            },
            Made::Shares(_) | Made::Throughput | Made::Latency(_) => None,
        };
        if let Some(value) = value {
            out.push(Figure {
                name: d.name.into(),
                value,
                unit: d.unit.into(),
            });
        }
    }
    out
}

/// Each reading under `prefix` as its share of their sum, largest first.
fn shares(usage: &[&BTreeMap<String, f64>], prefix: &str, unit: &str) -> Vec<Figure> {
    let mut totals: BTreeMap<&str, f64> = BTreeMap::new();
    for u in usage {
        for (name, v) in u.iter().filter(|(n, _)| n.starts_with(prefix)) {
            *totals.entry(name).or_insert(0.0) += v;
        }
    }
    let all: f64 = totals.values().sum();
    if all <= 0.0 {
        return Vec::new();
    }
    let mut out: Vec<Figure> = (totals.into_iter())
        .filter(|(_, v)| *v > 0.0)
        .map(|(name, v)| Figure {
            name: name.into(),
            value: v / all,
            unit: unit.into(),
        })
        .collect();
    out.sort_by(|a, b| b.value.total_cmp(&a.value));
    out
}

/// A figure's value in each run of a measurement (for the test of significance over runs).
pub fn per_run(name: &str, m: &super::Measurement) -> Vec<f64> {
    (m.runs.iter())
        .filter_map(|r| {
            let one = make(&[&r.usage], r.ops, r.seconds);
            one.into_iter().find(|f| f.name == name).map(|f| f.value)
        })
        .collect()
}

/// A figure's value as a table shows it: three significant digits, bytes in KiB/MiB.
pub fn format(value: f64, unit: &str) -> String {
    match unit {
        "B" if value >= 1024.0 * 1024.0 => format!("{:.1} MiB", value / (1024.0 * 1024.0)),
        "B" if value >= 1024.0 => format!("{:.1} KiB", value / 1024.0),
        "B" => format!("{value:.0} B"),
        // A time from a millisecond up in the unit that fits (23.8 ms, not 23,750 µs).
        "µs" if value >= 999.5 => crate::units::latency(value),
        _ if value.abs() >= 100.0 || (value.fract() == 0.0 && unit.is_empty()) => {
            format!("{} {unit}", crate::units::thousands(value))
        }
        _ if value.abs() >= 1.0 => format!("{value:.2} {unit}"),
        _ => format!("{value:.3} {unit}"),
    }
    .trim_end()
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_exist_only_where_their_readings_do() {
        let run: BTreeMap<String, f64> = [
            ("client.cpu_user_s".to_string(), 1.5),
            ("client.cpu_system_s".to_string(), 0.5),
            ("postgres.blks_hit".to_string(), 90.0),
            ("postgres.blks_read".to_string(), 10.0),
        ]
        .into();
        let figures = make(&[&run, &run], 1000, 4.0);
        let get = |n: &str| figures.iter().find(|f| f.name == n).map(|f| f.value);
        assert_eq!(get("client.cpu_us_per_op"), Some(4000.0));
        assert_eq!(get("client.cpu_cores"), Some(1.0));
        assert_eq!(get("postgres.cache_hit_ratio"), Some(0.9));
        assert_eq!(get("server.cpu_us_per_op"), None);
        assert!(figures.iter().all(|f| definition(&f.name).is_some()));
    }
}
