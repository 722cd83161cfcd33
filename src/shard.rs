//! `--shard i/N`: this client machine's part of a run that several machines make together
//! against one server. What must not overlap (the keys a client writes as its own: TPC-B's
//! branches) is split into N contiguous parts, and `--rate` is divided by N; reads cover the
//! whole data. Shard 1 loads the data and drops it once every shard is done.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::RangeInclusive;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// From 1.
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// `2/3`.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || {
            format!(
                "--shard {text}: expected i/N with 1 <= i <= N (2/3: the second of three clients)"
            )
        };
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse::<usize>().map_err(|_| bad())?,
            n.trim().parse::<usize>().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// This shard's contiguous part of `1..=n` (the first shards take one more when N does not
    /// divide n); None when n is too small to give every shard one.
    pub fn part(self, n: u64) -> Option<RangeInclusive<u64>> {
        let count = self.count as u64;
        if n < count {
            return None;
        }
        let (base, extra) = (n / count, n % count);
        let i = self.index as u64 - 1;
        let start = i * base + i.min(extra) + 1;
        let len = base + u64::from(i < extra);
        Some(start..=start + len - 1)
    }

    /// Whether this shard loads the data (and drops it at the end).
    pub fn loads(self) -> bool {
        self.index == 1
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_everything_once() {
        for count in 1..=5 {
            for n in count as u64..=17 {
                let mut next = 1;
                for index in 1..=count {
                    let part = Shard { index, count }.part(n).unwrap();
                    assert_eq!(*part.start(), next, "{index}/{count} of {n}");
                    assert!(part.end() >= part.start());
                    next = part.end() + 1;
                }
                assert_eq!(next, n + 1, "{count} shards of {n}");
            }
        }
        assert_eq!(Shard { index: 3, count: 3 }.part(2), None);
    }

    #[test]
    fn bad_shards_are_refused() {
        for bad in ["0/3", "4/3", "2", "a/b", "1/0"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Shard::parse("2/3").unwrap(), Shard { index: 2, count: 3 });
    }
}
