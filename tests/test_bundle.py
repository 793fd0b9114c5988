"""jouet_git/bundle.py: a wheel's modules imported from one file, each only while its source is the one
compiled, with what importing the source would give; and the build hook that ships the file."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import traceback
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from testing import make_repo

from jouet_git import bundle

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def isolated_imports() -> Iterator[None]:
    """The finder install() adds, and the modules the test imported, gone afterwards."""
    meta_path = list(sys.meta_path)
    modules = set(sys.modules)
    yield
    for finder in sys.meta_path:
        if isinstance(finder, bundle._Finder):
            os.close(finder.fd)
    sys.meta_path[:] = meta_path
    for name in set(sys.modules) - modules:
        del sys.modules[name]


def package(tmp_path: Path) -> Path:
    """A package `bpkg` (a module, a subpackage with a relative import) under TMP_PATH/site."""
    site = tmp_path / "site"
    files = {
        "bpkg/__init__.py": '"""The package\'s docstring, read at run time (a command\'s --help)."""\nVALUE = 1\n',
        "bpkg/tools.py": textwrap.dedent('''\
            """Tools."""

            def double(x):
                """Twice X."""
                return 2 * x


            def fail():
                raise RuntimeError("from tools")
            '''),
        "bpkg/sub/__init__.py": "from .inner import NAME\n",
        "bpkg/sub/inner.py": "NAME = 'inner'\n",
    }
    for name, text in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    return site


def made(site: Path) -> Path:
    """The bundle of SITE/bpkg, written into the package as the build hook does."""
    target = site / "bpkg" / bundle.FILE
    target.write_bytes(bundle.generate(str(site / "bpkg")))
    return target


def test_modules_come_from_the_file_as_from_their_sources(tmp_path: Path, isolated_imports: None,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    site = package(tmp_path)
    target = made(site)
    index = bundle.read_index(target.read_bytes())
    assert index is not None and set(index["modules"]) == {"bpkg", "bpkg.tools", "bpkg.sub", "bpkg.sub.inner"}
    monkeypatch.syspath_prepend(str(site))
    assert bundle.install(str(target))
    assert not bundle.install(str(target))  # once a process
    tools = importlib.import_module("bpkg.tools")
    sub = importlib.import_module("bpkg.sub")
    pkg = sys.modules["bpkg"]
    for module in (pkg, tools, sub, sys.modules["bpkg.sub.inner"]):
        assert isinstance(module.__spec__.loader, bundle._Loader), module.__name__
    assert tools.double(4) == 8 and sub.NAME == "inner" and pkg.VALUE == 1
    assert tools.__file__ == str(site / "bpkg" / "tools.py")
    assert pkg.__path__ == [str(site / "bpkg")] and sub.__path__ == [str(site / "bpkg" / "sub")]
    assert pkg.__doc__.startswith("The package's docstring") and tools.double.__doc__ == "Twice X."
    with pytest.raises(RuntimeError) as raised:
        tools.fail()
    shown = "".join(traceback.format_exception(raised.value))
    assert f'File "{site / "bpkg" / "tools.py"}", line 9, in fail' in shown
    assert 'raise RuntimeError("from tools")' in shown  # the source's own line


def test_a_source_changed_since_the_build_is_imported_from_itself(tmp_path: Path, isolated_imports: None,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Another size, or the same size written after the file (beyond the installer's window): that
    module comes from its source; the others still from the file."""
    site = package(tmp_path)
    target = made(site)
    (site / "bpkg" / "tools.py").write_text((site / "bpkg" / "tools.py").read_text().replace("2 * x", "3 * x + 0"))
    inner = site / "bpkg" / "sub" / "inner.py"
    inner.write_text("NAME = 'later'\n")
    later = os.stat(target).st_mtime_ns + bundle.INSTALL_WINDOW_NS + 1_000_000_000
    os.utime(inner, ns=(later, later))
    monkeypatch.syspath_prepend(str(site))
    assert bundle.install(str(target))
    tools = importlib.import_module("bpkg.tools")
    sub = importlib.import_module("bpkg.sub")
    assert tools.double(4) == 12 and not isinstance(tools.__spec__.loader, bundle._Loader)
    assert sub.NAME == "later" and not isinstance(sys.modules["bpkg.sub.inner"].__spec__.loader, bundle._Loader)
    assert isinstance(sub.__spec__.loader, bundle._Loader)


def test_a_file_that_cannot_be_used_changes_nothing(tmp_path: Path, isolated_imports: None,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Missing, not a bundle, another Python's bytecode, cut short: install() says no (or, for code
    damaged past the index, the module is compiled from its source)."""
    site = package(tmp_path)
    target = made(site)
    data = target.read_bytes()
    monkeypatch.syspath_prepend(str(site))
    assert not bundle.install(str(tmp_path / "missing"))
    target.write_bytes(b"not a bundle at all")
    assert not bundle.install(str(target))
    target.write_bytes(data[:20])
    assert not bundle.install(str(target))
    monkeypatch.setattr(bundle, "_magic", lambda: b"\x00\x01\r\n")
    target.write_bytes(bundle.generate(str(site / "bpkg")))
    monkeypatch.undo()
    monkeypatch.syspath_prepend(str(site))
    assert not bundle.install(str(target))
    index_end = len(data) - sum(entry[4] for entry in bundle.read_index(data)["modules"].values())
    target.write_bytes(data[:index_end] + b"\xff" * (len(data) - index_end))
    assert bundle.install(str(target))
    tools = importlib.import_module("bpkg.tools")
    assert tools.double(5) == 10 and tools.__file__ == str(site / "bpkg" / "tools.py")


def test_python_run_with_O_does_not_take_the_file(tmp_path: Path) -> None:
    site = package(tmp_path)
    target = made(site)
    code = f"from jouet_git import bundle; print(bundle.install({str(target)!r}))"
    for flags, said in (([], "True"), (["-O"], "False")):
        out = subprocess.run([sys.executable, *flags, "-c", code], capture_output=True, text=True, check=True)
        assert out.stdout.strip() == said


def test_a_hook_decides_the_same_with_jouets_own_modules_from_a_bundle(tmp_path: Path) -> None:
    """A real hook process, jouet's own package compiled into a bundle (as the wheel ships it; a source
    checkout has none): the modules it imports come from the file, and it decides as without it."""
    repo = make_repo(tmp_path / "repo")
    target = tmp_path / "jouet.bundle"
    target.write_bytes(bundle.generate(str(ROOT / "jouet_git")))
    payload = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                          "tool_input": {"command": "git add -A"}, "cwd": str(repo)})
    code = textwrap.dedent(f"""\
        import sys
        from jouet_git import bundle
        used = bundle.install({str(target)!r}, {str(ROOT)!r}) if sys.argv[1] == "bundle" else False
        from jouet_git.cli import main
        code = main(["hook", "claude", "pre"])
        mine = [m for n, m in sys.modules.items() if n.startswith("jouet_git.")]
        taken = sum(isinstance(getattr(m.__spec__, "loader", None), bundle._Loader) for m in mine)
        sys.stderr.write(f"\\nBUNDLE {{used}} {{taken}} {{len(mine)}}")
        sys.exit(code)
        """)
    said = {}
    for mode in ("plain", "bundle"):
        proc = subprocess.run([sys.executable, "-c", code, mode], input=payload, cwd=repo, capture_output=True,
                              text=True)
        used, taken, total = proc.stderr.rsplit("BUNDLE ", 1)[1].split()
        said[mode] = (proc.returncode, proc.stdout, used, int(taken), int(total))
    assert said["plain"][:2] == said["bundle"][:2] and "git-add-all" in said["bundle"][1]
    assert said["plain"][2:4] == ("False", 0)
    assert said["bundle"][2] == "True" and said["bundle"][3] >= said["bundle"][4] - 1 >= 20


def test_the_build_hook_ships_every_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """hatch_build.py puts the bundle of the whole package into the wheel (hatchling is replaced by a
    minimal base class; the hook itself runs for real)."""
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
    hook: Any = object.__new__(hatch_build.PrebuiltRules)
    hook.target_name, hook.root = "wheel", str(ROOT)
    hook.app = types.SimpleNamespace(display_warning=lambda _: None, display_info=lambda _: None)
    build_data: dict[str, Any] = {"force_include": {}}
    hook.initialize("standard", build_data)
    try:
        shipped = {dest: src for src, dest in build_data["force_include"].items()}
        with open(shipped[f"jouet_git/{bundle.FILE}"], "rb") as f:
            index = bundle.read_index(f.read())
        assert index is not None
        sources = {str(p.relative_to(ROOT)) for p in (ROOT / "jouet_git").rglob("*.py") if "__pycache__" not in p.parts}
        assert {entry[0] for entry in index["modules"].values()} == sources
        assert "jouet_git.engine.runner" in index["modules"] and index["modules"]["jouet_git"][1] is True
    finally:
        hook.finalize("standard", build_data, "")
