//! Where the mysql client finds the account a URL leaves out, so that a password never has to be
//! typed on a command line: the `[client]` section of `~/.my.cnf` (`user`, `password`), then the
//! `MYSQL_PWD` environment variable (which the client reads last: an option file's password
//! wins over it). The URL's own user and password win over both.

use mysql::{Opts, OptsBuilder};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The `[client]` section of an option file: names with `-` and `_` alike, values unquoted.
fn client_section(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut inside = false;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(group) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            inside = group.trim().eq_ignore_ascii_case("client");
            continue;
        }
        if !inside {
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            let v = v.trim();
            let unquoted = (v.strip_prefix('"').and_then(|v| v.strip_suffix('"')))
                .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                .unwrap_or(v);
            out.insert(k.trim().replace('-', "_"), unquoted.to_string());
        }
    }
    out
}

/// `opts` with the user and password the URL left out taken from `~/.my.cnf` and `MYSQL_PWD`.
pub fn complete(opts: Opts) -> Opts {
    let file = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".my.cnf"));
    let client = (file.and_then(|f| std::fs::read_to_string(f).ok()))
        .map(|t| client_section(&t))
        .unwrap_or_default();
    let mut builder = OptsBuilder::from_opts(opts.clone());
    if opts.get_user().is_none() {
        if let Some(user) = client.get("user") {
            builder = builder.user(Some(user));
        }
    }
    if opts.get_pass().is_none() {
        let env = std::env::var("MYSQL_PWD").ok();
        if let Some(pass) = client.get("password").cloned().or(env) {
            builder = builder.pass(Some(pass));
        }
    }
    Opts::from(builder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_client_section_counts() {
        let text = "[mysqld]\npassword=server\n\n[client]\nuser = alice\npassword=\"se cret\"\n# x\nssl-mode=REQUIRED\n[mysql]\npassword=other\n";
        let c = client_section(text);
        assert_eq!(c["user"], "alice");
        assert_eq!(c["password"], "se cret");
        assert_eq!(c["ssl_mode"], "REQUIRED");
        assert_eq!(c.len(), 3);
    }
}
