//! What hakari owns on this machine while it runs: its private servers' processes and the
//! directories it made. A run stopped by a signal ends them on its way out (`signals.rs`); one
//! that could not (SIGKILL, the out-of-memory killer) leaves an owner file in each directory,
//! and the next hakari that works in the same place finds the directory of a dead owner and
//! removes it, with whatever server still runs on it.

use crate::process;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The file in each directory hakari owns that names its owner: `<pid> <start time>`.
pub const OWNER_FILE: &str = ".hakari-owner";

static PROCESSES: Mutex<Vec<i32>> = Mutex::new(Vec::new());
static DIRECTORIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static RESULT_FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A result file being written: if hakari must quit at once, it is marked interrupted first.
pub fn result_file(path: &Path) {
    RESULT_FILES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(path.to_path_buf());
}

/// A private server's process (its leader), to be ended with its descendants on the way out.
pub fn process_started(pid: i32) {
    PROCESSES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(pid);
}

/// The leaders of the private servers running now (what a step's resource readings follow).
pub fn servers() -> Vec<i32> {
    PROCESSES.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// A private server's process that has ended (stopped or crashed on purpose).
pub fn process_ended(pid: i32) {
    PROCESSES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|&p| p != pid);
}

/// A directory hakari made and removes: marked with its owner, so that it can be found and
/// removed if this process is killed before it can.
pub fn directory_made(dir: &Path) -> std::io::Result<()> {
    std::fs::write(dir.join(OWNER_FILE), owner_line(std::process::id() as i32)?)?;
    DIRECTORIES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(dir.to_path_buf());
    Ok(())
}

/// A directory hakari has removed (or handed on).
pub fn directory_removed(dir: &Path) {
    DIRECTORIES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|d| d != dir);
}

/// Ends every private server still running (SIGKILL to each one's whole process tree, and to
/// every other process hakari started, such as an initdb half-way) and removes every directory
/// hakari made: the way out when there is no time to stop cleanly.
pub fn end_all() {
    for path in std::mem::take(&mut *RESULT_FILES.lock().unwrap_or_else(|e| e.into_inner())) {
        mark_interrupted(&path);
    }
    let servers = std::mem::take(&mut *PROCESSES.lock().unwrap_or_else(|e| e.into_inner()));
    let me = std::process::id() as i32;
    // A server may fork between the listing and the kill: list and kill until none is left.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let alive: Vec<i32> = (servers.iter().copied())
            .flat_map(|pid| process::descendants(pid).into_iter().chain([pid]))
            .chain(process::descendants(me))
            .filter(|&p| p != me && running(p))
            .collect();
        if alive.is_empty() || std::time::Instant::now() > deadline {
            break;
        }
        for &p in &alive {
            // SAFETY: a process hakari started (or one of its children): a plain kill(2).
            unsafe { libc::kill(p, libc::SIGKILL) };
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Only then the directories: a process still writing would leave one half-removed.
    let dirs = std::mem::take(&mut *DIRECTORIES.lock().unwrap_or_else(|e| e.into_inner()));
    for dir in dirs {
        for _ in 0..20 {
            if std::fs::remove_dir_all(&dir).is_ok() || !dir.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

/// Whether `pid` still runs (a zombie, which only waits to be reaped, does not).
fn running(pid: i32) -> bool {
    !matches!(process::state_of(pid), None | Some('Z') | Some('X'))
}

/// Marks a result file "interrupted" as it stands on disk (the configurations it holds are the
/// finished ones), when it says it is still running.
fn mark_interrupted(path: &Path) {
    let Ok(mut r) = crate::results::store::read(path) else {
        return;
    };
    if r.status != "running" {
        return;
    }
    r.status = "interrupted".into();
    r.errors.push("stopped at once by a second signal".into());
    r.finished_at = Some(crate::results::time::now_rfc3339());
    r.writer = None;
    let _ = crate::results::store::write_atomic(path, &r);
}

/// Kills `pid` and its descendants at once (SIGKILL).
fn kill_tree(pid: i32) {
    for p in process::descendants(pid).into_iter().chain([pid]) {
        // SAFETY: a process hakari started (or one of its children): a plain kill(2).
        unsafe { libc::kill(p, libc::SIGKILL) };
    }
}

/// `<pid> <start time>` of a process: its id and when it started (in clock ticks since boot),
/// so a later process that reuses the id is not taken for it.
fn owner_line(pid: i32) -> std::io::Result<String> {
    let start = process::start_time(pid).ok_or_else(|| std::io::Error::other("no /proc entry"))?;
    Ok(format!("{pid} {start}\n"))
}

/// Whether the owner named in an owner file still runs.
fn owner_alive(line: &str) -> bool {
    let mut parts = line.split_whitespace();
    let (Some(pid), Some(start)) = (parts.next(), parts.next()) else {
        return false;
    };
    match (pid.parse::<i32>(), start.parse::<u64>()) {
        (Ok(pid), Ok(start)) => process::alive(pid, start),
        _ => false,
    }
}

/// Removes the directories of hakari processes that died without cleaning up (`hakari-*` with
/// an owner file naming a process that is gone) in `parent`, and ends any process of
/// `programs` (the private servers' own, `PrivateServer::programs`) still working in one (a
/// server that outlived its owner); says so in one line each.
pub fn sweep(parent: &Path, programs: &[&str]) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let dir = entry.path();
        let ours =
            (dir.file_name().and_then(|n| n.to_str())).is_some_and(|n| n.starts_with("hakari-"));
        let Ok(owner) = std::fs::read_to_string(dir.join(OWNER_FILE)) else {
            continue;
        };
        if !ours || owner_alive(&owner) {
            continue;
        }
        let left = processes_in(&dir, programs);
        for &pid in &left {
            kill_tree(pid);
        }
        let removed = std::fs::remove_dir_all(&dir).is_ok();
        eprintln!(
            "hakari: {} {} left by a hakari process that was killed (pid {}){}",
            if removed {
                "removed"
            } else {
                "could not remove"
            },
            dir.display(),
            owner.split_whitespace().next().unwrap_or("?"),
            match left.len() {
                0 => String::new(),
                n => format!(", and ended {n} server process(es) still running there"),
            }
        );
    }
}

/// Server processes whose command line or working directory is inside `dir`: only `programs`,
/// the ones the private servers start (a user's shell that happens to work in a stale directory
/// is left alone).
fn processes_in(dir: &Path, programs: &[&str]) -> Vec<i32> {
    let needle = dir.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for (pid, proc_dir) in process::all() {
        let cmdline = std::fs::read(proc_dir.join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let cwd = std::fs::read_link(proc_dir.join("cwd")).unwrap_or_default();
        let program = std::fs::read_to_string(proc_dir.join("comm")).unwrap_or_default();
        let server = programs.contains(&program.trim());
        if server && (cmdline.contains(&needle) || cwd.starts_with(dir)) {
            found.push(pid);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owner_is_alive_only_with_its_own_start_time() {
        let me = std::process::id() as i32;
        let line = owner_line(me).unwrap();
        assert!(owner_alive(&line));
        let start = process::start_time(me).unwrap();
        assert!(
            !owner_alive(&format!("{me} {}", start + 1)),
            "a reused pid is not the owner"
        );
        assert!(!owner_alive("garbage"));
    }

    #[test]
    fn a_dead_owners_directory_is_swept_and_a_live_ones_kept() {
        let parent = tempfile::tempdir().unwrap();
        let dead = parent.path().join("hakari-dead");
        let live = parent.path().join("hakari-live");
        let foreign = parent.path().join("hakari-foreign");
        for d in [&dead, &live, &foreign] {
            std::fs::create_dir(d).unwrap();
        }
        // A child that has exited: its pid names no running process with that start time.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id() as i32;
        child.wait().unwrap();
        std::fs::write(dead.join(OWNER_FILE), format!("{pid} 1\n")).unwrap();
        std::fs::write(
            live.join(OWNER_FILE),
            owner_line(std::process::id() as i32).unwrap(),
        )
        .unwrap();
        sweep(parent.path(), &["postgres"]);
        assert!(!dead.exists(), "the dead owner's directory is removed");
        assert!(live.exists(), "a running owner's directory is kept");
        assert!(
            foreign.exists(),
            "a directory without an owner file is not hakari's to remove"
        );
    }
}
