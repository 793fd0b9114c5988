"""The git probes that ask git itself: git.state, git.changed and git.ahead.

Each runs one read-only git process through the Probes object (which counts it, bounds it in time
and sets GIT_OPTIONAL_LOCKS=0), in the work tree's root, and turns its output into plain data.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.probes.core import Probes

# What git's check-ref-format refuses in a branch name (enough to keep rev-list from reading a range).
_BAD_REF = re.compile(r"\.\.|[\x00-\x20\x7f~^:?*\[\\]|@\{|^\.|/\.|\.lock(/|$)|^/|/$|//|\.$|^@$")


def valid_branch(name: str) -> bool:
    """Whether NAME can be a branch name (so `refs/heads/NAME` is one ref, not a range or pattern)."""
    return bool(name) and _BAD_REF.search(name) is None


def state(runner: Probes, root: str) -> tuple[Any, str | None]:
    """jouet.git.state() of the work tree at ROOT, from one `git status --porcelain=v2 --branch`."""
    code, out, err = runner.run_git(
        ["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--ignored=no"], root
    )
    if code != 0:
        return None, f"git status failed in {root}: {_first_line(err)}"
    return parse_status(out), None


def parse_status(out: bytes) -> dict[str, Any]:
    """The state dict from `git status --porcelain=v2 --branch -z` output.

    branch is left out when HEAD is detached, head on an unborn branch, upstream when there is none,
    ahead and behind when git cannot count them (no upstream, or it is gone).
    """
    result: dict[str, Any] = {}
    changed = untracked = conflicted = 0
    records = out.split(b"\0")
    index = 0
    while index < len(records):
        record = records[index]
        index += 1
        if not record:
            continue
        kind = record[:1]
        if kind == b"#":
            _header(record.decode("utf-8", "replace"), result)
        elif kind == b"1":
            changed += 1
        elif kind == b"2":
            changed += 1
            index += 1  # a rename or copy is followed by the path it came from
        elif kind == b"u":
            conflicted += 1
        elif kind == b"?":
            untracked += 1
    result["changed"] = changed
    result["untracked"] = untracked
    result["conflicted"] = conflicted
    result["dirty"] = bool(changed or untracked or conflicted)
    return result


def _header(line: str, result: dict[str, Any]) -> None:
    parts = line.split(" ")
    if len(parts) < 3:
        return
    name, value = parts[1], " ".join(parts[2:])
    if name == "branch.oid" and value != "(initial)":
        result["head"] = value[:12]
    elif name == "branch.head" and value != "(detached)":
        result["branch"] = value
    elif name == "branch.upstream":
        result["upstream"] = value
    elif name == "branch.ab" and len(parts) == 4:
        try:
            result["ahead"] = int(parts[2].lstrip("+"))
            result["behind"] = int(parts[3].lstrip("-"))
        except ValueError:
            pass


def changed(runner: Probes, root: str, scope: str) -> tuple[Any, str | None]:
    """jouet.git.changed(scope): absolute paths a commit would take.

    "staged": the index against HEAD; "tracked": the work tree's tracked files against HEAD, as
    `git commit -a` takes them. A rename counts as its old path and its new one.
    """
    if scope == "staged":
        args = ["diff", "--cached", "--name-only", "--no-renames", "--ignore-submodules=none", "-z"]
    else:
        args = ["diff", "HEAD", "--name-only", "--no-renames", "--ignore-submodules=none", "-z", "--"]
    code, out, err = runner.run_git(args, root)
    if code != 0 and scope == "tracked" and b"HEAD" in err:
        # An unborn branch: `git commit -a` takes every index entry still in the work tree.
        code, out, err = runner.run_git(["ls-files", "--cached", "-z"], root)
        if code == 0:
            names = _names(out)
            return [p for p in (os.path.join(root, n) for n in names) if os.path.lexists(p)], None
    if code != 0:
        return None, f"git diff failed in {root}: {_first_line(err)}"
    return [os.path.join(root, name) for name in _names(out)], None


def ahead(runner: Probes, root: str, branch: str, of: str) -> tuple[Any, str | None]:
    """jouet.git.ahead(branch, of): commits on local BRANCH that OF does not have."""
    if not valid_branch(branch):
        return None, f"no local branch {branch!r}: it is not a valid branch name"
    local = f"refs/heads/{branch}"
    code, out, err = runner.run_git(["rev-list", "--count", "--end-of-options", local, f"^{of}", "--"], root)
    if code == 0:
        try:
            return int(out.strip()), None
        except ValueError:
            return None, f"git rev-list gave an unexpected answer: {out[:80]!r}"
    message = err.decode("utf-8", "replace")
    if f"'{local}'" in message:
        return None, f"no local branch {branch!r}"
    if f"'^{of}'" in message:
        return None, f"{of!r} does not resolve to a commit in {root}"
    return None, f"git rev-list failed in {root}: {_first_line(err)}"


def _names(out: bytes) -> list[str]:
    return [os.fsdecode(name) for name in out.split(b"\0") if name]


def _first_line(err: bytes) -> str:
    text = err.decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else "no message"
