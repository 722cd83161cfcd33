//! The generators against the theory: each test draws many values and compares frequencies with
//! what the distribution says, with a tolerance a wrong generator (another skew, no scrambling,
//! a stale zeta) falls outside of.

use super::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

const DRAWS: usize = 1_000_000;

fn rng() -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(7)
}

/// Share of draws equal to each value.
fn shares(draws: impl Iterator<Item = u64>) -> HashMap<u64, f64> {
    let mut counts: HashMap<u64, usize> = HashMap::new();
    for v in draws {
        *counts.entry(v).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(v, c)| (v, c as f64 / DRAWS as f64))
        .collect()
}

fn close(got: f64, want: f64, tolerance: f64, what: &str) {
    assert!(
        (got - want).abs() <= tolerance * want,
        "{what}: got {got:.5}, theory {want:.5} (tolerance {:.0}%)",
        tolerance * 100.0
    );
}

/// The first keys YCSB's own load writes, in order, as its `basic` binding prints them
/// (`INSERT usertable user6284781860667377211 [...]`): record 0, then record 1.
#[test]
fn key_hash_is_ycsbs() {
    assert_eq!(fnv_hash64(0), 6_284_781_860_667_377_211);
    assert_eq!(fnv_hash64(1), 8_517_097_267_634_966_620);
}

#[test]
fn incremental_zeta_equals_zeta_from_scratch() {
    let part = zeta(1_000, 0.99);
    let grown = zeta_from(1_000, 250_000, 0.99, part);
    assert!((grown - zeta(250_000, 0.99)).abs() < 1e-9);
    // The scrambled generator's constant is zeta(10^10) at 0.99; a prefix of it is known here.
    assert!(zeta(10_000_000, 0.99) < SCRAMBLED_ZETAN);
}

/// Gray's generator gives item 0 and item 1 their exact zipfian share and the rest a close
/// approximation; the hottest ten together are checked against the exact law.
#[test]
fn zipfian_matches_the_law_for_the_hottest_items() {
    let n = 1_000;
    let mut z = Zipfian::new(0, n, ZIPFIAN_CONSTANT);
    let mut r = rng();
    let s = shares((0..DRAWS).map(|_| z.next(&mut r)));
    let zn = zeta(n, ZIPFIAN_CONSTANT);
    let law = |i: u64| 1.0 / ((i + 1) as f64).powf(ZIPFIAN_CONSTANT) / zn;
    close(s[&0], law(0), 0.02, "item 0");
    close(s[&1], law(1), 0.03, "item 1");
    let top: f64 = (0..10).map(|i| s.get(&i).copied().unwrap_or(0.0)).sum();
    let top_law: f64 = (0..10).map(law).sum();
    close(top, top_law, 0.05, "items 0-9");
    assert!(s.keys().all(|&v| v < n));
}

/// Growing the item count between draws (as "latest" does while inserts land) gives the same
/// law as a generator made for the larger count.
#[test]
fn zipfian_grown_in_place_draws_as_a_fresh_one() {
    let mut z = Zipfian::new(0, 100, ZIPFIAN_CONSTANT);
    let mut r = rng();
    for _ in 0..10 {
        z.next_of(&mut r, 100);
    }
    let s = shares((0..DRAWS).map(|_| z.next_of(&mut r, 5_000)));
    assert!((z.zetan() - zeta(5_000, ZIPFIAN_CONSTANT)).abs() < 1e-9);
    let law0 = 1.0 / zeta(5_000, ZIPFIAN_CONSTANT);
    close(s[&0], law0, 0.02, "item 0 after growth");
}

/// The scrambled zipfian keeps the skew (the hottest record takes 1/zeta(10^10) of the draws)
/// but spreads the hot records over the key space instead of packing them at its start.
#[test]
fn scrambled_zipfian_keeps_the_skew_and_spreads_the_hot_keys() {
    let records = 100_000;
    let mut chooser = KeyChooser::new(
        Distribution::Zipfian,
        records,
        0..records,
        0,
        Shapes::default(),
    );
    let mut r = rng();
    let s = shares((0..DRAWS).map(|_| chooser.next(&mut r, records - 1)));
    let mut by_share: Vec<(u64, f64)> = s.into_iter().collect();
    by_share.sort_by(|a, b| b.1.total_cmp(&a.1));
    close(by_share[0].1, 1.0 / SCRAMBLED_ZETAN, 0.03, "hottest record");
    assert_eq!(by_share[0].0, fnv_hash64(0) % records);
    let hot: Vec<u64> = by_share[..10].iter().map(|(k, _)| *k).collect();
    assert!(hot.iter().all(|&k| k < records));
    let spread = hot.iter().max().unwrap() - hot.iter().min().unwrap();
    assert!(
        spread > records / 4,
        "the ten hottest keys sit together: {hot:?}"
    );
}

/// "latest": the newest acknowledged record is the hottest, then the one before it.
#[test]
fn latest_favours_the_newest_records() {
    let records = 10_000;
    let mut chooser = KeyChooser::new(
        Distribution::Latest,
        records,
        0..records,
        0,
        Shapes::default(),
    );
    let mut r = rng();
    let last = records - 1;
    let s = shares((0..DRAWS).map(|_| chooser.next(&mut r, last)));
    let zn = zeta(last, ZIPFIAN_CONSTANT);
    close(s[&last], 1.0 / zn, 0.02, "newest record");
    close(
        s[&(last - 1)],
        0.5f64.powf(0.99) / zn,
        0.03,
        "second newest",
    );
    assert!(s.keys().all(|&k| (1..=last).contains(&k)));
}

#[test]
fn hotspot_sends_eighty_percent_to_the_first_fifth() {
    let records = 10_000;
    let mut chooser = KeyChooser::new(
        Distribution::Hotspot,
        records,
        0..records,
        0,
        Shapes::default(),
    );
    let mut r = rng();
    let s = shares((0..DRAWS).map(|_| chooser.next(&mut r, records - 1)));
    let hot: f64 = s.iter().filter(|(k, _)| **k < 2_000).map(|(_, v)| v).sum();
    close(hot, 0.8, 0.01, "share of operations on the hot fifth");
    assert!(s.keys().all(|&k| k < records));
    // Another shape, as hotspotdatafraction and hotspotopnfraction give it.
    let shape = Shapes {
        hotspot: Hotspot {
            data: 0.05,
            operations: 0.6,
        },
        ..Shapes::default()
    };
    let mut chooser = KeyChooser::new(Distribution::Hotspot, records, 0..records, 0, shape);
    let s = shares((0..DRAWS).map(|_| chooser.next(&mut r, records - 1)));
    let hot: f64 = s.iter().filter(|(k, _)| **k < 500).map(|(_, v)| v).sum();
    close(hot, 0.6, 0.01, "share of operations on the hot twentieth");
}

#[test]
fn uniform_gives_every_record_its_share() {
    let records = 100;
    let mut chooser = KeyChooser::new(
        Distribution::Uniform,
        records,
        0..records,
        0,
        Shapes::default(),
    );
    let mut r = rng();
    let s = shares((0..DRAWS).map(|_| chooser.next(&mut r, records - 1)));
    assert_eq!(s.len(), records as usize);
    for (k, share) in s {
        close(share, 0.01, 0.05, &format!("record {k}"));
    }
}

/// "exponential", as YCSB's ExponentialGenerator(percentile, records * frac) drawn back from the
/// newest record: `percentile`% of the draws within the newest `frac` of the records (more, since
/// draws before the first record are drawn again), and the newest hundred their share.
#[test]
fn exponential_puts_its_percentile_on_the_newest_fraction() {
    let records = 10_000;
    let last = records - 1;
    let mut r = rng();
    for shape in [
        Exponential::default(),
        Exponential {
            percentile: 50.0,
            frac: 0.1,
        },
    ] {
        let shapes = Shapes {
            exponential: shape,
            ..Shapes::default()
        };
        let mut chooser =
            KeyChooser::new(Distribution::Exponential, records, 0..records, 0, shapes);
        let s = shares((0..DRAWS).map(|_| chooser.next(&mut r, last)));
        assert!(s.keys().all(|&k| k <= last));
        let range = (records as f64 * shape.frac).ceil() as u64;
        let newest: f64 = (s.iter())
            .filter(|(k, _)| last - **k < range)
            .map(|(_, v)| v)
            .sum();
        // The law, apart from the generator's own constant: P(draw < x) = 1 - (1 - p)^(x / range),
        // kept only when the draw lands on a record (below last + 1).
        let below =
            |x: f64| 1.0 - (1.0 - shape.percentile / 100.0).powf(x / (records as f64 * shape.frac));
        let kept = below(records as f64);
        let what = format!("share on the newest {} of {shape:?}", shape.frac);
        close(newest, below(range as f64) / kept, 0.005, &what);
        let hundred: f64 = (s.iter())
            .filter(|(k, _)| last - **k < 100)
            .map(|(_, v)| v)
            .sum();
        close(
            hundred,
            below(100.0) / kept,
            0.03,
            "share on the newest 100",
        );
    }
}

/// Field and scan lengths: constant at the longest, uniform over both ends, zipfian from the
/// shortest (as YCSB's ZipfianGenerator(min, max)).
#[test]
fn lengths_are_drawn_between_their_ends() {
    let mut r = rng();
    let mut constant = LengthChooser::new(LengthDistribution::Constant, 5, 100);
    assert!((0..100).all(|_| constant.next(&mut r) == 100));
    let mut uniform = LengthChooser::new(LengthDistribution::Uniform, 5, 14);
    let s = shares((0..DRAWS).map(|_| uniform.next(&mut r)));
    assert_eq!(s.len(), 10);
    for n in 5..=14 {
        close(s[&n], 0.1, 0.02, &format!("uniform length {n}"));
    }
    let mut zipfian = LengthChooser::new(LengthDistribution::Zipfian, 5, 104);
    let s = shares((0..DRAWS).map(|_| zipfian.next(&mut r)));
    assert!(s.keys().all(|n| (5..=104).contains(n)));
    let zn = zeta(100, ZIPFIAN_CONSTANT);
    close(s[&5], 1.0 / zn, 0.02, "zipfian's shortest");
    close(
        s[&6],
        0.5f64.powf(ZIPFIAN_CONSTANT) / zn,
        0.03,
        "zipfian's second",
    );
}

/// Readers see only records whose insert and every insert before it were acknowledged.
#[test]
fn the_insert_sequence_moves_past_contiguous_acknowledgements_only() {
    let seq = InsertSequence::new(10);
    assert_eq!(seq.last(), 9);
    let (a, b, c) = (seq.next(), seq.next(), seq.next());
    assert_eq!((a, b, c), (10, 11, 12));
    seq.acknowledge(b);
    assert_eq!(seq.last(), 9, "10 is still being written");
    seq.acknowledge(a);
    assert_eq!(seq.last(), 11);
    seq.acknowledge(c);
    assert_eq!(seq.last(), 12);
}

/// Field text as YCSB's RandomByteIterator writes it: each position of six draws from its own
/// alphabet (32, 64 and 64 characters from the space on), every length filled exactly.
#[test]
fn fields_are_written_as_ycsbs_random_byte_iterator_writes_them() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let mut field = Vec::new();
    for length in [0, 1, 5, 6, 7, 100] {
        fill_field(&mut rng, &mut field, length);
        assert_eq!(field.len(), length);
    }
    fill_field(&mut rng, &mut field, 60_000);
    let mut seen = [
        std::collections::BTreeSet::new(),
        Default::default(),
        Default::default(),
    ];
    for (i, b) in field.iter().enumerate() {
        seen[i % 3].insert(b - b' ');
    }
    assert_eq!(seen[0].len(), 32);
    assert_eq!(seen[1].len(), 64);
    assert_eq!(seen[2].len(), 64, "& 95 keeps 64 values");
    assert_eq!(seen[0].last(), Some(&31));
    assert_eq!(seen[1].last(), Some(&63));
    assert_eq!(seen[2].last(), Some(&95));
    assert!(!seen[2].contains(&32), "& 95 never sets the bit of 32");
}

/// Keys as YCSB's buildKeyName makes them, hashed or ordered, zero-padded.
#[test]
fn keys_are_named_as_ycsb_names_them() {
    let mut key = Vec::new();
    KeyNaming::default().name(42, &mut key);
    assert_eq!(key, format!("user{}", fnv_hash64(42)).as_bytes());
    let ordered = KeyNaming {
        ordered: true,
        zero_padding: 10,
    };
    ordered.name(42, &mut key);
    assert_eq!(key, b"user0000000042");
    ordered.name(12_345_678_901, &mut key);
    assert_eq!(key, b"user12345678901", "a longer number is not cut");
}

/// Uniform, hotspot and zipfian choose only from their slice of the records (YCSB's
/// insertstart and insertcount), zipfian on into the inserts it expects.
#[test]
fn sliced_choosers_stay_in_their_slice() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for (distribution, new_keys, within) in [
        (Distribution::Uniform, 0, 100..300),
        (Distribution::Hotspot, 0, 100..300),
        (Distribution::Zipfian, 50, 100..350),
    ] {
        let mut chooser =
            KeyChooser::new(distribution, 1000, 100..300, new_keys, Shapes::default());
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..20_000 {
            let n = chooser.next(&mut rng, 999);
            assert!(within.contains(&n), "{distribution:?} chose {n}");
            seen.insert(n);
        }
        assert!(
            seen.len() > 150,
            "{distribution:?} chose only {} records",
            seen.len()
        );
    }
}

#[test]
fn acknowledged_inserts_are_every_one_acknowledged_across_gaps() {
    let inserts = InsertSequence::new(10);
    let numbers: Vec<u64> = (0..5).map(|_| inserts.next()).collect();
    assert_eq!(numbers, [10, 11, 12, 13, 14]);
    // 11's insert failed (its connection lost): a gap the later ones stand above.
    for n in [10, 12, 14] {
        inserts.acknowledge(n);
    }
    assert_eq!(inserts.acknowledged(), [10, 12, 14]);
    assert_eq!(inserts.last(), 10, "readers stop below the gap");
    inserts.acknowledge(13);
    assert_eq!(inserts.acknowledged(), [10, 12, 13, 14]);
}
