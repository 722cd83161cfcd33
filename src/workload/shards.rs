//! A SQL workload split over several client machines (`--shard i/N`: tpcb's branches, tpcc's
//! warehouses). The shards meet in a table of their own beside the workload's (`<prefix>shards`):
//! shard 1 creates the tables and lists the run's shards; the others wait for that list before
//! their first step. With `--load all` each then loads its own part and marks itself loaded, and
//! all wait until every shard is. Each marks itself done after its last step; shard 1 drops the
//! tables once every shard is done, so that no client loses its tables while it still runs. A
//! shard that fails marks itself failed, and the others stop waiting for it at once.

use crate::engine::sql::{SqlConnection, SqlDatabase, SqlValue};
use crate::shard::{wait_for_others, Shard};
use crate::workload::RunContext;
use anyhow::{bail, Context, Result};
use std::cell::Cell;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const SQL: &str = include_str!("sql/shards.sql");

/// How far a shard has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Listed by a shard 1 that failed: the run will not start.
    Unstarted = 0,
    /// Its tables exist (and are loaded, unless every shard loads its own part).
    Listed = 1,
    Loaded = 2,
    /// Checked in for the run phase: shard 1 names the start once every shard has.
    Ready = 3,
    Done = 4,
    /// Failed: a stage no other one replaces.
    Failed = -1,
}

/// One configuration's shards, known to each other by `run` (the planned start and the
/// configuration).
pub struct Meeting<'d> {
    db: &'d dyn SqlDatabase,
    pub shard: Shard,
    run: String,
    /// The workload's table prefix (`hakari_tpcb_`), which the meeting's table takes too.
    prefix: &'static str,
    /// Whether this shard (shard 1) has listed the run.
    listed: Cell<bool>,
}

/// One configuration's measuring on `db`, with the meeting of its shards where there are several
/// (`--shard i/N`, N > 1; they know each other by the planned start and `config`): `measure` runs
/// with it, a failure abandons it (the others stop waiting at once), and it finishes either way.
/// Then `drop_tables` runs once every shard is done, where this client drops the tables (shard
/// 1, or a client alone) and `keep` does not keep them. Every workload that shards runs this.
pub fn measured_with_shards(
    db: &dyn SqlDatabase,
    ctx: &mut RunContext,
    config: impl std::fmt::Display,
    prefix: &'static str,
    keep: bool,
    measure: impl FnOnce(&mut RunContext, Option<&Meeting>) -> Result<()>,
    drop_tables: impl FnOnce() -> Result<()>,
) -> Result<()> {
    let meeting = ctx.shard.filter(|s| s.count > 1).map(|shard| {
        let at = (ctx.timing.start_at).map_or(0.0, crate::results::time::unix_seconds);
        Meeting::new(db, shard, format!("{at:.3} {config}"), prefix)
    });
    let outcome = measure(ctx, meeting.as_ref());
    if let (Err(_), Some(m)) = (&outcome, &meeting) {
        m.abandon();
    }
    let finished = meeting.as_ref().map_or(Ok(()), |m| m.finish());
    // The tables go even when the run failed: they are hakari's own.
    let cleanup = match keep || !ctx.shard.is_none_or(|s| s.is_first()) {
        true => finished,
        false => finished.and_then(|()| drop_tables()),
    };
    outcome.and(cleanup)
}

/// `steps` with the shards' first steps starting together, at the instant shard 1 names once
/// all is loaded (without a meeting, at the planned start); the planned start is put back after.
pub fn started_together<T>(
    meeting: Option<&Meeting>,
    ctx: &mut RunContext,
    steps: impl FnOnce(&mut RunContext) -> Result<T>,
) -> Result<T> {
    let planned = ctx.timing.start_at;
    if let Some(m) = meeting {
        ctx.timing.start_at = Some(m.run_start(planned)?);
    }
    let outcome = steps(ctx);
    ctx.timing.start_at = planned;
    outcome
}

impl<'d> Meeting<'d> {
    pub fn new(
        db: &'d dyn SqlDatabase,
        shard: Shard,
        run: String,
        prefix: &'static str,
    ) -> Meeting<'d> {
        Meeting {
            db,
            shard,
            run,
            prefix,
            listed: Cell::new(false),
        }
    }

    /// The statements of section `name`, the meeting's table named.
    fn section(&self, name: &str) -> Vec<String> {
        let file = crate::workload::sql::SqlFile::read(SQL, None, &[("p", &self.prefix)]);
        file.statements(name).to_vec()
    }

    /// Shard 1, once the tables exist: lists every shard of the run at `stage`.
    pub fn list(&self, stage: Stage) -> Result<()> {
        self.listed.set(true);
        let mut c = self.db.connect()?;
        for s in self.section("create") {
            c.execute(&s)?;
        }
        let insert = c.prepare(&self.section("list")[0])?;
        for i in 1..=self.shard.count {
            // Shard 1 failing lists only itself as failed; the others fail when they see it.
            let stage = match (stage, i) {
                (Stage::Failed, 2..) => Stage::Unstarted,
                _ => stage,
            };
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
        let mark = c.prepare(&self.section("mark")[0])?;
        let params = [
            SqlValue::Int(stage as i64),
            SqlValue::Text(self.run.clone()),
            SqlValue::Int(self.shard.index as i64),
        ];
        c.exec_prepared(mark, &params)
            .with_context(|| format!("marking shard {} {stage:?}", self.shard))?;
        Ok(())
    }

    /// After this shard failed: marks it so, listing the run first if shard 1 failed before it
    /// did (best effort: the failure itself is what the caller reports).
    pub fn abandon(&self) {
        let _ = match self.shard.is_first() && !self.listed.get() {
            true => self.list(Stage::Failed),
            false => self.mark(Stage::Failed),
        };
    }

    /// The one number `query` answers for the run: how many shards have reached `stage`
    /// (`count`) or failed (`failed`), or when shard 1 said the steps start (`start`). None
    /// while there is no answer yet, as `c` (a connection of each look's own: shard 1 may be
    /// dropping the list and making it afresh) reads it.
    fn count(&self, c: &mut dyn SqlConnection, query: &str, stage: Option<Stage>) -> Option<i64> {
        let query = c.prepare(&self.section(query)[0]).ok()?;
        let mut n = None;
        let mut params = vec![SqlValue::Text(self.run.clone())];
        params.extend(stage.map(|s| SqlValue::Int(s as i64)));
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

    /// Waits until every shard of the run has reached `stage` (`Done`: or failed); stops at
    /// once when one has failed before it.
    pub fn wait_for(&self, stage: Stage, what: &str) -> Result<()> {
        wait_for_others(what, || {
            let Ok(mut c) = self.db.connect() else {
                return Ok(false);
            };
            let failed = self.count(c.as_mut(), "failed", None).unwrap_or(0);
            if failed > 0 && stage != Stage::Done {
                bail!("{what}: {failed} shard(s) of this run failed (their own output says why)");
            }
            let reached = self.count(c.as_mut(), "count", Some(stage)).unwrap_or(0);
            let finished = if stage == Stage::Done { failed } else { 0 };
            Ok(reached + finished >= self.shard.count as i64)
        })
    }

    /// The instant every shard starts its first step. Each shard checks in; shard 1 names it
    /// once every one has (and all is loaded): a second from now (time for the others to see
    /// it), and not before `planned` (`--start-at`); the others wait for it. However the loads
    /// ended and whenever the clients were started, the steps then overlap. A shard that does
    /// not check in within the patience fails the run for all, named.
    pub fn run_start(&self, planned: Option<SystemTime>) -> Result<SystemTime> {
        self.mark(Stage::Ready)?;
        if self.shard.is_first() {
            let mut missing = Vec::new();
            let mut failed = false;
            let waited = wait_for_others("the other shards did not check in", || {
                let Ok(mut c) = self.db.connect() else {
                    return Ok(false);
                };
                if self.count(c.as_mut(), "failed", None).unwrap_or(0) > 0 {
                    failed = true;
                    bail!("a shard of this run failed (its own output says why)");
                }
                missing = self.below(c.as_mut(), Stage::Ready);
                Ok(missing.is_empty())
            });
            if waited.is_err() && !failed && !missing.is_empty() {
                return Err(crate::shard::not_checked_in(&missing, self.shard.count));
            }
            waited?;
            let soon = SystemTime::now() + Duration::from_secs(1);
            let at = planned.map_or(soon, |p| p.max(soon));
            let ms = at.duration_since(UNIX_EPOCH)?.as_millis() as i64;
            let mut c = self.db.connect()?;
            let go = c.prepare(&self.section("go")[0])?;
            c.exec_prepared(go, &[SqlValue::Int(ms), SqlValue::Text(self.run.clone())])?;
            return Ok(at);
        }
        let mut ms = None;
        wait_for_others("shard 1 did not name the start", || {
            let Ok(mut c) = self.db.connect() else {
                return Ok(false);
            };
            if self.count(c.as_mut(), "failed", None).unwrap_or(0) > 0 {
                bail!("a shard of this run failed (its own output says why)");
            }
            ms = self.count(c.as_mut(), "start", None);
            Ok(ms.is_some())
        })?;
        let ms = ms.context("checked")?;
        Ok(UNIX_EPOCH + Duration::from_millis(ms as u64))
    }

    /// The shards of the run not yet at `stage` (and not failed).
    fn below(&self, c: &mut dyn SqlConnection, stage: Stage) -> Vec<i64> {
        let Ok(query) = c.prepare(&self.section("below")[0]) else {
            return Vec::new();
        };
        let mut shards = Vec::new();
        let params = [
            SqlValue::Text(self.run.clone()),
            SqlValue::Int(stage as i64),
        ];
        let _ = c.query_prepared(query, &params, &mut |row| {
            if let Some(SqlValue::Int(i)) = row.first() {
                shards.push(*i);
            }
        });
        shards
    }

    /// After its last step: marks this shard done; shard 1 then waits for every other one and
    /// drops the list (the caller drops the tables).
    pub fn finish(&self) -> Result<()> {
        self.mark(Stage::Done)?;
        if self.shard.is_first() {
            self.wait_for(Stage::Done, "the other shards did not finish")?;
            let mut c = self.db.connect()?;
            for s in self.section("drop") {
                c.execute(&s)?;
            }
        }
        Ok(())
    }
}
