//! ycsb split over several client machines (`--shard i/N`). The shards meet through marker
//! records in the store itself, so that every engine a run can share (SQL servers, Redis,
//! memcached) is split the same way with no table beside the records: a marker's key
//! (`hakari-shard-…`) sorts before every YCSB record's (`user…`), so no scan reaches one.
//!
//! Shard 1 creates the table. With `--load all` it marks the run ready, the others wait for
//! that mark, and each loads its part and marks itself loaded; otherwise shard 1 loads all of
//! it. Then shard 1 (once every shard has loaded) names the instant the run phases start, in a
//! `Go` marker the others read: the run phases start together however the loads ended, so that
//! even short ones overlap. Each marks itself done after its run phase;
//! shard 1 waits for every one before it drops the table, so no client loses its records while
//! it still runs. A shard that fails marks itself failed (and then done), and the others stop
//! waiting for it at once.

use super::generators::fnv_hash64;
use super::store::{Client, Records, Shape};
use crate::shard::{wait_for_others, Shard};
use anyhow::{bail, Context, Result};
use std::time::{SystemTime, UNIX_EPOCH};

#[derive(Clone, Copy, Debug)]
pub enum Mark {
    /// Shard 1's: the table exists (and is loaded, unless every shard loads its part).
    Ready,
    Loaded,
    /// Shard 1's: when the run phases start (Unix milliseconds, in the first field).
    Go,
    Done,
    Failed,
}

/// How long after shard 1 sees every load done the run phases start: time for the others to
/// see its mark (they look every 100 ms) and set their workers up.
const GO_MARGIN: std::time::Duration = std::time::Duration::from_secs(1);

/// One run (one round of one configuration) and this client's shard of it.
pub struct Meeting<'r> {
    pub records: &'r Records,
    pub shape: Shape,
    pub shard: Shard,
    /// What every shard of the run names it by: the planned start, the configuration, the round.
    run: u64,
}

impl<'r> Meeting<'r> {
    pub fn new(records: &'r Records, shape: Shape, shard: Shard, run: &str) -> Meeting<'r> {
        let run = (run.bytes()).fold(0u64, |h, b| fnv_hash64(h ^ u64::from(b)));
        Meeting {
            records,
            shape,
            shard,
            run,
        }
    }

    fn key(&self, shard: usize, mark: Mark) -> Vec<u8> {
        format!("hakari-shard-{:016x}-{shard}-{mark:?}", self.run).into_bytes()
    }

    /// Marks this shard as having reached `mark`.
    pub fn mark(&self, mark: Mark) -> Result<()> {
        self.mark_with(mark, b"x")
    }

    /// The instant every shard starts its run phase. Shard 1 names it, once every shard has
    /// loaded (with `--load all`): a second from then, and not before `planned` (`--start-at`);
    /// the others wait for it.
    pub fn run_start(&self, planned: Option<SystemTime>) -> Result<SystemTime> {
        let each_loads = self.shard.load_all;
        if each_loads {
            self.mark(Mark::Loaded)?;
        }
        if self.shard.is_first() {
            if each_loads {
                self.wait_for(
                    Mark::Loaded,
                    false,
                    "the other shards did not load their records",
                )?;
            }
            let soon = SystemTime::now() + GO_MARGIN;
            let at = planned.map_or(soon, |p| p.max(soon));
            let ms = at.duration_since(UNIX_EPOCH)?.as_millis();
            self.mark_with(Mark::Go, ms.to_string().as_bytes())?;
            return Ok(at);
        }
        let what = match each_loads {
            true => "the shards did not all load their records",
            false => "shard 1 did not load the records for this --start-at (start it with the same --start-at and --url)",
        };
        self.wait_for(Mark::Go, true, what)?;
        let mut client = self.records.client(self.shape)?;
        let value = client.first_field(&self.key(1, Mark::Go))?;
        let ms: u64 = (value.as_deref())
            .and_then(|v| std::str::from_utf8(v).ok())
            .and_then(|v| v.trim().parse().ok())
            .context("shard 1's start mark holds no time")?;
        Ok(UNIX_EPOCH + std::time::Duration::from_millis(ms))
    }

    fn mark_with(&self, mark: Mark, value: &[u8]) -> Result<()> {
        let mut client = self.records.client(self.shape)?;
        let mut fields = vec![b"x".to_vec(); self.shape.fields];
        fields[0] = value.to_vec();
        client
            .insert(&self.key(self.shard.index, mark), &fields)
            .with_context(|| format!("marking shard {} {mark:?}", self.shard))?;
        Ok(())
    }

    /// Whether every shard in `shards` has marked `mark`, as `client` reads the markers.
    fn reached(&self, client: &mut Client, shards: &[usize], mark: Mark) -> bool {
        (shards.iter()).all(|&s| client.exists(&self.key(s, mark)).unwrap_or(false))
    }

    /// Waits until shard 1 (`first_only`) or every shard has reached `mark`; stops at once when
    /// one has failed before it (every shard marks itself done, failed or not).
    pub fn wait_for(&self, mark: Mark, first_only: bool, what: &str) -> Result<()> {
        let shards: Vec<usize> = match first_only {
            true => vec![1],
            false => (1..=self.shard.count).collect(),
        };
        let everyone: Vec<usize> = (1..=self.shard.count).collect();
        wait_for_others(what, || {
            // A client per look: shard 1 may be dropping the table and making it afresh.
            let Ok(mut client) = self.records.client(self.shape) else {
                return Ok(false);
            };
            if self.reached(&mut client, &shards, mark) {
                return Ok(true);
            }
            if !matches!(mark, Mark::Done) {
                let failed: Vec<usize> = (everyone.iter().copied())
                    .filter(|&s| self.reached(&mut client, &[s], Mark::Failed))
                    .collect();
                if !failed.is_empty() {
                    bail!("{what}: shard(s) {failed:?} of this run failed (their own output says why)");
                }
            }
            Ok(false)
        })
    }

    /// After the run phase: marks this shard done; shard 1 then waits for every other one
    /// (the caller drops the table).
    pub fn finish(&self) -> Result<()> {
        self.mark(Mark::Done)?;
        if self.shard.is_first() {
            self.wait_for(Mark::Done, false, "the other shards did not finish")?;
        }
        Ok(())
    }
}
