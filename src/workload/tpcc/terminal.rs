//! A terminal (§2.2, §5.2): bound to a home warehouse (and, for Stock-Level, one district), it
//! deals its transactions from a deck of 23 cards reshuffled each pass, or draws them by
//! `--weights`, and waits keying and think times when they are on.

use rand::seq::SliceRandom;
use rand::Rng;
use std::ops::RangeInclusive;

/// The five transactions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    NewOrder,
    Payment,
    OrderStatus,
    Delivery,
    StockLevel,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::NewOrder,
        Kind::Payment,
        Kind::OrderStatus,
        Kind::Delivery,
        Kind::StockLevel,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    /// The step name its figures are recorded under.
    pub fn name(self) -> &'static str {
        [
            "new-order",
            "payment",
            "order-status",
            "delivery",
            "stock-level",
        ][self.index()]
    }

    /// Cards of the 23-card deck.
    fn cards(self) -> usize {
        [10, 10, 1, 1, 1][self.index()]
    }

    /// Keying time, seconds (§5.2.5.7).
    pub fn keying_secs(self) -> f64 {
        [18.0, 3.0, 2.0, 2.0, 2.0][self.index()]
    }

    /// Mean think time, seconds (§5.2.5.7).
    pub fn think_mean_secs(self) -> f64 {
        [12.0, 12.0, 10.0, 5.0, 5.0][self.index()]
    }

    /// The 90th percentile response time §5.2.5.4 allows, seconds.
    pub fn p90_limit_secs(self) -> f64 {
        [5.0, 5.0, 5.0, 5.0, 20.0][self.index()]
    }

    /// The least share of the mix §5.2.3 allows, percent (New-Order has none).
    pub fn minimum_percent(self) -> f64 {
        [0.0, 43.0, 4.0, 4.0, 4.0][self.index()]
    }
}

/// One terminal's place and its deck.
pub struct Terminal {
    pub warehouse: i64,
    /// Stock-Level's district, fixed per terminal (§2.8.1.1).
    pub district: i64,
    deck: Vec<Kind>,
    dealt: usize,
    weights: Option<[u32; 5]>,
}

impl Terminal {
    /// Terminal `index` of a run whose terminals live in warehouses `homes` (all of them, or a
    /// shard's part): terminals go round those warehouses, so each gets its share, and round the
    /// districts within one.
    pub fn new(index: usize, homes: &RangeInclusive<u64>, weights: Option<[u32; 5]>) -> Terminal {
        let w = (homes.end() - homes.start() + 1) as usize;
        let deck = Kind::ALL
            .iter()
            .flat_map(|&k| std::iter::repeat_n(k, k.cards()))
            .collect::<Vec<_>>();
        Terminal {
            warehouse: (index % w) as i64 + *homes.start() as i64,
            district: (index / w % 10) as i64 + 1,
            dealt: deck.len(),
            deck,
            weights,
        }
    }

    /// The next transaction: the deck's next card (shuffled anew after the last), or a draw by
    /// the weights.
    pub fn next(&mut self, rng: &mut impl Rng) -> Kind {
        if let Some(weights) = self.weights {
            let total: u32 = weights.iter().sum();
            let mut x = rng.random_range(0..total);
            for (k, w) in Kind::ALL.iter().zip(weights) {
                if x < w {
                    return *k;
                }
                x -= w;
            }
        }
        if self.dealt == self.deck.len() {
            self.deck.shuffle(rng);
            self.dealt = 0;
        }
        self.dealt += 1;
        self.deck[self.dealt - 1]
    }
}

/// A think time: negative exponential with mean `mean`, cut at ten times the mean (§5.2.5.4).
pub fn think_secs(rng: &mut impl Rng, mean: f64) -> f64 {
    let u: f64 = rng.random_range(f64::EPSILON..1.0);
    (-u.ln() * mean).min(10.0 * mean)
}

/// Another warehouse than `home`, uniformly, for remote lines and payments.
pub fn other_warehouse(rng: &mut impl Rng, home: i64, warehouses: i64) -> i64 {
    let w = rng.random_range(1..warehouses);
    if w >= home {
        w + 1
    } else {
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn every_pass_of_the_deck_deals_the_mix_exactly() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut t = Terminal::new(0, &(1..=1), None);
        for _ in 0..3 {
            let mut counts = [0; 5];
            for _ in 0..23 {
                counts[t.next(&mut rng).index()] += 1;
            }
            assert_eq!(counts, [10, 10, 1, 1, 1]);
        }
    }

    #[test]
    fn terminals_spread_over_warehouses_and_districts() {
        let places: Vec<(i64, i64)> = (0..20)
            .map(|i| {
                let t = Terminal::new(i, &(1..=2), None);
                (t.warehouse, t.district)
            })
            .collect();
        for w in 1..=2 {
            let mut districts: Vec<i64> = places.iter().filter(|p| p.0 == w).map(|p| p.1).collect();
            districts.sort();
            assert_eq!(districts, (1..=10).collect::<Vec<_>>());
        }
    }

    #[test]
    fn weights_draw_their_shares_and_think_times_are_capped() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut t = Terminal::new(0, &(1..=1), Some([50, 50, 0, 0, 0]));
        let new_orders = (0..10_000)
            .filter(|_| t.next(&mut rng) == Kind::NewOrder)
            .count();
        assert!((4_700..5_300).contains(&new_orders), "{new_orders}");
        let thinks: Vec<f64> = (0..100_000).map(|_| think_secs(&mut rng, 5.0)).collect();
        let mean = thinks.iter().sum::<f64>() / thinks.len() as f64;
        assert!((4.8..5.2).contains(&mean), "{mean}");
        assert!(thinks.iter().all(|&s| (0.0..=50.0).contains(&s)));
        for _ in 0..1000 {
            let w = other_warehouse(&mut rng, 3, 5);
            assert!((1..=5).contains(&w) && w != 3);
        }
    }
}
