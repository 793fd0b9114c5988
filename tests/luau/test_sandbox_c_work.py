"""Library calls whose work in C grows with their input (a wide character class, %q, upper on a long
string, long pack and date formats, what a script hands a Python function) do it in bounded pieces,
each charged to the budget, and still give the standard library's results.

Each attack is named after what it tries. As in test_sandbox_attacks.py, wall time is never
asserted beyond a sanity bound far above any budget: before these guards, the first attacks below
ran for 14 to 47 seconds in one C call, which no budget could interrupt.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from lupa import lua54

from jouet_git.luau.sandbox import ARGUMENT_BYTES, Budget, BudgetExceeded, Sandbox, ScriptError

SANITY = 5.0


@pytest.fixture(scope="module")
def sb() -> Iterator[Sandbox]:
    yield Sandbox()


@pytest.fixture(scope="module")
def plain_lua() -> lua54.LuaRuntime:
    """Lua with its own string library, no sandbox: what the results must equal."""
    return lua54.LuaRuntime(encoding=None)


def bounded(sb: Sandbox, source: str, budget: Budget | None = None, **globals: Any) -> object:
    """What source returns or raises; fails when it runs past SANITY seconds."""
    outcome: list[object] = []

    def work() -> None:
        try:
            outcome.append(sb.load(source, "attack.lua", sb.new_env(globals or None), budget or Budget()))
        except BaseException as e:
            outcome.append(e)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(SANITY)
    assert not worker.is_alive(), f"still running after {SANITY} s: {source[:80]}"
    return outcome[0]


# A bracket set C walks entry by entry for every byte it tests ------------------------------

WIDE = "'[' .. string.rep('a', 5000) .. 'b]'"


def test_a_long_character_class_run_over_a_long_subject(sb: Sandbox) -> None:
    # `[aaaa...b]*` over a megabyte of b: C tested each b against 5000 entries
    got = bounded(sb, f"local s = string.rep('b', 1e6) return {{ s:find({WIDE} .. '*') }}")
    assert got == {1: 1, 2: 1_000_000}


def test_a_long_character_class_searched_for_at_every_position(sb: Sandbox) -> None:
    got = bounded(sb, f"local s = string.rep('c', 1e6) .. 'bx' return {{ s:find({WIDE} .. 'x') }}")
    assert got == {1: 1_000_001, 2: 1_000_002}


def test_a_long_character_class_in_gsub(sb: Sandbox) -> None:
    got = bounded(sb, f"local s = string.rep('b', 1e6) return {{ s:gsub({WIDE} .. '+', '') }}")
    assert got == {1: "", 2: 1}


def test_a_long_character_class_in_gmatch(sb: Sandbox) -> None:
    got = bounded(
        sb, f"local n = 0 for w in (string.rep('b', 5e5) .. ' ' .. string.rep('a', 5e5)):gmatch({WIDE} .. '+')"
        " do n = n + #w end return n"
    )
    assert got == 1_000_000


def test_a_long_character_class_too_long_to_read_runs_out_of_instructions(sb: Sandbox) -> None:
    got = bounded(sb, "return ('b'):find('[' .. string.rep('a', 4e5) .. 'b]*')")
    assert isinstance(got, BudgetExceeded)
    assert got.kind in {"instructions", "time"}


def test_a_balanced_match_across_a_long_subject(sb: Sandbox) -> None:
    got = bounded(sb, "return { ('(' .. string.rep('y', 2e6) .. ')'):find('^%b()') }")
    assert got == {1: 1, 2: 2_000_002}


def test_a_pattern_of_many_megabytes_is_looked_at_in_pieces(sb: Sandbox) -> None:
    # looking for magic characters in 10 MB took C 0.4 s in one call
    got = bounded(sb, "local p = string.rep('a', 1e7) return ('aaa'):find(p)")
    assert isinstance(got, BudgetExceeded) and got.kind == "time"
    assert bounded(sb, "local p = string.rep('a', 3e5) return ('aaa'):find(p)") is None


@pytest.mark.parametrize(
    ("subject", "pattern"),
    [
        ("string.rep('b', 4e5)", WIDE + " .. '*'"),
        ("string.rep('b', 4e5)", WIDE + " .. '+$'"),
        ("string.rep('c', 4e5) .. 'bx'", "'(' .. " + WIDE + " .. ')x'"),
        ("string.rep('a-]^%', 2e4)", "'[' .. string.rep('%-%]%^%%', 100) .. ']+'"),
        ("string.rep('a-]^%', 2e4)", "'[^' .. string.rep('%-%]', 100) .. ']+'"),
        ("string.rep('ab01', 300)", "'[' .. string.rep('%a', 300) .. ']'"),
        ("string.rep('\\0\\255 ', 300)", "'[' .. string.rep('\\0-\\1\\200-\\255', 40) .. ']+'"),
    ],
)
@pytest.mark.parametrize("fn", ["find", "match"])
def test_wide_classes_give_the_standard_librarys_results(
    sb: Sandbox, plain_lua: lua54.LuaRuntime, subject: str, pattern: str, fn: str
) -> None:
    source = (
        f"local r = table.pack(({subject}):{fn}({pattern})) local out = {{ r.n }}"
        " for i = 1, r.n do local v = r[i]"
        "   if type(v) == 'string' then"
        "     v = #v .. ':' .. v:sub(1, 16):gsub('.', function(c) return string.format('%02x', c:byte()) end)"
        "   end"
        "   out[#out + 1] = tostring(v) end"
        " return table.concat(out, ' ')"
    )
    want = plain_lua.execute(source).decode()
    assert bounded(sb, source, Budget(time=5, instructions=50_000_000)) == want


# %q -----------------------------------------------------------------------------------------


def test_format_q_of_megabytes_of_control_bytes_stops_at_the_time_budget(sb: Sandbox) -> None:
    # C writes each control byte with sprintf: 4 MB took half a second in one call
    got = bounded(sb, "return #string.format('%q', string.rep('\\0', 4e6))")
    assert isinstance(got, BudgetExceeded)
    assert got.kind == "time"


def test_format_q_of_many_strings_stops_at_the_time_budget(sb: Sandbox) -> None:
    got = bounded(
        sb,
        "local s = string.rep('\\1', 8000) local args = {} for i = 1, 2000 do args[i] = s end"
        " return #string.format(string.rep('%q', 2000), table.unpack(args))",
    )
    assert isinstance(got, BudgetExceeded)
    assert got.kind == "time"


SAME = "return function(want, ...) return string.format(...) == want end"


@pytest.mark.parametrize("seed", range(12))
def test_format_q_in_pieces_gives_cs_bytes(sb: Sandbox, plain_lua: lua54.LuaRuntime, seed: int) -> None:
    rnd = random.Random(seed)
    size = rnd.choice([8191, 8192, 8193, 16384, 20000, 30001])
    alphabet = rnd.choice([b"\x00\x01", b"\x001", b"a\n\"\\", b"\x7f9\r", bytes(range(256)), b"\x0099"])
    data = bytes(rnd.choice(alphabet) for _ in range(size))
    fmt, args = rnd.choice([
        (b"%q", [data]),
        (b"<%q|%5d|%q>", [data, 7, data[:100]]),
        (b"%%q%q", [data]),
        (b"%s%q", [data, data]),
        (b"%-3s%q%%%q", ["x", data, data[: size // 2]]),
    ])
    want = plain_lua.execute("return string.format(...)", fmt, *args)
    same = sb.load(SAME, "same.lua", sb.new_env(), Budget())
    assert sb.call(same, want, fmt, *args, budget=Budget(time=5)) is True


def test_format_q_errors_stay_cs(sb: Sandbox) -> None:
    got = bounded(sb, "return string.format('%5q', string.rep('x', 9000))")
    assert isinstance(got, ScriptError) and "cannot have modifiers" in str(got)
    got = bounded(sb, "return string.format('%q %y', string.rep('x', 9000), 1)")
    assert isinstance(got, ScriptError) and "invalid conversion" in str(got)


# Byte-by-byte work on a long string ---------------------------------------------------------


@pytest.mark.parametrize("fn", ["upper", "lower", "reverse"])
def test_byte_by_byte_functions_on_long_strings_give_cs_bytes(
    sb: Sandbox, plain_lua: lua54.LuaRuntime, fn: str
) -> None:
    rnd = random.Random(fn)
    data = bytes(rnd.randrange(256) for _ in range(1_300_000))
    want = plain_lua.execute(f"return (...):{fn}()", data)
    same = sb.load(f"return function(want, s) return s:{fn}() == want end", "same.lua", sb.new_env(), Budget())
    assert sb.call(same, want, data, budget=Budget(time=5)) is True


# Formats read option by option --------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "return string.pack(string.rep('x', 4e6))",
        "return string.unpack(string.rep('x', 4e6), string.rep('a', 4e6))",
        "return string.packsize(string.rep('b', 4e6))",
        "return os.date(string.rep('%c', 1e5))",
    ],
)
def test_long_pack_and_date_formats_are_refused(sb: Sandbox, source: str) -> None:
    got = bounded(sb, source)
    assert isinstance(got, ScriptError) and not isinstance(got, BudgetExceeded)
    assert "rule scripts may use formats of up to 4096 bytes" in str(got)


def test_ordinary_pack_and_date_formats_still_work(sb: Sandbox) -> None:
    assert bounded(sb, "return string.unpack('<i4', string.pack('<i4', 7))") == 7
    assert bounded(sb, "return os.date('!%Y', 0)") == "1970"


# What a script hands Python -----------------------------------------------------------------


def test_a_python_function_handed_megabytes_of_text_is_refused(sb: Sandbox) -> None:
    seen: list[int] = []

    def parse(text: str) -> int:
        seen.append(len(text))
        return len(text)

    got = bounded(sb, "local n = parse(string.rep('x; ', 3e6)) return n", parse=parse)
    assert isinstance(got, ScriptError)
    assert "attack.lua:1:" in str(got) and f"more than {ARGUMENT_BYTES} bytes" in str(got)
    assert seen == []


def test_a_python_function_handed_a_huge_table_is_refused(sb: Sandbox) -> None:
    seen: list[int] = []

    def paths(t: object) -> int:
        seen.append(1)
        return 0

    got = bounded(sb, "local t = {} for i = 1, 2e5 do t[i] = 'p' end local n = paths(t) return n",
                  Budget(time=5, instructions=10_000_000), paths=paths)
    assert isinstance(got, ScriptError) and "table entries" in str(got)
    got = bounded(sb, "local t = {} t.self = t for i = 1, 200 do t[i] = {t, 'x'} end local n = paths(t) return n",
                  paths=paths)
    assert got == 0
    assert seen == [1]


def test_ordinary_arguments_reach_python(sb: Sandbox) -> None:
    got = bounded(sb, "return size(string.rep('x', 60000), {'a', 'b'})", size=lambda s, t: len(s) + len(t))
    assert got == 60002


def test_a_limited_function_refuses_more_text_than_its_own_limit(sb: Sandbox) -> None:
    seen: list[int] = []

    def parse(text: str) -> int:
        seen.append(len(text))
        return len(text)

    limited = sb.limited(parse, 1000, "jouet.parse")
    assert bounded(sb, "return parse(string.rep('x', 1000))", parse=limited) == 1000
    got = bounded(sb, "\nlocal n = parse(string.rep('x', 1001)) return n", parse=limited)
    assert isinstance(got, ScriptError)
    assert str(got) == "attack.lua:2: jouet.parse takes at most 1000 bytes of text; pass it a part"
    assert seen == [1000]


def test_a_clipping_function_gets_long_strings_cut_and_never_fails(sb: Sandbox) -> None:
    deny = sb.clipping(lambda message, n: (message, n), 100)
    got = bounded(sb, "local m, n = deny(string.rep('\\u{e9}', 3e6), 7) return {m, n}", deny=deny)
    assert isinstance(got, dict)
    message, n = got[1], got[2]
    assert n == 7
    assert message.startswith("\u00e9" * 50)
    assert message.endswith(" [... cut by jouet: it was 6000000 bytes]")
    assert bounded(sb, "return deny('short', 1)", deny=deny) == "short"
