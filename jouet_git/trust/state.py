"""Whether a repository's rules run, from what copy, and what changed since they were trusted.

What counts is everything in `.jouet/` that can run: `rules/` (rule files, their scripts and
anything beside them, hidden files and a nested .git included), `plugins.toml` and top-level
`*.luau` files. `jouet trust` keeps a copy of exactly the bytes it showed (trust/snapshot.py), and
that copy is what runs:

- untrusted: no trust record; nothing runs.
- trusted: the record's copy runs. When the work tree's `.jouet/` no longer holds the same bytes
  (a pull brought a new rule, a README appeared, a file is being rewritten), the copy keeps running
  and `notice()` says what changed, until the change is reviewed and trusted (`jouet trust`).
- a record without a usable copy (trusted by a jouet that kept none, or a copy changed behind
  jouet's back): nothing runs, and `detail()` says to trust again.

The rule engine calls `repo_state` when it builds a rule set (a cold path: the result is cached
with every file read as a dependency, see engine/ruleset.py). Nothing here raises for what it finds
on disk: a file that vanishes mid-scan is a difference to announce, never a crash.
"""

from __future__ import annotations

import os

from jouet_git.trust import snapshot, store
from jouet_git.trust.content import Content

TRUSTED = "trusted"
CHANGED = "changed"
UNTRUSTED = "untrusted"

JOUET_DIR = snapshot.JOUET_DIR
SHOWN = ".jouet/"
# How many changed paths a one-line summary names before it says "and N more".
_NAMED = 4

runnable = snapshot.runnable


def jouet_dir(root: str) -> str:
    return os.path.join(root, JOUET_DIR)


class RepoState:
    """A work tree's `.jouet/` content, what the trust records say about it, and the copy that runs."""

    __slots__ = ("changes", "content", "copy", "copy_problem", "key", "problem", "record", "root", "state")

    def __init__(self, root: str, key: str | None, content: Content, record: dict[str, object] | None,
                 problem: str, copy: str | None = None, copy_problem: str = "") -> None:
        self.root = root
        self.key = key
        self.content = content
        self.record = record
        self.problem = problem
        self.copy = copy
        self.copy_problem = copy_problem
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
        # repo:changed with rules that run: the trusted copy runs, and the work tree differs from it
        return f"repo:{self.state}"

    @property
    def runs(self) -> bool:
        """Whether the trusted copy runs: there is a record, and its copy is intact."""
        return self.record is not None and self.copy is not None and not self.copy_problem

    def change_summary(self) -> str:
        """The changes as one line: `.jouet/rules/a.toml changed, .jouet/rules/b.toml added`."""
        items = [f"{SHOWN}{path} {what}" for what in ("changed", "added", "removed")
                 for path in self.changes[what]]
        items += self.content.refused
        if not items:
            return "its content differs"
        more = len(items) - _NAMED
        return ", ".join(items[:_NAMED]) + (f" and {more} more" if more > 0 else "")

    def notice(self) -> str:
        """One line for the person when the trusted copy runs but the work tree's `.jouet/` differs
        (session primer, git hooks, `jouet trust --show`), or ""."""
        if not self.runs or self.state == TRUSTED:
            return ""
        return (f"the repository's .jouet/ changed since you trusted it ({self.change_summary()}); the copy you "
                "trusted keeps running until you review the change with `jouet trust --show` and trust it with "
                "`jouet trust`")

    def detail(self) -> str:
        """Why the repository's rules do not run and what to do, or "" when they run."""
        if self.runs:
            return ""
        if self.record is not None:
            why = self.copy_problem or "jouet kept no copy of what you trusted then"
            return (f"the repository's .jouet/ rules do not run: {why}; review them with `jouet trust --show`, "
                    "then trust them again with `jouet trust`")
        if self.content.refused:
            more = len(self.content.refused) - 1
            extra = f" (and {more} more problem{'s' if more > 1 else ''})" if more > 0 else ""
            return f"jouet refuses the repository's .jouet/: {self.content.refused[0]}{extra}"
        why = f" ({self.problem})" if self.problem else ""
        return (f"the repository's .jouet/ has not been trusted{why}: review it with `jouet trust --show`, "
                "then trust it with `jouet trust`")


def repo_state(root: str) -> RepoState | None:
    """The trust state of the work tree at ROOT, or None when its `.jouet/` holds nothing that runs
    and nothing of it was ever trusted."""
    key = store.repo_key(root)
    record = store.read_records().get(key) if key else None
    base = jouet_dir(root)
    if not os.path.lexists(base) and record is None:
        return None
    content = snapshot.scan_jouet(root)
    if content.empty and record is None:
        return None
    return state_of(root, key, content, record)


def state_of(root: str, key: str | None, content: Content, record: dict[str, object] | None) -> RepoState:
    """The state of ROOT given CONTENT (its `.jouet/` as scanned) and its trust RECORD."""
    problem = "" if key is not None else f"cannot find the git directory of {root}"
    copy, copy_problem = None, ""
    if record is not None and key is not None:
        copy = snapshot.copy_of(key, record)
        if copy is not None:
            copy_problem = snapshot.check(copy, record)
    return RepoState(root, key, content, record, problem, copy, copy_problem)


def notice(root: str | None) -> str:
    """The one-line notice the session primer and the git hooks show for the repository at ROOT:
    its trusted rules run from the copy you trusted but its `.jouet/` has changed since, or its rules
    do not run although you trusted them once. "" when there is nothing to say (never raises)."""
    if root is None:
        return ""
    try:
        state = repo_state(root)
    except Exception as error:  # a notice must never break what shows it
        return f"jouet could not read the repository's .jouet/ ({type(error).__name__}: {error})"
    if state is None:
        return ""
    if state.runs:
        return state.notice()
    return state.detail() if state.record is not None else ""
