//! Where YCSB's records live, as go-ycsb's DB interface has it (insert, read, update, scan): a
//! SQL table (`usertable` under hakari's prefix, one column per field, prepared statements), a
//! key-value store's value (the fields encoded one after another), or a store's own records of
//! fields (Redis hashes). The workload talks only to [`Records`] and [`Client`].

use crate::engine::kv::retry_conflicts;
use crate::engine::sql::{Dialect, SqlConnection, SqlDatabase, SqlOptions, SqlValue, Stmt};
use crate::engine::{Engine, KvOptions, KvSession, KvStore};
use crate::workload::kept::{Key, Ledger, Table};
use crate::workload::sql;
use anyhow::{bail, Context, Result};
use encoding::{encode, encoded_len, field_lengths, nth_field, replace_field, split_field};
use std::path::Path;

mod encoding;

const USERTABLE: &str = include_str!("sql/usertable.sql");
/// YCSB's `usertable`, with hakari's prefix so that nothing of the user's is touched.
pub const TABLE: &str = "hakari_usertable";

/// The shape of a record (how many fields, of at most how many bytes), and what the clients
/// prepare to read and write of it beside whole records and single fields' updates.
#[derive(Clone, Copy)]
pub struct Shape {
    pub fields: usize,
    pub field_length: usize,
    /// Reads and scans of one field (YCSB's `readallfields=false`).
    pub read_one: bool,
    /// Updates of every field at once (YCSB's `writeallfields=true`).
    pub write_all: bool,
}

/// An opened store, shared by the workers.
pub enum Records {
    Sql(Box<dyn SqlDatabase>),
    Kv(Box<dyn KvStore>),
}

/// What opening the store needs.
pub struct OpenOptions<'a> {
    pub dir: &'a Path,
    pub durability: crate::durability::Durability,
    pub url: Option<&'a str>,
    /// `--dialect`, for a SQL engine reached by a generic driver.
    pub dialect: Option<crate::engine::sql::Dialect>,
    pub threads: usize,
    pub shape: Shape,
    /// Records the run may hold at most (loaded and inserted).
    pub records: u64,
    /// A private server as one server or a loopback cluster.
    pub topology: crate::server::topology::Topology,
    /// `--shard`: other clients share the records, and the first of them removes them.
    pub shared: bool,
}

/// The statement `name` of the usertable file, for `shape` in `dialect`.
fn statement(name: &str, shape: Shape, field: usize, dialect: Dialect) -> String {
    let fields: Vec<String> = (0..shape.fields).map(|i| format!("field{i}")).collect();
    let text = sql::text(dialect, shape.field_length);
    let columns: Vec<String> = fields.iter().map(|f| format!("{f} {text}")).collect();
    let assignments: Vec<String> = fields.iter().map(|f| format!("{f} = ?")).collect();
    let file = sql::SqlFile::read(
        USERTABLE,
        None,
        &[
            ("table", &TABLE),
            ("field_columns", &columns.join(", ")),
            ("fields", &fields.join(", ")),
            ("marks", &vec!["?"; shape.fields].join(", ")),
            ("assignments", &assignments.join(", ")),
            ("field", &format!("field{field}")),
            ("limit", &sql::limit(dialect, "?")),
        ],
    );
    let statement = file
        .statement(name)
        .expect("the usertable file names its statements");
    statement.to_string()
}

impl Records {
    pub fn open(engine: Engine, o: &OpenOptions) -> Result<Records> {
        Ok(match engine {
            Engine::Sql(e) => Records::Sql(e.open(&SqlOptions {
                url: o.url.map(String::from),
                dialect: o.dialect,
                clients: o.threads,
                topology: o.topology,
                shared: o.shared,
                ..SqlOptions::at(o.dir, o.durability)
            })?),
            Engine::Kv(e) => Records::Kv(e.open(&KvOptions {
                threads: o.threads,
                key_size: 32,
                value_size: encoded_len(o.shape),
                expected_records: o.records,
                url: o.url.map(String::from),
                topology: o.topology,
                shared: o.shared,
                ..KvOptions::at(o.dir, o.durability)
            })?),
        })
    }

    /// `f` given the record of kept records, beside them (`--keep`): a row of `hakari_kept`
    /// beside the usertable, or a key of the store.
    pub fn with_ledger<T>(&self, f: impl FnOnce(&mut dyn Ledger) -> Result<T>) -> Result<T> {
        match self {
            Records::Sql(db) => f(&mut Table(db.connect()?.as_mut())),
            Records::Kv(store) => {
                let mut session = store.session()?;
                session.begin(true)?;
                let done = f(&mut Key(session.as_mut()))?;
                session.commit()?;
                Ok(done)
            }
        }
    }

    pub fn version(&self) -> Option<String> {
        match self {
            Records::Sql(db) => Some(db.version()),
            Records::Kv(_) => None,
        }
    }

    pub fn settings(&self) -> Vec<(String, String)> {
        match self {
            Records::Sql(db) => db.settings(),
            Records::Kv(s) => s.settings(),
        }
    }

    /// Creates the usertable (dropping one hakari left); nothing for key-value stores.
    pub fn create(&self, shape: Shape) -> Result<()> {
        if let Records::Sql(db) = self {
            let mut c = db.connect()?;
            let dialect = c.dialect();
            c.execute(&statement("drop", shape, 0, dialect))?;
            let ddl = statement("create", shape, 0, dialect);
            c.execute(&ddl)
                .with_context(|| format!("creating: {ddl}"))?;
        }
        Ok(())
    }

    /// Deletes the shards' markers `keys` (an earlier run's): a key-value store keeps them
    /// across runs, where a SQL table is made afresh by `create`.
    pub fn delete_markers(&self, keys: &[Vec<u8>]) -> Result<()> {
        if let Records::Kv(s) = self {
            let mut session = s.session()?;
            for key in keys {
                session.delete(key)?;
            }
        }
        Ok(())
    }

    /// Drops what `create` made.
    pub fn drop_table(&self, shape: Shape) -> Result<()> {
        if let Records::Sql(db) = self {
            let mut c = db.connect()?;
            let dialect = c.dialect();
            c.execute(&statement("drop", shape, 0, dialect))?;
        }
        Ok(())
    }

    /// A client with its own connection or handle, for one worker.
    pub fn client(&self, shape: Shape) -> Result<Client<'_>> {
        let form = match self {
            Records::Sql(db) => {
                let mut conn = db.connect()?;
                let d = conn.dialect();
                let insert = conn.prepare(&statement("insert", shape, 0, d))?;
                let read = conn.prepare(&statement("read", shape, 0, d))?;
                let scan = conn.prepare(&statement("scan", shape, 0, d))?;
                let mut each = |name: &str, wanted: bool| -> Result<Vec<Stmt>> {
                    let fields = if wanted { shape.fields } else { 0 };
                    (0..fields)
                        .map(|i| conn.prepare(&statement(name, shape, i, d)))
                        .collect()
                };
                let update = each("update", true)?;
                let read_field = each("read_field", shape.read_one)?;
                let scan_field = each("scan_field", shape.read_one)?;
                let update_all = match shape.write_all {
                    true => Some(conn.prepare(&statement("update_all", shape, 0, d))?),
                    false => None,
                };
                let prepared = SqlStatements {
                    insert,
                    read,
                    scan,
                    update,
                    read_field,
                    scan_field,
                    update_all,
                };
                Form::Sql(conn, prepared)
            }
            Records::Kv(s) => Form::Kv(s.session()?),
        };
        Ok(Client {
            form,
            value: Vec::new(),
            fields: Vec::new(),
            params: Vec::with_capacity(shape.fields + 1),
        })
    }

    pub fn close(self) -> Result<()> {
        match self {
            Records::Sql(db) => db.close(),
            Records::Kv(s) => s.close(),
        }
    }
}

struct SqlStatements {
    insert: Stmt,
    read: Stmt,
    scan: Stmt,
    /// One per field: `UPDATE .. SET fieldN = ?`.
    update: Vec<Stmt>,
    /// One per field where reads take one field (`SELECT fieldN ..`), else none.
    read_field: Vec<Stmt>,
    scan_field: Vec<Stmt>,
    /// Every field at once, where updates write them all.
    update_all: Option<Stmt>,
}

enum Form<'s> {
    Sql(Box<dyn SqlConnection>, SqlStatements),
    Kv(Box<dyn KvSession + 's>),
}

/// One worker's handle on the records, with its reusable buffers. Every operation is its own
/// transaction (autocommit for SQL), retried whole when it loses a conflict; each returns the
/// retries it took.
pub struct Client<'s> {
    form: Form<'s>,
    /// A key-value store's encoded record.
    value: Vec<u8>,
    /// A record read from a store that keeps fields of its own.
    fields: Vec<Vec<u8>>,
    params: Vec<SqlValue>,
}

fn text(bytes: &[u8]) -> SqlValue {
    SqlValue::Text(String::from_utf8_lossy(bytes).into_owned())
}

/// The length in bytes of a column read back as a field.
fn field_length(value: &SqlValue) -> usize {
    match value {
        SqlValue::Text(t) => t.len(),
        SqlValue::Bytes(b) => b.len(),
        SqlValue::Null => 0,
        other => format!("{other:?}").len(),
    }
}

impl Client<'_> {
    pub fn insert(&mut self, key: &[u8], fields: &[Vec<u8>]) -> Result<u64> {
        let mut retries = 0;
        match &mut self.form {
            Form::Sql(conn, s) => {
                self.params.clear();
                self.params.push(text(key));
                self.params.extend(fields.iter().map(|f| text(f)));
                let params = &self.params;
                retry_conflicts(&mut retries, || conn.exec_prepared(s.insert, params))?;
            }
            Form::Kv(session) => match session.fields() {
                Some(records) => records.insert(key, fields)?,
                None => {
                    encode(fields, &mut self.value);
                    let value = &self.value;
                    in_transaction(session.as_mut(), &mut retries, true, |s| s.put(key, value))?;
                }
            },
        }
        Ok(retries)
    }

    /// Reads the record `key` (every field, out of the engine and its transaction) and the
    /// length of each field into `lengths`, for the caller's check; fails when it is absent.
    pub fn read(&mut self, key: &[u8], lengths: &mut Vec<usize>) -> Result<u64> {
        let (found, retries) = self.look_up(key, lengths)?;
        if !found {
            bail!("record {} is missing", String::from_utf8_lossy(key));
        }
        Ok(retries)
    }

    /// Whether the record `key` exists.
    pub fn exists(&mut self, key: &[u8]) -> Result<bool> {
        Ok(self.look_up(key, &mut Vec::new())?.0)
    }

    /// The first field of the record `key`, if it exists (for the few records hakari reads
    /// back by value: the shards' markers).
    pub fn first_field(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let mut first = None;
        match &mut self.form {
            Form::Sql(conn, s) => {
                conn.query_prepared(s.read, &[text(key)], &mut |row| {
                    // A driver may hand back text that reads as a number as one.
                    first = row.first().map(|v| match v {
                        SqlValue::Bytes(b) => b.clone(),
                        SqlValue::Text(t) => t.clone().into_bytes(),
                        SqlValue::Int(i) => i.to_string().into_bytes(),
                        SqlValue::Float(f) => f.to_string().into_bytes(),
                        SqlValue::Null => Vec::new(),
                    })
                })?;
            }
            Form::Kv(session) => match session.fields() {
                Some(records) => {
                    if records.read(key, &mut self.fields)? {
                        first = self.fields.first().cloned();
                    }
                }
                None => {
                    let value = &mut self.value;
                    let mut retries = 0;
                    if in_transaction(session.as_mut(), &mut retries, false, |s| s.get(key, value))?
                    {
                        first = Some(split_field(value)?.0.to_vec());
                    }
                }
            },
        }
        Ok(first)
    }

    /// Reads the record `key` as `read` does; returns whether it was found and the retries.
    fn look_up(&mut self, key: &[u8], lengths: &mut Vec<usize>) -> Result<(bool, u64)> {
        let mut retries = 0;
        lengths.clear();
        let found = match &mut self.form {
            Form::Sql(conn, s) => {
                let mut found = false;
                let args = [text(key)];
                retry_conflicts(&mut retries, || {
                    conn.query_prepared(s.read, &args, &mut |row| {
                        lengths.clear();
                        lengths.extend(row.iter().map(field_length));
                        found = true;
                    })
                })?;
                found
            }
            Form::Kv(session) => match session.fields() {
                Some(records) => {
                    let found = records.read(key, &mut self.fields)?;
                    lengths.extend(self.fields.iter().map(Vec::len));
                    found
                }
                None => {
                    let value = &mut self.value;
                    let found = in_transaction(session.as_mut(), &mut retries, false, |s| {
                        s.get(key, value)
                    })?;
                    field_lengths(value, lengths)?;
                    found
                }
            },
        };
        Ok((found, retries))
    }

    /// Writes field `field` of `key`. A record kept as one value is read, changed and written
    /// back in one transaction, as YCSB's bindings for key-value stores do.
    pub fn update(&mut self, key: &[u8], field: usize, value: &[u8]) -> Result<u64> {
        let mut retries = 0;
        match &mut self.form {
            Form::Sql(conn, s) => {
                let params = [text(value), text(key)];
                let stmt = s.update[field];
                retry_conflicts(&mut retries, || conn.exec_prepared(stmt, &params))?;
            }
            Form::Kv(session) => match session.fields() {
                Some(records) => records.update(key, field, value)?,
                None => {
                    let buffer = &mut self.value;
                    in_transaction(session.as_mut(), &mut retries, true, |s| {
                        if !s.get(key, buffer)? {
                            bail!("record {} is missing", String::from_utf8_lossy(key));
                        }
                        // The null engine stores nothing: there is nothing to change.
                        if !buffer.is_empty() {
                            replace_field(buffer, field, value)?;
                        }
                        s.put(key, buffer)
                    })?;
                }
            },
        }
        Ok(retries)
    }

    /// Writes every field of `key` in one statement or transaction (YCSB's
    /// `writeallfields=true`). A record kept as one value is read and written back whole, as
    /// YCSB's bindings for key-value stores do.
    pub fn update_all(&mut self, key: &[u8], fields: &[Vec<u8>]) -> Result<u64> {
        let mut retries = 0;
        match &mut self.form {
            Form::Sql(conn, s) => {
                let stmt = s
                    .update_all
                    .context("no statement prepared to update every field")?;
                self.params.clear();
                self.params.extend(fields.iter().map(|f| text(f)));
                self.params.push(text(key));
                let params = &self.params;
                retry_conflicts(&mut retries, || conn.exec_prepared(stmt, params))?;
            }
            // Every field set at once, as YCSB's redis binding's HMSET (the scan index, which
            // holds the key already, is written again with it).
            Form::Kv(session) => match session.fields() {
                Some(records) => records.insert(key, fields)?,
                None => {
                    let buffer = &mut self.value;
                    in_transaction(session.as_mut(), &mut retries, true, |s| {
                        if !s.get(key, buffer)? {
                            bail!("record {} is missing", String::from_utf8_lossy(key));
                        }
                        encode(fields, buffer);
                        s.put(key, buffer)
                    })?;
                }
            },
        }
        Ok(retries)
    }

    /// Reads field `field` of the record `key` (YCSB's `readallfields=false`): one column of
    /// a SQL table; the record of a key-value store, the field taken from it. Returns the
    /// field's length and the retries; fails when the record is absent.
    pub fn read_field(&mut self, key: &[u8], field: usize) -> Result<(usize, u64)> {
        let mut retries = 0;
        let length = match &mut self.form {
            Form::Sql(conn, s) => {
                let stmt = *s
                    .read_field
                    .get(field)
                    .context("no statement to read one field")?;
                let mut length = None;
                let args = [text(key)];
                retry_conflicts(&mut retries, || {
                    conn.query_prepared(stmt, &args, &mut |row| {
                        length = Some(row.first().map_or(0, field_length));
                    })
                })?;
                length
            }
            Form::Kv(session) => match session.fields() {
                Some(records) => match records.read(key, &mut self.fields)? {
                    true => Some(self.fields.get(field).map_or(0, Vec::len)),
                    false => None,
                },
                None => {
                    let value = &mut self.value;
                    let found = in_transaction(session.as_mut(), &mut retries, false, |s| {
                        s.get(key, value)
                    })?;
                    // The null engine stores nothing, and hands nothing back.
                    match (found, value.is_empty()) {
                        (false, _) => None,
                        (true, true) => Some(0),
                        (true, false) => Some(nth_field(value, field)?.len()),
                    }
                }
            },
        };
        match length {
            Some(length) => Ok((length, retries)),
            None => bail!("record {} is missing", String::from_utf8_lossy(key)),
        }
    }

    /// Reads up to `count` records in key order from `start`, every field or only `field`;
    /// returns (records read, retries).
    pub fn scan(&mut self, start: &[u8], count: u64, field: Option<usize>) -> Result<(u64, u64)> {
        let mut retries = 0;
        let read = match &mut self.form {
            Form::Sql(conn, s) => {
                let stmt = match field {
                    Some(f) => *s
                        .scan_field
                        .get(f)
                        .context("no statement to scan one field")?,
                    None => s.scan,
                };
                let args = [text(start), SqlValue::Int(count as i64)];
                retry_conflicts(&mut retries, || {
                    conn.query_prepared(stmt, &args, &mut |row| {
                        std::hint::black_box(row);
                    })
                })?
            }
            Form::Kv(session) => match session.fields() {
                Some(records) => records.scan(start, count, &mut |k, f| {
                    std::hint::black_box((k, f));
                })?,
                None => in_transaction(session.as_mut(), &mut retries, false, |s| {
                    s.scan_from(start, count, &mut |k, v| {
                        std::hint::black_box((k, v));
                    })
                })?,
            },
        };
        Ok((read, retries))
    }
}

/// Runs `op` in a transaction of the session, retried whole on a conflict.
fn in_transaction<T>(
    session: &mut dyn KvSession,
    retries: &mut u64,
    write: bool,
    mut op: impl FnMut(&mut dyn KvSession) -> Result<T>,
) -> Result<T> {
    retry_conflicts(retries, || {
        let attempt = session
            .begin(write)
            .and_then(|()| op(&mut *session))
            .and_then(|out| session.commit().map(|()| out));
        attempt.inspect_err(|_| session.abort())
    })
}

/// Every statement the workload sends on each dialect, for the statement snapshot.
#[cfg(test)]
pub(crate) fn snapshot() -> String {
    let shape = Shape {
        fields: 3,
        field_length: 100,
        read_one: true,
        write_all: true,
    };
    let mut out = String::new();
    for dialect in crate::workload::statement_log::DIALECTS {
        out.push_str(&format!("== ycsb {}\n", dialect.name()));
        // In the order they were added to the snapshot.
        let mut named: Vec<(&str, usize)> = ["drop", "create", "insert", "read", "scan"]
            .map(|name| (name, 0))
            .into();
        named.extend((0..shape.fields).map(|field| ("update", field)));
        named.push(("update_all", 0));
        for name in ["read_field", "scan_field"] {
            named.extend((0..shape.fields).map(|field| (name, field)));
        }
        for (name, field) in named {
            let s = statement(name, shape, field, dialect);
            out.push_str(&format!("{name}: {s}\n"));
        }
    }
    out
}
