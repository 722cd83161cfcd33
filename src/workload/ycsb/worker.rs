//! A worker of the load and run phases: its client, its random stream and generators, and the
//! run phase's operations as YCSB's `CoreWorkload` does them (`doTransactionRead`, `..Update`,
//! `..Insert`, `..Scan`, `..ReadModifyWrite`).

use super::generators::{
    fill_field, InsertSequence, KeyChooser, KeyNaming, LengthChooser, LengthDistribution, Shapes,
};
use super::presets::{Operation, YcsbParams};
use super::store::{Client, Records};
use super::{expected_inserts, shape, Config};
use crate::measure::runner::StepOutcome;
use crate::shard::Shard;
use anyhow::{bail, Context, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A worker's own state: its client, random stream and generators, and its buffers.
pub struct WorkerState<'s> {
    pub client: Client<'s>,
    rng: ChaCha8Rng,
    chooser: KeyChooser,
    /// Each field's length (YCSB's `fieldlengthgenerator`).
    field_lengths: LengthChooser,
    /// Each scan's length (YCSB's `scanlength`).
    scan_lengths: LengthChooser,
    pub key: Vec<u8>,
    pub fields: Vec<Vec<u8>>,
    /// The length of each field of the record read last.
    read: Vec<usize>,
    records: u64,
    shard: Shard,
    keys: KeyNaming,
}

impl<'s> WorkerState<'s> {
    pub fn new(
        p: &YcsbParams,
        config: &Config,
        records: &'s Records,
        shard: Shard,
        seed: u64,
        index: usize,
    ) -> Result<Self> {
        let new_keys = expected_inserts(p, &config.mix);
        let shapes = Shapes {
            hotspot: p.hotspot,
            exponential: p.exponential,
        };
        let (min_field, max_field) = (p.min_field_length as u64, p.field_length as u64);
        Ok(WorkerState {
            client: records.client(shape(p))?,
            rng: ChaCha8Rng::seed_from_u64(seed ^ (index as u64).wrapping_mul(0x9E37_79B9)),
            chooser: KeyChooser::new(
                config.mix.distribution,
                p.records,
                p.slice(),
                new_keys,
                shapes,
            ),
            field_lengths: LengthChooser::new(p.field_lengths, min_field, max_field),
            scan_lengths: LengthChooser::new(p.scan_lengths, p.min_scan_length, p.max_scan_length),
            key: Vec::with_capacity(32),
            fields: vec![Vec::with_capacity(p.field_length); p.field_count],
            read: Vec::with_capacity(p.field_count),
            records: p.records,
            shard,
            keys: p.keys,
        })
    }

    /// Record `n` of this client's numbering as the whole run numbers it: the loaded records
    /// are everyone's; each shard inserts every Nth record after them, so none inserts
    /// another's (and each reads the loaded records and its own inserts).
    fn number(&self, n: u64) -> u64 {
        match n.checked_sub(self.records) {
            Some(inserted) => {
                self.records + inserted * self.shard.count as u64 + (self.shard.index as u64 - 1)
            }
            None => n,
        }
    }

    /// Record `n`'s key, and new values for its fields.
    pub fn new_record(&mut self, n: u64) {
        self.keys.name(self.number(n), &mut self.key);
        self.fill_fields();
    }

    /// New values for every field, each of a length drawn for it (YCSB's `buildValues`).
    fn fill_fields(&mut self) {
        for f in self.fields.iter_mut() {
            let length = self.field_lengths.next(&mut self.rng) as usize;
            fill_field(&mut self.rng, f, length);
        }
    }

    /// A field chosen uniformly (YCSB's `fieldchooser`).
    fn any_field(&mut self, p: &YcsbParams) -> usize {
        self.rng.random_range(0..p.field_count)
    }
}

/// A record every reader may choose: drawn until it is one whose insert was acknowledged.
fn choose(s: &mut WorkerState, inserts: &InsertSequence) {
    let last = inserts.last();
    let n = loop {
        let n = s.chooser.next(&mut s.rng, last);
        if n <= last {
            break n;
        }
    };
    s.keys.name(s.number(n), &mut s.key);
}

/// Picks the next operation of the mix.
pub fn pick(config: &Config, s: &mut WorkerState) -> Operation {
    config.mix.pick(s.rng.random())
}

/// One operation of the run phase; returns the retries it took.
pub fn operation(
    p: &YcsbParams,
    s: &mut WorkerState,
    op: Operation,
    inserts: &InsertSequence,
    keeps_data: bool,
) -> Result<u64> {
    match op {
        Operation::Read => {
            choose(s, inserts);
            read_checked(p, s, keeps_data)
        }
        Operation::Update => {
            choose(s, inserts);
            update(p, s)
        }
        Operation::Rmw => {
            choose(s, inserts);
            Ok(read_checked(p, s, keeps_data)? + update(p, s)?)
        }
        Operation::Insert => {
            let n = inserts.next();
            s.new_record(n);
            let retries = s.client.insert(&s.key, &s.fields)?;
            inserts.acknowledge(n);
            Ok(retries)
        }
        Operation::Scan => {
            choose(s, inserts);
            let length = s.scan_lengths.next(&mut s.rng);
            let field = (!p.read_all_fields).then(|| s.any_field(p));
            let (read, retries) = s.client.scan(&s.key, length, field)?;
            if keeps_data && read == 0 {
                bail!(
                    "a scan from record {} read nothing",
                    String::from_utf8_lossy(&s.key)
                );
            }
            Ok(retries)
        }
    }
}

/// The lengths a field may have: exactly `field_length` when constant, else from
/// `min_field_length` to it.
fn field_lengths(p: &YcsbParams) -> std::ops::RangeInclusive<usize> {
    match p.field_lengths {
        LengthDistribution::Constant => p.field_length..=p.field_length,
        _ => p.min_field_length..=p.field_length,
    }
}

/// What `field_lengths` says, for an error.
fn bytes(p: &YcsbParams) -> String {
    let range = field_lengths(p);
    match range.start() == range.end() {
        true => format!("{} bytes", range.end()),
        false => format!("{} to {} bytes", range.start(), range.end()),
    }
}

/// Reads the chosen record, every field or one chosen uniformly (YCSB's `readallfields`), and
/// checks each field read is there at a length it may have.
fn read_checked(p: &YcsbParams, s: &mut WorkerState, keeps_data: bool) -> Result<u64> {
    let valid = field_lengths(p);
    if !p.read_all_fields {
        let field = s.any_field(p);
        let (length, retries) = s.client.read_field(&s.key, field)?;
        if keeps_data && !valid.contains(&length) {
            bail!(
                "field {field} of record {} came back with {length} bytes, expected {}",
                String::from_utf8_lossy(&s.key),
                bytes(p)
            );
        }
        return Ok(retries);
    }
    let retries = s.client.read(&s.key, &mut s.read)?;
    let whole = s.read.len() == p.field_count && s.read.iter().all(|n| valid.contains(n));
    if keeps_data && !whole {
        bail!(
            "record {} came back with {} fields of lengths {:?}, expected {} of {}",
            String::from_utf8_lossy(&s.key),
            s.read.len(),
            s.read,
            p.field_count,
            bytes(p)
        );
    }
    Ok(retries)
}

/// Writes the chosen record: one field chosen uniformly (YCSB's default), or every field in one
/// statement or transaction (`writeallfields=true`), each new value of a length drawn for it.
fn update(p: &YcsbParams, s: &mut WorkerState) -> Result<u64> {
    if p.write_all_fields {
        s.fill_fields();
        return s.client.update_all(&s.key, &s.fields);
    }
    let field = s.any_field(p);
    let length = s.field_lengths.next(&mut s.rng) as usize;
    fill_field(&mut s.rng, &mut s.fields[0], length);
    s.client.update(&s.key, field, &s.fields[0])
}

/// After a run phase with a fault: looks up every record it inserted and had acknowledged, and
/// adds to its readings how many are missing (`fault.lost`: a failover to a replica that had not
/// received them, as Redis's asynchronous replication allows) of how many
/// (`fault.acknowledged`).
pub fn lost_inserts(
    p: &YcsbParams,
    config: &Config,
    records: &Records,
    shard: Shard,
    seed: u64,
    inserts: &InsertSequence,
    outcome: &mut StepOutcome,
) -> Result<()> {
    let acknowledged = inserts.acknowledged();
    // A mix without inserts (workload A) has nothing to look for, and no figure says so.
    if acknowledged.is_empty() {
        return Ok(());
    }
    let mut s = WorkerState::new(p, config, records, shard, seed, 0)?;
    let mut lost = 0;
    for &n in &acknowledged {
        s.new_record(n);
        let there = (s.client.exists(&s.key))
            .context("looking for the inserted records after the fault")?;
        lost += u64::from(!there);
    }
    let counted = &mut outcome
        .resources
        .get_or_insert_with(Default::default)
        .counted;
    counted.insert("fault.lost".into(), lost as f64);
    counted.insert("fault.acknowledged".into(), acknowledged.len() as f64);
    Ok(())
}
