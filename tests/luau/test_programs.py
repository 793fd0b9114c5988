"""Every Luau program in tests/data/luau, translated and run in lupa's Lua 5.4, prints what it declares.

Each program ends with a comment block holding the output worked out by hand from Luau's semantics
(`--[==[expect`), or the text its error must contain (`--[==[error`), line number included.
"""

from __future__ import annotations

import pytest
from testing.luau import DATA, data_file, run_luau

from jouet_git.luau.translate import translate

PROGRAMS = sorted(p.name for p in DATA.glob("*.luau"))


@pytest.mark.parametrize("name", PROGRAMS)
def test_program(name: str) -> None:
    source, expected, error = data_file(name)
    run = run_luau(source)
    if error is not None:
        assert run.error is not None, f"{name} should fail with {error!r}; printed {run.lines}"
        assert error in run.error, f"{name}: error {run.error!r} lacks {error!r}"
        return
    assert run.error is None, f"{name} failed: {run.error}\n--- Lua ---\n{run.lua}"
    assert run.lines == expected, f"--- Lua ---\n{run.lua}"


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_keeps_line_count(name: str) -> None:
    """The Lua has exactly one line per Luau line (plus the final newline), so no line shifts."""
    source, _, _ = data_file(name)
    lua = translate(source)
    assert lua.count("\n") <= source.count("\n") + 1
    assert lua.startswith("local __luau = ...;")
