//! How hakari reaches a PostgreSQL server: the URL's TLS parameters read as libpq reads them
//! (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`, and the `PGSSL*` variables), the rest as the
//! postgres crate reads it. The default is libpq's `prefer`, so hakari and psql or pgbench reach
//! a server over the same wire unless told otherwise.

use super::credentials;
use crate::engine::tls::{self, Check, Roots, Trust};
use crate::results::redact::redact;
use anyhow::{anyhow, bail, Result};
use postgres::config::SslMode as CrateMode;
use postgres::{Client, NoTls};
use std::path::PathBuf;
use std::str::FromStr;
use tokio_postgres_rustls::MakeRustlsConnect;

/// libpq's `sslmode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Allow,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    const ALL: [SslMode; 6] = [
        Self::Disable,
        Self::Allow,
        Self::Prefer,
        Self::Require,
        Self::VerifyCa,
        Self::VerifyFull,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::Disable => "disable",
            Self::Allow => "allow",
            Self::Prefer => "prefer",
            Self::Require => "require",
            Self::VerifyCa => "verify-ca",
            Self::VerifyFull => "verify-full",
        }
    }

    fn parse(s: &str) -> Result<SslMode> {
        match Self::ALL.into_iter().find(|m| m.name() == s) {
            Some(m) => Ok(m),
            None => {
                let names: Vec<_> = Self::ALL.iter().map(|m| m.name()).collect();
                bail!("invalid sslmode '{s}': one of {}", names.join(", "))
            }
        }
    }
}

/// A server's address with the way to reach it.
#[derive(Clone)]
pub struct Wire {
    /// The URL without the TLS parameters (what the postgres crate reads).
    url: String,
    config: postgres::Config,
    mode: SslMode,
    tls: Option<MakeRustlsConnect>,
}

/// The TLS parameters libpq takes in a URL.
const PARAMS: [&str; 4] = ["sslmode", "sslrootcert", "sslcert", "sslkey"];

impl Wire {
    /// Reads `url`: its TLS parameters first, then the environment's `PGSSLMODE`,
    /// `PGSSLROOTCERT`, `PGSSLCERT` and `PGSSLKEY`, then libpq's defaults (`prefer`; the root
    /// certificate `~/.postgresql/root.crt`, the client's `~/.postgresql/postgresql.crt`/`.key`
    /// where they exist).
    pub fn parse(url: &str) -> Result<Wire> {
        let (rest, given) = tls::take_params(url, |k| PARAMS.contains(&k) || k == "service");
        let from_url = |name: &str| given.iter().rev().find(|(k, _)| k == name);
        let service = match from_url("service").map(|(_, v)| v.clone()) {
            Some(name) => credentials::service(&name)?,
            None => match std::env::var("PGSERVICE").ok().filter(|s| !s.is_empty()) {
                Some(name) => credentials::service(&name)?,
                None => credentials::Service::new(),
            },
        };
        let setting = |name: &str| -> Option<String> {
            (from_url(name).map(|(_, v)| v.clone()))
                .or_else(|| service.get(name).cloned())
                .or_else(|| std::env::var(format!("PG{}", name.to_uppercase())).ok())
                .filter(|v| !v.is_empty())
        };
        let mut config = postgres::Config::from_str(&rest)
            .map_err(|e| anyhow!("bad PostgreSQL URL {}: {e}", redact(url)))?;
        credentials::complete(&mut config, &service)?;
        let mode = SslMode::parse(&setting("sslmode").unwrap_or_else(|| "prefer".into()))?;
        let home = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".postgresql"));
        let default_file = |name: &str| home.as_ref().map(|h| h.join(name)).filter(|p| p.exists());
        let root = match setting("sslrootcert") {
            Some(s) if s == "system" => Some(Roots::System),
            Some(s) => Some(Roots::File(PathBuf::from(s))),
            None => default_file("root.crt").map(Roots::File),
        };
        let check = match mode {
            SslMode::Disable => None,
            SslMode::Allow | SslMode::Prefer => Some(Check::Nothing),
            // libpq: with a root certificate at hand, require checks the chain as verify-ca.
            SslMode::Require if root.is_some() => Some(Check::Chain),
            SslMode::Require => Some(Check::Nothing),
            SslMode::VerifyCa => Some(Check::Chain),
            SslMode::VerifyFull => Some(Check::ChainAndName),
        };
        if check.is_some_and(|c| c != Check::Nothing) {
            match &root {
                None => bail!(
                    "sslmode={} needs the root certificate to check the server's against: give sslrootcert=FILE (or sslrootcert=system for the system's roots), or put it at ~/.postgresql/root.crt",
                    mode.name()
                ),
                Some(Roots::File(f)) if !f.exists() => bail!(
                    "root certificate file \"{}\" does not exist (sslrootcert); give the CA's certificate, sslrootcert=system, or a mode that does not check the server (sslmode=require)",
                    f.display()
                ),
                _ => {}
            }
        }
        let identity = match (setting("sslcert"), setting("sslkey")) {
            (Some(c), Some(k)) => Some((PathBuf::from(c), PathBuf::from(k))),
            (Some(_), None) | (None, Some(_)) => {
                bail!("sslcert and sslkey go together: give both files, or neither")
            }
            (None, None) => default_file("postgresql.crt").zip(default_file("postgresql.key")),
        };
        let tls = match check {
            None => None,
            Some(check) => {
                let roots = root.unwrap_or(Roots::System);
                let trust = Trust {
                    check,
                    roots,
                    identity,
                };
                Some(MakeRustlsConnect::new(tls::client_config(&trust)?))
            }
        };
        Ok(Wire {
            url: rest,
            config,
            mode,
            tls,
        })
    }

    pub fn mode(&self) -> SslMode {
        self.mode
    }

    /// A new connection, over TLS or not as the mode says (`allow`: plaintext first, TLS if the
    /// server refuses it).
    pub fn connect(&self) -> std::result::Result<Client, postgres::Error> {
        let mut config = self.config.clone();
        // As libpq: no TLS over a Unix-domain socket (a socket directory as the host).
        let local =
            (config.get_hosts().iter()).all(|h| matches!(h, postgres::config::Host::Unix(_)));
        match (&self.tls, self.mode) {
            _ if local => config.ssl_mode(CrateMode::Disable).connect(NoTls),
            (None, _) => config.ssl_mode(CrateMode::Disable).connect(NoTls),
            (Some(tls), SslMode::Allow) => {
                let plain = config.clone().ssl_mode(CrateMode::Disable).connect(NoTls);
                plain.or_else(|_| config.ssl_mode(CrateMode::Require).connect(tls.clone()))
            }
            (Some(tls), SslMode::Prefer) => config.ssl_mode(CrateMode::Prefer).connect(tls.clone()),
            (Some(tls), _) => config.ssl_mode(CrateMode::Require).connect(tls.clone()),
        }
    }

    /// A new connection, its failure said in one line with the server's URL (password hidden).
    pub fn open(&self) -> Result<Client> {
        self.connect().map_err(|e| {
            anyhow!(
                "cannot connect to PostgreSQL at {}: {}",
                redact(&self.url),
                with_cause(&e)
            )
        })
    }

    /// How a connection reaches the server, from the server's own view of it (`pg_stat_ssl`):
    /// "TLSv1.3, TLS_AES_256_GCM_SHA384 (sslmode=prefer)" or "none (sslmode=prefer)".
    pub fn describe(&self, c: &mut Client) -> String {
        let row = c.query_opt(
            "SELECT version, cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid() AND ssl",
            &[],
        );
        let mode = self.mode.name();
        match row {
            Ok(Some(r)) => format!(
                "{}, {} (sslmode={mode})",
                r.get::<_, Option<String>>(0).unwrap_or_default(),
                r.get::<_, Option<String>>(1).unwrap_or_default()
            ),
            Ok(None) => format!("none (sslmode={mode})"),
            Err(_) => format!("unknown (sslmode={mode})"),
        }
    }
}

/// The error and its cause ("error connecting to server: Connection refused").
pub fn with_cause(e: &postgres::Error) -> String {
    use std::error::Error;
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_are_read_as_libpq_reads_them() {
        let url = "postgres://u:secret@127.0.0.1:1/db";
        assert_eq!(
            Wire::parse(&format!("{url}?sslmode=disable"))
                .unwrap()
                .mode(),
            SslMode::Disable
        );
        assert_eq!(
            Wire::parse(&format!("{url}?sslmode=require&application_name=x"))
                .unwrap()
                .url,
            format!("{url}?application_name=x")
        );
        let bad = Wire::parse(&format!("{url}?sslmode=verify")).err().unwrap();
        assert!(
            bad.to_string().contains("invalid sslmode 'verify'"),
            "{bad}"
        );
        let missing = Wire::parse(&format!(
            "{url}?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem"
        ));
        let text = missing.err().unwrap().to_string();
        assert!(
            text.contains("/nonexistent/ca.pem") && !text.contains("secret"),
            "{text}"
        );
        let half = Wire::parse(&format!("{url}?sslmode=require&sslcert=/a.pem"));
        assert!(half.err().unwrap().to_string().contains("go together"));
    }
}
