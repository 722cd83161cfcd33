//! Errors as users read them, and the exit codes: one line, each cause after a colon, passwords
//! removed, and no library's debug dump (the `mysql` crate prints `MySqlError { ERROR 1045 ... }`).

/// Exit codes, listed for users in `--help` ([`EXIT_CODES`]) and the README.
pub const EXIT_ERROR: i32 = 1;
pub const EXIT_USAGE: i32 = 2;
pub const EXIT_BROKEN_PROMISE: i32 = 3;
pub const EXIT_GATE_FAILED: i32 = 4;
pub const EXIT_CLIENTS_STOPPED: i32 = 5;

pub const EXIT_CODES: &str = "Exit codes:
  0    done
  1    error (one line on stderr; no result file that looks complete)
  2    bad usage (an unknown flag, a value that cannot be parsed, flags that do not fit)
  3    a crash test found a broken durability promise, or a tpcc run a broken consistency
       condition
  4    a requirement (run --require) or the regression gate (compare --fail-if-worse) failed
  5    a script's client stopped on an error (the others finished; their figures are kept,
       the run marked failed); hakari pgbench exits 2 then, as pgbench does
  130  interrupted by Ctrl-C (SIGINT); 143 by SIGTERM, 129 by SIGHUP: the result file keeps
       what finished, marked interrupted; private servers are stopped and hakari's directories
       removed (a second signal does so at once). After SIGKILL the servers die with hakari, and
       the next run in the same place removes what was left.
A closed pipe on stdout (hakari engines | head) ends output quietly, not with an error.";

/// A run that found the database inconsistent (a TPC-C consistency condition broken): the
/// run is marked failed and hakari exits 3, as for a broken durability promise.
#[derive(Debug)]
pub struct Inconsistent(pub String);

impl std::fmt::Display for Inconsistent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Inconsistent {}

/// Whether `e` or one of its causes is an [`Inconsistent`].
pub fn is_inconsistent(e: &anyhow::Error) -> bool {
    e.chain()
        .any(|c| c.downcast_ref::<Inconsistent>().is_some())
}

/// Clients of a run that stopped on an error while the others finished: the figures are kept,
/// the run is marked failed, and hakari exits 5 (`hakari pgbench` 2, as pgbench).
#[derive(Debug)]
pub struct ClientsStopped(pub String);

impl std::fmt::Display for ClientsStopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ClientsStopped {}

/// Whether `e` or one of its causes is a [`ClientsStopped`].
pub fn is_clients_stopped(e: &anyhow::Error) -> bool {
    e.chain()
        .any(|c| c.downcast_ref::<ClientsStopped>().is_some())
}

/// Bad usage found after parsing (flags that do not fit together or do not fit the workload):
/// one line, exit 2, like the errors clap reports.
#[derive(Debug)]
pub struct Usage(pub String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// The error and its causes as one sentence-like line, redacted.
pub fn sentence(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        if let Some(m) = cause.downcast_ref::<mysql::Error>() {
            // Its sources are what the description already says.
            push(&mut line, crate::engine::mysql::describe_error(m));
            break;
        }
        push(&mut line, cause.to_string());
    }
    crate::results::redact::redact(&line)
}

fn push(line: &mut String, text: String) {
    // A library error often repeats its source in its own text; say it once.
    if text.is_empty() || line.contains(&text) {
        return;
    }
    if !line.is_empty() {
        line.push_str(": ");
    }
    line.push_str(&text);
}
