"""Runs translated Luau in a real lupa Lua 5.4 VM, for the test_luau_* tests (and tests of that harness).

The VM gets the runtime table the way the sandbox will use it: RUNTIME_LUA runs once, its `lib`
functions are merged into the string, table and math libraries and the globals, and every
translated chunk is called with the runtime table as its first argument. `print` collects lines.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lupa import lua54

from jouet_git.luau.translate import RUNTIME_LUA, translate

DATA = Path(__file__).resolve().parents[1] / "data" / "luau"

_INSTALL = """
local R, out = ...
for name, lib in pairs(R.lib) do
  local target = name == "globals" and _G or _G[name]
  for k, v in pairs(lib) do target[k] = v end
end
print = function(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
  out(table.concat(parts, "\\t"))
end
"""

_RUN = """
local source, chunkname, runtime = ...
local chunk, problem = load(source, "=" .. chunkname)
if not chunk then return { n = 2, false, "load: " .. problem } end
return table.pack(pcall(chunk, runtime))
"""


class LuauRun:
    """The outcome of running one script: printed lines, the error (if it threw) or the values it
    returned, the Lua it became, and the VM it ran in."""

    def __init__(self, lua: str, lines: list[str], error: str | None, values: list[Any], vm: Any) -> None:
        self.lua = lua
        self.lines = lines
        self.error = error
        self.values = values
        self.value = values[0] if values else None
        self.vm = vm


def new_vm() -> tuple[Any, Any, list[str]]:
    """A Lua 5.4 runtime with jouet's Luau runtime installed; returns (LuaRuntime, R, printed lines)."""
    lua = lua54.LuaRuntime()
    runtime = lua.execute(RUNTIME_LUA)
    lines: list[str] = []
    lua.execute(_INSTALL, runtime, lines.append)
    return lua, runtime, lines


def run_luau(source: str, chunkname: str = "script.luau", prelude: str = "") -> LuauRun:
    """Translate `source` and run it; `prelude` is plain Lua run first (to set up globals)."""
    lua_source = translate(source, chunkname)
    vm, runtime, lines = new_vm()
    if prelude:
        vm.execute(prelude)
    packed = vm.execute(_RUN, lua_source, chunkname, runtime)
    results = [packed[i] for i in range(1, packed.n + 1)]
    printed = "\n".join(lines).split("\n") if lines else []
    if not results[0]:
        return LuauRun(lua_source, printed, str(results[1]), [], vm)
    return LuauRun(lua_source, printed, None, results[1:], vm)


def data_file(name: str) -> tuple[str, list[str] | None, str | None]:
    """A program from tests/data/luau, with the output or the error it declares in its trailing comment.

    A program ends with `--[==[expect` and the lines it prints, or `--[==[error` and text its error
    message contains, then `]==]`.
    """
    text = (DATA / name).read_text(encoding="utf-8")
    marker = text.rfind("--[==[")
    assert marker != -1, f"{name} declares no expected output"
    head, _, body = text[marker + len("--[==["):].partition("\n")
    body = body.rsplit("]==]", 1)[0]
    if head.strip() == "expect":
        return text, body.splitlines(), None
    assert head.strip() == "error", f"{name}: unknown block {head!r}"
    return text, None, body.strip()
