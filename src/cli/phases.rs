//! `--keep`, `--load-only` and `--run-only`: the flags of a workload that keeps what it loaded
//! (`workload::kept`), added to its command only where it `KEEPS`.

use crate::workload::kept::Phases;
use clap::Args;

/// Load once, run many: the flags of a workload that loads tables (`workload::kept`).
#[derive(Args, Clone, Debug)]
#[command(next_help_heading = "Load once, run many (on a server given by --url)")]
pub struct PhaseArgs {
    /// Keep the loaded tables after the run, with a record of the parameters and seed that made
    /// them; a later run with --keep and the same parameters runs on them without loading (and
    /// says so), one with other parameters is refused naming the difference.
    #[arg(long, conflicts_with_all = ["load_only", "run_only"])]
    keep: bool,
    /// Load the tables, keep them, and stop: no run phase (YCSB's load, sysbench's prepare).
    #[arg(long, conflicts_with = "run_only")]
    load_only: bool,
    /// Run on the tables an earlier --load-only or --keep run kept with the same parameters,
    /// and keep them again; refused where there are none (YCSB's run, sysbench's run).
    #[arg(long)]
    run_only: bool,
}

impl PhaseArgs {
    pub fn phases(&self) -> Phases {
        Phases::of(self.keep, self.load_only, self.run_only)
    }
}
