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

/// How long a shard waits for the others (shard 1's tables, the others' check-in, loads or
/// last steps), in seconds: 600 unless `--shard-timeout` says otherwise.
static PATIENCE_S: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(600);

/// `--shard-timeout`.
pub fn set_patience(seconds: u64) {
    PATIENCE_S.store(seconds, std::sync::atomic::Ordering::Relaxed);
}

pub fn patience() -> Duration {
    Duration::from_secs(PATIENCE_S.load(std::sync::atomic::Ordering::Relaxed))
}

/// The error of a wait for check-ins that ended with shards `missing` (of `count`).
pub fn not_checked_in<T: std::fmt::Display>(missing: &[T], count: usize) -> anyhow::Error {
    let names: Vec<String> = missing.iter().map(|i| format!("{i}/{count}")).collect();
    anyhow::anyhow!(
        "shard {} did not check in within {} s (started with the same --url and configuration?)",
        names.join(", "),
        patience().as_secs()
    )
}

/// Looks every 100 ms whether the other shards are where this one waits for them (`arrived`:
/// Ok(true) once they are; an error stops the wait, as when one of them failed); fails with
/// "`what` within N s" when they are not by then.
pub fn wait_for_others(what: &str, mut arrived: impl FnMut() -> Result<bool>) -> Result<()> {
    let start = Instant::now();
    while start.elapsed() < patience() {
        if arrived()? {
            return Ok(());
        }
        if crate::measure::interrupted() {
            bail!(crate::measure::Interrupted);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    bail!("{what} within {} s", patience().as_secs())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// From 1.
    pub index: usize,
    pub count: usize,
    /// `--load all`: every shard loads its own part, not shard 1 all of it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub load_all: bool,
    /// `--shard auto`: the scheduler that told this client its place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<Scheduler>,
}

/// A scheduler that starts clients and tells each its place (`--shard auto`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheduler {
    /// An Indexed Job: `JOB_COMPLETION_INDEX`, from 0 (the count is the Job's, not given).
    Kubernetes,
    /// `srun`: `SLURM_PROCID` from 0 of `SLURM_NTASKS`.
    Slurm,
    /// Open MPI's `OMPI_COMM_WORLD_RANK` of `OMPI_COMM_WORLD_SIZE`, or PMI's `PMI_RANK` of
    /// `PMI_SIZE` (MPICH, Intel MPI, Slurm's PMI).
    Mpi,
}

/// The variables each scheduler sets: its index (from 0) and its count, if it gives one.
const SCHEDULERS: [(Scheduler, &str, Option<&str>); 4] = [
    (Scheduler::Kubernetes, "JOB_COMPLETION_INDEX", None),
    (Scheduler::Slurm, "SLURM_PROCID", Some("SLURM_NTASKS")),
    (
        Scheduler::Mpi,
        "OMPI_COMM_WORLD_RANK",
        Some("OMPI_COMM_WORLD_SIZE"),
    ),
    (Scheduler::Mpi, "PMI_RANK", Some("PMI_SIZE")),
];

/// `--shard` as given: a place, or `auto` (`auto/N` where the scheduler gives only the index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Given {
    Place(Shard),
    Auto(Option<usize>),
}

impl Given {
    /// `2/3`, `auto` or `auto/3`.
    pub fn parse(text: &str) -> Result<Given, String> {
        match text.split_once('/') {
            _ if text == "auto" => Ok(Given::Auto(None)),
            Some(("auto", n)) => match n.trim().parse::<usize>() {
                Ok(n) if n > 0 => Ok(Given::Auto(Some(n))),
                _ => Err(format!("--shard {text}: expected auto/N with N at least 1")),
            },
            _ => Shard::parse(text).map(Given::Place),
        }
    }

    /// The place: as given, or from the first scheduler whose variables `env` has.
    pub fn resolve(self, env: impl Fn(&str) -> Option<String>) -> anyhow::Result<Shard> {
        let count = match self {
            Given::Place(shard) => return Ok(shard),
            Given::Auto(count) => count,
        };
        let number = |name: &str| -> anyhow::Result<Option<usize>> {
            env(name)
                .map(|v| v.trim().parse::<usize>())
                .transpose()
                .map_err(|_| anyhow::anyhow!("--shard auto: {name} is not a whole number"))
        };
        for (scheduler, index_var, count_var) in SCHEDULERS {
            let Some(index) = number(index_var)? else {
                continue;
            };
            let told = match count_var {
                Some(var) => number(var)?,
                None => None,
            };
            let count = match (told, count) {
                (Some(t), Some(c)) if t != c => bail!(
                    "--shard auto/{c}: {} says there are {t} clients",
                    count_var.unwrap_or(index_var)
                ),
                (Some(n), _) | (None, Some(n)) => n,
                (None, None) => bail!(
                    "--shard auto: {index_var} gives this client's index but not how many there are: give --shard auto/N"
                ),
            };
            if index >= count {
                bail!("--shard auto: {index_var}={index} is not below the {count} clients");
            }
            return Ok(Shard {
                index: index + 1,
                count,
                load_all: false,
                scheduler: Some(scheduler),
            });
        }
        let names: Vec<&str> = SCHEDULERS.iter().map(|s| s.1).collect();
        bail!(
            "--shard auto: no scheduler told this client its place (none of {} is set): give --shard i/N",
            names.join(", ")
        )
    }
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
            scheduler: None,
        })
    }

    /// A run made by one client alone.
    pub const WHOLE: Shard = Shard {
        index: 1,
        count: 1,
        load_all: false,
        scheduler: None,
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
                        ..Shard::WHOLE
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

    /// `--shard auto` from each scheduler's variables (index from 0), the count from the
    /// scheduler or `auto/N`, and one clear refusal for each way it cannot be known.
    #[test]
    fn auto_takes_the_place_from_the_scheduler() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                (vars.iter())
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let auto = Given::parse("auto").unwrap();
        let place = |given: Given, vars| {
            given
                .resolve(env(vars))
                .map(|s| (s.index, s.count, s.scheduler))
        };
        let slurm = &[("SLURM_PROCID", "2"), ("SLURM_NTASKS", "3")];
        assert_eq!(place(auto, slurm).unwrap(), (3, 3, Some(Scheduler::Slurm)));
        let k8s = &[("JOB_COMPLETION_INDEX", "0")];
        assert_eq!(
            place(Given::parse("auto/4").unwrap(), k8s).unwrap(),
            (1, 4, Some(Scheduler::Kubernetes))
        );
        let needs_count = place(auto, k8s).unwrap_err().to_string();
        assert!(needs_count.contains("auto/N"), "{needs_count}");
        let mpi = &[("OMPI_COMM_WORLD_RANK", "1"), ("OMPI_COMM_WORLD_SIZE", "2")];
        assert_eq!(place(auto, mpi).unwrap(), (2, 2, Some(Scheduler::Mpi)));
        let pmi = &[("PMI_RANK", "0"), ("PMI_SIZE", "5")];
        assert_eq!(place(auto, pmi).unwrap(), (1, 5, Some(Scheduler::Mpi)));
        let differ = place(Given::parse("auto/2").unwrap(), slurm)
            .unwrap_err()
            .to_string();
        assert!(differ.contains("SLURM_NTASKS says there are 3"), "{differ}");
        let outside = &[("SLURM_PROCID", "3"), ("SLURM_NTASKS", "3")];
        assert!(place(auto, outside).is_err());
        let none = place(auto, &[]).unwrap_err().to_string();
        assert!(
            none.contains("JOB_COMPLETION_INDEX, SLURM_PROCID"),
            "{none}"
        );
        let garbled = &[("SLURM_PROCID", "x"), ("SLURM_NTASKS", "3")];
        assert!(place(auto, garbled)
            .unwrap_err()
            .to_string()
            .contains("not a whole number"));
        assert_eq!(
            place(Given::parse("2/3").unwrap(), &[]).unwrap(),
            (2, 3, None)
        );
        assert!(Given::parse("auto/0").is_err() && Given::parse("auto/x").is_err());
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
