//! What a step cost the client and the server, read on the step's own clock: at the release of
//! its workers, on every interval boundary and at its end. The readings come from sources that
//! know nothing of workloads: hakari's own process (`/proc/self`), the process trees of the
//! private servers it runs (`owned.rs` keeps their leaders), the device under the data
//! directory (`/proc/diskstats`), and statistics an engine registers while it is open (a
//! server's own counters: `pg_stat_wal`, `SHOW GLOBAL STATUS`). The measurement core reads them
//! all the same way; which figures a run gets depends on which sources were there.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

/// One reading of one source: a counter only grows (its change over a span is what it cost), a
/// gauge is a level (its largest value over a span is kept).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reading {
    Counter(f64),
    Gauge(f64),
    /// A counter its source started at zero, so that a reading absent earlier was zero then
    /// (a wait event first seen during the step).
    Tally(f64),
}

/// What a source read at one instant, by figure name (`client.cpu_s`, `postgres.wal_bytes`).
pub type Readings = BTreeMap<String, Reading>;

/// Something that can be read at any instant of a step, from the collecting thread.
pub trait Source: Send {
    /// Its current readings; an error drops this source's figures from the step, with a note.
    fn read(&mut self, into: &mut Readings) -> anyhow::Result<()>;
    /// What it is, for notes ("PostgreSQL statistics").
    fn name(&self) -> String;
}

type Registered = Vec<(u64, Box<dyn Source>)>;

/// The statistics sources engines have registered while they are open.
static SOURCES: Mutex<Registered> = Mutex::new(Vec::new());
static NEXT: Mutex<u64> = Mutex::new(0);
/// The device the run's data lives on (`/proc/diskstats` name), set by the run's context.
static DEVICE: Mutex<Option<String>> = Mutex::new(None);
/// Notes of sources that could not be read, taken by the run context after each step.
static NOTES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Whether this run reads resources at all (`--no-resources` says no): engines ask before they
/// open a connection for their statistics.
static ENABLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// `--engine-statistics`: also the statistics an engine keeps only when asked, whose counting
/// costs it throughput (RocksDB's statistics object).
static ENGINE_STATISTICS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub fn enable(on: bool, engine_statistics: bool) {
    ENABLED.store(on, std::sync::atomic::Ordering::Relaxed);
    ENGINE_STATISTICS.store(
        on && engine_statistics,
        std::sync::atomic::Ordering::Relaxed,
    );
}

pub fn enabled() -> bool {
    ENABLED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether to turn on statistics that cost the engine throughput (`--engine-statistics`).
pub fn engine_statistics() -> bool {
    ENGINE_STATISTICS.load(std::sync::atomic::Ordering::Relaxed)
}

/// A server's counters carried on across its going away, so that none falls back in a step's
/// readings: where the server reached again started its counters from zero (a restart, a
/// crash), what they had reached is added to what it counts since; where it is another server
/// (a standby promoted in the primary's place, with counts of its own), its first reading counts
/// nothing and later ones count from it. A server that kept its counters is read as it is.
#[derive(Default)]
pub struct Carry {
    offset: BTreeMap<String, f64>,
    last: BTreeMap<String, f64>,
}

impl Carry {
    /// Carries the counters among `readings` on from the last ones; `another`: the server read
    /// is not the one read last time.
    pub fn carry(&mut self, readings: &mut Readings, another: bool) {
        for (name, reading) in readings.iter_mut() {
            let (Reading::Counter(v) | Reading::Tally(v)) = reading else {
                continue;
            };
            let offset = self.offset.entry(name.clone()).or_insert(0.0);
            if let Some(&last) = self.last.get(name) {
                if another {
                    *offset = last - *v;
                } else if *v + *offset < last {
                    *offset = last;
                }
            }
            *v += *offset;
            self.last.insert(name.clone(), *v);
        }
    }
}

/// Keeps a registered source in the readings until dropped.
pub struct Registration(u64);

impl Drop for Registration {
    fn drop(&mut self) {
        lock(&SOURCES).retain(|(id, _)| *id != self.0);
    }
}

/// Adds a source (an engine's statistics) to every step's readings while the registration lives.
pub fn register(source: Box<dyn Source>) -> Registration {
    let id = {
        let mut n = lock(&NEXT);
        *n += 1;
        *n
    };
    lock(&SOURCES).push((id, source));
    Registration(id)
}

/// The block device under `dir`, whose writes and flushes the steps read.
pub fn watch_device_of(dir: &std::path::Path) {
    *lock(&DEVICE) = device_of(dir);
}

/// A note from a source about a reading it cannot give (a statistic the user may not read).
pub fn note(text: String) {
    lock(&NOTES).push(text);
}

/// Notes about sources that could not be read since the last call.
pub fn take_notes() -> Vec<String> {
    std::mem::take(&mut *lock(&NOTES))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Every source's readings at one instant.
#[derive(Clone, Debug)]
pub struct Sample {
    pub at: Instant,
    pub readings: Readings,
}

/// CPU hakari has spent reading resources (the samples and any sampling thread), in ns.
static COST_NS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The CPU time the calling thread has used, in ns (CLOCK_THREAD_CPUTIME_ID).
pub fn thread_cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Adds CPU a source spent on its own thread (a sampler's) to what the readings cost.
pub fn charge(ns: u64) {
    COST_NS.fetch_add(ns, std::sync::atomic::Ordering::Relaxed);
}

/// A process's CPU seconds (user + system), from /proc: for the statistics sessions of a
/// private server, so that what the readings cost the server is a reading too.
pub fn process_cpu_s(pid: i32) -> Option<f64> {
    let (user, system, _) = cpu_ticks(&pid.to_string())?;
    Some((user + system) / ticks())
}

/// Reads every source now. What the reading itself cost hakari is a reading too
/// (`readings.client_cpu_s`), so every step says what measuring it took.
pub fn sample() -> Sample {
    let started = thread_cpu_ns();
    let mut readings = Readings::new();
    client(&mut readings);
    servers(&mut readings);
    if let Some(device) = lock(&DEVICE).clone() {
        disk(&device, &mut readings);
    }
    let mut failed = Vec::new();
    for (id, source) in lock(&SOURCES).iter_mut() {
        let mut own = Readings::new();
        match source.read(&mut own) {
            Ok(()) => readings.extend(own),
            Err(e) => failed.push((*id, format!("{}: {e:#}", source.name()))),
        }
    }
    if !failed.is_empty() {
        // A source that fails once (a statistic the user may not read) is not asked again.
        lock(&SOURCES).retain(|(id, _)| !failed.iter().any(|(f, _)| f == id));
        let mut notes = lock(&NOTES);
        for (_, why) in failed {
            notes.push(format!("a resource figure could not be read: {why}"));
        }
    }
    charge(thread_cpu_ns().saturating_sub(started));
    let cost = COST_NS.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1e9;
    readings.insert("readings.client_cpu_s".into(), Reading::Counter(cost));
    Sample {
        at: Instant::now(),
        readings,
    }
}

/// What a span between two samples cost: each counter's change, each gauge's later value.
pub fn between(from: &Sample, to: &Sample) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for (name, reading) in &to.readings {
        match (reading, from.readings.get(name)) {
            // A counter that went back (a server restarted) says nothing about the span.
            (Reading::Counter(b), Some(Reading::Counter(a))) if b >= a => {
                out.insert(name.clone(), b - a);
            }
            (Reading::Gauge(v), _) => {
                out.insert(name.clone(), *v);
            }
            (Reading::Tally(b), earlier) => {
                let a = match earlier {
                    Some(Reading::Tally(a)) => *a,
                    _ => 0.0,
                };
                out.insert(name.clone(), (b - a).max(0.0));
            }
            _ => {}
        }
    }
    out
}

/// The readings of one interval of a step's series: each counter's change per second, each
/// gauge's level at its end.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceInterval {
    /// Its start, in seconds from the step's start (as the interval series counts).
    pub t_s: f64,
    pub seconds: f64,
    /// Counters per second, gauges as read at its end.
    pub rates: BTreeMap<String, f64>,
}

/// The series of a step's samples: one entry per span between two samples.
pub fn series(samples: &[Sample], t0: Instant) -> Vec<ResourceInterval> {
    samples
        .windows(2)
        .filter_map(|w| {
            let seconds = w[1].at.duration_since(w[0].at).as_secs_f64();
            (seconds > 0.0).then(|| ResourceInterval {
                t_s: w[0].at.duration_since(t0).as_secs_f64(),
                seconds,
                rates: between(&w[0], &w[1])
                    .into_iter()
                    .map(|(name, v)| match w[1].readings.get(&name) {
                        Some(Reading::Counter(_) | Reading::Tally(_)) => (name, v / seconds),
                        _ => (name, v),
                    })
                    .collect(),
            })
        })
        .collect()
}

/// What the counted part of a step cost: from the sample nearest the end of the warm-up (the
/// release, without one) to the last.
pub fn counted(samples: &[Sample], base: Instant) -> BTreeMap<String, f64> {
    let off = |s: &&Sample| {
        (s.at.checked_duration_since(base)).unwrap_or_else(|| base.duration_since(s.at))
    };
    let first = samples.iter().min_by_key(off);
    let mut out = match (first, samples.last()) {
        (Some(a), Some(b)) => between(a, b),
        _ => BTreeMap::new(),
    };
    // A gauge's figure is its largest reading over the counted span, not its last.
    for s in samples.iter().filter(|s| s.at >= base) {
        for (name, r) in &s.readings {
            if let (Reading::Gauge(v), Some(kept)) = (r, out.get_mut(name)) {
                *kept = kept.max(*v);
            }
        }
    }
    out
}

/// Clock ticks per second, for /proc's CPU times.
fn ticks() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

/// A process's CPU from its stat line: (user, system, reaped children's user + system), in ticks.
fn cpu_ticks(pid: &str) -> Option<(f64, f64, f64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces): state is field 3.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let n = |i: usize| f.get(i - 3).and_then(|v| v.parse::<f64>().ok());
    Some((n(14)?, n(15)?, n(16)? + n(17)?))
}

/// A field of /proc/PID/status or /proc/PID/io (`name: value`), as a number.
fn field(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
}

/// hakari's own process: CPU, context switches, resident memory.
fn client(into: &mut Readings) {
    // getrusage counts every thread, those already ended too, where /proc/self/status counts
    // the main thread's context switches alone (the clients' threads switch, it mostly waits).
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given; zeroed is a valid rusage.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } == 0 {
        // SAFETY: filled by the call (or still zeroed).
        let usage = unsafe { usage.assume_init() };
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        into.insert(
            "client.cpu_user_s".into(),
            Reading::Counter(seconds(usage.ru_utime)),
        );
        into.insert(
            "client.cpu_system_s".into(),
            Reading::Counter(seconds(usage.ru_stime)),
        );
        let switches = usage.ru_nvcsw + usage.ru_nivcsw;
        into.insert(
            "client.context_switches".into(),
            Reading::Counter(switches as f64),
        );
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(kb) = field(&status, "VmRSS") {
        into.insert("client.rss_bytes".into(), Reading::Gauge(kb * 1024.0));
    }
    // What hakari (and an embedded engine in it) made the storage read and write.
    let io = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
    if let (Some(read), Some(written)) = (field(&io, "read_bytes"), field(&io, "write_bytes")) {
        into.insert("client.read_bytes".into(), Reading::Counter(read));
        into.insert("client.write_bytes".into(), Reading::Counter(written));
    }
}

/// User and system CPU seconds, bytes read and written, of the servers that ended by a restart,
/// carried on in the servers' counters so that they do not fall back.
static RETIRED: std::sync::Mutex<[f64; 4]> = std::sync::Mutex::new([0.0; 4]);

/// Takes the last of a server process that has exited but is not yet reaped (a zombie keeps its
/// times, its reaped children's included) into the servers' counters, before a restart reaps it.
pub fn retire(pid: i32) {
    let p = pid.to_string();
    let Some((u, s, children)) = cpu_ticks(&p) else {
        return;
    };
    let io = std::fs::read_to_string(format!("/proc/{p}/io")).unwrap_or_default();
    let tick = ticks();
    let mut retired = RETIRED.lock().unwrap_or_else(|e| e.into_inner());
    retired[0] += (u + children) / tick;
    retired[1] += s / tick;
    retired[2] += field(&io, "read_bytes").unwrap_or(0.0);
    retired[3] += field(&io, "write_bytes").unwrap_or(0.0);
}

/// Every private server's whole process tree: CPU (its reaped children's included, so that a
/// backend that ended during the step still counts), bytes read and written, resident memory.
/// Read as at one instant: a backend reaped while the tree is read moves its time into its
/// parent's reaped children's, and caught between the two it would count in neither (the
/// counter would fall back and its interval say nothing); so the tree is read again until no
/// server's reaped children's time changed after the read took it.
fn servers(into: &mut Readings) {
    let leaders = crate::owned::servers();
    if leaders.is_empty() {
        return;
    }
    let reaped = || -> Vec<Option<f64>> {
        let each = leaders.iter().map(|pid| cpu_ticks(&pid.to_string()));
        each.map(|t| t.map(|(_, _, children)| children)).collect()
    };
    let mut read = (reaped(), tree(&leaders));
    for _ in 0..5 {
        if reaped() == read.0 {
            break;
        }
        read = (reaped(), tree(&leaders));
    }
    let (tally, rss) = read.1;
    // What servers restarted during the run (`--fault restart`) had spent when they ended.
    let retired = *RETIRED.lock().unwrap_or_else(|e| e.into_inner());
    let total = |i: usize| Reading::Counter(retired[i] + tally[i]);
    into.insert("server.cpu_user_s".into(), total(0));
    into.insert("server.cpu_system_s".into(), total(1));
    into.insert("server.read_bytes".into(), total(2));
    into.insert("server.write_bytes".into(), total(3));
    into.insert("server.rss_bytes".into(), Reading::Gauge(rss));
}

/// The process trees of `leaders`: user and system CPU seconds, bytes read and written, and
/// resident bytes.
fn tree(leaders: &[i32]) -> ([f64; 4], f64) {
    let tick = ticks();
    let mut tally = [0.0; 4];
    let mut rss = 0.0;
    let mut seen = Vec::new();
    for &leader in leaders {
        for pid in std::iter::once(leader).chain(crate::process::descendants(leader)) {
            if seen.contains(&pid) {
                continue;
            }
            seen.push(pid);
            let p = pid.to_string();
            let Some((u, s, children)) = cpu_ticks(&p) else {
                continue;
            };
            // Reaped children's time is not split into user and system: count it as user.
            tally[0] += (u + children) / tick;
            tally[1] += s / tick;
            let io = std::fs::read_to_string(format!("/proc/{p}/io")).unwrap_or_default();
            tally[2] += field(&io, "read_bytes").unwrap_or(0.0);
            tally[3] += field(&io, "write_bytes").unwrap_or(0.0);
            let status = std::fs::read_to_string(format!("/proc/{p}/status")).unwrap_or_default();
            rss += field(&status, "VmRSS").unwrap_or(0.0) * 1024.0;
        }
    }
    (tally, rss)
}

/// The device's completed writes, bytes written and flushes (where the kernel counts them).
fn disk(device: &str, into: &mut Readings) {
    let stats = std::fs::read_to_string("/proc/diskstats").unwrap_or_default();
    for line in stats.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.get(2) != Some(&device) {
            continue;
        }
        let n = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok());
        if let (Some(writes), Some(sectors)) = (n(7), n(9)) {
            into.insert("device.writes".into(), Reading::Counter(writes));
            into.insert(
                "device.write_bytes".into(),
                Reading::Counter(sectors * 512.0),
            );
        }
        if let Some(flushes) = n(14) {
            into.insert("device.flushes".into(), Reading::Counter(flushes));
        }
    }
}

/// The /proc/diskstats name of the device holding `dir`, from the mount's major:minor.
fn device_of(dir: &std::path::Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(dir).ok()?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let stats = std::fs::read_to_string("/proc/diskstats").ok()?;
    stats.lines().find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        (f.first()?.parse::<u32>().ok()? == major && f.get(1)?.parse::<u32>().ok()? == minor)
            .then(|| f[2].to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counters carried across a restart (from zero since) and across a failover (another
    /// server's counts): none falls back, and a gauge is left as it is.
    #[test]
    fn counters_carry_on_across_a_restart_and_a_failover() {
        let mut carry = Carry::default();
        let read = |carry: &mut Carry, commits: f64, another: bool| {
            let mut r = Readings::from([
                ("commits".to_string(), Reading::Counter(commits)),
                ("level".to_string(), Reading::Gauge(commits)),
            ]);
            carry.carry(&mut r, another);
            (r["commits"], r["level"])
        };
        assert_eq!(read(&mut carry, 100.0, false).0, Reading::Counter(100.0));
        assert_eq!(read(&mut carry, 150.0, false).0, Reading::Counter(150.0));
        // Restarted: 20 counted since it started from zero.
        let (c, g) = read(&mut carry, 20.0, false);
        assert_eq!((c, g), (Reading::Counter(170.0), Reading::Gauge(20.0)));
        // Another server, 5,000 of its own: its first reading counts nothing, then from it.
        assert_eq!(read(&mut carry, 5_000.0, true).0, Reading::Counter(170.0));
        assert_eq!(read(&mut carry, 5_030.0, false).0, Reading::Counter(200.0));
    }

    #[test]
    fn the_client_counts_its_own_cpu() {
        // This thread's own CPU time: spinning until it has had 300 ms, not for 300 ms of the
        // wall clock, which on a loaded machine (CI's tests in parallel) gave it less.
        let thread_cpu = || {
            let mut t = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: a valid clock id and a timespec to fill.
            unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
            t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
        };
        let before = sample();
        let (started, from) = (Instant::now(), thread_cpu());
        let mut x = 0u64;
        while thread_cpu() - from < 0.3 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let after = sample();
        let spent = between(&before, &after);
        let cpu = spent["client.cpu_user_s"] + spent["client.cpu_system_s"];
        // 300 ms of this thread, read in clock ticks; at most every core for the time it took
        // (other tests' threads share the process).
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let most = started.elapsed().as_secs_f64() * cores as f64 + 0.05;
        assert!(cpu >= 0.2 && cpu <= most, "{cpu} (at most {most})");
        assert!(spent["client.rss_bytes"] > 0.0);
    }

    #[test]
    fn gauges_keep_their_largest_counted_reading() {
        let t = Instant::now();
        let at = |ms: u64, cpu: f64, rss: f64| Sample {
            at: t + std::time::Duration::from_millis(ms),
            readings: [
                ("c".to_string(), Reading::Counter(cpu)),
                ("g".to_string(), Reading::Gauge(rss)),
            ]
            .into(),
        };
        let samples = [at(0, 1.0, 5.0), at(1000, 3.0, 9.0), at(2000, 7.0, 4.0)];
        let base = t + std::time::Duration::from_millis(1000);
        let c = counted(&samples, base);
        assert_eq!(c["c"], 4.0);
        assert_eq!(c["g"], 9.0);
        let s = series(&samples, t);
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].rates["c"], 4.0);
        assert_eq!(s[1].rates["g"], 4.0);
    }
}
