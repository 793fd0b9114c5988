"""What `jouet setup` with no target shows: per harness and scope, whether jouet's hooks are there,
where, and whether the jouet their commands name still exists and answers."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Any

from jouet_git.errors import JouetError
from jouet_git.setup import apply as applying
from jouet_git.setup.targets import PLUGINS, SCRIPTS, TARGETS, Target, program


@dataclass
class Row:
    harness: str
    scope: str
    path: str
    state: str  # installed, partial, not installed, unreadable
    missing: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    runs: dict[str, str] = field(default_factory=dict)  # program -> "ok: jouet X" or the problem
    problem: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"harness": self.harness, "scope": self.scope, "path": self.path, "state": self.state,
                "installed": {"installed": True, "not installed": False}.get(self.state),
                "missing": self.missing, "commands": self.commands, "runs": self.runs,
                "problem": self.problem}


def check_program(name: str, cache: dict[str, str]) -> str:
    """'ok: jouet X.Y (PATH)' when NAME runs and answers `--version`, else what is wrong."""
    if name in cache:
        return cache[name]
    found = name if os.sep in name else shutil.which(name)
    if not found or not os.path.isfile(found):
        result = f"not found: {name}" + ("" if os.sep in name else " is not on PATH")
    elif not os.access(found, os.X_OK):
        result = f"not executable: {found}"
    else:
        try:
            proc = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=20,
                                  stdin=subprocess.DEVNULL)
            out = proc.stdout.strip()
            result = f"ok: {out} ({found})" if proc.returncode == 0 and out.startswith("jouet") else \
                f"does not answer: `{found} --version` exited {proc.returncode}"
        except (OSError, subprocess.TimeoutExpired) as error:
            result = f"does not answer: {error}"
    cache[name] = result
    return result


def row(target: Target, project: bool, cwd: str, cache: dict[str, str]) -> Row:
    path = target.path(project, cwd)
    scope = "project" if project else "user"
    if target.layout == SCRIPTS:
        from jouet_git.setup import cline

        have, missing, run = cline.installed(target, path)
    elif target.layout == PLUGINS:
        from jouet_git.setup import plugins

        have, missing, run = plugins.installed(target, path)
    else:
        try:
            data = applying.read(path)
            doc = applying.load(target, path, data)
        except JouetError as error:
            return Row(target.name, scope, path, "unreadable", problem=error.message)
        have, missing = applying.installed(target, doc)
        run = applying.commands(target, doc)
    state = "installed" if not missing else "partial" if have else "not installed"
    result = Row(target.name, scope, path, state, missing if have else [], run)
    for command in run:
        name = program(command)
        if name:
            result.runs[name] = check_program(name, cache)
    return result


def rows(cwd: str) -> list[Row]:
    cache: dict[str, str] = {}
    return [row(t, project, cwd, cache) for t in TARGETS.values() for project in (False, True)]
