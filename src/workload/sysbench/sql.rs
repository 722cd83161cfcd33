//! The Rust side of sysbench's SQL API: connections, prepared statements with bound
//! parameters, result sets and bulk inserts, on hakari's SQL engines, counting each statement
//! as sysbench counts it (a read returns rows; a write changes some; anything else is other).
//! `api.lua` wraps these in the objects scripts see and raises their errors as sysbench does.

use super::bulk::Bulk;
use super::rand::Generator;
use super::results::{ResultSet, Results};
use crate::engine::kv::is_conflict;
use crate::engine::sql::{ServerError, SqlConnection, SqlDatabase, SqlValue, Stmt};
use mlua::{AnyUserData, Lua, Table, UserData, UserDataMethods, Variadic};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What one thread's statements counted, as sysbench counts them; read by the run's resource
/// source while the thread runs (only this thread writes them).
#[derive(Default, Debug)]
#[repr(align(64))]
pub struct Counts {
    pub reads: AtomicU64,
    pub writes: AtomicU64,
    pub other: AtomicU64,
    pub errors: AtomicU64,
    pub reconnects: AtomicU64,
    /// Rows sent through `bulk_insert_next` (what `prepare` loaded).
    pub bulk_rows: AtomicU64,
}

fn bump(counter: &AtomicU64) {
    counter.store(counter.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
}

thread_local! {
    /// The counts of the Lua state this thread runs, for `sb_counter_inc`.
    static COUNTS: RefCell<Option<Arc<Counts>>> = const { RefCell::new(None) };
}

/// Makes `counts` the ones `sb_counter_inc` adds to on this thread.
pub fn count_here(counts: Arc<Counts>) {
    COUNTS.with(|c| *c.borrow_mut() = Some(counts));
}

/// sysbench's `sb_counter_inc(thread, counter)`, which scripts reach through LuaJIT's FFI
/// (sysbench-tpcc counts the New-Order rollbacks it makes itself as errors): it adds to the
/// counts of the state this thread runs. The binary exports it (build.rs), as sysbench's does,
/// so that `ffi.C` finds it.
#[no_mangle]
pub extern "C" fn sb_counter_inc(_thread: std::ffi::c_int, counter: std::ffi::c_int) {
    COUNTS.with(|c| {
        if let Some(c) = c.borrow().as_ref() {
            // sysbench's sb_counter_type: OTHER, READ, WRITE, TRX, ERROR, RECONNECT.
            match counter {
                0 => bump(&c.other),
                1 => bump(&c.reads),
                2 => bump(&c.writes),
                4 => bump(&c.errors),
                5 => bump(&c.reconnects),
                _ => {}
            }
        }
    });
}

/// Which server errors restart the event instead of ending the run (sysbench's drivers:
/// `--mysql-ignore-errors`, PostgreSQL's deadlocks, serialization failures and unique
/// violations).
#[derive(Clone, Debug)]
pub enum Ignore {
    Codes(Vec<i64>),
    All,
    PostgresStates,
}

/// What every connection of one Lua state shares.
pub struct Local {
    /// None in the state that only reads the script's options, before any server starts.
    pub db: Option<Arc<Box<dyn SqlDatabase>>>,
    pub counts: Arc<Counts>,
    pub rng: Rc<RefCell<Generator>>,
    pub ignore: Ignore,
    pub postgres: bool,
}

type Shared = Rc<RefCell<Option<Box<dyn SqlConnection>>>>;

/// A connection (`drv:connect()`).
pub struct Connection {
    conn: Shared,
    local: Rc<Local>,
    bulk: Option<Bulk>,
    /// What the last statement returned: one per connection, as sysbench's driver keeps it, so
    /// that a statement makes no new object for the script's collector.
    results: Rc<RefCell<Results>>,
}

/// The statements sysbench's scripts prepare that are transaction control: sent as they are.
fn control(sql: &str) -> bool {
    let word = sql.trim().trim_end_matches(';').trim().to_ascii_uppercase();
    matches!(
        word.as_str(),
        "BEGIN" | "COMMIT" | "ROLLBACK" | "START TRANSACTION"
    )
}

/// Whether a statement's text returns rows (sysbench asks the driver; hakari's connection
/// answers by kind of call, so the leading word decides which call).
fn returns_rows(sql: &str) -> bool {
    let first = sql.trim_start().trim_start_matches('(');
    let word: String = first
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect::<String>()
        .to_ascii_uppercase();
    matches!(
        word.as_str(),
        "SELECT"
            | "SHOW"
            | "WITH"
            | "VALUES"
            | "EXPLAIN"
            | "DESCRIBE"
            | "DESC"
            | "TABLE"
            | "CHECK"
            | "ANALYZE"
            | "CHECKSUM"
    )
}

impl Connection {
    pub fn open(local: Rc<Local>) -> anyhow::Result<Connection> {
        let conn = database(&local)?.connect_tool()?;
        Ok(Connection {
            conn: Rc::new(RefCell::new(Some(conn))),
            local,
            bulk: None,
            results: Rc::default(),
        })
    }

    fn with<T>(
        &self,
        lua: &Lua,
        call: impl FnOnce(&mut dyn SqlConnection) -> anyhow::Result<T>,
    ) -> mlua::Result<Result<T, Table>> {
        with(&self.conn, &self.local, lua, call)
    }

    /// Sends the rows gathered; each chunk counts as sysbench counts its INSERT.
    fn bulk_flush(&mut self, lua: &Lua) -> mlua::Result<Option<Table>> {
        let Some(chunks) = self.bulk.as_mut().map(Bulk::take) else {
            return Ok(None);
        };
        let counts = self.local.counts.clone();
        for chunk in chunks {
            match self.with(lua, |c| chunk.send(c))? {
                Ok(n) => bump(if n > 0 { &counts.writes } else { &counts.other }),
                Err(e) => return Ok(Some(e)),
            }
        }
        Ok(None)
    }
}

fn closed() -> mlua::Error {
    mlua::Error::runtime("the connection is closed (disconnect)")
}

fn database(local: &Local) -> anyhow::Result<&dyn SqlDatabase> {
    match &local.db {
        Some(db) => Ok(db.as_ref().as_ref()),
        None => anyhow::bail!(
            "no connection while sysbench's options are read (the script's top level connects)"
        ),
    }
}

/// Runs `call` on the open connection; an error becomes sysbench's error description.
fn with<T>(
    conn: &Shared,
    local: &Local,
    lua: &Lua,
    call: impl FnOnce(&mut dyn SqlConnection) -> anyhow::Result<T>,
) -> mlua::Result<Result<T, Table>> {
    let mut guard = conn.borrow_mut();
    let Some(conn) = guard.as_mut() else {
        return Err(closed());
    };
    match call(conn.as_mut()) {
        Ok(v) => Ok(Ok(v)),
        Err(e) => failure(conn.as_mut(), local, lua, e).map(Err),
    }
}

/// A statement's error on `conn`, counted, as sysbench's error description; a lost connection
/// raised past the script, for the runner (with --fault the worker's state is made anew: a
/// new connection, thread_init again, and the event counts as failed).
fn failure(
    conn: &mut dyn SqlConnection,
    local: &Local,
    lua: &Lua,
    e: anyhow::Error,
) -> mlua::Result<Table> {
    bump(&local.counts.errors);
    if crate::measure::fault::is_connection_lost(&e) {
        // What the server said, without the mark one_line puts back.
        let said = format!("{e:#}");
        let prefix = format!("{}: ", crate::measure::fault::ConnectionLost);
        let said = said.strip_prefix(&prefix).unwrap_or(&said).to_string();
        return Err(mlua::Error::external(Lost(said)));
    }
    let described = describe(lua, &e, local)?;
    if local.postgres && described.get::<bool>("ignorable")? {
        // As sysbench's PostgreSQL driver: the failed transaction is rolled back.
        let _ = conn.execute("ROLLBACK");
    }
    Ok(described)
}

/// A lost connection raised through the script as it was (see `lua::one_line`).
#[derive(Debug)]
pub struct Lost(pub String);

impl std::fmt::Display for Lost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Lost {}

/// sysbench's error description: `sql_errno`, `sql_state`, `sql_errmsg`, and whether the
/// driver counts it ignorable (the event restarts).
fn describe(lua: &Lua, e: &anyhow::Error, local: &Local) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    let (code, state, message) = match e.downcast_ref::<ServerError>() {
        Some(s) => (s.code, s.state.clone(), s.message.clone()),
        None => (0, "HY000".to_string(), format!("{e:#}")),
    };
    let ignorable = match &local.ignore {
        Ignore::All => true,
        Ignore::Codes(codes) => codes.contains(&code),
        Ignore::PostgresStates => {
            ["40P01", "23505", "40001"].contains(&state.as_str()) || is_conflict(e)
        }
    };
    t.set("sql_errno", code)?;
    t.set("sql_state", state)?;
    t.set("sql_errmsg", message)?;
    t.set("ignorable", ignorable)?;
    Ok(t)
}

impl UserData for Connection {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("results", |_, this, ()| Ok(ResultSet(this.results.clone())));
        methods.add_method("query", |lua, this, sql: mlua::String| {
            let sql = sql.to_str()?;
            let counts = &this.local.counts;
            let mut results = this.results.borrow_mut();
            let outcome = if returns_rows(&sql) {
                this.with(lua, |c| c.query_kept(&sql))?.map(|kept| {
                    bump(&counts.reads);
                    results.read(kept)
                })
            } else {
                this.with(lua, |c| c.execute(&sql))?.map(|n| {
                    bump(if n > 0 { &counts.writes } else { &counts.other });
                    results.changed(n)
                })
            };
            Ok(outcome.err())
        });
        methods.add_method("prepare", |lua, this, sql: mlua::String| {
            let sql = sql.to_str()?.to_string();
            if this.local.postgres {
                // sysbench's pgsql driver names each prepared statement from two draws of the
                // thread's generator: drawn here too, so that what the script draws next is
                // what it draws under sysbench.
                let mut rng = this.local.rng.borrow_mut();
                rng.next_u64();
                rng.next_u64();
            }
            let statement = if control(&sql) {
                Statement::prepared(this, None, false, sql)
            } else {
                let prepared = this.with(lua, |c| {
                    let stmt = c.prepare(&sql)?;
                    let reads = !c.columns(stmt)?.is_empty();
                    Ok((stmt, reads))
                })?;
                match prepared {
                    Ok((stmt, reads)) => Statement::prepared(this, Some(stmt), reads, sql),
                    Err(e) => return Ok((None, Some(e))),
                }
            };
            Ok((Some(lua.create_userdata(statement)?), None))
        });
        methods.add_method_mut("bulk_insert_init", |lua, this, head: String| {
            if let Some(e) = this.bulk_flush(lua)? {
                return Ok(Some(e));
            }
            let delimited = match this.with(lua, |c| Ok(c.capabilities().delimited))? {
                Ok(delimited) => delimited,
                Err(e) => return Ok(Some(e)),
            };
            this.bulk = Some(Bulk::new(head, delimited));
            Ok(None)
        });
        methods.add_method_mut("bulk_insert_next", |lua, this, row: mlua::String| {
            let row = row.to_str()?;
            let full = match this.bulk.as_mut() {
                None => {
                    return Err(mlua::Error::runtime(
                        "bulk_insert_next() before bulk_insert_init()",
                    ))
                }
                Some(b) => b.add(&row),
            };
            bump(&this.local.counts.bulk_rows);
            match full {
                true => this.bulk_flush(lua),
                false => Ok(None),
            }
        });
        methods.add_method_mut("bulk_insert_done", |lua, this, ()| {
            let e = this.bulk_flush(lua)?;
            this.bulk = None;
            Ok(e)
        });
        methods.add_method("disconnect", |_, this, ()| {
            this.conn.borrow_mut().take();
            Ok(())
        });
        methods.add_method("reconnect", |_, this, ()| {
            let fresh = (database(&this.local).and_then(|db| db.connect_tool()))
                .map_err(mlua::Error::external)?;
            *this.conn.borrow_mut() = Some(fresh);
            bump(&this.local.counts.reconnects);
            Ok(())
        });
    }
}

/// A prepared statement (`con:prepare`), with the parameters bound to it; shared with the
/// script's object, whose hot call (`execute`) reaches it through LuaJIT's FFI (`hot.rs`).
pub struct Statement {
    conn: Shared,
    local: Rc<Local>,
    results: Rc<RefCell<Results>>,
    stmt: Option<Stmt>,
    reads: bool,
    sql: String,
    params: Vec<Rc<RefCell<SqlValue>>>,
    values: Vec<SqlValue>,
    /// The last execution's error, until the script's object asks for its description.
    pub failed: Option<anyhow::Error>,
}

/// The script's handle on a [`Statement`].
pub struct StatementRef(Rc<RefCell<Statement>>);

impl Statement {
    fn prepared(con: &Connection, stmt: Option<Stmt>, reads: bool, sql: String) -> StatementRef {
        StatementRef(Rc::new(RefCell::new(Statement {
            conn: con.conn.clone(),
            local: con.local.clone(),
            results: con.results.clone(),
            stmt,
            reads,
            sql,
            params: Vec::new(),
            values: Vec::new(),
            failed: None,
        })))
    }

    /// Sends the statement with its parameters' values, counting it as sysbench does; an error
    /// is kept in `failed` (Err). None: the connection is closed, nothing was sent.
    pub fn send(&mut self) -> Option<Result<(), ()>> {
        // Each value written over the last one's (no allocation for text set again).
        self.values.resize(self.params.len(), SqlValue::Null);
        for (value, param) in self.values.iter_mut().zip(&self.params) {
            value.clone_from(&param.borrow());
        }
        let (stmt, values, reads, sql) = (self.stmt, &self.values, self.reads, &self.sql);
        let mut results = self.results.borrow_mut();
        let mut guard = self.conn.borrow_mut();
        let c = guard.as_mut()?;
        let outcome = match stmt {
            None => c.execute(sql).map(|n| results.changed(n)),
            // sysbench's PostgreSQL driver keeps a prepared read's result, libpq's, a value read
            // only when the script fetches its row; its MySQL driver stores the rows in the
            // client library, counted and never read.
            Some(s) if reads && self.local.postgres => c
                .query_prepared_kept(s, values)
                .map(|kept| results.read(kept)),
            Some(s) if reads => c.run_prepared(s, values).map(|n| results.unread(n)),
            Some(s) => c.exec_prepared(s, values).map(|n| results.changed(n)),
        };
        Some(match outcome {
            Ok(()) => {
                let counts = &self.local.counts;
                bump(match (reads, results.nrows) {
                    (true, _) => &counts.reads,
                    (false, 0) => &counts.other,
                    (false, _) => &counts.writes,
                });
                Ok(())
            }
            Err(e) => {
                self.failed = Some(e);
                Err(())
            }
        })
    }

    /// The kept error's description (see [`failure`]); none when nothing failed.
    fn failure(&mut self, lua: &Lua) -> mlua::Result<Option<Table>> {
        let Some(e) = self.failed.take() else {
            return Ok(None);
        };
        let mut guard = self.conn.borrow_mut();
        match guard.as_mut() {
            Some(c) => failure(c.as_mut(), &self.local, lua, e).map(Some),
            None => Err(closed()),
        }
    }

    /// `execute` through Lua's C API: sends, then describes an error.
    fn execute(&mut self, lua: &Lua) -> mlua::Result<Option<Table>> {
        match self.send() {
            None => Err(closed()),
            Some(Ok(())) => Ok(None),
            Some(Err(())) => self.failure(lua),
        }
    }
}

/// sysbench.sql.type: CHAR and VARCHAR are text, FLOAT and DOUBLE floating point, the rest
/// integers.
fn kind_of(btype: i64) -> mlua::Result<Kind> {
    match btype {
        1..=4 => Ok(Kind::Int),
        5 | 6 => Ok(Kind::Float),
        11 | 12 => Ok(Kind::Text),
        other => Err(mlua::Error::runtime(format!(
            "Unsupported argument type: {other}"
        ))),
    }
}

impl UserData for StatementRef {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method(
            "bind_create",
            |lua, this, (btype, max_len): (i64, Option<usize>)| {
                let kind = kind_of(btype)?;
                let param = Param {
                    kind,
                    max_len: max_len.unwrap_or(8),
                    value: Rc::new(RefCell::new(SqlValue::Null)),
                    rng: this.0.borrow().local.rng.clone(),
                    scratch: Vec::new(),
                };
                lua.create_userdata(param)
            },
        );
        methods.add_method("bind_param", |_, this, params: Variadic<AnyUserData>| {
            this.0.borrow_mut().params = (params.iter())
                .map(|p| Ok(p.borrow::<Param>()?.value.clone()))
                .collect::<mlua::Result<_>>()?;
            Ok(0)
        });
        methods.add_method("execute", |lua, this, ()| this.0.borrow_mut().execute(lua));
        methods.add_method("failure", |lua, this, ()| this.0.borrow_mut().failure(lua));
        // The statement's address, for `hot::execute`: it lives as long as this handle.
        methods.add_method("hot", |_, this, ()| {
            Ok(mlua::LightUserData(Rc::as_ptr(&this.0) as *mut _))
        });
        methods.add_method("close", |_, this, ()| {
            this.0.borrow_mut().params.clear();
            Ok(0)
        });
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Int,
    Float,
    Text,
}

/// A bound parameter (`stmt:bind_create`): `set` and `set_rand_str` change what the next
/// `execute` sends.
pub struct Param {
    kind: Kind,
    max_len: usize,
    value: Rc<RefCell<SqlValue>>,
    rng: Rc<RefCell<Generator>>,
    scratch: Vec<u8>,
}

impl UserData for Param {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        // The value's address and kind for `hot::set_number` (1 integer, 2 floating point, 0
        // text, which only `set` takes): it lives as long as this parameter.
        methods.add_method("hot", |_, this, ()| {
            let kind = match this.kind {
                Kind::Int => 1,
                Kind::Float => 2,
                Kind::Text => 0,
            };
            Ok((mlua::LightUserData(Rc::as_ptr(&this.value) as *mut _), kind))
        });
        methods.add_method("set", |_, this, value: mlua::Value| {
            let v = match (&value, this.kind) {
                (mlua::Value::Nil, _) => SqlValue::Null,
                (_, Kind::Int) => SqlValue::Int(number(&value)? as i64),
                (_, Kind::Float) => SqlValue::Float(number(&value)?),
                (_, Kind::Text) => {
                    let s = match &value {
                        mlua::Value::String(s) => s.to_string_lossy(),
                        other => other.to_string()?,
                    };
                    let end = (0..=s.len().min(this.max_len))
                        .rev()
                        .find(|&i| s.is_char_boundary(i));
                    SqlValue::Text(s[..end.unwrap_or(0)].to_string())
                }
            };
            *this.value.borrow_mut() = v;
            Ok(())
        });
        methods.add_method_mut("set_rand_str", |_, this, fmt: mlua::String| {
            if this.kind != Kind::Text {
                return Err(mlua::Error::runtime(
                    "set_rand_str() takes a CHAR or VARCHAR parameter",
                ));
            }
            let mut scratch = std::mem::take(&mut this.scratch);
            this.rng.borrow_mut().string(&fmt.as_bytes(), &mut scratch);
            scratch.truncate(this.max_len);
            let text = String::from_utf8_lossy(&scratch);
            match &mut *this.value.borrow_mut() {
                // Written over the last string: no allocation per call.
                SqlValue::Text(kept) => {
                    kept.clear();
                    kept.push_str(&text);
                }
                other => *other = SqlValue::Text(text.into_owned()),
            }
            this.scratch = scratch;
            Ok(())
        });
    }
}

/// A Lua number (or a number as text, or a 64-bit cdata's tostring) as a float.
fn number(v: &mlua::Value) -> mlua::Result<f64> {
    match v {
        mlua::Value::Integer(i) => Ok(*i as f64),
        mlua::Value::Number(n) => Ok(*n),
        mlua::Value::Boolean(b) => Ok(*b as u8 as f64),
        other => {
            let text = other.to_string()?;
            let digits = text.trim_end_matches("ULL").trim_end_matches("LL");
            digits
                .parse::<f64>()
                .map_err(|_| mlua::Error::runtime(format!("'{text}' is not a number")))
        }
    }
}
