"""The Sandbox API: loading and calling scripts, what they return, how they fail, what they can
reach, and that ordinary Lua still works inside.

Most tests use a minimal stand-in for the Luau runtime (STAND_IN) so that they test the sandbox
alone; a few use the real runtime (jouet_git/luau/runtime.py), which is the default.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from jouet_git.luau.sandbox import Budget, BudgetExceeded, Sandbox, ScriptError

STAND_IN = r"""
local R = {}
function R.tail(_, ...) return ... end
local function split(s, sep)
  local out, start = {}, 1
  while true do
    local i = string.find(s, sep, start, true)
    if not i then break end
    out[#out + 1] = string.sub(s, start, i - 1)
    start = i + #sep
  end
  out[#out + 1] = string.sub(s, start)
  return out
end
R.lib = {
  string = { split = split },
  table = { find = function(t, v) for i = 1, #t do if t[i] == v then return i end end end },
  math = { clamp = function(x, lo, hi) return math.max(lo, math.min(hi, x)) end },
  globals = { typeof = type },
}
return R
"""

B = Budget()


@pytest.fixture(scope="module")
def sb() -> Iterator[Sandbox]:
    yield Sandbox(runtime_lua=STAND_IN)


def run(sb: Sandbox, source: str, **globals: object) -> Any:
    return sb.load(source, "test.lua", sb.new_env(globals or None), B)


# Results ------------------------------------------------------------------------------------


def test_load_returns_plain_python_values(sb: Sandbox) -> None:
    got = run(sb, "return { n = 3, f = 2.5, s = 'text', yes = true, list = { 'a', 'b' }, nested = { x = { y = 1 } } }")
    assert got == {
        "n": 3, "f": 2.5, "s": "text", "yes": True, "list": {1: "a", 2: "b"}, "nested": {"x": {"y": 1}},
    }


def test_functions_come_back_callable(sb: Sandbox) -> None:
    rule = run(sb, "local count = 0 return { check = function(call) count = count + 1 return call.n * 2, count end }")
    assert sb.call(rule["check"], {"n": 21}, budget=B) == 42
    assert sb.call(rule["check"], {"n": 1}, budget=B) == 2


def test_call_returns_only_the_first_result_and_none_for_nothing(sb: Sandbox) -> None:
    fns = run(sb, "return { two = function() return 1, 2 end, none = function() end }")
    assert sb.call(fns["two"], budget=B) == 1
    assert sb.call(fns["none"], budget=B) is None


def test_results_are_copied_without_running_script_code(sb: Sandbox) -> None:
    got = run(
        sb,
        "local t = setmetatable({ real = 1 }, { __index = function() while true do end end,"
        " __pairs = function() while true do end end })"
        " return t",
    )
    assert got == {"real": 1}


def test_invalid_utf8_in_results_is_replaced(sb: Sandbox) -> None:
    assert run(sb, "return { ['k\\255'] = 'a\\255b\\195' }") == {"k\ufffd": "a\ufffdb\ufffd"}


def test_results_with_cycles_or_table_keys_are_refused(sb: Sandbox) -> None:
    with pytest.raises(ScriptError, match="inside itself"):
        run(sb, "local t = {} t.me = t return t")
    with pytest.raises(ScriptError, match="table as a table key"):
        run(sb, "return { [{}] = 1 }")


def test_read_only_tables_come_back_as_their_contents(sb: Sandbox) -> None:
    assert run(sb, "return data", data={"a": [1, 2]}) == {"a": {1: 1, 2: 2}}


# Errors ---------------------------------------------------------------------------------------


def test_compile_errors_name_the_chunk_and_line(sb: Sandbox) -> None:
    with pytest.raises(ScriptError) as info:
        sb.load("local x = 1\nlocal = 2\n", "broken.lua", sb.new_env(), B)
    e = info.value
    assert not isinstance(e, BudgetExceeded)
    assert (e.chunkname, e.line) == ("broken.lua", 2)
    assert e.message == "<name> expected near '='"
    assert str(e) == "broken.lua:2: <name> expected near '='"


def test_bytecode_is_never_loaded(sb: Sandbox) -> None:
    with pytest.raises(ScriptError, match="attempt to load a binary chunk"):
        sb.load("\x1bLua", "bin.lua", sb.new_env(), B)


def test_runtime_errors_name_the_line(sb: Sandbox) -> None:
    with pytest.raises(ScriptError) as info:
        sb.load("local t = nil\n\nreturn t.x\n", "r.lua", sb.new_env(), B)
    assert info.value.line == 3
    assert info.value.message == "attempt to index a nil value (local 't')"


def test_error_with_level_two_names_the_caller(sb: Sandbox) -> None:
    with pytest.raises(ScriptError) as info:
        sb.load("local function check(x)\n  error('bad x', 2)\nend\ncheck(1)\n", "lvl.lua", sb.new_env(), B)
    assert (info.value.line, info.value.message) == (4, "bad x")


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("error({})", "(error object is a table value)"),
        (
            "error(setmetatable({}, { __tostring = function() while true do end end }))",
            "(error object is a table value)",
        ),
        ("error(42)", "42"),
        ("error(nil)", "nil"),
        ("error(true)", "true"),
        ("error(print)", "(error object is a function value)"),
        ("error('plain', 0)", "plain"),
    ],
)
def test_errors_that_are_not_strings_become_text_without_running_script_code(
    sb: Sandbox, expr: str, message: str
) -> None:
    with pytest.raises(ScriptError) as info:
        run(sb, "local x = 1\n" + expr)
    assert info.value.message == message
    assert info.value.line == 2


def test_long_error_messages_are_cut(sb: Sandbox) -> None:
    with pytest.raises(ScriptError) as info:
        run(sb, "error(string.rep('x', 100000))")
    assert info.value.message.endswith("x [...]")
    assert len(info.value.message) < 2010


def test_python_exceptions_become_script_errors(sb: Sandbox) -> None:
    def probe() -> None:
        raise ValueError("no such branch")

    with pytest.raises(ScriptError) as info:
        run(sb, "local a = 1\nprobe()", probe=probe)
    assert info.value.message == "ValueError: no such branch"
    assert info.value.line == 2
    assert isinstance(info.value.__cause__, ValueError)


def test_a_script_may_catch_a_python_exception(sb: Sandbox) -> None:
    def probe() -> None:
        raise ValueError("no")

    assert run(sb, "local ok, err = pcall(probe) return { ok, err }", probe=probe) == {1: False, 2: "ValueError: no"}


def test_errors_from_guarded_library_calls_name_the_script_line(sb: Sandbox) -> None:
    for call, message in [
        ("s:rep()", "bad argument #2 to 'string.rep' (number expected, got no value)"),
        ("string.find()", "bad argument #1 to 'string.find' (string expected, got no value)"),
        ("s:gsub('x', true)", "bad argument #3 to 'string.gsub' (string/function/table expected, got boolean)"),
        ("s:find('[a')", "malformed pattern (missing ']')"),
        ("table.concat({ {} })", "invalid value (table) at index 1 in table for 'concat'"),
    ]:
        with pytest.raises(ScriptError) as info:
            sb.load(f"local s = 'x'\nlocal r = {call}\nreturn r", "g.lua", sb.new_env(), B)
        assert (info.value.line, info.value.message) == (2, message)
        # a tail call leaves no frame of the script to point at: the message stays clean
        with pytest.raises(ScriptError) as info:
            sb.load(f"local s = 'x'\nreturn {call}", "g.lua", sb.new_env(), B)
        assert info.value.message == message


def test_scripts_larger_than_the_limit_are_refused(sb: Sandbox) -> None:
    with pytest.raises(ScriptError, match="scripts are limited to"):
        sb.load("-- " + "x" * (5 * 1024 * 1024), "huge.lua", sb.new_env(), B)


def test_budget_values_are_checked() -> None:
    with pytest.raises(ValueError):
        Budget(time=0)
    with pytest.raises(ValueError):
        Budget(instructions=0)
    assert repr(Budget()) == "Budget(time=0.05, instructions=1000000)"


def test_call_takes_lua_functions_only(sb: Sandbox) -> None:
    with pytest.raises(TypeError):
        sb.call(print, budget=B)


def test_calls_do_not_nest(sb: Sandbox) -> None:
    inner = run(sb, "return function() return 1 end")

    def probe() -> object:
        return sb.call(inner, budget=B)

    with pytest.raises(ScriptError, match="RuntimeError: the sandbox is already running a script"):
        run(sb, "return probe()", probe=probe)
    assert sb.call(inner, budget=B) == 1


# What a script can reach ---------------------------------------------------------------------

ABSENT = [
    "require", "load", "loadstring", "dofile", "loadfile", "io", "debug", "collectgarbage", "package",
    "python", "newproxy", "module", "setfenv", "getfenv",
]


@pytest.mark.parametrize("name", ABSENT)
def test_dangerous_globals_are_absent(sb: Sandbox, name: str) -> None:
    assert run(sb, f"return {name} == nil") is True


def test_os_is_only_the_clock() -> None:
    sb = Sandbox(runtime_lua=STAND_IN)
    names = run(sb, "local n = {} for k in pairs(os) do n[#n + 1] = k end table.sort(n) return n")
    assert list(names.values()) == ["clock", "date", "difftime", "time"]
    assert run(sb, "return string.dump == nil and os.execute == nil and os.getenv == nil") is True


def test_lupas_global_table_holds_nothing_dangerous(sb: Sandbox) -> None:
    g = sb.lua.globals()
    for name in ABSENT:
        assert g[name] is None
    assert g["string"] is not None


def test_scripts_never_hold_python_objects(sb: Sandbox) -> None:
    """A Python function reaches a script as a Lua function that calls it: there is nothing to
    take attributes from, and what it returns is wrapped the same way."""

    class Thing:
        secret = "s"

        def __call__(self) -> str:
            return "called"

    def make() -> object:
        return Thing()

    assert run(sb, "return f()", f=Thing()) == "called"
    assert run(sb, "return type(f) .. type(make()) .. type(make()())", f=Thing(), make=make) == "functionfunctionstring"
    for expr in ["f.__class__", "f.secret", "f['__class__']", "make().__class__", "getmetatable(f).__index"]:
        with pytest.raises(ScriptError, match="attempt to index"):
            run(sb, f"return {expr}", f=Thing(), make=make)
    with pytest.raises(ScriptError, match="attempt to index"):
        run(sb, "f.x = 1", f=Thing())
    # Python objects as table keys too, in a raw Lua table or one made read-only
    key = Thing()
    assert run(sb, "local k = next(t) return type(k)", t=sb.lua.table_from({key: "x"})) == "function"
    assert run(sb, "local k = next(t) return type(k)", t={key: "x"}) == "function"


def test_the_attribute_filter_refuses_every_attribute(sb: Sandbox) -> None:
    """Behind the wrappers, the VM itself refuses attribute access on Python objects."""
    read = sb.lua.eval("function(o) return o.__class__ end")
    write = sb.lua.eval("function(o) o.x = 1 end")
    for fn in (read, write):
        with pytest.raises(AttributeError, match="cannot reach the attributes of Python objects"):
            fn(lambda: 1)


def test_getmetatable_cannot_reach_lupas_or_the_string_metatable(sb: Sandbox) -> None:
    assert run(sb, "return getmetatable(f) == nil", f=lambda: 1) is True
    assert run(sb, "return getmetatable('')") == "The metatable is locked"
    assert run(sb, "return getmetatable('').__index") is None
    assert run(sb, "return getmetatable(string)") == "The metatable is locked"
    with pytest.raises(ScriptError, match="cannot change a protected metatable"):
        run(sb, "setmetatable(string, {})")


def test_string_methods_reach_the_guarded_functions(sb: Sandbox) -> None:
    assert run(sb, "return ('x').rep == string.rep and ('x').find == string.find") is True
    assert run(sb, "return ('ab'):rep(3, '-')") == "ab-ab-ab"
    assert run(sb, "return ('a,b'):split(',')") == {1: "a", 2: "b"}


def test_libraries_and_given_globals_are_read_only(sb: Sandbox) -> None:
    jouet = {"version": "1", "git": {"state": lambda: "clean"}}
    for source in [
        "string.rep = nil",
        "string.new = 1",
        "table.insert(string, 1)",
        "rawset(string, 'rep', 1)",
        "rawset(jouet, 'version', 2)",
        "jouet.version = 2",
        "jouet.git.state = nil",
        "jouet.git.extra = 1",
        "table.insert(jouet.git, 1)",
        "table.remove(list)",
        "table.sort(list, function(a, b) return a > b end)",
        "table.move(list, 1, 2, 2)",
        "setmetatable(jouet, nil)",
    ]:
        with pytest.raises(ScriptError, match=r"readonly table|protected metatable"):
            run(sb, source, jouet=jouet, list=[3, 1, 2])


def test_iterating_a_read_only_table_does_not_hand_out_its_contents_table(sb: Sandbox) -> None:
    source = """
    local found = {}
    for _, t in ipairs({ string, jouet, jouet.git }) do
      local f, state, init = pairs(t)
      found[#found + 1] = rawequal(state, t) and init == nil
      local ok = pcall(function() state.rep = 1 end)
      found[#found + 1] = not ok
    end
    return found
    """
    got = run(sb, source, jouet={"git": {"a": 1}})
    assert got == {i: True for i in range(1, 7)}
    assert run(sb, "return string.rep ~= 1") is True


def test_read_only_tables_read_like_the_original(sb: Sandbox) -> None:
    data = {"name": "x", "list": [10, 20, 30], "map": {"k": "v"}}
    assert run(
        sb,
        "local keys = {} for k in pairs(data) do keys[#keys + 1] = k end table.sort(keys)"
        " local sum = 0 for _, v in ipairs(data.list) do sum = sum + v end"
        " return { keys = table.concat(keys, ','), sum = sum, len = #data.list,"
        "   raw = rawget(data, 'name'), rawlen = rawlen(data.list), nxt = next(data.map),"
        "   unpacked = select('#', table.unpack(data.list)), same = data.list == data.list,"
        "   concat = table.concat(data.list, '+'), found = table.find(data.list, 20) }",
        data=data,
    ) == {
        "keys": "list,map,name", "sum": 60, "len": 3, "raw": "x", "rawlen": 3, "nxt": "k",
        "unpacked": 3, "same": True, "concat": "10+20+30", "found": 2,
    }


def test_readonly_takes_lua_tables_and_snapshots_them(sb: Sandbox) -> None:
    t = sb.lua.table_from({"a": 1})
    ro = sb.readonly(t)
    t["a"] = 2
    fn = run(sb, "return function(x) return x.a end")
    assert sb.call(fn, ro, budget=B) == 1
    assert sb.readonly(ro) is not None
    with pytest.raises(TypeError):
        sb.readonly(5)


def test_every_rule_has_globals_of_its_own(sb: Sandbox) -> None:
    env_a, env_b = sb.new_env(), sb.new_env()
    sb.load("shared = 'from a' string_copy = string", "a.lua", env_a, B)
    assert sb.load("return shared", "b.lua", env_b, B) is None
    assert sb.load("return _G == _ENV and _G.shared == nil", "b.lua", env_b, B) is True
    assert sb.load("return shared", "a2.lua", env_a, B) == "from a"


def test_python_functions_may_return_plain_data_and_several_values(sb: Sandbox) -> None:
    def state() -> object:
        return {"branch": "main", "ahead": 2, "files": ["a.py", "b.py"]}

    def ahead(branch: str) -> tuple[object, ...]:
        if branch == "main":
            return 3, None
        return None, f"no branch {branch}"

    jouet = {"git": {"state": state, "ahead": ahead}}
    assert run(
        sb,
        "local s = jouet.git.state() local n = jouet.git.ahead('main') local none, why = jouet.git.ahead('x')"
        " return { s.branch, s.ahead + n, #s.files, none == nil, why, pcall(function() s.branch = 1 end) }",
        jouet=jouet,
    ) == {
        1: "main", 2: 5, 3: 2, 4: True, 5: "no branch x", 6: False,
        7: "test.lua:1: attempt to modify a readonly table",
    }


def test_python_callbacks_get_lua_tables(sb: Sandbox) -> None:
    seen: list[object] = []

    def probe(t: object) -> int:
        seen.append(dict(t.items()))  # type: ignore[attr-defined]
        return 7

    assert run(sb, "return probe({ a = 1 })", probe=probe) == 7
    assert seen == [{"a": 1}]


# Ordinary scripts still work -----------------------------------------------------------------

ORDINARY = [
    ("return ('Hello'):upper() .. ('X'):lower() .. ('abc'):reverse() .. ('abc'):sub(2) .. #('abc')", "HELLOxcbabc3"),
    ("return select(2, ('key=value'):find('=', 1, true))", 4),
    ("return ('key = value'):match('^(%w+)%s*=%s*(%w+)$')", "key"),
    ("local n = 0 for w in ('a bb ccc'):gmatch('%a+') do n = n + #w end return n", 6),
    ("return (('hello world'):gsub('o', '0'))", "hell0 w0rld"),
    ("return (('a-b-c'):gsub('%-', { ['-'] = '+' }))", "a+b+c"),
    ("return (('abc'):gsub('%w', function(c) return c:byte() .. ',' end))", "97,98,99,"),
    ("return string.format('%5.2f|%d|%s|%q', 3.14159, 42, 'x', 'a\\n')", ' 3.14|42|x|"a\\\n"'),
    ("return string.char(72, 105) .. utf8.char(233) .. utf8.len('é')", "Hié1"),
    ("return string.unpack('<i4', string.pack('<i4', 1234))", 1234),
    ("local function counter() local n = 0 return function() n = n + 1 return n end end"
     " local c = counter() c() c() return c()", 3),
    ("local V = {} V.__index = V V.__add = function(a, b) return setmetatable({ x = a.x + b.x }, V) end"
     " V.__eq = function(a, b) return a.x == b.x end V.__lt = function(a, b) return a.x < b.x end"
     " V.__tostring = function(v) return 'V' .. v.x end V.__len = function() return 99 end"
     " V.__call = function(self, y) return self.x * y end V.__concat = function(a, b) return 'cat' end"
     " local a, b = setmetatable({ x = 1 }, V), setmetatable({ x = 2 }, V)"
     " return tostring(a + b) .. tostring(a < b) .. tostring(a == a) .. #a .. a(5) .. (a .. b)", "V3truetrue995cat"),
    ("local log = {} do local x <close> = setmetatable({}, { __close = function() log[#log + 1] = 'closed' end })"
     " log[#log + 1] = 'body' end return table.concat(log, ',')", "body,closed"),
    ("local gen = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end)"
     " return gen() + gen() + gen()", 6),
    ("local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) return b * 2 end)"
     " local _, x = coroutine.resume(co, 1) local _, y = coroutine.resume(co, 10)"
     " return x + y + (coroutine.status(co) == 'dead' and 100 or 0)", 122),
    ("local co = coroutine.create(function() coroutine.yield() end) coroutine.resume(co)"
     " return coroutine.close(co) and coroutine.status(co)", "dead"),
    ("local ok, err = pcall(error, 'boom', 0) return tostring(ok) .. err", "falseboom"),
    ("return select(2, xpcall(function() error('e', 0) end, function(m) return 'handled ' .. m end))", "handled e"),
    ("local ok, e = pcall(error, { code = 7 }) return e.code", 7),
    ("local t = { 5, 2, 8, 1 } table.sort(t) return table.concat(t, ',')", "1,2,5,8"),
    ("local t = {} for i = 1, 500 do t[i] = (i * 7919) % 1000 end table.sort(t, function(a, b) return a > b end)"
     " return t[1] .. ',' .. t[500]",
     f"{max((i * 7919) % 1000 for i in range(1, 501))},{min((i * 7919) % 1000 for i in range(1, 501))}"),
    ("local t = {} for i = 1, 300 do t[i] = tostring(i) end table.sort(t) return t[1] .. t[300]", "199"),
    ("local t = { 1, 2, 3 } table.insert(t, 1, 0) table.insert(t, 4) table.remove(t, 2) return table.concat(t, ',')",
     "0,2,3,4"),
    ("local log = {}"
     " local t = setmetatable({}, { __newindex = function(t, k, v) rawset(t, k, v) log[#log + 1] = k end })"
     " table.insert(t, 'a') table.insert(t, 1, 'b') return table.concat(t, ',') .. '|' .. #log", "b,a|2"),
    ("local t = setmetatable({ 1, 2, 3 }, {}) return table.remove(t, 1) + #t", 3),
    ("local t = table.move({ 1, 2, 3 }, 1, 3, 2) return table.concat(t, ',')", "1,1,2,3"),
    ("local src = {} for i = 1, 200 do src[i] = i end"
     " local t = table.move(src, 1, 200, 1, {}) return #t + t[200]", 400),
    ("local t = {} for i = 1, 200 do t[i] = i end table.move(t, 1, 150, 51) return t[51] + t[200]", 151),
    ("local t = {} for i = 1, 1000 do t[i] = 'x' end return #table.concat(t, ',')", 1999),
    ("return select('#', table.unpack({ 1, 2, 3 })) + select('#', table.unpack({}, 1, 5))", 8),
    ("return math.floor(3.7) + math.max(1, 9) + math.tointeger(4.0) + (math.type(1) == 'integer' and 1 or 0)", 17),
    ("return 7 // 2 + 7 % 3 + 2^3 + (5 & 3) + (1 << 4)", 29.0),
    ("return math.clamp(15, 0, 10)", 10),
    ("return type(os.clock()) == 'number' and type(os.time()) == 'number' and os.date('!%Y', 0)", "1970"),
    ("local n = 0 for i = 1, 10 do if i % 2 == 0 then goto continue end n = n + i ::continue:: end return n", 25),
    ("return typeof({}) .. tostring(nil) .. tostring(1.5) .. tonumber('0x10')", "tablenil1.516"),
    ("return #string.rep('ab', 200000, ',')", 599999),
    ("return ('abc'):byte(1, -1)", 97),
    ("local t = {} for k, v in next, { a = 1 } do t[#t + 1] = k .. v end return t[1]", "a1"),
    ("return rawequal(string, string) and rawlen({ 1, 2 }) == 2 and rawget({ x = 1 }, 'x') == 1", True),
    ("local t = {} rawset(t, 'k', 'v') return t.k", "v"),
    ("return _VERSION", "Luau"),
]


@pytest.mark.parametrize(("source", "expected"), ORDINARY)
def test_ordinary_scripts_work(sb: Sandbox, source: str, expected: object) -> None:
    assert run(sb, source) == expected


def test_setmetatable_refuses_gc(sb: Sandbox) -> None:
    with pytest.raises(ScriptError, match="__gc are not allowed"):
        run(sb, "setmetatable({}, { __gc = true })")
    # added later, __gc never marks the table for finalization
    assert run(sb, "local mt = {} local t = setmetatable({}, mt) mt.__gc = function() end return 1") == 1


# print ------------------------------------------------------------------------------------------


def test_print_goes_to_a_buffer_not_stdout(sb: Sandbox, capfd: pytest.CaptureFixture[str]) -> None:
    sb.take_output()
    run(sb, "print('hello', 1, nil, true) print(setmetatable({}, { __tostring = function() return 'obj' end }))")
    assert sb.take_output() == "hello\t1\tnil\ttrue\nobj\n"
    assert sb.take_output() == ""
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_print_buffer_is_bounded() -> None:
    sb = Sandbox(runtime_lua=STAND_IN, output_limit=1000)
    run(sb, "for i = 1, 1000 do print(string.rep('x', 50)) end")
    text = sb.take_output()
    assert len(text) <= 1000 + 50
    assert text.endswith("[output truncated]\n")


# paused ------------------------------------------------------------------------------------------


def burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_time_inside_paused_is_not_the_scripts(sb: Sandbox) -> None:
    def slow_probe() -> str:
        with sb.paused():
            burn(0.12)
        return "answer"

    assert run(sb, "return probe() .. probe()", probe=slow_probe) == "answeranswer"


def test_python_time_outside_paused_counts(sb: Sandbox) -> None:
    def slow_helper() -> str:
        burn(0.12)
        return "answer"

    # the clock is read while the script runs on, not after it has finished
    with pytest.raises(BudgetExceeded) as info:
        run(sb, "local a = helper() for i = 1, 100000 do end return a", helper=slow_helper)
    assert info.value.kind == "time"


def test_nested_paused_counts_once(sb: Sandbox) -> None:
    def probe() -> int:
        with sb.paused():
            with sb.paused():
                burn(0.03)
            burn(0.06)
        return 1

    assert run(sb, "return probe()", probe=probe) == 1


# The Luau runtime -------------------------------------------------------------------------------


def test_chunks_get_the_runtime_as_their_first_argument(sb: Sandbox) -> None:
    assert run(sb, "local R = ... return type(R.tail) == 'function' and type(R.lib.string.split)") == "function"
    with pytest.raises(ScriptError, match="readonly table"):
        run(sb, "local R = ... R.tail = nil")


def test_the_default_runtime_is_the_luau_one() -> None:
    sb = Sandbox()
    assert run(sb, "return tostring(10 / 2) .. typeof(1) .. table.concat(table.create(2, 'x'))") == "5numberxx"
    assert run(sb, "local t = table.freeze({}) return table.isfrozen(t) and table.isfrozen(string)") is True
    assert run(sb, "local c = table.clone(data) c.x = 2 return c.x + data.x", data={"x": 1}) == 3
    assert run(sb, "return string.format('%*', {}):sub(1, 6)") == "table:"


def test_translated_luau_runs_end_to_end() -> None:
    translate = pytest.importorskip("jouet_git.luau.translate").translate
    source = """--!strict
local rule = {
  check = function(call)
    for _, command in call.commands do
      local seconds = tonumber(command.argv[2])
      if command.program == "sleep" and seconds and seconds >= 10 then
        return jouet.warn(`sleeping {seconds} s`)
      end
    end
    return nil
  end,
}
return rule
"""
    sb = Sandbox()
    env = sb.new_env({"jouet": {"warn": lambda message: "warn: " + message}})
    rule = sb.load(translate(source, "long-sleep.luau"), "long-sleep.luau", env, B)
    call = {"commands": [{"program": "echo", "argv": ["echo", "hi"]}, {"program": "sleep", "argv": ["sleep", "90"]}]}
    assert sb.call(rule["check"], call, budget=B) == "warn: sleeping 90 s"
    assert sb.call(rule["check"], {"commands": [{"program": "sleep", "argv": ["sleep", "1"]}]}, budget=B) is None


# Cost ----------------------------------------------------------------------------------------


def test_importing_the_sandbox_is_cheap() -> None:
    code = (
        "import sys; import jouet_git.luau.sandbox; "
        "heavy = {'lupa', 'typing', 'dataclasses', 'inspect', 'subprocess', 'pathlib'} & set(sys.modules); "
        "print(sorted(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_fresh_sandbox_is_small() -> None:
    sb = Sandbox()
    assert sb.lua.get_memory_used() < 512 * 1024
