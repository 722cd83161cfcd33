//! `mysql`: MariaDB or MySQL through the `mysql` crate, and the tools' clients through
//! MariaDB's own client library (`libmariadb.rs`). With `--url`, hakari works in the URL's
//! database only if it is empty or marked as hakari's (`hakari_owner`); without one it starts a
//! private server (src/server/mariadb/) configured for the durability level.

mod binds;
mod credentials;
mod libmariadb;
mod statistics;
pub mod wire;

use super::kv::Conflict;
use super::sql::{
    Capabilities, Dialect, Lines, Prepared, Row, Rows, ServerError, SqlConnection, SqlDatabase,
    SqlEngine, SqlOptions, SqlValue, Stmt, Visit,
};
use crate::durability::Durability;
use crate::measure::resources;
use crate::results::redact::redact;
use crate::server::mariadb as server;
use crate::server::topology::{Connect, Topology};
use crate::server::{Launched, PrivateServer};
use anyhow::{anyhow, bail, Context, Result};
use mysql::prelude::Queryable;
use mysql::{Conn, Value};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use wire::Wire;

/// A `mysql` crate error as a sentence: its `Display` wraps every error in a debug-like
/// `MySqlError { ... }`.
pub fn describe_error(e: &mysql::Error) -> String {
    match e {
        mysql::Error::MySqlError(m) => format!(
            "{} (MySQL error {}, SQLSTATE {})",
            m.message, m.code, m.state
        ),
        mysql::Error::IoError(io) => io.to_string(),
        mysql::Error::DriverError(d) => d.to_string(),
        mysql::Error::UrlError(u) => u.to_string(),
        mysql::Error::CodecError(c) => c.to_string(),
        other => other.to_string(),
    }
}

pub struct Mysql;

impl SqlEngine for Mysql {
    fn url_schemes(&self) -> &'static [&'static str] {
        &["mysql"]
    }
    fn dialect(&self) -> Option<Dialect> {
        Some(Dialect::Mysql)
    }
    fn mapping(&self, level: Durability) -> std::result::Result<String, String> {
        server::flush_setting(level).map(|n| format!("innodb_flush_log_at_trx_commit={n}"))
    }
    fn private_server(&self) -> Option<&'static dyn crate::server::PrivateServer> {
        Some(&server::PRIVATE)
    }
    fn topologies(&self) -> &'static [crate::server::topology::Kind] {
        &[crate::server::topology::Kind::Galera]
    }
    fn open(&self, options: &SqlOptions) -> Result<Box<dyn SqlDatabase>> {
        open(options, true)
    }
    fn open_as_given(&self, options: &SqlOptions) -> Result<Box<dyn SqlDatabase>> {
        open(options, false)
    }
}

/// Opens MySQL in the URL's database: hakari's own when `claim` (an empty one, or one carrying
/// its marker), else the database as given, nothing claimed or dropped.
fn open(options: &SqlOptions, claim: bool) -> Result<Box<dyn SqlDatabase>> {
    let flush = server::flush_setting(options.durability).map_err(|e| anyhow!(e))?;
    let (wire, server) = match &options.url {
        Some(url) => {
            let wire = Wire::given(url)?;
            if wire.opts().get_db_name().is_none() {
                bail!("the MySQL URL must name a database (mysql://user@host:port/DATABASE)");
            }
            (wire, None)
        }
        None => {
            let root = options.dir.parent().unwrap_or(&options.dir).to_path_buf();
            let s = server::PRIVATE
                .start(&options.dir, &options.server_options(), &root)
                .context("cannot start a private MariaDB server")?;
            (Wire::parse(&s.url)?, Some(s))
        }
    };
    let mut admin = wire
        .connect()
        .map_err(|e| anyhow!("cannot connect to MySQL: {}", redact(&describe_error(&e))))?;
    if server.is_none() {
        // A server hakari did not start keeps its own setting: the level must match it.
        let actual: Option<u8> =
            admin.query_first("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit")?;
        if actual != Some(flush) {
            bail!(
                    "durability '{}' needs innodb_flush_log_at_trx_commit={flush}, but this server has {}; hakari does not change a server it did not start (pick the level that matches, or let hakari start a private server)",
                    options.durability,
                    actual.map(|a| a.to_string()).unwrap_or_else(|| "unknown".into())
                );
        }
    }
    let created_marker = claim && claim_database(&mut admin)?;
    // LOAD DATA LOCAL needs the server's consent; a server given by --url may refuse it.
    let local_infile = admin
        .query_first::<u8, _>("SELECT @@GLOBAL.local_infile")
        .ok()
        .flatten()
        == Some(1);
    // A Galera cluster's clients spread over its nodes, or all go to the first that accepts.
    let spread = matches!(
        options.topology,
        Topology::Galera {
            connect: Connect::RoundRobin,
            ..
        }
    );
    let nodes = match (&server, options.topology) {
        (Some(s), Topology::Galera { .. }) => {
            let urls = s.node_urls();
            urls.iter().map(|u| Wire::parse(u)).collect::<Result<_>>()?
        }
        _ => vec![match &options.url {
            Some(url) => Wire::given(url)?,
            None => Wire::parse(&url_of(&options.url, &server))?,
        }],
    };
    let (tls, encrypted) = wire.describe(&mut admin);
    let statistics = (resources::enabled().then(|| wire.connect().ok()).flatten()).map(|c| {
        let again = wire.clone();
        let reopen: statistics::Reopen = Box::new(move || again.connect().ok());
        resources::register(Box::new(statistics::Statistics::new(c, reopen)))
    });
    // The tools' clients through libmariadb where they reach one server in plaintext.
    let tool_library =
        !encrypted && nodes.len() == 1 && server.as_ref().is_none_or(|s| s.others.is_empty());
    Ok(Box::new(MysqlDatabase {
        _statistics: statistics,
        wire,
        tls,
        tool_library,
        nodes,
        spread,
        next_node: AtomicUsize::new(0),
        server,
        created_marker,
        local_infile,
    }))
}

/// Works in the connection's database only if it is empty or carries hakari's marker table;
/// otherwise refuses, listing what it holds. Returns whether the marker was created now.
fn claim_database(c: &mut Conn) -> Result<bool> {
    let tables: Vec<String> = c.query("SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY 1")?;
    let marked = tables.iter().any(|t| t == "hakari_owner");
    // The results clients leave here (`--out URL`) are hakari's too, and no run touches them.
    let tables: Vec<String> = (tables.into_iter())
        .filter(|t| t != crate::engine::sql::RESULTS_TABLE)
        .collect();
    if !tables.is_empty() && !marked {
        bail!(
            "the database holds tables hakari did not create ({}); hakari works only in an empty database or one it owns, and will not touch them",
            tables.join(", ")
        );
    }
    c.query_drop("CREATE TABLE IF NOT EXISTS hakari_owner (created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, note TEXT)")?;
    c.query_drop("INSERT INTO hakari_owner (note) VALUES ('created by hakari: every table in this database is hakari''s')")?;
    Ok(!marked)
}

/// The URL hakari was given, or its private server's.
fn url_of(given: &Option<String>, server: &Option<Launched>) -> String {
    match (given, server) {
        (Some(url), _) => url.clone(),
        (None, Some(s)) => s.url.clone(),
        (None, None) => String::new(),
    }
}

struct MysqlDatabase {
    wire: Wire,
    /// How the connections reach the server ([`Wire::describe`]).
    tls: String,
    /// The tools' clients connect through libmariadb: in plaintext, to one server (TLS and
    /// clusters stay with the crate).
    tool_library: bool,
    /// The nodes new connections go to (one but for a Galera cluster).
    nodes: Vec<Wire>,
    /// Each new connection to the next node in turn; otherwise to the first that accepts.
    spread: bool,
    next_node: AtomicUsize,
    server: Option<Launched>,
    created_marker: bool,
    /// The server accepts `LOAD DATA LOCAL INFILE`.
    local_infile: bool,
    /// The server's counters in every step's resource readings, while the database is open.
    _statistics: Option<crate::measure::resources::Registration>,
}

impl SqlDatabase for MysqlDatabase {
    fn connect(&self) -> Result<Box<dyn SqlConnection>> {
        // The next of a cluster's nodes in turn (or the first) that accepts: a killed node is
        // passed over.
        let first = match self.spread {
            true => self.next_node.fetch_add(1, Ordering::Relaxed),
            false => 0,
        };
        let n = self.nodes.len();
        let mut tried = self.nodes[first % n].connect();
        for i in 1..n {
            if tried.is_ok() {
                break;
            }
            tried = self.nodes[(first + i) % n].connect();
        }
        let mut conn = tried
            .map_err(|e| anyhow!("cannot connect to MySQL: {}", redact(&describe_error(&e))))?;
        if self.server.as_ref().is_some_and(|s| !s.others.is_empty()) {
            // A Galera node applies other nodes' commits after they return: one causal read
            // makes a new connection's node catch up with everything committed so far (the
            // load, on another node), and later reads run at the cluster's usual setting.
            conn.query_drop("SET SESSION wsrep_sync_wait = 1")?;
            conn.query_drop("SELECT 1")?;
            conn.query_drop("SET SESSION wsrep_sync_wait = 0")?;
        }
        Ok(Box::new(MysqlConnection {
            conn,
            statements: Prepared::default(),
            in_transaction: false,
            local_infile: self.local_infile,
        }))
    }
    fn connect_tool(&self) -> Result<Box<dyn SqlConnection>> {
        match self.tool_library {
            true => Ok(Box::new(libmariadb::Connection::open(
                self.nodes[0].opts(),
            )?)),
            false => self.connect(),
        }
    }
    fn version(&self) -> String {
        (self.wire.connect().ok())
            .and_then(|mut c| {
                c.query_first::<String, _>("SELECT VERSION()")
                    .ok()
                    .flatten()
            })
            .unwrap_or_else(|| "unknown".into())
    }
    fn settings(&self) -> Vec<(String, String)> {
        let mut out = vec![
            (
                "server".into(),
                crate::server::origin(self.server.is_some()).into(),
            ),
            ("tls".into(), self.tls.clone()),
        ];
        if let Ok(mut c) = self.wire.connect() {
            for v in [
                "innodb_flush_log_at_trx_commit",
                "innodb_buffer_pool_size",
                "innodb_doublewrite",
                "sync_binlog",
                "log_bin",
                "version_comment",
                "wsrep_on",
                "wsrep_sync_wait",
            ] {
                if let Ok(Some(value)) =
                    c.query_first::<Option<String>, _>(format!("SELECT CAST(@@GLOBAL.{v} AS CHAR)"))
                {
                    out.push((v.to_string(), value.unwrap_or_default()));
                }
            }
        }
        out
    }
    fn close(self: Box<Self>) -> Result<()> {
        if self.server.is_none() && self.created_marker {
            // Leave the database as found: the marker goes if nothing else of hakari's is left.
            let mut c = self.wire.connect()?;
            let left: Vec<String> = c.exec(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name NOT IN ('hakari_owner', ?)",
                (crate::engine::sql::RESULTS_TABLE,),
            )?;
            if left.is_empty() {
                c.query_drop("DROP TABLE hakari_owner")?;
            }
        }
        drop(self.server);
        Ok(())
    }
    fn replicas(&self) -> Result<Vec<(String, Box<dyn SqlConnection>)>> {
        let Some(server) = &self.server else {
            return Ok(Vec::new());
        };
        let node = |(i, node): (usize, &Launched)| -> Result<(String, Box<dyn SqlConnection>)> {
            let name = format!("Galera node {}", i + 2);
            let mut conn = (Wire::parse(&node.url)?.connect())
                .map_err(|e| anyhow!("cannot connect to {name}: {}", describe_error(&e)))?;
            // Reads on this session wait until the node has applied what the cluster committed.
            conn.query_drop("SET SESSION wsrep_sync_wait = 1")?;
            let connection: Box<dyn SqlConnection> = Box::new(MysqlConnection {
                conn,
                statements: Prepared::default(),
                in_transaction: false,
                local_infile: self.local_infile,
            });
            Ok((name, connection))
        };
        server.others.iter().enumerate().map(node).collect()
    }
}

struct MysqlConnection {
    conn: Conn,
    statements: Prepared<mysql::Statement>,
    /// A transaction opened by `begin` is open (bulk loads join it instead of committing it).
    in_transaction: bool,
    local_infile: bool,
}

fn classify(e: mysql::Error) -> anyhow::Error {
    let lost =
        |e: mysql::Error| anyhow::Error::new(e).context(crate::measure::fault::ConnectionLost);
    match e {
        mysql::Error::MySqlError(m) => server_error(m.code as u32, m.state, m.message),
        mysql::Error::IoError(_) | mysql::Error::CodecError(_) => lost(e),
        mysql::Error::DriverError(
            mysql::DriverError::CouldNotConnect(_) | mysql::DriverError::ConnectTimeout,
        ) => lost(e),
        _ => e.into(),
    }
}

/// An error the server (or the client library) reported, as hakari classifies it: a conflict
/// to retry, a lost connection, or the statement's own failure.
fn server_error(code: u32, state: String, message: String) -> anyhow::Error {
    let server = ServerError {
        code: code as i64,
        shown: format!("MySQL error {code}: {message}"),
        state,
        message,
        details: String::new(),
    };
    // ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT
    if code == 1213 || code == 1205 {
        let said = server.message.clone();
        return anyhow::Error::new(server).context(Conflict(said));
    }
    // ER_SERVER_SHUTDOWN, ER_CONNECTION_KILLED; the client's CR_CONNECTION_ERROR,
    // CR_CONN_HOST_ERROR, CR_SERVER_GONE_ERROR, CR_SERVER_LOST, CR_SERVER_LOST_EXTENDED
    if matches!(code, 1053 | 1927 | 2002 | 2003 | 2006 | 2013 | 2055) {
        return anyhow::Error::new(server).context(crate::measure::fault::ConnectionLost);
    }
    server.into()
}

fn to_value(v: &SqlValue) -> Value {
    match v {
        SqlValue::Null => Value::NULL,
        SqlValue::Int(i) => Value::Int(*i),
        SqlValue::Float(f) => Value::Double(*f),
        SqlValue::Text(s) => Value::Bytes(s.clone().into_bytes()),
        SqlValue::Bytes(b) => Value::Bytes(b.clone()),
    }
}

/// Values from either protocol: the text protocol sends every type as bytes.
fn from_value(v: Value) -> SqlValue {
    match v {
        Value::NULL => SqlValue::Null,
        Value::Int(i) => SqlValue::Int(i),
        Value::UInt(u) => i64::try_from(u)
            .map(SqlValue::Int)
            .unwrap_or(SqlValue::Float(u as f64)),
        Value::Float(f) => SqlValue::Float(f as f64),
        Value::Double(f) => SqlValue::Float(f),
        Value::Bytes(b) => match String::from_utf8(b) {
            Ok(t) => SqlValue::from_text(&t),
            Err(e) => SqlValue::Bytes(e.into_bytes()),
        },
        other => SqlValue::Text(other.as_sql(true).trim_matches('\'').to_string()),
    }
}

/// A literal for a multi-row INSERT.
fn literal(v: &SqlValue, out: &mut String) {
    match v {
        SqlValue::Null => out.push_str("NULL"),
        SqlValue::Int(i) => out.push_str(&i.to_string()),
        SqlValue::Float(f) => out.push_str(&format!("{f:?}")),
        SqlValue::Text(s) => {
            out.push('\'');
            for c in s.chars() {
                match c {
                    '\'' => out.push_str("''"),
                    '\\' => out.push_str("\\\\"),
                    '\0' => out.push_str("\\0"),
                    c => out.push(c),
                }
            }
            out.push('\'');
        }
        SqlValue::Bytes(b) => {
            out.push_str("X'");
            for byte in b {
                out.push_str(&format!("{byte:02x}"));
            }
            out.push('\'');
        }
    }
}

impl SqlConnection for MysqlConnection {
    fn dialect(&self) -> Dialect {
        Dialect::Mysql
    }
    fn execute(&mut self, sql: &str) -> Result<u64> {
        let mut n = 0;
        // The text protocol takes one statement at a time.
        for stmt in sql.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            self.conn.query_drop(stmt).map_err(classify)?;
            n += self.conn.affected_rows();
        }
        Ok(n)
    }
    fn query(&mut self, sql: &str) -> Result<Vec<Row>> {
        let rows: Vec<mysql::Row> = self.conn.query(sql).map_err(classify)?;
        Ok(rows
            .into_iter()
            .map(|r| r.unwrap().into_iter().map(from_value).collect())
            .collect())
    }
    fn prepare(&mut self, sql: &str) -> Result<Stmt> {
        let s = self.conn.prep(sql).map_err(classify)?;
        Ok(self.statements.add(s))
    }
    fn run_prepared(&mut self, stmt: Stmt, params: &[SqlValue]) -> Result<u64> {
        if self.statements.get(stmt)?.num_columns() > 0 {
            // A read's rows counted (the server's OK packet counts none).
            return self.query_prepared(stmt, params, &mut |_| {});
        }
        self.exec_prepared(stmt, params)
    }
    fn exec_prepared(&mut self, stmt: Stmt, params: &[SqlValue]) -> Result<u64> {
        let s = self.statements.get(stmt)?.clone();
        let values: Vec<Value> = params.iter().map(to_value).collect();
        self.conn.exec_drop(&s, values).map_err(classify)?;
        Ok(self.conn.affected_rows())
    }
    fn query_prepared(&mut self, stmt: Stmt, args: &[SqlValue], visit: &mut Visit) -> Result<u64> {
        let s = self.statements.get(stmt)?.clone();
        let values: Vec<Value> = args.iter().map(to_value).collect();
        let rows: Vec<mysql::Row> = self.conn.exec(&s, values).map_err(classify)?;
        let n = rows.len() as u64;
        for r in rows {
            let mut vals: Vec<SqlValue> = r.unwrap().into_iter().map(from_value).collect();
            visit(&mut vals);
        }
        Ok(n)
    }
    fn columns(&mut self, stmt: Stmt) -> Result<Vec<String>> {
        let s = self.statements.get(stmt)?;
        Ok(s.columns()
            .iter()
            .map(|c| c.name_str().into_owned())
            .collect())
    }
    fn begin(&mut self) -> Result<()> {
        self.conn.query_drop("BEGIN").map_err(classify)?;
        self.in_transaction = true;
        Ok(())
    }
    fn commit(&mut self) -> Result<()> {
        self.in_transaction = false;
        self.conn.query_drop("COMMIT").map_err(classify)
    }
    fn rollback(&mut self) -> Result<()> {
        self.in_transaction = false;
        self.conn.query_drop("ROLLBACK").map_err(classify)
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            delimited: self.local_infile,
            pads_char: true,
            clusters_by_key: true,
            ..Capabilities::server()
        }
    }
    /// `LOAD DATA LOCAL INFILE` fed from the batches as they come: the server asks for the
    /// "file" and the handler streams the text (the driver runs it inside the statement, so the
    /// statement runs on a helper thread while this one hands it the batches). The text is
    /// ASCII, the same bytes in the table's character set: `binary` spares the server a
    /// conversion of every field (3.5% of its time loading TPC-H as utf8mb4 into latin1).
    fn bulk_load_delimited(&mut self, table: &str, columns: &[&str], lines: Lines) -> Result<u64> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<String>(4);
        self.conn
            .set_local_infile_handler(Some(mysql::LocalInfileHandler::new(move |_, out| {
                for text in rx.iter() {
                    out.write_all(text.as_bytes())?;
                }
                Ok(())
            })));
        let sql = format!(
            "LOAD DATA LOCAL INFILE 'hakari-stream' INTO TABLE {table} CHARACTER SET binary \
             FIELDS TERMINATED BY '|' LINES TERMINATED BY '|\\n' ({})",
            columns.join(", ")
        );
        let conn = &mut self.conn;
        super::sql::while_statement_runs(
            move || {
                let outcome = conn.query_drop(&sql).map(|_| conn.affected_rows());
                // Dropping the handler drops its receiver: if the statement failed before it
                // read everything, the feeding below stops instead of waiting forever.
                conn.set_local_infile_handler(None);
                outcome.map_err(classify)
            },
            |_| {
                for text in lines {
                    if tx.send(text).is_err() {
                        break;
                    }
                }
                drop(tx);
            },
        )
    }
    /// Multi-row INSERTs of up to ~1MB each, in one transaction (the caller's, when one is open).
    fn bulk_load(&mut self, table: &str, columns: &[&str], rows: &mut Rows) -> Result<u64> {
        let own = !self.in_transaction;
        if own {
            self.begin()?;
        }
        let conn = &mut self.conn;
        let n = insert_rows(table, columns, rows, &mut |sql| {
            conn.query_drop(sql).map_err(classify)
        })?;
        if own {
            self.commit()?;
        }
        Ok(n)
    }
}

/// `rows` as multi-row INSERTs of up to ~1MB each, each handed to `send`.
fn insert_rows(
    table: &str,
    columns: &[&str],
    rows: &mut Rows,
    send: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<u64> {
    let head = format!("INSERT INTO {table} ({}) VALUES ", columns.join(", "));
    let mut sql = String::with_capacity(1 << 20);
    let mut n = 0;
    for row in rows {
        sql.push_str(if sql.is_empty() { &head } else { "," });
        sql.push('(');
        for (i, v) in row.iter().enumerate() {
            if i > 0 {
                sql.push(',');
            }
            literal(v, &mut sql);
        }
        sql.push(')');
        n += 1;
        if sql.len() >= 1 << 20 {
            send(&sql)?;
            sql.clear();
        }
    }
    if !sql.is_empty() {
        send(&sql)?;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_escaped() {
        let mut s = String::new();
        literal(&SqlValue::Text("it's a \\ test".into()), &mut s);
        assert_eq!(s, "'it''s a \\\\ test'");
        s.clear();
        literal(&SqlValue::Bytes(vec![0, 255]), &mut s);
        assert_eq!(s, "X'00ff'");
    }
}
