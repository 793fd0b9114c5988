"""Expansions whose values are known from earlier in the same call: `${...}` operators and field
splitting. Pure functions; the reader keeps the variables and calls these.

A value is a string, or a list of strings for an array (and for $@). Values the reader does not
know are None, and the expansion then stays as written.

Imported by the reader only when an expansion has a known value.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    Value = str | list[str]
    # name -> its value, or None when it is not known.
    Lookup = Callable[[str], "Value | None"]

# Kinds of the pieces of a word, for field splitting.
LITERAL = 0  # text as written (quote removal done): never split
SPLIT = 1  # an unquoted expansion: split on IFS
QUOTED = 2  # a quoted expansion: never split
LIST_SPLIT = 3  # an unquoted ${a[@]} or $@: each element split, elements apart
LIST_QUOTED = 4  # "${a[@]}" or "$@": one field per element

DEFAULT_IFS = " \t\n"
# Pattern operations on longer values are not worked out (each tries every prefix or suffix).
MAX_PATTERN_VALUE = 256
# Patterns with more stars than this are not worked out (matching them can backtrack).
MAX_STARS = 2

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def fields(pieces: list[tuple[Value, int]], ifs: str, quoted: bool) -> list[str]:
    """The fields a word made of pieces gives after field splitting (quoted: the word has quotes,
    so it gives one field even when everything in it is empty)."""
    out: list[str] = []
    cur: list[str] = []
    have = False
    white = "".join(c for c in ifs if c in " \t\n")
    other = "".join(c for c in ifs if c not in " \t\n")

    def split(text: str) -> None:
        nonlocal cur, have
        if not other:
            # Whitespace only (the default IFS): split at C speed.
            if not text:
                return
            words = [w for w in re.split("[" + re.escape(white) + "]+", text) if w] if white else [text]
            if text[0] in white and have:
                out.append("".join(cur))
                cur = []
                have = False
            for k, word in enumerate(words):
                if k:
                    out.append("".join(cur))
                    cur = []
                cur.append(word)
                have = True
            if text[-1] in white and have:
                out.append("".join(cur))
                cur = []
                have = False
            return
        j = 0
        n = len(text)
        while j < n:
            c = text[j]
            if c in white:
                if have:
                    out.append("".join(cur))
                    cur = []
                    have = False
                j += 1
            elif c in other:
                out.append("".join(cur))
                cur = []
                have = False
                j += 1
                while j < n and text[j] in white:
                    j += 1
            else:
                cur.append(c)
                have = True
                j += 1

    for value, kind in pieces:
        if kind in (LITERAL, QUOTED):
            text = value if isinstance(value, str) else " ".join(value)
            if text:
                cur.append(text)
                have = True
            elif kind == QUOTED:
                have = True
        elif kind == SPLIT:
            split(value if isinstance(value, str) else " ".join(value))
        else:
            items = [value] if isinstance(value, str) else value
            for k, item in enumerate(items):
                if k:
                    if have or kind == LIST_QUOTED:
                        out.append("".join(cur))
                    cur = []
                    have = False
                if kind == LIST_QUOTED:
                    cur.append(item)
                    have = True
                else:
                    split(item)
    if have:
        out.append("".join(cur))
    if not out and quoted and not any(k in (LIST_QUOTED, LIST_SPLIT) for _, k in pieces):
        out.append("")
    return out


def joined(value: Value, ifs: str = DEFAULT_IFS) -> str:
    """A value as one string (an array joined as "${a[*]}" joins it)."""
    if isinstance(value, str):
        return value
    return (ifs[:1] if ifs else "").join(value)


def param(inner: str, lookup: Lookup, assign: Callable[[str, str], None]) -> Value | None:
    """The value of `${inner}`, or None when it is not known."""
    if not inner:
        return None
    if inner[0] == "#" and len(inner) > 1:
        target = _reference(inner[1:], lookup)
        if target is None or target[1] != len(inner) - 1:
            return None
        value = target[0]
        if value is None:
            return None
        return str(len(value)) if isinstance(value, list) and target[2] else str(len(joined(value)))
    if inner[0] == "!":
        ref = _reference(inner[1:], lookup)
        if ref is None or ref[1] != len(inner) - 1 or not isinstance(ref[0], str):
            return None
        if not _NAME.fullmatch(ref[0]):
            return None
        got = lookup(ref[0])
        return got
    ref = _reference(inner, lookup)
    if ref is None:
        return None
    value, end, whole = ref
    rest = inner[end:]
    name = inner[:end]
    if not rest:
        return value
    if rest[0] == ":" and (len(rest) == 1 or rest[1] not in "-=+?"):
        return _substring(value, rest[1:], whole)
    colon = rest[0] == ":"
    op_text = rest[1:] if colon else rest
    if op_text and op_text[0] in "-=+?":
        op, word = op_text[0], op_text[1:]
        empty = value is None or (joined(value) == "" if colon else False)
        unset = value is None
        if op in "-=":
            if value is not None and not (colon and joined(value) == ""):
                return value
            got = operand(word, lookup)
            if got is not None and op == "=" and _NAME.fullmatch(name):
                assign(name, got)
            return got
        if op == "+":
            if unset:
                return None
            if empty:
                return ""
            return operand(word, lookup)
        return value  # ${x:?msg}: the value, or the shell stops
    if value is None:
        return None
    if rest[0] in "#%":
        return _each(value, lambda v: _trim(v, rest, lookup))
    if rest[0] == "/":
        return _each(value, lambda v: _replace(v, rest[1:], lookup))
    if rest[0] in "^,~":
        return _each(value, lambda v: _case(v, rest))
    if rest[0] == "@" and len(rest) == 2:
        return _each(value, lambda v: _transform(v, rest[1]))
    return None


def _reference(text: str, lookup: Lookup) -> tuple[Value | None, int, bool] | None:
    """The parameter text starts with: (its value, where its name ends, whether it is a whole
    array such as a[@]); None when text does not start with a parameter."""
    m = _NAME.match(text)
    if m is None:
        if text and (text[0].isdigit() or text[0] in "@*#?$!-"):
            if text[0].isdigit():
                k = 1
                while k < len(text) and text[k].isdigit():
                    k += 1
                return lookup(text[:k]), k, False
            value = lookup(text[0]) if text[0] in "@*#" else None
            return value, 1, text[0] in "@*"
        return None
    end = m.end()
    name = m.group()
    value = lookup(name)
    if end < len(text) and text[end] == "[":
        close = text.find("]", end)
        if close < 0:
            return None
        index = text[end + 1 : close]
        if index in ("@", "*"):
            if value is None:
                return None, close + 1, True
            items = value if isinstance(value, list) else [value]
            return (list(items) if index == "@" else joined(items)), close + 1, index == "@"
        if not index.lstrip("-").isdigit() or value is None:
            return None, close + 1, False
        items = value if isinstance(value, list) else [value]
        k = int(index)
        if -len(items) <= k < len(items):
            return items[k], close + 1, False
        return "", close + 1, False
    if isinstance(value, list):
        value = value[0] if value else ""
    return value, end, False


def _each(value: Value, how: Callable[[str], str | None]) -> Value | None:
    if isinstance(value, str):
        return how(value)
    out: list[str] = []
    for item in value:
        got = how(item)
        if got is None:
            return None
        out.append(got)
    return out


def _substring(value: Value | None, spec: str, whole: bool) -> Value | None:
    if value is None:
        return None
    offset_text, colon, length_text = spec.partition(":")
    try:
        offset = int(offset_text.strip() or "0")
        length = int(length_text.strip()) if colon else None
    except ValueError:
        return None
    if isinstance(value, list) and whole:
        items = value[offset:] if offset >= 0 else value[len(value) + offset :]
        if length is not None:
            if length < 0:
                return None
            items = items[:length]
        return items
    text = joined(value)
    if offset < 0 and -offset > len(text):
        return ""  # bash gives nothing for an offset before the start
    start = offset if offset >= 0 else len(text) + offset
    if length is None:
        return text[start:]
    end = start + length if length >= 0 else len(text) + length
    return text[start:end] if end >= start else None


def operand(word: str, lookup: Lookup) -> str | None:
    """The value of the word in `${x:-word}` and kin: quotes removed, $name and ${...} looked up;
    None when it holds a command substitution or anything not known."""
    out: list[str] = []
    i = 0
    n = len(word)
    in_dq = False
    while i < n:
        c = word[i]
        if c == "\\" and i + 1 < n:
            out.append(word[i + 1])
            i += 2
        elif c == "'" and not in_dq:
            j = word.find("'", i + 1)
            if j < 0:
                return None
            out.append(word[i + 1 : j])
            i = j + 1
        elif c == '"':
            in_dq = not in_dq
            i += 1
        elif c == "`":
            return None
        elif c == "$":
            if word.startswith("$(", i) or word.startswith("$[", i):
                return None
            if word.startswith("${", i):
                depth = 0
                j = i + 1
                while j < n:
                    if word[j] == "{":
                        depth += 1
                    elif word[j] == "}":
                        depth -= 1
                        if depth == 0:
                            break
                    j += 1
                if j >= n:
                    return None
                got = param(word[i + 2 : j], lookup, lambda _n, _v: None)
                i = j + 1
            else:
                m = _NAME.match(word, i + 1)
                if m is None:
                    out.append("$")
                    i += 1
                    continue
                got = lookup(m.group())
                i = m.end()
            if got is None:
                return None
            out.append(joined(got))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def glob_regex(pattern: str, lazy: bool = False) -> str | None:
    """A shell pattern as the source of a regular expression (quoted parts literal; `*` lazy when
    asked), or None when it cannot be."""
    out: list[str] = []
    star = ".*?" if lazy else ".*"
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif c in "'\"":
            j = pattern.find(c, i + 1)
            if j < 0:
                return None
            out.append(re.escape(pattern[i + 1 : j]))
            i = j + 1
        elif c == "*":
            out.append(star)
            i += 1
        elif c == "?":
            out.append(".")
            i += 1
        elif c == "[":
            j = pattern.find("]", i + 2)
            if j < 0:
                out.append(re.escape(c))
                i += 1
                continue
            body = pattern[i + 1 : j]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = j + 1
        elif c == "$":
            return None
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _pattern(text: str, lookup: Lookup, lazy: bool = False) -> re.Pattern[str] | None:
    """A pattern operand compiled: its $name references looked up (their values literal)."""
    if "$" in text:
        value = operand(text, lookup)
        source = None if value is None else re.escape(value)
    elif text.count("*") > MAX_STARS:
        return None
    else:
        source = glob_regex(text, lazy)
    if source is None:
        return None
    try:
        return re.compile("(?:" + source + ")", re.DOTALL)
    except re.error:
        return None


def _trim(value: str, rest: str, lookup: Lookup) -> str | None:
    """${x#p}, ${x##p}, ${x%p}, ${x%%p}: the shortest or longest matching prefix or suffix cut."""
    if len(value) > MAX_PATTERN_VALUE:
        return None
    longest = len(rest) > 1 and rest[1] == rest[0]
    text = rest[2 if longest else 1 :]
    pattern = _pattern(text, lookup, lazy=not longest)
    if pattern is None:
        return None
    if rest[0] == "#":
        m = pattern.match(value)
        return value[m.end() :] if m else value
    if longest:
        for start in range(len(value) + 1):
            if pattern.fullmatch(value, start):
                return value[:start]
        return value
    for start in range(len(value), -1, -1):
        if pattern.fullmatch(value, start):
            return value[:start]
    return value


def _replace(value: str, spec: str, lookup: Lookup) -> str | None:
    """${x/p/r}, ${x//p/r}, ${x/#p/r}, ${x/%p/r}."""
    if len(value) > MAX_PATTERN_VALUE:
        return None
    every = spec.startswith("/")
    anchor = spec[0] if spec[:1] in ("#", "%") else ""
    if every or anchor:
        spec = spec[1:]
    pattern_text, _, repl_text = _split_unescaped(spec, "/")
    if not pattern_text:
        return value
    pattern = _pattern(pattern_text, lookup)
    repl = operand(repl_text, lookup)
    if pattern is None or repl is None:
        return None
    if anchor == "#":
        m = pattern.match(value)
        return repl + value[m.end() :] if m else value
    if anchor == "%":
        for start in range(len(value) + 1):
            if pattern.fullmatch(value, start):
                return value[:start] + repl
        return value
    return pattern.sub(lambda _m: repl, value, count=0 if every else 1)


def _split_unescaped(text: str, sep: str) -> tuple[str, str, str]:
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == sep:
            return text[:i], sep, text[i + 1 :]
        i += 1
    return text, "", ""


def _case(value: str, op: str) -> str | None:
    if op in ("^^", "^"):
        return value.upper() if op == "^^" else value[:1].upper() + value[1:]
    if op in (",,", ","):
        return value.lower() if op == ",," else value[:1].lower() + value[1:]
    if op in ("~~", "~"):
        return value.swapcase() if op == "~~" else value[:1].swapcase() + value[1:]
    return None  # a pattern after the operator: not worth guessing


def _transform(value: str, op: str) -> str | None:
    if op == "U":
        return value.upper()
    if op == "L":
        return value.lower()
    if op == "u":
        return value[:1].upper() + value[1:]
    if op == "Q":
        return "'" + value.replace("'", "'\\''") + "'"
    return None
