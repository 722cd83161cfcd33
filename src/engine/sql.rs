//! The SQL engine contract, beside the key-value one: open a database hakari owns, connect one
//! handle per client, prepared statements with typed parameters, transactions, row fetching and
//! each engine's bulk-load fast path. Dialect differences are named by [`Dialect`] so workloads can
//! keep their SQL in files, one per dialect where it must differ.

use crate::durability::Durability;
use anyhow::Result;
use std::borrow::Cow;
use std::path::PathBuf;

/// A typed SQL value, for parameters and for fetched rows.
#[derive(Debug, PartialEq)]
pub enum SqlValue {
    Null,
    Int(i64),
    Float(f64),
    Text(String),
    Bytes(Vec<u8>),
}

impl Clone for SqlValue {
    fn clone(&self) -> Self {
        match self {
            SqlValue::Null => SqlValue::Null,
            SqlValue::Int(i) => SqlValue::Int(*i),
            SqlValue::Float(f) => SqlValue::Float(*f),
            SqlValue::Text(t) => SqlValue::Text(t.clone()),
            SqlValue::Bytes(b) => SqlValue::Bytes(b.clone()),
        }
    }

    /// Text over text (bytes over bytes) keeps the allocation: a parameter set again and again
    /// allocates nothing.
    fn clone_from(&mut self, source: &Self) {
        match (self, source) {
            (SqlValue::Text(kept), SqlValue::Text(t)) => kept.clone_from(t),
            (SqlValue::Bytes(kept), SqlValue::Bytes(b)) => kept.clone_from(b),
            (me, other) => *me = other.clone(),
        }
    }
}

impl SqlValue {
    /// A value a driver gave as text: a number when it reads as one, else text.
    pub fn from_text(text: &str) -> SqlValue {
        if let Ok(i) = text.parse::<i64>() {
            SqlValue::Int(i)
        } else if let Ok(f) = text.parse::<f64>() {
            SqlValue::Float(f)
        } else {
            SqlValue::Text(text.to_string())
        }
    }
}

pub type Row = Vec<SqlValue>;

/// A read's rows kept as the client library received them, each value read only when asked:
/// what a C tool's driver keeps for a script to fetch (sysbench's PostgreSQL driver keeps
/// libpq's result).
pub trait Kept {
    fn rows(&self) -> usize;
    fn columns(&self) -> usize;
    /// The value at row `r`, column `i` (both in range) in the library's form (text, or the
    /// server's binary form where the read asked for it); None for NULL.
    fn value(&self, r: usize, i: usize) -> Option<Cow<'_, [u8]>>;
}

/// Rows already made into values: what a driver with nothing of its own to keep hands over.
impl Kept for Vec<Row> {
    fn rows(&self) -> usize {
        self.len()
    }
    fn columns(&self) -> usize {
        self.first().map_or(0, Vec::len)
    }
    fn value(&self, r: usize, i: usize) -> Option<Cow<'_, [u8]>> {
        match &self[r][i] {
            SqlValue::Null => None,
            SqlValue::Int(v) => Some(Cow::Owned(v.to_string().into_bytes())),
            SqlValue::Float(f) => Some(Cow::Owned(f.to_string().into_bytes())),
            SqlValue::Text(t) => Some(Cow::Borrowed(t.as_bytes())),
            SqlValue::Bytes(b) => Some(Cow::Borrowed(b)),
        }
    }
}

/// The table of hakari's own where clients that share no disk leave their results in the
/// database they ran against (`results_table`); an engine that claims a database counts it
/// as hakari's, and no run touches it.
pub const RESULTS_TABLE: &str = "hakari_results";

/// An error the server returned, with its codes, for a workload that decides by them (a
/// sysbench script's ignorable errors): MariaDB/MySQL's error number, the SQLSTATE. It shows as
/// `shown`, the engine's own words.
#[derive(Debug)]
pub struct ServerError {
    pub code: i64,
    pub state: String,
    pub message: String,
    /// What follows the message in the server's words, each on a line of its own as libpq
    /// prints it (`\nDETAIL:  ...\nHINT:  ...\nCONTEXT:  ...`); empty when there is none.
    pub details: String,
    pub shown: String,
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

impl std::error::Error for ServerError {}

/// `INSERT INTO table (a, b) VALUES (?, ?)`, for engines whose bulk path is prepared inserts.
pub fn insert_sql(table: &str, columns: &[&str]) -> String {
    format!(
        "INSERT INTO {table} ({}) VALUES ({})",
        columns.join(", "),
        vec!["?"; columns.len()].join(", ")
    )
}

/// Which SQL text a workload must use for an engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// SQLite and Berkeley DB's SQL interface (which is SQLite's front end).
    Sqlite,
    Postgres,
    Mysql,
    Duckdb,
    /// Oracle Database, reached through odbc (written from its documentation, untested).
    Oracle,
    /// Actian Zen, formerly Pervasive PSQL, reached through odbc (untested).
    Zen,
    /// Any other DBMS reached through odbc: the SQL standard's forms.
    Standard,
}

impl Dialect {
    pub const ALL: [Dialect; 7] = [
        Dialect::Sqlite,
        Dialect::Postgres,
        Dialect::Mysql,
        Dialect::Duckdb,
        Dialect::Oracle,
        Dialect::Zen,
        Dialect::Standard,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Dialect::Sqlite => "sqlite",
            Dialect::Postgres => "postgres",
            Dialect::Mysql => "mysql",
            Dialect::Duckdb => "duckdb",
            Dialect::Oracle => "oracle",
            Dialect::Zen => "zen",
            Dialect::Standard => "standard",
        }
    }

    /// A dialect by its name (`--dialect`).
    pub fn parse(name: &str) -> std::result::Result<Dialect, String> {
        Dialect::ALL
            .into_iter()
            .find(|d| d.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
                format!("unknown dialect '{name}' (one of: {})", names.join(", "))
            })
    }
}

/// What a connection's engine can do, declared by the engine so that a workload never infers it
/// from the SQL dialect (a PostgreSQL-wire database speaks PostgreSQL's SQL without having its
/// bulk paths or limits). BenchBase's `DatabaseType` is the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// `bulk_load_delimited` works: the engine's loader parses delimited text itself
    /// (PostgreSQL's COPY, MariaDB's LOAD DATA, DuckDB's CSV reader).
    pub delimited: bool,
    /// `bulk_load_arrow` works: the engine takes columns of Arrow arrays (DuckDB's Appender).
    pub arrow: bool,
    /// `refill_delimited` writes the rows as they would be after a vacuum (PostgreSQL's COPY
    /// FREEZE), which makes refilling a whole table the fastest way to load it.
    pub frozen_refill: bool,
    /// It speaks PostgreSQL's extended protocol to hakari: `send_pipeline` works (a script's
    /// `\startpipeline`), so does `query_unnamed` (pgbench's -M extended), and BEGIN, COMMIT
    /// and ROLLBACK are prepared as any statement is (pgbench's -M prepared).
    pub extended_protocol: bool,
    /// CHAR(n) is stored blank-padded (the SQL standard's CHAR; DuckDB's and SQLite's are
    /// VARCHAR): a loader may send a filler of blanks as an empty field.
    pub pads_char: bool,
    /// A table's rows are kept in its primary key's order (InnoDB): its tables are made with
    /// their keys, and each is loaded whole by one loader, so that no two loaders insert into
    /// one index at once.
    pub clusters_by_key: bool,
    /// How many connections load one table at once to good effect, each a part of it: a server
    /// one per core of this machine, where the server usually is (its loader is a core per
    /// connection); an embedded engine takes one writer at a time.
    pub load_streams: usize,
}

impl Capabilities {
    /// An embedded engine's: rows through `bulk_load`, one writer.
    pub const EMBEDDED: Capabilities = Capabilities {
        delimited: false,
        arrow: false,
        frozen_refill: false,
        extended_protocol: false,
        pads_char: false,
        clusters_by_key: false,
        load_streams: 1,
    };

    /// A server's: rows through `bulk_load`, a load stream per core.
    pub fn server() -> Capabilities {
        Capabilities {
            load_streams: std::thread::available_parallelism().map_or(1, |n| n.get()),
            ..Capabilities::EMBEDDED
        }
    }
}

/// What a SQL database is opened with.
#[derive(Clone, Debug)]
pub struct SqlOptions {
    /// A directory this run owns, for embedded files or a private server's data.
    pub dir: PathBuf,
    pub durability: Durability,
    /// A server URL from `--url`; None means embedded, or a private server hakari starts.
    pub url: Option<String>,
    /// `--dialect`: the SQL a database reached by a generic driver (odbc) takes, over the one
    /// its DBMS suggests; None for every engine that knows its own.
    pub dialect: Option<Dialect>,
    /// Connections that will be open at once.
    pub clients: usize,
    /// Engine cache size in bytes (0: the engine's default).
    pub cache_bytes: u64,
    /// A private server as one server or a loopback cluster (`--replicas`, `--cluster`).
    pub topology: crate::server::topology::Topology,
    /// Other clients (`--shard`) work in hakari's tables here too, and the first of them drops
    /// them: `close` leaves hakari's schema or marker as it is.
    pub shared: bool,
}

impl SqlOptions {
    /// An embedded database in `dir` (or a private server there) at `durability`: one client,
    /// the engine's own cache, no `--url`, one server.
    pub fn at(dir: &std::path::Path, durability: Durability) -> SqlOptions {
        SqlOptions {
            dir: dir.to_path_buf(),
            durability,
            url: None,
            dialect: None,
            clients: 1,
            cache_bytes: 0,
            topology: Default::default(),
            shared: false,
        }
    }

    /// What a private server for these options is started with.
    pub fn server_options(&self) -> crate::server::ServerOptions {
        crate::server::ServerOptions {
            cache_bytes: self.cache_bytes,
            clients: self.clients,
            topology: self.topology,
            ..crate::server::ServerOptions::at(self.durability)
        }
    }
}

/// What a query hands each row to. The visitor may take the row (`std::mem::take`) instead of
/// copying it: the engine fills a new one for the next.
pub type Visit<'a> = dyn FnMut(&mut Row) + 'a;
/// Rows a bulk load takes, as the generator makes them.
pub type Rows<'a> = dyn Iterator<Item = Row> + 'a;
/// Batches of '|'-delimited lines a delimited bulk load takes.
pub type Lines<'a> = &'a mut dyn Iterator<Item = String>;
/// A stream of Arrow record batches an Arrow bulk load takes, each column named as the table's;
/// it makes its batches as it is read, on whichever thread reads it.
pub type ArrowStream = Box<dyn Iterator<Item = Result<arrow::record_batch::RecordBatch>> + Send>;

/// A SQL engine as registered: what it offers and how to open it.
pub trait SqlEngine: Sync {
    /// The dialect this engine always speaks; None when it depends on the database a connection
    /// reaches (odbc: the DBMS its driver reports), known from [`SqlConnection::dialect`].
    fn dialect(&self) -> Option<Dialect>;
    /// The schemes of the `--url`s it takes (`postgres` for postgres://...); none for embedded
    /// ones.
    fn url_schemes(&self) -> &'static [&'static str] {
        &[]
    }
    /// How this engine honours `level`: `Ok(the knobs it sets)`, or `Err(why it cannot)`.
    fn mapping(&self, level: Durability) -> std::result::Result<String, String>;
    /// The loopback clusters its private server can be started as.
    fn topologies(&self) -> &'static [crate::server::topology::Kind] {
        &[]
    }
    /// Opens (or starts, for a private server) a database hakari owns. A database or schema
    /// holding tables hakari did not create is refused, listing what was found.
    fn open(&self, options: &SqlOptions) -> Result<Box<dyn SqlDatabase>>;
    /// Opens the database as `--url` names it, for a user's own script on the user's own
    /// tables: nothing is claimed, created or dropped, and what it holds is not refused. An
    /// embedded engine (or a private server) has nothing of the user's: a fresh database.
    fn open_as_given(&self, options: &SqlOptions) -> Result<Box<dyn SqlDatabase>> {
        self.open(options)
    }
    /// The private server this engine starts without `--url`, for the crash test to kill and
    /// restart; None for embedded engines.
    fn private_server(&self) -> Option<&'static dyn crate::server::PrivateServer> {
        None
    }
}

/// An opened database, shared by all clients of a run.
pub trait SqlDatabase: Send + Sync {
    /// A new connection (one per client thread).
    fn connect(&self) -> Result<Box<dyn SqlConnection>>;
    /// A connection for a tool's own client (pgbench's, sysbench's): through the client
    /// library the tool links where the engine has it (PostgreSQL's libpq), so the client
    /// costs what the tool's costs; else [`SqlDatabase::connect`]'s.
    fn connect_tool(&self) -> Result<Box<dyn SqlConnection>> {
        self.connect()
    }
    /// The server's or library's version, as it reports it.
    fn version(&self) -> String;
    /// Effective settings (durability knobs as set, cache), recorded with the results.
    fn settings(&self) -> Vec<(String, String)>;
    /// Drops what hakari created (only that) and stops a private server.
    fn close(self: Box<Self>) -> Result<()>;
    /// A connection to each other node of a loopback cluster (a standby, another Galera node),
    /// by the node's name, made once that node has applied every commit made before the call:
    /// for checking that the nodes agree. None for one server.
    fn replicas(&self) -> Result<Vec<(String, Box<dyn SqlConnection>)>> {
        Ok(Vec::new())
    }
}

/// A handle to a prepared statement on one connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stmt(pub usize);

/// A connection's prepared statements, by the handle [`Stmt`] it gave out: the driver's own
/// statements, or (for drivers whose statement borrows its connection, so it cannot be kept
/// beside it) the SQL text, prepared again through the driver's statement cache at each use.
pub struct Prepared<T>(Vec<T>);

impl<T> Default for Prepared<T> {
    fn default() -> Self {
        Prepared(Vec::new())
    }
}

impl<T> Prepared<T> {
    pub fn add(&mut self, statement: T) -> Stmt {
        self.0.push(statement);
        Stmt(self.0.len() - 1)
    }

    /// How many statements it holds.
    pub fn count(&self) -> usize {
        self.0.len()
    }

    pub fn get(&self, stmt: Stmt) -> Result<&T> {
        match self.0.get(stmt.0) {
            Some(statement) => Ok(statement),
            None => anyhow::bail!("unknown prepared statement"),
        }
    }

    pub fn get_mut(&mut self, stmt: Stmt) -> Result<&mut T> {
        match self.0.get_mut(stmt.0) {
            Some(statement) => Ok(statement),
            None => anyhow::bail!("unknown prepared statement"),
        }
    }

    /// Every statement, for closing them.
    pub fn drain(&mut self) -> impl Iterator<Item = T> + '_ {
        self.0.drain(..)
    }
}

/// One client's connection. SQL uses `?` placeholders everywhere; engines whose driver wants
/// `$1` rewrite them. Conflicts (deadlock, serialization failure, busy) are returned as
/// [`crate::engine::kv::Conflict`] so callers retry the transaction.
pub trait SqlConnection {
    /// The SQL text this connection takes, for workloads that pick statements by dialect.
    fn dialect(&self) -> Dialect;
    /// The dialect of what is asked of the server itself (planner statistics): the DBMS's own,
    /// even where `--dialect` has the workload's statements written in another.
    fn statistics_dialect(&self) -> Dialect {
        self.dialect()
    }
    /// Runs one or more statements without parameters (DDL, setup); returns rows affected.
    fn execute(&mut self, sql: &str) -> Result<u64>;
    /// Runs a query without parameters and returns its rows.
    fn query(&mut self, sql: &str) -> Result<Vec<Row>>;
    fn prepare(&mut self, sql: &str) -> Result<Stmt>;
    /// Runs a prepared statement that returns no rows; returns rows affected.
    fn exec_prepared(&mut self, stmt: Stmt, params: &[SqlValue]) -> Result<u64>;
    /// Runs a prepared query with `args`, handing each row to `visit`; returns the number of rows.
    fn query_prepared(&mut self, stmt: Stmt, args: &[SqlValue], visit: &mut Visit) -> Result<u64>;
    /// Runs a prepared statement of any kind (a user's script, a sysbench script's read),
    /// dropping any rows it returns unread (an engine may count them without making values of
    /// them); returns the rows affected or returned.
    fn run_prepared(&mut self, stmt: Stmt, params: &[SqlValue]) -> Result<u64> {
        self.query_prepared(stmt, params, &mut |_| {})
    }
    /// [`SqlConnection::query_prepared`], its rows kept to be read when asked: an engine whose
    /// client library keeps a result hands that over, unread (PostgreSQL's in binary, as
    /// sysbench's driver asks for it); the others read the rows now, as text.
    fn query_prepared_kept(&mut self, stmt: Stmt, args: &[SqlValue]) -> Result<Box<dyn Kept>> {
        let mut rows = Vec::new();
        self.query_prepared(stmt, args, &mut |r| rows.push(std::mem::take(r)))?;
        Ok(Box::new(rows))
    }
    /// [`SqlConnection::query`], its rows kept as [`SqlConnection::query_prepared_kept`] keeps them.
    fn query_kept(&mut self, sql: &str) -> Result<Box<dyn Kept>> {
        Ok(Box::new(self.query(sql)?))
    }
    /// Runs `sql` with `params` as a statement parsed anew each time, the extended protocol's
    /// unnamed statement as libpq's `PQexecParams` sends it (pgbench's `-M extended`), handing
    /// each row to `visit`; returns the rows affected or returned. PostgreSQL's alone.
    fn query_unnamed(&mut self, _sql: &str, _: &[SqlValue], _: &mut Visit) -> Result<u64> {
        anyhow::bail!("the extended protocol's unnamed statements are PostgreSQL's (-M extended)")
    }
    /// The names of a prepared query's result columns (a script's `\gset` names its variables
    /// after them).
    fn columns(&mut self, _stmt: Stmt) -> Result<Vec<String>> {
        anyhow::bail!("this engine does not name a query's columns to hakari (\\gset and \\aset need them; postgres, mysql and sqlite do)")
    }
    fn begin(&mut self) -> Result<()>;
    fn commit(&mut self) -> Result<()>;
    fn rollback(&mut self) -> Result<()>;
    /// What this connection's engine can do (its bulk paths, pipelines, load streams).
    fn capabilities(&self) -> Capabilities;
    /// How many connections the server takes from clients such as hakari's, asked of it; None
    /// where it has no limit or does not say. Asked in the server's own SQL (see
    /// `statistics_dialect`), so that a database reached through a generic driver answers too.
    fn connection_limit(&mut self) -> Option<u64> {
        let sql = match self.statistics_dialect() {
            // Superusers keep a few of max_connections for themselves.
            Dialect::Postgres => "SELECT CAST(current_setting('max_connections') AS INTEGER) - CAST(current_setting('superuser_reserved_connections') AS INTEGER)",
            Dialect::Mysql => "SELECT @@max_connections",
            _ => return None,
        };
        let rows = self.query(sql).ok()?;
        match rows.first()?.first()? {
            SqlValue::Int(n) => u64::try_from(*n).ok(),
            SqlValue::Text(t) => t.trim().parse().ok(),
            _ => None,
        }
    }
    /// Sends `batch` (statements with `?` placeholders, each with its values) in one round
    /// trip, run as one implicit transaction unless the batch opens its own, as PostgreSQL's
    /// pipeline mode runs what comes before its sync point; their rows are dropped.
    fn send_pipeline(&mut self, _batch: &[(String, Vec<SqlValue>)]) -> Result<()> {
        anyhow::bail!("this engine has no pipelines")
    }
    /// Loads rows through the engine's fast path (COPY, multi-row INSERT, appender, one
    /// transaction of prepared inserts); returns rows loaded. When the caller has a transaction
    /// open (`begin`), the rows join it and are committed with it.
    fn bulk_load(&mut self, table: &str, columns: &[&str], rows: &mut Rows) -> Result<u64>;
    /// Loads batches of '|'-delimited lines (where `capabilities().delimited`), each line ending in "|\n" as dbgen writes them
    /// (ASCII text; no field holds '|', a backslash or a line break; `\N` is NULL, as COPY's
    /// text format and LOAD DATA read it); returns lines loaded.
    fn bulk_load_delimited(
        &mut self,
        table: &str,
        _columns: &[&str],
        _lines: Lines,
    ) -> Result<u64> {
        anyhow::bail!("this engine loads {table} as rows, not as delimited text")
    }
    /// Empties `table` (hakari's own, which no one else uses yet) and loads `lines` into it as
    /// `bulk_load_delimited` does, in one transaction; an engine may then write the rows as
    /// they would be after a vacuum (PostgreSQL: TRUNCATE, then COPY ... FREEZE, as `pgbench -i`
    /// loads). Returns lines loaded.
    fn refill_delimited(&mut self, table: &str, columns: &[&str], lines: Lines) -> Result<u64> {
        self.begin()?;
        let loaded = self
            .execute(&format!("DELETE FROM {table}"))
            .and_then(|_| self.bulk_load_delimited(table, columns, lines));
        match loaded {
            Ok(n) => self.commit().map(|()| n),
            Err(e) => {
                // The load's error is the one to report.
                let _ = self.rollback();
                Err(e)
            }
        }
    }
    /// Loads streams of Arrow record batches, each a consecutive run of the table's rows; the
    /// engine may load the streams at once, on threads and in transactions of its own (a
    /// failed stream keeps no stream's rows, short of a failing commit). Columns are cast to
    /// the table's types where they differ (an Arrow Int64 into an INTEGER). Not inside a
    /// caller's transaction. Returns rows loaded.
    fn bulk_load_arrow(&mut self, table: &str, _streams: Vec<ArrowStream>) -> Result<u64> {
        anyhow::bail!("this engine does not load {table} from Arrow")
    }
}

/// Runs `statement` on a helper thread while this thread runs `feed`, which hands the statement
/// its data (a bulk load whose driver reads from a pipe or a callback while it executes: the
/// generator's iterator cannot move to another thread). `feed` is told whether the statement has
/// already ended, so it never waits on a reader that is gone. Returns the statement's outcome.
pub fn while_statement_runs<T: Send>(
    statement: impl FnOnce() -> Result<T> + Send,
    feed: impl FnOnce(&dyn Fn() -> bool),
) -> Result<T> {
    std::thread::scope(|scope| {
        let running = scope.spawn(statement);
        feed(&|| running.is_finished());
        running
            .join()
            .map_err(|_| anyhow::anyhow!("the bulk load's statement thread panicked"))?
    })
}
