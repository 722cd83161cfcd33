//! tpcb split over several client machines (`--shard i/N`). The shards meet in a table of
//! their own: shard 1 creates the tables and lists the run's shards; the others wait for that
//! list before their first step. With `--load all` each then loads its own branches and marks
//! itself loaded, and all wait until every shard is. Each marks itself done after its last
//! step; shard 1 drops the tables once every shard is done, so that no client loses its tables
//! while it still runs.

use crate::engine::sql::{SqlDatabase, SqlValue};
use crate::shard::Shard;
use anyhow::{bail, Context, Result};
use std::time::{Duration, Instant};

const SQL: &str = include_str!("sql/shards.sql");

/// How long a shard waits for the others (shard 1's tables, the others' loads or last steps).
const PATIENCE: Duration = Duration::from_secs(600);

/// How far a shard has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Its tables exist (and are loaded, unless every shard loads its own part).
    Listed = 1,
    Loaded = 2,
    Done = 3,
}

fn section(name: &str) -> Vec<String> {
    crate::workload::sql::section(SQL, name)
}

/// One configuration's shards, known to each other by `run` (the planned start and the
/// configuration).
pub struct Meeting<'d> {
    pub db: &'d dyn SqlDatabase,
    pub shard: Shard,
    pub run: String,
}

impl Meeting<'_> {
    /// Shard 1, once the tables exist: lists every shard of the run at `stage`.
    pub fn list(&self, stage: Stage) -> Result<()> {
        let mut c = self.db.connect()?;
        for s in section("create") {
            c.execute(&s)?;
        }
        let insert = c.prepare(&section("list")[0])?;
        for i in 1..=self.shard.count {
            let row = [
                SqlValue::Text(self.run.clone()),
                SqlValue::Int(i as i64),
                SqlValue::Int(stage as i64),
            ];
            c.exec_prepared(insert, &row)?;
        }
        Ok(())
    }

    /// Moves this shard on to `stage`.
    pub fn mark(&self, stage: Stage) -> Result<()> {
        let mut c = self.db.connect()?;
        let mark = c.prepare(&section("mark")[0])?;
        let params = [
            SqlValue::Int(stage as i64),
            SqlValue::Text(self.run.clone()),
            SqlValue::Int(self.shard.index as i64),
        ];
        c.exec_prepared(mark, &params)
            .with_context(|| format!("marking shard {} {stage:?}", self.shard))?;
        Ok(())
    }

    /// How many shards of the run have reached `stage`; None while the list does not exist
    /// (shard 1 may be dropping and making it afresh: each look has a connection of its own).
    fn reached(&self, stage: Stage) -> Option<i64> {
        let mut c = self.db.connect().ok()?;
        let query = c.prepare(&section("count")[0]).ok()?;
        let mut n = None;
        let params = [
            SqlValue::Text(self.run.clone()),
            SqlValue::Int(stage as i64),
        ];
        c.query_prepared(query, &params, &mut |row| {
            n = match row.first() {
                Some(SqlValue::Int(i)) => Some(*i),
                Some(SqlValue::Text(t)) => t.parse().ok(),
                _ => None,
            }
        })
        .ok()?;
        n
    }

    /// Waits until every shard of the run has reached `stage`.
    pub fn wait_for(&self, stage: Stage, what: &str) -> Result<()> {
        let start = Instant::now();
        while start.elapsed() < PATIENCE {
            if self
                .reached(stage)
                .is_some_and(|n| n >= self.shard.count as i64)
            {
                return Ok(());
            }
            if crate::measure::interrupted() {
                bail!(crate::measure::Interrupted);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        bail!("{what} within {} s", PATIENCE.as_secs())
    }

    /// After its last step: marks this shard done; shard 1 then waits for every other one and
    /// drops the list (the caller drops the tables).
    pub fn finish(&self) -> Result<()> {
        self.mark(Stage::Done)?;
        if self.shard.is_first() {
            self.wait_for(Stage::Done, "the other shards did not finish")?;
            let mut c = self.db.connect()?;
            for s in section("drop") {
                c.execute(&s)?;
            }
        }
        Ok(())
    }
}
