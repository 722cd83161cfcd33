//! pgbench's report, from hakari's result: the lines pgbench 15 prints after a test, in its
//! order and wording, so that what reads pgbench's output reads this.

use crate::measure::latency::LatencySummary;
use crate::report::view::{Part, View};
use crate::results::{Measurement, RunResult};

/// pgbench's report; with `statements` (`-r`) each command's latency; with `stddev` (pgbench
/// under -P, -R or -L, which time each transaction) the latency's mean and standard deviation
/// instead of the mean pgbench computes from the run's length.
pub struct PgbenchView {
    pub statements: bool,
    pub stddev: bool,
}

impl View for PgbenchView {
    fn parts(&self, run: &RunResult, _: &[crate::report::view::Verdict]) -> Vec<Part> {
        vec![Part::Terminal(self.report(run))]
    }
    fn derived(&self) -> bool {
        false
    }
}

/// What pgbench calls each built-in script.
fn described(file: &str) -> String {
    match file {
        "tpcb-like" => "<builtin: TPC-B (sort of)>".into(),
        "simple-update" => "<builtin: simple update>".into(),
        "select-only" => "<builtin: select only>".into(),
        _ => file.into(),
    }
}

/// A run's (or one script's) transactions: processed, failed, and all of them.
struct Counts {
    ops: u64,
    failed: u64,
    total: u64,
}

impl Counts {
    fn of(m: &Measurement) -> Counts {
        let ops: u64 = m.runs.iter().map(|r| r.ops).sum();
        let failed = figure(m, "failed");
        let skipped = match &m.open_loop {
            Some(o) => o.skipped,
            None => figure(m, "skipped"),
        };
        Counts {
            ops,
            failed,
            total: ops + failed + skipped,
        }
    }
}

/// A script's counted figure (`script.NAME`).
fn figure(m: &Measurement, name: &str) -> u64 {
    m.figure(&format!("script.{name}")).unwrap_or(0.0) as u64
}

fn percent(n: u64, of: u64) -> f64 {
    100.0 * n as f64 / of.max(1) as f64
}

impl PgbenchView {
    fn report(&self, run: &RunResult) -> String {
        let p = &run.parameters;
        let Some(m) = run.measurements.iter().find(|m| m.step == "run") else {
            return String::new();
        };
        let scripts: Vec<(&str, u64)> = (p["scripts"].as_array().into_iter().flatten())
            .filter_map(|s| Some((s["file"].as_str()?, s["weight"].as_u64().unwrap_or(1))))
            .collect();
        let mut out = head(run, m, &scripts);
        let counts = Counts::of(m);
        if counts.total == 0 {
            return out;
        }
        out.push_str(&conflicts(run, m, &counts, ""));
        let limit = run.timing.as_ref().and_then(|t| t.latency_limit_ms);
        if let (Some(late), Some(limit)) = (m.late, limit) {
            let ops = counts.ops;
            out.push_str(&format!(
                "number of transactions above the {limit:.1} ms latency limit: {late}/{ops} ({:.3}%)\n",
                percent(late, ops)
            ));
        }
        match (&m.latency, self.stddev) {
            (Some(l), true) => out.push_str(&latency(l, "")),
            _ => {
                // pgbench's average without timing each transaction: the clients' time over
                // the transactions, failed ones included.
                let seconds: f64 = m.runs.iter().map(|r| r.seconds).sum();
                let ms = 1000.0 * seconds * m.threads as f64 / counts.total as f64;
                let failures = match counts.failed {
                    0 => "",
                    _ => " (including failures)",
                };
                out.push_str(&format!("latency average = {ms:.3} ms{failures}\n"));
            }
        }
        if let Some(lag) = m.open_loop.as_ref().and_then(|o| o.lag.as_ref()) {
            out.push_str(&format!(
                "rate limit schedule lag: avg {:.3} (max {:.3}) ms\n",
                lag.mean_us / 1000.0,
                lag.max_us / 1000.0
            ));
        }
        let seconds = |name: &str| m.figure(&format!("script.{name}")).unwrap_or(0.0);
        let connections = match p["connect_each"].as_bool() {
            Some(true) => {
                let ms =
                    1000.0 * seconds("reconnect_s") / (counts.ops + counts.failed).max(1) as f64;
                out.push_str(&format!("average connection time = {ms:.3} ms\n"));
                "including reconnection times"
            }
            _ => {
                let ms = 1000.0 * seconds("initial_connection_s") / m.runs.len().max(1) as f64;
                out.push_str(&format!("initial connection time = {ms:.3} ms\n"));
                "without initial connection time"
            }
        };
        out.push_str(&format!(
            "tps = {:.6} ({connections})\n",
            m.ops_per_sec_mean
        ));
        let total_weight: u64 = scripts.iter().map(|(_, w)| w).sum();
        for (i, &(file, weight)) in scripts.iter().enumerate() {
            let several = scripts.len() > 1;
            if several {
                let step = format!("script {file}");
                let Some(s) = run.measurements.iter().find(|s| s.step == step) else {
                    continue;
                };
                let c = Counts::of(s);
                out.push_str(&format!(
                    "SQL script {}: {}\n - weight: {weight} (targets {:.1}% of total)\n - {} transactions ({:.1}% of total, tps = {:.6})\n",
                    i + 1,
                    described(file),
                    percent(weight, total_weight),
                    c.ops,
                    percent(c.ops, counts.ops),
                    s.ops_per_sec_mean
                ));
                out.push_str(&conflicts(run, s, &c, " - "));
                out.push_str(&latency(&s.latency.unwrap_or_default(), " - "));
            }
            if self.statements {
                out.push_str(&statements(run, file, several));
            }
        }
        out
    }
}

/// The lines up to the count of transactions processed.
fn head(run: &RunResult, m: &Measurement, scripts: &[(&str, u64)]) -> String {
    let p = &run.parameters;
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(&text);
        out.push('\n');
    };
    line(format!(
        "transaction type: {}",
        match scripts[..] {
            [(one, _)] => described(one),
            _ => "multiple scripts".into(),
        }
    ));
    if let Some(scale) = m.config.get("scale").and_then(|s| s.as_i64()) {
        line(format!("scaling factor: {scale}"));
    }
    line(format!(
        "query mode: {}",
        p["query_mode"].as_str().unwrap_or("prepared")
    ));
    line(format!("number of clients: {}", m.threads));
    let threads = p["threads"].as_u64().unwrap_or(m.threads as u64);
    line(format!("number of threads: {threads}"));
    // As pgbench: no line for tries without a limit (0).
    match p["max_tries"].as_u64().unwrap_or(1) {
        0 => {}
        n => line(format!("maximum number of tries: {n}")),
    }
    let ops: u64 = m.runs.iter().map(|r| r.ops).sum();
    match p["transactions"].as_u64() {
        Some(n) => {
            line(format!("number of transactions per client: {n}"));
            line(format!(
                "number of transactions actually processed: {ops}/{}",
                n * m.threads as u64
            ));
        }
        None => {
            line(format!(
                "duration: {} s",
                p["duration_secs"].as_f64().unwrap_or(0.0)
            ));
            line(format!("number of transactions actually processed: {ops}"));
        }
    }
    out
}

/// The failed, retried and skipped transactions of a run or (`prefix` " - ") one script.
fn conflicts(run: &RunResult, m: &Measurement, c: &Counts, prefix: &str) -> String {
    let p = &run.parameters;
    let mut out = String::new();
    let mut line = |what: &str, n: u64| {
        out.push_str(&format!(
            "{prefix}number of {what}: {n} ({:.3}%)\n",
            percent(n, c.total)
        ));
    };
    line("failed transactions", c.failed);
    if p["failures_detailed"].as_bool() == Some(true) {
        line(
            "serialization failures",
            figure(m, "serialization_failures"),
        );
        line("deadlock failures", figure(m, "deadlock_failures"));
    }
    if p["max_tries"].as_u64() != Some(1) {
        line("transactions retried", figure(m, "retried"));
        out.push_str(&format!("{prefix}total number of retries: {}\n", m.retries));
    }
    let timing = run.timing.as_ref();
    let (paced, limit) = timing.map_or((false, false), |t| {
        (!t.rates.is_empty(), t.latency_limit_ms.is_some())
    });
    if paced && limit {
        let skipped = c.total - c.ops - c.failed;
        out.push_str(&format!(
            "{prefix}number of transactions skipped: {skipped} ({:.3}%)\n",
            percent(skipped, c.total)
        ));
    }
    out
}

/// pgbench's mean and standard deviation of a latency, in milliseconds.
fn latency(l: &LatencySummary, prefix: &str) -> String {
    format!(
        "{prefix}latency average = {:.3} ms\n{prefix}latency stddev = {:.3} ms\n",
        l.mean_us / 1000.0,
        l.stddev_us / 1000.0
    )
}

/// `-r`'s list for script `file`: each command's average latency in milliseconds, the
/// transactions that failed at it and (with more than one try) the retries it caused, in script
/// order; each command timed in every try that ran it.
fn statements(run: &RunResult, file: &str, several: bool) -> String {
    let retries = run.parameters["max_tries"].as_u64() != Some(1);
    let mut out = format!(
        "{}statement latencies in milliseconds{}:\n",
        if several { " - " } else { "" },
        if retries {
            ", failures and retries"
        } else {
            " and failures"
        }
    );
    let prefix = format!("{file}:");
    for m in (run.measurements.iter())
        .filter(|m| m.config.contains_key("statement") && m.step.starts_with(&prefix))
    {
        let shown = m.config["statement"].as_str().unwrap_or("");
        let ms = m.latency.as_ref().map_or(0.0, |l| l.mean_us / 1000.0);
        let failed = figure(m, "failed");
        out.push_str(&format!("   {ms:11.3}  {failed:>10}"));
        if retries {
            out.push_str(&format!("  {:>10}", m.retries));
        }
        out.push_str(&format!("  {shown}\n"));
    }
    out
}
