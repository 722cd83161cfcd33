//! `postgres`: PostgreSQL through the `postgres` crate. With `--url`, hakari works in its own
//! schema `hakari` inside that database (marked by a `hakari_owner` table); without one it starts
//! a private server (src/server/postgres/) configured for the durability level. A database that
//! speaks PostgreSQL's protocol is a flavour of this engine (`flavour.rs`), not a copy of it.

mod copy;
mod credentials;
pub mod flavour;
mod libpq;
mod statistics;
mod values;
pub mod wire;

use super::kv::Conflict;
use super::sql::{
    Capabilities, Dialect, Lines, Prepared, Row, Rows, ServerError, SqlConnection, SqlDatabase,
    SqlOptions, SqlValue, Stmt, Visit,
};
use crate::durability::Durability;
use crate::measure::resources;
use crate::server::postgres as server;
use crate::server::topology::Topology;
use crate::server::Launched;
use anyhow::{bail, Context, Result};
use copy::{copy_delimited, copy_in, copy_row};
pub use flavour::{Postgres, POSTGRESQL};
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::Type;
use postgres::{Client, SimpleQueryMessage};
use values::{to_param, Param};
use wire::Wire;

/// The schema hakari owns inside a database reached by URL.
const SCHEMA: &str = "hakari";

/// Opens `flavour` working in `schema`, hakari's own (claimed, and dropped at close), or with
/// None in the database as given (its own search path; nothing claimed or dropped).
fn open(
    flavour: &Postgres,
    options: &SqlOptions,
    schema: Option<&'static str>,
) -> Result<Box<dyn SqlDatabase>> {
    let session = session_commit(options)?;
    let given = options.url.as_deref().map(|u| flavour.driver_url(u));
    if let Some(url) = &given {
        Wire::parse(url)?;
    }
    let (url, server) = crate::server::given_or_started(&given, || {
        let Some(private) = flavour.private_server else {
            bail!("hakari starts no {} server: give its --url", flavour.label);
        };
        let root = options.dir.parent().unwrap_or(&options.dir);
        let started = private.start(&options.dir, &options.server_options(), root);
        started.with_context(|| format!("cannot start a private {} server", flavour.label))
    })?;
    // A private cluster's connections reach whichever node takes writes (after a failover, the
    // promoted standby).
    let url = match &server {
        Some(cluster) if !cluster.others.is_empty() => server::standbys::read_write_url(cluster),
        _ => url,
    };
    let wire = Wire::parse(&url)?;
    let mut admin = wire.open()?;
    if server.is_none() {
        check_level_on_foreign_server(&mut admin, options.durability)?;
    }
    if schema.is_some() {
        // Clients of one sharded run claim the schema at once: IF NOT EXISTS still races in
        // PostgreSQL (a unique violation in its catalog), and the second try finds it made.
        let mut tries = 0;
        while let Err(e) = claim_schema(&mut admin) {
            let raced = e
                .downcast_ref::<postgres::Error>()
                .and_then(|e| e.code())
                .is_some_and(|c| *c == postgres::error::SqlState::UNIQUE_VIOLATION);
            tries += 1;
            if !raced || tries == 3 {
                return Err(e);
            }
        }
    }
    let tls = wire.describe(&mut admin);
    let reads = resources::enabled() && flavour.statistics;
    let statistics = (reads.then(|| wire.open().ok()).flatten()).map(|c| {
        let sampler = wire.open().ok();
        let local = server.is_some();
        let again = wire.clone();
        let reopen: statistics::Reopen = std::sync::Arc::new(move || again.open().ok());
        resources::register(Box::new(statistics::Statistics::new(
            c, sampler, local, reopen,
        )))
    });
    Ok(Box::new(PostgresDatabase {
        _statistics: statistics,
        flavour: *flavour,
        url,
        wire,
        tls,
        server,
        schema,
        synchronous_commit: session,
        shared: options.shared,
    }))
}

/// The `synchronous_commit` each session sets: the level's, or what the standbys' acknowledgement
/// asks for (which also waits for the local flush, so `nosync` cannot have one).
fn session_commit(options: &SqlOptions) -> Result<&'static str> {
    let ack = match options.topology {
        Topology::Standbys { ack, .. } => ack.synchronous_commit(),
        _ => None,
    };
    Ok(match (options.durability, ack) {
        (Durability::Nosync, Some(_)) => bail!(
            "durability 'nosync' (synchronous_commit=off) waits for neither the local WAL flush nor a standby; with --replica-ack {} use sync or write-nosync (or --replica-ack async)",
            options.topology
        ),
        (_, Some(ack)) => ack,
        (Durability::Nosync, None) => "off",
        _ => "on",
    })
}

/// What a session of `url` commits at when it sets nothing, as pgbench's sessions do: the
/// level, and the `synchronous_commit` the server's configuration, the role's and the
/// database's settings and libpq's environment (`PGOPTIONS`) give it. Read through libpq, which
/// alone reads `PGOPTIONS`.
pub fn level_as_given(url: &str) -> Result<(Durability, String)> {
    let mut c = libpq::Connection::open(url, "", (POSTGRESQL.capabilities)())?;
    let mut show = |name: &str| -> Result<String> {
        let rows = c.query(&format!("SHOW {name}"))?;
        match rows.first().and_then(|r| r.first()) {
            Some(SqlValue::Text(v)) => Ok(v.clone()),
            _ => bail!("PostgreSQL gave no value for SHOW {name}"),
        }
    };
    let (fsync, commit) = (show("fsync")?, show("synchronous_commit")?);
    let level = match (commit.as_str(), fsync.as_str()) {
        ("off", _) => Durability::Nosync,
        (_, "off") => Durability::WriteNosync,
        _ => Durability::Sync,
    };
    Ok((level, commit))
}

/// On a server hakari did not start, only per-session settings can be made; `write-nosync`
/// needs fsync=off on the server itself.
fn check_level_on_foreign_server(c: &mut Client, level: Durability) -> Result<()> {
    if level == Durability::WriteNosync {
        let fsync = show(c, "fsync")?;
        if fsync != "off" {
            bail!("durability 'write-nosync' needs fsync=off on the PostgreSQL server, which hakari cannot set on a server it did not start (it is '{fsync}'); use sync or nosync, or let hakari start a private server");
        }
    }
    Ok(())
}

fn show(c: &mut Client, name: &str) -> Result<String> {
    Ok(c.query_one(&format!("SHOW {name}"), &[])?
        .get::<_, String>(0))
}

/// Works only in schema `hakari`: creates it with a marker table, or reuses it if it carries the
/// marker; a `hakari` schema holding anything else is refused, listing what it holds.
fn claim_schema(c: &mut Client) -> Result<()> {
    let tables: Vec<String> = c
        .query(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
            &[&SCHEMA],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect();
    if !tables.is_empty() && !tables.iter().any(|t| t == "hakari_owner") {
        bail!(
            "schema '{SCHEMA}' in this database holds tables hakari did not create ({}); hakari works only in a schema it owns and will not touch them",
            tables.join(", ")
        );
    }
    c.batch_execute(&format!(
        "CREATE SCHEMA IF NOT EXISTS {SCHEMA}; \
         CREATE TABLE IF NOT EXISTS {SCHEMA}.hakari_owner (created_at TIMESTAMP NOT NULL DEFAULT now(), note TEXT); \
         INSERT INTO {SCHEMA}.hakari_owner (note) VALUES ('created by hakari: every table in this schema is hakari''s')"
    ))?;
    Ok(())
}

struct PostgresDatabase {
    flavour: Postgres,
    /// The server's URL (a private cluster's: every node's, reaching the one that takes
    /// writes), for its standbys.
    url: String,
    wire: Wire,
    /// How the connections reach the server ([`Wire::describe`]).
    tls: String,
    server: Option<Launched>,
    /// hakari's own schema; None: the database as the user gave it.
    schema: Option<&'static str>,
    synchronous_commit: &'static str,
    /// Other clients work in the schema too; the one that loaded it drops it.
    shared: bool,
    /// The server's counters in every step's resource readings, while the database is open.
    _statistics: Option<crate::measure::resources::Registration>,
}

impl PostgresDatabase {
    /// What each session sets first: hakari's schema (when it has one) and the level's
    /// `synchronous_commit`.
    fn session_setup(&self) -> String {
        let commit = format!("SET synchronous_commit = {}", self.synchronous_commit);
        match self.schema {
            Some(schema) => format!("SET search_path = {schema}; {commit}"),
            None => commit,
        }
    }
}

impl SqlDatabase for PostgresDatabase {
    fn connect(&self) -> Result<Box<dyn SqlConnection>> {
        let mut client = self.wire.open()?;
        client.batch_execute(&self.session_setup())?;
        Ok(Box::new(PostgresConnection {
            client,
            statements: Prepared::default(),
            capabilities: (self.flavour.capabilities)(),
        }))
    }
    fn connect_tool(&self) -> Result<Box<dyn SqlConnection>> {
        let capabilities = (self.flavour.capabilities)();
        let setup = self.session_setup();
        Ok(Box::new(libpq::Connection::open(
            &self.url,
            &setup,
            capabilities,
        )?))
    }
    fn version(&self) -> String {
        (self.wire.connect().ok())
            .and_then(|mut c| show(&mut c, "server_version").ok())
            .unwrap_or_else(|| "unknown".into())
    }
    fn settings(&self) -> Vec<(String, String)> {
        let mut out = vec![
            (
                "server".into(),
                crate::server::origin(self.server.is_some()).into(),
            ),
            ("schema".into(), self.schema.unwrap_or("as given").into()),
            (
                "synchronous_commit (session)".into(),
                self.synchronous_commit.into(),
            ),
            ("tls".into(), self.tls.clone()),
        ];
        if let Ok(mut c) = self.wire.connect() {
            for &name in self.flavour.settings {
                if let Ok(v) = show(&mut c, name) {
                    out.push((name.into(), v));
                }
            }
        }
        out
    }
    fn close(self: Box<Self>) -> Result<()> {
        if let (None, Some(schema), false) = (&self.server, self.schema, self.shared) {
            // Everything in the schema is hakari's: the marker table said so when it was claimed.
            // Tables an earlier run kept (`--keep`) stay, and the schema with them.
            let mut c = self.wire.open()?;
            let kept = format!("SELECT to_regclass('{schema}.hakari_kept') IS NOT NULL");
            if !c.query_one(&kept, &[])?.get::<_, bool>(0) {
                c.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"))?;
            }
        }
        drop(self.server);
        Ok(())
    }
    fn replicas(&self) -> Result<Vec<(String, Box<dyn SqlConnection>)>> {
        let Some(server) = &self.server else {
            return Ok(Vec::new());
        };
        let standby =
            |(name, mut client): (String, Client)| -> Result<(String, Box<dyn SqlConnection>)> {
                if let Some(schema) = self.schema {
                    client.batch_execute(&format!("SET search_path = {schema}"))?;
                }
                let connection: Box<dyn SqlConnection> = Box::new(PostgresConnection {
                    client,
                    statements: Prepared::default(),
                    capabilities: (self.flavour.capabilities)(),
                });
                Ok((name, connection))
            };
        let standbys = server::standbys::caught_up(server, &self.url)?;
        standbys.into_iter().map(standby).collect()
    }
}

struct PostgresConnection {
    client: Client,
    statements: Prepared<postgres::Statement>,
    /// As its flavour declares them.
    capabilities: Capabilities,
}

/// Rewrites `?` placeholders (outside quotes) as `$1`, `$2`, ...
pub fn numbered_placeholders(sql: &str) -> String {
    replace_placeholders(sql, |n, out| out.push_str(&format!("${}", n + 1)))
}

/// `sql` with placeholder `n` (from 0, outside quotes) written by `put`.
fn replace_placeholders(sql: &str, mut put: impl FnMut(usize, &mut String)) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let (mut n, mut quoted) = (0, false);
    for c in sql.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                out.push(c);
            }
            '?' if !quoted => {
                put(n, &mut out);
                n += 1;
            }
            c => out.push(c),
        }
    }
    out
}

/// A pipeline's statements as one simple-protocol query string, their values as literals.
fn pipeline_text(batch: &[(String, Vec<SqlValue>)]) -> Result<String> {
    let mut text = String::new();
    for (sql, values) in batch {
        text.push_str(&with_literals(sql, values)?);
        text.push_str(";\n");
    }
    Ok(text)
}

/// `sql` with each placeholder replaced by its value as a quoted literal of unknown type,
/// which the server types from its context as it types an untyped text parameter.
fn with_literals(sql: &str, values: &[SqlValue]) -> Result<String> {
    let mut count = 0;
    let text = replace_placeholders(sql, |n, out| {
        count = n + 1;
        let text = match values.get(n) {
            None | Some(SqlValue::Null) => return out.push_str("NULL"),
            Some(SqlValue::Int(i)) => i.to_string(),
            Some(SqlValue::Float(f)) => f.to_string(),
            Some(SqlValue::Text(t)) => t.clone(),
            Some(SqlValue::Bytes(b)) => String::from_utf8_lossy(b).into_owned(),
        };
        out.push('\'');
        out.push_str(&text.replace('\'', "''"));
        out.push('\'');
    });
    if count != values.len() {
        bail!("statement takes {count} values, {} given", values.len());
    }
    Ok(text)
}

fn classify(e: postgres::Error) -> anyhow::Error {
    let Some(db) = e.as_db_error() else {
        let io = std::error::Error::source(&e).is_some_and(|s| s.is::<std::io::Error>());
        if e.is_closed() || io {
            return anyhow::Error::new(e).context(crate::measure::fault::ConnectionLost);
        }
        return e.into();
    };
    let server = server_error(
        db.code().code().to_string(),
        db.message().to_string(),
        [db.detail(), db.hint(), db.where_()].map(|t| t.map(str::to_string)),
    );
    by_state(server, |_| e.to_string(), false)
}

/// The server's error: its SQLSTATE, its message, and the DETAIL, HINT and CONTEXT it gave.
fn server_error(state: String, message: String, more: [Option<String>; 3]) -> ServerError {
    let labels = ["DETAIL", "HINT", "CONTEXT"];
    ServerError {
        code: 0,
        state,
        details: (labels.iter().zip(more))
            .filter_map(|(label, text)| text.map(|t| format!("\n{label}:  {t}")))
            .collect(),
        shown: format!("PostgreSQL: {message}"),
        message,
    }
}

/// The server's error as both PostgreSQL connections classify it: a serialization failure or
/// deadlock is a [`Conflict`] (`conflict` says it), the server shutting down or starting up
/// (class 57P), the connection's own class (08) or a connection `lost` is a lost connection.
fn by_state(
    server: ServerError,
    conflict: impl FnOnce(&ServerError) -> String,
    lost: bool,
) -> anyhow::Error {
    let state = server.state.as_str();
    if state == "40001" || state == "40P01" {
        let said = conflict(&server);
        return anyhow::Error::new(server).context(Conflict(said));
    }
    if lost || state.starts_with("57P") || state.starts_with("08") {
        return anyhow::Error::new(server).context(crate::measure::fault::ConnectionLost);
    }
    server.into()
}

impl PostgresConnection {
    fn statement(&self, stmt: Stmt) -> Result<postgres::Statement> {
        self.statements.get(stmt).cloned()
    }
    /// The statement's parameters, converted as the driver sends them (no vector of them made).
    fn params<'a>(
        stmt: &'a postgres::Statement,
        values: &'a [SqlValue],
    ) -> Result<impl ExactSizeIterator<Item = Param<'a>>> {
        if stmt.params().len() != values.len() {
            bail!(
                "statement takes {} parameters, {} given",
                stmt.params().len(),
                values.len()
            );
        }
        Ok(values
            .iter()
            .zip(stmt.params())
            .map(|(v, t)| to_param(v, t)))
    }
}

impl SqlConnection for PostgresConnection {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }
    fn execute(&mut self, sql: &str) -> Result<u64> {
        // The simple protocol: one round trip (`execute(sql, &[])` would prepare first, two),
        // as libpq's PQexec and pgbench's simple query mode send a statement.
        let single = !sql.trim().trim_end_matches(';').contains(';');
        if single {
            let done = self.client.simple_query(sql).map_err(classify)?;
            Ok((done.iter())
                .map(|m| match m {
                    SimpleQueryMessage::CommandComplete(n) => *n,
                    _ => 0,
                })
                .sum())
        } else {
            self.client.batch_execute(sql).map_err(classify)?;
            Ok(0)
        }
    }
    fn query(&mut self, sql: &str) -> Result<Vec<Row>> {
        // The simple protocol returns text for every type (numeric included); numbers are parsed.
        let mut rows = Vec::new();
        for msg in self.client.simple_query(sql).map_err(classify)? {
            if let SimpleQueryMessage::Row(r) = msg {
                rows.push(
                    (0..r.len())
                        .map(|i| match r.get(i) {
                            None => SqlValue::Null,
                            Some(t) => SqlValue::from_text(t),
                        })
                        .collect(),
                );
            }
        }
        Ok(rows)
    }
    fn prepare(&mut self, sql: &str) -> Result<Stmt> {
        let s = self
            .client
            .prepare(&numbered_placeholders(sql))
            .map_err(classify)?;
        Ok(self.statements.add(s))
    }
    fn exec_prepared(&mut self, stmt: Stmt, params: &[SqlValue]) -> Result<u64> {
        let s = self.statement(stmt)?;
        let p = Self::params(&s, params)?;
        // As `execute` does, with no slice of references to build first.
        let mut rows = self.client.query_raw(&s, p).map_err(classify)?;
        while rows.next().map_err(classify)?.is_some() {}
        Ok(rows.rows_affected().unwrap_or(0))
    }
    fn run_prepared(&mut self, stmt: Stmt, params: &[SqlValue]) -> Result<u64> {
        // The rows are counted by the server's command tag, never converted.
        self.exec_prepared(stmt, params)
    }
    fn query_prepared(&mut self, stmt: Stmt, args: &[SqlValue], visit: &mut Visit) -> Result<u64> {
        let s = self.statement(stmt)?;
        let p = Self::params(&s, args)?;
        let rows = self.client.query_raw(&s, p).map_err(classify)?;
        Ok(values::each_row(rows, visit)?.0)
    }
    fn query_unnamed(&mut self, sql: &str, params: &[SqlValue], visit: &mut Visit) -> Result<u64> {
        // Every value as text of a type the server infers, as PQexecParams sends it.
        let typed = params
            .iter()
            .map(|v| (to_param(v, &Type::UNKNOWN), Type::UNKNOWN));
        let sql = numbered_placeholders(sql);
        let rows = self.client.query_typed_raw(&sql, typed).map_err(classify)?;
        Ok(values::each_row(rows, visit)?.1)
    }
    fn columns(&mut self, stmt: Stmt) -> Result<Vec<String>> {
        let s = self.statement(stmt)?;
        Ok(s.columns().iter().map(|c| c.name().to_string()).collect())
    }
    fn begin(&mut self) -> Result<()> {
        self.client.batch_execute("BEGIN").map_err(classify)
    }
    fn commit(&mut self) -> Result<()> {
        self.client.batch_execute("COMMIT").map_err(classify)
    }
    fn rollback(&mut self) -> Result<()> {
        self.client.batch_execute("ROLLBACK").map_err(classify)
    }
    fn capabilities(&self) -> Capabilities {
        self.capabilities
    }
    /// The batch as one simple-protocol query string, the values in it as literals: one round
    /// trip and one implicit transaction, what an extended-protocol pipeline up to its sync
    /// gives (the postgres crate sends no pipeline of prepared statements).
    fn send_pipeline(&mut self, batch: &[(String, Vec<SqlValue>)]) -> Result<()> {
        let text = pipeline_text(batch)?;
        self.client.batch_execute(&text).map_err(classify)
    }
    /// COPY ... FROM STDIN in text format: PostgreSQL's fast path.
    fn bulk_load(&mut self, table: &str, columns: &[&str], rows: &mut Rows) -> Result<u64> {
        let sql = format!("COPY {table} ({}) FROM STDIN", columns.join(", "));
        copy_in(&mut self.client, &sql, rows, copy_row)
    }

    fn bulk_load_delimited(&mut self, table: &str, columns: &[&str], lines: Lines) -> Result<u64> {
        copy_delimited(&mut self.client, table, columns, lines, "")
    }

    fn refill_delimited(&mut self, table: &str, columns: &[&str], lines: Lines) -> Result<u64> {
        let mut t = self.client.transaction().map_err(classify)?;
        t.batch_execute(&format!("TRUNCATE {table}"))
            .map_err(classify)?;
        let n = copy_delimited(&mut t, table, columns, lines, ", FREEZE")?;
        t.commit().map_err(classify)?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_outside_quotes() {
        assert_eq!(
            numbered_placeholders("UPDATE t SET a = a + ? WHERE id = ?"),
            "UPDATE t SET a = a + $1 WHERE id = $2"
        );
        assert_eq!(numbered_placeholders("SELECT '?', ?"), "SELECT '?', $1");
    }

    #[test]
    fn pipelined_values_are_quoted_literals() {
        let values = [
            SqlValue::Int(-5),
            SqlValue::Text("it's".into()),
            SqlValue::Null,
        ];
        assert_eq!(
            with_literals("SELECT ?, '?', ?, ?", &values).unwrap(),
            "SELECT '-5', '?', 'it''s', NULL"
        );
        assert!(with_literals("SELECT ?", &values).is_err());
    }
}
