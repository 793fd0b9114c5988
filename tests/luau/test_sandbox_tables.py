"""The guarded table functions behave as Lua's own, including the order in which they touch a table's
metamethods, whether they run in C (small, plain tables) or in Lua (large ranges, tables with a
metatable).

Each example runs the same script in a plain lupa runtime and in a Sandbox and compares what it
returns: the table's final contents, the function's results, and a log of every __index and
__newindex call.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lupa import lua54

from jouet_git.luau.sandbox import Budget, Sandbox

SCRIPT = r"""
local n, with_mt, op, a, b, c = ...
local log = {}
local store = {}
for i = 1, n do store[i] = "v" .. i end
local t
if with_mt then
  t = setmetatable({}, {
    __index = function(_, k) log[#log + 1] = "get " .. tostring(k) return store[k] end,
    __newindex = function(_, k, v) log[#log + 1] = "set " .. tostring(k) .. "=" .. tostring(v) store[k] = v end,
    __len = function() return n end,
  })
else
  t = store
end
local function outcome(ok, ...)
  if not ok then return { error = (tostring((...)):gsub("^[^:]*:%d+: ", "")) } end
  return { n = select("#", ...), ... }
end
local r
if op == "insert" then
  if a == nil then r = outcome(pcall(table.insert, t, "new"))
  else r = outcome(pcall(table.insert, t, a, "new")) end
elseif op == "remove" then
  if a == nil then r = outcome(pcall(table.remove, t))
  else r = outcome(pcall(table.remove, t, a)) end
elseif op == "move" then
  r = outcome(pcall(function() return table.move(t, a, b, c) == t end))
elseif op == "concat" then
  r = outcome(pcall(table.concat, t, ",", a, b))
elseif op == "unpack" then
  r = outcome(pcall(function(...) return select("#", ...), (...) end, table.unpack(t, a, b)))
end
local final = {}
for i = -2, n + 3 do final[#final + 1] = tostring(rawget(store, i)) end
return { result = r, log = table.concat(log, ";"), final = table.concat(final, ",") }
"""


def as_data(value: object) -> object:
    if lua54.lua_type(value) == "table":
        return {k: as_data(v) for k, v in value.items()}  # type: ignore[attr-defined]
    return value


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    # a runtime that adds nothing: the Luau runtime replaces table.concat with its own, which
    # reads each element once more to format numbers the Luau way
    yield Sandbox(runtime_lua="return { lib = {} }")


def run_both(sb: Sandbox, *args: object) -> tuple[object, object]:
    native = lua54.LuaRuntime().execute(SCRIPT, *args)
    env = sb.new_env({"args": list(args)})
    guarded = sb.load(
        "return (function(...) " + SCRIPT + " end)(table.unpack(args, 1, 6))",
        "tables",
        env,
        Budget(time=5, instructions=50_000_000),
    )
    return as_data(native), guarded


positions = st.one_of(st.none(), st.integers(min_value=-3, max_value=160))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    n=st.sampled_from([0, 1, 3, 10, 63, 64, 65, 100, 150]),
    with_mt=st.booleans(),
    op=st.sampled_from(["insert", "remove", "move", "concat", "unpack"]),
    a=positions,
    b=positions,
    c=positions,
)
def test_table_functions_agree_with_lua(
    sandbox: Sandbox, n: int, with_mt: bool, op: str, a: int | None, b: int | None, c: int | None
) -> None:
    if op == "move" and None in (a, b, c):
        a, b, c = a or 1, b or n, c or 2
    native, guarded = run_both(sandbox, n, with_mt, op, a, b, c)
    assert guarded == native


@pytest.mark.parametrize("size", [10, 64, 65, 500])
@pytest.mark.parametrize("kind", ["numbers", "strings", "comparator", "error"])
def test_sort_agrees_with_lua(sandbox: Sandbox, size: int, kind: str) -> None:
    script = r"""
    local size, kind = ...
    local t = {}
    for i = 1, size do t[i] = (i * 7919) % 1009 end
    if kind == "strings" then for i = 1, size do t[i] = tostring(t[i]) end end
    if kind == "error" then t[size // 2] = {} end
    local ok, err
    if kind == "comparator" then ok, err = pcall(table.sort, t, function(x, y) return x > y end)
    else ok, err = pcall(table.sort, t) end
    if not ok then return "error: " .. tostring(err):gsub("^.-:%d+: ", "") end
    return table.concat(t, ",")
    """
    native = lua54.LuaRuntime().execute(script, size, kind)
    env = sandbox.new_env({"args": [size, kind]})
    guarded = sandbox.load(
        "return (function(...) " + script + " end)(table.unpack(args, 1, 2))", "sort", env, Budget()
    )
    if kind == "error":
        assert str(guarded).startswith("error: attempt to compare")
        assert str(native).startswith("error: attempt to compare")
    else:
        assert guarded == native
