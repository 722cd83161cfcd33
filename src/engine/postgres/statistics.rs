//! PostgreSQL's own counters for a step's resource readings (`measure/resources.rs`): the
//! database's transactions and blocks (`pg_stat_database`), WAL written (the insert position,
//! exact at every reading) and its writes and syncs (`pg_stat_wal`), checkpoints. Read on a
//! connection of their own, so their few statements are the readings' only cost to the server.

use crate::measure::resources::{self, note, Carry, Reading, Readings, Source};
use anyhow::Result;
use postgres::Client;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Opens another connection to the server for the statistics (None while it is away).
pub type Reopen = Arc<dyn Fn() -> Option<Client> + Send + Sync>;

pub struct Statistics {
    client: Client,
    /// The server went away (`--fault restart`): the next reading reconnects.
    lost: bool,
    reopen: Reopen,
    local: bool,
    /// What the server's client backends were waiting on, sampled several times a second.
    waits: Option<Waits>,
    /// pg_stat_wal and pg_stat_bgwriter: absent before PostgreSQL 14, or not readable; once they
    /// fail they are not asked again.
    wal: bool,
    checkpoints: bool,
    /// The server processes of the two statistics sessions, when the server runs on this
    /// machine (a private one): what reading costs the server, from /proc.
    backends: Vec<i32>,
    /// The counters carried on since the server went away, and whether the next reading is
    /// the first from another server (a standby promoted in the primary's place).
    carry: Carry,
    rebase: bool,
    /// The server the counters are read from ([`identity`]).
    server: String,
}

impl Statistics {
    /// The counters on `client`; the wait events on `sampler`, a connection of its own; both
    /// made again with `reopen` after the server went away. `local`: the server is hakari's
    /// own, on this machine, so its processes are in /proc.
    pub fn new(
        mut client: Client,
        mut sampler: Option<Client>,
        local: bool,
        reopen: Reopen,
    ) -> Statistics {
        let mut backends = Vec::new();
        if local {
            for c in std::iter::once(&mut client).chain(sampler.as_mut()) {
                if let Ok(row) = c.query_one("SELECT pg_backend_pid()", &[]) {
                    backends.push(row.get(0));
                }
            }
        }
        let server = identity(&mut client);
        Statistics {
            client,
            lost: false,
            waits: sampler.map(|c| Waits::start(c, reopen.clone())),
            reopen,
            local,
            wal: true,
            checkpoints: true,
            backends,
            carry: Carry::default(),
            rebase: false,
            server,
        }
    }

    /// A connection made again after the server went away; false while it is still away.
    fn reconnect(&mut self) -> bool {
        let Some(client) = (self.reopen)() else {
            return false;
        };
        self.client = client;
        self.lost = false;
        // Another server (a standby promoted in the primary's place) counts from its own start.
        let reached = identity(&mut self.client);
        self.rebase = reached != self.server;
        self.server = reached;
        if let (true, Some(first)) = (self.local, self.backends.first_mut()) {
            if let Ok(row) = self.client.query_one("SELECT pg_backend_pid()", &[]) {
                *first = row.get(0);
            }
        }
        true
    }

    /// The server's counters as it has them.
    fn read_counters(&mut self, into: &mut Readings) -> Result<()> {
        // Still away: this reading is missed, and the step bridges it.
        if self.lost && !self.reconnect() {
            return Ok(());
        }
        let row = match self.client.query_one(DATABASE, &[]) {
            Ok(row) => row,
            // Gone since the last reading: read at once where it is back (a failover's promoted
            // standby, which takes writes before the fault's reading after it).
            Err(e) if gone(&e) => {
                self.lost = true;
                match self
                    .reconnect()
                    .then(|| self.client.query_one(DATABASE, &[]))
                {
                    Some(Ok(row)) => row,
                    _ => return Ok(()),
                }
            }
            Err(e) => return Err(e.into()),
        };
        let names = [
            "postgres.xact_commit",
            "postgres.xact_rollback",
            "postgres.blks_read",
            "postgres.blks_hit",
            "postgres.tup_inserted",
            "postgres.tup_updated",
            "postgres.tup_deleted",
            "postgres.wal_bytes",
            "postgres.xids",
        ];
        for (i, name) in names.into_iter().enumerate() {
            if let Some(v) = row.get::<_, Option<f64>>(i) {
                into.insert(name.into(), Reading::Counter(v));
            }
        }
        let cost: Vec<f64> = (self.backends.iter())
            .filter_map(|p| resources::process_cpu_s(*p))
            .collect();
        if !cost.is_empty() {
            let cost = Reading::Counter(cost.iter().sum());
            into.insert("readings.server_cpu_s".into(), cost);
        }
        if let Some(waits) = &self.waits {
            let counts = waits.counts.lock().unwrap_or_else(|e| e.into_inner());
            for (event, n) in counts.iter() {
                into.insert(format!("postgres.wait.{event}"), Reading::Tally(*n));
            }
        }
        if self.wal {
            match self.client.query_one(
                "SELECT wal_records::float8, wal_write::float8, wal_sync::float8 FROM pg_stat_wal",
                &[],
            ) {
                Ok(row) => {
                    for (i, name) in [
                        "postgres.wal_records",
                        "postgres.wal_write",
                        "postgres.wal_sync",
                    ]
                    .into_iter()
                    .enumerate()
                    {
                        into.insert(name.into(), Reading::Counter(row.get(i)));
                    }
                }
                Err(e) if gone(&e) => self.lost = true,
                Err(e) => {
                    self.wal = false;
                    note(format!("PostgreSQL's pg_stat_wal could not be read ({e}): no WAL syncs per operation"));
                }
            }
        }
        if self.checkpoints {
            match self.client.query_one(
                "SELECT (checkpoints_timed + checkpoints_req)::float8 FROM pg_stat_bgwriter",
                &[],
            ) {
                Ok(row) => {
                    into.insert("postgres.checkpoints".into(), Reading::Counter(row.get(0)));
                }
                Err(e) if gone(&e) => self.lost = true,
                Err(e) => {
                    self.checkpoints = false;
                    note(format!(
                        "PostgreSQL's checkpoint count could not be read ({e})"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The server a connection reached, by its address and port.
fn identity(client: &mut Client) -> String {
    (client.query_one(
        "SELECT coalesce(host(inet_server_addr()), 'socket') || ':' || coalesce(inet_server_port(), 0)",
        &[],
    ))
    .map_or_else(|_| String::new(), |row| row.get(0))
}

/// Whether an error says the server went away (a restart, `--fault restart`): the connection
/// closed or broken, or the server shutting down or starting up (SQLSTATE classes 57P and 08).
fn gone(e: &postgres::Error) -> bool {
    match e.code() {
        Some(c) => c.code().starts_with("57P") || c.code().starts_with("08"),
        None => e.is_closed() || e.as_db_error().is_none(),
    }
}

/// How often the wait events are sampled.
const WAIT_EVERY: Duration = Duration::from_millis(100);

/// The active client backends' wait events, sampled from `pg_stat_activity` every
/// [`WAIT_EVERY`] on a thread of their own (a step's readings come once an interval, too seldom
/// for waits): a count per event, a backend on the CPU counted as `CPU:running`.
struct Waits {
    counts: Arc<Mutex<BTreeMap<String, f64>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

const ACTIVITY: &str =
    "SELECT coalesce(wait_event_type, 'CPU') || ':' || coalesce(wait_event, 'running'), \
     count(*)::float8 FROM pg_stat_activity WHERE state = 'active' \
     AND backend_type = 'client backend' AND pid <> pg_backend_pid() GROUP BY 1";

impl Waits {
    fn start(mut client: Client, reopen: Reopen) -> Waits {
        let counts = Arc::new(Mutex::new(BTreeMap::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (c, s) = (counts.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            // Prepared once per connection: a sample is then one round trip, not a parse too.
            let mut statement = None;
            while !s.load(Ordering::Relaxed) {
                let started = resources::thread_cpu_ns();
                if statement.is_none() {
                    statement = client.prepare(ACTIVITY).ok();
                }
                let rows = match &statement {
                    Some(statement) => client.query(statement, &[]).ok(),
                    None => None,
                };
                let Some(rows) = rows else {
                    // The server went away (a restart): sample again once it is back.
                    std::thread::sleep(WAIT_EVERY);
                    if let Some(again) = reopen() {
                        client = again;
                        statement = None;
                    }
                    continue;
                };
                let mut counts = c.lock().unwrap_or_else(|e| e.into_inner());
                for row in rows {
                    *counts.entry(row.get::<_, String>(0)).or_insert(0.0) += row.get::<_, f64>(1);
                }
                drop(counts);
                resources::charge(resources::thread_cpu_ns().saturating_sub(started));
                std::thread::sleep(WAIT_EVERY);
            }
        });
        Waits {
            counts,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Waits {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

const DATABASE: &str = "SELECT xact_commit::float8, xact_rollback::float8, blks_read::float8, \
     blks_hit::float8, tup_inserted::float8, tup_updated::float8, tup_deleted::float8, \
     pg_wal_lsn_diff(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() \
     ELSE pg_current_wal_insert_lsn() END, '0/0')::float8, \
     pg_snapshot_xmax(pg_current_snapshot())::text::float8 \
     FROM pg_stat_database WHERE datname = current_database()";

impl Source for Statistics {
    fn name(&self) -> String {
        "PostgreSQL statistics".into()
    }

    fn read(&mut self, into: &mut Readings) -> Result<()> {
        let mut own = Readings::new();
        self.read_counters(&mut own)?;
        if !own.is_empty() {
            self.carry.carry(&mut own, std::mem::take(&mut self.rebase));
        }
        into.extend(own);
        Ok(())
    }
}
