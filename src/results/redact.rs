//! Credentials never reach result files, logs or reports.

/// Replaces the password of any `scheme://user:password@host` URL in `text` with `***`.
pub fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find("://") {
        let (head, tail) = rest.split_at(pos + 3);
        out.push_str(head);
        // The authority ends at the first '/', '?', '#', whitespace or ',' (a list of seed
        // nodes: `redis://:pw@a:1,redis://:pw@b:2`).
        let end = tail
            .find(|c: char| matches!(c, '/' | '?' | '#' | ',') || c.is_whitespace())
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        match (authority.rfind('@'), authority.find(':')) {
            (Some(at), Some(colon)) if colon < at => {
                out.push_str(&authority[..colon]);
                out.push_str(":***");
                out.push_str(&authority[at..]);
            }
            _ => out.push_str(authority),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    // key=value forms (libpq connection strings, --password=...).
    redact_key_values(&out)
}

fn redact_key_values(text: &str) -> String {
    const KEYS: [&str; 3] = ["password=", "pass=", "pwd="];
    let mut out = text.to_string();
    for key in KEYS {
        let mut search_from = 0;
        while let Some(found) = out[search_from..].to_ascii_lowercase().find(key) {
            let start = search_from + found + key.len();
            // An ODBC value in braces may hold ';' and spaces: it ends at its '}'.
            let braced = out[start..].starts_with('{');
            let end = if braced {
                out[start..].find('}').map(|e| start + e + 1)
            } else {
                out[start..]
                    .find(|c: char| c.is_whitespace() || c == '&' || c == ';')
                    .map(|e| start + e)
            }
            .unwrap_or(out.len());
            out.replace_range(start..end, "***");
            search_from = start + 3;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hides_passwords_in_urls_and_key_values() {
        assert_eq!(
            redact("redis://:pw1@a:7000,redis://:pw2@b:7001"),
            "redis://:***@a:7000,redis://:***@b:7001",
            "every seed node of a list"
        );
        assert_eq!(
            redact("postgres://bob:s3cret@db.example:5432/x"),
            "postgres://bob:***@db.example:5432/x"
        );
        assert_eq!(
            redact("--url mysql://root:p%40ss@127.0.0.1/test --x"),
            "--url mysql://root:***@127.0.0.1/test --x"
        );
        assert_eq!(redact("redis://127.0.0.1:6379"), "redis://127.0.0.1:6379");
        assert_eq!(redact("postgres://bob@h/db"), "postgres://bob@h/db");
        assert_eq!(
            redact("host=h password=hunter2 user=u"),
            "host=h password=*** user=u"
        );
        assert!(!redact("a://u:pw@h b://v:pw2@k").contains("pw"));
        assert_eq!(
            redact("odbc:DSN=zen;UID=bench;PWD={se;cr et};X=1"),
            "odbc:DSN=zen;UID=bench;PWD=***;X=1"
        );
    }
}
