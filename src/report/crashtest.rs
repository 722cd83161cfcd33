//! The crash test's verdict table in the terminal.

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
        "Crash test (process killed with SIGKILL while committing, a server with its whole process tree; reopened or restarted with recovery)"
    };
    let mut t = super::table::Table::new(
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
