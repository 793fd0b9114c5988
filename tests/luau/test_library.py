"""luau/ is a library: importing it (all of it) brings in nothing else of jouet_git."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import jouet_git.luau


def test_the_luau_package_imports_nothing_else_of_jouet_git() -> None:
    modules = [f"jouet_git.luau.{m.name}" for m in pkgutil.iter_modules(jouet_git.luau.__path__)]
    assert "jouet_git.luau.sandbox" in modules and "jouet_git.luau.translate" in modules
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('jouet_git'))))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(proc.stdout)
    outside = [m for m in loaded if m != "jouet_git" and not m.startswith("jouet_git.luau")]
    assert outside == [], outside
