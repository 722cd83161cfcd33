//! What libpq takes from beside the URL when the URL leaves it out, so that a password never
//! has to be typed on a command line: a service (`?service=NAME` or `PGSERVICE`, from
//! `PGSERVICEFILE` or `~/.pg_service.conf`, then `PGSYSCONFDIR/pg_service.conf` or Debian's
//! `/etc/postgresql-common/pg_service.conf`), the environment (`PGHOST`, `PGPORT`, `PGUSER`,
//! `PGDATABASE`, `PGPASSWORD`), and the password file (`PGPASSFILE` or `~/.pgpass`). As in
//! libpq, the URL wins, then the service, then the environment, then the password file.

use anyhow::{bail, Context, Result};
use postgres::config::Host;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

/// A service's settings (`host`, `port`, `dbname`, `user`, `password`, `sslmode`...).
pub type Service = BTreeMap<String, String>;

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The name of the user this process runs as (libpq's default user), from the password database.
fn login_name() -> Option<String> {
    let mut buf = vec![0 as libc::c_char; 4096];
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is to memory of the sizes given, alive for the call; the name is
    // copied out before `buf` goes.
    let ret = unsafe {
        libc::getpwuid_r(
            libc::getuid(),
            &mut pwd,
            buf.as_mut_ptr(),
            buf.len(),
            &mut found,
        )
    };
    if ret != 0 || found.is_null() {
        return env("USER");
    }
    // SAFETY: getpwuid_r filled `pwd.pw_name` with a NUL-terminated string inside `buf`.
    let name = unsafe { std::ffi::CStr::from_ptr(pwd.pw_name) };
    Some(name.to_string_lossy().into_owned())
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from)
}

/// The settings of service `name`: the user's service file first, then the system's; naming a
/// service no file has is an error, as in libpq.
pub fn service(name: &str) -> Result<Service> {
    let user = env("PGSERVICEFILE")
        .map(PathBuf::from)
        .or_else(|| home().map(|h| h.join(".pg_service.conf")));
    let system = env("PGSYSCONFDIR")
        .map(|d| PathBuf::from(d).join("pg_service.conf"))
        .unwrap_or_else(|| PathBuf::from("/etc/postgresql-common/pg_service.conf"));
    for file in user.into_iter().chain([system]) {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        if let Some(found) = section(&text, name) {
            return Ok(found);
        }
    }
    bail!("definition of service \"{name}\" not found (PGSERVICEFILE, ~/.pg_service.conf, pg_service.conf)")
}

/// The `key=value` lines of section `[name]` of a service file.
fn section(text: &str, name: &str) -> Option<Service> {
    let mut found: Option<Service> = None;
    let mut inside = false;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if found.is_some() {
                break;
            }
            inside = header.trim() == name;
            if inside {
                found = Some(Service::new());
            }
            continue;
        }
        if let (true, Some((k, v))) = (inside, line.split_once('=')) {
            if let Some(s) = found.as_mut() {
                s.insert(k.trim().to_string(), v.trim().to_string());
            }
        }
    }
    found
}

/// Fills what the URL left out of `config` from the service, the environment and the defaults,
/// and the password from the password file where nothing else gave one.
pub fn complete(config: &mut postgres::Config, service: &Service) -> Result<()> {
    let get = |key: &str, var: &str| service.get(key).cloned().or_else(|| env(var));
    if config.get_hosts().is_empty() {
        // libpq's default on Debian: the server's socket directory.
        let hosts = get("host", "PGHOST").unwrap_or_else(|| "/var/run/postgresql".into());
        for host in hosts.split(',').map(str::trim) {
            if host.starts_with('/') {
                config.host_path(host);
            } else {
                config.host(host);
            }
        }
    }
    if config.get_ports().is_empty() {
        if let Some(port) = get("port", "PGPORT") {
            let port: u16 = (port.parse()).with_context(|| format!("invalid port \"{port}\""))?;
            config.port(port);
        }
    }
    if config.get_user().is_none() {
        match get("user", "PGUSER").or_else(login_name) {
            Some(user) => config.user(&user),
            None => bail!("no user name: give one in the URL, PGUSER or a service"),
        };
    }
    if config.get_dbname().is_none() {
        if let Some(db) = get("dbname", "PGDATABASE") {
            config.dbname(&db);
        }
    }
    if config.get_password().is_none() {
        let password = match get("password", "PGPASSWORD") {
            Some(p) => Some(p),
            None => from_password_file(config)?,
        };
        if let Some(p) = password {
            config.password(p);
        }
    }
    Ok(())
}

/// The password `~/.pgpass` (or `PGPASSFILE`) holds for the first host it has a line for. A
/// file others may read is passed over with a warning, as libpq does.
fn from_password_file(config: &postgres::Config) -> Result<Option<String>> {
    let Some(file) = env("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| home().map(|h| h.join(".pgpass")))
    else {
        return Ok(None);
    };
    let Ok(meta) = std::fs::metadata(&file) else {
        return Ok(None);
    };
    if !meta.is_file() {
        return Ok(None);
    }
    if meta.permissions().mode() & 0o077 != 0 {
        eprintln!(
            "hakari: warning: password file \"{}\" has group or world access; permissions should be u=rw (0600) or less",
            file.display()
        );
        return Ok(None);
    }
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("cannot read the password file {}", file.display()))?;
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let db = (config.get_dbname())
        .or(config.get_user())
        .unwrap_or_default();
    let user = config.get_user().unwrap_or_default();
    for host in config.get_hosts() {
        // A socket directory matches the name `localhost`, as in libpq.
        let name = match host {
            Host::Tcp(h) => h.clone(),
            Host::Unix(_) => "localhost".into(),
        };
        if let Some(p) = password_for(&text, [&name, &port, db, user]) {
            return Ok(Some(p));
        }
    }
    Ok(None)
}

/// The password of the first line of a password file whose host, port, database and user match
/// (`*` matches anything; `\` escapes `:` and `\`).
fn password_for(text: &str, wanted: [&str; 4]) -> Option<String> {
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields = split(line);
        if fields.len() < 5 {
            continue;
        }
        let matches = (fields.iter().zip(wanted)).all(|(f, w)| f == "*" || f == w);
        if matches {
            return Some(fields[4..].join(":"));
        }
    }
    None
}

/// A password file line's fields: split at `:`, with `\:` and `\\` taken as the character.
fn split(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    fields.last_mut().unwrap().push(next);
                }
            }
            ':' if fields.len() < 5 => fields.push(String::new()),
            c => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_file_lines_match_as_libpq_reads_them() {
        let text = "# comment\n\
                    db.example:5432:sales:alice:first\n\
                    *:5433:*:bob:with\\:colon\n\
                    localhost:*:*:*:any\\\\one\n";
        let find = |w: [&str; 4]| password_for(text, w);
        assert_eq!(
            find(["db.example", "5432", "sales", "alice"]).as_deref(),
            Some("first")
        );
        assert_eq!(find(["db.example", "5432", "other", "alice"]), None);
        assert_eq!(
            find(["h", "5433", "x", "bob"]).as_deref(),
            Some("with:colon")
        );
        assert_eq!(
            find(["localhost", "1", "x", "y"]).as_deref(),
            Some("any\\one")
        );
    }

    #[test]
    fn a_service_is_its_own_section() {
        let text = "[other]\nhost=a\n\n# note\n[bench]\nhost = db.example\nport=6432\nuser=alice\n[next]\nuser=bob\n";
        let s = section(text, "bench").unwrap();
        assert_eq!(s["host"], "db.example");
        assert_eq!(s["port"], "6432");
        assert_eq!(s["user"], "alice");
        assert_eq!(s.len(), 3);
        assert!(section(text, "missing").is_none());
    }
}
