//! The private servers start only the programs they declare (`PrivateServer::programs`): the
//! sweep of a killed hakari's directories ends those and nothing else, so a program a server
//! starts but does not declare would outlive a killed hakari. Each server of the engine registry
//! is started for real, one at a time, with a PostgreSQL standby beside (its base backup).

use hakari::durability::Durability;
use hakari::server::topology::{ReplicaAck, Topology};
use hakari::server::{started_programs, PrivateServer, ServerOptions};
use std::os::unix::fs::PermissionsExt;
mod common;
use common::{hakari, stderr};

fn check(server: &dyn PrivateServer, topology: Topology) {
    let dir = tempfile::tempdir().unwrap();
    let before = started_programs().len();
    let options = ServerOptions {
        topology,
        ..ServerOptions::at(Durability::Sync)
    };
    let launched = server.start(dir.path(), &options, dir.path()).unwrap();
    let started = started_programs().split_off(before);
    drop(launched);
    for program in &started {
        assert!(
            server.programs().contains(&program.as_str()),
            "{} started {program}, which it does not declare: {:?}",
            server.name(),
            server.programs()
        );
    }
}

#[test]
fn every_private_server_starts_only_the_programs_it_declares() {
    let mut servers: Vec<&'static dyn PrivateServer> = Vec::new();
    for engine in hakari::engine::all() {
        if let Some(s) = engine.private_server() {
            if !servers.iter().any(|k| k.name() == s.name()) {
                servers.push(s);
            }
        }
    }
    assert!(
        servers.len() >= 4,
        "the registry's private servers: {}",
        servers.len()
    );
    for server in servers {
        let topology = match server.name() {
            "PostgreSQL" => Topology::Standbys {
                standbys: 1,
                ack: ReplicaAck::On,
                quorum: 1,
            },
            _ => Topology::Single,
        };
        check(server, topology);
    }
}

/// Run as root, a private server runs as its own system user: a `--data-dir` that user cannot
/// pass through (a `mktemp -d` directory, mode 0700) is refused in one line that names it, not
/// left to the server's page of "Permission denied"; and hakari changes nothing of the user's.
#[test]
fn a_data_dir_the_servers_user_cannot_reach_is_refused_in_one_line() {
    if unsafe { libc::geteuid() } != 0 {
        return; // not root: the servers run as hakari's own user, who made the directory
    }
    let locked = tempfile::tempdir().unwrap();
    std::fs::set_permissions(locked.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let out = tempfile::tempdir().unwrap();
    let dir = locked.path().to_str().unwrap();
    let o = hakari(&[
        "run",
        "tpcb",
        "--engine",
        "mysql",
        "--data-dir",
        dir,
        "--out",
        out.path().to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let refusal = err.lines().find(|l| l.contains("error")).unwrap_or("");
    assert!(
        refusal.contains("cannot reach") && refusal.contains(&format!("chmod o+x {dir}")),
        "{err}"
    );
    assert!(!err.contains("Permission denied"), "{err}");
    let mode = std::fs::metadata(locked.path())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700, "the user's directory left as it was");
}
