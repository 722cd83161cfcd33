//! TPC-C's random values (§2.1.6, §4.3.2): NURand with a constant C per field, the C-Load/C-Run
//! rule for customer last names, the syllable names, and the random strings of the population.

use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// The constants C of NURand (§2.1.6), one per field that draws with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Constants {
    /// For c_last, A = 255.
    pub c_last: i64,
    /// For c_id, A = 1023.
    pub c_id: i64,
    /// For ol_i_id, A = 8191.
    pub ol_i_id: i64,
}

impl Constants {
    /// The load's constants.
    pub fn draw(rng: &mut impl Rng) -> Constants {
        Constants {
            c_last: rng.random_range(0..=255),
            c_id: rng.random_range(0..=1023),
            ol_i_id: rng.random_range(0..=8191),
        }
    }

    /// A run's constants for tables loaded with `load`: c_last's must differ from the load's by
    /// 65..=119, but not 96 or 112 (§2.1.6.1), so that the names a run asks for are not the
    /// ones the load favoured; drawn until it does.
    pub fn for_run(load: &Constants, rng: &mut impl Rng) -> Constants {
        let c_last = loop {
            let c = rng.random_range(0..=255);
            if run_delta_allowed((c - load.c_last).abs()) {
                break c;
            }
        };
        Constants {
            c_last,
            c_id: rng.random_range(0..=1023),
            ol_i_id: rng.random_range(0..=8191),
        }
    }
}

/// §2.1.6.1: |C_RUN - C_LOAD| for c_last.
pub fn run_delta_allowed(delta: i64) -> bool {
    (65..=119).contains(&delta) && delta != 96 && delta != 112
}

/// NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
pub fn nurand(rng: &mut impl Rng, a: i64, x: i64, y: i64, c: i64) -> i64 {
    (((rng.random_range(0..=a) | rng.random_range(x..=y)) + c) % (y - x + 1)) + x
}

const SYLLABLES: [&str; 10] = [
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
];

/// The last name of number `n` (0..=999): its three digits' syllables (§4.3.2.3).
pub fn last_name(n: i64) -> String {
    let mut s = String::with_capacity(15);
    write_last_name(n, &mut s);
    s
}

/// Appends the last name of number `n`.
pub fn write_last_name(n: i64, out: &mut String) {
    let n = n as usize;
    for d in [n / 100, n / 10 % 10, n % 10] {
        out.push_str(SYLLABLES[d]);
    }
}

/// A customer's last name drawn in a run: NURand(255, 0, 999) with the run's C.
pub fn run_last_name(rng: &mut impl Rng, c: &Constants) -> String {
    last_name(nurand(rng, 255, 0, 999, c.c_last))
}

const ALPHANUMERIC: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// ALPHANUMERIC by six bits of a draw; 0 where the six bits pass its end (drawn again).
const BY_SIX_BITS: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < ALPHANUMERIC.len() {
        t[i] = ALPHANUMERIC[i];
        i += 1;
    }
    t
};

/// How many characters a block of `Draws` holds.
const BLOCK: usize = 4096;

/// A random stream for the population, whose random strings take their characters from a
/// block drawn ahead from a second stream: the characters were most of the load's generating
/// time, and a block is drawn in one tight loop (each 64-bit draw gives ten, six bits each,
/// those past the alphabet's end dropped) instead of a call per string.
pub struct Draws {
    rng: ChaCha8Rng,
    characters: ChaCha8Rng,
    block: String,
    at: usize,
}

impl Draws {
    pub fn new(mut rng: ChaCha8Rng) -> Draws {
        let characters = ChaCha8Rng::from_rng(&mut rng);
        Draws {
            rng,
            characters,
            block: String::with_capacity(BLOCK + 10),
            at: 0,
        }
    }

    /// Appends `n` letters and digits, each equally likely.
    fn alphanumerics(&mut self, mut n: usize, out: &mut String) {
        while n > 0 {
            if self.at == self.block.len() {
                self.refill();
            }
            let k = n.min(self.block.len() - self.at);
            out.push_str(&self.block[self.at..self.at + k]);
            self.at += k;
            n -= k;
        }
    }

    fn refill(&mut self) {
        let mut bytes = [0u8; BLOCK + 10];
        let mut filled = 0;
        while filled < BLOCK {
            let mut bits = self.characters.next_u64();
            for _ in 0..10 {
                // Written always, kept only when in the alphabet: no branch to mispredict.
                let c = BY_SIX_BITS[(bits & 63) as usize];
                bytes[filled] = c;
                filled += usize::from(c != 0);
                bits >>= 6;
            }
        }
        self.block.clear();
        self.block
            .push_str(std::str::from_utf8(&bytes[..filled]).expect("an ASCII alphabet"));
        self.at = 0;
    }
}

/// Every other draw (lengths, numbers, choices) comes from the first stream.
impl RngCore for Draws {
    fn next_u32(&mut self) -> u32 {
        self.rng.next_u32()
    }
    fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.rng.fill_bytes(dst)
    }
}

/// Appends a random a-string (letters and digits) of `min..=max` characters (§4.3.2.2).
pub fn astring(rng: &mut Draws, min: usize, max: usize, out: &mut String) {
    let n = rng.random_range(min..=max);
    rng.alphanumerics(n, out);
}

/// Appends a random n-string (digits) of `min..=max` characters: four bits of a draw a digit,
/// a value past 9 drawn again.
pub fn nstring(rng: &mut impl Rng, min: usize, max: usize, out: &mut String) {
    let n = rng.random_range(min..=max);
    let start = out.len();
    while out.len() < start + n {
        let mut bits: u64 = rng.random();
        for _ in 0..16 {
            let digit = (bits & 15) as u8;
            if digit < 10 {
                out.push(char::from(b'0' + digit));
            }
            bits >>= 4;
        }
    }
    out.truncate(start + n);
}

/// Appends a zip code: four random digits and "11111" (§4.3.2.7).
pub fn zip(rng: &mut impl Rng, out: &mut String) {
    nstring(rng, 4, 4, out);
    out.push_str("11111");
}

/// Appends i_data or s_data: an a-string of 26..=50, and in 10% of rows "ORIGINAL" at a random
/// place.
pub fn data(rng: &mut Draws, out: &mut String) {
    let start = out.len();
    astring(rng, 26, 50, out);
    if rng.random_range(0..10) == 0 {
        let at = start + rng.random_range(0..=out.len() - start - 8);
        out.replace_range(at..at + 8, "ORIGINAL");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(fill: impl FnOnce(&mut String)) -> String {
        let mut s = String::from("kept");
        fill(&mut s);
        s.strip_prefix("kept")
            .expect("appended, not replaced")
            .to_string()
    }

    #[test]
    fn last_names_are_the_syllables_of_their_digits() {
        assert_eq!(last_name(0), "BARBARBAR");
        assert_eq!(last_name(371), "PRICALLYOUGHT");
        assert_eq!(last_name(999), "EINGEINGEING");
    }

    #[test]
    fn nurand_stays_in_range_and_favours_some_values() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut counts = vec![0u32; 1000];
        for _ in 0..200_000 {
            let v = nurand(&mut rng, 255, 0, 999, 123);
            assert!((0..=999).contains(&v));
            counts[v as usize] += 1;
        }
        // Uniform would put 200 in each; NURand's OR skews it several-fold.
        let (min, max) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
        assert!(*max > 4 * *min.max(&1), "min {min} max {max}");
    }

    #[test]
    fn run_constants_keep_the_distance_from_the_load() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..1000 {
            let load = Constants::draw(&mut rng);
            let run = Constants::for_run(&load, &mut rng);
            let d = (run.c_last - load.c_last).abs();
            assert!((65..=119).contains(&d) && d != 96 && d != 112, "{d}");
        }
        assert!(!run_delta_allowed(96) && !run_delta_allowed(112) && !run_delta_allowed(64));
        assert!(run_delta_allowed(65) && run_delta_allowed(119));
    }

    #[test]
    fn strings_draw_every_character_equally_often() {
        let mut rng = Draws::new(ChaCha8Rng::seed_from_u64(5));
        let mut counts = [0u32; 128];
        for _ in 0..20_000 {
            let s = text(|s| astring(&mut rng, 14, 24, s));
            assert!((14..=24).contains(&s.len()));
            s.bytes().for_each(|b| counts[b as usize] += 1);
        }
        let seen: Vec<u32> = ALPHANUMERIC.iter().map(|&c| counts[c as usize]).collect();
        let expected = seen.iter().sum::<u32>() as f64 / 62.0;
        for (c, n) in ALPHANUMERIC.iter().zip(&seen) {
            let off = (*n as f64 - expected).abs() / expected;
            assert!(
                off < 0.05,
                "{} drawn {n} times, expected about {expected}",
                *c as char
            );
        }
        assert_eq!(
            seen.iter().sum::<u32>() as usize,
            counts.iter().sum::<u32>() as usize
        );
        let mut by_digit = [0u32; 10];
        for _ in 0..2_000 {
            let digits = text(|s| nstring(&mut rng, 16, 16, s));
            assert!(digits.len() == 16 && digits.bytes().all(|b| b.is_ascii_digit()));
            digits
                .bytes()
                .for_each(|b| by_digit[(b - b'0') as usize] += 1);
        }
        // 3,200 each expected.
        assert!(
            by_digit.iter().all(|n| (2_900..3_500).contains(n)),
            "{by_digit:?}"
        );
    }

    #[test]
    fn data_holds_original_in_about_one_row_in_ten() {
        let mut rng = Draws::new(ChaCha8Rng::seed_from_u64(3));
        let n = 20_000;
        let original = (0..n)
            .filter(|_| text(|s| data(&mut rng, s)).contains("ORIGINAL"))
            .count();
        assert!((1_700..2_300).contains(&original), "{original}");
        let s = text(|s| zip(&mut rng, s));
        assert!(s.len() == 9 && s.ends_with("11111"));
    }
}
