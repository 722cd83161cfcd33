//! Where sessions live: a SQL table or a key-value store, in one of two layouts. The workload
//! talks only to [`SessionStore`] and [`SessionClient`]; each engine family fills them in once.

use crate::durability::Durability;
use crate::engine::sql::{Dialect, SqlConnection, SqlDatabase, SqlOptions, SqlValue, Stmt};
use crate::engine::{Engine, KvOptions, KvSession, KvStore};
use crate::workload::sql;
use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::path::Path;

/// The source's chunk size: Oracle's VARCHAR2 limit, used to avoid LOBs.
pub const CHUNK_BYTES: usize = 4000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// One row (value) per session.
    Blob,
    /// Rows (values) of at most 4000 bytes keyed by (id, subid).
    Chunked,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Blob => "blob",
            Layout::Chunked => "chunked",
        }
    }
    pub fn parse(text: &str) -> Result<Layout> {
        match text.trim().to_ascii_lowercase().as_str() {
            "blob" => Ok(Layout::Blob),
            "chunked" => Ok(Layout::Chunked),
            _ => bail!("unknown layout '{text}'; choose from blob, chunked"),
        }
    }
}

/// What opening a store needs to know.
pub struct OpenOptions<'a> {
    pub dir: &'a Path,
    pub durability: Durability,
    pub url: Option<&'a str>,
    /// `--dialect`, for a SQL engine reached by a generic driver.
    pub dialect: Option<crate::engine::sql::Dialect>,
    pub clients: usize,
    /// The largest value a session will take.
    pub max_value_bytes: u64,
    /// Values the store will hold at once, at most.
    pub records: u64,
    /// Sizes of values written one after another (sizes × compressions).
    pub value_sizes: u64,
    /// A private server as one server or a loopback cluster.
    pub topology: crate::server::topology::Topology,
}

pub enum SessionStore {
    Sql {
        db: Box<dyn SqlDatabase>,
        dialect: Dialect,
    },
    Kv(Box<dyn KvStore>),
}

const BLOB_TABLE: &str = "hakari_sessions";
const CHUNK_TABLE: &str = "hakari_session_chunks";

impl SessionStore {
    pub fn open(engine: Engine, o: &OpenOptions) -> Result<SessionStore> {
        Ok(match engine {
            Engine::Sql(e) => {
                let db = e.open(&SqlOptions {
                    url: o.url.map(String::from),
                    dialect: o.dialect,
                    clients: o.clients,
                    topology: o.topology,
                    ..SqlOptions::at(o.dir, o.durability)
                })?;
                let dialect = db.connect()?.dialect();
                SessionStore::Sql { db, dialect }
            }
            Engine::Kv(e) => SessionStore::Kv(e.open(&KvOptions {
                threads: o.clients,
                key_size: 72,
                value_size: o.max_value_bytes as usize,
                expected_records: o.records,
                value_sizes: o.value_sizes,
                url: o.url.map(String::from),
                topology: o.topology,
                ..KvOptions::at(o.dir, o.durability)
            })?),
        })
    }

    pub fn version(&self) -> Option<String> {
        match self {
            SessionStore::Sql { db, .. } => Some(db.version()),
            SessionStore::Kv(_) => None,
        }
    }

    pub fn settings(&self) -> Vec<(String, String)> {
        match self {
            SessionStore::Sql { db, .. } => db.settings(),
            SessionStore::Kv(s) => s.settings(),
        }
    }

    /// The largest value the store accepts, when it has a limit.
    pub fn max_value_bytes(&self) -> Option<u64> {
        match self {
            SessionStore::Sql { .. } => None,
            SessionStore::Kv(s) => s.max_value_bytes(),
        }
    }

    /// How sessions are laid out in this store, for the output.
    pub fn describe(&self, layout: Layout) -> String {
        match self {
            SessionStore::Sql { dialect, .. } => ddl(*dialect, layout).unwrap_or_default(),
            SessionStore::Kv(_) => match layout {
                Layout::Blob => "key = session id, value = the whole session".into(),
                Layout::Chunked => format!(
                    "key = id/n holding the chunk count, keys id/0000.. holding chunks of at most {CHUNK_BYTES} bytes"
                ),
            },
        }
    }

    /// Creates the layout's table (dropping a previous one of hakari's); nothing for key-value.
    pub fn create(&self, layout: Layout) -> Result<()> {
        if let SessionStore::Sql { db, dialect } = self {
            let mut c = db.connect()?;
            c.execute(&statement(layout, "drop")?)?;
            let sql = ddl(*dialect, layout)?;
            c.execute(&sql)
                .with_context(|| format!("creating: {sql}"))?;
        }
        Ok(())
    }

    /// Drops what `create` made.
    pub fn drop_layout(&self, layout: Layout) -> Result<()> {
        if let SessionStore::Sql { db, .. } = self {
            db.connect()?.execute(&statement(layout, "drop")?)?;
        }
        Ok(())
    }

    /// A client with its own connection or handle, for one worker.
    pub fn client(&self, layout: Layout) -> Result<Box<dyn SessionClient + '_>> {
        Ok(match self {
            SessionStore::Sql { db, .. } => Box::new(SqlClient::new(db.connect()?, layout)?),
            SessionStore::Kv(s) => Box::new(KvClient {
                session: s.session()?,
                layout,
                key: Vec::new(),
                scratch: Vec::new(),
            }),
        })
    }

    pub fn close(self) -> Result<()> {
        match self {
            SessionStore::Sql { db, .. } => db.close(),
            SessionStore::Kv(s) => s.close(),
        }
    }
}

fn table(layout: Layout) -> &'static str {
    match layout {
        Layout::Blob => BLOB_TABLE,
        Layout::Chunked => CHUNK_TABLE,
    }
}

/// The layout's `CREATE TABLE` in each engine's natural type for a large value, and for a chunk
/// of at most 4000 bytes (`sql/create.sql`, by layout; a dialect's file overrides by name).
fn ddl(dialect: Dialect, layout: Layout) -> Result<String> {
    let own = match dialect {
        Dialect::Postgres => Some(include_str!("sql/postgres/create.sql")),
        Dialect::Mysql => Some(include_str!("sql/mysql/create.sql")),
        Dialect::Oracle => Some(include_str!("sql/oracle/create.sql")),
        Dialect::Zen => Some(include_str!("sql/zen/create.sql")),
        Dialect::Sqlite | Dialect::Duckdb | Dialect::Standard => None,
    };
    let named = sql::SqlFile::read(
        include_str!("sql/create.sql"),
        own,
        &[("table", &table(layout))],
    );
    let name = match layout {
        Layout::Blob => "blob",
        Layout::Chunked => "chunked",
    };
    Ok(named.statement(name)?.to_string())
}

/// The layout's statement `name` (insert, select, delete, drop).
fn statement(layout: Layout, name: &str) -> Result<String> {
    let text = match layout {
        Layout::Blob => include_str!("sql/blob.sql"),
        Layout::Chunked => include_str!("sql/chunked.sql"),
    };
    let file = sql::SqlFile::read(text, None, &[("table", &table(layout))]);
    Ok(file.statement(name)?.to_string())
}

/// One worker's view of the store.
pub trait SessionClient {
    /// Stores a session (a new one: the table was emptied first), in one transaction.
    fn write(&mut self, id: &str, stored: &[u8]) -> Result<()>;
    /// Reads a whole session into `out` (chunks reassembled); false when it is absent.
    fn read(&mut self, id: &str, out: &mut Vec<u8>) -> Result<bool>;
    /// Removes a session if present.
    fn remove(&mut self, id: &str) -> Result<()>;
}

struct SqlClient {
    conn: Box<dyn SqlConnection>,
    layout: Layout,
    insert: Stmt,
    select: Stmt,
    delete: Stmt,
}

impl SqlClient {
    fn new(mut conn: Box<dyn SqlConnection>, layout: Layout) -> Result<SqlClient> {
        let insert = conn.prepare(&statement(layout, "insert")?)?;
        let select = conn.prepare(&statement(layout, "select")?)?;
        let delete = conn.prepare(&statement(layout, "delete")?)?;
        Ok(SqlClient {
            conn,
            layout,
            insert,
            select,
            delete,
        })
    }
}

impl SessionClient for SqlClient {
    fn write(&mut self, id: &str, stored: &[u8]) -> Result<()> {
        let id = SqlValue::Text(id.to_string());
        match self.layout {
            Layout::Blob => {
                self.conn
                    .exec_prepared(self.insert, &[id, SqlValue::Bytes(stored.to_vec())])?;
            }
            Layout::Chunked => {
                self.conn.begin()?;
                for (subid, chunk) in stored.chunks(CHUNK_BYTES).enumerate() {
                    let params = [
                        id.clone(),
                        SqlValue::Int(subid as i64),
                        SqlValue::Bytes(chunk.to_vec()),
                    ];
                    if let Err(e) = self.conn.exec_prepared(self.insert, &params) {
                        let _ = self.conn.rollback();
                        return Err(e);
                    }
                }
                self.conn.commit()?;
            }
        }
        Ok(())
    }

    fn read(&mut self, id: &str, out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        let mut bad = None;
        let rows = self.conn.query_prepared(
            self.select,
            &[SqlValue::Text(id.to_string())],
            &mut |row| match row.first() {
                Some(SqlValue::Bytes(b)) => out.extend_from_slice(b),
                // Drivers hand back valid UTF-8 blobs as text.
                Some(SqlValue::Text(t)) => out.extend_from_slice(t.as_bytes()),
                other => bad = Some(format!("{other:?}")),
            },
        )?;
        if let Some(v) = bad {
            bail!("session {id}: the data column came back as {v}");
        }
        Ok(rows > 0)
    }

    fn remove(&mut self, id: &str) -> Result<()> {
        self.conn
            .exec_prepared(self.delete, &[SqlValue::Text(id.to_string())])?;
        Ok(())
    }
}

struct KvClient<'a> {
    session: Box<dyn KvSession + 'a>,
    layout: Layout,
    key: Vec<u8>,
    scratch: Vec<u8>,
}

impl KvClient<'_> {
    fn key(&mut self, id: &str, part: &str) -> Vec<u8> {
        self.key.clear();
        self.key.extend_from_slice(id.as_bytes());
        self.key.extend_from_slice(part.as_bytes());
        self.key.clone()
    }

    fn chunk_count(&mut self, id: &str) -> Result<Option<usize>> {
        let k = self.key(id, "/n");
        let mut v = std::mem::take(&mut self.scratch);
        let found = self.session.get(&k, &mut v)?;
        let n = if found {
            Some(
                std::str::from_utf8(&v)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .with_context(|| format!("session {id}: a corrupt chunk count"))?,
            )
        } else {
            None
        };
        self.scratch = v;
        Ok(n)
    }
}

impl SessionClient for KvClient<'_> {
    fn write(&mut self, id: &str, stored: &[u8]) -> Result<()> {
        self.session.begin(true)?;
        let outcome = (|| -> Result<()> {
            match self.layout {
                Layout::Blob => self.session.put(id.as_bytes(), stored),
                Layout::Chunked => {
                    let chunks: Vec<&[u8]> = stored.chunks(CHUNK_BYTES).collect();
                    let k = self.key(id, "/n");
                    self.session.put(&k, chunks.len().to_string().as_bytes())?;
                    for (subid, chunk) in chunks.iter().enumerate() {
                        let k = self.key(id, &format!("/{subid:04}"));
                        self.session.put(&k, chunk)?;
                    }
                    Ok(())
                }
            }
        })();
        match outcome {
            Ok(()) => self.session.commit(),
            Err(e) => {
                self.session.abort();
                Err(e)
            }
        }
    }

    fn read(&mut self, id: &str, out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        self.session.begin(false)?;
        let outcome = (|| -> Result<bool> {
            match self.layout {
                Layout::Blob => self.session.get(id.as_bytes(), out),
                Layout::Chunked => {
                    let Some(n) = self.chunk_count(id)? else {
                        return Ok(false);
                    };
                    let mut chunk = std::mem::take(&mut self.scratch);
                    for subid in 0..n {
                        let k = self.key(id, &format!("/{subid:04}"));
                        if !self.session.get(&k, &mut chunk)? {
                            bail!("session {id}: chunk {subid} of {n} is missing");
                        }
                        out.extend_from_slice(&chunk);
                    }
                    self.scratch = chunk;
                    Ok(true)
                }
            }
        })();
        match outcome {
            Ok(found) => {
                self.session.commit()?;
                Ok(found)
            }
            Err(e) => {
                self.session.abort();
                Err(e)
            }
        }
    }

    fn remove(&mut self, id: &str) -> Result<()> {
        self.session.begin(true)?;
        match self.layout {
            Layout::Blob => {
                self.session.delete(id.as_bytes())?;
            }
            Layout::Chunked => {
                if let Some(n) = self.chunk_count(id)? {
                    for subid in 0..n {
                        let k = self.key(id, &format!("/{subid:04}"));
                        self.session.delete(&k)?;
                    }
                    let k = self.key(id, "/n");
                    self.session.delete(&k)?;
                }
            }
        }
        self.session.commit()
    }
}
