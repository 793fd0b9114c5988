"""Whether a work tree's `.jouet/` may run: trusted, changed since it was trusted, or never trusted.

What counts is everything in `.jouet/` that can run: `rules/` (rule files, their scripts and
anything beside them), `plugins.toml` and top-level `*.luau` files. The rule engine calls
`repo_state` when it builds a rule set (a cold path: the result is cached with every file read as a
dependency, see engine/ruleset.py).
"""

from __future__ import annotations

import os

from jouet_git.trust import store
from jouet_git.trust.content import Content, scan

TRUSTED = "trusted"
CHANGED = "changed"
UNTRUSTED = "untrusted"

JOUET_DIR = ".jouet"
SHOWN = ".jouet/"
# How many changed paths a one-line summary names before it says "and N more".
_NAMED = 4


def jouet_dir(root: str) -> str:
    return os.path.join(root, JOUET_DIR)


def runnable(name: str) -> bool:
    """Whether a top-level entry of `.jouet/` holds something that can run."""
    return name in ("rules", "plugins.toml") or name.endswith(".luau")


class RepoState:
    """A work tree's `.jouet/` content and what the trust records say about it."""

    __slots__ = ("changes", "content", "key", "problem", "record", "root", "state")

    def __init__(self, root: str, key: str | None, content: Content, record: dict[str, object] | None,
                 problem: str) -> None:
        self.root = root
        self.key = key
        self.content = content
        self.record = record
        self.problem = problem
        self.changes: dict[str, list[str]] = {"changed": [], "added": [], "removed": []}
        if record is None:
            self.state = UNTRUSTED
        elif record.get("sha256") == content.digest and not content.refused:
            self.state = TRUSTED
        else:
            self.state = CHANGED
            files = record.get("files")
            self.changes = content.changes_from(files if isinstance(files, dict) else {})

    @property
    def label(self) -> str:
        return f"repo:{self.state}"

    @property
    def runs(self) -> bool:
        return self.state == TRUSTED and not self.content.refused

    def change_summary(self) -> str:
        """The changes as one line: `.jouet/rules/a.toml changed, .jouet/rules/b.toml added`."""
        items = [f"{SHOWN}{path} {what}" for what in ("changed", "added", "removed")
                 for path in self.changes[what]]
        if not items:
            return "its content differs"
        more = len(items) - _NAMED
        return ", ".join(items[:_NAMED]) + (f" and {more} more" if more > 0 else "")

    def detail(self) -> str:
        """Why the repository's rules do not run and what to do, or "" when they run."""
        if self.content.refused:
            more = len(self.content.refused) - 1
            extra = f" (and {more} more problem{'s' if more > 1 else ''})" if more > 0 else ""
            return f"jouet refuses the repository's .jouet/: {self.content.refused[0]}{extra}"
        if self.state == UNTRUSTED:
            why = f" ({self.problem})" if self.problem else ""
            return (f"the repository's .jouet/ has not been trusted{why}: review it with `jouet trust --show`, "
                    "then trust it with `jouet trust`")
        if self.state == CHANGED:
            return (f"the repository's .jouet/ changed since you trusted it ({self.change_summary()}): review it "
                    "with `jouet trust --show`, then trust it again with `jouet trust`")
        return ""


def repo_state(root: str) -> RepoState | None:
    """The trust state of the work tree at ROOT, or None when its `.jouet/` holds nothing that runs."""
    base = jouet_dir(root)
    if not os.path.lexists(base):
        return None
    content = scan(base, runnable, shown=SHOWN)
    if content.empty:
        return None
    key = store.repo_key(root)
    records = store.read_records()
    problem = "" if key is not None else f"cannot find the git directory of {root}"
    record = records.get(key) if key else None
    return RepoState(root, key, content, record, problem)
