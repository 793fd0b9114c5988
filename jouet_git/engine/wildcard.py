"""Wildcard patterns (`*` and `?`) as rules write them, compiled once to regular expressions.

Two flavours: plain wildcards, where `*` matches any text (command names, arguments, tool names,
stdout_to), and path globs, where `*` and `?` stay within one directory and `**` crosses them.
A backslash makes the next character literal: `\\*` matches a lone `*` argument.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_plain: dict[str, Callable[[str], object]] = {}
_paths: dict[str, Callable[[str], object]] = {}


def has_wildcard(pattern: str) -> bool:
    return "*" in pattern or "?" in pattern or "\\" in pattern


def _translate(pattern: str, path: bool) -> str:
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if c == "*":
            if path and pattern.startswith("**", i):
                i += 2
                if i < n and pattern[i] == "/":
                    # `**/` matches zero or more whole directories.
                    out.append("(?:.*/)?")
                    i += 1
                else:
                    out.append(".*")
                continue
            out.append("[^/]*" if path else ".*")
        elif c == "?":
            out.append("[^/]" if path else ".")
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def matcher(pattern: str) -> Callable[[str], object]:
    """A function telling whether a whole string matches PATTERN (`*` matches anything)."""
    fn = _plain.get(pattern)
    if fn is None:
        if pattern == "*":
            fn = _anything
        elif not has_wildcard(pattern):
            fn = pattern.__eq__
        elif pattern.endswith("*") and not has_wildcard(pattern[:-1]):
            fn = _prefix(pattern[:-1])
        elif "?" not in pattern and "\\" not in pattern:
            fn = _stars(pattern.split("*"))
        else:
            fn = re.compile(_translate(pattern, False), re.DOTALL).fullmatch
        _plain[pattern] = fn
    return fn


def _anything(value: str) -> bool:
    return True


def _prefix(prefix: str) -> Callable[[str], object]:
    def starts(value: str) -> bool:
        return value.startswith(prefix)

    return starts


def _stars(parts: list[str]) -> Callable[[str], object]:
    """Whether a whole string matches the literal PARTS joined by `*`s (two parts at least): the first
    starts it, the last ends it, and the others follow in order between them, each taken where it first
    occurs (the earliest place leaves the most room for the rest). What the regular expression would
    say, without compiling one."""
    first, *middle, last = parts
    shortest = len(first) + len(last)

    def match(value: str) -> bool:
        if len(value) < shortest or not value.startswith(first) or not value.endswith(last):
            return False
        at = len(first)
        end = len(value) - len(last)
        for piece in middle:
            found = value.find(piece, at, end)
            if found < 0:
                return False
            at = found + len(piece)
        return True

    return match


def path_matcher(pattern: str) -> Callable[[str], object]:
    """A function telling whether a /-separated path matches the glob PATTERN."""
    fn = _paths.get(pattern)
    if fn is None:
        fn = re.compile(_translate(pattern, True), re.DOTALL).fullmatch
        _paths[pattern] = fn
    return fn


def matches(pattern: str, value: str) -> bool:
    return bool(matcher(pattern)(value))


def any_matches(patterns: list[str] | tuple[str, ...], value: str) -> bool:
    for pattern in patterns:
        if matcher(pattern)(value):
            return True
    return False
