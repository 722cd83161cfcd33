//! YCSB workload A (50% reads, 50% updates of one field, scrambled zipfian) straight through the
//! rocksdb and heed crates, as someone who knows each library would write it for the fastest
//! correct run: no harness, no traits, no per-operation histograms. It does the work
//! `hakari run ycsb --workload a --durability write-nosync --threads 1` does: load the records
//! (1,000-byte values: 10 fields of 100 bytes, each after its 4-byte length), then one
//! operation at a time, each its own transaction, commits reaching the OS unflushed. A read, as
//! YCSB's, takes the record out of the store and its transaction and splits it into its fields
//! (on lmdb, copying the value out and then walking it measured 2-5% faster than walking the
//! fields where the store keeps them).
//!
//!   cargo bench --bench ycsb_native -- rocksdb|lmdb RECORDS OPERATIONS
//!
//! prints `load <ops/s>` and `run <ops/s>`; bench/ycsb_native.sh runs it beside hakari.

use rand::{Rng, SeedableRng};
use std::time::Instant;

const FIELDS: usize = 10;
const FIELD: usize = 100;

/// YCSB's key for record `n`: `user` and FNV-1a of its eight bytes.
fn key(n: u64) -> Vec<u8> {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for i in 0..8 {
        h ^= (n >> (8 * i)) & 0xff;
        h = h.wrapping_mul(1_099_511_628_211);
    }
    format!("user{}", (h as i64).wrapping_abs()).into_bytes()
}

/// Gray et al.'s zipfian over 10^10 items (constant 0.99), hashed into the records: YCSB's
/// scrambled zipfian, with its precomputed zeta.
struct Scrambled {
    records: u64,
    eta: f64,
}

const ITEMS: f64 = 1e10;
const ZETAN: f64 = 26.469_028_201_783_02;
const THETA: f64 = 0.99;

impl Scrambled {
    fn new(records: u64) -> Scrambled {
        let zeta2 = 1.0 + 0.5f64.powf(THETA);
        let eta = (1.0 - (2.0 / ITEMS).powf(1.0 - THETA)) / (1.0 - zeta2 / ZETAN);
        Scrambled { records, eta }
    }
    fn next(&self, rng: &mut impl Rng) -> u64 {
        let u: f64 = rng.random();
        let uz = u * ZETAN;
        let item = if uz < 1.0 {
            0
        } else if uz < 1.0 + 0.5f64.powf(THETA) {
            1
        } else {
            (ITEMS * (self.eta * u - self.eta + 1.0).powf(1.0 / (1.0 - THETA))) as u64
        };
        let mut h: u64 = 0xCBF2_9CE4_8422_2325;
        for i in 0..8 {
            h ^= (item >> (8 * i)) & 0xff;
            h = h.wrapping_mul(1_099_511_628_211);
        }
        (h as i64).wrapping_abs() as u64 % self.records
    }
}

fn record(rng: &mut impl Rng) -> Vec<u8> {
    let mut v = Vec::with_capacity(FIELDS * (4 + FIELD));
    for _ in 0..FIELDS {
        v.extend_from_slice(&(FIELD as u32).to_le_bytes());
        v.extend((0..FIELD).map(|_| b' ' + rng.random_range(0..95u8)));
    }
    v
}

/// The total length of an encoded record's fields, found by walking their length prefixes.
fn fields_length(mut value: &[u8]) -> usize {
    let mut total = 0;
    while let Some((len, rest)) = value.split_first_chunk::<4>() {
        let len = u32::from_le_bytes(*len) as usize;
        total += len;
        value = &rest[len..];
    }
    total
}

/// Overwrites field `f` of an encoded record with fresh printable bytes.
fn change_field(value: &mut [u8], f: usize, rng: &mut impl Rng) {
    let at = f * (4 + FIELD) + 4;
    for b in &mut value[at..at + FIELD] {
        *b = b' ' + rng.random_range(0..95u8);
    }
}

trait Store {
    fn insert(&mut self, k: &[u8], v: &[u8]);
    /// Copies the record out into `out`.
    fn read(&mut self, k: &[u8], out: &mut Vec<u8>);
    fn update(&mut self, k: &[u8], field: usize, rng: &mut rand_chacha::ChaCha8Rng);
}

struct Rocks(rocksdb::DB);

impl Store for Rocks {
    fn insert(&mut self, k: &[u8], v: &[u8]) {
        self.0.put(k, v).unwrap();
    }
    fn read(&mut self, k: &[u8], out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(&self.0.get_pinned(k).unwrap().expect("loaded"));
    }
    fn update(&mut self, k: &[u8], field: usize, rng: &mut rand_chacha::ChaCha8Rng) {
        let mut v = self.0.get(k).unwrap().expect("loaded");
        change_field(&mut v, field, rng);
        self.0.put(k, v).unwrap();
    }
}

struct Lmdb {
    env: heed::Env,
    db: heed::Database<heed::types::Bytes, heed::types::Bytes>,
}

impl Store for Lmdb {
    fn insert(&mut self, k: &[u8], v: &[u8]) {
        let mut w = self.env.write_txn().unwrap();
        self.db.put(&mut w, k, v).unwrap();
        w.commit().unwrap();
    }
    fn read(&mut self, k: &[u8], out: &mut Vec<u8>) {
        let r = self.env.read_txn().unwrap();
        out.clear();
        out.extend_from_slice(self.db.get(&r, k).unwrap().expect("loaded"));
    }
    fn update(&mut self, k: &[u8], field: usize, rng: &mut rand_chacha::ChaCha8Rng) {
        let mut w = self.env.write_txn().unwrap();
        let mut v = self.db.get(&w, k).unwrap().expect("loaded").to_vec();
        change_field(&mut v, field, rng);
        self.db.put(&mut w, k, &v).unwrap();
        w.commit().unwrap();
    }
}

fn open(engine: &str, dir: &std::path::Path) -> Box<dyn Store> {
    match engine {
        "rocksdb" => {
            let mut o = rocksdb::Options::default();
            o.create_if_missing(true);
            Box::new(Rocks(rocksdb::DB::open(&o, dir).unwrap()))
        }
        "lmdb" => {
            let env = unsafe {
                heed::EnvOpenOptions::new()
                    .map_size(4 << 30)
                    .flags(heed::EnvFlags::NO_SYNC)
                    .open(dir)
            }
            .unwrap();
            let mut w = env.write_txn().unwrap();
            let db = env.create_database(&mut w, None).unwrap();
            w.commit().unwrap();
            Box::new(Lmdb { env, db })
        }
        other => panic!("engine {other}: rocksdb or lmdb"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().filter(|a| a != "--bench").collect();
    if args.len() < 4 {
        eprintln!("usage: ycsb_native rocksdb|lmdb RECORDS OPERATIONS");
        std::process::exit(2);
    }
    let (engine, records, operations) = (
        args[1].as_str(),
        args[2].parse::<u64>().unwrap(),
        args[3].parse::<u64>().unwrap(),
    );
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(engine, dir.path());
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);

    let t = Instant::now();
    for n in 0..records {
        let v = record(&mut rng);
        store.insert(&key(n), &v);
    }
    println!("load {:.0}", records as f64 / t.elapsed().as_secs_f64());

    let chooser = Scrambled::new(records);
    let (mut read_bytes, mut value) = (0usize, Vec::new());
    let t = Instant::now();
    for _ in 0..operations {
        let k = key(chooser.next(&mut rng));
        if rng.random::<bool>() {
            store.read(&k, &mut value);
            read_bytes += fields_length(&value);
        } else {
            let field = rng.random_range(0..FIELDS);
            store.update(&k, field, &mut rng);
        }
    }
    println!("run {:.0}", operations as f64 / t.elapsed().as_secs_f64());
    assert!(read_bytes > 0);
}
