//! The Wisconsin relations: DeWitt's 1993 "scalable" schema. unique1 is a permutation of 0..N-1
//! made by a multiplicative generator modulo a prime (no seed: every run, and every other
//! implementation using the same constants, gets the same rows); unique2 is the row ordinal.

use crate::engine::sql::{Row, SqlValue};
use anyhow::{bail, Result};

/// Relation sizes this workload runs: each has a generator bracket of its own, and every query
/// constant (1% and 10% ranges, N/10 join inputs) is a whole number of rows.
pub const SIZES: [u64; 5] = [1_000, 10_000, 100_000, 1_000_000, 10_000_000];

/// (generator, prime) of the smallest bracket that holds `n` rows. Each generator is a primitive
/// root of its prime, so its powers visit 1..p-1 once; values above n are skipped.
pub fn constants(n: u64) -> Option<(u64, u64)> {
    const TABLE: [(u64, u64, u64); 6] = [
        (1_000, 279, 1_009),
        (10_000, 2_969, 10_007),
        (100_000, 21_395, 100_003),
        (1_000_000, 2_107, 1_000_003),
        (10_000_000, 211, 10_000_019),
        (100_000_000, 21, 100_000_007),
    ];
    TABLE
        .iter()
        .find(|(limit, _, _)| n >= 1 && n <= *limit)
        .map(|&(_, g, p)| (g, p))
}

/// Refuses a size the workload does not run, naming those it does.
pub fn check_size(n: u64) -> Result<()> {
    if !SIZES.contains(&n) {
        bail!(
            "--tuples {n} is not a size the Wisconsin generator runs here; sizes: {}",
            SIZES
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}

/// unique1 of each row in order: a permutation of 0..n-1.
pub struct Permutation {
    seed: u64,
    generator: u64,
    prime: u64,
    limit: u64,
    left: u64,
}

impl Permutation {
    pub fn new(n: u64) -> Permutation {
        let (generator, prime) = constants(n).expect("a size checked by check_size");
        Permutation {
            seed: generator,
            generator,
            prime,
            limit: n,
            left: n,
        }
    }
}

impl Iterator for Permutation {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        if self.left == 0 {
            return None;
        }
        loop {
            self.seed = (self.generator * self.seed) % self.prime;
            if self.seed <= self.limit {
                break;
            }
        }
        self.left -= 1;
        Some(self.seed - 1)
    }
}

/// `k` in base 26 ('A' = 0), exactly 7 letters, right-justified and padded with 'A': the same
/// order as the integers, and unique for every supported size.
pub fn convert(mut k: u64) -> [u8; 7] {
    let mut buf = [b'A'; 7];
    let mut pos = 7;
    while k > 0 && pos > 0 {
        pos -= 1;
        buf[pos] = b'A' + (k % 26) as u8;
        k /= 26;
    }
    buf
}

/// A unique string column: 7 significant letters and 45 'x' (52 characters).
pub fn unique_string(k: u64) -> String {
    let mut s = String::with_capacity(52);
    s.push_str(std::str::from_utf8(&convert(k)).expect("ASCII"));
    s.extend(std::iter::repeat_n('x', 45));
    s
}

/// string4 cycles on the row ordinal (unique2), not on unique1: this is why query 18 finds 400
/// distinct rows, not 100.
pub fn string4(unique2: u64) -> String {
    let head = ["AAAA", "HHHH", "OOOO", "VVVV"][(unique2 % 4) as usize];
    let mut s = String::with_capacity(52);
    s.push_str(head);
    s.extend(std::iter::repeat_n('x', 48));
    s
}

pub const COLUMNS: [&str; 16] = [
    "unique1",
    "unique2",
    "two",
    "four",
    "ten",
    "twenty",
    "onePercent",
    "tenPercent",
    "twentyPercent",
    "fiftyPercent",
    "unique3",
    "evenOnePercent",
    "oddOnePercent",
    "stringu1",
    "stringu2",
    "string4",
];

/// The 16 attributes of the tuple with the given unique1 and unique2.
pub fn tuple(u: u64, i: u64) -> Row {
    let int = |v: u64| SqlValue::Int(v as i64);
    vec![
        int(u),
        int(i),
        int(u % 2),
        int(u % 4),
        int(u % 10),
        int(u % 20),
        int(u % 100),
        int(u % 10),
        int(u % 5),
        int(u % 2),
        int(u),
        int((u % 100) * 2),
        int((u % 100) * 2 + 1),
        SqlValue::Text(unique_string(u)),
        SqlValue::Text(unique_string(i)),
        SqlValue::Text(string4(i)),
    ]
}

/// The rows of an n-tuple relation in unique2 order, made as they are loaded.
pub fn relation(n: u64) -> impl Iterator<Item = Row> {
    Permutation::new(n)
        .zip(0..n)
        .map(|(unique1, unique2)| tuple(unique1, unique2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: &SqlValue) -> u64 {
        match v {
            SqlValue::Int(i) => *i as u64,
            other => panic!("not an integer: {other:?}"),
        }
    }

    fn text(v: &SqlValue) -> &str {
        match v {
            SqlValue::Text(t) => t,
            other => panic!("not text: {other:?}"),
        }
    }

    /// PostgreSQL's regression data (src/test/regress/data/onek.data and tenk.data) was made
    /// with the same generator: its unique1 column starts with these values. An independent
    /// check of the permutation, beside the spec's own test vectors.
    #[test]
    fn unique1_matches_the_postgresql_regression_data() {
        let onek: Vec<u64> = Permutation::new(1_000).take(10).collect();
        assert_eq!(onek, [147, 931, 714, 711, 883, 439, 670, 543, 425, 800]);
        let tenk: Vec<u64> = Permutation::new(10_000).collect();
        assert_eq!(
            tenk[..10],
            [8800, 1891, 3420, 9850, 7164, 8009, 5057, 6701, 4321, 3043]
        );
        assert_eq!(tenk[9_997..], [2992, 0, 2968]);
        assert_eq!(tenk[2001], 5513);
        let hundredk: Vec<u64> = Permutation::new(100_000).take(5).collect();
        assert_eq!(hundredk, [32293, 9402, 71151, 51373, 13756]);
    }

    #[test]
    fn strings_are_base_26_right_justified() {
        assert_eq!(&convert(0), b"AAAAAAA");
        assert_eq!(&convert(1), b"AAAAAAB");
        assert_eq!(&convert(25), b"AAAAAAZ");
        assert_eq!(&convert(26), b"AAAAABA");
        assert_eq!(&convert(8800), b"AAAANAM");
        assert_eq!(&convert(1891), b"AAAACUT");
        assert_eq!(unique_string(8800), format!("AAAANAM{}", "x".repeat(45)));
        assert_eq!(string4(2), format!("OOOO{}", "x".repeat(48)));
    }

    /// Every attribute's definition, checked on whole relations of the two smallest sizes.
    #[test]
    fn every_attribute_keeps_its_invariants() {
        for n in [1_000u64, 10_000] {
            let rows: Vec<Row> = relation(n).collect();
            assert_eq!(rows.len() as u64, n);
            let mut seen1 = vec![false; n as usize];
            let mut stringu1 = std::collections::HashSet::new();
            let mut pairs = std::collections::HashSet::new();
            let mut last_stringu2 = String::new();
            for (i, r) in rows.iter().enumerate() {
                assert_eq!(r.len(), 16);
                let u = int(&r[0]);
                assert!(u < n);
                assert!(!seen1[u as usize], "unique1 {u} twice");
                seen1[u as usize] = true;
                assert_eq!(int(&r[1]), i as u64, "unique2 is the ordinal");
                let want = [
                    u % 2,
                    u % 4,
                    u % 10,
                    u % 20,
                    u % 100,
                    u % 10,
                    u % 5,
                    u % 2,
                    u,
                    (u % 100) * 2,
                    (u % 100) * 2 + 1,
                ];
                let got: Vec<u64> = r[2..13].iter().map(int).collect();
                assert_eq!(got, want, "row {i}");
                for s in &r[13..16] {
                    assert_eq!(text(s).len(), 52);
                }
                assert!(text(&r[13]).ends_with(&"x".repeat(45)));
                assert!(stringu1.insert(text(&r[13]).to_string()));
                assert!(text(&r[14]) > last_stringu2.as_str(), "stringu2 sorted");
                last_stringu2 = text(&r[14]).to_string();
                assert_eq!(&text(&r[15])[..4], ["AAAA", "HHHH", "OOOO", "VVVV"][i % 4]);
                pairs.insert((u % 100, i % 4));
            }
            assert!(seen1.iter().all(|s| *s), "unique1 is a permutation");
            // Query 18's answer: distinct (onePercent, string4) pairs.
            assert_eq!(
                pairs.len(),
                super::super::queries::distinct_projection_rows(n) as usize
            );
        }
    }

    #[test]
    fn sizes_are_checked() {
        assert!(check_size(10_000).is_ok());
        assert!(check_size(5_000)
            .unwrap_err()
            .to_string()
            .contains("sizes: 1000, 10000"));
        assert_eq!(constants(1_000), Some((279, 1_009)));
        assert_eq!(constants(1_001), Some((2_969, 10_007)));
        assert_eq!(constants(100_000_001), None);
    }
}
