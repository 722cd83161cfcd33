//! Errors as users read them: one line, each cause after a colon, passwords removed, and no
//! library's debug dump (the `mysql` crate prints `MySqlError { ERROR 1045 ... }`).

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
