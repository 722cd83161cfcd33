//! sysbench 1.0's random numbers, drawn as sysbench draws them so that a script given the same
//! `--rand-seed` sends the same values: xoroshiro128+ per thread, seeded from the C library's
//! `random()` after `srandom(seed)` (four draws per thread, in thread order), and the
//! distributions of its `sb_rand.c` (`special` by default) with its arithmetic, unsigned 32-bit
//! wrapping included.

use anyhow::{bail, Result};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

/// The distribution `sysbench.rand.default` draws from (`--rand-type`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Uniform,
    Gaussian,
    Special,
    Pareto,
}

/// `--rand-type`, `--rand-spec-iter`, `--rand-spec-pct`, `--rand-spec-res`, `--rand-pareto-h`,
/// with the factors sysbench computes from them once.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub kind: Kind,
    iter: u32,
    iter_mult: f64,
    pct_mult: f64,
    pct_2_mult: f64,
    res_mult: f64,
    pareto_power: f64,
}

impl Shape {
    pub fn new(kind: &str, iter: u32, pct: u32, res: u32, pareto_h: f64) -> Result<Shape> {
        let kind = match kind {
            "uniform" => Kind::Uniform,
            "gaussian" => Kind::Gaussian,
            "special" => Kind::Special,
            "pareto" => Kind::Pareto,
            other => bail!("--rand-type={other}: one of uniform, gaussian, special, pareto"),
        };
        if iter == 0 || res >= 100 {
            bail!("--rand-spec-iter must be at least 1 and --rand-spec-res below 100");
        }
        Ok(Shape {
            kind,
            iter,
            iter_mult: 1.0 / iter as f64,
            pct_mult: pct as f64 / 100.0,
            pct_2_mult: pct as f64 / 200.0,
            res_mult: 100.0 / (100.0 - res as f64),
            pareto_power: pareto_h.ln() / (1.0 - pareto_h).ln(),
        })
    }
}

/// The C library's `random()` after `srandom(seed)`: `n` draws. sysbench seeds its generators
/// from it, so hakari asks the same function (glibc's additive feedback generator).
pub fn libc_draws(seed: u32, n: usize) -> Vec<u32> {
    // One caller at a time: the C library's generator is one state for the process.
    static LOCK: Mutex<()> = Mutex::new(());
    let _held = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    // glibc's srand and rand are its srandom and random (one generator, the same state).
    // SAFETY: they have no preconditions; the lock keeps the sequence ours.
    unsafe {
        libc::srand(seed);
        (0..n).map(|_| libc::rand() as u32).collect()
    }
}

/// The seeds sysbench's threads get: before `srandom(--rand-seed)`, its main thread and the
/// unique sequence draw from the C library's initial state (seed 1), so a command run on the
/// main thread (`prepare` with one thread) draws the same values whatever the seed; after it,
/// each worker thread takes four draws, in the order the threads start.
pub struct Seeds {
    draws: Vec<u32>,
}

impl Seeds {
    /// Seeds for `threads` workers of a run (`run`), from `--rand-seed`.
    pub fn run(seed: u32, threads: usize) -> Seeds {
        Seeds {
            draws: libc_draws(seed, 4 * threads),
        }
    }

    /// The main thread's seed, as every command but `run` sees it (with parallel commands'
    /// workers after it).
    pub fn main(threads: usize) -> Seeds {
        let mut draws = libc_draws(1, 6 + 4 * threads);
        // The main thread's four, then the unique sequence's two, then the workers'.
        draws.drain(4..6);
        Seeds { draws }
    }

    /// The generator state of worker `i` (of the main thread, for `Seeds::main`'s 0).
    pub fn state(&self, i: usize) -> [u64; 2] {
        let d = |k: usize| self.draws.get(4 * i + k).copied().unwrap_or(0) as u64;
        [(d(0) << 32) | d(1), (d(2) << 32) | d(3)]
    }
}

/// The unique sequence (`sysbench.rand.unique`), one for all threads, seeded from the C
/// library's initial state as sysbench's is.
pub struct Unique {
    index: AtomicU32,
    offset: u32,
}

const PRIME: u32 = 4_294_967_291;

fn permute(x: u32) -> u32 {
    if x >= PRIME {
        return x;
    }
    let residue = ((x as u64 * x as u64) % PRIME as u64) as u32;
    if x <= PRIME / 2 {
        residue
    } else {
        PRIME - residue
    }
}

impl Unique {
    pub fn new() -> Unique {
        let d = libc_draws(1, 6);
        Unique {
            index: AtomicU32::new(permute(permute(d[4]).wrapping_add(0x682f_0161))),
            offset: permute(permute(d[5]).wrapping_add(0x4679_0905)),
        }
    }

    pub fn next(&self) -> u32 {
        let index = self.index.fetch_add(1, Ordering::Relaxed);
        permute(permute(index).wrapping_add(self.offset) ^ 0x5bf0_3635)
    }
}

impl Default for Unique {
    fn default() -> Self {
        Unique::new()
    }
}

/// One thread's generator.
pub struct Generator {
    state: [u64; 2],
    pub shape: Shape,
}

impl Generator {
    pub fn new(state: [u64; 2], shape: Shape) -> Generator {
        Generator { state, shape }
    }

    /// xoroshiro128+.
    pub fn next_u64(&mut self) -> u64 {
        let [s0, mut s1] = self.state;
        let result = s0.wrapping_add(s1);
        s1 ^= s0;
        self.state[0] = s0.rotate_left(55) ^ s1 ^ (s1 << 14);
        self.state[1] = s1.rotate_left(36);
        result
    }

    /// A double in [0, 1) from the top 52 bits.
    pub fn double(&mut self) -> f64 {
        f64::from_bits((0x3FF << 52) | (self.next_u64() >> 12)) - 1.0
    }

    pub fn default(&mut self, a: u32, b: u32) -> u32 {
        match self.shape.kind {
            Kind::Uniform => self.uniform(a, b),
            Kind::Gaussian => self.gaussian(a, b),
            Kind::Special => self.special(a, b),
            Kind::Pareto => self.pareto(a, b),
        }
    }

    pub fn uniform(&mut self, a: u32, b: u32) -> u32 {
        let width = b.wrapping_sub(a).wrapping_add(1) as f64;
        (a as f64 + self.double() * width) as u32
    }

    pub fn gaussian(&mut self, a: u32, b: u32) -> u32 {
        let t = b.wrapping_sub(a).wrapping_add(1) as f64;
        let mut sum = 0.0;
        for _ in 0..self.shape.iter {
            sum += self.double() * t;
        }
        a.wrapping_add((sum * self.shape.iter_mult) as u32)
    }

    /// `special`: a gaussian over the range for (100 - res)% of values, the rest uniform over
    /// `pct`% of the range around its middle.
    pub fn special(&mut self, a: u32, b: u32) -> u32 {
        let t = b.wrapping_sub(a) as f64;
        let range = t * self.shape.res_mult;
        let rnd = self.double();
        if rnd * range < t {
            let mut sum = 0.0;
            for _ in 0..self.shape.iter {
                sum += self.double();
            }
            return (a as f64 + sum * t * self.shape.iter_mult) as u32;
        }
        let d = t * self.shape.pct_mult;
        let res = rnd * (d + 1.0) + (t / 2.0 - t * self.shape.pct_2_mult);
        a.wrapping_add(res as u32)
    }

    pub fn pareto(&mut self, a: u32, b: u32) -> u32 {
        let width = b.wrapping_sub(a).wrapping_add(1) as f64;
        let power = self.shape.pareto_power;
        a.wrapping_add((width * self.double().powf(power)) as u32)
    }

    /// `#` a digit, `@` a lowercase letter, anything else as it is.
    pub fn string(&mut self, template: &[u8], into: &mut Vec<u8>) {
        into.clear();
        into.extend(template.iter().map(|&c| match c {
            b'#' => self.uniform(b'0' as u32, b'9' as u32) as u8,
            b'@' => self.uniform(b'a' as u32, b'z' as u32) as u8,
            c => c,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unique_sequence_repeats_no_value() {
        let u = Unique::new();
        let mut seen: Vec<u32> = (0..10_000).map(|_| u.next()).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 10_000);
    }

    #[test]
    fn draws_stay_in_their_ranges() {
        let shape = Shape::new("special", 12, 1, 75, 0.2).unwrap();
        let mut g = Generator::new(Seeds::run(7, 1).state(0), shape);
        for _ in 0..10_000 {
            for v in [
                g.special(1, 100),
                g.uniform(1, 100),
                g.gaussian(1, 100),
                g.pareto(1, 100),
            ] {
                assert!((1..=100).contains(&v), "{v}");
            }
        }
    }
}
