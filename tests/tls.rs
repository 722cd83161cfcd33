//! TLS to the servers users run: private PostgreSQL, MariaDB and Redis servers that take only
//! TLS, with a throw-away certificate authority made here by openssl, reached with each mode
//! their own clients take; the refusals (a host name the certificate does not name, plaintext to
//! a server that requires TLS) end in one line and a non-zero exit, the password never shown.

mod common;

use common::{hakari, result_files, stderr};
use hakari::server::{PrivateServer, ServerOptions, ServerTls};
use std::path::Path;
use std::process::Command;

/// A CA and a server certificate it signed for the name `localhost` only (so 127.0.0.1 is a
/// host name the certificate does not name), made with the openssl command line in `dir`.
fn certificates(dir: &Path, only: bool) -> ServerTls {
    let run = |args: &[&str]| {
        let o = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl runs (scripts/setup.sh installs it)");
        assert!(o.status.success(), "openssl {args:?}: {}", stderr(&o));
    };
    run(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=hakari test CA",
    ]);
    run(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=localhost",
    ]);
    std::fs::write(dir.join("san.ext"), "subjectAltName=DNS:localhost\n").unwrap();
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "san.ext",
    ]);
    ServerTls {
        ca: dir.join("ca.pem"),
        cert: dir.join("server.pem"),
        key: dir.join("server.key"),
        only,
    }
}

/// A private server taking only TLS on TCP, started in `dir`/server.
fn tls_server(server: &dyn PrivateServer, dir: &Path) -> (hakari::server::Launched, ServerTls) {
    let tls = certificates(dir, true);
    let server_dir = dir.join("server");
    std::fs::create_dir(&server_dir).unwrap();
    let options = ServerOptions {
        clients: 4,
        tls: Some(tls.clone()),
        ..ServerOptions::at(hakari::durability::Durability::Sync)
    };
    (server.start(&server_dir, &options, dir).unwrap(), tls)
}

/// Runs `args` with a fresh `--out`: the result file's engine settings on success, else the
/// exit code and standard error (with no result file written).
fn run(args: &[&str]) -> Outcome {
    let out = tempfile::tempdir().unwrap();
    let mut all = args.to_vec();
    all.extend(["--out", out.path().to_str().unwrap()]);
    let o = hakari(&all);
    if !o.status.success() {
        assert!(
            result_files(out.path()).is_empty(),
            "{args:?} left a result"
        );
        return Err((o.status.code().unwrap_or(-1), stderr(&o)));
    }
    let r = hakari::results::store::read(&common::only_result(out.path())).unwrap();
    Ok(r.engines[0].settings.clone())
}

/// A refusal: exit 1, one error line saying `why`, no password.
fn assert_refused(got: Outcome, why: &str) {
    let (code, text) = got.expect_err("refused");
    assert_eq!(code, 1, "{text}");
    // One line of error (beside the progress line naming the configuration).
    let errors: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("hakari: error"))
        .collect();
    assert_eq!(errors.len(), 1, "{text}");
    assert_eq!(
        text.trim().lines().last(),
        errors.first().copied(),
        "{text}"
    );
    assert!(text.to_lowercase().contains(why), "wanted '{why}': {text}");
    assert!(!text.contains("sekrit"), "{text}");
}

/// What a run gives back: the engine's settings, or the exit code and standard error.
type Outcome = Result<std::collections::BTreeMap<String, String>, (i32, String)>;

/// A tiny tpcb on `engine` at `url`.
fn tpcb(engine: &str, url: &str) -> Outcome {
    run(&[
        "run",
        "tpcb",
        "--engine",
        engine,
        "--url",
        url,
        "--accounts-per-branch",
        "100",
        "--transactions",
        "5",
        "--runs",
        "1",
    ])
}

/// A tiny ycsb on Redis at `url`.
fn ycsb(url: &str) -> Outcome {
    run(&[
        "run",
        "ycsb",
        "--engine",
        "redis",
        "--url",
        url,
        "--durability",
        "in-memory",
        "--records",
        "50",
        "--operations",
        "50",
    ])
}

#[test]
fn postgres_takes_libpqs_sslmodes() {
    let dir = tempfile::tempdir().unwrap();
    let (server, tls) = tls_server(&hakari::server::postgres::PRIVATE, dir.path());
    let port = server.process.port;
    let ca = tls.ca.display().to_string();
    // Trusted: the password is never asked for, only carried (and must never be shown).
    let url = |host: &str, query: &str| {
        format!("postgresql://hakari:sekrit@{host}:{port}/hakari?{query}")
    };
    for (host, query) in [
        ("localhost", format!("sslmode=verify-full&sslrootcert={ca}")),
        ("127.0.0.1", format!("sslmode=verify-ca&sslrootcert={ca}")),
        ("127.0.0.1", "sslmode=require".to_string()),
        ("127.0.0.1", "sslmode=prefer".to_string()),
        ("127.0.0.1", "sslmode=allow".to_string()),
    ] {
        let settings = tpcb("postgres", &url(host, &query)).unwrap();
        let said = &settings["tls"];
        assert!(said.starts_with("TLSv1.3, "), "{query}: {said}");
    }
    assert_refused(
        tpcb(
            "postgres",
            &url(
                "127.0.0.1",
                &format!("sslmode=verify-full&sslrootcert={ca}"),
            ),
        ),
        "certificate",
    );
    assert_refused(
        tpcb("postgres", &url("127.0.0.1", "sslmode=disable")),
        "no encryption",
    );
}

#[test]
fn mysql_takes_its_ssl_modes() {
    let dir = tempfile::tempdir().unwrap();
    let (server, tls) = tls_server(&hakari::server::mariadb::PRIVATE, dir.path());
    let port = server.process.port;
    let ca = tls.ca.display().to_string();
    {
        use mysql::prelude::Queryable;
        let socket = hakari::server::mariadb::socket(&dir.path().join("server"));
        let mut c = mysql::Conn::new(hakari::server::mariadb::socket_opts(&socket, None)).unwrap();
        // Loopback TCP reaches MariaDB as 'localhost', which its anonymous ''@'localhost'
        // account would take before a '%' one.
        for host in ["localhost", "%"] {
            c.query_drop(format!(
                "CREATE USER 'bench'@'{host}' IDENTIFIED BY 'sekrit'"
            ))
            .unwrap();
            c.query_drop(format!("GRANT ALL ON hakari.* TO 'bench'@'{host}'"))
                .unwrap();
        }
    }
    let url =
        |host: &str, query: &str| format!("mysql://bench:sekrit@{host}:{port}/hakari?{query}");
    for (host, query) in [
        ("localhost", format!("ssl-mode=VERIFY_IDENTITY&ssl-ca={ca}")),
        ("127.0.0.1", format!("ssl-mode=VERIFY_CA&ssl-ca={ca}")),
        ("127.0.0.1", "ssl-mode=REQUIRED".to_string()),
        ("127.0.0.1", String::new()),
    ] {
        let settings = tpcb("mysql", &url(host, &query)).unwrap();
        let said = &settings["tls"];
        assert!(said.starts_with("TLSv1.3, "), "{query}: {said}");
    }
    assert_refused(
        tpcb(
            "mysql",
            &url(
                "127.0.0.1",
                &format!("ssl-mode=VERIFY_IDENTITY&ssl-ca={ca}"),
            ),
        ),
        "certificate",
    );
    // MariaDB 10.11 answers plaintext under require_secure_transport with "Access denied" (its
    // own client gets the same), for the credentials that worked over TLS above.
    assert_refused(
        tpcb("mysql", &url("127.0.0.1", "ssl-mode=DISABLED")),
        "access denied",
    );
}

#[test]
fn redis_takes_rediss_with_its_ca() {
    let dir = tempfile::tempdir().unwrap();
    let tls = certificates(dir.path(), true);
    let server_dir = dir.path().join("server");
    std::fs::create_dir(&server_dir).unwrap();
    let options = ServerOptions {
        tls: Some(tls.clone()),
        ..ServerOptions::at(hakari::durability::Durability::InMemory)
    };
    let server = hakari::server::redis::PRIVATE
        .start(&server_dir, &options, dir.path())
        .unwrap();
    let port = server.process.port;
    let ca = tls.ca.display().to_string();
    let settings = ycsb(&format!("rediss://localhost:{port}/?cacert={ca}")).unwrap();
    assert!(
        settings["tls"].contains("checked against cacert"),
        "{settings:?}"
    );
    let settings = ycsb(&format!("rediss://127.0.0.1:{port}/#insecure")).unwrap();
    assert!(settings["tls"].contains("not checked"), "{settings:?}");
    assert_refused(
        ycsb(&format!("rediss://:sekrit@127.0.0.1:{port}/?cacert={ca}")),
        "certificate",
    );
    let plain = ycsb(&format!("redis://:sekrit@127.0.0.1:{port}/"));
    let (code, text) = plain.expect_err("plaintext to a TLS port is refused");
    assert_eq!(code, 1, "{text}");
    assert!(!text.contains("sekrit"), "{text}");
}
