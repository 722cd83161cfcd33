//! The calls a script's event makes most (`sysbench.rand.*`, a number into a bound parameter,
//! a prepared statement's `execute`), and those of the event loop around it (`more`, `begin`,
//! `end`), as plain C functions that `api.lua` calls through LuaJIT's FFI, as sysbench's own
//! API is FFI calls: a call through Lua's C API leaves the compiled trace and goes through
//! mlua's checks, and on two cores shared by 32 threads that cost is the server's loss
//! (`bench/README.md`). Each takes the address of what it works on, handed to `api.lua` by the
//! object's `hot` method or the loop's caller; errors and everything else go through the
//! objects' methods.

use super::rand::Generator;
use super::sql::Statement;
use crate::engine::sql::SqlValue;
use crate::measure::runner::{Began, Worker};
use mlua::{LightUserData, Lua, Table};
use std::cell::RefCell;
use std::ffi::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicI64, Ordering};

/// `sysbench.rand.default/uniform/gaussian/special/pareto(a, b)` on the state's generator
/// (`kind` in that order), with the conversions the Lua function had.
extern "C" fn draw(rng: *const RefCell<Generator>, kind: c_int, a: f64, b: f64) -> u32 {
    // SAFETY: `rng` is the address of the state's generator, alive as long as its state.
    // Borrowed elsewhere only inside a call of this thread's that makes no draw through here,
    // so the borrow cannot fail; were it to, a panic could not cross into LuaJIT.
    let Ok(mut g) = (unsafe { &*rng }).try_borrow_mut() else {
        return 0;
    };
    let (a, b) = (a as i64 as u32, b as i64 as u32);
    match kind {
        0 => g.default(a, b),
        1 => g.uniform(a, b),
        2 => g.gaussian(a, b),
        3 => g.special(a, b),
        _ => g.pareto(a, b),
    }
}

/// `param:set(v)` for a number into an integer (`int` 1) or floating-point parameter.
extern "C" fn set_number(value: *const RefCell<SqlValue>, int: c_int, v: f64) {
    // SAFETY: `value` is the address of a parameter's value, alive as long as the parameter.
    // Borrowed elsewhere only while a statement copies it, never across this call.
    if let Ok(mut slot) = (unsafe { &*value }).try_borrow_mut() {
        *slot = match int {
            1 => SqlValue::Int(v as i64),
            _ => SqlValue::Float(v),
        };
    }
}

/// `stmt:execute()`: 0 done; 1 failed, the error kept for the statement's `failure`; -1 not
/// run here (the connection closed, or the statement busy), for its `execute` to say why.
extern "C" fn execute(stmt: *const RefCell<Statement>) -> c_int {
    // SAFETY: `stmt` is the address of a statement, alive as long as the script's object.
    let Ok(mut s) = (unsafe { &*stmt }).try_borrow_mut() else {
        return -1;
    };
    // A panic must not cross into LuaJIT: it becomes the statement's error.
    let sent = catch_unwind(AssertUnwindSafe(|| s.send()));
    match sent {
        Ok(None) => -1,
        Ok(Some(Ok(()))) => 0,
        Ok(Some(Err(()))) => 1,
        Err(_) => {
            s.failed = Some(anyhow::anyhow!("the statement's execution panicked"));
            1
        }
    }
}

/// What a thread's event loop (`hk.run` in `api.lua`) times its events with: the thread's
/// worker, the events left over all threads (`--events`), and the generator that draws once
/// after each event when sysbench keeps a latency histogram (`--percentile` above 0), so that
/// the next event draws what it draws under sysbench. The loop runs in Lua, as sysbench's own
/// `thread_run` does, so that LuaJIT compiles it with the event into one trace.
pub struct Events<'w, 'a> {
    worker: &'w mut Worker<'a>,
    left: Option<&'w AtomicI64>,
    histogram_draw: Option<&'w RefCell<Generator>>,
    began: Option<Began>,
    /// A call below panicked: the loop was told to stop, and the runner says so.
    pub panicked: bool,
}

impl<'w, 'a> Events<'w, 'a> {
    pub fn new(
        worker: &'w mut Worker<'a>,
        left: Option<&'w AtomicI64>,
        histogram_draw: Option<&'w RefCell<Generator>>,
    ) -> Self {
        Events {
            worker,
            left,
            histogram_draw,
            began: None,
            panicked: false,
        }
    }

    /// Its address, for the loop to hand back at each call; valid while `self` is borrowed.
    pub fn address(&mut self) -> LightUserData {
        LightUserData(self as *mut Self as *mut c_void)
    }
}

/// Runs `f` on the loop's `Events`, a panic noted (it must not cross into LuaJIT).
fn on_events<T: Default>(events: *mut c_void, f: impl FnOnce(&mut Events) -> T) -> T {
    // SAFETY: `events` is the address `Events::address` gave the loop, whose caller holds the
    // `Events` borrowed until the loop returns; each call here is the only use at its time.
    let events = unsafe { &mut *(events as *mut Events) };
    match catch_unwind(AssertUnwindSafe(|| f(&mut *events))) {
        Ok(v) => v,
        Err(_) => {
            events.panicked = true;
            T::default()
        }
    }
}

/// Whether to run another event: the step goes on, and (`--events`) one is left to take.
extern "C" fn more(events: *mut c_void) -> c_int {
    on_events(events, |e| {
        if e.panicked || !e.worker.more() {
            return 0;
        }
        let taken = e.left.is_none_or(|l| l.fetch_sub(1, Ordering::Relaxed) > 0);
        c_int::from(taken)
    })
}

/// An event begins (in an open loop, once its intended start has come).
extern "C" fn begin(events: *mut c_void) {
    on_events(events, |e| e.began = Some(e.worker.begin()))
}

/// The event begun last ended, after `restarts` restarts (`sysbench.error.RESTART_EVENT`).
extern "C" fn end(events: *mut c_void, restarts: c_int) {
    on_events(events, |e| {
        if let Some(began) = e.began.take() {
            e.worker.end(1, began);
        }
        (0..restarts).for_each(|_| e.worker.retried());
        if let Some(rng) = e.histogram_draw {
            rng.borrow_mut().next_u64();
        }
    })
}

/// The functions' addresses by name, for `api.lua` to cast to their C types.
pub fn functions(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("draw", LightUserData(draw as *mut c_void))?;
    t.set("set_number", LightUserData(set_number as *mut c_void))?;
    t.set("execute", LightUserData(execute as *mut c_void))?;
    t.set("more", LightUserData(more as *mut c_void))?;
    t.set("begin", LightUserData(begin as *mut c_void))?;
    t.set("end", LightUserData(end as *mut c_void))?;
    Ok(t)
}
