"""Find the repository around a directory by reading files, never by running git.

The claims probe runs on every agent tool call, where starting `git rev-parse` would cost more
than everything else together. What it needs is in a handful of small files:

    <worktree>/.git                 a directory (the main worktree) or a file "gitdir: PATH"
    <git dir>/commondir             in a linked worktree: the path of the shared git dir
    <git dir>/HEAD                  "ref: refs/heads/BRANCH", or a commit id when detached

This module is on the hook's hot path: it imports only `os`.
"""

from __future__ import annotations

import os


class Repo:
    """A worktree and the git directories behind it (all absolute, symlinks resolved)."""

    __slots__ = ("common_dir", "git_dir", "root")

    def __init__(self, root: str, git_dir: str, common_dir: str) -> None:
        self.root = root
        self.git_dir = git_dir
        self.common_dir = common_dir

    def branch(self) -> str | None:
        """The checked-out branch (`main`, `feat/x`), or None when HEAD is detached or unreadable."""
        head = _read(os.path.join(self.git_dir, "HEAD"))
        if head is None or not head.startswith("ref:"):
            return None
        ref = head[4:].strip()
        if ref.startswith("refs/heads/"):
            ref = ref[len("refs/heads/"):]
        if not ref or ref == ".invalid":  # a reftable repository keeps its real HEAD elsewhere
            return None
        return ref

    def __repr__(self) -> str:
        return f"Repo(root={self.root!r}, git_dir={self.git_dir!r}, common_dir={self.common_dir!r})"


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(4096).strip()
    except OSError:
        return None


def _git_dir_of(worktree: str) -> str | None:
    """The git dir that WORKTREE/.git names, or None when there is none (or it is unusable)."""
    dot_git = os.path.join(worktree, ".git")
    if os.path.isdir(dot_git):
        return dot_git if os.path.exists(os.path.join(dot_git, "HEAD")) else None
    text = _read(dot_git)
    if text is None or not text.startswith("gitdir:"):
        return None
    target = text[len("gitdir:"):].strip()
    if not os.path.isabs(target):
        target = os.path.join(worktree, target)
    return target if os.path.isdir(target) else None


def find(cwd: str) -> Repo | None:
    """The repository whose worktree holds CWD, or None outside any (and in a bare repository)."""
    current = os.path.realpath(cwd)
    while True:
        if os.path.basename(current) == ".git":
            # Inside a git dir itself: no worktree here.
            return None
        git_dir = _git_dir_of(current)
        if git_dir is not None:
            git_dir = os.path.realpath(git_dir)
            common = _read(os.path.join(git_dir, "commondir"))
            if common:
                common_dir = common if os.path.isabs(common) else os.path.join(git_dir, common)
                common_dir = os.path.realpath(common_dir)
            else:
                common_dir = git_dir
            return Repo(current, git_dir, common_dir)
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def relative(repo: Repo, path: str, cwd: str) -> str | None:
    """PATH (relative to CWD, or absolute) relative to the worktree root, with `/` separators;
    "" for the root itself, None when it lies outside the worktree.

    Works on paths that do not exist yet and on globs: the path is resolved lexically, and only
    when that lands outside is the longest existing part resolved through symlinks.
    """
    trailing = "/" if path.endswith("/") else ""
    joined = path if os.path.isabs(path) else os.path.join(os.path.realpath(cwd), path)
    lexical = os.path.normpath(joined)
    inside = _under(repo.root, lexical)
    if inside is None:
        head = lexical
        rest: list[str] = []
        while head != os.path.dirname(head) and not os.path.exists(head):
            rest.append(os.path.basename(head))
            head = os.path.dirname(head)
        resolved = os.path.join(os.path.realpath(head), *reversed(rest))
        inside = _under(repo.root, resolved)
    if inside is None:
        return None
    return inside + trailing if inside else inside


def _under(root: str, path: str) -> str | None:
    if path == root:
        return ""
    prefix = root.rstrip(os.sep) + os.sep
    if not path.startswith(prefix):
        return None
    rel = path[len(prefix):]
    return rel.replace(os.sep, "/") if os.sep != "/" else rel
