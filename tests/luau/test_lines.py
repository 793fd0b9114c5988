"""Translation keeps line numbers: Lua runs (and fails) on the line the Luau was written on.

The property test builds random scripts from pieces that stretch over lines in every way the
translator rewrites: types and type declarations, long strings and comments, interpolation,
compound assignment, continue, if-expressions, generalized for. `mark(N)` placed on line N checks,
while the script runs, that Lua's own line information says N; the script then fails on a known
line, and the error message must name it.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from testing.luau import run_luau

from jouet_git.luau.translate import translate

# Each piece is a list of lines; "@" stands for a mark() call on whatever line the piece lands.
PIECES: list[list[str]] = [
    ["local a: number = 1 @"],
    ["type Pair<T> = {", "  first: T,", "  second: (T) -> string?,", "}", "@"],
    ["export type Fn = (", "  number", ") -> ()", "@"],
    ["--[[ a comment", "over lines ]] @"],
    ["local s = [==[", "long", "string]==] @"],
    ["local i = `v {1 +", "  2} w` @"],
    ["counter = (counter or 0)", "counter += 1 @", "counter ..= ''"],
    ["if 1 then", "  @", "else", "  error('unreachable')", "end"],
    ["for n = 1, 2 do", "  if n == 1 then", "    continue", "  end", "  @", "end"],
    ["local r = 0", "repeat", "  r += 1", "  local again = r < 2", "  if again then continue end", "  @",
     "until not again"],
    ["local v = if counter", "  then 1", "  else 2", "@"],
    ["local function f(a: number,", "    b: string?): number", "  @", "  return a", "end", "f(1, nil)"],
    ["for k, val in { x = 1 } do", "  @", "end"],
    ["local t = { k = { j = 8 } }", "t.k.j //= 2 @", "t.k[`j`] %=", "  3"],
    ["local msg = 'a' ..", "  'b' .. 1 @"],
    ["do", "  local inner = (1 :: number)", "  @", "end"],
    ["@", "", "", "@"],
]

FAILURES = ["local broken = nil; local _ = broken.field", "error('stop here')", "local _ = {} .. 'x'",
            "for _ in nil do end"]


def layout(pieces: list[list[str]]) -> tuple[str, list[int]]:
    """Join pieces into a script, replacing each '@' with mark(<its line>)."""
    lines: list[str] = []
    marks: list[int] = []
    for piece in pieces:
        for text in piece:
            line = len(lines) + 1
            if "@" in text:
                marks.append(line)
                text = text.replace("@", f"mark({line})")
            lines.append(text)
    return "\n".join(lines), marks


PRELUDE = """
marked = 0
function mark(expected)
  local got = debug.getinfo(2, "l").currentline
  if got ~= expected then error(("mark(%d) ran on line %d"):format(expected, got), 0) end
  marked = marked + 1
end
"""


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=10), st.sampled_from(FAILURES),
       st.integers(min_value=0, max_value=3))
def test_runtime_lines_match_the_script(pieces: list[list[str]], failure: str, blank: int) -> None:
    body, marks = layout(pieces)
    fail_line = body.count("\n") + 2 + blank
    source = body + "\n" * (blank + 1) + failure + "\n"
    lua = translate(source)
    assert lua.count("\n") == source.count("\n")
    for line in marks:
        assert f"mark({line})" in lua.split("\n")[line - 1]
    run = run_luau(source, prelude=PRELUDE)
    assert run.error is not None
    assert run.error.startswith(f"script.luau:{fail_line}:"), (run.error, source)
    assert run.vm.eval("marked") == len(marks)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=12))
def test_every_statement_starts_on_its_own_line(pieces: list[list[str]]) -> None:
    source, _ = layout(pieces)
    lua_lines = translate(source).split("\n")
    for number, text in enumerate(source.split("\n"), start=1):
        first = re.match(r"\s*(local|for|repeat|until|if|do|return|mark)\b", text)
        if first:
            assert re.search(rf"\b{first.group(1)}\b", lua_lines[number - 1]), (number, text, lua_lines)


def test_first_line_holds_the_runtime_local_without_adding_a_line() -> None:
    lua = translate("print(1)\nprint(2)")
    assert lua.split("\n")[0].startswith("local __luau = ...;")
    assert lua.split("\n")[0].endswith("print(1)")
    assert lua.split("\n")[1] == "print(2)"


def test_error_in_a_nested_function_names_its_line() -> None:
    source = "\n".join([
        "--!strict",
        "type Opts = { depth: number }",
        "local function walk(opts: Opts): number",
        "  for i = 1, opts.depth do",
        "    if i < 3 then continue end",
        "    local label = `level {i}`",
        "    error(label)",
        "  end",
        "  return 0",
        "end",
        "walk({ depth = 5 })",
    ])
    run = run_luau(source)
    assert run.error == "script.luau:7: level 3"


def test_byte_order_mark_is_skipped() -> None:
    assert translate("\ufeffprint(1)\nprint(2)").split("\n")[1] == "print(2)"
