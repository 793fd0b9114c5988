"""Shared test helpers: real git repositories, real `jouet` subprocesses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent
# The tests directory and the project's root.
TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent


def ended(pid: int, within: float = 2.0) -> bool:
    """Whether process PID has ended (gone, or a zombie not yet reaped), looking again for up to
    WITHIN seconds: SIGKILL is sent at once, but a loaded machine may show the end late. Reads
    /proc where there is one; elsewhere asks with signal 0, which a zombie still answers."""
    import time

    deadline = time.monotonic() + within
    while True:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return True
        except FileNotFoundError:
            if os.path.isdir("/proc/self"):
                return True
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


def jouet_exe() -> list[str]:
    """The installed console script, as a user runs it (falls back to `python -m jouet_git`)."""
    script = BIN / "jouet"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "jouet_git"]


def run_jouet(
    *args: str,
    input: str | None = None,
    cwd: str | Path | None = None,
    env: dict[str, str] | None = None,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    proc = subprocess.run(
        [*jouet_exe(), *args],
        input=input,
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"jouet {' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def git(repo: str | Path, *args: str, input: str | None = None, check: bool = True) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=repo, input=input, capture_output=True, text=True, timeout=60
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
    return proc.stdout


def make_repo(path: str | Path, files: dict[str, str] | None = None, commit: bool = True) -> Path:
    """A git repository at PATH with FILES committed on branch main."""
    repo = Path(path)
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    for name, text in (files or {"README.md": "hello\n"}).items():
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    if commit:
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "initial")
    return repo


def claude_payload(command: str, cwd: str | Path, event: str = "PreToolUse", **extra: Any) -> str:
    payload: dict[str, Any] = {
        "session_id": "test-session",
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": str(cwd),
        "hook_event_name": event,
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "test"},
        "tool_use_id": "toolu_test",
    }
    payload.update(extra)
    return json.dumps(payload)


def have(program: str) -> bool:
    return shutil.which(program) is not None


def run_as_nobody(code: str, cwd: str | Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run Python CODE as the unprivileged user `nobody` (for tests that need a permission to be
    refused while the suite runs as root). jouet_git is copied where nobody can read it, since the
    checkout may be private to root, and the base interpreter runs it with no site-packages."""
    import tempfile

    setpriv = shutil.which("setpriv")
    assert setpriv is not None, "setpriv (util-linux) is needed to run this test as root"
    import jouet_git

    copy = tempfile.mkdtemp(prefix="jouet-nobody-")
    try:
        os.chmod(copy, 0o755)
        shutil.copytree(os.path.dirname(jouet_git.__file__), os.path.join(copy, "jouet_git"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        for base, dirs, files in os.walk(copy):
            for name in dirs:
                os.chmod(os.path.join(base, name), 0o755)
            for name in files:
                os.chmod(os.path.join(base, name), 0o644)
        python = os.path.realpath(sys.executable)
        return subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", python, "-s", "-c", code],
                              cwd=cwd, env={**env, "PYTHONPATH": copy, "PYTHONDONTWRITEBYTECODE": "1"},
                              capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
