'''The trusted Lua core of the sandbox: budgets, the runner, read-only tables and print's buffer.

KERNEL_LUA runs once, in lupa's real global table, before the sandbox strips it. It captures what it
needs (debug.sethook, os.clock, load, collectgarbage ...) in locals no script can reach, and returns
a table K used by the guarded library (safelib.py) and by sandbox.py.

Budgets. A budgeted run sets a count hook on the running thread, and every coroutine the script
creates sets it on itself first thing. When it fires, the hook adds the instructions since the last
firing and checks the script's own time: os.clock (CPU seconds) minus the time spent inside
sandbox.paused(). Then it restarts the count, because Lua counts the hook's own instructions too.

How often it fires: every N instructions, N from 1024 down to 1 as the VM's memory grows. The
slowest single instructions (`..`, comparisons of long strings, a long __index chain) cost time in
proportion to something memory holds, so N * memory bounds the work between two clock checks.
Memory can grow a lot between two firings (`s = s .. s`), so a trusted __gc sentinel, finalized at
the end of every garbage collection cycle, makes the hook fire at the next instruction and choose N
again. Library calls whose work is not bounded that way are charged up front by the guarded
library (K.charge), which reads the clock when enough work has built up.

Once a budget is spent, the hook fires on every instruction of every thread it reaches and raises
again; pcall, xpcall, coroutine.resume and coroutine.wrap re-raise; and a coroutine the budget
killed can no longer be closed (its `__close` handlers would run with hooks off: Lua leaves a
thread's hooks disabled when an error leaves a hook).

Results are copied out in Lua, inside the budget, without metatables and with valid UTF-8 strings,
so that Python can read them without running script code.

Memory. lupa converts values between Python and Lua outside Lua's error protection, and inside its
callbacks with the GIL held: running out of memory there aborts the process or deadlocks it. So the
VM's memory limit is on only while script code runs (the runner turns it on and off), and every
Python function a script can reach goes through a gate that turns it off around the call. lupa also
keeps the last exception a callback raised; sandbox.py makes it drop it (see _forget_python_error).
'''

KERNEL_LUA = r"""
local MEMORY_LIMIT, OUTPUT_LIMIT, ARG_BYTES, ARG_ITEMS = ...
local G = _G
local debug, os, string, table, coroutine, utf8, math = G.debug, G.os, G.string, G.table, G.coroutine, G.utf8, G.math
local sethook, gethook, getinfo = debug.sethook, debug.gethook, debug.getinfo
local clock = os.clock
local collectgarbage = G.collectgarbage
local error, type, next, select, tostring = G.error, G.type, G.next, G.select, G.tostring
local rawget, rawlen, rawequal, rawset = G.rawget, G.rawlen, G.rawequal, G.rawset
local setmetatable, pcall, xpcall, load = G.setmetatable, G.pcall, G.xpcall, G.load
local co_running = coroutine.running
local s_sub, s_byte, s_format, s_match = string.sub, string.byte, string.format, string.match
local t_concat, t_unpack = table.concat, table.unpack
local utf8_len = utf8.len
local floor = math.floor

local K = {}
local S = { exceeded = false, exceeded_msg = nil, active = false }
K.S = S

-- Raw C functions, for the guarded library and the pattern matcher.
local C = {}
for k, v in next, string do C[k] = v end
for k, v in next, table do C["t_" .. k] = v end
C.error, C.type, C.tostring, C.select, C.next, C.pcall = error, type, tostring, select, next, pcall
C.setmetatable = setmetatable
K.C = C
K.getinfo = getinfo

K.MEMERR = "not enough memory"
local MEMERR = K.MEMERR

-- Budget state ------------------------------------------------------------------------

local count, ilimit = 0, 0
local start, tlimit, paused, pause_t0 = 0.0, 0.0, 0.0, nil
local cwork = 0
local MAXN = 1024
-- N * (memory in KiB) stays under this many KiB-instructions between two clock checks.
local KLIMIT = 65536
local CW_CHECK = 1000000
local trusted = {}
local prepaid = setmetatable({}, { __mode = "k" })
local poisoned = setmetatable({}, { __mode = "k" })
K.poisoned = poisoned
local msgs = {}

-- How many instructions between two checks, for the VM's current memory.
local function hook_n()
  local kb = collectgarbage("count")
  local n = MAXN
  local lim = KLIMIT / kb
  while n > lim and n > 1 do n = n // 2 end
  return n
end

local hook

local function exceed(kind)
  if not S.active then error(msgs[kind] or (kind .. " budget exceeded"), 0) end
  if not S.exceeded then
    S.exceeded = kind
    S.exceeded_msg = msgs[kind]
  end
  sethook(hook, "", 1)
  error(S.exceeded_msg, 0)
end
K.exceed = exceed

local function now()
  return pause_t0 or clock()
end

local function check_time()
  if S.active and not S.exceeded and now() - start - paused > tlimit then exceed("time") end
end

-- Charge work done in C that the hook cannot see; look at the clock when enough has built up.
-- A large charge usually means a large string now exists: the hook looks again at the next
-- instruction, so that N follows the memory.
function K.charge(n)
  if not S.active then return end
  if S.exceeded then error(S.exceeded_msg, 0) end
  cwork = cwork + n
  if cwork >= CW_CHECK then
    cwork = 0
    check_time()
  end
  if n >= 65536 then sethook(hook, "", 1) end
end

hook = function()
  if not S.active then return end
  if S.exceeded then
    local info = getinfo(2, "f")
    if info and trusted[info.func] then return end
    error(S.exceeded_msg, 0)
  end
  local _, _, n = gethook()
  count = count + n
  local kind = nil
  if count >= ilimit then kind = "instructions"
  elseif now() - start - paused > tlimit then kind = "time" end
  if kind then
    -- not in the runner's own last instructions: the script has finished by then
    local info = getinfo(2, "f")
    if info and trusted[info.func] then return end
    return exceed(kind)
  end
  local want = hook_n()
  if want > n then
    local co, main = co_running()
    if not main then
      local pre = prepaid[co] or 0
      if want > pre then
        count = count + (want - pre)
        prepaid[co] = want
      end
    end
  end
  -- Lua counts the hook's own instructions towards the next firing: start the count afresh.
  sethook(hook, "", want)
end

-- Memory can grow a lot between two firings (`s = s .. s` doubles a string per instruction), and
-- with it the cost of each instruction. Each completed garbage collection cycle finalizes this
-- sentinel, which makes the hook fire at the next instruction and pick N for the new memory.
-- (Finalizers run with hooks off; scripts cannot set __gc, only this trusted one exists.)
local SENTINEL_MT = {}
SENTINEL_MT.__gc = function()
  if S.active and not S.exceeded then sethook(hook, "", 1) end
  setmetatable({}, SENTINEL_MT)
end
setmetatable({}, SENTINEL_MT)

-- The first thing every coroutine the script creates runs: give it the hook, and pay up front
-- for the instructions it may leave uncounted when it ends between two firings.
function K.hook_this_thread()
  if S.exceeded then
    sethook(hook, "", 1)
    error(S.exceeded_msg, 0)
  end
  local n = hook_n()
  if S.active then count = count + n end
  prepaid[co_running()] = n
  sethook(hook, "", n)
end

-- A failed pcall/resume: re-raise what the script must not swallow.
function K.fatal(e)
  if S.exceeded then return true end
  if not S.active then return false end
  if rawequal(e, MEMERR) then
    S.exceeded = "memory"
    S.exceeded_msg = msgs.memory or MEMERR
    return true
  end
  return false
end

function K.reraise()
  sethook(hook, "", 1)
  error(S.exceeded_msg, 0)
end

function K.pause_begin()
  if pause_t0 == nil then pause_t0 = clock() end
end

function K.pause_end()
  if pause_t0 ~= nil then
    paused = paused + (clock() - pause_t0)
    pause_t0 = nil
  end
end

-- Text ---------------------------------------------------------------------------------

-- A string Python can decode: invalid UTF-8 sequences become U+FFFD.
local function sanitize(s)
  if utf8_len(s) then return s end
  local out, n, i = {}, 0, 1
  while true do
    local ok, bad = utf8_len(s, i)
    if ok then
      n = n + 1
      out[n] = s_sub(s, i)
      break
    end
    n = n + 1
    out[n] = s_sub(s, i, bad - 1)
    n = n + 1
    out[n] = "\u{FFFD}"
    i = bad + 1
  end
  return t_concat(out)
end
K.sanitize = sanitize

local function clip(s, limit)
  if #s <= limit then return s end
  -- cut on a character boundary where possible
  local cut = limit
  while cut > limit - 4 and cut > 1 do
    local b = s_byte(s, cut + 1)
    if b == nil or b < 0x80 or b >= 0xC0 then break end
    cut = cut - 1
  end
  return s_sub(s, 1, cut) .. " [...]"
end

-- Python calls -------------------------------------------------------------------------------

-- lupa allocates Lua memory outside Lua's error protection when it converts values between Python
-- and Lua. Failing there aborts the process, or deadlocks it inside a callback, so the memory limit
-- applies only while script code runs: `room(true)` lifts it, `room(false)` puts it back. Every
-- Python callable a script can reach is wrapped in a gate that lifts it around the call, turns a
-- Python exception into a string error, and wraps Python objects among the results, so scripts
-- never hold a Python object themselves.
local room = function() end
local describe = tostring
function K.set_python(room_fn, describe_fn)
  room, describe = room_fn, describe_fn
end

-- read-only proxy -> the table holding its contents (see "Read-only tables" below)
local BACKING = setmetatable({}, { __mode = "k" })
K.BACKING = BACKING

local gates = setmetatable({}, { __mode = "k" })
local pyerror, pyerror_msg = nil, nil
local wrap_value

local function gate_done(ok, ...)
  if ok then
    local n = select("#", ...)
    if n == 1 then
      local r = wrap_value((...), {})
      room(false)
      return r
    end
    local out = { n = n, ... }
    for i = 1, n do out[i] = wrap_value(out[i], {}) end
    room(false)
    return t_unpack(out, 1, n)
  end
  local e = ...
  -- describe also tells Python that lupa now holds a stale exception to be dropped
  local msg = describe(e)
  room(false)
  if type(e) == "userdata" then
    pyerror, pyerror_msg = e, msg
    error(msg, 2)
  end
  error(e, 0)
end

-- What a script hands one Python function is bounded: Python's work on it (jouet.parse reads
-- about a microsecond a byte) happens in one step the hook cannot interrupt. Strings count their
-- bytes, tables their entries (read raw, through read-only proxies, each table once), stopping as
-- soon as a limit is passed; so the walk itself is bounded too.
local function too_big(max_bytes, max_items, ...)
  local bytes, items = 0, 0
  local stack, top = { ... }, select("#", ...)
  local seen = {}
  while top > 0 do
    local v = stack[top]
    stack[top] = nil
    top = top - 1
    local tv = type(v)
    if tv == "string" then
      bytes = bytes + #v
      if bytes > max_bytes then return true end
    elseif tv == "table" and not seen[v] then
      seen[v] = true
      for k, x in next, BACKING[v] or v do
        items = items + 1
        if items > max_items then return true end
        top = top + 1
        stack[top] = k
        top = top + 1
        stack[top] = x
      end
    end
  end
  return false
end

-- The error names the script's line: the first caller that is not jouet's own Lua.
local function script_error(msg)
  local level = 3
  while true do
    local info = getinfo(level, "S")
    if info == nil then error(msg, 0) end
    if s_sub(info.source, 1, 8) ~= "=[jouet " then error(msg, level) end
    level = level + 1
  end
end

-- lupa decodes a string argument as UTF-8 and fails on invalid bytes, which would turn a rule's
-- jouet.deny("...\xff...") into an error and drop the denial: such strings go to Python with the
-- invalid sequences replaced. (Strings inside tables are copied clean by with_strings.)
local function valid_args(...)
  local n = select("#", ...)
  local args = nil
  for i = 1, n do
    local v = args and args[i] or (select(i, ...))
    if type(v) == "string" and not utf8_len(v) then
      args = args or { ... }
      args[i] = sanitize(v)
    end
  end
  return args, n
end

local function gate(u)
  local g = gates[u]
  if g then return g end
  g = function(...)
    if not S.active then return u(...) end
    if too_big(ARG_BYTES, ARG_ITEMS, ...) then
      script_error("a jouet function was handed more than " .. ARG_BYTES .. " bytes of text or "
        .. ARG_ITEMS .. " table entries in one call; pass it less (a part of the text, fewer paths)")
    end
    local args, n = valid_args(...)
    room(true)
    if args then return gate_done(pcall(u, t_unpack(args, 1, n))) end
    return gate_done(pcall(u, ...))
  end
  gates[u] = g
  return g
end

-- Python objects in v (or in a table it holds, walked raw, keys too) replaced by their gates.
wrap_value = function(v, seen)
  local tv = type(v)
  if tv == "userdata" then return gate(v) end
  if tv ~= "table" or seen[v] then return v end
  seen[v] = true
  local keys = nil
  for k, x in next, v do
    local tx = type(x)
    if tx == "userdata" then rawset(v, k, gate(x))
    elseif tx == "table" then wrap_value(x, seen) end
    if type(k) == "userdata" then
      keys = keys or {}
      keys[#keys + 1] = k
    elseif type(k) == "table" then
      wrap_value(k, seen)
    end
  end
  if keys then
    for i = 1, #keys do
      local k = keys[i]
      local x = rawget(v, k)
      rawset(v, k, nil)
      rawset(v, gate(k), x)
    end
  end
  return v
end
K.wrap_value = wrap_value

-- Read-only tables ------------------------------------------------------------------------

-- proxy -> the table holding its contents. A proxy is an empty table whose metatable reads from
-- its backing table and refuses writes; nested tables in the backing are proxies too.
local LOCKED = "The metatable is locked"
K.LOCKED = LOCKED

local function ro_newindex()
  error("attempt to modify a readonly table", 2)
end
local function ro_len(t)
  return rawlen(BACKING[t])
end
-- The iterator closes over the backing table: pairs must never hand it to the script as the
-- loop's state value, or the script could write to it.
local function ro_pairs(t)
  local b = BACKING[t]
  return function(_, k) return next(b, k) end, t, nil
end

local function make_proxy(backing)
  local proxy = {}
  setmetatable(proxy, {
    __index = backing, __newindex = ro_newindex, __len = ro_len, __pairs = ro_pairs,
    __metatable = LOCKED,
  })
  BACKING[proxy] = backing
  return proxy
end
K.make_proxy = make_proxy

-- A deep read-only snapshot of a table's raw contents (keys are kept as they are).
local function freeze(t, memo)
  if BACKING[t] then return t end
  local done = memo[t]
  if done then return done end
  local backing = {}
  local proxy = make_proxy(backing)
  memo[t] = proxy
  for k, v in next, t do
    local tv = type(v)
    if tv == "table" then v = freeze(v, memo)
    elseif tv == "userdata" then v = gate(v) end
    if type(k) == "userdata" then k = gate(k) end
    backing[k] = v
  end
  return proxy
end

function K.readonly(v)
  if type(v) ~= "table" then return v end
  return freeze(v, {})
end

-- Modules ----------------------------------------------------------------------------------
-- Tables jouet gives scripts (the jouet module, the call): read-only like readonly(), plus
-- `missing(key)` for a key the table lacks and `declared` does not list (jouet records it as a rule
-- gap), and `call` for a module that is a function too (jouet.git(command)).
local KNOWN = setmetatable({}, { __mode = "k" })  -- declared -> the set of its names
function K.module(t, missing, call, declared)
  local backing = BACKING[freeze(t, {})]
  if type(missing) == "userdata" then missing = gate(missing) end
  if type(call) == "userdata" then call = gate(call) end
  local known = declared and KNOWN[declared]
  if not known then
    known = {}
    if declared then
      for i = 1, rawlen(declared) do known[rawget(declared, i)] = true end
      KNOWN[declared] = known
    end
  end
  local index = backing
  if missing then
    index = function(_, k)
      local v = rawget(backing, k)
      if v == nil and not known[k] then return missing(k) end
      return v
    end
  end
  local proxy = {}
  setmetatable(proxy, {
    __index = index, __newindex = ro_newindex, __len = ro_len, __pairs = ro_pairs,
    __call = call and function(_, ...) return call(...) end or nil,
    __metatable = LOCKED,
  })
  BACKING[proxy] = backing
  return proxy
end

-- fn refusing more than max_bytes of text in one call, with an error naming `what`: for a function
-- whose work grows fast with its input (jouet.parse).
function K.limited(fn, max_bytes, what)
  if type(fn) == "userdata" then fn = gate(fn) end
  return function(...)
    if too_big(max_bytes, ARG_ITEMS, ...) then
      script_error(what .. " takes at most " .. max_bytes .. " bytes of text; pass it a part")
    end
    return fn(...)
  end
end

-- fn called with each string argument longer than max_bytes cut to max_bytes (on a character
-- boundary where possible), with a note of how long it was: for messages, so that a rule never
-- fails, and says nothing, because it said too much.
function K.clipping(fn, max_bytes)
  if type(fn) == "userdata" then fn = gate(fn) end
  return function(...)
    local n = select("#", ...)
    local args = { ... }
    for i = 1, n do
      local v = args[i]
      if type(v) == "string" and #v > max_bytes then
        local cut = max_bytes
        while cut > max_bytes - 4 and cut > 1 do
          local b = s_byte(v, cut + 1)
          if b == nil or b < 0x80 or b >= 0xC0 then break end
          cut = cut - 1
        end
        args[i] = s_sub(v, 1, cut) .. " [... cut by jouet: it was " .. #v .. " bytes]"
      end
    end
    return fn(t_unpack(args, 1, n))
  end
end

-- Tags name the tables jouet built (a call's commands, one command), so a helper given one back by
-- a script knows which it is without reading anything the script could have made.
local TAGS = setmetatable({}, { __mode = "k" })
function K.tag(t, id)
  TAGS[t] = id
  return t
end

-- A read-only list of modules made in one step, each like module(row, missing, nil, declared) and
-- tagged tags[i], the list tagged list_tag: a call's commands, from plain rows (no functions in them).
function K.module_list(rows, missing, declared, tags, list_tag)
  if type(missing) == "userdata" then missing = gate(missing) end
  local list = {}
  for i = 1, rawlen(rows) do
    local m = K.module(rawget(rows, i), missing, nil, declared)
    TAGS[m] = rawget(tags, i)
    list[i] = m
  end
  local frozen = K.readonly(list)
  TAGS[frozen] = list_tag
  return frozen
end

-- fn called with the tag of its argument at `position` in place of the argument (false when the
-- argument is not a table jouet tagged).
function K.by_tag(fn, position)
  if type(fn) == "userdata" then fn = gate(fn) end
  return function(...)
    local args = { ... }
    local n = select("#", ...)
    local t = args[position]
    args[position] = type(t) == "table" and TAGS[t] or false
    return fn(t_unpack(args, 1, n > position and n or position))
  end
end

-- fn called with a plain copy of the list of strings at `position` (read raw: a script's own table
-- runs no metamethod), or an error naming `what`; with `optional`, nil there is passed on as nil.
function K.with_strings(fn, position, what, optional)
  if type(fn) == "userdata" then fn = gate(fn) end
  return function(...)
    local args = { ... }
    local n = select("#", ...)
    local t = args[position]
    if t == nil and optional then return fn(...) end
    if type(t) ~= "table" then error(what .. " must be a list of strings", 2) end
    local b = BACKING[t] or t
    local copy = {}
    for i = 1, rawlen(b) do
      local v = rawget(b, i)
      if type(v) ~= "string" then error(what .. " must be a list of strings", 2) end
      if not utf8_len(v) then v = sanitize(v) end
      copy[i] = v
    end
    args[position] = copy
    return fn(t_unpack(args, 1, n > position and n or position))
  end
end

-- Results ----------------------------------------------------------------------------------

-- Python converts the copy outside any budget: keep it to what a rule's answer needs.
local MAX_DEPTH, MAX_ITEMS = 32, 10000

-- A copy Python can read without running script code: no metatables, proxies replaced by their
-- contents, strings valid UTF-8. Functions and Python objects are kept as they are.
local function plain(v)
  local items = 0
  local onpath = {}
  local function copy(x, depth)
    local tx = type(x)
    if tx == "string" then return sanitize(x) end
    if tx ~= "table" then return x end
    local b = BACKING[x]
    if b then x = b end
    if onpath[x] then error("the value returned contains a table inside itself", 0) end
    if depth >= MAX_DEPTH then error("the value returned nests tables more than 32 deep", 0) end
    onpath[x] = true
    local out = {}
    for k, val in next, x do
      local tk = type(k)
      if tk == "string" then
        k = sanitize(k)
      elseif tk ~= "number" then
        error("the value returned has a " .. tk .. " as a table key; only strings and numbers can be keys", 0)
      end
      items = items + 1
      if items > MAX_ITEMS then error("the value returned holds more than 10000 values", 0) end
      out[k] = copy(val, depth + 1)
    end
    onpath[x] = nil
    return out
  end
  return copy(v, 0)
end

-- Running under a budget ---------------------------------------------------------------------

local cur_source = nil
local err_line = nil

local function handler(e)
  local line = nil
  if cur_source then
    for level = 2, 200 do
      local info = getinfo(level, "Sl")
      if not info then break end
      if info.source == cur_source and info.currentline and info.currentline > 0 then
        line = info.currentline
        break
      end
    end
  end
  err_line = line
  return e
end

local function body(fn, ...)
  return plain((fn(...)))
end

local function error_text(e)
  local t = type(e)
  if t == "string" then return e end
  if t == "number" or t == "boolean" or t == "nil" then return tostring(e) end
  return "(error object is a " .. t .. " value)"
end

-- Run fn(...) with a budget of seconds and instructions. Returns true and the plain result, or
-- false, the budget kind that ran out (or nil), a message, the script's line (or nil), the error
-- value itself when it is a Python object (an exception a Python function raised), and the
-- name of fn's chunk.
local function runner(seconds, instructions, fn, ...)
  local info = getinfo(fn, "S")
  cur_source = info.source
  local short = info.short_src
  local name = nil
  if s_sub(cur_source, 1, 1) == "=" then name = sanitize(s_sub(cur_source, 2)) end
  local nargs = select("#", ...)
  local args = { ... }
  for i = 1, nargs do args[i] = wrap_value(args[i], {}) end
  err_line, pyerror, pyerror_msg = nil, nil, nil
  S.exceeded, S.exceeded_msg = false, nil
  msgs.time = s_format("time budget exceeded: the script worked for more than %d ms;"
    .. " make it do less per call", floor(seconds * 1000 + 0.5))
  msgs.instructions = s_format("instruction budget exceeded: the script ran more than %d instructions;"
    .. " make it do less per call", instructions)
  msgs.memory = s_format("memory budget exceeded: the VM may use %d MiB; build smaller strings and tables",
    MEMORY_LIMIT // 1048576)
  count, ilimit, tlimit, paused, pause_t0, cwork = 0, instructions, seconds, 0.0, nil, 0
  S.active = true
  room(false)
  start = clock()
  sethook(hook, "", hook_n())
  local ok, r = xpcall(body, handler, fn, t_unpack(args, 1, nargs))
  sethook()
  S.active = false
  -- Lift the limit before lupa converts what this returns. With the VM full even this call can
  -- fail (Lua may need memory to call it): then raise, and let Python lift it.
  if not pcall(room, true) then
    S.exceeded, S.exceeded_msg = false, nil
    error(MEMERR, 0)
  end
  local kind = S.exceeded
  S.exceeded, S.exceeded_msg = false, nil
  local cause, cause_msg = pyerror, pyerror_msg
  pyerror, pyerror_msg = nil, nil
  if ok then return true, r end
  if not kind and rawequal(r, MEMERR) then kind = "memory" end
  if kind then
    return false, kind, msgs[kind], err_line, nil, name
  end
  local msg = clip(error_text(r), 2000)
  -- a position inside the sandbox's own chunks means nothing to the script's author
  local inner = s_match(msg, "^%[jouet [%w ]+%]:%d+: ()")
  if inner then msg = s_sub(msg, inner) end
  local prefix = short .. ":"
  if s_sub(msg, 1, #prefix) == prefix then
    local digits, rest = s_match(msg, "^(%d+): ?()", #prefix + 1)
    if digits then
      err_line = digits + 0
      msg = s_sub(msg, rest)
    end
  end
  if not (cause_msg and msg == cause_msg) then cause = nil end
  return false, nil, sanitize(msg), err_line, cause, name
end
trusted[runner] = true
trusted[handler] = true
trusted[gate_done] = true
K.runner = runner

-- Turn every hook off on this thread and forget the running budget (after an error escaped).
function K.reset()
  sethook()
  S.active = false
  S.exceeded, S.exceeded_msg = false, nil
  pause_t0 = nil
end

-- The name a chunk was loaded under, or nil.
function K.source_name(fn)
  if type(fn) ~= "function" then return nil end
  local source = getinfo(fn, "S").source
  if s_sub(source, 1, 1) ~= "=" then return nil end
  return sanitize(s_sub(source, 2))
end

-- Compiling a script's chunk: its text, or the bytecode Python found in the package for exactly
-- that text (a built-in rule's, see precompiled.py); never bytecode from anywhere else.
function K.compile(source, chunkname, env, code)
  if code ~= nil then
    local fn = load(code, "=" .. chunkname, "b", env)
    if fn then return fn end
  end
  local fn, err = load(source, "=" .. chunkname, "t", env)
  if fn then return fn end
  return nil, sanitize(clip(err, 2000))
end

-- print ------------------------------------------------------------------------------------

local out, nout, outsize, truncated = {}, 0, 0, false

function K.print_line(line)
  if truncated then return end
  local size = #line + 1
  if outsize + size > OUTPUT_LIMIT then
    truncated = true
    return
  end
  nout = nout + 1
  out[nout] = line
  outsize = outsize + size
end

function K.take_output()
  local text = t_concat(out, "\n", 1, nout)
  if nout > 0 then text = text .. "\n" end
  if truncated then text = text .. "[output truncated]\n" end
  out, nout, outsize, truncated = {}, 0, 0, false
  return sanitize(text)
end

return K
"""
