//! Behaviour over time and under load, read once from a result file for the terminal and the
//! HTML: each step's interval series per configuration, the open loop's figures, latency
//! against offered load, and the TPC-H throughput test's streams as a timeline.

use super::table::Table;
use super::{config_text, durability_label, varying_config};
use crate::measure::intervals::IntervalFigure;
use crate::results::{Measurement, OpenLoopFigures, RunResult};

/// One configuration's series in one step (one per run when a step ran more than once).
pub struct Series<'a> {
    pub label: String,
    pub intervals: &'a [IntervalFigure],
    /// Whether a last interval much shorter than the others was left out: a few milliseconds
    /// of a step's end would be drawn as a full point, its rate and p99 far off the line.
    pub partial_left_out: bool,
    /// When the run's fault (`--fault`) began and ended, in seconds into the step.
    pub fault: Option<(f64, f64)>,
}

/// The intervals to draw: all but a last one shorter than half the longest.
fn drawn(intervals: &[IntervalFigure]) -> (&[IntervalFigure], bool) {
    let longest = intervals.iter().map(|f| f.seconds).fold(0.0, f64::max);
    match intervals.split_last() {
        Some((last, rest)) if !rest.is_empty() && last.seconds < longest / 2.0 => (rest, true),
        _ => (intervals, false),
    }
}

/// The series of each step, in the order the steps ran: only steps long enough to show a
/// shape (three intervals or more in some run).
pub fn series_by_step(r: &RunResult) -> Vec<(String, Vec<Series<'_>>)> {
    let varying = varying_config(&r.measurements);
    let mut steps: Vec<(String, Vec<Series>)> = Vec::new();
    for m in &r.measurements {
        let label = format!(
            "{} {} t{}",
            m.engine,
            durability_label(m, &varying),
            m.threads
        );
        let many = m.runs.len() > 1;
        for (k, run) in m.runs.iter().enumerate() {
            if run.intervals.len() < 3 {
                continue;
            }
            let (intervals, partial_left_out) = drawn(&run.intervals);
            let series = Series {
                label: if many {
                    format!("{label} run {}", k + 1)
                } else {
                    label.clone()
                },
                intervals,
                partial_left_out,
                fault: (run.usage.get("fault.began_s"))
                    .zip(run.usage.get("fault.ended_s"))
                    .map(|(a, b)| (*a, *b)),
            };
            match steps.iter_mut().find(|(s, _)| *s == m.step) {
                Some((_, list)) => list.push(series),
                None => steps.push((m.step.clone(), vec![series])),
            }
        }
    }
    steps
}

/// One configuration's latency at each offered rate.
pub struct LoadCurve {
    pub label: String,
    /// (asked ops/s, achieved ops/s, p50 µs, p99 µs, service p99 µs), by rate.
    pub points: Vec<LoadPoint>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoadPoint {
    pub rate: f64,
    pub achieved: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub service_p99_us: f64,
}

/// Per step, each configuration's latency against the rate asked: only where two rates or more
/// were run.
pub fn load_curves(r: &RunResult) -> Vec<(String, Vec<LoadCurve>)> {
    let open: Vec<&Measurement> = (r.measurements.iter())
        .filter(|m| m.open_loop.is_some())
        .collect();
    let mut varying: Vec<String> = varying_config(&r.measurements);
    varying.retain(|k| k != "rate");
    let mut steps: Vec<(String, Vec<LoadCurve>)> = Vec::new();
    for m in open {
        let (Some(open), Some(latency)) = (&m.open_loop, &m.latency) else {
            continue;
        };
        let label = format!(
            "{} {} t{}",
            m.engine,
            durability_label(m, &varying),
            m.threads
        );
        let point = LoadPoint {
            rate: open.rate,
            achieved: m.ops_per_sec_mean,
            p50_us: latency.p50_us,
            p99_us: latency.p99_us,
            service_p99_us: open.service.map_or(0.0, |s| s.p99_us),
        };
        let curves = match steps.iter_mut().find(|(s, _)| *s == m.step) {
            Some((_, curves)) => curves,
            None => {
                steps.push((m.step.clone(), Vec::new()));
                &mut steps.last_mut().unwrap().1
            }
        };
        match curves.iter_mut().find(|c| c.label == label) {
            Some(c) => c.points.push(point),
            None => curves.push(LoadCurve {
                label,
                points: vec![point],
            }),
        }
    }
    steps.retain(|(_, curves)| curves.iter().any(|c| c.points.len() > 1));
    steps
}

/// What one stream of a TPC-H throughput test ran: (name, start s, seconds), in order.
pub struct StreamLane {
    pub name: String,
    pub runs: Vec<(String, f64, f64)>,
}

/// The throughput test's streams of each configuration (engine, level, scale factor), from the
/// start each query and refresh function recorded.
pub fn tpch_timelines(r: &RunResult) -> Vec<(String, Vec<StreamLane>)> {
    let mut configs: Vec<(String, Vec<StreamLane>)> = Vec::new();
    for m in &r.measurements {
        let Some(start) = m.produced.get("start_s").and_then(|v| v.as_f64()) else {
            continue;
        };
        let test = config_text(m, "test");
        let lane = if test == "refresh stream" {
            "refresh".to_string()
        } else {
            format!("stream {}", config_text(m, "stream"))
        };
        let config = format!("{} {} SF {}", m.engine, m.durability, config_text(m, "sf"));
        let seconds = m.runs.first().map_or(0.0, |run| run.seconds);
        let lanes = match configs.iter_mut().find(|(c, _)| *c == config) {
            Some((_, lanes)) => lanes,
            None => {
                configs.push((config, Vec::new()));
                &mut configs.last_mut().unwrap().1
            }
        };
        match lanes.iter_mut().find(|l| l.name == lane) {
            Some(l) => l.runs.push((m.step.clone(), start, seconds)),
            None => lanes.push(StreamLane {
                name: lane,
                runs: vec![(m.step.clone(), start, seconds)],
            }),
        }
    }
    configs
}

/// The open-loop measurements as a table (empty for a closed loop), the same in the terminal
/// and the HTML: the rate asked and achieved, latency from the intended start, service time (what
/// a closed loop reports), schedule lag, late and skipped operations.
pub fn open_loop_table(r: &RunResult) -> Table {
    let mut varying = varying_config(&r.measurements);
    varying.retain(|k| k != "rate");
    let headers = OPEN_LOOP_HEADERS.iter().map(|h| h.to_string()).collect();
    let mut t = Table::new(
        "Open loop: latency from each operation's intended start",
        headers,
        2,
    );
    for m in &r.measurements {
        if let Some(open) = &m.open_loop {
            let config = format!(
                "{} {} t{}",
                m.engine,
                durability_label(m, &varying),
                m.threads
            );
            t.row(open_loop_cells(config, m, open));
        }
    }
    t
}

/// The cells of an open-loop row; "behind" when it could not keep up.
fn open_loop_cells(config: String, m: &Measurement, open: &OpenLoopFigures) -> Vec<String> {
    let time = |us: Option<f64>| us.map_or("-".into(), |us| crate::units::duration(us / 1e6));
    let l = m.latency.as_ref();
    vec![
        config,
        m.step.clone(),
        crate::units::thousands(open.rate),
        crate::units::thousands(m.ops_per_sec_mean),
        time(l.map(|l| l.p50_us)),
        time(l.map(|l| l.p99_us)),
        time(l.map(|l| l.max_us)),
        time(open.service.map(|s| s.p99_us)),
        time(open.lag.map(|s| s.p99_us)),
        m.late.map_or("-".into(), |n| n.to_string()),
        open.skipped.to_string(),
        if open.behind { "behind" } else { "" }.into(),
    ]
}

const OPEN_LOOP_HEADERS: [&str; 12] = [
    "configuration",
    "step",
    "asked ops/s",
    "achieved ops/s",
    "p50",
    "p99",
    "max",
    "service p99",
    "lag p99",
    "late",
    "skipped",
    "",
];
