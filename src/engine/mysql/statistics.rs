//! MariaDB's and MySQL's own counters for a step's resource readings (`measure/resources.rs`):
//! `SHOW GLOBAL STATUS` (redo written, data fsyncs, row lock waits, commits, the buffer pool's
//! reads), and where performance_schema is on, its summary of wait time by event; read on a
//! connection of their own.

use crate::measure::resources::{Carry, Reading, Readings, Source};
use anyhow::Result;
use mysql::prelude::Queryable;
use mysql::Conn;

/// The status variables read, as their figures' readings name them (`mysql.` + lower case).
const VARIABLES: &[&str] = &[
    "Com_commit",
    "Com_rollback",
    "Com_select",
    "Com_insert",
    "Com_update",
    "Com_delete",
    "Innodb_os_log_written",
    "Innodb_data_fsyncs",
    "Innodb_data_written",
    "Innodb_row_lock_waits",
    "Innodb_row_lock_time",
    "Innodb_buffer_pool_read_requests",
    "Innodb_buffer_pool_reads",
    "Handler_commit",
    "Questions",
];

/// Opens another connection to the server for the statistics (None while it is away).
pub type Reopen = Box<dyn Fn() -> Option<Conn> + Send>;

pub struct Statistics {
    conn: Conn,
    /// The server went away (`--fault restart`): the next reading reconnects.
    lost: bool,
    reopen: Reopen,
    /// The server's counters start again from zero when it restarts, and a Galera node reached
    /// in a killed one's place has its own: carried on, from the server read last ([`identity`]).
    carry: Carry,
    server: String,
    /// performance_schema is on: its wait summary is read too.
    waits: bool,
}

impl Statistics {
    /// The status on `conn`, made again with `reopen` after the server went away.
    pub fn new(mut conn: Conn, reopen: Reopen) -> Statistics {
        let on: Option<i64> = conn
            .query_first("SELECT @@performance_schema")
            .ok()
            .flatten();
        let server = identity(&mut conn);
        Statistics {
            conn,
            lost: false,
            reopen,
            carry: Carry::default(),
            server,
            waits: on == Some(1),
        }
    }
}

/// Wait time by instrumented event, in picoseconds, over the server's life (idle waits left out:
/// a session waiting for its client is not the server waiting).
const WAITS: &str = "SELECT EVENT_NAME, SUM_TIMER_WAIT FROM \
     performance_schema.events_waits_summary_global_by_event_name \
     WHERE SUM_TIMER_WAIT > 0 AND EVENT_NAME NOT LIKE 'idle%'";

impl Source for Statistics {
    fn name(&self) -> String {
        "MariaDB/MySQL status".into()
    }

    fn read(&mut self, into: &mut Readings) -> Result<()> {
        let mut another = false;
        if self.lost {
            // Still away: this reading is missed, and the step bridges it.
            let Some(conn) = (self.reopen)() else {
                return Ok(());
            };
            self.conn = conn;
            self.lost = false;
            let reached = identity(&mut self.conn);
            another = reached != self.server;
            self.server = reached;
        }
        let mut own = Readings::new();
        match self.status(&mut own) {
            Err(e) if crate::measure::fault::is_connection_lost(&e) => {
                self.lost = true;
                return Ok(());
            }
            other => other?,
        }
        self.carry.carry(&mut own, another);
        into.extend(own);
        Ok(())
    }
}

/// The server a connection reached, by its host name and port.
fn identity(conn: &mut Conn) -> String {
    (conn.query_first::<String, _>("SELECT CONCAT(@@hostname, ':', @@port)"))
        .ok()
        .flatten()
        .unwrap_or_default()
}

impl Statistics {
    fn status(&mut self, into: &mut Readings) -> Result<()> {
        let list = VARIABLES
            .iter()
            .map(|v| format!("'{v}'"))
            .collect::<Vec<_>>()
            .join(",");
        let rows: Vec<(String, String)> = (self.conn)
            .query(format!(
                "SHOW GLOBAL STATUS WHERE Variable_name IN ({list})"
            ))
            .map_err(super::classify)?;
        for (name, value) in rows {
            if let Ok(v) = value.parse::<f64>() {
                let key = format!("mysql.{}", name.to_ascii_lowercase());
                into.insert(key, Reading::Counter(v));
            }
        }
        if self.waits {
            // An event first waited on during the step was at zero before it: a tally.
            let waits: Vec<(String, u64)> = self.conn.query(WAITS).map_err(super::classify)?;
            for (event, picoseconds) in waits {
                let seconds = Reading::Tally(picoseconds as f64 / 1e12);
                into.insert(format!("mysql.wait.{event}"), seconds);
            }
        }
        Ok(())
    }
}
