"""Translate a Go (RE2) regular expression, as gitleaks configs write them, into Python `re` syntax.

The two dialects mostly agree; where they differ, the translation keeps Go's meaning:

- `\\d`, `\\w`, `\\s` are ASCII-only in Go, and Go's `\\s` leaves out `\\v`: they become explicit classes.
- `$` outside multi-line mode is the very end of the text in Go (Python's also matches before a final
  newline): it becomes `\\Z`. `\\z` becomes `\\Z`.
- `(?i)` in the middle of a group applies to the rest of that group, across `|`: it becomes scoped
  groups `(?i:...)`, reopened after each `|`.
- `[[:alpha:]]` classes, `\\Q...\\E` and `(?<name>...)` are rewritten; `x{,n}` is a literal in Go.

What has no faithful translation (Unicode classes `\\pL`, octal escapes, the `U` flag...) raises
Unsupported; callers then assume the worst. Compile the result with `re.ASCII`, which makes `\\b`
and case folding ASCII-only as in Go for ASCII text (Go also folds the Kelvin sign and the long s, so
callers that need an exact answer only trust the result on ASCII text).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from re import Pattern


class Unsupported(ValueError):
    """The Go pattern uses something this translator does not reproduce exactly."""


_PERL = {
    "d": "[0-9]", "D": "[^0-9]", "w": "[0-9A-Za-z_]", "W": "[^0-9A-Za-z_]",
    "s": "[\\t\\n\\f\\r ]", "S": "[^\\t\\n\\f\\r ]",
}
_IN_CLASS = {"d": "0-9", "w": "0-9A-Za-z_", "s": "\\t\\n\\f\\r "}
_POSIX = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
    "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z", "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}
_SIMPLE_ESCAPES = set("afnrtv")
_REPEAT = re.compile(r"\{(\d+)(,(\d*))?\}")
_FLAGS = re.compile(r"\(\?([imsU]*)(?:-([imsU]*))?([:)])")
_NAMED = re.compile(r"\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>")


class _Level:
    """One open group: the multi-line flag in force, and the flag groups opened inside it."""

    __slots__ = ("multiline", "pending")

    def __init__(self, multiline: bool) -> None:
        self.multiline = multiline
        self.pending: list[str] = []


def translate(pattern: str) -> str:
    """The Python equivalent of the Go regular expression PATTERN (raises Unsupported)."""
    out: list[str] = []
    stack = [_Level(False)]
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        level = stack[-1]
        if c == "\\":
            text, i = _escape(pattern, i)
            out.append(text)
            continue
        if c == "[":
            text, i = _char_class(pattern, i)
            out.append(text)
            continue
        if c == "(":
            i = _open_group(pattern, i, out, stack)
            continue
        if c == ")":
            if len(stack) == 1:
                raise Unsupported("unbalanced parenthesis")
            out.append(")" * len(level.pending))
            stack.pop()
            out.append(")")
            i += 1
            continue
        if c == "|":
            out.append(")" * len(level.pending))
            out.append("|")
            out.extend(level.pending)
            i += 1
            continue
        if c == "$":
            out.append("$" if level.multiline else "\\Z")
            i += 1
            continue
        if c == "{":
            match = _REPEAT.match(pattern, i)
            if match and match.group(1):
                out.append(match.group(0))
                i = match.end()
            else:
                out.append("\\{")
                i += 1
            continue
        if c == "}":
            out.append("\\}")
            i += 1
            continue
        out.append(c)
        i += 1
    if len(stack) != 1:
        raise Unsupported("unbalanced parenthesis")
    out.append(")" * len(stack[0].pending))
    return "".join(out)


def compile_go(pattern: str) -> Pattern[str]:
    """Translate and compile a Go pattern (raises Unsupported, also for what Python refuses)."""
    import warnings

    python = translate(pattern)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return re.compile(python, re.ASCII)
    except (re.error, OverflowError, RecursionError) as error:
        raise Unsupported(f"{pattern!r} -> {python!r}: {error}") from None


def _open_group(pattern: str, i: int, out: list[str], stack: list[_Level]) -> int:
    level = stack[-1]
    if pattern.startswith("(?:", i):
        out.append("(?:")
        stack.append(_Level(level.multiline))
        return i + 3
    named = _NAMED.match(pattern, i)
    if named:
        out.append(f"(?P<{named.group(1)}>")
        stack.append(_Level(level.multiline))
        return named.end()
    if pattern.startswith("(?", i):
        flags = _FLAGS.match(pattern, i)
        if not flags or "U" in (flags.group(1) + (flags.group(2) or "")):
            raise Unsupported(f"group syntax at {i}: {pattern[i:i + 8]!r}")
        on, off, end = flags.group(1), flags.group(2) or "", flags.group(3)
        if not on and not off:
            raise Unsupported("empty flag group")
        multiline = level.multiline
        if "m" in on:
            multiline = True
        if "m" in off:
            multiline = False
        opener = f"(?{on}-{off}:" if off else f"(?{on}:"
        out.append(opener)
        if end == ":":
            stack.append(_Level(multiline))
        else:
            level.pending.append(opener)
            level.multiline = multiline
        return flags.end()
    out.append("(")
    stack.append(_Level(level.multiline))
    return i + 1


def _escape(pattern: str, i: int) -> tuple[str, int]:
    if i + 1 >= len(pattern):
        raise Unsupported("trailing backslash")
    c = pattern[i + 1]
    if c in _PERL:
        return _PERL[c], i + 2
    if c in "bBA":
        return "\\" + c, i + 2
    if c == "z":
        return "\\Z", i + 2
    if c == "Q":
        end = pattern.find("\\E", i + 2)
        literal = pattern[i + 2:] if end < 0 else pattern[i + 2:end]
        return re.escape(literal), (len(pattern) if end < 0 else end + 2)
    if c == "x":
        return _hex_escape(pattern, i)
    if c in _SIMPLE_ESCAPES:
        return "\\" + c, i + 2
    if c.isalnum() or ord(c) > 0x7F:
        raise Unsupported(f"escape \\{c}")
    return "\\" + c, i + 2


def _hex_escape(pattern: str, i: int) -> tuple[str, int]:
    if pattern.startswith("{", i + 2):
        end = pattern.find("}", i + 3)
        digits = pattern[i + 3:end] if end > 0 else ""
        if not digits or not all(d in "0123456789abcdefABCDEF" for d in digits) or int(digits, 16) > 0x10FFFF:
            raise Unsupported("bad \\x{...} escape")
        return f"\\U{int(digits, 16):08x}", end + 1
    digits = pattern[i + 2:i + 4]
    if len(digits) != 2 or not all(d in "0123456789abcdefABCDEF" for d in digits):
        raise Unsupported("bad \\x escape")
    return "\\x" + digits, i + 4


def _char_class(pattern: str, i: int) -> tuple[str, int]:
    out = ["["]
    j = i + 1
    n = len(pattern)
    if j < n and pattern[j] == "^":
        out.append("^")
        j += 1
    first = True
    while True:
        if j >= n:
            raise Unsupported("unterminated character class")
        c = pattern[j]
        if c == "]" and not first:
            out.append("]")
            return "".join(out), j + 1
        first = False
        if c == "[" and pattern.startswith("[:", j):
            end = pattern.find(":]", j + 2)
            name = pattern[j + 2:end] if end > 0 else ""
            if name not in _POSIX:
                raise Unsupported(f"character class [:{name}:]")
            out.append(_POSIX[name])
            j = end + 2
            continue
        if c == "\\":
            if j + 1 >= n:
                raise Unsupported("trailing backslash")
            e = pattern[j + 1]
            if e in _IN_CLASS:
                out.append(_IN_CLASS[e])
                j += 2
            elif e in "DW":
                out.append("\\" + e)  # with re.ASCII, as in Go: anything but [0-9] / [0-9A-Za-z_]
                j += 2
            elif e == "S":
                out.append("\\S\\x0b")  # Go's \S also takes \v, which Python counts as space
                j += 2
            elif e in "pPQ" or e.isdigit():
                raise Unsupported(f"escape \\{e} in a class")
            elif e == "x":
                text, j = _hex_escape(pattern, j)
                out.append(text)
            elif e in _SIMPLE_ESCAPES or not (e.isalnum() or ord(e) > 0x7F):
                out.append("\\" + e)
                j += 2
            else:
                raise Unsupported(f"escape \\{e} in a class")
            continue
        if c in "[&~|":
            out.append("\\" + c)
        else:
            out.append(c)
        j += 1
