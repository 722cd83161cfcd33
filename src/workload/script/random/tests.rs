use super::*;

/// Values printed by PostgreSQL 15's pgbench itself (`\set x debug(...)`, `--random-seed=0`,
/// whose `:default_seed` is 7868822567099391496).
#[test]
fn hashes_and_permute_give_pgbenchs_values() {
    let default_seed = 7868822567099391496;
    assert_eq!(murmur2(5, default_seed), 5347769303683408020);
    assert_eq!(fnv1a(5, default_seed), -2970384889945214424);
    assert_eq!(murmur2(-123456789, 42), -7458701487178859300);
    assert_eq!(fnv1a(987654321, -7), 1617267041464872281);
    assert_eq!(permute(0, 10, 5), 6);
    assert_eq!(permute(1, 10, 5), 4);
    assert_eq!(permute(7, 1000, 12345), 260);
    assert_eq!(permute(999999, 1000003, -3), 463178);
    assert_eq!(permute(2, 3, 1), 1);
}

#[test]
fn permute_is_a_permutation() {
    for size in 1..200i64 {
        for seed in [0, 1, -5, 987654321] {
            let mut seen: Vec<i64> = (0..size).map(|v| permute(v, size, seed)).collect();
            seen.sort();
            assert_eq!(
                seen,
                (0..size).collect::<Vec<_>>(),
                "size {size} seed {seed}"
            );
        }
    }
}

const DRAWS: usize = 200_000;

#[test]
fn uniform_covers_its_range_evenly() {
    let mut prng = Prng::seeded(1);
    let mut counts = [0usize; 10];
    for _ in 0..DRAWS {
        let v = prng.uniform(1, 10);
        counts[(v - 1) as usize] += 1;
    }
    for c in counts {
        let share = c as f64 / DRAWS as f64;
        assert!((share - 0.1).abs() < 0.005, "{counts:?}");
    }
    assert_eq!(prng.uniform(i64::MIN / 2, i64::MIN / 2), i64::MIN / 2);
}

#[test]
fn exponential_falls_by_its_parameter() {
    // With parameter p, the first value is drawn exp(p) times as often as the last (about).
    let (mut prng, p) = (Prng::seeded(2), 2.0);
    let mut counts = [0usize; 10];
    for _ in 0..DRAWS {
        counts[(prng.exponential(1, 10, p) - 1) as usize] += 1;
    }
    // Bucket k holds the mass between k/10 and (k+1)/10 of a truncated exponential.
    let mass =
        |k: f64| ((-p * k / 10.0).exp() - (-p * (k + 1.0) / 10.0).exp()) / (1.0 - (-p).exp());
    for (k, c) in counts.iter().enumerate() {
        let share = *c as f64 / DRAWS as f64;
        assert!(
            (share - mass(k as f64)).abs() < 0.006,
            "bucket {k}: {counts:?}"
        );
    }
}

#[test]
fn gaussian_is_centred_and_within_range() {
    let mut prng = Prng::seeded(3);
    let (mut sum, mut middle) = (0i64, 0usize);
    for _ in 0..DRAWS {
        let v = prng.gaussian(1, 100, 2.5);
        assert!((1..=100).contains(&v));
        sum += v;
        if (41..=60).contains(&v) {
            middle += 1;
        }
    }
    let mean = sum as f64 / DRAWS as f64;
    assert!((mean - 50.5).abs() < 0.3, "mean {mean}");
    // The middle 20% of the range is +-0.5 standard deviations: 38.3% of a normal, over the
    // 98.76% kept within +-2.5.
    let share = middle as f64 / DRAWS as f64;
    assert!(
        (share - 0.383 / 0.9876).abs() < 0.01,
        "middle share {share}"
    );
}

#[test]
fn zipfian_follows_its_law() {
    let (mut prng, s, n) = (Prng::seeded(4), 1.5, 1000i64);
    let mut counts = vec![0usize; n as usize + 1];
    for _ in 0..DRAWS {
        let v = prng.zipfian(1, n, s);
        assert!((1..=n).contains(&v));
        counts[v as usize] += 1;
    }
    let norm: f64 = (1..=n).map(|k| (k as f64).powf(-s)).sum();
    for (k, count) in counts.iter().enumerate().skip(1).take(3) {
        let expected = (k as f64).powf(-s) / norm;
        let share = *count as f64 / DRAWS as f64;
        assert!(
            (share - expected).abs() < 0.01,
            "value {k}: {share} against {expected}"
        );
    }
}
