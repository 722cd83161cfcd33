//! pgbench's random functions, so a script draws what it draws under pgbench: its generator
//! (xoroshiro128** seeded through splitmix64), each client's generator and `:default_seed`
//! derived from the seed as pgbench derives them from `--random-seed`, uniform, exponential,
//! gaussian and zipfian draws, its two hashes and `permute`.

use std::f64::consts::PI;

/// The smallest parameter `random_gaussian` takes (pgbench's).
pub const MIN_GAUSSIAN_PARAM: f64 = 2.0;
/// The range of parameters `random_zipfian` takes (pgbench's).
pub const ZIPFIAN_PARAMS: (f64, f64) = (1.001, 1000.0);

/// xoroshiro128**, the generator pgbench draws from.
#[derive(Clone, Debug)]
pub struct Prng {
    s0: u64,
    s1: u64,
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut v = *state;
    v = (v ^ (v >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    v = (v ^ (v >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    v ^ (v >> 31)
}

impl Prng {
    pub fn seeded(seed: u64) -> Prng {
        let mut seed = seed;
        let (s0, s1) = (splitmix64(&mut seed), splitmix64(&mut seed));
        if s0 == 0 && s1 == 0 {
            // All zeroes is a fixed point: any other state will do (Knuth's LCG constants).
            return Prng {
                s0: 0x5851_F42D_4C95_7F2D,
                s1: 0x1405_7B7E_F767_814F,
            };
        }
        Prng { s0, s1 }
    }

    pub fn next_u64(&mut self) -> u64 {
        let s0 = self.s0;
        let sx = self.s1 ^ s0;
        let v = s0.wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        self.s0 = s0.rotate_left(24) ^ sx ^ (sx << 16);
        self.s1 = sx.rotate_left(37);
        v
    }

    /// Uniform in `[min, max]` (bitmask rejection, as pgbench).
    pub fn u64_range(&mut self, min: u64, max: u64) -> u64 {
        if max <= min {
            return min;
        }
        let range = max - min;
        let shift = range.leading_zeros();
        loop {
            let v = self.next_u64() >> shift;
            if v <= range {
                return min + v;
            }
        }
    }

    /// Uniform in `[0, 1)`.
    pub fn double(&mut self) -> f64 {
        (self.next_u64() >> 12) as f64 * (1.0 / (1u64 << 52) as f64)
    }

    /// Standard normal (Box-Muller on `(0, 1]`).
    fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.double();
        let u2 = 1.0 - self.double();
        (-2.0 * u1.ln()).sqrt() * (2.0 * PI * u2).sin()
    }

    /// `random(min, max)`: the caller has checked `min <= max` and that the range fits.
    pub fn uniform(&mut self, min: i64, max: i64) -> i64 {
        min.wrapping_add(self.u64_range(0, max.wrapping_sub(min) as u64) as i64)
    }

    /// `random_exponential(min, max, parameter)`: the density at `max` is `exp(-parameter)`
    /// of that at `min`.
    pub fn exponential(&mut self, min: i64, max: i64, parameter: f64) -> i64 {
        let cut = (-parameter).exp();
        let uniform = 1.0 - self.double();
        let r = -(cut + (1.0 - cut) * uniform).ln() / parameter;
        min + ((max - min + 1) as f64 * r) as i64
    }

    /// `random_gaussian(min, max, parameter)`: a normal draw cut at `parameter` standard
    /// deviations either side of the middle of the range.
    pub fn gaussian(&mut self, min: i64, max: i64, parameter: f64) -> i64 {
        let stdev = loop {
            let z = self.normal();
            if (-parameter..parameter).contains(&z) {
                break z;
            }
        };
        let r = (stdev + parameter) / (parameter * 2.0);
        min + ((max - min + 1) as f64 * r) as i64
    }

    /// `random_zipfian(min, max, s)`: value `k` (from 1) drawn with probability proportional
    /// to `1/k^s`, by rejection (Devroye, "Non-Uniform Random Variate Generation", p. 550).
    pub fn zipfian(&mut self, min: i64, max: i64, s: f64) -> i64 {
        let n = max - min + 1;
        if n <= 1 {
            return min;
        }
        let b = 2f64.powf(s - 1.0);
        let x = loop {
            let (u, v) = (self.double(), self.double());
            let x = u.powf(-1.0 / (s - 1.0)).floor();
            let t = (1.0 + 1.0 / x).powf(s - 1.0);
            if v * x * (t - 1.0) / (b - 1.0) <= t / b && x <= n as f64 {
                break x;
            }
        };
        min - 1 + x as i64
    }
}

/// What pgbench derives from `--random-seed` for `clients` clients, each on a thread of its own
/// (`-j` equal to `-c`, as hakari runs a client per thread): its base sequence seeds each
/// client's generator in turn, then gives `:default_seed` (unless the user set it), then seeds
/// each thread's three generators: the script choice, throttling and sampling, of which hakari
/// uses the first.
pub struct Seeding {
    pub functions: Vec<Prng>,
    pub default_seed: Option<i64>,
    pub choices: Vec<Prng>,
}

impl Seeding {
    pub fn new(seed: u64, clients: usize, draws_default_seed: bool) -> Seeding {
        let mut base = Prng::seeded(seed);
        let functions = (0..clients)
            .map(|_| Prng::seeded(base.next_u64()))
            .collect();
        let default_seed = draws_default_seed.then(|| base.next_u64() as i64);
        let choices = (0..clients)
            .map(|_| {
                let choice = Prng::seeded(base.next_u64());
                // Throttling and sampling: pgbench seeds them here; hakari paces on its own.
                base.next_u64();
                base.next_u64();
                choice
            })
            .collect();
        Seeding {
            functions,
            default_seed,
            choices,
        }
    }
}

const MM2_MUL: u64 = 0xc6a4_a793_5bd1_e995;
const MM2_ROT: u32 = 47;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// `hash_murmur2(value, seed)` (also plain `hash`): MurmurHash64A of the value's 8 bytes.
pub fn murmur2(value: i64, seed: i64) -> i64 {
    let mut h = (seed as u64) ^ MM2_MUL.wrapping_mul(8);
    let mut k = value as u64;
    k = k.wrapping_mul(MM2_MUL);
    k ^= k >> MM2_ROT;
    k = k.wrapping_mul(MM2_MUL);
    h ^= k;
    h = h.wrapping_mul(MM2_MUL);
    h ^= h >> MM2_ROT;
    h = h.wrapping_mul(MM2_MUL);
    h ^= h >> MM2_ROT;
    h as i64
}

/// `hash_fnv1a(value, seed)`: FNV-1a over the value's 8 bytes, low byte first.
pub fn fnv1a(value: i64, seed: i64) -> i64 {
    let mut h = FNV_OFFSET_BASIS ^ seed as u64;
    let mut v = value;
    for _ in 0..8 {
        h ^= (v & 0xff) as u64;
        h = h.wrapping_mul(FNV_PRIME);
        v >>= 8;
    }
    h as i64
}

/// `permute(value, size, seed)`: where `value` (mod `size`) goes in a pseudorandom
/// permutation of `[0, size)` chosen by `seed`. The caller has checked `size > 0`.
pub fn permute(value: i64, size: i64, seed: i64) -> i64 {
    if size < 2 {
        return 0;
    }
    let mut prng = Prng::seeded(seed as u64);
    let size = size as u64;
    let mut v = (value as u64) % size;
    // Work modulo the largest power of two not above size, on overlapping lower and upper
    // parts; each round: an odd multiplier, an xor, a rotation, then an offset mod size.
    let bits = 63 - size.leading_zeros();
    let mask = (1u64 << bits) - 1;
    let scramble = |x: u64, m: u64, r: u64| {
        let x = (x.wrapping_mul(m) ^ r) & mask;
        ((x << 1) & mask) | (x >> (bits - 1))
    };
    for _ in 0..6 {
        let m = (prng.next_u64() & mask) | 1;
        let r = prng.next_u64() & mask;
        if v <= mask {
            v = scramble(v, m, r);
        }
        let m = (prng.next_u64() & mask) | 1;
        let r = prng.next_u64() & mask;
        let t = size - 1 - v;
        if t <= mask {
            v = size - 1 - scramble(t, m, r);
        }
        v = (v + prng.u64_range(0, size - 1)) % size;
    }
    v as i64
}

#[cfg(test)]
mod tests;
