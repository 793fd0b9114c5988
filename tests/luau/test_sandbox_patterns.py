"""The pure-Lua pattern matcher gives C's results and errors, and the guarded string functions
give the standard library's, whichever way they run.

The matcher is tested bare, in a plain lupa runtime (no sandbox, no hooks), against lstrlib.c on
the same inputs; the guarded functions are tested inside a Sandbox, once with the C path allowed
and once with every pattern forced through the Lua matcher.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from lupa import lua54

from jouet_git.luau import precompiled, safelib
from jouet_git.luau.patterns import PATTERNS_LUA
from jouet_git.luau.sandbox import Budget, Sandbox, ScriptError

# Compare inside Lua: run C and the Lua matcher on the same arguments and serialise both
# outcomes (values with their types, or the error message) to bytes.
HARNESS = r"""
local P = ...
local spack, sfmt, concat = table.pack, string.format, table.concat

local function ser(t)
  local out = { t.n }
  for i = 1, t.n do
    local v = t[i]
    out[#out + 1] = type(v) == "string" and sfmt("%q", v) or (math.type(v) or type(v)) .. ":" .. tostring(v)
  end
  return concat(out, ",")
end

local function outcome(ok, ...)
  if ok then return "ok " .. ser(spack(...)) end
  return "error " .. tostring((...))
end

local function iterate(gen)
  local ok, it = pcall(gen)
  if not ok then return "error " .. tostring(it) end
  local parts = {}
  for _ = 1, 200 do
    local r = spack(pcall(it))
    if not r[1] then parts[#parts + 1] = "error " .. tostring(r[2]); break end
    if r.n == 1 or r[2] == nil then break end
    parts[#parts + 1] = ser(spack(table.unpack(r, 2, r.n)))
  end
  return concat(parts, " | ")
end

local function make_repl(kind, text)
  if kind == "string" then return text end
  if kind == "number" then return 42 end
  if kind == "table" then return { a = "<A>", b = false, ["("] = 7, x = {}, [""] = "<E>", [1] = "<1>" } end
  return function(...)
    local n = select("#", ...)
    local first = ...
    if first == "b" then return false end
    if first == "x" then return {} end
    local parts = {}
    for i = 1, n do parts[i] = tostring((select(i, ...))) end
    return "<" .. concat(parts, "|") .. ">"
  end
end

local budget_left = 0
local function guard()
  budget_left = 3000000
  debug.sethook(function()
    budget_left = budget_left - 1000
    if budget_left < 0 then error("TOO SLOW", 0) end
  end, "", 1000)
end

return function(mode, s, p, init, repl_kind, repl_text, max_n)
  local c, l
  if mode == "find" or mode == "match" then
    local f = string[mode]
    c = outcome(pcall(f, s, p, init))
    guard()
    l = outcome(pcall(P.find, s, p, init or 1, mode == "find"))
    debug.sethook()
  elseif mode == "gmatch" then
    c = iterate(function() return string.gmatch(s, p, init) end)
    guard()
    l = iterate(function() return P.gmatch(s, p, init or 1) end)
    debug.sethook()
  else
    local repl = make_repl(repl_kind, repl_text)
    c = outcome(pcall(string.gsub, s, p, repl, max_n))
    guard()
    l = outcome(pcall(P.gsub, s, p, repl, max_n or #s + 1))
    debug.sethook()
  end
  return c, l
end
"""


@pytest.fixture(scope="module")
def compare() -> Iterator[object]:
    lua = lua54.LuaRuntime(encoding=None)
    raw = lua.eval(
        "(function() local C = {} for k, v in pairs(string) do C[k] = v end "
        "C.t_concat, C.t_unpack = table.concat, table.unpack "
        "C.error, C.type, C.tostring, C.select, C.next = error, type, tostring, select, next "
        "C.setmetatable = setmetatable return C end)()"
    )
    load = lua.eval("load")
    no_charge = lua.eval("function() end")
    matcher = load(PATTERNS_LUA.encode(), b"=patterns", b"t")(raw, no_charge)
    yield load(HARNESS.encode(), b"=harness", b"t")(matcher)


SUBJECT_BYTES = [*b"ab()x .,0\n%-[]^$", 0, 0xE9]

# Bracket sets longer than the matcher's SHORT_SET, which it reads itself rather than asking C.
long_sets = st.tuples(
    st.sampled_from(["[", "[^"]),
    st.lists(
        st.sampled_from(["a", "b", "x", "0", "-", "]", "^", "%]", "%-", "%%", "%a", "%d", "%S", "%w", "a-c",
                         "(-)", "--a", "\xe9", "\x00", ".", "[", "%"]),
        min_size=12,
        max_size=30,
    ),
).map(lambda t: t[0] + "".join(t[1]) + "]")

subjects = st.lists(st.sampled_from(SUBJECT_BYTES), max_size=14).map(bytes)

piece = st.one_of(
    st.sampled_from(
        [
            "a", "b", "x", "0", ".", "%a", "%d", "%s", "%w", "%A", "%S", "%p", "%x", "%l", "%u",
            "%c", "%g", "%(", "%%", "%.", "%-", "[ab]", "[^a]", "[a-c]", "[%a_]", "[]]", "[^]]",
            "[%]]", "[a-]", "[-a]", "[%w.]", "[^%s,]", "\xe9",
        ]
    ).flatmap(lambda c: st.sampled_from(["", "*", "+", "-", "?"]).map(lambda q: c + q)),
    st.sampled_from(
        [
            "(", ")", "()", "%b()", "%bab", "%bxx", "%f[%w]", "%f[^a]", "%f[%z]", "%1", "%2",
            "%0", "$", "^", "%b", "%b(", "%f", "%fa", "[", "[a", "%", "[^", "%f[a", "(((", ")))",
        ]
    ),
    st.text(alphabet="^$*+?.([%-])ab", min_size=1, max_size=3),
    long_sets.flatmap(lambda c: st.sampled_from(["", "*", "+", "-", "?"]).map(lambda q: c + q)),
)

patterns = st.tuples(st.sampled_from(["", "^"]), st.lists(piece, max_size=6)).map(
    lambda t: (t[0] + "".join(t[1])).encode("latin-1")
)

inits = st.one_of(st.none(), st.integers(min_value=-18, max_value=18))

repl_texts = st.lists(
    st.sampled_from(["x", "%0", "%1", "%2", "%%", "%", "%a", "-", "%9"]), max_size=4
).map(lambda parts: "".join(parts).encode())


def check(compare: object, *args: object) -> None:
    c, lua_result = compare(*args)  # type: ignore[operator]
    assume(lua_result != b"error TOO SLOW")
    assert lua_result == c, f"args={args!r}\n C: {c!r}\nLua: {lua_result!r}"


FAST = settings(max_examples=700, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(mode=st.sampled_from(["find", "match"]), s=subjects, p=patterns, init=inits)
def test_find_and_match_agree_with_c(compare: object, mode: str, s: bytes, p: bytes, init: int | None) -> None:
    check(compare, mode, s, p, init, None, None, None)


@FAST
@given(s=subjects, p=patterns, init=inits)
def test_gmatch_agrees_with_c(compare: object, s: bytes, p: bytes, init: int | None) -> None:
    check(compare, "gmatch", s, p, init, None, None, None)


@FAST
@given(
    s=subjects,
    p=patterns,
    kind=st.sampled_from(["string", "number", "table", "function"]),
    text=repl_texts,
    max_n=st.one_of(st.none(), st.integers(min_value=-1, max_value=4)),
)
def test_gsub_agrees_with_c(
    compare: object, s: bytes, p: bytes, kind: str, text: bytes, max_n: int | None
) -> None:
    check(compare, "gsub", s, p, None, kind, text, max_n)


@pytest.mark.parametrize(
    ("mode", "s", "p", "init"),
    [
        ("find", b"hello world", b"o w", None),
        ("find", b"hello", b"l+", -3),
        ("match", b"key = value", b"^(%w+)%s*=%s*(%w+)$", None),
        ("match", b"THE (quick) fox", b"%f[%a]%a+%f[%A]", 5),
        ("match", b"f(a(b)c)d", b"%b()", None),
        ("match", b"abcabc", b"(abc)%1", None),
        ("match", b"abc", b"()b()", None),
        ("match", b"aaa", b"(a*(.)%w(%s*))", None),
        ("match", b"x", b"(()", None),
        ("match", b"x", b"%1", None),
        ("match", b"x", b"x)", None),
        ("match", b"abc", b"[a", None),
        ("match", b"abc", b"x[a", None),
        ("match", b"abc", b"%", None),
        ("match", b"abc", b"%f", None),
        ("match", b"abc", b"%b", None),
        ("match", b"a", b"(" * 33, None),
        ("match", b"a" * 30, b"a?" * 210, None),
        ("match", b"\x00a\x00", b"%z", None),
        ("match", b"[]", b"[]]", None),
        ("match", b"-", b"[a-]", None),
        ("match", b"a.b", b"%.", None),
        ("gmatch", b"one two  three", b"%a+", None),
        ("gmatch", b"abc", b"", None),
        ("gmatch", b"abc", b"^a", None),
        ("gmatch", b"a,b,,c", b"([^,]*)", 3),
        ("find", b"", b"", 1),
        ("find", b"abc", b"", 10),
        ("find", b"abc", b"$", None),
        ("find", b"a$c", b"$c", None),
    ],
)
def test_known_cases_agree_with_c(compare: object, mode: str, s: bytes, p: bytes, init: int | None) -> None:
    c, lua_result = compare(mode, s, p, init, None, None, None)  # type: ignore[operator]
    assert lua_result == c


@pytest.mark.parametrize(
    ("s", "p", "kind", "text", "max_n"),
    [
        (b"hello world", b"o", "string", b"0", None),
        (b"hello world", b"(o)", "string", b"[%1%0%%]", 1),
        (b"abc", b"%w", "string", b"%2", None),
        (b"abc", b"%w", "string", b"%", None),
        (b"abc", b"", "string", b"-", None),
        (b"abc", b"b*", "string", b"-", None),
        (b"abc", b"^a", "string", b"A", None),
        (b"abc", b"(", "string", b"x", None),
        (b"abc", b"()", "string", b"%1", None),
        (b"a b x", b"%w", "table", b"", None),
        (b"a b x", b"(%w)()", "function", b"", None),
        (b"abc", b".", "number", b"", -1),
    ],
)
def test_known_gsub_cases_agree_with_c(
    compare: object, s: bytes, p: bytes, kind: str, text: bytes, max_n: int | None
) -> None:
    c, lua_result = compare("gsub", s, p, None, kind, text, max_n)  # type: ignore[operator]
    assert lua_result == c


# Through the sandbox -----------------------------------------------------------------------

GUARDED = r"""
local mode, s, p, a, b = ...
local function capture(ok, ...)
  if not ok then
    local msg = tostring((...)):gsub("^[^:]*:%d+: ", "")
    return { error = msg }
  end
  return { n = select("#", ...), ... }
end
if mode == "gmatch" then
  local out = {}
  local ok, err = pcall(function()
    for x, y in string.gmatch(s, p, a) do
      out[#out + 1] = { x, y }
      if #out > 200 then break end
    end
  end)
  if not ok then out.error = tostring(err):gsub("^[^:]*:%d+: ", "") end
  return out
elseif mode == "gsub" then
  return capture(pcall(string.gsub, s, p, a, b))
else
  return capture(pcall(string[mode], s, p, a, b))
end
"""

ASCII_SUBJECTS = st.text(alphabet="ab()x .,0-%[]", max_size=14)
ASCII_PATTERNS = patterns.filter(lambda p: p.isascii()).map(lambda p: p.decode())


def run_guarded(sb: Sandbox, mode: str, s: object, p: object, a: object, b: object) -> object:
    env = sb.new_env({"args": [mode, s, p, a, b]})
    src = "return (function(...) " + GUARDED + " end)(table.unpack(args, 1, 5))"
    return sb.load(src, "guarded", env, Budget(time=5, instructions=50_000_000))


def run_plain(mode: str, s: object, p: object, a: object, b: object) -> object:
    lua = lua54.LuaRuntime()
    fn = lua.execute("return function(...) " + GUARDED + " end")
    result = fn(mode, s, p, a, b)
    return {k: (dict(v) if lua54.lua_type(v) == "table" else v) for k, v in result.items()}


@pytest.fixture(scope="module", params=["c-allowed", "lua-only"])
def guarded_sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    if request.param == "lua-only":
        mp = pytest.MonkeyPatch()
        mp.setattr(safelib, "SAFELIB_LUA", safelib.SAFELIB_LUA.replace("local E_MAX = 1000000", "local E_MAX = -1"))
        # A wheel without the file: the edited text is compiled, and the package's file is left alone.
        mp.setattr(precompiled, "in_source_checkout", lambda: False)
        mp.setattr(precompiled, "path", lambda: os.devnull + ".jouet-no-such-file")
        try:
            yield Sandbox()
        finally:
            mp.undo()
    else:
        yield Sandbox()


def normalise(value: object) -> object:
    """Results as comparable data. A "bad argument" error names the function as the call site
    spelt it ('gmatch') when C is called directly, and by its library name ('string.gmatch')
    through the guard, which calls C from Lua; the rest of the message is the same."""
    if isinstance(value, dict):
        return {k: normalise(v) for k, v in value.items()}
    if isinstance(value, str):
        return re.sub(r"to '(string|table|utf8)\.", "to '", value)
    return value


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    mode=st.sampled_from(["find", "match", "gmatch", "gsub"]),
    s=st.one_of(ASCII_SUBJECTS, st.integers(-5, 500)),
    p=st.one_of(ASCII_PATTERNS, st.integers(0, 9)),
    a=st.one_of(st.none(), st.integers(-16, 16), st.sampled_from(["%0-", "x", "3"])),
    b=st.one_of(st.none(), st.booleans(), st.integers(-1, 3)),
)
def test_guarded_functions_agree_with_the_standard_library(
    guarded_sandbox: Sandbox, mode: str, s: object, p: object, a: object, b: object
) -> None:
    if mode == "gsub" and a is None:
        a = "<%0>"
    expected = run_plain(mode, s, p, a, b)
    try:
        got = run_guarded(guarded_sandbox, mode, s, p, a, b)
    except ScriptError as e:  # a budget can only run out on pathological generated patterns
        assume(False)
        raise AssertionError from e
    assert normalise(got) == normalise(expected)


def test_forced_lua_path_really_runs_in_lua() -> None:
    """With E_MAX below every cost, a catastrophic pattern is interrupted by the hook, in Lua."""
    mp = pytest.MonkeyPatch()
    mp.setattr(safelib, "SAFELIB_LUA", safelib.SAFELIB_LUA.replace("local E_MAX = 1000000", "local E_MAX = -1"))
    # A wheel without the file: the edited text is compiled, and the package's file is left alone.
    mp.setattr(precompiled, "in_source_checkout", lambda: False)
    mp.setattr(precompiled, "path", lambda: os.devnull + ".jouet-no-such-file")
    try:
        sb = Sandbox()
    finally:
        mp.undo()
    assert "safelib" not in sb.precompiled  # the edited text, never the bytecode of the real one
    env = sb.new_env()
    with pytest.raises(ScriptError) as info:
        sb.load("local s = ('a'):rep(40) return s:find('a-a-a-a-a-a-b')", "t", env, Budget(instructions=200_000))
    assert getattr(info.value, "kind", None) in ("instructions", "time")
