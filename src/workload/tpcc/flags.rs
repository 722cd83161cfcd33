//! The tpcc workload's own flags, and the parameters they make.

use super::presets::{self, Check, TpccParams};
use crate::workload::flags::{self, Flags, Shared};
use anyhow::{bail, Result};
use clap::Args;

#[derive(Args, Clone, Debug)]
pub struct TpccFlags {
    /// Warehouses (default 1). Each holds ~500,000 rows (~70 MB) besides the 100,000 items.
    /// Several (1,4,16) load and measure each in turn, for NOPM against warehouses.
    #[arg(long, value_name = "N[,N...]")]
    pub warehouses: Option<String>,
    /// Measured seconds of each run (default 20; spec: 600, hammerdb: 300).
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,
    /// Seconds each run runs before it is measured (default 2; spec: 60, hammerdb: 120).
    #[arg(long, value_name = "SECONDS")]
    pub ramp_up: Option<f64>,
    /// Keying and think times (§5.2.5.7) before and after each transaction: off by default,
    /// as HammerDB runs; with them a warehouse yields at most ~12.6 New-Orders a minute (the 23-card deck's mix).
    #[arg(long)]
    pub think_times: bool,
    /// Percentages of New-Order, Payment, Order-Status, Delivery and Stock-Level, e.g.
    /// 45,43,4,4,4, drawn at random instead of the 23-card deck. A mix under §5.2.3's minima
    /// runs, and the result says it is not TPC-C's.
    #[arg(long, value_name = "NO,P,OS,D,SL")]
    pub weights: Option<String>,
    /// Consistency conditions checked (§3.3.2): none; required (1-4 after every run); all
    /// (default: 1-10 and 12 after every run, 11 right after the load).
    #[arg(long, value_name = "WHICH")]
    pub check: Option<String>,
}

impl Flags for TpccFlags {
    type Workload = TpccParams;
    const PRESETS: &'static [&'static str] = &presets::PRESETS;
    const ABOUT: &'static str = "TPC-C's five transactions by terminals bound to their warehouses, with the consistency conditions checked after every run; reports NOPM (tpmC-like, not audited).";
    const MORE: &'static str = "Terminals: 10 per warehouse unless --clients says how many (spread over the warehouses). Each deals New-Order, Payment, Order-Status, Delivery and Stock-Level from a 23-card deck (10/10/1/1/1), as the specification does. A broken consistency condition ends the run with exit code 3.\n\nPresets: spec (keying and think times on, 60 s ramp-up, 600 s measured); hammerdb (no keying or think time, 120 s ramp-up, 300 s measured, as HammerDB's default timed test).";
    const EXAMPLES: &'static str = "Examples:\n  hakari run tpcc                                  1 warehouse on SQLite, 20 s\n  hakari run tpcc --engine postgres --warehouses 10 --clients 8\n  hakari run tpcc --engine mysql --url mysql://u@db/test --warehouses 100 --keep\n  hakari run tpcc --preset spec --engine postgres --warehouses 2";
    fn workload(&self, shared: &Shared) -> Result<TpccParams> {
        let mut p = shared.start_from(presets::preset, presets::default_params)?;
        if let Some(text) = &self.warehouses {
            let counts = crate::units::parse_counts(text, "warehouses")
                .map_err(|e| anyhow::anyhow!("--warehouses {text}: {e}"))?;
            p.warehouse_counts = (counts.into_iter()).map(|w| w as u64).collect();
            p.warehouses = p.warehouse_counts[0];
        }
        flags::set(&mut p.duration_secs, self.duration);
        flags::set(&mut p.ramp_up_secs, self.ramp_up);
        p.think |= self.think_times;
        if let Some(text) = &self.weights {
            p.weights = Some(weights(text)?);
        }
        if let Some(text) = &self.check {
            p.check = Check::parse(text)?;
        }
        flags::set(&mut p.runs, shared.runs);
        if let Some(clients) = shared.threads("clients")? {
            p.clients = Some(clients);
        }
        Ok(p)
    }
}

/// Five percentages that sum to 100.
fn weights(text: &str) -> Result<[u32; 5]> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let Ok(values) = parts
        .iter()
        .map(|p| p.parse::<u32>())
        .collect::<Result<Vec<u32>, _>>()
    else {
        bail!("--weights takes five whole percentages, e.g. 45,43,4,4,4; not '{text}'");
    };
    let Ok(five) = <[u32; 5]>::try_from(values) else {
        bail!("--weights takes five percentages (New-Order, Payment, Order-Status, Delivery, Stock-Level); '{text}' has {}", parts.len());
    };
    if five.iter().sum::<u32>() != 100 {
        bail!(
            "--weights must sum to 100; {text} sums to {}",
            five.iter().sum::<u32>()
        );
    }
    Ok(five)
}

#[cfg(test)]
mod tests {
    #[test]
    fn weights_are_five_percentages_summing_to_100() {
        assert_eq!(super::weights("45,43,4,4,4").unwrap(), [45, 43, 4, 4, 4]);
        assert!(super::weights("45,43,4,4").is_err());
        assert!(super::weights("50,43,4,4,4").is_err());
        assert!(super::weights("a,43,4,4,4").is_err());
    }
}
