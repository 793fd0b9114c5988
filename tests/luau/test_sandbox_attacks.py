"""Every known way out of a script's budget ends in BudgetExceeded or ScriptError, of the right kind,
and leaves the sandbox working for the next rule.

Each attack runs in a real Sandbox with the default budgets (50 ms, a million instructions,
32 MiB). Wall time is never asserted beyond a sanity bound far above any budget: a hang shows up
as a test that cannot finish, and pytest's own timeout does not exist here, so each attack runs in
a worker thread that must end within SANITY seconds.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from jouet_git.luau.sandbox import Budget, BudgetExceeded, Sandbox, ScriptError

SANITY = 5.0

# name -> (script, how it may end: a budget kind, "error" for a plain ScriptError, or "returned"
# when the script legitimately finishes, as a recursion through pcall does at Lua's C-stack limit)
ATTACKS: dict[str, tuple[str, set[str]]] = {
    "infinite loop": ("while true do end", {"instructions"}),
    "pcall swallowing the budget error": (
        "while true do pcall(function() while true do end end) end",
        {"instructions"},
    ),
    "pcall in a tight loop": ("for i = 1, 1e12 do pcall(error, 'x') end", {"instructions", "time"}),
    "xpcall whose handler loops": (
        "xpcall(function() while true do end end, function() while true do end end)",
        {"instructions"},
    ),
    "error in error handling": (
        "while true do xpcall(function() while true do end end, function() error('again') end) end",
        {"instructions"},
    ),
    "coroutine.resume swallowing the budget error": (
        "while true do coroutine.resume(coroutine.create(function() while true do end end)) end",
        {"instructions"},
    ),
    "loop inside a coroutine": (
        "local co = coroutine.create(function() while true do end end) coroutine.resume(co)",
        {"instructions"},
    ),
    "loop inside coroutine.wrap": ("coroutine.wrap(function() while true do end end)()", {"instructions"}),
    "many short coroutines": (
        "while true do coroutine.wrap(function() for i = 1, 500 do end end)() end",
        {"instructions", "time"},
    ),
    "coroutine yielding forever": (
        "local co = coroutine.wrap(function() while true do coroutine.yield() end end)"
        " while true do co() end",
        {"instructions", "time"},
    ),
    "__close looping on a normal exit": (
        "do local x <close> = setmetatable({}, {__close = function() while true do end end}) end",
        {"instructions"},
    ),
    "__close looping while the budget error unwinds": (
        "local x <close> = setmetatable({}, {__close = function() while true do end end})"
        " while true do end",
        {"instructions"},
    ),
    "__close in a wrapped coroutine killed by the budget": (
        "coroutine.wrap(function()"
        "  local x <close> = setmetatable({}, {__close = function() while true do end end})"
        "  while true do end end)()",
        {"instructions"},
    ),
    "closing a coroutine the budget killed": (
        "local co = coroutine.create(function()"
        "  local x <close> = setmetatable({}, {__close = function() while true do end end})"
        "  while true do end end)"
        " pcall(coroutine.resume, co) pcall(coroutine.close, co) while true do end",
        {"instructions"},
    ),
    "__tostring looping on the error object": (
        "error(setmetatable({}, {__tostring = function() while true do end end}))",
        {"error"},
    ),
    "deep recursion": (
        "local function f(n) return 1 + f(n + 1) end return f(1)",
        {"error", "memory", "instructions", "time"},
    ),
    "recursion through pcall": (
        "local function f() return pcall(f) end return f()",
        {"returned", "error", "instructions", "time"},
    ),
    "recursion through metamethods": (
        "local t = setmetatable({}, {}) getmetatable(t).__index = function(t, k) return t[k .. 'x'] end"
        " return t.a",
        {"error", "memory", "instructions", "time"},
    ),
    "string doubling": ("local s = 'x' while true do s = s .. s end", {"memory", "time"}),
    "string.rep bomb": ("return string.rep('x', 1e12)", {"memory"}),
    "string.rep of many big strings": (
        "local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 1e6) end",
        {"memory"},
    ),
    "table grown forever": (
        "local t = {} local i = 0 while true do i = i + 1 t[i] = i end",
        {"instructions", "time", "memory"},
    ),
    "table of tables grown forever": (
        "local t = {} while true do t[#t + 1] = {1, 2, 3, 4, 5, 6, 7, 8} end",
        {"instructions", "time", "memory"},
    ),
    "catastrophic find in C": (
        "local s = string.rep('a', 1e5) return s:find('.-.-.-.-.-b')",
        {"instructions", "time"},
    ),
    "catastrophic match": (
        "local s = string.rep('a', 3e4) return s:match('^(a-)(a-)(a-)(a-)b')",
        {"instructions", "time"},
    ),
    "catastrophic gsub at every position": (
        "local s = string.rep('a', 1e5) return s:gsub('a-a-a-b', '')",
        {"instructions", "time"},
    ),
    "catastrophic gmatch": (
        "local s = string.rep('a', 1e5) for x in s:gmatch('.-.-.-b') do end",
        {"instructions", "time"},
    ),
    "back-references": (
        "local s = string.rep('a', 5e4) return s:find('(a*)%1%1b')",
        {"instructions", "time"},
    ),
    "balanced match at every position": (
        "local s = string.rep('(', 1e5) return s:gsub('%b()', '')",
        {"instructions", "time"},
    ),
    "plain find n*m": (
        "local s = string.rep('a', 4e6) return s:find(string.rep('a', 3000) .. 'b', 1, true)",
        {"time"},
    ),
    "cheap pattern calls in a loop": (
        "local s = string.rep('ab', 2e5) while true do s:find('b', 1, true) s:match('^a') end",
        {"instructions", "time"},
    ),
    "empty string repeated forever": (
        "for i = 1, 1e9 do string.rep('', math.maxinteger) end",
        {"instructions", "time"},
    ),
    "empty separator repeated forever": (
        "for i = 1, 1e9 do ('').rep('', math.maxinteger, '') end",
        {"instructions", "time"},
    ),
    "string.rep with a huge count": (
        "for i = 1, 1e9 do local s = string.rep('x', 3e7) end",
        {"memory", "time"},
    ),
    "table.move over a huge range": ("table.move({}, 1, math.maxinteger // 2, 1)", {"instructions", "time"}),
    "table.move backwards over a huge range": (
        "local t = {} table.move(t, 1, 1e15, 2)",
        {"instructions", "time"},
    ),
    "table.sort of a big table": (
        "local t = {} for i = 1, 3e5 do t[i] = -i end table.sort(t)",
        {"instructions", "time"},
    ),
    "table.sort with a C comparator": (
        "local t = {} for i = 1, 2e5 do t[i] = i end table.sort(t, rawequal)",
        {"instructions", "time", "error"},
    ),
    "table.concat over a lying __len": (
        "local t = setmetatable({}, {__len = function() return 1e15 end, __index = function() return '' end})"
        " return table.concat(t)",
        {"instructions", "time"},
    ),
    "table.concat of one big string many times": (
        "local s = string.rep('x', 1e6) local t = {} for i = 1, 60 do t[i] = s end"
        " while true do local r = table.concat(t) end",
        {"memory", "time", "instructions"},
    ),
    "table.insert under a lying __len": (
        "local t = setmetatable({}, {__len = function() return 1e15 end}) table.insert(t, 1, 'x')",
        {"instructions", "time"},
    ),
    "table.remove under a lying __len": (
        "local t = setmetatable({}, {__len = function() return 1e15 end}) table.remove(t, 1)",
        {"instructions", "time"},
    ),
    "table.unpack of an empty table in a loop": (
        "while true do local n = select('#', table.unpack({}, 1, 500000)) end",
        {"instructions", "time"},
    ),
    "string.pack padding": (
        "for i = 1, 1e9 do local s = string.pack('c20000000', '') end",
        {"memory", "time"},
    ),
    "string.pack over the memory limit": ("return string.pack('c900000000', '')", {"memory"}),
    "upper of a long string in a loop": (
        "local s = string.rep('a', 8e6) while true do local u = s:upper() end",
        {"time", "memory"},
    ),
    "format of a long string in a loop": (
        "local s = string.rep('a', 8e6) while true do local u = string.format('%s!', s) end",
        {"time", "memory"},
    ),
    "comparing long strings in a loop": (
        "local s = string.rep('a', 6e6) local a, b = s .. 'b', s .. 'c' s = nil"
        " while true do local r = a < b end",
        {"time", "instructions"},
    ),
    "concatenating a long string in a loop": (
        "local a = string.rep('a', 8e6) while true do local x = a .. 'x' end",
        {"time", "memory", "instructions"},
    ),
    "a long __index chain": (
        "local t = {} for i = 1, 1900 do t = setmetatable({}, {__index = t}) end"
        " while true do local x = t.missing end",
        {"time", "instructions"},
    ),
}


@pytest.fixture(scope="module")
def sb() -> Iterator[Sandbox]:
    yield Sandbox()


def run_bounded(sb: Sandbox, source: str, name: str) -> BaseException | object:
    """Run source; return what it raised or returned. Fails if it takes more than SANITY seconds."""
    outcome: list[BaseException | object] = []

    def work() -> None:
        try:
            outcome.append(sb.load(source, name, sb.new_env(), Budget()))
        except BaseException as e:
            outcome.append(e)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(SANITY)
    assert not worker.is_alive(), f"{name}: still running after {SANITY} s"
    return outcome[0]


@pytest.mark.parametrize("name", list(ATTACKS))
def test_attack_ends_within_its_budget(sb: Sandbox, name: str) -> None:
    source, kinds = ATTACKS[name]
    outcome = run_bounded(sb, source, name)
    if isinstance(outcome, BudgetExceeded):
        kind = outcome.kind
    elif isinstance(outcome, ScriptError):
        kind = "error"
    else:
        assert not isinstance(outcome, BaseException), f"{name}: raised {outcome!r}"
        kind = "returned"
    assert kind in kinds, f"{name}: ended with {kind}: {outcome}"
    # and the next rule runs normally, with a full budget of its own
    assert sb.load("local n = 0 for i = 1, 200000 do n = n + i end return n", "next", sb.new_env(), Budget()) == sum(
        range(200001)
    )


def test_budget_messages_name_the_budget_and_the_line(sb: Sandbox) -> None:
    with pytest.raises(BudgetExceeded) as info:
        sb.load("local x = 1\nwhile true do x = x + 1 end\n", "spin.lua", sb.new_env(), Budget())
    e = info.value
    assert e.kind == "instructions"
    assert e.chunkname == "spin.lua"
    assert e.line == 2
    assert str(e) == (
        "spin.lua:2: instruction budget exceeded: the script ran more than 1000000 instructions;"
        " make it do less per call"
    )


def test_instruction_budget_is_the_one_given(sb: Sandbox) -> None:
    env = sb.new_env()
    counter = "local n = 0 for i = 1, ITER do n = n + 1 end return n"
    # a for loop costs about one instruction per iteration
    assert sb.load(counter.replace("ITER", "5000"), "small", env, Budget(instructions=20_000)) == 5000
    with pytest.raises(BudgetExceeded) as info:
        sb.load(counter.replace("ITER", "50000"), "big", env, Budget(instructions=20_000))
    assert info.value.kind == "instructions"


def test_time_budget_is_the_one_given(sb: Sandbox) -> None:
    src = "local s = string.rep('a', 4e6) while true do s:upper() end"
    with pytest.raises(BudgetExceeded) as info:
        sb.load(src, "t", sb.new_env(), Budget(time=0.01, instructions=10**12))
    assert info.value.kind == "time"
    assert "10 ms" in str(info.value)


def test_memory_budget_frees_what_the_script_built(sb: Sandbox) -> None:
    env = sb.new_env()
    with pytest.raises(BudgetExceeded) as info:
        sb.load("local t = {} while true do t[#t + 1] = string.rep('x', 1e5) .. #t end", "m", env, Budget(time=5))
    assert info.value.kind == "memory"
    assert sb.lua.get_memory_used() < 4 * 1024 * 1024
    # a rule that builds a 12 MiB string (24 MiB while C copies its buffer) still fits afterwards
    assert sb.load("return #string.rep('y', 12 * 1024 * 1024)", "big", sb.new_env(), Budget()) == 12 * 1024 * 1024


# lupa converts values between Python and Lua outside Lua's error protection: running out of
# memory there aborts the process, or deadlocks it inside a Python callback. These run in a child
# process so that a failure shows as a failed test rather than a dead test run.
FULL_VM = """
import sys
from jouet_git.luau.sandbox import Budget, BudgetExceeded, Sandbox, ScriptError
sb = Sandbox()
def big_string():
    return "q" * 3_000_000
def big_table():
    return sb.readonly({"k": "v" * 3_000_000, "list": list(range(20000))})
env = sb.new_env({"big_string": big_string, "big_table": big_table})
hoard = "a = string.rep('x', 10 * 1024 * 1024) b = a .. 'y' c = a .. 'z' "
outcomes = []
for source in [
    hoard + "return #big_string()",
    hoard + "return big_table().k:sub(1, 3)",
    hoard + "return 1",
    'return "' + "z" * 2_000_000 + '"',
    "return { list = big_table().list }",
    "local t = {} while true do t[#t + 1] = {} end",
]:
    for _ in range(2):
        try:
            sb.load(source, "full", env, Budget())
            outcomes.append("ok")
        except BudgetExceeded as e:
            outcomes.append(e.kind)
        except ScriptError as e:
            outcomes.append("error: " + str(e))
    # and values still cross in both directions
    sb.readonly({"after": "x" * 100_000})
    sb.new_env({"f": big_string})
print(",".join(outcomes))
# a rule holding 30 MiB cannot run anything more; dropping its globals frees the VM
del env
sb.lua.gccollect()
print(sb.load("return 'alive'", "end", sb.new_env(), Budget()))
"""


def test_a_full_vm_never_aborts_or_hangs_the_process() -> None:
    done = subprocess.run([sys.executable, "-c", FULL_VM], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.split()
    assert lines[-1] == "alive"
    assert set(lines[0].split(",")) <= {"ok", "memory", "time"}, lines[0]


def test_memory_errors_cannot_be_caught_by_the_script(sb: Sandbox) -> None:
    src = """
    local caught = 0
    for i = 1, 50 do
      local ok = pcall(function() local s = 'x' while true do s = s .. s end end)
      if not ok then caught = caught + 1 end
    end
    return caught
    """
    with pytest.raises(BudgetExceeded) as info:
        sb.load(src, "m", sb.new_env(), Budget())
    assert info.value.kind == "memory"


def test_a_coroutine_left_suspended_keeps_its_budget_in_the_next_call(sb: Sandbox) -> None:
    env = sb.new_env()
    rule = sb.load(
        "co = coroutine.create(function() coroutine.yield() while true do end end)"
        " coroutine.resume(co)"
        " return { later = function() return coroutine.resume(co) end }",
        "co",
        env,
        Budget(),
    )
    with pytest.raises(BudgetExceeded) as info:
        sb.call(rule["later"], budget=Budget())
    assert info.value.kind == "instructions"


def test_coroutine_killed_by_the_budget_cannot_be_closed_later(sb: Sandbox) -> None:
    env = sb.new_env()
    rule = sb.load(
        "co = coroutine.create(function()"
        "  local x <close> = setmetatable({}, {__close = function() while true do end end})"
        "  while true do end end)"
        " return { start = function() coroutine.resume(co) end,"
        "          close = function() return coroutine.close(co) end }",
        "co",
        env,
        Budget(),
    )
    with pytest.raises(BudgetExceeded):
        sb.call(rule["start"], budget=Budget())
    # a new call, with a fresh budget: closing would run __close with hooks off, so it is refused
    assert sb.call(rule["close"], budget=Budget()) is False


def test_pure_lua_scripts_use_the_whole_instruction_budget_before_time(sb: Sandbox) -> None:
    """A million plain instructions fit well inside 50 ms, so time is not what stops a plain loop."""
    with pytest.raises(BudgetExceeded) as info:
        sb.load("local x = 0 while true do x = x + 1 end", "t", sb.new_env(), Budget())
    assert info.value.kind == "instructions"
