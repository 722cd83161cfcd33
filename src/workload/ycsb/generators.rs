//! YCSB's number generators, as its `site.ycsb.generator` package has them: which record an
//! operation touches (uniform, zipfian, scrambled zipfian, latest, hotspot, exponential), how
//! long a field or a scan is, and the insert sequence shared by the workers. Each worker owns its
//! choosers (its own random stream); only the insert sequence is shared.

use rand::Rng;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// YCSB's `ZipfianGenerator.ZIPFIAN_CONSTANT`.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;

/// The item space `ScrambledZipfianGenerator` draws from before hashing into the key space,
/// and its zeta at the constant 0.99 (YCSB's `ITEM_COUNT` and `ZETAN`).
const SCRAMBLED_ITEMS: u64 = 10_000_000_000;
const SCRAMBLED_ZETAN: f64 = 26.469_028_201_783_02;

/// YCSB's `Utils.fnvhash64`: FNV-1a over the eight bytes of `value`, low byte first, made
/// non-negative as Java's `Math.abs` of a long does.
pub fn fnv_hash64(mut value: u64) -> u64 {
    let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
    for _ in 0..8 {
        hash ^= value & 0xff;
        hash = hash.wrapping_mul(1_099_511_628_211);
        value >>= 8;
    }
    (hash as i64).wrapping_abs() as u64
}

/// zeta(n, theta) = sum over i in 1..=n of 1 / i^theta, continued from `st` items whose sum is
/// `initial` (YCSB's incremental `zeta(st, n, theta, initialsum)`).
pub fn zeta_from(st: u64, n: u64, theta: f64, initial: f64) -> f64 {
    (st..n).fold(initial, |sum, i| sum + 1.0 / ((i + 1) as f64).powf(theta))
}

pub fn zeta(n: u64, theta: f64) -> f64 {
    zeta_from(0, n, theta, 0.0)
}

/// Gray et al.'s zipfian over `base..base+items`, item `base` the most popular. The item count
/// may grow between draws: zeta is then extended incrementally, as YCSB does for "latest".
#[derive(Clone, Debug)]
pub struct Zipfian {
    base: u64,
    items: u64,
    theta: f64,
    alpha: f64,
    zeta2: f64,
    zetan: f64,
    eta: f64,
}

impl Zipfian {
    pub fn new(base: u64, items: u64, theta: f64) -> Zipfian {
        Zipfian::with_zetan(base, items, theta, zeta(items, theta))
    }

    /// With zeta(items) known already (the scrambled generator's precomputed constant).
    pub fn with_zetan(base: u64, items: u64, theta: f64, zetan: f64) -> Zipfian {
        let zeta2 = zeta(2, theta);
        let mut z = Zipfian {
            base,
            items,
            theta,
            alpha: 1.0 / (1.0 - theta),
            zeta2,
            zetan,
            eta: 0.0,
        };
        z.eta = z.eta_for(items);
        z
    }

    fn eta_for(&self, items: u64) -> f64 {
        (1.0 - (2.0 / items as f64).powf(1.0 - self.theta)) / (1.0 - self.zeta2 / self.zetan)
    }

    /// The zeta this generator holds for its current item count.
    pub fn zetan(&self) -> f64 {
        self.zetan
    }

    /// A draw from `base..base+items`, the item count first grown (or shrunk) to `items`.
    pub fn next_of(&mut self, rng: &mut impl Rng, items: u64) -> u64 {
        if items != self.items {
            self.zetan = if items > self.items {
                zeta_from(self.items, items, self.theta, self.zetan)
            } else {
                zeta(items, self.theta)
            };
            self.items = items;
            self.eta = self.eta_for(items);
        }
        self.next(rng)
    }

    pub fn next(&mut self, rng: &mut impl Rng) -> u64 {
        let u: f64 = rng.random();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return self.base;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return self.base + 1;
        }
        let spread = (self.eta * u - self.eta + 1.0).powf(self.alpha);
        self.base + ((self.items as f64 * spread) as u64).min(self.items - 1)
    }
}

/// How an operation picks the record it touches (YCSB's `requestdistribution`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Distribution {
    Uniform,
    /// Scrambled zipfian: popular records spread over the key space by a hash.
    Zipfian,
    /// The most recently inserted records are the most popular.
    Latest,
    /// 80% of operations on 20% of the records.
    Hotspot,
    /// Exponential back from the newest record: 95% of operations on the newest 6/7 of them.
    Exponential,
}

impl Distribution {
    pub fn name(self) -> &'static str {
        match self {
            Distribution::Uniform => "uniform",
            Distribution::Zipfian => "zipfian",
            Distribution::Latest => "latest",
            Distribution::Hotspot => "hotspot",
            Distribution::Exponential => "exponential",
        }
    }
}

/// The hotspot distribution's shape: the share of the records that are hot (YCSB's
/// `hotspotdatafraction`) and the share of operations on them (`hotspotopnfraction`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Hotspot {
    pub data: f64,
    pub operations: f64,
}

impl Default for Hotspot {
    /// YCSB's defaults: 80% of operations on 20% of the records.
    fn default() -> Hotspot {
        Hotspot {
            data: 0.2,
            operations: 0.8,
        }
    }
}

/// The exponential distribution's shape: `percentile`% of operations on the newest `frac` of the
/// records (YCSB's `exponential.percentile` and `exponential.frac`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Exponential {
    pub percentile: f64,
    pub frac: f64,
}

impl Default for Exponential {
    /// YCSB's defaults: 95% of operations on the newest 6/7 of the records.
    fn default() -> Exponential {
        Exponential {
            percentile: 95.0,
            frac: 0.857_142_857_1,
        }
    }
}

impl Exponential {
    /// YCSB's `ExponentialGenerator(percentile, range)`'s constant for `records` loaded: the
    /// rate at which `percentile`% of the draws fall below `records * frac`.
    pub fn gamma(self, records: u64) -> f64 {
        -(1.0 - self.percentile / 100.0).ln() / (records as f64 * self.frac)
    }
}

/// A worker's record chooser (YCSB's `keychooser`).
pub enum KeyChooser {
    Uniform {
        keys: std::ops::Range<u64>,
    },
    Scrambled {
        zipf: Zipfian,
        first: u64,
        items: u64,
    },
    /// Zipfian back from the newest acknowledged insert.
    Latest {
        zipf: Zipfian,
    },
    Hotspot {
        first: u64,
        hot: u64,
        cold: u64,
        operations: f64,
    },
    /// An exponential draw back from the newest acknowledged insert.
    Exponential {
        gamma: f64,
    },
}

/// The shapes of the distributions that have one, as the properties give them.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shapes {
    pub hotspot: Hotspot,
    pub exponential: Exponential,
}

impl KeyChooser {
    /// As YCSB's `CoreWorkload.init` makes its key chooser: `records` in all (YCSB's
    /// `recordcount`), `slice` the ones loaded (`insertstart`, `insertcount`), which uniform,
    /// zipfian and hotspot choose from; `new_keys` the inserts the run phase expects (the
    /// zipfian's space is made that much larger so new records get their share).
    pub fn new(
        distribution: Distribution,
        records: u64,
        slice: std::ops::Range<u64>,
        new_keys: u64,
        shapes: Shapes,
    ) -> KeyChooser {
        let hotspot = shapes.hotspot;
        let (first, count) = (slice.start, slice.end - slice.start);
        match distribution {
            Distribution::Uniform => KeyChooser::Uniform { keys: slice },
            Distribution::Zipfian => KeyChooser::Scrambled {
                zipf: Zipfian::with_zetan(0, SCRAMBLED_ITEMS, ZIPFIAN_CONSTANT, SCRAMBLED_ZETAN),
                first,
                items: count + new_keys,
            },
            Distribution::Latest => KeyChooser::Latest {
                zipf: Zipfian::new(0, records.max(1), ZIPFIAN_CONSTANT),
            },
            Distribution::Hotspot => {
                let hot = ((count as f64 * hotspot.data) as u64).clamp(1, count.max(1));
                KeyChooser::Hotspot {
                    first,
                    hot,
                    cold: count.saturating_sub(hot),
                    operations: hotspot.operations,
                }
            }
            Distribution::Exponential => KeyChooser::Exponential {
                gamma: shapes.exponential.gamma(records),
            },
        }
    }

    /// A record number; `last` is the newest acknowledged insert.
    pub fn next(&mut self, rng: &mut impl Rng, last: u64) -> u64 {
        match self {
            KeyChooser::Uniform { keys } => rng.random_range(keys.clone()),
            KeyChooser::Scrambled { zipf, first, items } => {
                *first + fnv_hash64(zipf.next(rng)) % *items
            }
            // As YCSB's SkewedLatestGenerator: `last - zipfian(last)`, in 1..=last.
            KeyChooser::Latest { zipf } => last - zipf.next_of(rng, last.max(1)),
            KeyChooser::Hotspot {
                first,
                hot,
                cold,
                operations,
            } => {
                *first
                    + match *cold == 0 || rng.random::<f64>() < *operations {
                        true => rng.random_range(0..*hot),
                        false => *hot + rng.random_range(0..*cold),
                    }
            }
            // As CoreWorkload.nextKeynum: `last` less a draw, drawn again while that is below 0.
            KeyChooser::Exponential { gamma } => loop {
                let back = (-rng.random::<f64>().ln() / *gamma) as u64;
                if back <= last {
                    break last - back;
                }
            },
        }
    }
}

/// How the lengths of fields or scans are drawn (YCSB's `fieldlengthdistribution` and
/// `scanlengthdistribution`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LengthDistribution {
    /// Always the longest.
    Constant,
    /// Uniform from the shortest to the longest.
    Uniform,
    /// Zipfian from the shortest (the most frequent) to the longest.
    Zipfian,
}

impl LengthDistribution {
    pub fn name(self) -> &'static str {
        match self {
            LengthDistribution::Constant => "constant",
            LengthDistribution::Uniform => "uniform",
            LengthDistribution::Zipfian => "zipfian",
        }
    }
}

/// A worker's length chooser: YCSB's `ConstantIntegerGenerator(max)`,
/// `UniformLongGenerator(min, max)` or `ZipfianGenerator(min, max)`, both ends included.
pub enum LengthChooser {
    Constant(u64),
    Uniform(std::ops::RangeInclusive<u64>),
    Zipfian(Zipfian),
}

impl LengthChooser {
    pub fn new(distribution: LengthDistribution, min: u64, max: u64) -> LengthChooser {
        match distribution {
            LengthDistribution::Constant => LengthChooser::Constant(max),
            LengthDistribution::Uniform => LengthChooser::Uniform(min..=max),
            LengthDistribution::Zipfian => {
                LengthChooser::Zipfian(Zipfian::new(min, max - min + 1, ZIPFIAN_CONSTANT))
            }
        }
    }

    pub fn next(&mut self, rng: &mut impl Rng) -> u64 {
        match self {
            LengthChooser::Constant(n) => *n,
            LengthChooser::Uniform(range) => rng.random_range(range.clone()),
            LengthChooser::Zipfian(zipf) => zipf.next(rng),
        }
    }
}

/// The numbers of records inserted during the run phase, shared by the workers (YCSB's
/// `AcknowledgedCounterGenerator`): `next` hands out numbers, `acknowledge` marks one
/// inserted, and `last` is the highest number below which every insert is acknowledged, so
/// readers never choose a record still being written.
pub struct InsertSequence {
    /// The first number inserted (the loaded records come before it).
    first: u64,
    next: AtomicU64,
    acknowledged: Mutex<Acknowledged>,
    last: AtomicU64,
}

struct Acknowledged {
    /// Every number below this is acknowledged.
    below: u64,
    /// Acknowledged numbers above a gap.
    pending: BTreeSet<u64>,
}

impl InsertSequence {
    /// After a load of `records` (numbers 0..records).
    pub fn new(records: u64) -> InsertSequence {
        InsertSequence {
            first: records,
            next: AtomicU64::new(records),
            acknowledged: Mutex::new(Acknowledged {
                below: records,
                pending: BTreeSet::new(),
            }),
            last: AtomicU64::new(records.saturating_sub(1)),
        }
    }

    pub fn next(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    pub fn acknowledge(&self, n: u64) {
        let mut a = self.acknowledged.lock().unwrap();
        a.pending.insert(n);
        while a.pending.first() == Some(&a.below) {
            a.pending.pop_first();
            a.below += 1;
        }
        self.last
            .store(a.below.saturating_sub(1), Ordering::Release);
    }

    /// Every number whose insert was acknowledged, in order.
    pub fn acknowledged(&self) -> Vec<u64> {
        let a = self.acknowledged.lock().unwrap();
        (self.first..a.below)
            .chain(a.pending.iter().copied())
            .collect()
    }

    /// The newest record every reader may choose.
    pub fn last(&self) -> u64 {
        self.last.load(Ordering::Acquire)
    }
}

/// How records are named, as YCSB's `buildKeyName`: `user` and the record number, hashed
/// (`insertorder=hashed`, the default) or not (`ordered`), zero-padded to `zero_padding` digits.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct KeyNaming {
    pub ordered: bool,
    pub zero_padding: usize,
}

impl Default for KeyNaming {
    fn default() -> KeyNaming {
        KeyNaming {
            ordered: false,
            zero_padding: 1,
        }
    }
}

impl KeyNaming {
    /// Writes record `n`'s key into `out`.
    pub fn name(self, n: u64, out: &mut Vec<u8>) {
        use std::io::Write;
        let number = if self.ordered { n } else { fnv_hash64(n) };
        out.clear();
        write!(out, "user{number:0width$}", width = self.zero_padding).expect("writing to a Vec");
    }
}

/// A field's random printable text as YCSB's `RandomByteIterator` makes it: six characters from
/// each random 32-bit number, by position one of 32, 64 or 64 (`& 95`) kinds after the space, so
/// a field compresses as YCSB's do.
pub fn fill_field(rng: &mut impl Rng, field: &mut Vec<u8>, length: usize) {
    const MASKS: [u32; 6] = [31, 63, 95, 31, 63, 95];
    field.clear();
    while field.len() < length {
        let bits: u32 = rng.random();
        let left = length - field.len();
        for (i, mask) in MASKS.iter().enumerate().take(left) {
            field.push(b' ' + ((bits >> (5 * i)) & mask) as u8);
        }
    }
}

#[cfg(test)]
mod tests;
