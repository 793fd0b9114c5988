'''Lua 5.4 patterns in pure Lua, and the estimate that decides when C may run them instead.

PATTERNS_LUA is a trusted chunk the sandbox runs once, before it strips the globals. It takes the
sandbox kernel's table of raw C functions (`C`: the string library's, table.concat and table.unpack
as t_concat and t_unpack, error, type, tostring, select, next and setmetatable) and the kernel's `charge`, and
returns a table P:

- `P.compile(p, anchored)`: the pattern as a list of items (cached), with what the estimate needs.
- `P.cost(cp, n, attempts)`: an upper bound of the steps C's backtracking matcher can take for that
  many attempts on a subject of n bytes. The sandbox runs C only when that bound is small.
- `P.find(s, p, init, find)`, `P.gmatch(s, p, init)`, `P.gsub(s, p, repl, max_n)`: the same results
  and errors as lstrlib.c, computed in Lua so that the instruction hook (and so the budget) applies.
  Arguments must already be checked: strings and integers, a replacement of a valid type.

The matcher follows lstrlib.c's structure step by step, including the order in which malformed
patterns are noticed (an error is raised only when matching reaches the bad item), the 200-deep
recursion limit ("pattern too complex") and the 32-capture limit. Character classes and bracket sets
are evaluated once per pattern by asking C's matcher about each of the 256 bytes, so they agree with
C's in every locale (a bracket set longer than SHORT_SET bytes is read in Lua instead: C would
walk all of it for each of the 256 bytes). Scanning a run of one class (`x*`), finding the next
possible start and `%b` are runs of C's matcher over one set written in its shortest bracket form
(`[aaaa...b]` is `[ab]` however long it was written), window by window, each window charged to
the budget (see "Scanning the subject" below).

The estimate multiplies by the widest set of the pattern as written, because C walks a bracket set
entry by entry for every byte it tests, and that is what it walks when the guarded library lets it
run the whole pattern.
'''

PATTERNS_LUA = r"""
local C, charge = ...
local byte, sub, char = C.byte, C.sub, C.char
local c_find = C.find
local t_concat, t_unpack = C.t_concat, C.t_unpack
local error, type, tostring, select, next = C.error, C.type, C.tostring, C.select, C.next
local setmetatable = C.setmetatable

local SINGLE, OPEN, POSCAP, CLOSE, ENDANCHOR, BALANCE, FRONTIER, BACKREF, BAD = 1, 2, 3, 4, 5, 6, 7, 8, 9
local Q_NONE, Q_STAR, Q_PLUS, Q_MIN, Q_OPT = 0, 1, 2, 3, 4
local CAP_UNFINISHED, CAP_POSITION = -1, -2
local MAXCCALLS, MAXCAPTURES = 200, 32

local P = {}

-- Sets: a table byte -> true for the bytes one pattern item matches.
local CH = {}
for c = 0, 255 do CH[c] = char(c) end

local function is_alnum(c)
  return (c >= 48 and c <= 57) or (c >= 65 and c <= 90) or (c >= 97 and c <= 122)
end

-- The C pattern for one literal byte: punctuation and other bytes escaped with '%'.
local function lit_src(c)
  if is_alnum(c) then return CH[c] end
  return "%" .. CH[c]
end

-- The set of bytes C's matcher says `^` .. class matches (class is a bracket set or %x).
local function eval_set(class)
  local pat = "^" .. class
  local set = {}
  for c = 0, 255 do
    if c_find(CH[c], pat) then set[c] = true end
  end
  return set
end

local ANY = {}
for c = 0, 255 do ANY[c] = true end
local LIT = {}
local function lit_set(c)
  local s = LIT[c]
  if not s then s = { [c] = true }; LIT[c] = s end
  return s
end
local CLASS = {}
local function class_set(c)
  local s = CLASS[c]
  if not s then s = eval_set("[%" .. CH[c] .. "]"); CLASS[c] = s end
  return s
end

local function disjoint(a, b)
  for c = 0, 255 do
    if a[c] and b[c] then return false end
  end
  return true
end

-- Bracket sets longer than this are read in Lua (eval_set asks C 256 times, and C walks the
-- whole set each time).
local SHORT_SET = 32

-- The set a bracket class src (from '[' to its closing ']') matches, read as matchbracketclass in
-- lstrlib.c reads it: escapes, then ranges, then single bytes.
local function bracket_set(src)
  local ec = #src
  local q = 1
  local negate = byte(src, 2) == 94
  if negate then q = 2 end
  local set = {}
  q = q + 1
  while q < ec do
    local c = byte(src, q)
    if c == 37 then -- '%'
      q = q + 1
      local x = byte(src, q)
      if is_alnum(x) then
        for b in next, class_set(x) do set[b] = true end
      else
        set[x] = true
      end
    elseif byte(src, q + 1) == 45 and q + 2 < ec then -- a range
      for b = c, byte(src, q + 2) do set[b] = true end
      q = q + 2
    else
      set[c] = true
    end
    q = q + 1
  end
  if not negate then return set end
  local out = {}
  for b = 0, 255 do
    if not set[b] then out[b] = true end
  end
  return out
end

-- Inside brackets these bytes need a '%': '%' itself, ']' (ends the set), '^' (negates when first)
-- and '-' (makes a range). Every other byte stands for itself.
local BRACKET_SPECIAL = { [37] = true, [93] = true, [94] = true, [45] = true }

local function member_src(c)
  if BRACKET_SPECIAL[c] then return "%" .. CH[c] end
  return CH[c]
end

-- The shortest bracket form of a set (ranges where they save entries).
local function set_src(set)
  local parts, np = {}, 0
  local c = 0
  while c <= 255 do
    if set[c] then
      local lo, hi = c, c
      while hi < 255 and set[hi + 1] do hi = hi + 1 end
      c = hi + 1
      while lo <= hi and BRACKET_SPECIAL[lo] do np = np + 1; parts[np] = member_src(lo); lo = lo + 1 end
      local tail = {}
      while hi >= lo and BRACKET_SPECIAL[hi] do tail[#tail + 1] = member_src(hi); hi = hi - 1 end
      if hi - lo >= 2 then
        np = np + 1
        parts[np] = CH[lo] .. "-" .. CH[hi]
      else
        for b = lo, hi do np = np + 1; parts[np] = member_src(b) end
      end
      for k = #tail, 1, -1 do np = np + 1; parts[np] = tail[k] end
    else
      c = c + 1
    end
  end
  if np == 0 then return "[^" .. CH[0] .. "-" .. CH[255] .. "]" end
  return "[" .. t_concat(parts, "", 1, np) .. "]"
end

-- Compiling --------------------------------------------------------------------------

-- The end of the single-character class starting at i (classEnd in lstrlib.c): the index after
-- it, its set, its C source and its width (the steps C takes to test one byte against it: one per
-- two bytes of a bracket set); or nil and the error C raises when it reaches this item.
local function class_end(p, i, n)
  local c = byte(p, i)
  if c == 37 then -- '%'
    if i + 1 > n then return nil, "malformed pattern (ends with '%')" end
    local x = byte(p, i + 1)
    if is_alnum(x) then return i + 2, class_set(x), "%" .. CH[x], 1 end
    return i + 2, lit_set(x), lit_src(x), 1
  elseif c == 91 then -- '['
    local j = i + 1
    if byte(p, j) == 94 then j = j + 1 end
    repeat
      if j > n then return nil, "malformed pattern (missing ']')" end
      local cc = byte(p, j)
      j = j + 1
      if cc == 37 and j <= n then j = j + 1 end
    until byte(p, j) == 93
    local src = sub(p, i, j)
    -- testing a byte against a set costs C about a nanosecond per byte of the set as written
    -- (an escape like %a is two bytes and the slowest kind of entry): a step is a couple of those
    local width = (j - i) // 2
    if width < 1 then width = 1 end
    if #src > SHORT_SET then return j + 1, bracket_set(src), src, width end
    return j + 1, eval_set(src), src, width
  elseif c == 46 then -- '.'
    return i + 1, ANY, ".", 1
  end
  return i + 1, lit_set(c), lit_src(c), 1
end

local QUANT = { [42] = Q_STAR, [43] = Q_PLUS, [45] = Q_MIN, [63] = Q_OPT }

local function parse(p, anchored)
  local items, ni = {}, 0
  local n = #p
  local i = anchored and 2 or 1
  while i <= n do
    local c = byte(p, i)
    local it
    if c == 40 then -- '('
      if byte(p, i + 1) == 41 then it = { k = POSCAP }; i = i + 2
      else it = { k = OPEN }; i = i + 1 end
    elseif c == 41 then
      it = { k = CLOSE }; i = i + 1
    elseif c == 36 and i == n then
      it = { k = ENDANCHOR }; i = i + 1
    elseif c == 37 and byte(p, i + 1) == 98 then -- %b
      if i + 3 > n then
        it = { k = BAD, msg = "malformed pattern (missing arguments to '%b')" }
      else
        local b1, b2 = byte(p, i + 2), byte(p, i + 3)
        it = { k = BALANCE, b1 = b1, b2 = b2, either = { [b1] = true, [b2] = true } }
        i = i + 4
      end
    elseif c == 37 and byte(p, i + 1) == 102 then -- %f
      if byte(p, i + 2) ~= 91 then
        it = { k = BAD, msg = "missing '[' after '%f' in pattern" }
      else
        local e, set, _, width = class_end(p, i + 2, n)
        if not e then it = { k = BAD, msg = set }
        else it = { k = FRONTIER, set = set, w = width }; i = e end
      end
    elseif c == 37 and (byte(p, i + 1) or 0) >= 48 and byte(p, i + 1) <= 57 then -- %0-%9
      it = { k = BACKREF, l = byte(p, i + 1) - 49 }
      i = i + 2
    else
      local e, set, src, width = class_end(p, i, n)
      if not e then
        it = { k = BAD, msg = set }
      else
        local q = QUANT[byte(p, e)]
        if q then i = e + 1 else q = Q_NONE; i = e end
        it = { k = SINGLE, set = set, q = q, src = src, w = width }
      end
    end
    ni = ni + 1
    items[ni] = it
    if it.k == BAD then break end
  end
  return items, ni
end

-- The numbers the estimate needs. A quantified item (x*, x+, x-, x?) multiplies the matcher's
-- work by how many ways it can end, unless everything after it fails at once whenever it could
-- have taken one more byte (the next consuming item's set is disjoint from its own, or is %b
-- opening with a byte outside it), or everything after it can match the empty string: then only
-- one of its endings is ever followed further, and it costs a linear scan.
--
-- A pattern is linear when its first scanning item is a quantified single class, nothing before
-- it scans, and everything after it can match the empty string: an attempt then either fails
-- before that item, in a few steps, or matches, having scanned no further than its match.
local function analyse(items, ni)
  local nstar, nopt, nscan, nzw = 0, 0, 0, 0
  -- tail_empty[k]: items k..ni can all match nothing (so the first try after a quantifier wins).
  local tail_empty = { [ni + 1] = true }
  for k = ni, 1, -1 do
    local it = items[k]
    local kind = it.k
    local ok = false
    if kind == OPEN or kind == POSCAP or kind == CLOSE then ok = true
    elseif kind == SINGLE and it.q ~= Q_NONE and it.q ~= Q_PLUS then ok = true end
    tail_empty[k] = ok and tail_empty[k + 1]
  end
  local linear = nil
  for k = 1, ni do
    local it = items[k]
    local kind = it.k
    if kind == OPEN or kind == POSCAP or kind == CLOSE or kind == FRONTIER then
      nzw = nzw + 1
    elseif kind == BALANCE or kind == BACKREF then
      nscan = nscan + 1
      if linear == nil then linear = false end
    elseif kind == BAD then
      if linear == nil then linear = true end
    elseif kind == SINGLE and it.q ~= Q_NONE then
      local q = it.q
      if q ~= Q_OPT then nscan = nscan + 1 end
      if linear == nil then linear = tail_empty[k + 1] end
      local cheap = tail_empty[k + 1]
      if not cheap then
        local j = k + 1
        local nxt = items[j]
        while nxt and (nxt.k == OPEN or nxt.k == POSCAP or nxt.k == CLOSE or nxt.k == FRONTIER) do
          j = j + 1
          nxt = items[j]
        end
        if nxt == nil or nxt.k == ENDANCHOR then
          cheap = true
        elseif nxt.k == SINGLE and (nxt.q == Q_NONE or nxt.q == Q_PLUS) then
          cheap = disjoint(it.set, nxt.set)
        elseif nxt.k == BALANCE then
          cheap = not it.set[nxt.b1]
        end
      end
      it.cheap = cheap
      if not cheap then
        if q == Q_OPT then nopt = nopt + 1 else nstar = nstar + 1 end
      end
    end
  end
  return nstar, nopt, nscan, nzw, linear ~= false
end

-- The first item every match must start with, when there is one: a single byte class that is
-- not optional, after at most a few capture openings. A search may skip to where it matches.
local function first_item(items)
  for k = 1, MAXCAPTURES - 1 do
    local it = items[k]
    if it == nil then return nil end
    if it.k == SINGLE then
      if it.q == Q_NONE or it.q == Q_PLUS then return it end
      return nil
    end
    if it.k ~= OPEN and it.k ~= POSCAP then return nil end
  end
  return nil
end

local cache, ncached = { [true] = {}, [false] = {} }, 0

function P.compile(p, anchored)
  local byp = cache[anchored]
  local cp = byp[p]
  if cp then return cp end
  local items, ni = parse(p, anchored)
  local nstar, nopt, nscan, nzw, linear = analyse(items, ni)
  local width = 1
  for k = 1, ni do
    local w = items[k].w
    if w and w > width then width = w end
  end
  cp = { items = items, n = ni, nstar = nstar, nopt = nopt, nscan = nscan, nzw = nzw,
         linear = linear, first = first_item(items), width = width }
  if ncached >= 256 then
    cache[true], cache[false], ncached = {}, {}, 0
    byp = cache[anchored]
  end
  ncached = ncached + 1
  byp[p] = cp
  return cp
end

-- Estimates ----------------------------------------------------------------------------

-- Steps for one attempt at one position of a subject with n bytes left.
local function attempt_cost(cp, n)
  if cp.linear then return (cp.n + 2) * (n + 2.0) end
  local f = 1.0
  if cp.nstar > 0 then f = (n + 1.0) ^ cp.nstar end
  if cp.nopt > 0 then f = f * 2.0 ^ cp.nopt end
  return f * (cp.n + 1 + cp.nscan * (n + 1.0) * (cp.nzw + 2))
end
P.attempt_cost = attempt_cost

-- Steps for `attempts` attempts on a subject with n bytes left (string.find and string.match try
-- once when anchored, else once per start position; gmatch and gsub at most twice per position:
-- an empty match refused where the last one ended, then a step). Each step tests one byte against
-- one item, which costs C up to the width of the widest set.
function P.cost(cp, n, attempts)
  if cp.linear then
    -- failing attempts stop before the first scan; the matches scan only what they match
    return (attempts * (cp.n + 2) + (n + 1.0) * (cp.n + 1) * 2) * cp.width
  end
  return attempts * attempt_cost(cp, n) * cp.width
end

-- Matching -------------------------------------------------------------------------------

local do_match

local function perr(msg)
  error(msg, 0)
end

-- Scanning the subject with C. An anchored run, "^[set]*", costs C about one step a byte plus
-- the set's width (an unanchored search costs several times that), so scans
-- are runs: over a set's members (x*), or over the bytes outside it (to the next possible start).
-- Each set is written in its shortest bracket form, and scans longer than WINDOW_STEPS go window
-- by window, each charged to the budget. The windows start small and double (a window is a copy
-- of that part of the subject), so a scan that ends near where it started copies little.
local WINDOW_STEPS = 65536
local FIRST_WINDOW = 256

-- The run pattern for a set, and its cost in steps a byte; made once per set.
local runs = setmetatable({}, { __mode = "k" })
local function run_of(set)
  local r = runs[set]
  if r then return r end
  local src = set_src(set)
  r = { "^" .. src .. "*", 1 + #src // 2 }
  runs[set] = r
  return r
end

local complements = setmetatable({}, { __mode = "k" })
local function outside(set)
  local c = complements[set]
  if c then return c end
  c = {}
  for b = 0, 255 do
    if not set[b] then c[b] = true end
  end
  complements[set] = c
  return c
end

-- The last index of the run of set's members that starts at s (s - 1 when there is none).
local function run_end(ms, s, set)
  local r = run_of(set)
  local pat, w = r[1], r[2]
  local src, len = ms.src, ms.len
  if len - s + 1 <= FIRST_WINDOW then
    if len >= s then charge((len - s + 1) * w) end
    local _, e = c_find(src, pat, s)
    return e
  end
  local most = WINDOW_STEPS // w
  if most < FIRST_WINDOW then most = FIRST_WINDOW end
  local a, win = s, FIRST_WINDOW
  while a <= len do
    local b = a + win - 1
    if b > len then b = len end
    charge((b - a + 1) * w)
    local _, e = c_find(sub(src, a, b), pat)
    if e < b - a + 1 then return a + e - 1 end
    a = b + 1
    if win < most then win = win * 2 end
  end
  return len
end

-- The first index >= s whose byte is in set, or nil.
local function scan_to(ms, s, set)
  local e = run_end(ms, s, outside(set))
  if e >= ms.len then return nil end
  return e + 1
end

local function max_expand(ms, s, it, nexti)
  local e = run_end(ms, s, it.set)
  local i = e - s + 1
  while i >= 0 do
    local r = do_match(ms, s + i, nexti)
    if r then return r end
    i = i - 1
  end
  return nil
end

local function min_expand(ms, s, set, nexti)
  local src = ms.src
  while true do
    local r = do_match(ms, s, nexti)
    if r then return r end
    if set[byte(src, s)] then s = s + 1 else return nil end
  end
end

local function start_capture(ms, s, nexti, what)
  local level = ms.level
  if level >= MAXCAPTURES then perr("too many captures") end
  ms.cinit[level + 1] = s
  ms.clen[level + 1] = what
  ms.level = level + 1
  local r = do_match(ms, s, nexti)
  if not r then ms.level = ms.level - 1 end
  return r
end

local function end_capture(ms, s, nexti)
  local clen = ms.clen
  local l
  for k = ms.level, 1, -1 do
    if clen[k] == CAP_UNFINISHED then l = k; break end
  end
  if not l then perr("invalid pattern capture") end
  clen[l] = s - ms.cinit[l]
  local r = do_match(ms, s, nexti)
  if not r then clen[l] = CAP_UNFINISHED end
  return r
end

local function match_balance(ms, s, it)
  local src = ms.src
  if byte(src, s) ~= it.b1 then return nil end
  local b2 = it.b2
  local cont = 1
  local pos = s + 1
  while true do
    local j = scan_to(ms, pos, it.either)
    if not j then return nil end
    if byte(src, j) == b2 then
      cont = cont - 1
      if cont == 0 then return j + 1 end
    else
      cont = cont + 1
    end
    pos = j + 1
  end
end

local function match_capture(ms, s, l)
  local clen = ms.clen
  if l < 0 or l >= ms.level or clen[l + 1] == CAP_UNFINISHED then
    perr("invalid capture index %" .. (l + 1))
  end
  local len = clen[l + 1]
  if len == CAP_POSITION then return nil end
  local src = ms.src
  if ms.len - s + 1 >= len then
    local init = ms.cinit[l + 1]
    charge(len)
    if sub(src, s, s + len - 1) == sub(src, init, init + len - 1) then return s + len end
  end
  return nil
end

do_match = function(ms, s, i)
  local depth = ms.depth
  if depth == 0 then perr("pattern too complex") end
  ms.depth = depth - 1
  local items, src = ms.items, ms.src
  while true do
    local it = items[i]
    if it == nil then break end
    local kind = it.k
    if kind == SINGLE then
      local q = it.q
      local m = it.set[byte(src, s)]
      if q == Q_NONE then
        if not m then s = nil; break end
        s = s + 1
        i = i + 1
      elseif not m then
        if q == Q_PLUS then s = nil; break end
        i = i + 1
      elseif q == Q_OPT then
        local r = do_match(ms, s + 1, i + 1)
        if r then s = r; break end
        i = i + 1
      elseif q == Q_MIN then
        s = min_expand(ms, s, it.set, i + 1)
        break
      else
        if q == Q_PLUS then s = s + 1 end
        s = max_expand(ms, s, it, i + 1)
        break
      end
    elseif kind == OPEN then
      s = start_capture(ms, s, i + 1, CAP_UNFINISHED)
      break
    elseif kind == POSCAP then
      s = start_capture(ms, s, i + 1, CAP_POSITION)
      break
    elseif kind == CLOSE then
      s = end_capture(ms, s, i + 1)
      break
    elseif kind == ENDANCHOR then
      if s ~= ms.len + 1 then s = nil end
      break
    elseif kind == BALANCE then
      s = match_balance(ms, s, it)
      if not s then break end
      i = i + 1
    elseif kind == FRONTIER then
      local prev = 0
      if s > 1 then prev = byte(src, s - 1) end
      local cur = byte(src, s) or 0
      local set = it.set
      if set[prev] or not set[cur] then s = nil; break end
      i = i + 1
    elseif kind == BACKREF then
      s = match_capture(ms, s, it.l)
      if not s then break end
      i = i + 1
    else
      perr(it.msg)
    end
  end
  ms.depth = ms.depth + 1
  return s
end

local function new_state(src, cp)
  return { src = src, len = #src, items = cp.items, level = 0, depth = MAXCCALLS,
           cinit = {}, clen = {} }
end

-- Try one match starting at s (reprepstate + match in lstrlib.c).
local function attempt(ms, s)
  ms.level = 0
  ms.depth = MAXCCALLS
  return do_match(ms, s, 1)
end

-- The next start position from s at which a match could begin, or nil when none can.
local function next_start(ms, cp, s)
  local first = cp.first
  if first == nil then return s end
  return scan_to(ms, s, first.set)
end

-- Capture i (0-based) as C's get_onecapture returns it.
local function get_capture(ms, i, s, e)
  if i >= ms.level then
    if i ~= 0 then perr("invalid capture index %" .. (i + 1)) end
    return sub(ms.src, s, e - 1)
  end
  local l = ms.clen[i + 1]
  local init = ms.cinit[i + 1]
  if l == CAP_UNFINISHED then perr("unfinished capture") end
  if l == CAP_POSITION then return init end
  return sub(ms.src, init, init + l - 1)
end

local function push_captures(ms, s, e)
  local n = ms.level
  if n == 0 and s then n = 1 end
  if n == 0 then return end
  if n == 1 then return get_capture(ms, 0, s, e) end
  local out = {}
  for i = 1, n do out[i] = get_capture(ms, i - 1, s, e) end
  return t_unpack(out, 1, n)
end

-- posrelatI: a 1-based start from an integer init and a length.
local function start_index(init, len)
  if init > 0 then return init end
  if init == 0 then return 1 end
  if init < -len then return 1 end
  return len + init + 1
end
P.start_index = start_index

function P.find(s, p, init, find)
  local ls = #s
  local s1 = start_index(init, ls)
  if s1 > ls + 1 then return nil end
  local anchored = byte(p, 1) == 94
  local cp = P.compile(p, anchored)
  local ms = new_state(s, cp)
  while true do
    if not anchored then
      s1 = next_start(ms, cp, s1)
      if not s1 then return nil end
    end
    local e = attempt(ms, s1)
    if e then
      if find then return s1, e - 1, push_captures(ms, nil, 0) end
      return push_captures(ms, s1, e)
    end
    s1 = s1 + 1
    if anchored or s1 > ls + 1 then return nil end
  end
end

function P.gmatch(s, p, init)
  local ls = #s
  local pos = start_index(init, ls)
  if pos > ls + 1 then pos = ls + 2 end
  local cp = P.compile(p, false)
  local ms = new_state(s, cp)
  local lastmatch = nil
  return function()
    local src = pos
    while src <= ls + 1 do
      src = next_start(ms, cp, src)
      if not src then break end
      local e = attempt(ms, src)
      if e and e ~= lastmatch then
        pos, lastmatch = e, e
        return push_captures(ms, src, e)
      end
      src = src + 1
    end
  end
end

-- add_s: a replacement string with %0-%9 and %%.
local function add_s(ms, out, no, s, e, news)
  local i = 1
  while true do
    local j = c_find(news, "%", i, true)
    if not j then break end
    no = no + 1
    out[no] = sub(news, i, j - 1)
    local c = byte(news, j + 1)
    local piece
    if c == 37 then
      piece = "%"
    elseif c == 48 then
      piece = sub(ms.src, s, e - 1)
    elseif c and c >= 49 and c <= 57 then
      piece = get_capture(ms, c - 49, s, e)
      if type(piece) == "number" then piece = tostring(piece) end
    else
      perr("invalid use of '%' in replacement string")
    end
    no = no + 1
    out[no] = piece
    i = j + 2
  end
  no = no + 1
  out[no] = sub(news, i)
  return no
end

function P.gsub(src, p, repl, max_n)
  local tr = type(repl)
  if tr == "number" then repl = tostring(repl); tr = "string" end
  local anchored = byte(p, 1) == 94
  local cp = P.compile(p, anchored)
  local ms = new_state(src, cp)
  local ls = #src
  local out, no = {}, 0
  local s, copied, lastmatch = 1, 1, nil
  local n, changed = 0, false
  while n < max_n do
    local e
    if not anchored then
      local nx = next_start(ms, cp, s)
      if not nx then break end
      s = nx
    end
    e = attempt(ms, s)
    if e and e ~= lastmatch then
      n = n + 1
      if s > copied then no = no + 1; out[no] = sub(src, copied, s - 1) end
      if tr == "string" then
        no = add_s(ms, out, no, s, e, repl)
        changed = true
      else
        local v
        if tr == "table" then
          v = repl[get_capture(ms, 0, s, e)]
        else
          v = (repl(push_captures(ms, s, e)))
        end
        if not v then
          no = no + 1
          out[no] = sub(src, s, e - 1)
        else
          local tv = type(v)
          if tv == "number" then v = tostring(v)
          elseif tv ~= "string" then perr("invalid replacement value (a " .. tv .. ")") end
          no = no + 1
          out[no] = v
          changed = true
        end
      end
      s, lastmatch, copied = e, e, e
    elseif s <= ls then
      s = s + 1
    else
      break
    end
    if anchored then break end
  end
  if not changed then return src, n end
  no = no + 1
  out[no] = sub(src, copied)
  return t_concat(out, "", 1, no), n
end

return P
"""
