//! The crash test: does an engine keep the promise its durability level makes (DESIGN.md
//! section 3)? A child process commits numbered transactions and acknowledges each number only
//! after its commit returned; the parent kills it with SIGKILL at a moment drawn from the seed,
//! reopens the database with the engine's own recovery, and counts acknowledged commits that are
//! missing, and corruption (a database that will not open or read back).

pub mod powerloss;

use crate::durability::Durability;
use crate::engine::kv::{check_combination, KvEngine, KvOptions};
use crate::results::{EngineRecord, Measurement, RunFigure};
use crate::workload::RunContext;
use anyhow::{bail, Context, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How the child is crashed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrashKind {
    /// The process is killed with SIGKILL; the OS (page cache) survives.
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
        let promised = crash.promised(level);
        match (lost + corruptions > 0, promised) {
            (false, _) => Verdict::Kept,
            (true, false) => Verdict::AllowedLoss,
            (true, true) => Verdict::Broken,
        }
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

const VALUE_SIZE: usize = 32;

fn key(n: u64) -> [u8; 8] {
    n.to_be_bytes()
}

fn options(dir: &Path, level: Durability) -> KvOptions {
    KvOptions {
        dir: dir.to_path_buf(),
        durability: level,
        threads: 1,
        key_size: 8,
        value_size: VALUE_SIZE,
        cache_bytes: 0,
        page_size: 0,
        log_buffer_bytes: 0,
        bulk_buffer_bytes: 0,
        expected_records: 1_000_000,
        url: None,
    }
}

/// The child: commits transactions 1, 2, 3, ... until killed, acknowledging each number on
/// `ack` (a plain write: the page cache survives the process, which is all a process crash needs).
pub fn child(engine: &dyn KvEngine, level: Durability, dir: &Path, ack: &Path) -> Result<()> {
    let store = engine.open(&options(dir, level))?;
    let mut session = store.session()?;
    let mut acks = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(ack)?;
    let value = [7u8; VALUE_SIZE];
    for n in 1u64.. {
        session.begin(true)?;
        session.put(&key(n), &value)?;
        session.commit()?;
        acks.write_all(&n.to_le_bytes())?;
    }
    Ok(())
}

/// The highest number the child acknowledged (acks are appended in order).
fn acknowledged(ack: &Path) -> u64 {
    let bytes = std::fs::read(ack).unwrap_or_default();
    let whole = bytes.len() / 8 * 8;
    if whole == 0 {
        return 0;
    }
    u64::from_le_bytes(bytes[whole - 8..whole].try_into().unwrap())
}

/// One round: start the child, let it commit, kill it, reopen and count.
fn round(
    engine: &dyn KvEngine,
    level: Durability,
    crash: CrashKind,
    dir: &Path,
    rng: &mut ChaCha8Rng,
) -> Result<Round> {
    let ack = dir.join("acks");
    // For a power loss the child works inside the FUSE mount and the database is reopened from
    // the backing directory, i.e. from exactly what was synced.
    let (fs, data, reopen) = match crash {
        CrashKind::Process => (None, dir.join("db"), dir.join("db")),
        CrashKind::PowerLoss => {
            let (backing, mnt) = (dir.join("backing"), dir.join("mnt"));
            std::fs::create_dir_all(&backing)?;
            std::fs::create_dir_all(&mnt)?;
            let fs = powerloss::PowerLossFs::mount(&backing, &mnt)
                .map_err(|e| anyhow::anyhow!("power-loss test needs FUSE: {e:#}"))?;
            (Some(fs), mnt.join("db"), backing.join("db"))
        }
    };
    std::fs::create_dir_all(&data)?;
    let mut child = Command::new(std::env::current_exe()?)
        .args([
            "crash-child",
            "--engine",
            engine.name(),
            "--durability",
            level.name(),
        ])
        .arg("--dir")
        .arg(&data)
        .arg("--ack")
        .arg(&ack)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot start the crash-test child")?;
    // Wait until it commits, then kill it at a random moment.
    let started = Instant::now();
    while acknowledged(&ack) < 100 {
        if let Some(status) = child.try_wait()? {
            let mut err = String::new();
            use std::io::Read;
            child.stderr.take().map(|mut e| e.read_to_string(&mut err));
            bail!(
                "the crash-test child exited ({status}) before committing: {}",
                err.trim()
            );
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            bail!("the crash-test child committed nothing in 60 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(rng.random_range(20..400)));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait()?;
    let alive_secs = started.elapsed().as_secs_f64();
    let acknowledged = acknowledged(&ack);
    if let Some(fs) = fs {
        fs.cut()
            .context("the power cut (unmounting the FUSE layer) failed")?;
    }
    let data = reopen;
    // Reopen with the engine's recovery and look for every acknowledged commit.
    // Commits are numbered in order, so a consistent database holds a prefix 1..=k: losing the
    // newest commits may be allowed, but a hole (n missing, a later one present) is corruption.
    let check = || -> Result<u64> {
        let store = engine.open(&options(&data, level))?;
        let mut present: Vec<u64> = Vec::new();
        {
            let mut s = store.session()?;
            let n = s.scan(&mut |k, _| {
                present.push(u64::from_be_bytes(k.try_into().unwrap_or([0; 8])));
            })?;
            if n != present.len() as u64 {
                bail!("the scan counted {n} records but visited {}", present.len());
            }
        }
        store.close()?;
        let highest = present.iter().copied().max().unwrap_or(0);
        if present.len() as u64 != highest
            || present.iter().enumerate().any(|(i, k)| *k != i as u64 + 1)
        {
            bail!("commits are missing below the newest one present (a hole, not a lost tail)");
        }
        Ok(acknowledged.saturating_sub(highest))
    };
    Ok(match check() {
        Ok(lost) => Round {
            acknowledged,
            lost,
            corrupt: false,
            alive_secs,
        },
        Err(_) => Round {
            acknowledged,
            lost: acknowledged,
            corrupt: true,
            alive_secs,
        },
    })
}

/// Runs `rounds` rounds per engine x level and records one measurement per pair.
pub fn run(
    engines: &[&'static dyn KvEngine],
    levels: &[Durability],
    rounds: usize,
    crash: CrashKind,
    ctx: &mut RunContext,
) -> Result<()> {
    for &engine in engines {
        for &level in levels {
            check_combination(engine, level, 1)?;
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(ctx.seed);
    for &engine in engines {
        for &level in levels {
            eprintln!(
                "crash test: {} {level}, {rounds} round(s), crash: {}",
                engine.name(),
                crash.label()
            );
            let mut found = Vec::new();
            for r in 0..rounds {
                let dir = ctx.fresh_dir(&format!("crash-{}-{level}-{r}", engine.name()))?;
                found.push(round(engine, level, crash, &dir, &mut rng)?);
                std::fs::remove_dir_all(&dir).ok();
            }
            ctx.recorder.engine(EngineRecord {
                engine: engine.name().into(),
                version: engine.version(),
                durability: level.name().into(),
                durability_mapping: engine.mapping(level).unwrap_or_default(),
                settings: Default::default(),
            });
            ctx.recorder
                .measurement(summarize(engine.name(), level, crash, &found))?;
        }
    }
    Ok(())
}

fn summarize(engine: &str, level: Durability, crash: CrashKind, rounds: &[Round]) -> Measurement {
    let lost_total: u64 = rounds.iter().map(|r| r.lost).sum();
    let lost_max = rounds.iter().map(|r| r.lost).max().unwrap_or(0);
    let corruptions = rounds.iter().filter(|r| r.corrupt).count() as u64;
    let verdict = Verdict::judge(level, crash, lost_total, corruptions);
    let runs: Vec<RunFigure> = rounds
        .iter()
        .map(|r| RunFigure {
            ops: r.acknowledged,
            seconds: r.alive_secs,
            ops_per_sec: r.acknowledged as f64 / r.alive_secs,
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
    config.insert("crash".into(), crash.label().into());
    Measurement {
        workload: "crashtest".into(),
        engine: engine.into(),
        durability: level.name().into(),
        threads: 1,
        step: "crash".into(),
        config,
        runs,
        ops_per_sec_mean: rates.mean,
        ops_per_sec_stddev: rates.stddev,
        ops_per_sec_min: rates.min,
        ops_per_sec_max: rates.max,
        seconds_mean: 0.0,
        seconds_stddev: 0.0,
        latency: None,
        retries: 0,
    }
}

/// The verdict table printed after a crash test.
pub fn render(result: &crate::results::RunResult) -> String {
    let crash = |c: Option<&serde_json::Value>| c.and_then(|v| v.as_str()).map(String::from);
    let crashes: Vec<String> = crash(result.parameters.get("crash"))
        .into_iter()
        .chain(
            result
                .measurements
                .iter()
                .filter_map(|m| crash(m.config.get("crash"))),
        )
        .collect();
    let title = if !crashes.is_empty() && crashes.iter().all(|c| c.starts_with("power loss")) {
        "Crash test (power cut while committing: unsynced writes dropped, reopened with recovery)"
    } else {
        "Crash test (process killed with SIGKILL while committing, reopened with recovery)"
    };
    let mut t = crate::report::table::Table::new(
        title,
        [
            "engine",
            "durability",
            "crash",
            "verdict",
            "rounds",
            "acknowledged",
            "lost (total)",
            "lost (max)",
            "corruptions",
        ]
        .map(String::from)
        .to_vec(),
        4,
    );
    for m in &result.measurements {
        let get = |k: &str| {
            m.config
                .get(k)
                .map(|v| v.to_string().trim_matches('"').to_string())
                .unwrap_or_default()
        };
        t.row(vec![
            m.engine.clone(),
            m.durability.clone(),
            get("crash"),
            get("verdict"),
            get("rounds"),
            get("acknowledged"),
            get("lost_total"),
            get("lost_max"),
            get("corruptions"),
        ]);
    }
    t.render()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_follow_the_promise() {
        assert_eq!(
            Verdict::judge(Durability::Sync, CrashKind::Process, 0, 0),
            Verdict::Kept
        );
        assert_eq!(
            Verdict::judge(Durability::Sync, CrashKind::Process, 1, 0),
            Verdict::Broken
        );
        assert_eq!(
            Verdict::judge(Durability::WriteNosync, CrashKind::Process, 3, 0),
            Verdict::Broken
        );
        assert_eq!(
            Verdict::judge(Durability::Nosync, CrashKind::Process, 3, 0),
            Verdict::AllowedLoss
        );
        assert_eq!(
            Verdict::judge(Durability::InMemory, CrashKind::Process, 0, 1),
            Verdict::AllowedLoss
        );
        assert_eq!(
            Verdict::judge(Durability::Nosync, CrashKind::Process, 0, 0),
            Verdict::Kept
        );
        // A power loss holds write-nosync to nothing, sync to everything.
        assert_eq!(
            Verdict::judge(Durability::WriteNosync, CrashKind::PowerLoss, 3, 0),
            Verdict::AllowedLoss
        );
        assert_eq!(
            Verdict::judge(Durability::Sync, CrashKind::PowerLoss, 1, 0),
            Verdict::Broken
        );
        assert_eq!(
            Verdict::judge(Durability::Sync, CrashKind::PowerLoss, 0, 0),
            Verdict::Kept
        );
    }
}
