//! `--shard i/N`: this client machine's part of a run that several machines make together
//! against one server. What must not overlap (the keys a client writes as its own: TPC-B's
//! branches, YCSB's inserted records) is split into N parts, and `--rate` is divided by N;
//! reads cover the whole data. Shard 1 creates the tables and drops them once every shard is
//! done; it loads them alone, or with `--load all` every shard loads its own part.

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::RangeInclusive;
use std::time::{Duration, Instant};

/// How long a shard waits for the others (shard 1's tables, the others' loads or last steps).
pub const PATIENCE: Duration = Duration::from_secs(600);

/// Looks every 100 ms whether the other shards are where this one waits for them (`arrived`:
/// Ok(true) once they are; an error stops the wait, as when one of them failed); fails with
/// "`what` within 600 s" when they are not by then.
pub fn wait_for_others(what: &str, mut arrived: impl FnMut() -> Result<bool>) -> Result<()> {
    let start = Instant::now();
    while start.elapsed() < PATIENCE {
        if arrived()? {
            return Ok(());
        }
        if crate::measure::interrupted() {
            bail!(crate::measure::Interrupted);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    bail!("{what} within {} s", PATIENCE.as_secs())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// From 1.
    pub index: usize,
    pub count: usize,
    /// `--load all`: every shard loads its own part, not shard 1 all of it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub load_all: bool,
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
        Ok(Shard {
            index,
            count,
            load_all: false,
        })
    }

    /// A run made by one client alone.
    pub const WHOLE: Shard = Shard {
        index: 1,
        count: 1,
        load_all: false,
    };

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

    /// Whether this shard creates what the shards share (and drops it once every one is done).
    pub fn is_first(self) -> bool {
        self.index == 1
    }

    /// What of `1..=n` this shard loads: its own part with `--load all`, else all of it for
    /// shard 1 and nothing for the others.
    pub fn load_part(self, n: u64) -> Option<RangeInclusive<u64>> {
        match (self.load_all, self.is_first()) {
            (true, _) => self.part(n),
            (false, true) => Some(1..=n).filter(|_| n > 0),
            (false, false) => None,
        }
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
                    let shard = Shard {
                        index,
                        count,
                        load_all: false,
                    };
                    let part = shard.part(n).unwrap();
                    assert_eq!(*part.start(), next, "{index}/{count} of {n}");
                    assert!(part.end() >= part.start());
                    next = part.end() + 1;
                }
                assert_eq!(next, n + 1, "{count} shards of {n}");
            }
        }
        let last = Shard::parse("3/3").unwrap();
        assert_eq!(last.part(2), None);
        assert_eq!(
            last.load_part(9),
            None,
            "only shard 1 loads without --load all"
        );
        let all = Shard {
            load_all: true,
            ..last
        };
        assert_eq!(all.load_part(9), Some(7..=9));
        assert_eq!(Shard::parse("1/3").unwrap().load_part(9), Some(1..=9));
    }

    #[test]
    fn bad_shards_are_refused() {
        for bad in ["0/3", "4/3", "2", "a/b", "1/0"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        let second = Shard::parse("2/3").unwrap();
        assert_eq!((second.index, second.count), (2, 3));
    }
}
