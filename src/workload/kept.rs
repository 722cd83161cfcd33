//! Load once, run many (`--keep`, `--load-only`, `--run-only`), the one rule for every workload
//! that loads data: a record beside the data on the server `--url` names (a row of
//! `hakari_kept`, or a key of a key-value store: a [`Ledger`]) says which parameters made a
//! workload's data, with which seed and when. A later run whose parameters match runs on it
//! instead of loading; one whose parameters differ is refused in one line naming the
//! difference. The record is deleted before a load starts and written once it has finished, so
//! data a failed or interrupted load left is never taken as kept.

use crate::engine::sql::{SqlConnection, SqlValue};
use crate::engine::{Engine, KvSession};
use anyhow::{bail, Context, Result};

const SQL: &str = include_str!("sql/kept.sql");

/// Which phases a run does, and whether its tables outlive it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phases {
    /// Load, run, drop: every run on fresh tables.
    #[default]
    Fresh,
    /// `--keep`: the kept tables when their parameters match (else loaded), kept after.
    Keep,
    /// `--load-only`: loaded afresh and kept; no run phase (YCSB's `load`, sysbench's `prepare`).
    LoadOnly,
    /// `--run-only`: the kept tables or a refusal; kept after (YCSB's `run`).
    RunOnly,
}

impl Phases {
    /// The phases the flags ask for (clap keeps them apart).
    pub fn of(keep: bool, load_only: bool, run_only: bool) -> Phases {
        match (keep, load_only, run_only) {
            (_, true, _) => Phases::LoadOnly,
            (_, _, true) => Phases::RunOnly,
            (true, _, _) => Phases::Keep,
            _ => Phases::Fresh,
        }
    }

    /// The tables stay after the run.
    pub fn keeps(self) -> bool {
        self != Phases::Fresh
    }

    /// The run phase runs.
    pub fn runs(self) -> bool {
        self != Phases::LoadOnly
    }

    /// The flag that asked for them, for messages.
    pub fn flag(self) -> &'static str {
        match self {
            Phases::Fresh => "",
            Phases::Keep => "--keep",
            Phases::LoadOnly => "--load-only",
            Phases::RunOnly => "--run-only",
        }
    }
}

impl Phases {
    /// Why these phases cannot be run here, if they cannot: the data is kept on a server the
    /// user gives (`urls`), since an embedded database or a private server lives in the run's
    /// own directory and goes with it; not in a store that evicts; not yet by the clients of a
    /// sharded run (`shard`: this client's place among several).
    pub fn refusal(
        self,
        workload: &str,
        keeps: bool,
        shard: Option<String>,
        engines: &[Engine],
        urls: &[String],
    ) -> Option<String> {
        let flag = self.flag();
        if !self.keeps() {
            return None;
        }
        if !keeps {
            return Some(format!("{flag} does not apply to {workload}"));
        }
        if let Some(place) = shard {
            return Some(format!("{flag} and --shard {place} do not go together yet: the clients of a sharded run load their tables afresh and drop them at the end"));
        }
        let evicts = |e: &&Engine| e.as_kv().is_some_and(|kv| kv.evicts());
        if let Some(e) = engines.iter().find(evicts) {
            return Some(format!("{flag}: {} may evict what it stores to make room, so nothing left there can be kept for a later run", e.name()));
        }
        let unreached = |e: &&Engine| !urls.iter().any(|u| e.takes_url(u));
        let e = engines.iter().find(unreached)?;
        Some(format!("{flag} keeps the data on a server given by --url, and {} has none: an embedded database or a private server lives in the run's own directory and goes with it", e.name()))
    }
}

/// What an earlier run kept.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Kept {
    /// What the last run on them left for the next (tpch: the refresh sets used).
    pub state: String,
    pub seed: u64,
    pub loaded_at: String,
}

/// Where the record of kept data lives, beside the data: a table of SQL (`Table`) or a key of a
/// key-value store (`Key`).
pub trait Ledger {
    /// The parameters `workload`'s kept data was made with, and what was kept.
    fn read(&mut self, workload: &str) -> Result<Option<(String, Kept)>>;
    /// Removes `workload`'s record, if any.
    fn erase(&mut self, workload: &str) -> Result<()>;
    /// Records `workload`'s data as made with `parameters`, in place of an earlier record.
    fn write(&mut self, workload: &str, parameters: &str, kept: &Kept) -> Result<()>;
}

/// What makes a workload's tables: the parameters a later run must match to use them.
pub struct Made {
    pub workload: &'static str,
    /// Each as the user gives it (`--scale 10`, YCSB's `recordcount=1000`).
    pub parameters: Vec<String>,
}

impl Made {
    pub fn new(workload: &'static str, parameters: Vec<String>) -> Made {
        Made {
            workload,
            parameters,
        }
    }

    fn text(&self) -> String {
        self.parameters.join("; ")
    }

    /// The kept tables to run on, or None to load afresh: `--run-only` without kept tables and
    /// kept tables of other parameters are refused, naming the difference.
    pub fn find(&self, ledger: &mut dyn Ledger, phases: Phases) -> Result<Option<Kept>> {
        if matches!(phases, Phases::Fresh | Phases::LoadOnly) {
            return Ok(None);
        }
        let Some((parameters, kept)) = ledger.read(self.workload)? else {
            if phases == Phases::RunOnly {
                bail!(
                    "--run-only: no {} data kept on this server (load it with --load-only, or run with --keep)",
                    self.workload
                );
            }
            return Ok(None);
        };
        if parameters != self.text() {
            let theirs: Vec<&str> = parameters.split("; ").collect();
            let differ: Vec<&str> = (self.parameters.iter().map(String::as_str))
                .filter(|p| !theirs.contains(p))
                .collect();
            let made: Vec<&str> = (theirs.iter().copied())
                .filter(|p| !self.parameters.iter().any(|w| w == p))
                .collect();
            bail!(
                "the {} data kept on this server (loaded {}) was made with {}, and this run asks for {}: give the same, or run without {} to load afresh",
                self.workload,
                kept.loaded_at,
                made.join(", "),
                differ.join(", "),
                phases.flag()
            );
        }
        Ok(Some(kept))
    }

    /// The data is no longer as its record says: before a load replaces it, or before a run
    /// changes it past it (tpch's refresh sets, ycsb's inserts).
    pub fn forget(&self, ledger: &mut dyn Ledger) -> Result<()> {
        ledger.erase(self.workload)
    }

    /// After a load or a run on kept data, where the run keeps it: what the next run finds.
    pub fn remember(&self, ledger: &mut dyn Ledger, phases: Phases, kept: &Kept) -> Result<()> {
        if !phases.keeps() {
            return Ok(());
        }
        ledger.write(self.workload, &self.text(), kept)?;
        eprintln!(
            "  kept: the {} data ({}) stays for a later run with --keep or --run-only",
            self.workload,
            self.parameters.join(", ")
        );
        Ok(())
    }
}

/// The record as a row of `hakari_kept`, a table beside the workload's own.
pub struct Table<'a>(pub &'a mut dyn SqlConnection);

impl Ledger for Table<'_> {
    fn read(&mut self, workload: &str) -> Result<Option<(String, Kept)>> {
        let c = &mut *self.0;
        let file = sql_file(c);
        if !exists(c, &file)? {
            return Ok(None);
        }
        let find = c.prepare(file.statement("find")?)?;
        let mut found = Vec::new();
        c.query_prepared(find, &[text(workload)], &mut |row| {
            found.push(std::mem::take(row))
        })?;
        let Some(row) = found.first() else {
            return Ok(None);
        };
        let column = |i| match row.get(i) {
            Some(SqlValue::Text(t)) => t.trim_end().to_string(),
            Some(SqlValue::Int(n)) => n.to_string(),
            _ => String::new(),
        };
        let kept = Kept {
            state: column(1),
            seed: column(2).parse().context("hakari_kept's seed")?,
            loaded_at: column(3),
        };
        Ok(Some((column(0), kept)))
    }

    /// The record table goes with the last record.
    fn erase(&mut self, workload: &str) -> Result<()> {
        let c = &mut *self.0;
        let file = sql_file(c);
        if !exists(c, &file)? {
            return Ok(());
        }
        let forget = c.prepare(file.statement("forget")?)?;
        c.exec_prepared(forget, &[text(workload)])?;
        let left = c.query(file.statement("left")?)?;
        let none = match left.first().and_then(|r| r.first()) {
            Some(SqlValue::Int(n)) => *n == 0,
            Some(SqlValue::Float(f)) => *f == 0.0,
            Some(SqlValue::Text(t)) => t.trim() == "0",
            _ => false,
        };
        if none {
            c.execute(file.statement("drop")?)?;
        }
        Ok(())
    }

    fn write(&mut self, workload: &str, parameters: &str, kept: &Kept) -> Result<()> {
        let c = &mut *self.0;
        let file = sql_file(c);
        c.execute(file.statement("create")?)?;
        let forget = c.prepare(file.statement("forget")?)?;
        c.exec_prepared(forget, &[text(workload)])?;
        let remember = c.prepare(file.statement("remember")?)?;
        let values = [
            text(workload),
            text(parameters),
            text(&kept.state),
            SqlValue::Int(kept.seed as i64),
            text(&kept.loaded_at),
        ];
        c.exec_prepared(remember, &values)?;
        Ok(())
    }
}

/// The record as one value under `hakari_kept:<workload>` in a key-value store, beside the
/// records (Redis: under hakari's prefix, like every key it writes).
pub struct Key<'a>(pub &'a mut dyn KvSession);

#[derive(serde::Serialize, serde::Deserialize)]
struct Stored {
    parameters: String,
    #[serde(flatten)]
    kept: Kept,
}

fn key(workload: &str) -> Vec<u8> {
    format!("hakari_kept:{workload}").into_bytes()
}

impl Ledger for Key<'_> {
    fn read(&mut self, workload: &str) -> Result<Option<(String, Kept)>> {
        let mut value = Vec::new();
        if !self.0.get(&key(workload), &mut value)? {
            return Ok(None);
        }
        let stored: Stored =
            serde_json::from_slice(&value).context("the record of kept data is not hakari's")?;
        Ok(Some((stored.parameters, stored.kept)))
    }

    fn erase(&mut self, workload: &str) -> Result<()> {
        self.0.delete(&key(workload))?;
        Ok(())
    }

    fn write(&mut self, workload: &str, parameters: &str, kept: &Kept) -> Result<()> {
        let stored = Stored {
            parameters: parameters.to_string(),
            kept: kept.clone(),
        };
        self.0.put(&key(workload), &serde_json::to_vec(&stored)?)
    }
}

impl Kept {
    /// Tables loaded now, by a run seeded `seed`.
    pub fn now(seed: u64) -> Kept {
        Kept {
            state: String::new(),
            seed,
            loaded_at: chrono::Utc::now()
                .format("%Y-%m-%d %H:%M:%S UTC")
                .to_string(),
        }
    }

    /// The note a run on them records.
    pub fn note(&self, config: impl std::fmt::Display, workload: &str) -> String {
        format!(
            "{config}: ran on the {workload} data an earlier run loaded at {} (seed {}) and kept; nothing was loaded",
            self.loaded_at, self.seed
        )
    }
}

/// Whether the record table is there: its count fails only for want of it.
fn exists(c: &mut dyn SqlConnection, file: &crate::workload::sql::SqlFile) -> Result<bool> {
    Ok(c.query(file.statement("left")?).is_ok())
}

fn text(s: &str) -> SqlValue {
    SqlValue::Text(s.to_string())
}

fn sql_file(c: &dyn SqlConnection) -> crate::workload::sql::SqlFile {
    let bigint = crate::workload::sql::bigint(c.dialect());
    crate::workload::sql::SqlFile::read(SQL, None, &[("bigint", &bigint)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_name_one_phase_each() {
        assert_eq!(Phases::of(false, false, false), Phases::Fresh);
        assert_eq!(Phases::of(true, false, false), Phases::Keep);
        assert_eq!(Phases::of(false, true, false), Phases::LoadOnly);
        assert_eq!(Phases::of(false, false, true), Phases::RunOnly);
        assert!(!Phases::Fresh.keeps() && Phases::RunOnly.keeps());
        assert!(!Phases::LoadOnly.runs() && Phases::Keep.runs());
    }
}
