//! Berkeley DB's own counters for a step's resource readings (`measure/resources.rs`): log
//! bytes, writes and syncs, and the cache's hits, misses and pages written out, through the
//! shim's `hk_stats`.

use super::{check, DbEnv};
use crate::measure::resources::{Reading, Readings, Source};
use anyhow::Result;
use std::ffi::c_int;

extern "C" {
    fn hk_stats(env: *mut DbEnv, out: *mut u64) -> c_int;
}

/// The counters of one environment.
pub(super) struct Statistics(pub(super) *mut DbEnv);

// SAFETY: the environment outlives the registration (`BdbStore::shut` drops it first); why
// reading its counters from another thread is sound is in `hk_stats` (shim.c).
unsafe impl Send for Statistics {}

impl Source for Statistics {
    fn name(&self) -> String {
        "Berkeley DB statistics".into()
    }
    fn read(&mut self, into: &mut Readings) -> Result<()> {
        let mut out = [0u64; 6];
        // SAFETY: the environment is open; the shim writes six counters.
        check(unsafe { hk_stats(self.0, out.as_mut_ptr()) }, "statistics")?;
        let names = [
            "bdb.log_bytes",
            "bdb.log_writes",
            "bdb.log_syncs",
            "bdb.cache_hit",
            "bdb.cache_miss",
            "bdb.pages_written",
        ];
        for (name, v) in names.into_iter().zip(out) {
            // A Data Store has no log: its log counters are absent, not zero.
            if v != u64::MAX {
                into.insert(name.into(), Reading::Counter(v as f64));
            }
        }
        Ok(())
    }
}
