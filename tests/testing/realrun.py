"""Running an agent's command for real, after asking jouet about it: the two halves of a rule test
that checks both what jouet decided and what bash and git really did."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def bash(command: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run COMMAND with bash in CWD, as the agent's tool would (stdin closed, no terminal)."""
    full = dict(os.environ)
    full.update(env or {})
    full.setdefault("GIT_EDITOR", "true")
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=full, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)


def failing_hook(repo: Path, name: str = "pre-commit") -> Path:
    """Install a git hook NAME in REPO that always fails (and leaves a mark when it ran)."""
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    hook = hooks / name
    hook.write_text(f"#!/bin/sh\ntouch \"$(git rev-parse --git-dir)/{name}-ran\"\n"
                    "echo refused by the hook >&2\nexit 1\n")
    hook.chmod(0o755)
    return hook
