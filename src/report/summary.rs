//! The answer first: per run a few headline figures, how they stand against the papers' and
//! against an earlier run of the same workload. The report's page opens with them.

use super::compare;
use super::published;
use crate::results::{Measurement, RunResult};
use crate::units::thousands;

/// The most steps a headline names; a run of more (Wisconsin's 32 queries) says it otherwise.
const MOST_STEPS: usize = 6;

/// Whether a measurement is of an engine that keeps nothing (`null`): the harness's own
/// ceiling, never a database's answer.
fn harness_only(m: &Measurement) -> bool {
    (crate::engine::all().into_iter()).any(|e| e.name() == m.engine && !e.keeps_data())
}

/// Per step, the configuration of a real engine that did the most operations per second (the
/// `null` engine's only where nothing else ran, and said to be the harness's ceiling).
pub fn best_per_step(r: &RunResult) -> Vec<String> {
    let ms: Vec<&Measurement> = (r.measurements.iter())
        .filter(|m| !m.config.contains_key("statement"))
        .collect();
    let real: Vec<&Measurement> = ms.iter().copied().filter(|m| !harness_only(m)).collect();
    let ms = if real.is_empty() { ms } else { real };
    let steps = super::step_columns(&r.measurements);
    let mut lines = Vec::new();
    for step in steps.iter().take(MOST_STEPS) {
        let best = (ms.iter().filter(|m| &m.step == step))
            .max_by(|a, b| a.ops_per_sec_mean.total_cmp(&b.ops_per_sec_mean));
        if let Some(m) = best {
            lines.push(format!(
                "{step}: {} ops/s ({} {} t{}{})",
                thousands(m.ops_per_sec_mean),
                m.engine,
                m.durability,
                m.threads,
                if harness_only(m) {
                    ": the harness's own ceiling, no database"
                } else {
                    ""
                }
            ));
        }
    }
    if steps.len() > MOST_STEPS {
        lines.push(format!("and {} more steps", steps.len() - MOST_STEPS));
    }
    lines
}

/// This machine's figures against the papers' for the same configurations: the geometric mean
/// of the ratios and their range; None where no figure has a published one.
pub fn against_published(r: &RunResult) -> Option<String> {
    let ratios: Vec<f64> = (r.measurements.iter())
        .filter_map(|m| {
            let p = published::for_figure(
                r.preset.as_deref(),
                &m.engine,
                &m.durability,
                m.threads,
                &m.step,
            )?;
            (p.mean > 0.0 && m.ops_per_sec_mean > 0.0).then(|| m.ops_per_sec_mean / p.mean)
        })
        .collect();
    if ratios.is_empty() {
        return None;
    }
    let mean = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
    let (low, high) = (ratios.iter()).fold((f64::MAX, 0.0f64), |(l, h), r| (l.min(*r), h.max(*r)));
    Some(format!(
        "{mean:.2}× the paper's ops/s (geometric mean of {} figures, {low:.2}× to {high:.2}×)",
        ratios.len()
    ))
}

/// `new` against `base`, two runs of one workload: how many shared figures changed by more than
/// the runs' noise, and the largest changes; None when they share no figure.
pub fn against_run(base: &RunResult, new: &RunResult) -> Option<String> {
    let changes = compare::compare(base, new);
    if changes.is_empty() {
        return None;
    }
    let judged = changes
        .iter()
        .filter(|c| c.significance().p_value().is_some())
        .count();
    if judged == 0 {
        return Some(format!(
            "against run {}: {} shared figures; whether they changed beyond the noise cannot be \
             judged (fewer than 2 runs)",
            base.run_id,
            changes.len()
        ));
    }
    let significant: Vec<&compare::Change> = (changes.iter())
        .filter(|c| c.significance().is_significant())
        .collect();
    let mut text = format!(
        "against run {}: {} of {} shared figures changed significantly (Welch's t-test, p < 0.05)",
        base.run_id,
        significant.len(),
        changes.len()
    );
    let best = significant
        .iter()
        .max_by(|a, b| a.percent().total_cmp(&b.percent()));
    let worst = significant
        .iter()
        .min_by(|a, b| a.percent().total_cmp(&b.percent()));
    if let Some(c) = best.filter(|c| c.percent() > 0.0) {
        text.push_str(&format!(
            "; most gained {:+.1}% ({})",
            c.percent(),
            c.figure
        ));
    }
    if let Some(c) = worst.filter(|c| c.percent() < 0.0) {
        text.push_str(&format!("; most lost {:+.1}% ({})", c.percent(), c.figure));
    }
    Some(text)
}
