"""The commands this version of jouet has, for a rule's `needs` and `jouet.has_command`."""

from __future__ import annotations

COMMANDS: frozenset[tuple[str, ...]] = frozenset({
    ("check",), ("parse",), ("read",), ("hook",), ("hook", "claude"), ("hook", "git"),
    ("rule",), ("rule", "list"), ("rule", "test"), ("rule", "new"), ("rule", "promote"), ("rule", "log"),
    ("rule", "schema"), ("rule", "gap"), ("rule", "types"),
    ("setup",), ("setup", "claude"), ("setup", "git"),
    ("trust",), ("plugin",), ("plugin", "add"), ("plugin", "list"), ("plugin", "update"), ("plugin", "remove"),
    ("claim",), ("claim", "ls"), ("claim", "release"), ("claim", "prune"), ("claim", "sync"),
    ("secrets",), ("secrets", "scan"), ("secrets", "which"), ("completions",), ("doctor",), ("log",),
})


def has_command(*words: str) -> bool:
    return tuple(words) in COMMANDS
