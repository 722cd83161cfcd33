//! Processes on this machine, as /proc tells them: their state, when they started, their
//! descendants. Read as text; nothing here signals a process.

/// When process `pid` started, from /proc/<pid>/stat (field 22); None when it is gone.
pub fn start_time(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command name (which may hold spaces): state is field 3, start time field 22.
    stat[stat.rfind(')')? + 1..]
        .split_whitespace()
        .nth(19)?
        .parse()
        .ok()
}

/// Whether process `pid`, started at `started` (clock ticks since boot), still runs.
pub fn alive(pid: i32, started: u64) -> bool {
    start_time(pid) == Some(started)
}

/// Every process now: its id and its /proc directory.
pub fn all() -> impl Iterator<Item = (i32, std::path::PathBuf)> {
    (std::fs::read_dir("/proc").into_iter().flatten().flatten()).filter_map(|entry| {
        let pid = entry.file_name().to_str()?.parse::<i32>().ok()?;
        Some((pid, entry.path()))
    })
}

/// The ids of `pid`'s descendants (children, their children, ...), from the parent ids in
/// /proc/*/stat.
pub fn descendants(pid: i32) -> Vec<i32> {
    let mut parent_of: Vec<(i32, i32)> = Vec::new();
    for (p, proc_dir) in all() {
        let Ok(stat) = std::fs::read_to_string(proc_dir.join("stat")) else {
            continue;
        };
        if let Some(ppid) = stat_fields(&stat)
            .and_then(|mut f| f.nth(1))
            .and_then(|f| f.parse::<i32>().ok())
        {
            parent_of.push((p, ppid));
        }
    }
    let mut found = Vec::new();
    let mut next = vec![pid];
    while let Some(parent) = next.pop() {
        for &(p, _) in parent_of.iter().filter(|(_, pp)| *pp == parent) {
            if !found.contains(&p) {
                found.push(p);
                next.push(p);
            }
        }
    }
    found
}

/// The state letter of process `pid` (R, S, D, T, Z, ...), None when it is gone.
pub fn state_of(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat_fields(&stat)?.next()?.chars().next()
}

/// The fields of a /proc/<pid>/stat line after the command name (which may hold spaces and
/// parentheses): state, parent id, ...
fn stat_fields(stat: &str) -> Option<std::str::SplitWhitespace<'_>> {
    Some(stat[stat.rfind(')')? + 1..].split_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_skip_a_command_name_with_spaces_and_parentheses() {
        let stat = "4242 (postgres: a (b) c) S 17 4242 4242 0 -1";
        let mut f = stat_fields(stat).unwrap();
        assert_eq!(f.next(), Some("S"));
        assert_eq!(f.next(), Some("17"));
    }
}
