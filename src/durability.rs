//! One durability vocabulary for every engine (DESIGN.md section 3).
//!
//! Each engine maps these levels onto its own knobs and declares which it offers; a level an engine
//! cannot honour is refused, never silently mapped to another.

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Durability {
    /// No transactions, locking or logging (Berkeley DB "Data Store").
    None,
    /// Commit returns when the log is forced to stable storage.
    Sync,
    /// Commit returns when the log is handed to the OS (write, no flush).
    WriteNosync,
    /// Commit returns with the log left in the engine's own buffer.
    Nosync,
    /// The log is kept in memory only.
    InMemory,
}

/// What a level promises about acknowledged commits; the crash test checks these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Promise {
    pub survives_process_crash: bool,
    pub survives_power_loss: bool,
}

impl Durability {
    pub const ALL: [Durability; 5] = [
        Durability::None,
        Durability::Sync,
        Durability::WriteNosync,
        Durability::Nosync,
        Durability::InMemory,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Durability::None => "none",
            Durability::Sync => "sync",
            Durability::WriteNosync => "write-nosync",
            Durability::Nosync => "nosync",
            Durability::InMemory => "in-memory",
        }
    }

    /// What "commit returned" means at this level, in words for tables and reports.
    pub fn meaning(self) -> &'static str {
        match self {
            Durability::None => "no transactions, locking or logging",
            Durability::Sync => "log forced to stable storage",
            Durability::WriteNosync => "log written to the OS, not flushed",
            Durability::Nosync => "log left in the engine's buffer",
            Durability::InMemory => "log kept in memory only",
        }
    }

    pub fn promise(self) -> Promise {
        let (p, o) = match self {
            Durability::Sync => (true, true),
            Durability::WriteNosync => (true, false),
            Durability::Nosync | Durability::InMemory | Durability::None => (false, false),
        };
        Promise {
            survives_process_crash: p,
            survives_power_loss: o,
        }
    }

    pub fn parse(s: &str) -> Result<Durability> {
        let wanted = s.trim().to_ascii_lowercase().replace('_', "-");
        for level in Durability::ALL {
            if level.name() == wanted {
                return Ok(level);
            }
        }
        bail!(
            "unknown durability level '{s}'; the levels are: {}",
            Durability::ALL.map(|d| d.name()).join(", ")
        )
    }

    /// Parses a comma-separated list, keeping the order given and dropping repeats.
    pub fn parse_list(s: &str) -> Result<Vec<Durability>> {
        let mut out = Vec::new();
        for part in s.split(',').filter(|p| !p.trim().is_empty()) {
            let d = Durability::parse(part)?;
            if !out.contains(&d) {
                out.push(d);
            }
        }
        if out.is_empty() {
            bail!("empty durability list");
        }
        Ok(out)
    }
}

impl fmt::Display for Durability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_name_and_rejects_others() {
        for d in Durability::ALL {
            assert_eq!(Durability::parse(d.name()).unwrap(), d);
        }
        assert_eq!(
            Durability::parse("WRITE_NOSYNC").unwrap(),
            Durability::WriteNosync
        );
        assert!(Durability::parse("fast").is_err());
        assert_eq!(
            Durability::parse_list("sync,nosync,sync").unwrap(),
            vec![Durability::Sync, Durability::Nosync]
        );
        assert!(Durability::parse_list(",").is_err());
    }

    #[test]
    fn promises_follow_the_design_table() {
        assert!(Durability::Sync.promise().survives_power_loss);
        assert!(Durability::WriteNosync.promise().survives_process_crash);
        assert!(!Durability::WriteNosync.promise().survives_power_loss);
        assert!(!Durability::Nosync.promise().survives_process_crash);
    }
}
