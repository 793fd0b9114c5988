"""Running a command for real, in a repository with work to lose, and asking jouet about it.

Each variant of the indirection families is checked twice, in two identical repositories: jouet
(`jouet hook claude pre`, with a real payload) must deny it, and bash, running it for real, must
really lose the work, so that the test shows the variant is not a harmless spelling. Read-only
controls run the same way and must leave both jouet and the work alone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from testing import git, make_repo
from testing.gitrules import hook

SECRET = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"

# What a variant does to the work, checked after bash ran it.
MODIFIED = "modified"  # the uncommitted edit to a.txt is gone
UNTRACKED = "untracked"  # the untracked notes.txt is gone
STAGED = "staged"  # notes.txt, never named, is staged
HOOK_SKIPPED = "hook-skipped"  # a commit was made although the pre-commit hook refuses every one
FORCED = "forced"  # the remote's own commit was overwritten
PRINTED = "printed"  # the secret from .env reached the output


def lossy_repo(path: Path) -> Path:
    """A repository with work to lose: a.txt committed then edited, notes.txt never added, a
    pre-commit hook that refuses every commit, .env holding a secret (ignored), and a bare remote
    whose main has a commit this clone lacks."""
    remote = path.parent / (path.name + "-remote.git")
    make_repo(path, {"a.txt": "committed\n", "b.txt": "other\n", ".gitignore": ".env\n"})
    git(path.parent, "init", "-q", "--bare", "-b", "main", str(remote))
    git(path, "remote", "add", "origin", str(remote))
    git(path, "push", "-q", "origin", "main")
    theirs = path.parent / (path.name + "-theirs")
    git(path.parent, "clone", "-q", str(remote), str(theirs))
    git(theirs, "config", "user.email", "t@example.com")
    git(theirs, "config", "user.name", "Them")
    (theirs / "theirs.txt").write_text("their work\n")
    git(theirs, "add", "theirs.txt")
    git(theirs, "commit", "-q", "-m", "their work")
    git(theirs, "push", "-q", "origin", "main")
    (path / "a.txt").write_text("committed\nmy edit\n")
    (path / "notes.txt").write_text("notes\n")
    (path / ".env").write_text(f"STRIPE_KEY={SECRET}\n")
    hook_file = path / ".git" / "hooks" / "pre-commit"
    hook_file.write_text("#!/bin/sh\necho refused by the pre-commit hook >&2\nexit 1\n")
    hook_file.chmod(0o755)
    return path


def remote_head(repo: Path) -> str:
    return git(repo, "ls-remote", "origin", "refs/heads/main").split()[0]


def run_bash(command: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run command with bash -c in cwd, as an agent's Bash tool would (stdin closed)."""
    env = dict(os.environ)
    env.setdefault("TERM", "xterm")
    env["GIT_TERMINAL_PROMPT"] = "0"
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def effect_happened(effect: str, repo: Path, before_remote: str, out: str) -> bool:
    """Whether the work was really lost (or the hook really skipped, the secret really printed)."""
    if effect == MODIFIED:
        return (repo / "a.txt").read_text() == "committed\n"
    if effect == UNTRACKED:
        return not (repo / "notes.txt").exists()
    if effect == STAGED:
        return "notes.txt" in git(repo, "diff", "--cached", "--name-only").split()
    if effect == HOOK_SKIPPED:
        return git(repo, "rev-list", "--count", "HEAD").strip() != "1"
    if effect == FORCED:
        return remote_head(repo) != before_remote
    if effect == PRINTED:
        return SECRET in out
    raise AssertionError(f"unknown effect {effect}")


def _write(repo: Path, files: dict[str, str] | None) -> None:
    for name, text in (files or {}).items():
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def check_variant(tmp_path: Path, command: str, rule: str, effect: str,
                  files: dict[str, str] | None = None) -> None:
    """jouet denies command with rule in one repository; bash really does the damage in another.
    files: written into both repositories first (untracked)."""
    ours = lossy_repo(tmp_path / "ours")
    _write(ours, files)
    verdict = hook(command, ours)
    assert verdict.rule == rule, f"{command!r}: expected a deny by {rule}, got {verdict}"
    theirs = lossy_repo(tmp_path / "real")
    _write(theirs, files)
    before = remote_head(theirs)
    proc = run_bash(command, theirs)
    assert effect_happened(effect, theirs, before, proc.stdout + proc.stderr), (
        f"{command!r} did not do what the test says it does (exit {proc.returncode}):\n"
        f"{proc.stdout}\n{proc.stderr}"
    )


def check_control(tmp_path: Path, command: str, files: dict[str, str] | None = None) -> None:
    """A read-only command: jouet says nothing, and running it for real loses nothing."""
    repo = lossy_repo(tmp_path / "control")
    _write(repo, files)
    verdict = hook(command, repo)
    assert verdict.rule is None, f"{command!r}: expected nothing, got {verdict}"
    before = remote_head(repo)
    proc = run_bash(command, repo)
    for effect in (MODIFIED, UNTRACKED, STAGED, HOOK_SKIPPED, FORCED):
        assert not effect_happened(effect, repo, before, ""), (
            f"{command!r} lost work ({effect}) although it was meant as a read-only control:\n"
            f"{proc.stdout}\n{proc.stderr}"
        )


def have_all(*programs: str) -> bool:
    return all(shutil.which(p) is not None for p in programs)


def skip_unless_installed(command: str, needs: dict[str, tuple[str, ...]], at_start: bool = False) -> None:
    """Skip the test when COMMAND holds (or, AT_START, starts with) a marker of NEEDS whose programs
    are not installed (scripts/test installs them from Debian's packages where it may)."""
    import pytest

    for marker, programs in needs.items():
        found = command.startswith(marker) if at_start else marker in command
        if found and not have_all(*programs):
            pytest.skip(f"{', '.join(programs)} not installed")


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
    hook_file = hooks / name
    hook_file.write_text(f"#!/bin/sh\ntouch \"$(git rev-parse --git-dir)/{name}-ran\"\n"
                         "echo refused by the hook >&2\nexit 1\n")
    hook_file.chmod(0o755)
    return hook_file
