//! The device's sync ceiling: how fast small appends can be forced to stable storage in a
//! directory, with fsync and with fdatasync. A `sync` result cannot beat it with one committer;
//! group commit goes past it with many.

use super::latency::{new_histogram, LatencySummary};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::time::{Duration, Instant};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SyncCeiling {
    pub append_bytes: usize,
    pub fsync_per_sec: f64,
    pub fsync_latency: Option<LatencySummary>,
    pub fdatasync_per_sec: f64,
    pub fdatasync_latency: Option<LatencySummary>,
}

/// Appends `append_bytes` and syncs, for `each` per call, in a temporary file inside `dir`.
pub fn probe(dir: &Path, each: Duration, append_bytes: usize) -> Result<SyncCeiling> {
    let mut file = tempfile::Builder::new()
        .prefix("hakari-fsync-probe-")
        .tempfile_in(dir)
        .with_context(|| format!("cannot write a probe file in {}", dir.display()))?;
    let block = vec![b'x'; append_bytes];
    let mut measure = |data_only: bool| -> Result<(f64, Option<LatencySummary>)> {
        let mut h = new_histogram();
        let start = Instant::now();
        let mut n = 0u64;
        while start.elapsed() < each {
            let t = Instant::now();
            file.write_all(&block)?;
            let fd = file.as_file().as_raw_fd();
            // SAFETY: fd is the open probe file.
            let rc = unsafe {
                if data_only {
                    libc::fdatasync(fd)
                } else {
                    libc::fsync(fd)
                }
            };
            if rc != 0 {
                return Err(std::io::Error::last_os_error()).context("sync failed");
            }
            h.saturating_record(t.elapsed().as_nanos() as u64);
            n += 1;
        }
        Ok((
            n as f64 / start.elapsed().as_secs_f64(),
            LatencySummary::of(&h),
        ))
    };
    let (fsync_per_sec, fsync_latency) = measure(false)?;
    let (fdatasync_per_sec, fdatasync_latency) = measure(true)?;
    Ok(SyncCeiling {
        append_bytes,
        fsync_per_sec,
        fsync_latency,
        fdatasync_per_sec,
        fdatasync_latency,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_both_calls() {
        let dir = tempfile::tempdir().unwrap();
        let c = probe(dir.path(), Duration::from_millis(50), 512).unwrap();
        assert!(c.fsync_per_sec > 0.0 && c.fdatasync_per_sec > 0.0);
        let l = c.fsync_latency.unwrap();
        assert!(l.count > 0 && l.p50_us > 0.0 && l.p50_us <= l.p99_us);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "the probe file is removed"
        );
    }
}
