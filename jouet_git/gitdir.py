"""Finding a repository from the filesystem alone, without starting git (the hook path)."""

from __future__ import annotations

import os


def find_root(cwd: str) -> str | None:
    """The work tree root holding CWD (the nearest directory above with a .git entry), or None."""
    directory = os.path.abspath(cwd)
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def git_dir(root: str) -> str | None:
    """The git directory of the work tree at ROOT: .git itself, or where a .git file points."""
    dot_git = os.path.join(root, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    try:
        with open(dot_git, encoding="utf-8") as f:
            first = f.readline().strip()
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:"):].strip()
    return os.path.normpath(os.path.join(root, target))


def common_dir(root: str) -> str | None:
    """The repository's common git directory, shared by all its worktrees."""
    gd = git_dir(root)
    if gd is None:
        return None
    try:
        with open(os.path.join(gd, "commondir"), encoding="utf-8") as f:
            target = f.read().strip()
    except OSError:
        return gd
    return os.path.normpath(os.path.join(gd, target))


def index_entries(root: str) -> int | None:
    """How many entries the index holds (what `git ls-files` counts), read from its header."""
    gd = git_dir(root)
    if gd is None:
        return None
    try:
        with open(os.path.join(gd, "index"), "rb") as f:
            header = f.read(12)
    except FileNotFoundError:
        return 0
    except OSError:
        return None
    if len(header) < 12 or header[:4] != b"DIRC":
        return None
    return int.from_bytes(header[8:12], "big")
