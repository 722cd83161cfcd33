//! Redis's own counters for a step's resource readings (`measure/resources.rs`), from `INFO`
//! on each server or cluster node, summed.

use anyhow::{bail, Result};

/// Registers the statistics of the server at `url`, which `con` reaches, or of every node a
/// cluster names.
pub(super) fn register(
    url: &str,
    con: redis::Connection,
    nodes: Option<&[String]>,
    reach: &super::Reach,
) -> crate::measure::resources::Registration {
    let nodes = match nodes {
        None => vec![Node {
            client: reach.client(url).ok(),
            con: Some(con),
            last: Default::default(),
        }],
        Some(urls) => (urls.iter())
            .filter_map(|u| reach.client(u).ok())
            .map(|client| Node {
                con: client.get_connection().ok(),
                client: Some(client),
                last: Default::default(),
            })
            .collect(),
    };
    crate::measure::resources::register(Box::new(Statistics(nodes)))
}

/// Its CPU, the commands it processed, key hits and misses, summed over the nodes (a cluster
/// given by `--url`: the seed nodes it names).
struct Statistics(Vec<Node>);

/// One server read: how to reach it again, its connection (none while it does not answer) and
/// what it counted at its last answer, which stands for it while it does not answer (a node
/// killed, or stalled, by a fault).
struct Node {
    client: Option<redis::Client>,
    con: Option<redis::Connection>,
    last: std::collections::BTreeMap<&'static str, f64>,
}

/// How long a reading waits for a node: one that stops answering must not hold the collecting
/// thread.
const PATIENCE: std::time::Duration = std::time::Duration::from_millis(500);

impl Node {
    /// Reads the node's counters into `last`; false when it does not answer.
    fn read(&mut self) -> bool {
        if self.con.is_none() {
            self.con =
                (self.client.as_ref()).and_then(|c| c.get_connection_with_timeout(PATIENCE).ok());
        }
        let Some(con) = self.con.as_mut() else {
            return false;
        };
        // Set on each connection, the given one too.
        con.set_read_timeout(Some(PATIENCE)).ok();
        let Ok(info) = redis::cmd("INFO").query::<String>(con) else {
            self.con = None;
            return false;
        };
        for line in info.lines() {
            let Some((name, value)) = line.trim_end().split_once(':') else {
                continue;
            };
            let reading = match name {
                "used_cpu_user" => "redis.cpu_user_s",
                "used_cpu_sys" => "redis.cpu_system_s",
                "total_commands_processed" => "redis.commands",
                "keyspace_hits" => "redis.keyspace_hits",
                "keyspace_misses" => "redis.keyspace_misses",
                _ => continue,
            };
            if let Ok(v) = value.parse::<f64>() {
                self.last.insert(reading, v);
            }
        }
        true
    }
}

impl crate::measure::resources::Source for Statistics {
    fn name(&self) -> String {
        "Redis INFO".into()
    }
    fn read(&mut self, into: &mut crate::measure::resources::Readings) -> Result<()> {
        let mut answered = false;
        for node in &mut self.0 {
            answered |= node.read();
        }
        if !answered && self.0.iter().all(|n| n.last.is_empty()) {
            bail!("no Redis server answered INFO");
        }
        let mut sums = std::collections::BTreeMap::new();
        for (name, v) in self.0.iter().flat_map(|n| &n.last) {
            *sums.entry(*name).or_insert(0.0) += v;
        }
        for (name, v) in sums {
            into.insert(name.into(), crate::measure::resources::Reading::Counter(v));
        }
        Ok(())
    }
}
