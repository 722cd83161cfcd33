//! ycsb split over several client machines (`--shard i/N`). The shards meet through marker
//! records in the store itself, so that every engine a run can share (SQL servers, Redis,
//! memcached) is split the same way with no table beside the records: a marker's key
//! (`hakari-shard-…`) sorts before every YCSB record's (`user…`), so no scan reaches one.
//!
//! Shard 1 creates the table (on a key-value store: clears what an earlier run of the same name
//! left) and marks it ready; the others wait for that mark. Each phase that several shards time
//! together starts at an instant shard 1 names: every shard checks in for it, and once every one
//! has, shard 1 names the instant a second from then (not before `--start-at`) in a `Go` marker
//! the others read. With `--load all` the loads start so; otherwise shard 1 loads all of it
//! while the others, checked in, wait. The run phases then start together however the loads
//! ended and whenever the clients were started: no start time has to be agreed by hand. Each
//! marks itself done after its run phase; shard 1 waits for every one before it drops the
//! table, so no client loses its records while it still runs. A shard that fails marks itself
//! failed (and then done), and the others stop waiting for it at once.

use super::generators::fnv_hash64;
use super::store::{Client, Records, Shape};
use crate::shard::{wait_for_others, Shard};
use anyhow::{bail, Context, Result};
use std::time::{SystemTime, UNIX_EPOCH};

/// A phase the shards start together.
#[derive(Clone, Copy, Debug)]
pub enum Phase {
    Load,
    Run,
}

#[derive(Clone, Copy, Debug)]
pub enum Mark {
    /// Shard 1's: the table exists, and nothing of an earlier run is left in it.
    Ready,
    /// A shard is there for the phase (for the run phase: it has loaded what it loads).
    CheckedIn(Phase),
    /// Shard 1's: when the phase starts (Unix milliseconds, in the first field).
    Go(Phase),
    Done,
    Failed,
}

impl Mark {
    /// The mark's part of a marker's key.
    fn tag(self) -> String {
        match self {
            Mark::CheckedIn(phase) => format!("CheckedIn-{phase:?}"),
            Mark::Go(phase) => format!("Go-{phase:?}"),
            other => format!("{other:?}"),
        }
    }

    const ALL: [Mark; 7] = [
        Mark::Ready,
        Mark::CheckedIn(Phase::Load),
        Mark::CheckedIn(Phase::Run),
        Mark::Go(Phase::Load),
        Mark::Go(Phase::Run),
        Mark::Done,
        Mark::Failed,
    ];
}

/// How long after shard 1 sees every shard checked in the phase starts: time for the others to
/// see its mark (they look every 100 ms) and set their workers up.
const GO_MARGIN: std::time::Duration = std::time::Duration::from_secs(1);

/// One run (one round of one configuration) and this client's shard of it.
pub struct Meeting<'r> {
    pub records: &'r Records,
    pub shape: Shape,
    pub shard: Shard,
    /// What every shard of the run names it by: the planned start, the configuration, the round.
    run: u64,
    /// When this client joined: a `Go` marker named before it is an earlier run's, left behind.
    joined: SystemTime,
}

impl<'r> Meeting<'r> {
    pub fn new(records: &'r Records, shape: Shape, shard: Shard, run: &str) -> Meeting<'r> {
        let run = (run.bytes()).fold(0u64, |h, b| fnv_hash64(h ^ u64::from(b)));
        Meeting {
            records,
            shape,
            shard,
            run,
            joined: SystemTime::now(),
        }
    }

    fn key(&self, shard: usize, mark: Mark) -> Vec<u8> {
        format!("hakari-shard-{:016x}-{shard}-{}", self.run, mark.tag()).into_bytes()
    }

    /// Marks this shard as having reached `mark`.
    pub fn mark(&self, mark: Mark) -> Result<()> {
        self.mark_with(mark, b"x")
    }

    /// Shard 1, once the table exists: clears what an earlier run of the same name left (a
    /// SQL table is made afresh; a key-value store keeps keys) and marks the table ready.
    pub fn open(&self) -> Result<()> {
        let keys: Vec<Vec<u8>> = (1..=self.shard.count)
            .flat_map(|s| Mark::ALL.map(|m| self.key(s, m)))
            .collect();
        self.records.delete_markers(&keys)?;
        self.mark(Mark::Ready)
    }

    /// A shard other than 1: waits until shard 1 has made the table.
    pub fn opened(&self) -> Result<()> {
        self.wait_for(
            Mark::Ready,
            true,
            "shard 1 did not create the records (start it with the same --url and configuration)",
        )
    }

    /// The instant every shard starts `phase`. Each checks in; shard 1 names the instant once
    /// every one has: a second from then, and not before `planned` (`--start-at`); the others
    /// wait for it, checking in again while they wait (shard 1 clearing an earlier run's markers
    /// may have taken theirs). A shard that does not check in within the patience fails the run
    /// for all, named.
    pub fn start(&self, phase: Phase, planned: Option<SystemTime>) -> Result<SystemTime> {
        // A mark an earlier run left in a SQL table shard 1 has not made afresh yet stands
        // (a second INSERT of its key would fail); shard 1's table will not have it.
        let mine = self.key(self.shard.index, Mark::CheckedIn(phase));
        if !self.records.client(self.shape)?.exists(&mine)? {
            self.mark(Mark::CheckedIn(phase))?;
        }
        if self.shard.is_first() {
            self.wait_for(
                Mark::CheckedIn(phase),
                false,
                "the other shards did not check in",
            )?;
            let soon = SystemTime::now() + GO_MARGIN;
            let at = planned.map_or(soon, |p| p.max(soon));
            let ms = at.duration_since(UNIX_EPOCH)?.as_millis();
            self.mark_with(Mark::Go(phase), ms.to_string().as_bytes())?;
            return Ok(at);
        }
        let mut at = None;
        let what = format!("shard 1 did not name the start of the {phase:?} phase").to_lowercase();
        wait_for_others(&what, || {
            let Ok(mut client) = self.records.client(self.shape) else {
                return Ok(false);
            };
            self.stop_if_failed(&mut client, &what)?;
            if !client.exists(&mine).unwrap_or(true) {
                self.mark(Mark::CheckedIn(phase))?;
            }
            let value = client.first_field(&self.key(1, Mark::Go(phase)))?;
            let ms: Option<u64> = (value.as_deref())
                .and_then(|v| std::str::from_utf8(v).ok())
                .and_then(|v| v.trim().parse().ok());
            at = ms
                .map(|ms| UNIX_EPOCH + std::time::Duration::from_millis(ms))
                .filter(|&go| go > self.joined);
            Ok(at.is_some())
        })?;
        at.context("checked")
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

    /// Stops a wait at once when a shard of the run has failed.
    fn stop_if_failed(&self, client: &mut Client, what: &str) -> Result<()> {
        let failed: Vec<usize> = (1..=self.shard.count)
            .filter(|&s| self.reached(client, &[s], Mark::Failed))
            .collect();
        if !failed.is_empty() {
            bail!("{what}: shard(s) {failed:?} of this run failed (their own output says why)");
        }
        Ok(())
    }

    /// Waits until shard 1 (`first_only`) or every shard has reached `mark`; stops at once when
    /// one has failed before it (every shard marks itself done, failed or not). A check-in that
    /// never came is named.
    pub fn wait_for(&self, mark: Mark, first_only: bool, what: &str) -> Result<()> {
        let shards: Vec<usize> = match first_only {
            true => vec![1],
            false => (1..=self.shard.count).collect(),
        };
        let (mut missing, mut failed) = (Vec::new(), false);
        let waited = wait_for_others(what, || {
            // A client per look: shard 1 may be dropping the table and making it afresh.
            let Ok(mut client) = self.records.client(self.shape) else {
                return Ok(false);
            };
            missing = (shards.iter().copied())
                .filter(|&s| !self.reached(&mut client, &[s], mark))
                .collect();
            if missing.is_empty() {
                return Ok(true);
            }
            if !matches!(mark, Mark::Done) {
                let stop = self.stop_if_failed(&mut client, what);
                failed = stop.is_err();
                stop?;
            }
            Ok(false)
        });
        if let (Err(_), Mark::CheckedIn(_), false, false) =
            (&waited, mark, failed, missing.is_empty())
        {
            return Err(crate::shard::not_checked_in(&missing, self.shard.count));
        }
        waited
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
