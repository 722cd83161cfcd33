//! One Lua state per thread, as sysbench has: LuaJIT with its FFI, `sysbench.*` made by
//! `api.lua` over this thread's generator and connections, `sysbench.opt` from the command
//! line, and the script loaded unchanged from its file.

use super::options::Value;
use super::rand::Unique;
use super::sql::{Connection, Local, Lost};
use crate::measure::fault::ConnectionLost;
use anyhow::{anyhow, Result};
use mlua::{Function, Lua, LuaOptions, StdLib, Table};
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

/// Where Debian's sysbench package keeps its scripts.
pub const PACKAGED: &str = "/usr/share/sysbench";

/// What a state is made with.
pub struct Setup<'a> {
    pub script: &'a Path,
    pub command: Option<&'a str>,
    pub argv: &'a [String],
    /// `sysbench.opt`: none yet in the state that reads the script's options.
    pub options: &'a [(String, Value)],
    /// The script declares none: the options are also globals (the legacy API).
    pub legacy: bool,
    pub tid: usize,
    pub driver: &'static str,
    pub unique: Arc<Unique>,
}

/// A thread's state with the script loaded.
pub struct State {
    pub lua: Lua,
    pub local: Rc<Local>,
}

/// A Lua error as one line: the script's file and line, and what it said (no traceback); a
/// lost connection stays one (`ConnectionLost`), for the runner to reconnect with --fault.
pub fn one_line(e: &mlua::Error) -> anyhow::Error {
    let text = match e {
        mlua::Error::CallbackError { cause, .. } => return one_line(cause),
        mlua::Error::ExternalError(inner) => match inner.downcast_ref::<Lost>() {
            Some(Lost(text)) => return anyhow!("{text}").context(ConnectionLost),
            None => inner.to_string(),
        },
        other => other.to_string(),
    };
    let first = text.lines().next().unwrap_or("").trim();
    anyhow!("{}", first.strip_prefix("runtime error: ").unwrap_or(first))
}

fn lua_err(e: mlua::Error) -> anyhow::Error {
    one_line(&e)
}

impl State {
    pub fn new(setup: &Setup, local: Rc<Local>) -> Result<State> {
        // SAFETY: the script is the user's own program, run with LuaJIT's FFI as sysbench runs
        // it (sysbench's own API and scripts such as sysbench-tpcc use the FFI).
        let lua = unsafe { Lua::unsafe_new_with(StdLib::ALL, LuaOptions::default()) };
        super::sql::count_here(local.counts.clone());
        let state = State { lua, local };
        state.globals(setup).map_err(lua_err)?;
        (state.lua.load(setup.script)).exec().map_err(lua_err)?;
        Ok(state)
    }

    fn globals(&self, setup: &Setup) -> mlua::Result<()> {
        let lua = &self.lua;
        let g = lua.globals();
        let package: Table = g.get("package")?;
        let dir = (setup.script.parent())
            .filter(|d| !d.as_os_str().is_empty())
            .map_or(".".to_string(), |d| d.display().to_string());
        let path: String = package.get("path")?;
        package.set(
            "path",
            format!("{dir}/?.lua;./?.lua;{PACKAGED}/?.lua;{path}"),
        )?;

        let sysbench = lua.create_table()?;
        sysbench.set("tid", setup.tid)?;
        sysbench.set("version", "1.0.20")?;
        sysbench.set("version_string", "sysbench 1.0.20 (hakari)")?;
        let cmdline = lua.create_table()?;
        let argv = lua.create_table()?;
        for (i, a) in setup.argv.iter().enumerate() {
            argv.raw_set(i, a.as_str())?;
        }
        cmdline.set("argv", argv)?;
        cmdline.set("command", setup.command)?;
        cmdline.set("script_path", setup.script.display().to_string())?;
        sysbench.set("cmdline", cmdline)?;
        let opt = lua.create_table()?;
        for (name, value) in setup.options {
            let v = to_lua(lua, value)?;
            opt.set(name.as_str(), v.clone())?;
            if setup.legacy
                && !matches!(
                    g.get::<mlua::Value>(name.as_str())?,
                    mlua::Value::Function(_)
                )
            {
                g.set(name.as_str(), v)?;
            }
        }
        sysbench.set("opt", opt)?;
        g.set("sysbench", sysbench)?;

        let hk = self.api(setup)?;
        lua.load(include_str!("api.lua"))
            .set_name("=hakari's sysbench API")
            .call::<()>(hk.clone())?;
        lua.set_named_registry_value("hakari", hk)?;
        Ok(())
    }

    /// The functions `api.lua` builds on.
    fn api(&self, setup: &Setup) -> mlua::Result<Table> {
        let lua = &self.lua;
        let hk = lua.create_table()?;
        hk.set("driver_name", setup.driver)?;
        hk.set(
            "write_line",
            lua.create_function(|_, line: mlua::String| {
                use std::io::Write;
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(&line.as_bytes());
                let _ = out.write_all(b"\n");
                Ok(())
            })?,
        )?;
        let rng = &self.local.rng;
        // The hot calls' addresses (`hot.rs`), and the generator's they draw from: it lives
        // as long as this state.
        hk.set("hot", super::hot::functions(lua)?)?;
        hk.set("rng", mlua::LightUserData(Rc::as_ptr(rng) as *mut _))?;
        let r = rng.clone();
        hk.set(
            "uniform_double",
            lua.create_function(move |_, ()| Ok(r.borrow_mut().double()))?,
        )?;
        let r = rng.clone();
        hk.set(
            "uint64_halves",
            lua.create_function(move |_, ()| {
                let v = r.borrow_mut().next_u64();
                Ok(((v >> 32) as u32, v as u32))
            })?,
        )?;
        let r = rng.clone();
        hk.set(
            "rnd",
            lua.create_function(move |_, ()| Ok(r.borrow_mut().next_u64() as u32))?,
        )?;
        let r = rng.clone();
        let mut scratch = Vec::new();
        hk.set(
            "string",
            lua.create_function_mut(move |lua, template: mlua::String| {
                r.borrow_mut().string(&template.as_bytes(), &mut scratch);
                lua.create_string(&scratch)
            })?,
        )?;
        let unique = setup.unique.clone();
        hk.set(
            "unique",
            lua.create_function(move |_, ()| Ok(unique.next()))?,
        )?;
        let local = self.local.clone();
        hk.set(
            "connect",
            lua.create_function(move |lua, ()| {
                let con = Connection::open(local.clone()).map_err(|e| {
                    mlua::Error::runtime(format!("connection creation failed: {e:#}"))
                })?;
                lua.create_userdata(con)
            })?,
        )?;
        Ok(hk)
    }

    /// A global function of the script's, if it defines one.
    pub fn function(&self, name: &str) -> Result<Option<Function>> {
        match self
            .lua
            .globals()
            .get::<mlua::Value>(name)
            .map_err(lua_err)?
        {
            mlua::Value::Function(f) => Ok(Some(f)),
            _ => Ok(None),
        }
    }

    /// Calls a global function of the script's, when it has one; `what` names it in errors.
    pub fn call_if_defined(&self, name: &str) -> Result<bool> {
        match self.function(name)? {
            Some(f) => {
                f.call::<mlua::Value>(()).map_err(lua_err)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The event loop api.lua defines (`hk.run`), called with the thread's `hot::Events` and
    /// its thread id.
    pub fn event_loop(&self) -> Result<Function> {
        let hk: Table = self.lua.named_registry_value("hakari").map_err(lua_err)?;
        hk.get("run").map_err(lua_err)
    }

    /// `sysbench.cmdline.commands[name]`: (defined, parallel).
    pub fn command(&self, name: &str) -> Result<(bool, bool)> {
        let cmdline = self.cmdline()?;
        let defined: Function = cmdline.get("command_defined").map_err(lua_err)?;
        let parallel: Function = cmdline.get("command_parallel").map_err(lua_err)?;
        Ok((
            defined.call(name).map_err(lua_err)?,
            parallel.call(name).map_err(lua_err)?,
        ))
    }

    pub fn call_command(&self, name: &str) -> Result<bool> {
        let call: Function = self.cmdline()?.get("call_command").map_err(lua_err)?;
        call.call(name).map_err(lua_err)
    }

    fn cmdline(&self) -> Result<Table> {
        let sysbench: Table = self.lua.globals().get("sysbench").map_err(lua_err)?;
        sysbench.get("cmdline").map_err(lua_err)
    }

    /// The options the script declares in `sysbench.cmdline.options`: None when it declares
    /// none.
    pub fn declared(&self) -> Result<Option<Vec<super::options::Declared>>> {
        use super::options::{Declared, Type};
        let options: Option<Table> = self.cmdline()?.get("options").map_err(lua_err)?;
        let Some(options) = options else {
            return Ok(None);
        };
        let mut out = Vec::new();
        for pair in options.pairs::<String, Table>() {
            let (name, def) = pair.map_err(|e| {
                anyhow!(
                    "wrong table structure in sysbench.cmdline.options: {}",
                    one_line(&e)
                )
            })?;
            let about: String = def.get(1).map_err(lua_err)?;
            let default: mlua::Value = def.get(2).map_err(lua_err)?;
            let declared_type: Option<i64> = def.get(3).map_err(lua_err)?;
            let (default, kind) = match &default {
                mlua::Value::Nil => (None, Type::Text),
                mlua::Value::Boolean(b) => {
                    (Some(if *b { "on" } else { "off" }.to_string()), Type::Bool)
                }
                mlua::Value::Integer(_) | mlua::Value::Number(_) => {
                    (Some(default.to_string().map_err(lua_err)?), Type::Double)
                }
                mlua::Value::Table(t) => {
                    let items: Vec<String> = t
                        .sequence_values::<String>()
                        .collect::<mlua::Result<_>>()
                        .map_err(lua_err)?;
                    (Some(items.join(",")), Type::List)
                }
                other => (Some(other.to_string().map_err(lua_err)?), Type::Text),
            };
            let kind = match declared_type {
                Some(1) => Type::Bool,
                Some(2) => Type::Int,
                Some(3) => Type::Size,
                Some(4) => Type::Double,
                Some(6) => Type::List,
                Some(_) => Type::Text,
                None => kind,
            };
            out.push(Declared {
                name: super::options::normal(&name),
                default,
                kind,
                about,
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Some(out))
    }
}

fn to_lua(lua: &Lua, value: &Value) -> mlua::Result<mlua::Value> {
    Ok(match value {
        Value::Bool(b) => mlua::Value::Boolean(*b),
        Value::Number(n) => mlua::Value::Number(*n),
        Value::Text(s) => mlua::Value::String(lua.create_string(s)?),
        Value::List(items) => {
            let t = lua.create_table()?;
            for (i, s) in items.iter().enumerate() {
                t.raw_set(i + 1, s.as_str())?;
            }
            mlua::Value::Table(t)
        }
    })
}
