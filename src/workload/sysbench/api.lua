-- hakari's sysbench API: the objects sysbench 1.0's scripts use (sysbench.sql, .rand,
-- .cmdline, .hooks, .error and the legacy sb_* globals), on functions hakari gives this state
-- (the table passed in). Written for hakari from sysbench's documented behaviour.

local hk = ...
local ffi = require("ffi")

-- print() through hakari's own output, so that a script's lines and hakari's come in order.
local write_line = hk.write_line
function print(...)
   local parts = {}
   for i = 1, select("#", ...) do
      parts[i] = tostring((select(i, ...)))
   end
   write_line(table.concat(parts, "\t"))
end

-- The counter kinds scripts name through the FFI (ffi.C.sb_counter_inc(tid, ffi.C.SB_CNT_ERROR)).
ffi.cdef[[
typedef enum {
   SB_CNT_OTHER, SB_CNT_READ, SB_CNT_WRITE, SB_CNT_TRX, SB_CNT_ERROR, SB_CNT_RECONNECT, SB_CNT_MAX
} sb_counter_type;
]]

sysbench.error = { NONE = 0, RESTART_EVENT = 1 }
sysbench.hooks = {}

local cmdline = sysbench.cmdline
cmdline.ARG_NULL, cmdline.ARG_BOOL, cmdline.ARG_INT, cmdline.ARG_SIZE = 0, 1, 2, 3
cmdline.ARG_DOUBLE, cmdline.ARG_STRING, cmdline.ARG_LIST, cmdline.ARG_FILE = 4, 5, 6, 7
cmdline.ARG_MAX = 8
cmdline.PARALLEL_COMMAND = true

function cmdline.command_defined(name)
   return type(cmdline.commands) == "table" and cmdline.commands[name] ~= nil
      and cmdline.commands[name][1] ~= nil
end

function cmdline.command_parallel(name)
   return cmdline.command_defined(name)
      and cmdline.commands[name][2] == cmdline.PARALLEL_COMMAND
end

function cmdline.call_command(name)
   if not cmdline.command_defined(name) then
      return false
   end
   local rc = cmdline.commands[name][1]()
   return rc == nil or (rc and true or false)
end

-- The hot calls (hot.rs) through the FFI, so that an event stays in a compiled trace.
local hot_draw = ffi.cast("uint32_t (*)(void *, int, double, double)", hk.hot.draw)
local hot_set_number = ffi.cast("void (*)(void *, int, double)", hk.hot.set_number)
local hot_execute = ffi.cast("int (*)(void *)", hk.hot.execute)
local rng = ffi.cast("void *", hk.rng)

-- Random numbers: each a call into this thread's generator.
local rand = {}
sysbench.rand = rand
function rand.default(a, b) return hot_draw(rng, 0, a, b) end
function rand.uniform(a, b) return hot_draw(rng, 1, a, b) end
function rand.gaussian(a, b) return hot_draw(rng, 2, a, b) end
function rand.special(a, b) return hot_draw(rng, 3, a, b) end
function rand.pareto(a, b) return hot_draw(rng, 4, a, b) end
rand.unique = hk.unique
rand.string = hk.string
rand.uniform_double = hk.uniform_double
function rand.uniform_uint64()
   local high, low = hk.uint64_halves()
   return ffi.cast("uint64_t", high) * 4294967296 + low
end

-- SQL.
local sql = {}
sysbench.sql = sql
sql.type = {
   NONE = 0, TINYINT = 1, SMALLINT = 2, INT = 3, BIGINT = 4, FLOAT = 5, DOUBLE = 6,
   TIME = 7, DATE = 8, DATETIME = 9, TIMESTAMP = 10, CHAR = 11, VARCHAR = 12,
}
sql.error = { NONE = 0, IGNORABLE = 1, FATAL = 2 }

-- An error a statement returned: the event restarts when the driver or the script's
-- sql_error_ignorable hook says it may; otherwise the script stops, as in sysbench.
local function failed(con, e, query, level)
   e.connection = con
   e.query = query
   local ignorable = e.ignorable
   e.ignorable = nil
   if ignorable or (type(sysbench.hooks.sql_error_ignorable) == "function"
                       and sysbench.hooks.sql_error_ignorable(e)) then
      e.errcode = sysbench.error.RESTART_EVENT
      error(e, level)
   end
   error(string.format("SQL error, errno = %d, state = '%s': %s",
                       e.sql_errno, e.sql_state, e.sql_errmsg), level)
end

-- A bound parameter: a number goes in through the FFI, anything else through its method.
local param = {}
param.__index = param
param.__tostring = function() return "<sql_bind>" end

function param.set(self, value)
   if self.kind ~= 0 and type(value) == "number" then
      return hot_set_number(self.value, self.kind, value)
   end
   return self.raw:set(value)
end

function param.set_rand_str(self, fmt)
   return self.raw:set_rand_str(fmt)
end

local statement = {}
statement.__index = statement
statement.__tostring = function() return "<sql_statement>" end

function statement.bind_create(self, btype, max_len)
   local raw = self.raw:bind_create(btype, max_len)
   local value, kind = raw:hot()
   return setmetatable({ raw = raw, value = ffi.cast("void *", value), kind = kind }, param)
end

function statement.bind_param(self, ...)
   local n = select("#", ...)
   local raws = {...}
   for i = 1, n do
      if getmetatable(raws[i]) == param then
         raws[i] = raws[i].raw
      end
   end
   return self.raw:bind_param(unpack(raws, 1, n))
end

function statement.execute(self)
   local done = hot_execute(self.handle)
   if done ~= 0 then
      -- 1: it failed, the error kept; -1: not run, its method runs it (and says why).
      local e
      if done == 1 then e = self.raw:failure() else e = self.raw:execute() end
      if e then
         return failed(self.connection, e, "<prepared statement>", 3)
      end
   end
   return self.connection.rs
end

function statement.close(self)
   return self.raw:close()
end

local connection = {}
connection.__index = connection
connection.__tostring = function() return "<sql_connection>" end

function connection.query(self, query)
   local e = self.raw:query(query)
   if e then
      return failed(self, e, query, 3)
   end
   return self.rs
end

function connection.query_row(self, query)
   local rs = self:query(query)
   if rs == nil or rs.nrows == 0 then
      return nil
   end
   return unpack(rs:fetch_row(), 1, rs.nfields)
end

function connection.prepare(self, query)
   local raw, e = self.raw:prepare(query)
   if e then
      return failed(self, e, query, 3)
   end
   return setmetatable({ raw = raw, connection = self, handle = ffi.cast("void *", raw:hot()) },
                       statement)
end

local function bulk(self, call, ...)
   local e = self.raw[call](self.raw, ...)
   if e then
      return failed(self, e, "<bulk insert>", 4)
   end
   return true
end

function connection.bulk_insert_init(self, query)
   return bulk(self, "bulk_insert_init", query)
end

function connection.bulk_insert_next(self, row)
   return bulk(self, "bulk_insert_next", row)
end

function connection.bulk_insert_done(self)
   return bulk(self, "bulk_insert_done")
end

function connection.disconnect(self)
   return self.raw:disconnect()
end

function connection.reconnect(self)
   return self.raw:reconnect()
end

local driver = {}
driver.__index = driver
driver.__tostring = function() return "<sql_driver>" end

function driver.name(self)
   return hk.driver_name
end

function driver.connect(self)
   local raw = hk.connect()
   return setmetatable({ raw = raw, rs = raw:results() }, connection)
end

function sql.driver(name)
   if name ~= nil and name ~= hk.driver_name then
      error("this run's driver is " .. hk.driver_name .. ", not " .. tostring(name), 2)
   end
   return setmetatable({}, driver)
end

-- The event loop, as sysbench's own thread_run: in Lua, so that LuaJIT compiles it with the
-- event into one trace; each event begun and ended by a call into this thread's worker
-- (hot.rs), its restarts counted, any other error ending the loop.
local hot_more = ffi.cast("int (*)(void *)", hk.hot.more)
local hot_begin = ffi.cast("void (*)(void *)", hk.hot.begin)
local hot_end = ffi.cast("void (*)(void *, int)", hk.hot["end"])

function hk.run(events, thread_id)
   events = ffi.cast("void *", events)
   while hot_more(events) ~= 0 do
      hot_begin(events)
      local restarts = 0
      local ok, ret
      repeat
         ok, ret = pcall(event, thread_id)
         if not ok then
            if type(ret) == "table" and ret.errcode == sysbench.error.RESTART_EVENT then
               restarts = restarts + 1
               if sysbench.hooks.before_restart_event then
                  sysbench.hooks.before_restart_event(ret)
               end
            else
               error(ret, 0)
            end
         end
      until ok
      -- event() returning anything but nil or false ends this thread's loop, that event not
      -- counted, as in sysbench.
      if ret then
         return
      end
      hot_end(events, restarts)
   end
end

-- The legacy API's names for the same functions.
thread_id = sysbench.tid
test = cmdline.script_path
sb_rand = rand.default
sb_rand_str = rand.string
sb_rand_uniform = rand.uniform
sb_rand_gaussian = rand.gaussian
sb_rand_special = rand.special
sb_rnd = hk.rnd
function sb_rand_uniq(a, b)
   a = a or 0
   b = b or 4294967295
   local v
   repeat
      v = rand.unique()
   until v >= a and v <= b
   return v
end
