//! The machine a run measured, recorded with every result (as the papers' "test environment").

use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Environment {
    pub hostname: String,
    pub cpu_model: String,
    pub cpu_cores: usize,
    pub memory_bytes: u64,
    pub os: String,
    pub kernel: String,
    /// The data directory as used, and the filesystem and device under it.
    pub data_dir: String,
    pub filesystem: String,
    pub device: String,
    pub mount_point: String,
    /// "release" or "debug": a debug build's figures are not worth comparing.
    pub build_profile: String,
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The data directory's sync ceiling, from a short probe at the start of the run.
    #[serde(default)]
    pub sync_ceiling: Option<crate::measure::fsync_probe::SyncCeiling>,
}

impl Environment {
    pub fn capture(data_dir: &Path) -> Environment {
        let cpuinfo = read("/proc/cpuinfo");
        let cpu_model = cpuinfo
            .lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_else(|| "unknown".into());
        let memory_bytes = read("/proc/meminfo")
            .lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map(|kb| kb * 1024)
            .unwrap_or(0);
        let os = read("/etc/os-release")
            .lines()
            .find(|l| l.starts_with("PRETTY_NAME="))
            .map(|l| l["PRETTY_NAME=".len()..].trim_matches('"').to_string())
            .unwrap_or_else(|| std::env::consts::OS.to_string());
        let (mount_point, filesystem, device) = mount_of(data_dir);
        let build_profile = if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        };
        let mut warnings = Vec::new();
        if cfg!(debug_assertions) {
            warnings.push("hakari was built without optimizations (debug build): figures are not representative".into());
        }
        let governor = read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
        if !governor.trim().is_empty() && governor.trim() != "performance" {
            warnings.push(format!(
                "CPU frequency scaling is on (governor '{}'): figures may vary between runs",
                governor.trim()
            ));
        }
        Environment {
            hostname: read("/proc/sys/kernel/hostname").trim().to_string(),
            cpu_model,
            cpu_cores: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            memory_bytes,
            os,
            kernel: read("/proc/sys/kernel/osrelease").trim().to_string(),
            data_dir: data_dir.display().to_string(),
            filesystem,
            device,
            mount_point,
            build_profile: build_profile.into(),
            warnings,
            sync_ceiling: crate::measure::fsync_probe::probe(
                data_dir,
                std::time::Duration::from_millis(100),
                512,
            )
            .ok(),
        }
    }
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The mount (point, fs type, source device) holding `path`: the longest mount point that is a
/// prefix of the canonical path, from /proc/self/mountinfo.
fn mount_of(path: &Path) -> (String, String, String) {
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut best: Option<(String, String, String)> = None;
    for line in read("/proc/self/mountinfo").lines() {
        // id parent major:minor root mount-point options ... - fstype source super-options
        let fields: Vec<&str> = line.split(' ').collect();
        let Some(dash) = fields.iter().position(|f| *f == "-") else {
            continue;
        };
        if fields.len() < dash + 3 || fields.len() < 5 {
            continue;
        }
        let mount_point = fields[4].replace("\\040", " ");
        if canonical.starts_with(&mount_point)
            && best
                .as_ref()
                .is_none_or(|(m, _, _)| mount_point.len() >= m.len())
        {
            best = Some((
                mount_point,
                fields[dash + 1].to_string(),
                fields[dash + 2].to_string(),
            ));
        }
    }
    best.unwrap_or_else(|| ("unknown".into(), "unknown".into(), "unknown".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_this_machine() {
        let dir = tempfile::tempdir().unwrap();
        let env = Environment::capture(dir.path());
        assert!(env.cpu_cores >= 1);
        assert!(env.memory_bytes > 0);
        assert!(!env.kernel.is_empty());
        assert_ne!(env.filesystem, "unknown");
        assert!(env.mount_point.starts_with('/'));
    }
}
