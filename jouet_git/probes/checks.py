"""Checking what a script passes to a probe, the same way for real probes and for examples.

A wrong argument is a bug in the script, so it raises ProbeError with what was wrong and what the
probe accepts; the sandbox reports it as the rule's error.
"""

from __future__ import annotations

from jouet_git.probes.core import ProbeError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CHANGED_SCOPES = ("staged", "tracked", "conflicted")
SECRETS_SCOPES = ("staged", "tracked", "outgoing")
RUN_KINDS = ("test", "lint", "build")
RUN_SCOPES = ("full", "partial")
_ZERO = frozenset({"0" * 40, "0" * 64})


def string(what: str, value: Any) -> str:
    """VALUE, which must be a string."""
    if not isinstance(value, str):
        raise ProbeError(f"{what} must be a string, not {_kind(value)}")
    return value


def optional_string(what: str, value: Any) -> str | None:
    """VALUE, which must be a string or nil."""
    if value is not None and not isinstance(value, str):
        raise ProbeError(f"{what} must be a string or nil, not {_kind(value)}")
    return None if value is None else str(value)


def run_kind(kind: Any) -> str | None:
    """ci.last_run's kind: test, lint, build, or nil for any."""
    if kind is not None and kind not in RUN_KINDS:
        raise ProbeError(f"jouet.ci.last_run: unknown kind {kind!r}: use \"test\", \"lint\", \"build\" or nil")
    return None if kind is None else str(kind)


def run_scope(scope: Any) -> str | None:
    """ci.last_run's scope: full, partial, or nil for any."""
    if scope is not None and scope not in RUN_SCOPES:
        raise ProbeError(f"jouet.ci.last_run: unknown scope {scope!r}: use \"full\", \"partial\" or nil")
    return None if scope is None else str(scope)


def changed_scope(scope: Any) -> str:
    """git.changed's scope: "staged" when nil."""
    if scope is None:
        return "staged"
    if scope not in CHANGED_SCOPES:
        raise ProbeError(f"jouet.git.changed: unknown scope {scope!r}: use \"staged\", \"tracked\" or \"conflicted\"")
    return str(scope)


def secrets_scope(scope: Any) -> str:
    """secrets.scan's scope: "staged" when nil."""
    if scope is None:
        return "staged"
    if scope not in SECRETS_SCOPES:
        raise ProbeError(
            f"jouet.secrets.scan: unknown scope {scope!r}: use \"staged\", \"tracked\" or \"outgoing\""
        )
    return str(scope)


def revision(what: str, value: Any) -> str:
    """A branch name or revision for git.ahead: a non-empty string that git cannot read as an option."""
    string(what, value)
    if not value or value.startswith("-") or any(c.isspace() or c == "\0" for c in value):
        raise ProbeError(f"jouet.git: {what} {value!r} is not a branch or revision name")
    return str(value)


def revision_list(what: str, values: Any) -> list[str]:
    """A list of revisions (nil for none, one string for one), each checked as `revision` checks it."""
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    elif isinstance(values, dict):
        try:
            values = [values[i] for i in range(1, len(values) + 1)]
        except KeyError:
            raise ProbeError(f"{what} must be a list of revisions, not a table with named keys") from None
    if not isinstance(values, (list, tuple)):
        raise ProbeError(f"{what} must be a list of revisions, not {_kind(values)}")
    return [revision(what, value) for value in values]


def path_list(paths: Any) -> list[str]:
    """A list of paths (a single string counts as a list of one)."""
    if isinstance(paths, str):
        return [paths]
    if isinstance(paths, dict):
        # A Lua array arrives as a table keyed 1..n.
        try:
            paths = [paths[i] for i in range(1, len(paths) + 1)]
        except KeyError:
            raise ProbeError("paths must be a list of strings, not a table with named keys") from None
    if not isinstance(paths, (list, tuple)):
        raise ProbeError(f"paths must be a list of strings, not {_kind(paths)}")
    for item in paths:
        if not isinstance(item, str):
            raise ProbeError(f"paths must hold only strings, not {_kind(item)}")
    return list(paths)


def push_pairs(push: dict[str, Any]) -> list[tuple[str, str]] | None:
    """The (remote oid, local oid) pairs naming exactly the commits a pre-push call sends.

    PUSH is the git pre-push call's input. Its `revisions` are `git rev-list` arguments: the local
    object, `--not`, then either the remote's old object or `--remotes` (a new ref: every commit
    no remote has); none for a deletion. None when PUSH does not say.
    """
    revisions = push.get("revisions")
    if not isinstance(revisions, list) or not all(isinstance(r, str) for r in revisions):
        return _from_oids(push)
    if not revisions:
        return []
    new = revisions[0]
    if new.startswith("-") or (len(revisions) > 1 and revisions[1] != "--not"):
        return _from_oids(push)
    zero = "0" * len(new)
    excluded = revisions[2:]
    if not excluded:
        return _from_oids(push)
    pairs: list[tuple[str, str]] = []
    for old in excluded:
        if old == "--remotes":
            pairs.append((zero, new))
        elif old.startswith("-"):
            return _from_oids(push)
        else:
            pairs.append((old, new))
    return pairs


def _from_oids(push: dict[str, Any]) -> list[tuple[str, str]] | None:
    old, new = push.get("remote_oid"), push.get("local_oid")
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    if new in _ZERO:
        return []
    return [(old, new)]


def _kind(value: Any) -> str:
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, (list, tuple, dict)):
        return "a table"
    return type(value).__name__
