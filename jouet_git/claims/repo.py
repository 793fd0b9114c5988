"""The repository around a directory, for claims: finding it (jouet_git.gitdir, which reads files
and never runs git) and paths relative to its root.

This module is on the hook's hot path: it imports only `os` and jouet_git.gitdir.
"""

from __future__ import annotations

import os

from jouet_git.gitdir import Repo, find

__all__ = ["Repo", "find", "relative"]


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
