//! The calls a script's event makes most (`sysbench.rand.*`, a number into a bound parameter,
//! a prepared statement's `execute`) as plain C functions that `api.lua` calls through LuaJIT's
//! FFI, as sysbench's own API is FFI calls: a call through Lua's C API leaves the compiled
//! trace and goes through mlua's checks, and on two cores shared by 32 threads that cost is
//! the server's loss (`bench/README.md`). Each takes the address of what it works on, handed
//! to `api.lua` by the object's `hot` method; errors and everything else go through the
//! objects' methods.

use super::rand::Generator;
use super::sql::Statement;
use crate::engine::sql::SqlValue;
use mlua::{LightUserData, Lua, Table};
use std::cell::RefCell;
use std::ffi::{c_int, c_void};

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
    let sent = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.send()));
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

/// The functions' addresses by name, for `api.lua` to cast to their C types.
pub fn functions(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("draw", LightUserData(draw as *mut c_void))?;
    t.set("set_number", LightUserData(set_number as *mut c_void))?;
    t.set("execute", LightUserData(execute as *mut c_void))?;
    Ok(t)
}
