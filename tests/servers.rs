//! The private servers start only the programs they declare (`PrivateServer::programs`): the
//! sweep of a killed hakari's directories ends those and nothing else, so a program a server
//! starts but does not declare would outlive a killed hakari. Each server of the engine registry
//! is started for real, one at a time, with a PostgreSQL standby beside (its base backup).

use hakari::durability::Durability;
use hakari::server::topology::{ReplicaAck, Topology};
use hakari::server::{started_programs, PrivateServer, ServerOptions};

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
