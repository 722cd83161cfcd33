//! pgbench's report, from hakari's result: the lines pgbench 15 prints after a test, in its
//! order and wording, so that what reads pgbench's output reads this.

use crate::report::view::{Part, View};
use crate::results::RunResult;

/// pgbench's report; with `statements` (`-r`) each SQL statement's latency after it.
pub struct PgbenchView {
    pub statements: bool,
}

impl View for PgbenchView {
    fn parts(&self, run: &RunResult, _: &[crate::report::view::Verdict]) -> Vec<Part> {
        let mut text = report(run);
        if self.statements {
            text.push_str(&statements(run));
        }
        vec![Part::Terminal(text)]
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

fn report(run: &RunResult) -> String {
    use std::fmt::Write;
    let p = &run.parameters;
    let scripts: Vec<&str> = (p["scripts"].as_array().into_iter().flatten())
        .filter_map(|s| s["file"].as_str())
        .collect();
    let Some(m) = run.measurements.iter().find(|m| m.step == "run") else {
        return String::new();
    };
    let mut out = String::new();
    let mut line = |text: String| writeln!(out, "{text}").expect("writing to a String");
    line(format!(
        "transaction type: {}",
        match scripts[..] {
            [one] => described(one),
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
    line(format!("number of threads: {} (one per client)", m.threads));
    line(format!(
        "maximum number of tries: {}",
        p["max_tries"].as_u64().unwrap_or(1)
    ));
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
    let failed = |kind: &str| m.figure(&format!("script.{kind}")).unwrap_or(0.0) as u64;
    let skipped = m.open_loop.as_ref().map_or(0, |o| o.skipped);
    let total = ops + failed("failed") + skipped;
    let mut kinds = vec![("failed transactions", "failed")];
    if p["failures_detailed"].as_bool() == Some(true) {
        kinds.extend([
            ("serialization failures", "serialization_failures"),
            ("deadlock failures", "deadlock_failures"),
        ]);
    }
    for (what, kind) in kinds.into_iter().filter(|_| total > 0) {
        line(format!(
            "number of {what}: {} ({:.3}%)",
            failed(kind),
            100.0 * failed(kind) as f64 / total as f64
        ));
    }
    let limit = run.timing.as_ref().and_then(|t| t.latency_limit_ms);
    if let (Some(_), Some(_)) = (&m.open_loop, limit) {
        line(format!(
            "number of transactions skipped: {skipped} ({:.3}%)",
            100.0 * skipped as f64 / total.max(1) as f64
        ));
    }
    if let (Some(late), Some(limit)) = (m.late, limit) {
        line(format!(
            "number of transactions above the {limit:.1} ms latency limit: {late}/{ops} ({:.3}%)",
            100.0 * late as f64 / ops.max(1) as f64
        ));
    }
    if let Some(l) = &m.latency {
        line(format!("latency average = {:.3} ms", l.mean_us / 1000.0));
    }
    if let Some(lag) = m.open_loop.as_ref().and_then(|o| o.lag.as_ref()) {
        line(format!(
            "rate limit schedule lag: avg {:.3} (max {:.3}) ms",
            lag.mean_us / 1000.0,
            lag.max_us / 1000.0
        ));
    }
    let connections = match p["connect_each"].as_bool() {
        Some(true) => "including reconnection times",
        _ => "without initial connection time",
    };
    line(format!("tps = {:.6} ({connections})", m.ops_per_sec_mean));
    out
}

/// `-r`'s list: each SQL statement's average latency in milliseconds and its failures (none:
/// a failed transaction is not timed statement by statement), in script order. pgbench also
/// times its meta-commands (`\set`, `\sleep`); hakari times the statements only.
fn statements(run: &RunResult) -> String {
    let mut out = String::from("statement latencies in milliseconds and failures:\n");
    for m in run
        .measurements
        .iter()
        .filter(|m| m.config.contains_key("statement"))
    {
        let shown = m.config["statement"].as_str().unwrap_or("");
        let ms = m.latency.as_ref().map_or(0.0, |l| l.mean_us / 1000.0);
        out.push_str(&format!("   {ms:11.3}  {:>10}  {shown}\n", 0));
    }
    out
}
