"""Shared pieces for the git hook tests: capturing hooks, a recording stand-in for jouet, remotes.

Holds no tests itself; the test_githooks_* files import from it.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from testing import git

ZERO = "0" * 40


def write_script(path: Path, text: str) -> Path:
    """An executable file at PATH."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def capture_hook(repo: Path, hook: str, into: Path) -> Path:
    """Install HOOK in REPO as a script that saves the argv and stdin git gives it under INTO.

    It exits with the number in INTO/exit when that file exists (so a test can stop git right
    after the hook has seen what git would do), else 0.
    """
    into.mkdir(parents=True, exist_ok=True)
    hooks = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-path", "hooks").strip())
    return write_script(
        hooks / hook,
        "#!/bin/sh\n"
        f"printf '%s\\n' \"$@\" > '{into}/argv'\n"
        f"cat > '{into}/stdin'\n"
        f"pwd > '{into}/cwd'\n"
        f"if [ -f '{into}/exit' ]; then exit \"$(cat '{into}/exit')\"; fi\n",
    )


def captured(into: Path) -> tuple[list[str], str]:
    """The argv and stdin a capture_hook saved."""
    return (into / "argv").read_text().splitlines(), (into / "stdin").read_text()


def recorder(tmp_path: Path, name: str = "recorder") -> tuple[Path, Path]:
    """A stand-in for jouet that appends {argv, stdin, cwd} to a log; exits with the code in NAME.exit."""
    log = tmp_path / f"{name}.jsonl"
    exit_file = tmp_path / f"{name}.exit"
    script = write_script(
        tmp_path / f"{name}.py",
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        "record = {'argv': sys.argv[1:], 'stdin': sys.stdin.read(), 'cwd': os.getcwd()}\n"
        f"with open({str(log)!r}, 'a') as handle:\n"
        "    handle.write(json.dumps(record) + '\\n')\n"
        f"code = open({str(exit_file)!r}).read().strip() if os.path.exists({str(exit_file)!r}) else '0'\n"
        "sys.exit(int(code))\n",
    )
    return script, log


def records(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def commit(repo: Path, name: str, text: str | None = None, message: str | None = None) -> str:
    """Write NAME, commit it, return the new commit's object name."""
    target = repo / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text if text is not None else f"{name}\n")
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", message or f"add {name}")
    return git(repo, "rev-parse", "HEAD").strip()


def rev(repo: Path, what: str) -> str:
    return git(repo, "rev-parse", what).strip()


def snapshot(directory: Path) -> dict[str, tuple[bytes, int] | str]:
    """Every entry under DIRECTORY: (bytes, mode) for files, the target for symbolic links."""
    out: dict[str, tuple[bytes, int] | str] = {}
    if not directory.exists():
        return out
    for path in sorted(directory.rglob("*")):
        rel = str(path.relative_to(directory))
        if path.is_symlink():
            out[rel] = "-> " + os.readlink(path)
        elif path.is_file():
            out[rel] = (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
        else:
            out[rel] = "dir"
    return out
