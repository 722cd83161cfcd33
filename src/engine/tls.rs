//! TLS for the server engines' connections: the rustls client configuration for each way a
//! user's own client checks a server (libpq's `sslmode`, MySQL's `ssl-mode`, `rediss://`). One
//! TLS stack, rustls over ring, for every engine.

use anyhow::{anyhow, Context, Result};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore};
use rustls::{Error as TlsError, SignatureScheme};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How much of the server's certificate a connection checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Encryption only: any certificate (libpq's `require`, MySQL's `REQUIRED`).
    Nothing,
    /// The chain up to a trusted root, not the host name (`verify-ca`, `VERIFY_CA`).
    Chain,
    /// The chain and the host name (`verify-full`, `VERIFY_IDENTITY`, `rediss://`).
    ChainAndName,
}

/// The roots a checked certificate must lead to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Roots {
    /// The operating system's trusted roots.
    System,
    /// The certificates of a PEM file (`sslrootcert`, `ssl-ca`).
    File(PathBuf),
}

/// Everything a TLS connection is made with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trust {
    pub check: Check,
    pub roots: Roots,
    /// A client certificate and its key, PEM files (`sslcert`/`sslkey`).
    pub identity: Option<(PathBuf, PathBuf)>,
}

/// The one crypto provider (ring), made the process's default so every crate's rustls
/// configuration uses it.
pub fn provider() -> Arc<CryptoProvider> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()))
}

/// The client configuration for `trust`.
pub fn client_config(trust: &Trust) -> Result<ClientConfig> {
    let provider = provider();
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .context("rustls has no TLS version to offer")?;
    let verifier: Arc<dyn ServerCertVerifier> = match trust.check {
        Check::Nothing => Arc::new(Lenient {
            provider,
            chain: None,
        }),
        check => {
            let roots = Arc::new(roots(&trust.roots)?);
            let webpki = WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
                .build()
                .context("cannot build a certificate verifier")?;
            match check {
                Check::Chain => Arc::new(Lenient {
                    provider,
                    chain: Some(webpki),
                }),
                _ => webpki,
            }
        }
    };
    let builder = builder
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    Ok(match &trust.identity {
        None => builder.with_no_client_auth(),
        Some((cert, key)) => {
            let certs = read_certificates(cert)?;
            let key = PrivateKeyDer::from_pem_file(key)
                .map_err(|e| anyhow!("cannot read the client key {}: {e}", key.display()))?;
            builder
                .with_client_auth_cert(certs, key)
                .context("the client certificate and key do not go together")?
        }
    })
}

fn roots(roots: &Roots) -> Result<RootCertStore> {
    let mut store = RootCertStore::empty();
    match roots {
        Roots::File(path) => {
            let (added, _) = store.add_parsable_certificates(read_certificates(path)?);
            if added == 0 {
                anyhow::bail!("no certificate in {}", path.display());
            }
        }
        Roots::System => {
            let found = rustls_native_certs::load_native_certs();
            store.add_parsable_certificates(found.certs);
            if store.is_empty() {
                anyhow::bail!("no trusted root certificates found on this system");
            }
        }
    }
    Ok(store)
}

fn read_certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>> {
    let bad = |e: rustls::pki_types::pem::Error| {
        anyhow!("cannot read certificates from {}: {e}", path.display())
    };
    let certs = (CertificateDer::pem_file_iter(path).map_err(bad)?)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(bad)?;
    if certs.is_empty() {
        anyhow::bail!("no certificate in {}", path.display());
    }
    Ok(certs)
}

/// What libpq's `require` and `verify-ca` and MySQL's `REQUIRED` and `VERIFY_CA` check of the
/// server's certificate: with no `chain`, nothing (encryption without knowing whom to); with
/// one, the chain to a trusted root but not the host name. The handshake's signatures are
/// checked either way.
#[derive(Debug)]
struct Lenient {
    provider: Arc<CryptoProvider>,
    chain: Option<Arc<WebPkiServerVerifier>>,
}

impl ServerCertVerifier for Lenient {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, TlsError> {
        let Some(chain) = &self.chain else {
            return Ok(ServerCertVerified::assertion());
        };
        match chain.verify_server_cert(end_entity, intermediates, name, ocsp, now) {
            Err(TlsError::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, TlsError> {
        let algorithms = &self.provider.signature_verification_algorithms;
        verify_tls12_signature(message, cert, dss, algorithms)
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, TlsError> {
        let algorithms = &self.provider.signature_verification_algorithms;
        verify_tls13_signature(message, cert, dss, algorithms)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// Splits a URL's query into the parameters `take` claims (by a name it recognizes, returned
/// with their values) and the URL without them, for the drivers that refuse parameters they do
/// not know.
pub fn take_params(url: &str, take: impl Fn(&str) -> bool) -> (String, Vec<(String, String)>) {
    let (base, fragment) = match url.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (url, None),
    };
    let Some((head, query)) = base.split_once('?') else {
        return (url.to_string(), Vec::new());
    };
    let (mut kept, mut taken) = (Vec::new(), Vec::new());
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if take(k) {
            taken.push((k.to_string(), decode(v)));
        } else {
            kept.push(pair);
        }
    }
    let mut out = head.to_string();
    if !kept.is_empty() {
        out.push('?');
        out.push_str(&kept.join("&"));
    }
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    (out, taken)
}

/// A query value's percent escapes decoded (a path given as `%2Fetc%2Fca.pem`).
fn decode(v: &str) -> String {
    let bytes = v.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = || u8::from_str_radix(v.get(i + 1..i + 3)?, 16).ok();
        match (bytes[i], hex()) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claimed_parameters_leave_the_url() {
        let (url, taken) = take_params(
            "postgres://u:p@h:5/db?sslmode=verify-full&application_name=x&sslrootcert=%2Ftmp%2Fca.pem#f",
            |k| k.starts_with("ssl"),
        );
        assert_eq!(url, "postgres://u:p@h:5/db?application_name=x#f");
        assert_eq!(
            taken,
            [
                ("sslmode".to_string(), "verify-full".to_string()),
                ("sslrootcert".to_string(), "/tmp/ca.pem".to_string())
            ]
        );
        let (url, taken) = take_params("mysql://h/db?ssl-mode=REQUIRED", |k| k == "ssl-mode");
        assert_eq!((url.as_str(), taken.len()), ("mysql://h/db", 1));
        assert_eq!(take_params("redis://h/", |_| true).0, "redis://h/");
    }
}
