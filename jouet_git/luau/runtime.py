'''The Lua 5.4 runtime that translated Luau scripts use, as Lua source (RUNTIME_LUA).

Run RUNTIME_LUA once per VM: the chunk returns a table R. Pass R as the first argument of every
translated chunk (which starts `local __luau = ...`). Scripts cannot name `__luau`: the translator
rejects variables that start with `__luau`, and a script's own top-level `...` skips R. This module
imports nothing, so the sandbox can load it on the hook's hot path without the translator.

Helpers the translated code calls (R.NAME):

- `iter(o, s, c)`: the iterator behind `for k, v in o do`, following Luau: a function is used as
  given (so `pairs(t)`, `ipairs(t)` and explicit iterators keep working); a table or userdata whose
  metatable has `__iter` is iterated with what `__iter(o)` returns; one with `__call` is called as
  the iterator; any other table is walked array part first (1, 2, ... up to the first nil, in order),
  then its other keys in `next` order. Anything else raises "attempt to iterate over a X value".
- `tostr(v)`: Luau's `tostring`. Numbers print the way Luau prints doubles: `10/2` is "5", not
  "5.0"; the shortest digits that read back as the same double (0.1 + 0.2 is
  "0.30000000000000004"); fixed notation while the decimal point falls within 21 digits, otherwise
  `1e+22` style; "inf", "-inf", "nan", "-0". Other values go to Lua's `tostring`.
- `concat(a, b, ...)`: the `..` operator, formatting numbers as `tostr` does and honouring
  `__concat`, right to left as Lua does.
- `idiv(a, b)` and `mod(a, b)`: `//` and `%` with Luau's double arithmetic: integer division or
  modulo by zero gives inf, -inf or nan instead of Lua 5.4's error, and `%` is `a - floor(a/b)*b`.
- `namecall(o, name, ...)`: `o:name(...)` for a method name Lua cannot spell (`goto`).
- `tail(_, ...)`: drops the runtime table from the main chunk's varargs.

Luau library functions that Lua 5.4 lacks, for the sandbox to merge into the libraries (R.lib):

- `string.split(s, sep)`: split on a plain separator (default ","); an empty separator splits
  into single bytes; "" splits into { "" }.
- `string.format(fmt, ...)`: Lua's, plus Luau's `%*` (any value, as `tostring` shows it), and `%s`
  showing numbers as `tostr` does.
- `table.find(t, value, init)`: the first index from `init` (default 1) up to the first nil whose
  value equals `value` (`==`, so `__eq` counts), or nil.
- `table.clear(t)`: removes every key; an error on a frozen table.
- `table.create(n, value)`: an array of n copies of value (an empty table when value is nil).
- `table.clone(t)`: a shallow copy with the same metatable; never frozen.
- `table.freeze(t)` / `table.isfrozen(t)`: an approximation, since Lua 5.4 has no read-only
  tables. A frozen table keeps its contents in place, so every read (`next`, `rawget`, `#`) works,
  and adding a key, `table.insert`, `rawset`, `setmetatable` or `table.clear` on it raise "attempt
  to modify a readonly table"; changing a key that already exists is NOT prevented. Freezing
  twice, or a table whose metatable is protected, is an error as in Luau.
- `table.concat(t, sep, i, j)`: Lua's, with numbers formatted as `tostr` does.
- `math.clamp(x, min, max)`, `math.sign(x)` (1, -1 or 0), `math.round(x)` (halves away from zero),
  and `math.floor` / `math.ceil` that keep the sign of a zero result (`math.ceil(-0.5)` is -0) as
  Luau's doubles do; Lua's return the integer 0.
- globals: `typeof(v)` (the same as `type` here: there are no Roblox or vector types),
  `tostring` (= `tostr`), `unpack` (= `table.unpack`, as Luau keeps it), and `getmetatable`,
  `setmetatable` and `rawset` that treat frozen tables as Luau does (the first returns a frozen
  table's own metatable; the others refuse to change a frozen table).

The runtime is safe to share between scripts: every function captures the standard functions it
uses when RUNTIME_LUA runs, and the only state is a private weak-keyed record of frozen tables,
which a script can affect only for tables it holds. It uses no load, debug, io, os, require or
collectgarbage.
'''

RUNTIME_LUA = r"""
-- jouet's Luau runtime for Lua 5.4 (see jouet_git/luau/runtime.py).
local type, tostring, tonumber, select, error = type, tostring, tonumber, select, error
local rawget, rawset, next, getmetatable, setmetatable = rawget, rawset, next, getmetatable, setmetatable
local math_type, math_floor, math_ceil, math_huge = math.type, math.floor, math.ceil, math.huge
local string_format, string_find, string_sub, string_rep, string_match, string_gsub =
  string.format, string.find, string.sub, string.rep, string.match, string.gsub
local table_concat, table_pack, table_unpack = table.concat, table.pack, table.unpack

local R = {}

-- Errors raised by a standard function that one of the functions below calls would name this
-- chunk's line and the local the function is held in. `native` calls it so that the error names
-- the script's line and the Luau name instead, as if the script had called the function itself.
local HERE = string_match(select(2, pcall(function() error("@") end)), "^(.*:)%d+: @$")

local function native(name, f, ...)
  local results = table_pack(pcall(f, ...))
  if results[1] then return table_unpack(results, 2, results.n) end
  local m = results[2]
  if type(m) == "string" then
    if HERE and string_sub(m, 1, #HERE) == HERE then
      m = string_gsub(string_sub(m, #HERE + 1), "^%d+: ", "", 1)
    end
    m = string_gsub(m, "^bad argument (#%d+) to '[^']*'", "invalid argument %1 to '" .. name .. "'", 1)
  end
  error(m, 3)
end

-- Numbers -----------------------------------------------------------------------

local EXACT = 9007199254740992 -- 2^53
local SIG = {}
for p = 0, 16 do SIG[p] = "%." .. p .. "e" end

-- The decimal next to `digits` x 10^e (same number of digits) upwards or downwards.
local function neighbour(digits, e, up)
  local k = tonumber(digits) + (up and 1 or -1)
  if k == 0 then return "9", e - 1 end
  local ds = string_format("%d", k)
  if #ds > #digits then return string_sub(ds, 1, #digits), e + 1 end
  if #ds < #digits then return ds .. "9", e - 1 end
  return ds, e
end

-- p+1 significant digits that read back as n (n > 0), and the exponent of the first one, or nil.
-- printf rounds to nearest; when that misses because n's rounding interval is lopsided (n a power
-- of two), the decimal on the other side may still hit.
local function digits_for(n, p)
  local s = string_format(SIG[p], n)
  local first, rest, exp = string_match(s, "^(%d)%.?(%d*)e([-+]%d+)$")
  local digits, e = first .. rest, tonumber(exp)
  local v = tonumber(s)
  if v == n then return digits, e end
  local d2, e2 = neighbour(digits, e, v < n)
  if tonumber(string_sub(d2, 1, 1) .. "." .. string_sub(d2, 2) .. "e" .. e2) == n then return d2, e2 end
  return nil
end

-- The shortest such digits: Luau's (and Python's repr) choice. 17 digits always read back, and
-- if p digits do, so do p+1, so a binary search finds the fewest.
local function shortest(n)
  local best, best_e = digits_for(n, 16)
  local lo, hi = 0, 16
  while lo < hi do
    local mid = (lo + hi) // 2
    local d, e = digits_for(n, mid)
    if d then
      best, best_e, hi = d, e, mid
    else
      lo = mid + 1
    end
  end
  return best, best_e
end

-- A number as Luau prints a double.
local function num2str(n)
  if math_type(n) == "integer" then
    if n >= -EXACT and n <= EXACT then return string_format("%d", n) end
    n = n + 0.0
  end
  if n ~= n then return "nan" end
  if n == math_huge then return "inf" end
  if n == -math_huge then return "-inf" end
  if n == 0 then
    if 1 / n < 0 then return "-0" end
    return "0"
  end
  if n > -EXACT and n < EXACT and n == math_floor(n) then return string_format("%d", n) end
  local sign = ""
  if n < 0 then sign, n = "-", -n end
  local digits, e = shortest(n)
  digits = string_gsub(digits, "0+$", "")
  local len = #digits
  local dot = e + 1
  local body
  if dot >= -5 and dot <= 21 then
    if dot <= 0 then
      body = "0." .. string_rep("0", -dot) .. digits
    elseif dot >= len then
      body = digits .. string_rep("0", dot - len)
    else
      body = string_sub(digits, 1, dot) .. "." .. string_sub(digits, dot + 1)
    end
  else
    local a = e < 0 and -e or e
    body = string_sub(digits, 1, 1) .. (len > 1 and "." .. string_sub(digits, 2) or "")
      .. (e < 0 and "e-" or "e+") .. (a < 10 and "0" .. a or tostring(a))
  end
  return sign .. body
end

local function tostr(...)
  if select("#", ...) == 0 then error("missing argument #1", 2) end
  local v = ...
  local t = type(v)
  if t == "number" then return num2str(v) end
  if t == "table" or t == "userdata" then
    local s = native("tostring", tostring, v)
    return s
  end
  return tostring(v)
end
R.tostr = tostr

-- Whether v may have the metamethod `name` (a protected metatable might).
local function may_have(v, name)
  local mt = getmetatable(v)
  if mt == nil then return false end
  if type(mt) ~= "table" then return true end
  return rawget(mt, name) ~= nil or rawget(mt, "__metatable") ~= nil
end

local function is_text(v)
  local t = type(v)
  return t == "string" or t == "number"
end

local function cat2(a, b, level)
  if is_text(a) and is_text(b) then
    if type(a) == "number" then a = num2str(a) end
    if type(b) == "number" then b = num2str(b) end
    return a .. b
  end
  if (not is_text(a) and may_have(a, "__concat")) or (not is_text(b) and may_have(b, "__concat")) then
    return a .. b
  end
  local bad = a
  if is_text(a) then bad = b end
  error("attempt to concatenate a " .. type(bad) .. " value", level)
end

function R.concat(a, b, ...)
  local extra = select("#", ...)
  if extra == 0 then
    if type(a) == "string" and type(b) == "string" then return a .. b end
    return (cat2(a, b, 3))
  end
  local n = extra + 2
  local parts = { a, b, ... }
  local plain = true
  for i = 1, n do
    local v = parts[i]
    local t = type(v)
    if t == "number" then
      parts[i] = num2str(v)
    elseif t ~= "string" then
      plain = false
    end
  end
  if plain then return table_concat(parts, "", 1, n) end
  local acc = parts[n]
  for i = n - 1, 1, -1 do acc = cat2(parts[i], acc, 3) end
  return acc
end

local function arith_operand(v)
  if type(v) == "string" then return tonumber(v) end
  return v
end

local function arith_fallback(a, b, op, event, again)
  local na, nb = arith_operand(a), arith_operand(b)
  if math_type(na) and math_type(nb) then return again(na, nb) end
  if may_have(a, event) or may_have(b, event) then
    if op == "//" then return a // b end
    return a % b
  end
  local bad = a
  if math_type(na) then bad = b end
  error("attempt to perform arithmetic (" .. op .. ") on a " .. type(bad) .. " value", 3)
end

local function idiv(a, b)
  local ta, tb = math_type(a), math_type(b)
  if ta and tb then
    if ta == "integer" and tb == "integer" and b == 0 then return math_floor(a / b) end
    return a // b
  end
  return (arith_fallback(a, b, "//", "__idiv", idiv))
end
R.idiv = idiv

-- floor that keeps a float zero's sign, as C's floor (and Luau's math.floor) does.
local function floor0(x)
  if x == 0 then return x end
  return math_floor(x)
end

local function mod(a, b)
  local ta, tb = math_type(a), math_type(b)
  if ta and tb then
    if ta == "integer" and tb == "integer" and b ~= 0 then return a % b end
    return a - floor0(a / b) * b
  end
  return (arith_fallback(a, b, "%", "__mod", mod))
end
R.mod = mod

function R.namecall(o, name, ...)
  return o[name](o, ...)
end

function R.tail(_, ...)
  return ...
end

-- Generalized iteration -------------------------------------------------------------

local function builtin(t)
  local i, last, key = 0, nil, nil
  return function()
    if last == nil then
      i = i + 1
      local v = rawget(t, i)
      if v ~= nil then return i, v end
      last = i - 1
    end
    local v
    key, v = next(t, key)
    while key ~= nil and math_type(key) == "integer" and key >= 1 and key <= last do
      key, v = next(t, key)
    end
    return key, v
  end
end

function R.iter(o, s, c)
  local t = type(o)
  if t == "function" then return o, s, c end
  if t == "table" or t == "userdata" then
    local mt = getmetatable(o)
    if type(mt) == "table" then
      local it = rawget(mt, "__iter")
      if it ~= nil then
        local g, st, ctl = it(o)
        if g == nil then error("attempt to call a nil value (the iterator __iter returned)", 2) end
        return g, st, ctl
      end
      if rawget(mt, "__call") ~= nil then return o, s, c end
    end
    if t == "table" then return builtin(o) end
  end
  error("attempt to iterate over a " .. t .. " value", 2)
end

-- Library additions -----------------------------------------------------------------

-- Raise "bad argument" at the script line that called the library function. `level` counts from
-- the caller of arg_error: 3 when a library function calls it, 4 from the check_ functions below.
local function arg_error(n, fname, message, level)
  error("invalid argument #" .. n .. " to '" .. fname .. "' (" .. message .. ")", level or 3)
end

local function check_table(v, n, fname)
  if type(v) ~= "table" then arg_error(n, fname, "table expected, got " .. type(v), 4) end
  return v
end

local function check_number(v, n, fname, level)
  if math_type(v) then return v end
  local x = nil
  if type(v) == "string" then x = tonumber(v) end
  if x == nil then arg_error(n, fname, "number expected, got " .. type(v), level or 4) end
  return x
end

local function check_integer(v, n, fname)
  v = check_number(v, n, fname, 5)
  if math_type(v) == "float" then
    if v ~= v or v ~= math_floor(v) then arg_error(n, fname, "number has no integer representation", 4) end
    v = math_floor(v)
  end
  return v
end

local function check_string(v, n, fname)
  local t = type(v)
  if t == "string" then return v end
  if t == "number" then return num2str(v) end
  arg_error(n, fname, "string expected, got " .. t, 4)
end

local function split(s, sep)
  s = check_string(s, 1, "split")
  if sep == nil then sep = "," else sep = check_string(sep, 2, "split") end
  local out = {}
  local seplen = #sep
  if seplen == 0 then
    for i = 1, #s do out[i] = string_sub(s, i, i) end
    return out
  end
  local n, start = 0, 1
  while true do
    local at = string_find(s, sep, start, true)
    if not at then break end
    n = n + 1
    out[n] = string_sub(s, start, at - 1)
    start = at + seplen
  end
  out[n + 1] = string_sub(s, start)
  return out
end

local function format(fmt, ...)
  if type(fmt) ~= "string" or not string_find(fmt, "%", 1, true) then
    local s = native("format", string_format, fmt, ...)
    return s
  end
  local n = select("#", ...)
  local args = { ... }
  local argi, problem = 0, nil
  local out = string_gsub(fmt, "%%([-+ #0]*%d*%.?%d*)(.?)", function(spec, conv)
    if conv == "%" then return nil end
    argi = argi + 1
    if conv == "*" then
      if spec ~= "" then
        problem = problem or "'%*' does not take a form"
      elseif argi > n then
        problem = problem or ("invalid argument #" .. (argi + 1) .. " to 'format' (missing argument)")
      else
        args[argi] = tostr(args[argi])
      end
      return "%s"
    end
    if conv == "s" and math_type(args[argi]) == "float" then args[argi] = num2str(args[argi]) end
    return nil
  end)
  if problem then error(problem, 2) end
  local s = native("format", string_format, out, table_unpack(args, 1, n))
  return s
end

local function tconcat(t, sep, i, j)
  if type(t) == "table" and (i == nil or math_type(i)) and (j == nil or math_type(j)) then
    local first, last = i or 1, j or #t
    local copy
    for k = first, last do
      local v = t[k]
      if not is_text(v) then
        error("invalid value (" .. type(v) .. ") at index " .. num2str(k) .. " in table for 'concat'", 2)
      end
      if math_type(v) == "float" then
        if copy == nil then
          copy = {}
          for m = first, last do copy[m - first + 1] = t[m] end
        end
        copy[k - first + 1] = num2str(v)
      end
    end
    if copy ~= nil then
      local s = native("concat", table_concat, copy, sep or "", 1, last - first + 1)
      return s
    end
  end
  local s = native("concat", table_concat, t, sep, i, j)
  return s
end

local function find(t, ...)
  check_table(t, 1, "find")
  if select("#", ...) == 0 then arg_error(2, "find", "value expected") end
  local value, init = ...
  local i = init == nil and 1 or check_integer(init, 3, "find")
  if i < 1 then arg_error(3, "find", "index out of range") end
  while true do
    local v = rawget(t, i)
    if v == nil then return nil end
    if v == value then return i end
    i = i + 1
  end
end

local frozen = setmetatable({}, { __mode = "k" })

local function readonly()
  error("attempt to modify a readonly table", 2)
end

local function protected(mt)
  return mt ~= nil and (type(mt) ~= "table" or rawget(mt, "__metatable") ~= nil)
end

local function freeze(t)
  check_table(t, 1, "freeze")
  if frozen[t] ~= nil then arg_error(1, "freeze", "table is already frozen") end
  local mt = getmetatable(t)
  if protected(mt) then arg_error(1, "freeze", "table has a protected metatable") end
  local guard = {}
  if mt ~= nil then
    for k, v in next, mt do guard[k] = v end
  end
  guard.__newindex = readonly
  guard.__metatable = mt or false
  setmetatable(t, guard)
  frozen[t] = mt or false
  return t
end

-- getmetatable, setmetatable and rawset as Luau has them for frozen tables.
local function luau_getmetatable(v)
  local original = frozen[v]
  if original ~= nil then return original or nil end
  return getmetatable(v)
end

local function luau_setmetatable(t, mt)
  if frozen[t] ~= nil then error("attempt to modify a readonly table", 2) end
  local r = native("setmetatable", setmetatable, t, mt)
  return r
end

local function luau_rawset(t, k, v)
  if frozen[t] ~= nil then error("attempt to modify a readonly table", 2) end
  local r = native("rawset", rawset, t, k, v)
  return r
end

local function isfrozen(t)
  check_table(t, 1, "isfrozen")
  return frozen[t] ~= nil
end

local function clear(t)
  check_table(t, 1, "clear")
  if frozen[t] ~= nil then error("attempt to modify a readonly table", 2) end
  local k = next(t)
  while k ~= nil do
    local after = next(t, k)
    t[k] = nil
    k = after
  end
end

local function create(n, value)
  n = check_integer(n, 1, "create")
  if n < 0 then arg_error(1, "create", "size out of range") end
  local t = {}
  if value ~= nil then
    for i = 1, n do t[i] = value end
  end
  return t
end

local function clone(t)
  check_table(t, 1, "clone")
  local mt
  if frozen[t] ~= nil then
    mt = frozen[t] or nil
  else
    mt = getmetatable(t)
    if protected(mt) then arg_error(1, "clone", "table has a protected metatable") end
  end
  local copy = {}
  for k, v in next, t do copy[k] = v end
  return setmetatable(copy, mt)
end

local function clamp(x, lo, hi)
  x = check_number(x, 1, "clamp")
  lo = check_number(lo, 2, "clamp")
  hi = check_number(hi, 3, "clamp")
  if not (lo <= hi) then arg_error(3, "clamp", "max must be greater than or equal to min") end
  if x < lo then x = lo end
  if x > hi then x = hi end
  return x
end

local function sign(x)
  x = check_number(x, 1, "sign")
  if x > 0 then return 1 end
  if x < 0 then return -1 end
  return 0
end

local function round(x)
  x = check_number(x, 1, "round")
  if math_type(x) == "integer" or x ~= x or x == math_huge or x == -math_huge then return x end
  if x >= 0 then
    local f = math_floor(x)
    if x - f >= 0.5 then f = f + 1 end
    return f
  end
  local c = math_ceil(x)
  if c - x >= 0.5 then c = c - 1 end
  if c == 0 then return -0.0 end
  return c
end

-- A zero result stays a float zero with the right sign, so that -4 * math.floor(0.5) is -0 as in Luau.
local function float_zero(x)
  if x < 0 or 1 / x < 0 then return -0.0 end
  return 0.0
end

local function luau_floor(x)
  local r = math_floor(check_number(x, 1, "floor"))
  if r == 0 and math_type(x) == "float" then return float_zero(x) end
  return r
end

local function luau_ceil(x)
  local r = math_ceil(check_number(x, 1, "ceil"))
  if r == 0 and math_type(x) == "float" then return float_zero(x) end
  return r
end

local function typeof(...)
  if select("#", ...) == 0 then error("missing argument #1", 2) end
  return type((...))
end

R.lib = {
  string = { split = split, format = format },
  table = {
    find = find, clear = clear, create = create, clone = clone,
    freeze = freeze, isfrozen = isfrozen, concat = tconcat,
  },
  math = { clamp = clamp, sign = sign, round = round, floor = luau_floor, ceil = luau_ceil },
  globals = {
    typeof = typeof, tostring = tostr, unpack = table_unpack,
    getmetatable = luau_getmetatable, setmetatable = luau_setmetatable, rawset = luau_rawset,
  },
}

return R
"""
