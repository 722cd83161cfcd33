//! The crash test: does an engine keep the promise its durability level makes (DESIGN.md
//! section 3)? A committer commits numbered transactions and acknowledges each number only after
//! its commit returned; at a moment drawn from the seed it is crashed, the database is recovered
//! the engine's own way, and the test counts acknowledged commits that are missing, and
//! corruption (a database that will not recover or read back, or a hole in the numbers).
//!
//! One round, two kinds of subject: an embedded key-value engine is committed to by a child
//! process (`hakari crash-child`), which is killed with SIGKILL (or, with a power loss, killed
//! and its unsynced writes dropped) and the database reopened; a server (PostgreSQL, MariaDB) is
//! hakari's private server, committed to by a client thread, killed with its whole process tree
//! and restarted on the same data directory.

mod failover;
pub mod powerloss;
mod redis_cluster;
mod subjects;
mod survivor;
pub mod view;

pub use failover::crash_of;
pub use subjects::child;
use subjects::{round, KvSubject, ServerSubject, Site};

use crate::durability::Durability;
use crate::engine::{Engine, Takes};
use crate::results::{Measurement, RunFigure};
use crate::workload::RunContext;
use anyhow::{anyhow, bail, Context, Result};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// The crash test's name in result files.
pub const NAME: &str = "crashtest";
/// How its result is shown.
pub const VIEW: &dyn crate::report::view::View = &view::CrashView;

/// How the committer is crashed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrashKind {
    /// The process (an embedded engine's child, or a server's whole process tree) is killed with
    /// SIGKILL; the OS (page cache) survives.
    Process,
    /// The process is killed and the power cut: the database lives on the FUSE layer of
    /// [`powerloss`], which drops every write that was not fsync'd.
    PowerLoss,
}

impl CrashKind {
    /// What results and reports record as `crash`.
    pub fn label(self) -> &'static str {
        match self {
            CrashKind::Process => "process (SIGKILL)",
            CrashKind::PowerLoss => powerloss::CRASH_LABEL,
        }
    }

    /// Whether `level` promises that acknowledged commits survive this crash.
    pub fn promised(self, level: Durability) -> bool {
        let p = level.promise();
        match self {
            CrashKind::Process => p.survives_process_crash,
            CrashKind::PowerLoss => p.survives_power_loss,
        }
    }
}

/// What a level's promise makes of what a round found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Kept,
    AllowedLoss,
    Broken,
}

impl Verdict {
    pub fn judge(level: Durability, crash: CrashKind, lost: u64, corruptions: u64) -> Verdict {
        Verdict::of(crash.promised(level), lost, corruptions)
    }

    /// What a round's findings make of a promise that acknowledged commits survive (or of
    /// none).
    pub fn of(promised: bool, lost: u64, corruptions: u64) -> Verdict {
        match (lost + corruptions > 0, promised) {
            (false, _) => Verdict::Kept,
            (true, false) => Verdict::AllowedLoss,
            (true, true) => Verdict::Broken,
        }
    }

    /// The verdict a result file records as `text`.
    pub fn parse(text: &str) -> Option<Verdict> {
        [Verdict::Kept, Verdict::AllowedLoss, Verdict::Broken]
            .into_iter()
            .find(|v| v.text() == text)
    }

    pub fn text(self) -> &'static str {
        match self {
            Verdict::Kept => "kept",
            Verdict::AllowedLoss => "lost acknowledged commits (allowed at this level)",
            Verdict::Broken => "BROKEN PROMISE",
        }
    }
}

/// One round's findings.
#[derive(Clone, Copy, Debug, Default)]
pub struct Round {
    pub acknowledged: u64,
    pub lost: u64,
    pub corrupt: bool,
    pub alive_secs: f64,
}

/// Parses `--engine a,b` for the crash test: embedded key-value engines (their committing process
/// is killed) and SQL engines with a private server (the server is killed).
pub fn parse_engines(list: &str) -> Result<Vec<Engine>> {
    let all = Takes::Crashable.engines();
    if let Some(name) = list
        .split(',')
        .map(str::trim)
        .find(|n| !n.is_empty() && !all.iter().any(|e| e.name() == n.to_ascii_lowercase()))
    {
        bail!(
            "the crash test does not take engine '{name}'; it takes {}",
            families()
        );
    }
    Takes::Crashable
        .parse(list)
        .map_err(|_| anyhow!("no engine named; the crash test takes {}", families()))
}

fn is_server(engine: Engine) -> bool {
    engine.private_server().is_some()
}

fn names(engines: impl Iterator<Item = Engine>) -> String {
    engines.map(|t| t.name()).collect::<Vec<_>>().join(", ")
}

/// Which engines take which crash, for messages.
pub fn families() -> String {
    let all = Takes::Crashable.engines().into_iter();
    let sql = |t: &Engine| matches!(t, Engine::Sql(_));
    format!(
        "a power loss (--power-loss): the embedded key-value engines ({}); a process crash: those and the servers hakari starts privately ({}); a failover: those servers and a Redis Cluster ({} with --cluster redis:N --replicas R --kill node)",
        names(all.clone().filter(|t| !is_server(*t))),
        names(all.clone().filter(|t| is_server(*t) && sql(t))),
        names(all.filter(|t| is_server(*t) && !sql(t))),
    )
}

/// Refuses what the crash test cannot do: a level an engine does not offer, a power loss under
/// a server (its files are not on hakari's FUSE layer; its crash test kills its process tree).
pub fn check(targets: &[Engine], levels: &[Durability], crash: CrashKind) -> Result<()> {
    for &t in targets {
        if crash == CrashKind::PowerLoss && is_server(t) {
            bail!(
                "--power-loss does not take engine '{}' (a server: its crash test kills its private server's processes instead). The crash test takes {}",
                t.name(),
                families()
            );
        }
        for &level in levels {
            t.check(level, 1)?;
        }
    }
    Ok(())
}

/// Runs `rounds` rounds per engine x level (x topology: a primary with standbys, killed and
/// failed over) and records one measurement per pair; returns how many pairs broke their
/// promise.
pub fn run(
    targets: &[Engine],
    levels: &[Durability],
    rounds: usize,
    crash: CrashKind,
    topologies: &[crate::server::topology::Topology],
    ctx: &mut RunContext,
) -> Result<usize> {
    check(targets, levels, crash)?;
    let mut rng = ChaCha8Rng::seed_from_u64(ctx.seed);
    if !topologies.is_empty() {
        return failover::run(targets, levels, topologies, rounds, &mut rng, ctx);
    }
    if let Some(t) = targets
        .iter()
        .find(|t| matches!(t, Engine::Kv(_)) && is_server(**t))
    {
        bail!(
            "the crash test kills {} as a cluster: --cluster redis:N --replicas R --kill node (a master is killed and a replica takes over)",
            t.name()
        );
    }
    let mut broken = 0;
    for &target in targets {
        // A server's data directory is initialized once per engine and copied for each round.
        let template = match (target, target.private_server()) {
            (Engine::Sql(e), Some(server)) => {
                eprintln!("crash test: initializing a {} data directory", e.name());
                let dir = ctx.fresh_dir(&format!("crash-{}-initialized", e.name()))?;
                server.init(&dir, ctx.data_root()).with_context(|| {
                    format!("cannot initialize a private {} server", server.name())
                })?;
                Some(dir)
            }
            _ => None,
        };
        for &level in levels {
            eprintln!(
                "crash test: {} {level}, {rounds} round(s), crash: {}",
                target.name(),
                crash.label()
            );
            let mut found = Vec::new();
            let mut version = None;
            for r in 0..rounds {
                let dir = ctx.fresh_dir(&format!("crash-{}-{level}-{r}", target.name()))?;
                let outcome = match (target, target.private_server(), &template) {
                    (Engine::Sql(engine), Some(server), Some(template)) => {
                        crate::server::copy_dir(template, &dir)?;
                        let site = Site {
                            server,
                            level,
                            topology: crate::server::topology::Topology::Single,
                            dir: dir.clone(),
                            owner_root: ctx.data_root().to_path_buf(),
                        };
                        let mut s = ServerSubject::new(engine, site);
                        let outcome = round(&mut s, &mut rng);
                        version = s.version.take().or(version);
                        outcome
                    }
                    (Engine::Kv(engine), ..) => {
                        round(&mut KvSubject::new(engine, level, crash, &dir)?, &mut rng)
                    }
                    (Engine::Sql(e), ..) => bail!("{} has no private server to crash", e.name()),
                };
                found.push(outcome?);
                std::fs::remove_dir_all(&dir).ok();
            }
            let mut settings = BTreeMap::new();
            if is_server(target) {
                settings.insert(
                    "server".into(),
                    "private (started by hakari; its process tree killed with SIGKILL and restarted each round)".into(),
                );
            }
            let version = match target {
                Engine::Kv(e) => e.version(),
                Engine::Sql(_) => version.unwrap_or_else(|| "unknown".into()),
            };
            ctx.record_engine(target, level, version, settings);
            let (measurement, verdict) = summarize(
                target.name(),
                level,
                crash.label(),
                crash.promised(level),
                &found,
            );
            broken += usize::from(verdict == Verdict::Broken);
            ctx.recorder.measurement(measurement)?;
        }
        if let Some(template) = template {
            std::fs::remove_dir_all(&template).ok();
        }
    }
    Ok(broken)
}

/// One measurement of an engine's rounds at a level, and the verdict on its promise.
fn summarize(
    engine: &str,
    level: Durability,
    crash: &str,
    promised: bool,
    rounds: &[Round],
) -> (Measurement, Verdict) {
    let lost_total: u64 = rounds.iter().map(|r| r.lost).sum();
    let lost_max = rounds.iter().map(|r| r.lost).max().unwrap_or(0);
    let corruptions = rounds.iter().filter(|r| r.corrupt).count() as u64;
    let verdict = Verdict::of(promised, lost_total, corruptions);
    let runs: Vec<RunFigure> = rounds
        .iter()
        .map(|r| RunFigure {
            ops: r.acknowledged,
            seconds: r.alive_secs,
            ops_per_sec: r.acknowledged as f64 / r.alive_secs,
            started_unix_s: None,
            intervals: Vec::new(),
            usage: BTreeMap::new(),
            resources: Vec::new(),
        })
        .collect();
    let rates =
        crate::measure::stats::Summary::of(&runs.iter().map(|r| r.ops_per_sec).collect::<Vec<_>>());
    let mut config = BTreeMap::new();
    config.insert("rounds".into(), rounds.len().into());
    config.insert(
        "acknowledged".into(),
        rounds.iter().map(|r| r.acknowledged).sum::<u64>().into(),
    );
    config.insert("lost_total".into(), lost_total.into());
    config.insert("lost_max".into(), lost_max.into());
    config.insert("corruptions".into(), corruptions.into());
    config.insert("verdict".into(), verdict.text().into());
    config.insert("crash".into(), crash.into());
    let measurement = Measurement {
        workload: NAME.into(),
        engine: engine.into(),
        durability: level.name().into(),
        threads: 1,
        step: "crash".into(),
        config,
        produced: Default::default(),
        runs,
        ops_per_sec_mean: rates.mean,
        ops_per_sec_stddev: rates.stddev,
        ops_per_sec_min: rates.min,
        ops_per_sec_max: rates.max,
        seconds_mean: 0.0,
        seconds_stddev: 0.0,
        latency: None,
        retries: 0,
        late: None,
        open_loop: None,
        figures: Vec::new(),
        verdicts: Vec::new(),
    };
    (measurement, verdict)
}

#[cfg(test)]
mod tests {
    use super::subjects::lost_of;
    use super::*;

    #[test]
    fn a_lost_tail_is_counted_and_a_hole_is_corruption() {
        assert_eq!(lost_of(vec![3, 1, 2], 5).unwrap(), 2);
        assert_eq!(lost_of(vec![], 4).unwrap(), 4);
        assert_eq!(lost_of(vec![1, 2, 3], 3).unwrap(), 0);
        assert!(lost_of(vec![1, 3], 3).is_err());
        assert!(lost_of(vec![1, 1, 2], 3).is_err());
    }

    #[test]
    fn engines_are_parsed_into_their_families() {
        let Ok(t) = parse_engines("sqlite, postgres,mysql,sqlite") else {
            panic!("the list parses")
        };
        let names: Vec<&str> = t.iter().map(|t| t.name()).collect();
        assert_eq!(names, ["sqlite", "postgres", "mysql"]);
        assert!(!is_server(t[0]) && is_server(t[1]) && is_server(t[2]));
        let err = parse_engines("memcached").err().unwrap().to_string();
        assert!(err.contains("bdb") && err.contains("postgres"), "{err}");
        assert!(parse_engines("null").is_err(), "null keeps nothing");
    }

    #[test]
    fn verdicts_follow_the_promise() {
        use CrashKind::{PowerLoss, Process};
        use Durability::{InMemory, Nosync, Sync, WriteNosync};
        use Verdict::{AllowedLoss, Broken, Kept};
        // (level, crash, lost, corruptions, verdict); a power loss holds write-nosync to
        // nothing, sync to everything.
        let cases = [
            (Sync, Process, 0, 0, Kept),
            (Sync, Process, 1, 0, Broken),
            (WriteNosync, Process, 3, 0, Broken),
            (Nosync, Process, 3, 0, AllowedLoss),
            (InMemory, Process, 0, 1, AllowedLoss),
            (Nosync, Process, 0, 0, Kept),
            (WriteNosync, PowerLoss, 3, 0, AllowedLoss),
            (Sync, PowerLoss, 1, 0, Broken),
            (Sync, PowerLoss, 0, 0, Kept),
        ];
        for (level, crash, lost, corrupt, verdict) in cases {
            assert_eq!(Verdict::judge(level, crash, lost, corrupt), verdict);
        }
    }
}
