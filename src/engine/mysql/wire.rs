//! How hakari reaches a MySQL or MariaDB server: the URL's TLS parameters read with MySQL's own
//! names (`ssl-mode` DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY; `ssl-ca`,
//! `ssl-cert`, `ssl-key`; `_` or no separator also taken), the rest as the mysql crate reads it.
//! The default is the mysql client's PREFERRED: TLS where the server offers it.

use crate::engine::tls;
use crate::results::redact::redact;
use anyhow::{anyhow, bail, Result};
use mysql::{ClientIdentity, Conn, Opts, OptsBuilder, SslOpts};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// MySQL's `ssl-mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SslMode {
    Disabled,
    Preferred,
    Required,
    VerifyCa,
    VerifyIdentity,
}

impl SslMode {
    const ALL: [SslMode; 5] = [
        Self::Disabled,
        Self::Preferred,
        Self::Required,
        Self::VerifyCa,
        Self::VerifyIdentity,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::Disabled => "DISABLED",
            Self::Preferred => "PREFERRED",
            Self::Required => "REQUIRED",
            Self::VerifyCa => "VERIFY_CA",
            Self::VerifyIdentity => "VERIFY_IDENTITY",
        }
    }
}

/// A parameter's name without case or separators: `ssl-mode`, `ssl_mode`, `sslMode` are one.
fn plain(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '-' && *c != '_')
        .collect::<String>()
        .to_ascii_lowercase()
}

const PARAMS: [&str; 4] = ["sslmode", "sslca", "sslcert", "sslkey"];

/// A server's address with the way to reach it.
pub struct Wire {
    opts: Opts,
    /// PREFERRED: the same without TLS, for a server that offers none.
    plaintext: Option<Opts>,
    /// The server offered no TLS once: later connections go without asking again.
    refused: AtomicBool,
    mode: SslMode,
}

impl Clone for Wire {
    fn clone(&self) -> Wire {
        Wire {
            opts: self.opts.clone(),
            plaintext: self.plaintext.clone(),
            refused: AtomicBool::new(self.refused.load(Ordering::Relaxed)),
            mode: self.mode,
        }
    }
}

/// Prepared statements a connection keeps open (the `mysql` crate's statement cache).
const STATEMENTS_KEPT: usize = 1024;

impl Wire {
    /// A server hakari started: the URL holds the whole account.
    pub fn parse(url: &str) -> Result<Wire> {
        Wire::read(url, false)
    }

    /// A server the user named by `--url`: the account the URL leaves out comes from where the
    /// mysql client finds it (`~/.my.cnf`, `MYSQL_PWD`).
    pub fn given(url: &str) -> Result<Wire> {
        Wire::read(url, true)
    }

    fn read(url: &str, named: bool) -> Result<Wire> {
        let (rest, given) = tls::take_params(url, |k| PARAMS.contains(&plain(k).as_str()));
        let setting = |name: &str| {
            let found = given.iter().rev().find(|(k, _)| plain(k) == name);
            found.map(|(_, v)| v.clone()).filter(|v| !v.is_empty())
        };
        let opts =
            Opts::from_url(&rest).map_err(|e| anyhow!("bad MySQL URL {}: {e}", redact(url)))?;
        let opts = match named {
            true => super::credentials::complete(opts),
            false => opts,
        };
        let mode = match setting("sslmode") {
            None => SslMode::Preferred,
            Some(s) => match SslMode::ALL
                .into_iter()
                .find(|m| m.name().eq_ignore_ascii_case(&s))
            {
                Some(m) => m,
                None => {
                    let names: Vec<_> = SslMode::ALL.iter().map(|m| m.name()).collect();
                    bail!("invalid ssl-mode '{s}': one of {}", names.join(", "))
                }
            },
        };
        let ca = setting("sslca").map(PathBuf::from);
        if let Some(f) = ca.as_ref().filter(|f| !f.exists()) {
            bail!(
                "the CA certificate file \"{}\" (ssl-ca) does not exist",
                f.display()
            );
        }
        if matches!(mode, SslMode::VerifyCa | SslMode::VerifyIdentity) && ca.is_none() {
            bail!(
                "ssl-mode={} needs the CA certificate to check the server's against: give ssl-ca=FILE",
                mode.name()
            );
        }
        let identity = match (setting("sslcert"), setting("sslkey")) {
            (Some(c), Some(k)) => Some(ClientIdentity::new(PathBuf::from(c), PathBuf::from(k))),
            (None, None) => None,
            _ => bail!("ssl-cert and ssl-key go together: give both files, or neither"),
        };
        tls::provider();
        let ssl = SslOpts::default()
            .with_client_identity(identity)
            .with_root_cert_path(ca)
            .with_danger_accept_invalid_certs(matches!(
                mode,
                SslMode::Preferred | SslMode::Required
            ))
            .with_danger_skip_domain_validation(mode != SslMode::VerifyIdentity);
        // A TCP URL stays on TCP, as the mysql client's does: the mysql crate would otherwise
        // move a connection to a local server onto its Unix socket (`prefer_socket`, unless the
        // URL says so), where no TLS is spoken and other accounts apply.
        let tcp = !rest.contains("prefer_socket=");
        // The crate keeps 32 prepared statements a connection by default and closes the
        // oldest on the server past that, under a handle hakari still holds (tpcc prepares
        // 41): keep far more, unless the URL says how many.
        let cache = (!rest.contains("stmt_cache_size=")).then_some(STATEMENTS_KEPT);
        let with = |ssl: Option<SslOpts>| {
            let mut builder = OptsBuilder::from_opts(opts.clone()).ssl_opts(ssl);
            if let Some(n) = cache {
                builder = builder.stmt_cache_size(n);
            }
            Opts::from(if tcp {
                builder.prefer_socket(false)
            } else {
                builder
            })
        };
        Ok(Wire {
            opts: with((mode != SslMode::Disabled).then_some(ssl)),
            plaintext: (mode == SslMode::Preferred).then(|| with(None)),
            refused: AtomicBool::new(false),
            mode,
        })
    }

    pub fn mode(&self) -> SslMode {
        self.mode
    }

    pub fn opts(&self) -> &Opts {
        &self.opts
    }

    /// A new connection: over TLS unless the mode is DISABLED, or PREFERRED and the server
    /// offers none.
    pub fn connect(&self) -> mysql::Result<Conn> {
        if let (Some(plain), true) = (&self.plaintext, self.refused.load(Ordering::Relaxed)) {
            return Conn::new(plain.clone());
        }
        match (Conn::new(self.opts.clone()), &self.plaintext) {
            (Err(mysql::Error::DriverError(mysql::DriverError::TlsNotSupported)), Some(plain)) => {
                self.refused.store(true, Ordering::Relaxed);
                Conn::new(plain.clone())
            }
            (result, _) => result,
        }
    }

    /// How a connection reaches the server, from the server's own view of it:
    /// "TLSv1.3, TLS_AES_256_GCM_SHA384 (ssl-mode=PREFERRED)" or "none (ssl-mode=...)", and
    /// whether that is TLS.
    pub fn describe(&self, c: &mut Conn) -> (String, bool) {
        use mysql::prelude::Queryable;
        let mut status = |name: &str| -> Option<String> {
            let row: Option<(String, String)> = c
                .query_first(format!("SHOW SESSION STATUS LIKE '{name}'"))
                .ok()?;
            row.map(|(_, v)| v).filter(|v| !v.is_empty())
        };
        let mode = self.mode.name();
        match (status("Ssl_version"), status("Ssl_cipher")) {
            (Some(v), Some(c)) => (format!("{v}, {c} (ssl-mode={mode})"), true),
            _ => (format!("none (ssl-mode={mode})"), false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_are_read_with_mysqls_names() {
        let url = "mysql://u:secret@127.0.0.1:1/db";
        let mode = |q: &str| Wire::parse(&format!("{url}?{q}")).map(|w| w.mode());
        assert_eq!(mode("ssl-mode=disabled").unwrap(), SslMode::Disabled);
        assert_eq!(mode("sslMode=REQUIRED").unwrap(), SslMode::Required);
        assert_eq!(mode("prefer_socket=false").unwrap(), SslMode::Preferred);
        let text = mode("ssl_mode=VERIFY_CA").unwrap_err().to_string();
        assert!(text.contains("ssl-ca=FILE"), "{text}");
        let text = mode("ssl-mode=on").unwrap_err().to_string();
        assert!(text.contains("invalid ssl-mode 'on'"), "{text}");
        let text = mode("ssl-mode=REQUIRED&ssl-ca=/nonexistent.pem").unwrap_err();
        assert!(!text.to_string().contains("secret"));
    }
}
