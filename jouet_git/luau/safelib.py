'''The standard library rule scripts see, with every function that could escape a budget guarded.

SAFELIB_LUA is a trusted chunk the sandbox runs once, after the kernel (kernel.py) and the pattern
matcher (patterns.py). It gets the kernel table K, the matcher P, the Luau runtime's source and,
when there is one, its precompiled bytecode (precompiled.py: the sandbox checked it matches the
source; it is loaded in binary mode, and the source compiled instead if it does not load), and
returns the template every rule's globals are copied from. Library tables reach scripts as
read-only proxies; the string metatable's __index is the guarded string library and its
__metatable hides it.

What is left out: require, load, loadstring, dofile, loadfile, io, debug, collectgarbage, package,
string.dump, lupa's python module, and os beyond clock, time, date and difftime. Calls of the
clock, the date and the random generator are counted (Sandbox.varied).

What is guarded, and how:
- Calls into C that the hook cannot interrupt are run in C only when their work is provably small
  (and charged to the kernel's clock check); otherwise in Lua, where the hook applies:
  string.find/match/gmatch/gsub (the pattern matcher in patterns.py, or a plain search in bounded
  windows), string.rep (an empty string repeated forever, huge counts, results over the memory
  limit), table.move, table.sort (a Lua comparator above 64 elements), table.concat (in chunks),
  table.insert/remove on tables with a metatable (a lying __len would loop in C), table.unpack,
  string.byte, utf8.codepoint, string.format, string.upper/lower/reverse and string.pack.
- pcall, xpcall and coroutine.resume re-raise a spent budget or a memory error, xpcall does not run
  the script's handler for them, and coroutine.wrap is rebuilt so a dead coroutine's `__close`
  handlers run only while the hook still watches.
- setmetatable refuses a metatable with __gc (a finalizer would run later, outside any budget).
  getmetatable returns a protected table's __metatable, and nil for values that are not tables or
  strings (lupa's metatable for Python objects must stay out of reach).
- rawset refuses read-only tables; rawget, rawlen and next read through their proxies.
- print appends to the sandbox's bounded buffer instead of writing to stdout.

Errors raised by C on behalf of a guarded function name the script's line, as they would without
the guard: the C call runs under pcall and its message is re-raised one level up.
'''

SAFELIB_LUA = r"""
local K, P, RUNTIME_SOURCE, MEMORY_LIMIT, RUNTIME_BINARY = ...
local G = _G
local C, S = K.C, K.S
local charge, fatal, reraise, exceed = K.charge, K.fatal, K.reraise, K.exceed
local BACKING, poisoned, LOCKED, make_proxy = K.BACKING, K.poisoned, K.LOCKED, K.make_proxy

local type, select, error, tostring, tonumber = G.type, G.select, G.error, G.tostring, G.tonumber
local pcall, xpcall, assert, ipairs, pairs = G.pcall, G.xpcall, G.assert, G.ipairs, G.pairs
local setmetatable, getmetatable, rawget, rawset = G.setmetatable, G.getmetatable, G.rawget, G.rawset
local rawlen, rawequal, next, load = G.rawlen, G.rawequal, G.next, G.load
local math, os, utf8, coroutine, string, table = G.math, G.os, G.utf8, G.coroutine, G.string, G.table
local tointeger, floor, huge = math.tointeger, math.floor, math.huge
local co_create, co_resume, co_status, co_close = coroutine.create, coroutine.resume, coroutine.status, coroutine.close
local co_wrap = coroutine.wrap
local c_find, c_sub, c_byte, c_gsub, c_rep, c_gmatch, c_match = C.find, C.sub, C.byte, C.gsub, C.rep, C.gmatch, C.match
local c_format = C.format
local t_concat, t_unpack, t_pack, t_insert, t_remove, t_move, t_sort =
  table.concat, table.unpack, table.pack, table.insert, table.remove, table.move, table.sort
local u_codepoint = utf8.codepoint

-- Steps a call may take in C before it must run in Lua instead: measured at 1 to 3 ns a step, a
-- call that C may run takes a few milliseconds at most.
local E_MAX = 1000000
local SPECIALS = "[%^%$%*%+%?%.%(%[%%%-]"
local POSITIONED = "^[^\n]-:%d+: "

local getinfo = K.getinfo

-- Whether a pattern has a magic character. C tests each byte of a run against the set's eleven
-- entries (about a dozen steps a byte), so a long pattern is looked at piece by piece.
local SPECIALS_RUN = "^[^%^%$%*%+%?%.%(%[%%%-]*"
local SPECIALS_PIECE = 65536
local function has_specials(ps)
  local lp = #ps
  for a = 1, lp, SPECIALS_PIECE do
    local piece = ps
    if lp > SPECIALS_PIECE then piece = c_sub(ps, a, a + SPECIALS_PIECE - 1) end
    charge(#piece * 12)
    local _, e = c_find(piece, SPECIALS_RUN)
    if e < #piece then return true end
  end
  return false
end

-- The results of pcall(C function, ...): errors C raised are re-raised at the caller's line
-- (unless the script tail-called the guard: then its frame is gone, and no line is given).
local function c_result(ok, ...)
  if ok then return ... end
  local e = ...
  if fatal(e) then reraise() end
  if type(e) == "string" and not c_find(e, POSITIONED) then
    local caller = getinfo(2, "S")
    if caller and not c_find(caller.source, "^=%[jouet ") then error(e, 2) end
  end
  error(e, 0)
end

-- luaL_checkinteger and luaL_checklstring without raising: nil when C would refuse the value.
local function to_int(v)
  local t = type(v)
  if t == "number" then return tointeger(v) end
  if t == "string" then
    local n = tonumber(v)
    if n then return tointeger(n) end
  end
  return nil
end

local function to_str(v)
  local t = type(v)
  if t == "string" then return v end
  if t == "number" then return tostring(v) end
  return nil
end

-- string --------------------------------------------------------------------------------------

-- A plain search whose n*m worst case is too slow for one C call: C searches window by window.
local function windowed_find(s, p, s1)
  local lp, ls = #p, #s
  local w = E_MAX // (lp + 1)
  if w < 1 then w = 1 end
  local a = s1
  while a + lp - 1 <= ls do
    local b = a + w + lp - 2
    if b > ls then b = ls end
    charge((b - a + 1) * (lp + 1))
    local i = c_find(c_sub(s, a, b), p, 1, true)
    if i then return a + i - 1, a + i + lp - 2 end
    a = a + w
  end
  return nil
end

local function find(...)
  local s, p, init, plain = ...
  local ss, ps = to_str(s), to_str(p)
  local ini = 1
  if init ~= nil then ini = to_int(init) end
  if not (ss and ps and ini) then return c_result(pcall(c_find, ...)) end
  local ls = #ss
  local s1 = P.start_index(ini, ls)
  if s1 > ls + 1 then return nil end
  local n = ls - s1 + 1
  if plain or not has_specials(ps) then
    local lp = #ps
    local cost = 1
    if lp <= n then cost = (n - lp + 1) * (lp + 1) end
    if cost <= E_MAX then
      charge(cost)
      return c_result(pcall(c_find, ss, ps, s1, true))
    end
    return windowed_find(ss, ps, s1)
  end
  local anchored = c_byte(ps, 1) == 94
  local cost = P.cost(P.compile(ps, anchored), n, anchored and 1 or n + 1)
  if cost <= E_MAX then
    charge(cost)
    return c_result(pcall(c_find, ss, ps, s1))
  end
  return c_result(pcall(P.find, ss, ps, s1, true))
end

local function match(...)
  local s, p, init = ...
  local ss, ps = to_str(s), to_str(p)
  local ini = 1
  if init ~= nil then ini = to_int(init) end
  if not (ss and ps and ini) then return c_result(pcall(c_match, ...)) end
  local ls = #ss
  local s1 = P.start_index(ini, ls)
  if s1 > ls + 1 then return nil end
  local n = ls - s1 + 1
  local anchored = c_byte(ps, 1) == 94
  local cost = P.cost(P.compile(ps, anchored), n, anchored and 1 or n + 1)
  if cost <= E_MAX then
    charge(cost)
    return c_result(pcall(c_match, ss, ps, s1))
  end
  return c_result(pcall(P.find, ss, ps, s1, false))
end

local function gmatch(...)
  local s, p, init = ...
  local ss, ps = to_str(s), to_str(p)
  local ini = 1
  if init ~= nil then ini = to_int(init) end
  if not (ss and ps and ini) then return c_result(pcall(c_gmatch, ...)) end
  local ls = #ss
  local cost = P.cost(P.compile(ps, false), ls, 2 * (ls + 1))
  local it
  if cost <= E_MAX then
    local c_it = c_gmatch(ss, ps, ini)
    it = function()
      charge(cost)
      return c_it()
    end
  else
    it = P.gmatch(ss, ps, ini)
  end
  return function()
    return c_result(pcall(it))
  end
end

local REPL_TYPES = { string = true, number = true, ["function"] = true, table = true }

local function gsub(...)
  local s, p, repl, max_n = ...
  local ss, ps = to_str(s), to_str(p)
  local mx = nil
  if max_n ~= nil then mx = to_int(max_n) end
  if not (ss and ps and REPL_TYPES[type(repl)]) or (max_n ~= nil and not mx) then
    return c_result(pcall(c_gsub, ...))
  end
  local ls = #ss
  if mx == nil then mx = ls + 1 end
  local anchored = c_byte(ps, 1) == 94
  local cp = P.compile(ps, anchored)
  local cost = P.cost(cp, ls, anchored and 1 or 2 * (ls + 1))
  local matches = mx
  if matches > ls + 1 then matches = ls + 1 end
  if matches < 0 then matches = 0 end
  local tr = type(repl)
  if tr == "string" or tr == "number" then
    local rs = to_str(repl)
    local refs, i = 0, 1
    while true do
      local j = c_find(rs, "%", i, true)
      if not j then break end
      refs = refs + 1
      i = j + 2
    end
    -- captures lie inside their match, and matches do not overlap: each %n copies at most the
    -- subject once over the whole gsub
    cost = cost + matches * (#rs + 1) + refs * (ls + 1.0)
  else
    cost = cost + ls + 1
  end
  if cost <= E_MAX then
    charge(cost)
    return c_result(pcall(c_gsub, ss, ps, repl, mx))
  end
  return c_result(pcall(P.gsub, ss, ps, repl, mx))
end

local function rep(...)
  local s, n, sep = ...
  local ss, ni = to_str(s), to_int(n)
  local sp = ""
  if sep ~= nil then sp = to_str(sep) end
  if not (ss and ni and sp) then return c_result(pcall(c_rep, ...)) end
  if ni <= 0 then return "" end
  local l, lsep = #ss, #sp
  if l + lsep == 0 then return "" end
  local total = ni * 1.0 * l + (ni - 1) * 1.0 * lsep
  if total > MEMORY_LIMIT then exceed("memory") end
  if ni <= 100000 then
    charge(ni + total // 8)
    return c_result(pcall(c_rep, ss, ni, sp))
  end
  -- Many copies: C's loop runs once per copy (72 ms for 14 million one-byte copies), so repeat
  -- blocks of k copies instead, with k dividing the count so the result is built only once.
  charge(total // 4)
  local k0 = (ni + 99999) // 100000
  for k = k0, k0 + 255 do
    if ni % k == 0 then return c_rep(c_rep(ss, k, sp), ni // k, sp) end
  end
  -- no such block size: blocks and the rest, joined (the result is built twice over)
  local q = ni // k0
  return t_concat({ c_rep(c_rep(ss, k0, sp), q, sp), c_rep(ss, ni - q * k0, sp) }, sp)
end

-- Work in proportion to a string argument: charge it, then let C do it.
local function linear(fn)
  return function(...)
    local s = ...
    if type(s) == "string" then charge(#s) end
    return c_result(pcall(fn, ...))
  end
end

-- Byte-by-byte work on a string (upper, lower, reverse: a few ns a byte): C does a long string
-- piece by piece, each piece charged, and the pieces are joined (in reverse order for reverse).
-- They are joined pairwise with `..`, each piece let go once used, so that the pieces, the halves
-- and the result are never all alive at once (table.concat's buffer doubles as it grows).
local PIECE = 524288

local function join(parts, i, j)
  if i == j then
    local p = parts[i]
    parts[i] = nil
    return p
  end
  local m = (i + j) // 2
  local left = join(parts, i, m)
  return left .. join(parts, m + 1, j)
end

local function piecewise(fn, backwards)
  return function(...)
    local s = ...
    if type(s) ~= "string" or #s <= PIECE then
      if type(s) == "string" then charge(#s * 2) end
      return c_result(pcall(fn, ...))
    end
    local n = #s
    local parts, np = {}, 0
    if backwards then
      for b = n, 1, -PIECE do
        local a = b - PIECE + 1
        if a < 1 then a = 1 end
        charge((b - a + 1) * 2)
        np = np + 1
        parts[np] = fn(c_sub(s, a, b))
      end
    else
      for a = 1, n, PIECE do
        charge(PIECE * 2)
        np = np + 1
        parts[np] = fn(c_sub(s, a, a + PIECE - 1))
      end
    end
    return join(parts, 1, np)
  end
end

-- string.pack, string.unpack and string.packsize read their format option by option in one C
-- call, and os.date hands each of its conversions to strftime: their formats are kept short.
local FORMAT_MAX = 4096
local function short_format(fn, name, position)
  return function(...)
    local f = select(position, ...)
    if type(f) == "string" then
      if #f > FORMAT_MAX then
        error("bad argument #" .. position .. " to '" .. name .. "' (the format is " .. #f
          .. " bytes; rule scripts may use formats of up to " .. FORMAT_MAX .. " bytes)", 2)
      end
      charge(#f * 16)
    end
    return c_result(pcall(fn, ...))
  end
end

-- Results passed on through c_result's varargs take stack space twice: calls that may return more
-- than this many values return C's results directly (an error then names the guard's line).
local MANY = 100000

-- string.byte and utf8.codepoint push one value per byte of the range.
local function ranged(fn)
  return function(...)
    local s, i, j = ...
    local ss = to_str(s)
    local count = 0
    if ss then
      local l = #ss
      local a = to_int(i == nil and 1 or i) or 1
      if a < 0 then a = l + a + 1 end
      local b = a
      if j ~= nil then b = to_int(j) or a end
      if b < 0 then b = l + b + 1 end
      if b > l then b = l end
      if b >= a then count = b - a + 1 end
      charge(count)
    end
    if count >= MANY then return fn(...) end
    return c_result(pcall(fn, ...))
  end
end

-- %q writes each control byte with sprintf, a hundred times the cost of copying it, and C does a
-- whole string.format in one call: when the strings are long, quote them here piece by piece.
-- A piece is quoted with the byte that follows it, because C writes "\0" as "\000" before a digit;
-- that byte's own escape (written as if it ended the string) is then cut off again.
local QUOTE_PIECE = 8192
local QUOTE_STEPS = 64

local function quoted(v)
  local n = #v
  local parts, np = { '"' }, 1
  local a = 1
  while a <= n do
    local b = a + QUOTE_PIECE - 1
    if b >= n then
      charge((n - a + 1) * QUOTE_STEPS)
      local q = c_format("%q", c_sub(v, a, n))
      np = np + 1
      parts[np] = c_sub(q, 2, -2)
      break
    end
    charge(QUOTE_PIECE * QUOTE_STEPS)
    local q = c_format("%q", c_sub(v, a, b + 1))
    local cut = #c_format("%q", c_sub(v, b + 1, b + 1)) - 1
    np = np + 1
    parts[np] = c_sub(q, 2, #q - cut)
    a = b + 1
  end
  np = np + 1
  parts[np] = '"'
  return t_concat(parts, "", 1, np)
end

-- fmt with each plain %q of a string argument turned into %s, and those arguments quoted here.
-- A conversion spans flags, width and precision, then one letter (getformat in lstrlib.c); every
-- one but %% takes an argument. What is malformed is left for C to report.
local function quote_args(fmt, ...)
  local args = t_pack(...)
  local parts, np = {}, 0
  local from, i, argn, lf = 1, 1, 0, #fmt
  while i <= lf do
    local j = c_find(fmt, "%", i, true)
    if not j then break end
    if c_byte(fmt, j + 1) == 37 then
      i = j + 2
    else
      local _, e = c_find(fmt, "^[-+ #0-9.]*", j + 1)
      argn = argn + 1
      local v = args[argn]
      if e == j and c_byte(fmt, j + 1) == 113 and type(v) == "string" then
        np = np + 1
        parts[np] = c_sub(fmt, from, j - 1)
        np = np + 1
        parts[np] = "%s"
        args[argn] = quoted(v)
        from = j + 2
      end
      i = e + 2
    end
  end
  np = np + 1
  parts[np] = c_sub(fmt, from)
  return t_concat(parts, "", 1, np), t_unpack(args, 1, args.n)
end

local function format(fmt, ...)
  local n = select("#", ...)
  local cost, text = 0, 0
  if type(fmt) == "string" then cost = #fmt end
  for i = 1, n do
    local v = select(i, ...)
    if type(v) == "string" then
      cost = cost + #v
      text = text + #v
    else
      cost = cost + 32
    end
  end
  charge(cost)
  if text > QUOTE_PIECE and type(fmt) == "string" and c_find(fmt, "%q", 1, true) then
    return c_result(pcall(c_format, quote_args(fmt, ...)))
  end
  return c_result(pcall(c_format, fmt, ...))
end

-- string.pack pads byte by byte: bound its output by the sizes its format names.
local function pack(fmt, ...)
  if type(fmt) == "string" then
    if #fmt > FORMAT_MAX then
      error("bad argument #1 to 'pack' (the format is " .. #fmt .. " bytes; rule scripts may use"
        .. " formats of up to " .. FORMAT_MAX .. " bytes)", 2)
    end
    local bound = #fmt * 16
    for digits in c_gmatch(fmt, "%d+") do
      bound = bound + (tonumber(digits) or huge)
    end
    for i = 1, select("#", ...) do
      local v = select(i, ...)
      if type(v) == "string" then bound = bound + #v end
    end
    if bound > MEMORY_LIMIT then exceed("memory") end
    charge(bound)
  end
  return c_result(pcall(string.pack, fmt, ...))
end

local STRING = {
  byte = ranged(c_byte), char = string.char, find = find, format = format, gmatch = gmatch,
  gsub = gsub, len = string.len, lower = piecewise(string.lower), match = match, rep = rep,
  reverse = piecewise(string.reverse, true), sub = string.sub, upper = piecewise(string.upper),
  pack = pack, packsize = short_format(string.packsize, "packsize", 1),
  unpack = short_format(string.unpack, "unpack", 1),
}

-- table ---------------------------------------------------------------------------------------

local CHUNK = 64

-- luaL_len's value, as `#` gives it (with __len) and C converts it; nil when C would refuse it.
local function len_of(t)
  return to_int(#t)
end

local function concat(...)
  local t, sep, i, j = ...
  local first, last = 1, nil
  if type(t) == "table" and (sep == nil or to_str(sep)) then
    if i ~= nil then first = to_int(i) end
    if j ~= nil then last = to_int(j) else last = len_of(t) end
  end
  if not (first and last) or (last - first) < CHUNK then
    if first and last and last >= first then charge(last - first + 1) end
    return c_result(pcall(t_concat, ...))
  end
  sep = to_str(sep) or ""
  local parts, np, size = {}, 0, 0
  local a = first
  while a <= last do
    local b = a + CHUNK - 1
    if b > last or b < a then b = last end
    local ok, piece = pcall(t_concat, t, sep, a, b)
    if not ok then return c_result(false, piece) end
    np = np + 1
    parts[np] = piece
    size = size + #piece
    charge(#piece + CHUNK)
    if b == last then break end
    a = b + 1
  end
  charge(size)
  return t_concat(parts, sep, 1, np)
end

local function unpack(...)
  local t, i, j = ...
  local count = 0
  if type(t) == "table" then
    local first, last = 1, nil
    if i ~= nil then first = to_int(i) end
    if j ~= nil then last = to_int(j) else last = len_of(t) end
    if first and last and last >= first and last - first < 100000000 then
      count = last - first + 1
      charge(count)
    end
  end
  if count >= MANY then return t_unpack(...) end
  return c_result(pcall(t_unpack, ...))
end

local function move(...)
  local a1, f, e, t, a2 = ...
  local fi, ei, ti = to_int(f), to_int(e), to_int(t)
  if type(a1) ~= "table" or not (fi and ei and ti) or (a2 ~= nil and type(a2) ~= "table")
    or ei < fi or ei - fi < CHUNK then
    if fi and ei and ei >= fi and ei - fi < CHUNK then charge(ei - fi + 1) end
    return c_result(pcall(t_move, ...))
  end
  -- argument checks C would make before moving anything
  if not (fi > 0 or ei < math.maxinteger + fi) or ti > math.maxinteger - (ei - fi + 1) + 1 then
    return c_result(pcall(t_move, ...))
  end
  local dst = a2
  if dst == nil then dst = a1 end
  local n = ei - fi + 1
  if ti > ei or ti <= fi or (a2 ~= nil and not (a1 == a2)) then
    for k = 0, n - 1 do dst[ti + k] = a1[fi + k] end
  else
    for k = n - 1, 0, -1 do dst[ti + k] = a1[fi + k] end
  end
  return dst
end

local function less(a, b)
  return a < b
end

local function sort(...)
  local t, cmp = ...
  if type(t) == "table" and (cmp == nil or type(cmp) == "function") then
    local n = len_of(t)
    if n and n > CHUNK then
      if cmp == nil then
        cmp = less
      else
        local f = cmp
        cmp = function(a, b) return f(a, b) end
      end
      return c_result(pcall(t_sort, t, cmp))
    end
  end
  return c_result(pcall(t_sort, ...))
end

-- insert/remove shift elements in C up to #t, which __len may make as large as it likes: on a
-- table with a metatable, shift in Lua.
local function insert(t, ...)
  local nargs = select("#", ...)
  if type(t) ~= "table" or getmetatable(t) == nil or (nargs ~= 1 and nargs ~= 2) then
    if type(t) == "table" and getmetatable(t) == nil then charge(rawlen(t)) end
    return c_result(pcall(t_insert, t, ...))
  end
  local e = len_of(t)
  if not e then return c_result(pcall(t_insert, t, ...)) end
  e = e + 1
  if nargs == 1 then
    t[e] = ...
    return
  end
  local pos, v = ...
  local p = to_int(pos)
  if not p or (p - 1) < 0 or (p - 1) >= e then return c_result(pcall(t_insert, t, ...)) end
  for i = e, p + 1, -1 do t[i] = t[i - 1] end
  t[p] = v
end

local function remove(t, ...)
  local nargs = select("#", ...)
  if type(t) ~= "table" or getmetatable(t) == nil or nargs > 1 then
    if type(t) == "table" and getmetatable(t) == nil then charge(rawlen(t)) end
    return c_result(pcall(t_remove, t, ...))
  end
  local size = len_of(t)
  if not size then return c_result(pcall(t_remove, t, ...)) end
  local pos = size
  if nargs == 1 and (...) ~= nil then
    pos = to_int((...))
    if not pos then return c_result(pcall(t_remove, t, ...)) end
    if pos ~= size and (pos < 1 or pos > size + 1) then return c_result(pcall(t_remove, t, ...)) end
  end
  local v = t[pos]
  while pos < size do
    t[pos] = t[pos + 1]
    pos = pos + 1
  end
  t[pos] = nil
  return v
end

local TABLE = {
  concat = concat, insert = insert, move = move, pack = t_pack, remove = remove,
  sort = sort, unpack = unpack,
}

-- coroutines ----------------------------------------------------------------------------------

local hook_this_thread = K.hook_this_thread

local function create(...)
  local f = ...
  if type(f) ~= "function" then return c_result(pcall(co_create, ...)) end
  return co_create(function(...)
    hook_this_thread()
    return f(...)
  end)
end

local function resume_done(co, ok, ...)
  if not ok and fatal((...)) then
    poisoned[co] = true
    reraise()
  end
  return ok, ...
end

local function resume(co, ...)
  if type(co) ~= "thread" then return c_result(pcall(co_resume, co, ...)) end
  return resume_done(co, co_resume(co, ...))
end

local function wrap_done(co, ok, ...)
  if ok then return ... end
  local e = ...
  if fatal(e) then
    poisoned[co] = true
    reraise()
  end
  if co_status(co) == "dead" then
    local closed, cerr = co_close(co)
    if S.exceeded then reraise() end
    if not closed then e = cerr end
  end
  if type(e) == "string" then error(e, 2) end
  error(e, 0)
end

local function wrap(...)
  local f = ...
  if type(f) ~= "function" then return c_result(pcall(co_wrap, ...)) end
  local co = create(f)
  return function(...)
    return wrap_done(co, co_resume(co, ...))
  end
end

local function close_done(co, ok, ...)
  if ok == false and fatal((...)) then
    poisoned[co] = true
    reraise()
  end
  return ok, ...
end

local function close(...)
  local co = ...
  if type(co) == "thread" then
    if poisoned[co] then return false, "cannot close a coroutine that ran out of budget" end
    local st = co_status(co)
    if st == "suspended" or st == "dead" then return close_done(co, co_close(co)) end
  end
  return c_result(pcall(co_close, ...))
end

local COROUTINE = {
  create = create, resume = resume, wrap = wrap, close = close,
  running = coroutine.running, status = coroutine.status, isyieldable = coroutine.isyieldable,
  yield = coroutine.yield,
}

-- base functions ------------------------------------------------------------------------------

local function pcall_done(ok, ...)
  if not ok and fatal((...)) then reraise() end
  return ok, ...
end

local function safe_pcall(f, ...)
  return pcall_done(pcall(f, ...))
end

local function safe_xpcall(f, h, ...)
  if type(h) ~= "function" then return c_result(pcall(xpcall, ...)) end
  return pcall_done(xpcall(f, function(e)
    if S.exceeded then return e end
    return h(e)
  end, ...))
end

local function safe_setmetatable(...)
  local t, mt = ...
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("setmetatable: metatables with __gc are not allowed in rule scripts", 2)
  end
  return c_result(pcall(setmetatable, ...))
end

local function safe_getmetatable(v)
  local t = type(v)
  if t == "table" or t == "string" then return getmetatable(v) end
  return nil
end

local function safe_rawset(...)
  if BACKING[(...)] then error("attempt to modify a readonly table", 2) end
  return c_result(pcall(rawset, ...))
end

local function safe_rawget(...)
  local t, k = ...
  local b = BACKING[t]
  if b then return rawget(b, k) end
  if type(t) == "table" and select("#", ...) >= 2 then return rawget(t, k) end
  return c_result(pcall(rawget, ...))
end

local function safe_rawlen(...)
  local v = ...
  local b = BACKING[v]
  if b then return rawlen(b) end
  local t = type(v)
  if t == "table" or t == "string" then return rawlen(v) end
  return c_result(pcall(rawlen, ...))
end

local function safe_next(...)
  local t, k = ...
  local b = BACKING[t]
  if b then return next(b, k) end
  if type(t) == "table" then return next(t, k) end
  return c_result(pcall(next, ...))
end

local BASE = {
  assert = assert, error = error, getmetatable = safe_getmetatable, ipairs = ipairs,
  next = safe_next, pairs = pairs, pcall = safe_pcall, rawequal = rawequal, rawget = safe_rawget,
  rawlen = safe_rawlen, rawset = safe_rawset, select = select, setmetatable = safe_setmetatable,
  tonumber = linear(tonumber), tostring = tostring, type = type, xpcall = safe_xpcall,
  unpack = unpack, _VERSION = "Luau",
}

-- The functions whose answer varies from one call to the next with the same arguments (the clock,
-- the date, the random generator) count each call in VARIED[1]: a stream of calls serves a
-- decision again only when no script asked any of them (Sandbox.varied, engine/runner.py).
local VARIED = { 0 }
local function varying(fn)
  return function(...)
    VARIED[1] = VARIED[1] + 1
    return fn(...)
  end
end

local MATH = {}
for k, v in next, math do MATH[k] = v end
MATH.random = varying(math.random)
MATH.randomseed = varying(math.randomseed)
local UTF8 = {}
for k, v in next, utf8 do UTF8[k] = v end
UTF8.codepoint = ranged(u_codepoint)
UTF8.len = linear(utf8.len)
UTF8.offset = linear(utf8.offset)
local OS = { clock = varying(os.clock), time = varying(os.time), date = varying(short_format(os.date, "date", 1)),
             difftime = os.difftime }

-- The Luau runtime ----------------------------------------------------------------------------

local LIBS = { string = STRING, table = TABLE, math = MATH, utf8 = UTF8, os = OS, coroutine = COROUTINE }

local renv = {}
for k, v in next, BASE do renv[k] = v end
for k, v in next, LIBS do renv[k] = v end
renv._G = renv
local rchunk, rerr
if RUNTIME_BINARY then rchunk = load(RUNTIME_BINARY, "=[jouet runtime]", "b", renv) end
local runtime_precompiled = rchunk ~= nil
if not rchunk then rchunk, rerr = load(RUNTIME_SOURCE, "=[jouet runtime]", "t", renv) end
if not rchunk then error("the Luau runtime does not compile: " .. tostring(rerr), 0) end
local R = rchunk()
if type(R) ~= "table" then error("the Luau runtime did not return a table", 0) end
local RLIB = rawget(R, "lib") or {}
for name, lib in next, LIBS do
  local extra = rawget(RLIB, name)
  if type(extra) == "table" then
    for k, v in next, extra do lib[k] = v end
  end
end
local globals = rawget(RLIB, "globals")
if type(globals) == "table" then
  for k, v in next, globals do BASE[k] = v end
end

-- Read-only tables count as frozen, and cloning one gives a plain shallow copy.
do
  local r_clone, r_isfrozen, r_freeze = TABLE.clone, TABLE.isfrozen, TABLE.freeze
  if r_clone then
    TABLE.clone = function(t)
      local b = BACKING[t]
      if b then
        local copy = {}
        for k, v in next, b do copy[k] = v end
        return copy
      end
      return r_clone(t)
    end
  end
  if r_isfrozen then
    TABLE.isfrozen = function(t)
      if BACKING[t] then return true end
      return r_isfrozen(t)
    end
  end
  if r_freeze then
    TABLE.freeze = function(t)
      if BACKING[t] then error("bad argument #1 to 'freeze' (table is already frozen)", 2) end
      return r_freeze(t)
    end
  end
end

-- print, with the globals' tostring (Luau's when the runtime provides it)
local show = BASE.tostring
BASE.print = function(...)
  local args = t_pack(...)
  local parts = {}
  for i = 1, args.n do parts[i] = show(args[i]) end
  K.print_line(t_concat(parts, "\t", 1, args.n))
end

-- The template -------------------------------------------------------------------------------

local TEMPLATE = {}
for k, v in next, BASE do TEMPLATE[k] = v end
for name, lib in next, LIBS do TEMPLATE[name] = make_proxy(lib) end

-- Strings index the guarded library; getmetatable("") shows only LOCKED.
local smt = getmetatable("")
smt.__index = STRING
smt.__metatable = LOCKED

local E = {}
E.template = TEMPLATE
E.runtime = K.readonly(R)
E.runtime_precompiled = runtime_precompiled
E.varied = VARIED

-- A fresh globals table for one rule: the template, then the given names.
function E.new_env(extra)
  local env = {}
  for k, v in next, TEMPLATE do env[k] = v end
  if extra then
    for k, v in next, extra do env[k] = K.wrap_value(v, {}) end
  end
  env._G = env
  return env
end

-- Leave lupa's own global table as safe as a rule's: nothing in it reaches Python, io, os or debug.
do
  local names = {}
  for k in next, G do names[#names + 1] = k end
  for _, k in ipairs(names) do G[k] = nil end
  for k, v in next, TEMPLATE do G[k] = v end
  G._G = G
end

return E
"""
