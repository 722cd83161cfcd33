//! A terminal count's figures: a measurement per transaction type and one for all, NOPM beside
//! the database's own count, TPM, each type's share, p90 and retries, and the achieved shares.

use super::emulator::{sum_retries, Tally};
use super::presets::TpccParams;
use super::terminal::Kind;
use super::Config;
use crate::measure::runner::StepOutcome;
use crate::results::{MeasurementKey, Metric};
use crate::workload::RunContext;
use anyhow::Result;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

pub fn measurement_key(
    p: &TpccParams,
    config: Config,
    clients: usize,
    step: &str,
) -> MeasurementKey {
    let mut c = BTreeMap::new();
    c.insert("warehouses".into(), p.warehouses.into());
    c.insert("think_times".into(), p.think.into());
    if let Some(w) = p.weights {
        c.insert("weights".into(), serde_json::json!(w));
    }
    MeasurementKey::new(config.engine.name(), config.durability, clients, step, c)
}

/// One kind of transaction's share of a run. TPC-C states costs per New-Order: the whole mix's
/// work over the New-Orders (as tpmC counts them), so the New-Order share carries the run's
/// resource readings.
fn of_kind(o: &StepOutcome, k: Kind) -> StepOutcome {
    let mut share = o.share(o.by_kind.get(k.index()));
    if k == Kind::NewOrder {
        share.resources = o.resources.clone();
    }
    share
}

/// The runs at one terminal count: a measurement per transaction type and one for all, and the
/// derived figures: NOPM beside the database's own count, TPM, the achieved shares.
pub fn record(
    p: &TpccParams,
    config: Config,
    clients: usize,
    ctx: &mut RunContext,
    outcomes: &[StepOutcome],
    tallies: &[(Tally, i64, f64)],
) -> Result<()> {
    let minutes: f64 = outcomes.iter().map(|o| o.seconds).sum::<f64>() / 60.0;
    let count = |k: Kind| -> u64 {
        (outcomes.iter())
            .map(|o| o.by_kind.get(k.index()).map_or(0, |h| h.len()))
            .sum()
    };
    let total: u64 = Kind::ALL.iter().map(|&k| count(k)).sum();
    let sum = |f: fn(&Tally) -> &AtomicU64| -> u64 {
        tallies
            .iter()
            .map(|(t, ..)| f(t).load(Ordering::Relaxed))
            .sum()
    };
    let who = format!(
        "{}, {clients} terminals, {} warehouse(s)",
        config.durability, p.warehouses
    );
    let mut metric = |name: &str, value: f64, unit: &str| {
        ctx.recorder.metric(Metric {
            name: name.into(),
            value,
            unit: unit.into(),
            engine: Some(config.engine.name().into()),
            note: Some(who.clone()),
        })
    };
    let nopm = count(Kind::NewOrder) as f64 / minutes;
    metric("NOPM", nopm, "New-Orders/min");
    metric("TPM", total as f64 / minutes, "transactions/min");
    // HammerDB's figure: what the districts' next order ids grew by, over the whole run
    // (ramp-up included: it is read before and after), rollbacks excluded.
    let database: i64 = tallies.iter().map(|(_, d, _)| d).sum();
    let whole_minutes = tallies.iter().map(|(.., wall)| wall).sum::<f64>() / 60.0;
    metric(
        "NOPM by the database",
        database as f64 / whole_minutes,
        "New-Orders/min",
    );
    if p.think && total > 0 {
        let shares = Kind::ALL.map(|k| count(k) as f64 / total as f64);
        let ceiling = ceiling_per_warehouse(shares);
        metric("NOPM ceiling per warehouse", ceiling, "New-Orders/min");
        let efficiency = 100.0 * nopm / (ceiling * p.warehouses as f64);
        metric("efficiency", efficiency, "%");
    }
    for k in Kind::ALL {
        metric(
            &format!("{} share", k.name()),
            percent(count(k), total),
            "%",
        );
        metric(
            &format!("{} retries", k.name()),
            sum_retries(tallies, k) as f64,
            "retries",
        );
        let p90 = super::view::percentile(outcomes, k.index(), 90.0);
        metric(&format!("{} p90", k.name()), p90, "ms");
    }
    metric(
        "New-Orders rolled back",
        percent(sum(|t| &t.rollbacks), count(Kind::NewOrder)),
        "%",
    );
    metric(
        "remote order lines",
        percent(sum(|t| &t.remote_lines), sum(|t| &t.lines)),
        "%",
    );
    metric(
        "remote payments",
        percent(sum(|t| &t.remote_payments), sum(|t| &t.payments)),
        "%",
    );
    metric(
        "customers by last name",
        percent(sum(|t| &t.by_name), sum(|t| &t.customer_lookups)),
        "%",
    );
    let districts = 10 * sum(|t| &t.deliveries);
    metric(
        "districts skipped by Delivery",
        percent(sum(|t| &t.skipped_districts), districts),
        "%",
    );
    for k in Kind::ALL {
        let per_kind: Vec<StepOutcome> = outcomes.iter().map(|o| of_kind(o, k)).collect();
        ctx.measured(measurement_key(p, config, clients, k.name()), &per_kind)?;
    }
    ctx.measured(measurement_key(p, config, clients, "all"), outcomes)
}

/// `part` as a percentage of `of` (0 when there is none of it).
fn percent(part: u64, of: u64) -> f64 {
    match of {
        0 => 0.0,
        _ => 100.0 * part as f64 / of as f64,
    }
}

/// The New-Orders a warehouse's ten terminals can give a minute with keying and think times on
/// and no time at all to respond (§5.4.3's bound), for the mix dealt: each transaction's share
/// of the terminals' cycles times its keying time and its mean think time (a negative
/// exponential cut at ten times its mean, whose mean is m(1 - e^-10)). The 23-card deck gives
/// 12.6; the spec's minimum mix with 45% New-Orders, 12.86.
pub fn ceiling_per_warehouse(shares: [f64; 5]) -> f64 {
    let cut = 1.0 - (-10.0f64).exp();
    let cycle: f64 = (Kind::ALL.iter())
        .map(|k| shares[k.index()] * (k.keying_secs() + k.think_mean_secs() * cut))
        .sum();
    10.0 * 60.0 / cycle * shares[Kind::NewOrder.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The deck's mix and the 45/43/4/4/4 mix give the ceilings worked out by hand from the
    /// spec's keying and think times: 10 x 60 / (476/23 s) x 10/23, and 10 x 60 / 20.99 s x 0.45.
    #[test]
    fn the_ceiling_follows_the_mix() {
        let deck = [10.0, 10.0, 1.0, 1.0, 1.0].map(|c| c / 23.0);
        let by_hand = 600.0 / (476.0 / 23.0) * (10.0 / 23.0);
        assert!((ceiling_per_warehouse(deck) - by_hand).abs() < 1e-3);
        assert!((ceiling_per_warehouse(deck) - 12.6).abs() < 0.01);
        let minimum = [0.45, 0.43, 0.04, 0.04, 0.04];
        assert!((ceiling_per_warehouse(minimum) - 12.86).abs() < 0.01);
    }
}
