"""jouet's own Lua chunks as bytecode (jouet_git/luau/precompiled.py), with the real lupa VM.

The bytecode is used only when it was made from exactly the chunk's text, by this lupa for this Lua,
and is undamaged; otherwise the sandbox compiles the text and behaves the same. A source checkout
makes the file again; a wheel keeps the one it was built with. Each test points the file at a path
of its own (the package's file is shared by every test).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import types
import zlib
from pathlib import Path
from typing import Any

import pytest
import tomli

import jouet_git.luau
from jouet_git.luau import precompiled, safelib
from jouet_git.luau.sandbox import Budget, BudgetExceeded, Sandbox, ScriptError

ALL = ("kernel", "patterns", "safelib", "runtime")
ROOT = Path(precompiled.__file__).resolve().parents[2]
B = Budget()


@pytest.fixture
def target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    file = tmp_path / "pkg" / precompiled.FILE
    file.parent.mkdir()
    monkeypatch.setattr(precompiled, "path", lambda: str(file))
    return file


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the times the file's content is made."""
    calls: list[int] = []
    generate = precompiled.generate

    def counted(sources: dict[str, str]) -> dict[str, Any]:
        calls.append(1)
        return generate(sources)

    monkeypatch.setattr(precompiled, "generate", counted)
    return calls


def wheel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(precompiled, "in_source_checkout", lambda: False)


def checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(precompiled, "in_source_checkout", lambda: True)


def write(target: Path, data: dict[str, Any]) -> None:
    target.write_bytes(precompiled.pack(data))


def works(sb: Sandbox) -> None:
    """The sandbox runs scripts, with the guarded library and the Luau runtime in place."""
    got = sb.load("local R = ... return { R.tostr(0.1), ('a,b'):split(',')[2], string.rep('x', 3), "
                  "select(2, pcall(setmetatable, {}, { __gc = print })) }", "t.lua", sb.new_env(), B)
    assert got == {1: "0.1", 2: "b", 3: "xxx", 4: "setmetatable: metatables with __gc are not allowed in rule scripts"}


# Used when it matches ---------------------------------------------------------------------------


def test_a_source_checkout_makes_the_file_on_first_use_then_uses_it(target: Path, made: list[int],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    checkout(monkeypatch)
    sb = Sandbox()
    assert sb.precompiled == ALL and len(made) == 1
    assert os.listdir(target.parent) == [precompiled.FILE]  # written whole, no temporary file left
    works(sb)
    again = Sandbox()
    assert again.precompiled == ALL and len(made) == 1
    works(again)


def test_a_wheel_uses_the_file_it_was_built_with(target: Path, made: list[int],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    write(target, precompiled.generate(precompiled.sources()))
    made.clear()
    wheel(monkeypatch)
    sb = Sandbox()
    assert sb.precompiled == ALL and made == []
    works(sb)


def test_a_runtime_given_as_text_is_compiled(target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checkout(monkeypatch)
    sb = Sandbox(runtime_lua="return { lib = {}, answer = 42 }")
    assert sb.precompiled == ("kernel", "patterns", "safelib")
    assert sb.load("local R = ... return R.answer", "t.lua", sb.new_env(), B) == 42


def test_the_file_lies_in_the_package_never_in_the_cache() -> None:
    # A binary chunk can break out of the sandbox: it lives where jouet's Python code lives.
    assert os.path.dirname(precompiled.path()) == os.path.dirname(os.path.abspath(jouet_git.luau.__file__))


def test_the_bytecode_keeps_chunk_names_and_lines() -> None:
    from lupa import lua54

    sources = precompiled.sources()
    data = precompiled.generate(sources)
    lua = lua54.LuaRuntime(encoding=None)
    info = lua.eval("function(code, name, mode) local f = assert(load(code, name, mode)) "
                    "local i = debug.getinfo(f, 'SL') local n = 0 "
                    "for _ in pairs(i.activelines or {}) do n = n + 1 end return i.source, n end")
    for key, (_, code, _) in data["chunks"].items():
        name = ("=" + precompiled.NAMES[key]).encode()
        source, lines = info(code, b"=ignored", b"b")
        assert (source, lines) == info(sources[key].encode(), name, b"t")
        assert source == name and lines > 10


@pytest.mark.parametrize("script", [
    "return string.format('%5.1f|%q', 3.14159, 'a\\nb')",
    "local R = ... return R.tostr(1e300 * 10), R.idiv(7, 2)",
    "error('boom')",
    "local x = nil; return x.y",
    "return string.find('a', '%')",
    "return setmetatable({}, { __gc = print })",
    "return ('x'):rep(-1), ('ab'):split('')",
    "while true do end",
    "local t = {} for i = 1, 1e7 do t[i] = ('x'):rep(100) .. i end",
])
def test_bytecode_and_text_behave_the_same(script: str, target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checkout(monkeypatch)
    fast = Sandbox(memory_limit=4 * 1024 * 1024)
    with monkeypatch.context() as mp:
        mp.setattr(precompiled, "bytecode", lambda sources: {})
        slow = Sandbox(memory_limit=4 * 1024 * 1024)
    assert fast.precompiled == ALL and slow.precompiled == ()

    def outcome(sb: Sandbox) -> object:
        try:
            return sb.load(script, "s.lua", sb.new_env(), Budget(instructions=200_000))
        except BudgetExceeded as e:
            return ("exceeded", e.kind, e.chunkname)
        except ScriptError as e:
            return (str(e), e.chunkname, e.line)

    assert outcome(fast) == outcome(slow)


# Never used when it does not match ---------------------------------------------------------------


def test_an_edited_chunk_is_compiled_from_its_text(target: Path, made: list[int],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    write(target, precompiled.generate(precompiled.sources()))
    edited = safelib.SAFELIB_LUA.replace("E.template = TEMPLATE\n", "E.template = TEMPLATE\nTEMPLATE.edited = 'yes'\n")
    assert edited != safelib.SAFELIB_LUA
    monkeypatch.setattr(safelib, "SAFELIB_LUA", edited)
    made.clear()
    checkout(monkeypatch)
    sb = Sandbox()
    assert sb.precompiled == ALL and len(made) == 1  # made again from the edited text
    assert sb.load("return edited", "t.lua", sb.new_env(), B) == "yes"
    assert precompiled.unpack(target.read_bytes())["chunks"]["safelib"][0] == edited


def test_a_wheel_takes_its_file_as_built_without_importing_the_sources(target: Path, made: list[int],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A wheel's file was made from the sources shipped with it and nothing writes it afterwards (as
    the built-in rules' prebuilt.marshal): its recorded texts are the sources, the source modules are
    not imported, and a source module edited in place is not seen (a checkout sees it, above)."""
    write(target, precompiled.generate(precompiled.sources()))
    built = target.read_bytes()
    edited = safelib.SAFELIB_LUA.replace("E.template = TEMPLATE\n", "E.template = TEMPLATE\nTEMPLATE.edited = 'yes'\n")
    monkeypatch.setattr(safelib, "SAFELIB_LUA", edited)
    made.clear()
    wheel(monkeypatch)
    with monkeypatch.context() as patched:
        imported: list[str] = []
        patched.setattr(precompiled, "sources", lambda: imported.append("sources") or {})
        texts, found = precompiled.chunks()
    assert imported == [] and set(found) == set(precompiled.NAMES) and texts["safelib"] != edited
    sb = Sandbox()
    assert sb.precompiled == ALL and made == []
    assert sb.load("return edited", "t.lua", sb.new_env(), B) is None
    assert target.read_bytes() == built  # left as built
    works(sb)


def test_another_lupa_is_not_trusted(target: Path, made: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    write(target, precompiled.generate(precompiled.sources()))
    real = precompiled.vm()
    monkeypatch.setattr(precompiled, "vm", lambda: ["0.0-another", real[1]])
    wheel(monkeypatch)
    sb = Sandbox()
    assert sb.precompiled == ()
    works(sb)
    checkout(monkeypatch)
    made.clear()
    assert Sandbox().precompiled == ALL and len(made) == 1
    assert precompiled.unpack(target.read_bytes())["vm"] == ["0.0-another", real[1]]


def test_another_file_format_is_not_trusted(target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = precompiled.generate(precompiled.sources())
    data["format"] = precompiled.FORMAT + 1
    write(target, data)
    wheel(monkeypatch)
    assert Sandbox().precompiled == ()


def _damaged(kind: str) -> bytes:
    data = precompiled.generate(precompiled.sources())
    whole = precompiled.pack(data)
    source, code, check = data["chunks"]["runtime"]
    if kind == "truncated":
        return whole[: len(whole) // 2]
    if kind == "empty":
        return b""
    if kind == "garbage":
        return os.urandom(4096)
    if kind == "flipped byte":  # the CRC no longer matches
        flipped = bytearray(code)
        flipped[len(code) // 2] ^= 0x40
        data["chunks"]["runtime"] = (source, bytes(flipped), check)
    elif kind == "refused by Lua":  # the CRC matches, but Lua's own header check refuses it
        bad = b"\x1bLua\x99" + code[5:]
        data["chunks"]["runtime"] = (source, bad, zlib.crc32(bad))
        bad = b"not bytecode"
        data["chunks"]["kernel"] = (data["chunks"]["kernel"][0], bad, zlib.crc32(bad))
    elif kind == "not bytes":
        data["chunks"]["runtime"] = (source, code.decode("latin-1"), check)
    elif kind == "wrong shape":
        data["chunks"] = [data["chunks"]]
    return precompiled.pack(data)


@pytest.mark.parametrize("kind", ["truncated", "empty", "garbage", "flipped byte", "refused by Lua", "not bytes",
                                  "wrong shape"])
def test_a_damaged_file_falls_back_to_the_text(kind: str, target: Path, made: list[int],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    damaged = _damaged(kind)
    target.write_bytes(damaged)
    made.clear()
    wheel(monkeypatch)
    sb = Sandbox()
    expected = {"flipped byte": ALL[:3], "not bytes": ALL[:3], "refused by Lua": ("patterns", "safelib")}
    assert sb.precompiled == expected.get(kind, ())
    works(sb)
    assert target.read_bytes() == damaged and made == []  # a wheel's file is left as built


def test_a_source_checkout_makes_a_damaged_file_again(target: Path, made: list[int],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    target.write_bytes(_damaged("truncated"))
    made.clear()
    checkout(monkeypatch)
    assert Sandbox().precompiled == ALL and len(made) == 1
    assert Sandbox().precompiled == ALL and len(made) == 1


def test_a_file_that_cannot_be_written_is_no_error(tmp_path: Path, made: list[int],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(precompiled, "path", lambda: str(tmp_path / "missing-dir" / precompiled.FILE))
    checkout(monkeypatch)
    sb = Sandbox()
    assert sb.precompiled == ALL and len(made) == 1  # made in memory, used, not kept
    works(sb)
    assert not (tmp_path / "missing-dir").exists()


def test_a_lupa_that_cannot_dump_is_no_error(target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(sources: dict[str, str]) -> dict[str, Any]:
        raise RuntimeError("no string.dump here")

    monkeypatch.setattr(precompiled, "generate", broken)
    checkout(monkeypatch)
    sb = Sandbox()
    assert sb.precompiled == () and not target.exists()
    works(sb)


# Shipped in the wheel -----------------------------------------------------------------------------


def test_the_file_is_made_by_the_build_not_committed() -> None:
    pyproject = tomli.loads((ROOT / "pyproject.toml").read_text())
    assert any(r.startswith("lupa") for r in pyproject["build-system"]["requires"])
    assert f"jouet_git/luau/{precompiled.FILE}" in (ROOT / ".gitignore").read_text().split()
    tracked = subprocess.run(["git", "ls-files", "jouet_git/luau"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode == 0:  # a source checkout with its git history
        assert "jouet_git/luau/" + precompiled.FILE not in tracked.stdout.split()


def test_the_build_hook_puts_it_in_the_wheel(monkeypatch: pytest.MonkeyPatch) -> None:
    # hatchling is not installed in the test environment: the hook's base class is replaced by a
    # minimal one; the hook itself (hatch_build.py) runs for real, with the real lupa.
    interface = types.ModuleType("hatchling.builders.hooks.plugin.interface")

    class BuildHookInterface:
        pass

    interface.BuildHookInterface = BuildHookInterface  # type: ignore[attr-defined]
    for name in ("hatchling", "hatchling.builders", "hatchling.builders.hooks", "hatchling.builders.hooks.plugin"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, interface.__name__, interface)
    spec = importlib.util.spec_from_file_location("hatch_build", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    hatch_build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hatch_build)

    said: list[str] = []
    hook: Any = object.__new__(hatch_build.PrebuiltRules)
    hook.target_name, hook.root = "wheel", str(ROOT)
    hook.app = types.SimpleNamespace(display_warning=said.append, display_info=said.append)
    build_data: dict[str, Any] = {"force_include": {}}
    hook.initialize("standard", build_data)
    try:
        shipped = {dest: src for src, dest in build_data["force_include"].items()}
        built = shipped[f"jouet_git/luau/{precompiled.FILE}"]
        with open(built, "rb") as f:
            data = precompiled.unpack(f.read())
        assert precompiled._matching(data, precompiled.sources()).keys() == set(ALL)
        assert not any("precompiled" in s for s in said)
    finally:
        hook.finalize("standard", build_data, "")
    assert not os.path.exists(built)


# Built-in rules' scripts ------------------------------------------------------------------------


def test_a_script_made_from_exactly_its_text_loads_as_bytecode(target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "local R = ... return { R.tostr(0.5), 2 + 3 }"
    write(target, precompiled.generate(precompiled.sources(), [("t.lua", text), ("t.lua", "return 'other'")]))
    wheel(monkeypatch)
    sb = Sandbox()
    assert sb.load(text, "t.lua", sb.new_env(), B) == {1: "0.5", 2: 5}
    assert sb.load("return 'other'", "t.lua", sb.new_env(), B) == "other"  # the second entry of that name
    assert sb.scripts_precompiled == ["t.lua", "t.lua"]
    # Any other text, or the same text under another name, compiles from the text.
    assert sb.load(text + " ", "t.lua", sb.new_env(), B) == {1: "0.5", 2: 5}
    assert sb.load(text, "u.lua", sb.new_env(), B) == {1: "0.5", 2: 5}
    assert sb.scripts_precompiled == ["t.lua", "t.lua"]


def test_a_damaged_script_bytecode_compiles_the_text(target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "return 40 + 2"
    data = precompiled.generate(precompiled.sources(), [("t.lua", text)])
    stored, code, check = data["scripts"]["t.lua"][0]
    data["scripts"]["t.lua"][0] = (stored, code[:-3] + b"xyz", check)
    write(target, data)
    wheel(monkeypatch)
    sb = Sandbox()
    assert sb.load(text, "t.lua", sb.new_env(), B) == 42 and sb.scripts_precompiled == []


def test_scripts_come_as_bytecode_only_from_a_wheels_file(target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "return 7"
    write(target, precompiled.generate(precompiled.sources(), [("t.lua", text)]))
    checkout(monkeypatch)
    sb = Sandbox()
    assert sb.load(text, "t.lua", sb.new_env(), B) == 7 and sb.scripts_precompiled == []


def test_the_wheel_holds_every_built_in_script_as_the_host_compiles_it(target: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """What the build precompiles is exactly what the host compiles: a built-in rule's check loads
    from the bytecode and decides as it does from the text."""
    from jouet_git.engine.load import load_file
    from jouet_git.engine.model import BUILTIN
    from jouet_git.engine.script_host import ScriptHost, builtin_script_texts
    from jouet_git.probes.examples import ExampleProbes

    root = Path(precompiled.__file__).resolve().parents[2]
    scripts = builtin_script_texts([str(root / "rules"), str(root / "plugins")])
    names = {name for name, _ in scripts}
    assert {p.name for p in (root / "rules").glob("*.luau")} <= names
    write(target, precompiled.generate(precompiled.sources(), scripts))
    wheel(monkeypatch)
    [rule] = load_file(str(root / "rules" / "reset-hard.toml"), BUILTIN, BUILTIN)
    host = ScriptHost()
    from jouet_git.call import Call

    call = Call(command="git reset --hard HEAD~1", cwd="/jouet-example")
    example = {"command": "git reset --hard HEAD~1", "git": {"dirty": True, "staged": ["a.py"]}}
    outcome = host.run(rule, call, [0], ExampleProbes(example, "/jouet-example", call))
    assert host.sb.scripts_precompiled == ["reset-hard.luau"]
    assert outcome is not None and outcome.action == "deny"


def test_a_sandbox_reads_the_chunks_and_the_one_script_it_runs(target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The file holds every built-in script's bytecode; a sandbox reads the index, the four chunks and
    # the part of the script it runs, not the others.
    scripts = [(f"s{i}.lua", f"return {i} + 0") for i in range(40)]
    data = precompiled.generate(precompiled.sources(), scripts)
    content = precompiled.pack(data)
    assert precompiled.unpack(content) == data
    write(target, data)
    wheel(monkeypatch)
    read: list[int] = []
    real_open = open

    class Counted:
        def __init__(self, f: Any) -> None:
            self.f = f

        def __enter__(self) -> Counted:
            return self

        def __exit__(self, *exc: object) -> None:
            self.f.close()

        def read(self, size: int = -1) -> bytes:
            blob: bytes = self.f.read(size)
            read.append(len(blob))
            return blob

        def seek(self, at: int) -> int:
            return int(self.f.seek(at))

    def counted_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        f = real_open(file, *args, **kwargs)
        return Counted(f) if str(file) == str(target) else f

    monkeypatch.setattr("builtins.open", counted_open)
    sb = Sandbox()
    assert sb.load("return 7 + 0", "s7.lua", sb.new_env(), B) == 7
    assert sb.scripts_precompiled == ["s7.lua"]
    monkeypatch.undo()
    index, base = precompiled._index(content)
    chunks_end = base + sum(index["chunks"])
    assert sum(read) == chunks_end + index["scripts"]["s7.lua"][1]  # the chunks, and s7's part alone


def test_a_script_part_that_does_not_read_compiles_the_text(target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = precompiled.generate(precompiled.sources(), [("t.lua", "return 40 + 2")])
    content = precompiled.pack(data)
    target.write_bytes(content[:-5])  # the last part (the script's) cut short
    wheel(monkeypatch)
    sb = Sandbox()
    assert sb.precompiled == ALL
    assert sb.load("return 40 + 2", "t.lua", sb.new_env(), B) == 42 and sb.scripts_precompiled == []
