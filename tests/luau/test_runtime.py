"""The runtime table (RUNTIME_LUA): its shape, Luau's number formatting, and that it is safe to share."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from lupa import lua54
from testing.luau import new_vm, run_luau

from jouet_git.luau.translate import RUNTIME_LUA, translate


def luau_number(x: float) -> str:
    """How Luau's tostring prints a double: shortest round-trip digits, fixed notation while the
    decimal point falls within [-5, 21] digits, otherwise d.ddde+XX with at least two exponent digits."""
    if x != x:
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    sign = "-" if x < 0 else ""
    text = repr(abs(x))
    mantissa, _, exp = text.partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    point = len(whole) + (int(exp) if exp else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    if -5 <= point <= 21:
        if point <= 0:
            return sign + "0." + "0" * -point + digits
        if point >= len(digits):
            return sign + digits + "0" * (point - len(digits))
        return sign + digits[:point] + "." + digits[point:]
    e = point - 1
    body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{body}e{'-' if e < 0 else '+'}{abs(e):02d}"


VM = lua54.LuaRuntime()
R: Any = VM.execute(RUNTIME_LUA)


@given(st.floats(allow_nan=True, allow_infinity=True))
@settings(max_examples=400)
def test_tostr_prints_doubles_as_luau_does(x: float) -> None:
    assert R.tostr(x) == luau_number(x)


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_tostr_prints_lua_integers_as_the_double_luau_would_hold(n: int) -> None:
    assert R.tostr(n) == luau_number(float(n))


def test_tostr_known_values() -> None:
    cases = {
        5.0: "5", 0.1: "0.1", 1e21: "1e+21", 1e20: "100000000000000000000", 1e-5: "0.00001",
        1e-6: "0.000001", 1e-7: "1e-07", 123456.789: "123456.789", 2.0**70: "1.1805916207174113e+21",
        -1.5e-300: "-1.5e-300", 1e100: "1e+100", 2.5: "2.5", 2.0**-24: "5.960464477539063e-08",
        5e-324: "5e-324", 1.7976931348623157e308: "1.7976931348623157e+308",
    }
    for value, text in cases.items():
        assert R.tostr(value) == text, value
    assert R.tostr(None) == "nil" and R.tostr(True) == "true" and R.tostr("s") == "s"


def test_runtime_table_shape() -> None:
    for name in ("iter", "tostr", "concat", "idiv", "mod", "namecall", "tail"):
        assert lua54.lua_type(R[name]) == "function", name
    lib = R.lib
    assert set(lib.keys()) == {"string", "table", "math", "globals"}
    assert {"split", "format"} <= set(lib.string.keys())
    assert {"find", "clear", "create", "clone", "freeze", "isfrozen"} <= set(lib.table.keys())
    assert {"clamp", "sign", "round"} <= set(lib.math.keys())
    assert {"typeof", "tostring"} <= set(lib.globals.keys())
    same = VM.eval("function(a, b) return rawequal(a, b) end")
    assert same(lib.globals.tostring, R.tostr)


def test_every_helper_the_translation_emits_exists() -> None:
    source = """
    local t = {}
    for k, v in t do end
    local s = `{1}` .. t.x
    local a, b = 1 // 2, 3 % 4
    t.goto = 1
    print(t:goto(), ...)
    """
    used = set(re.findall(r"__luau\.(\w+)", translate(source)))
    assert used == {"iter", "tostr", "concat", "idiv", "mod", "namecall", "tail"}
    for name in used:
        assert R[name] is not None


def test_runtime_avoids_forbidden_functions() -> None:
    code = re.sub(r"--[^\n]*", "", RUNTIME_LUA)
    code = re.sub(r'"(\\.|[^"\\])*"', '""', code)
    for name in ("load", "loadstring", "dofile", "debug", "io", "os", "require", "collectgarbage"):
        assert not re.search(rf"\b{name}\b", code), name


def test_runtime_runs_without_forbidden_libraries() -> None:
    lua = lua54.LuaRuntime()
    lua.execute("load, loadstring, dofile, debug, io, os, require, collectgarbage = nil")
    r = lua.execute(RUNTIME_LUA)
    assert r.tostr(2.0) == "2"


def test_runtime_module_imports_nothing() -> None:
    code = (
        "import sys; before = set(sys.modules); import jouet_git.luau.runtime; "
        "print(sorted(set(sys.modules) - before))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['jouet_git', 'jouet_git.luau', 'jouet_git.luau.runtime']"


def test_scripts_cannot_reach_the_runtime_table() -> None:
    run = run_luau("return select('#', ...), rawget(_G, '__luau')")
    assert run.error is None
    assert run.value == 0


def test_one_runtime_shared_by_two_scripts() -> None:
    vm, r, _ = new_vm()
    first = vm.execute("return load(...)", translate("local t = table.freeze({}) ; shared = t ; return t"))
    frozen = first(r)
    second = vm.execute(
        "return load(...)",
        translate("local mine = {}\nreturn table.isfrozen(mine), table.isfrozen(shared), tostring(1 / 2)"),
    )
    assert second(r) == (False, True, "0.5")
    assert r.lib.table.isfrozen(frozen) is True


def test_freeze_is_an_approximation_that_keeps_reads_working() -> None:
    run = run_luau(
        "local t = table.freeze({ 1, 2, k = 'v' })\n"
        "local n = 0\n"
        "for _ in pairs(t) do n += 1 end\n"
        "t.k = 'changed'  -- an existing key: Lua 5.4 cannot stop this (documented)\n"
        "local ok = pcall(function() t.new = 1 end)\n"
        "return n, rawget(t, 1), #t, t.k, ok, next(t) ~= nil"
    )
    assert run.error is None
    assert run.values == [3, 1, 2, "changed", False, True]


def test_iter_follows_luau_for_each_kind_of_value() -> None:
    run = run_luau(
        "local out = {}\n"
        "for _, v in { 'a', 'b', k = 'c' } do table.insert(out, v) end\n"
        "for v in function(_, c) if c < 2 then return c + 1 end return nil end, nil, 0 do table.insert(out, v) end\n"
        "return table.concat(out, ' ')"
    )
    assert run.error is None
    assert run.value == "a b c 1 2"


def test_concat_honours_metamethods_right_to_left() -> None:
    run = run_luau(
        "local log = {}\n"
        "local M = { __concat = function(a, b)\n"
        "  table.insert(log, (type(a) == 'table' and 'T' or a) .. '+' .. (type(b) == 'table' and 'T' or b))\n"
        "  return 'r'\n"
        "end }\n"
        "local x = setmetatable({}, M)\n"
        "local s = 'a' .. x .. 'b'\n"
        "return s .. ' ' .. table.concat(log, ',')"
    )
    assert run.error is None
    assert run.value == "ar T+b"
