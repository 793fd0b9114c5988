"""Claim patterns: normalising them, matching paths, and deciding exactly whether two overlap.

A pattern is a path relative to the repository root, written with `/`:

    src/parser.py     exactly one file
    src/parser/       a directory and everything below it
    src/*.py          `*` is any run of characters within one path segment
    src/?.py          `?` is one character other than `/`
    **/*.py           `**` as a whole segment is zero or more directories
    docs/**           everything below docs/
    src/**.py         `**` inside a segment is any run of characters, `/` included
    src/*/            a trailing slash makes any pattern cover everything below what it matches
    **                the whole repository

Without a trailing slash a pattern covers exactly the paths it matches: `src/*` is the entries
directly in src, not `src/a/b.py`, and `**/*.md` does not overlap `**/*.py` (were `x.md` a
directory, the two could meet inside it, but no claim means that). There are no character classes
and no escapes: `[`, `]` and `\\` are ordinary characters.

Two patterns overlap when some path (a real one: non-empty segments, none of them `.` or `..`)
is covered by both. `overlap` decides it exactly by walking the product of the two patterns'
automata with a third one that accepts only well-formed paths; `contains` decides whether one
pattern covers everything another does. Both are exact, not heuristics, and cheap for the short
patterns people write.

This module is on the hook's hot path (the claims probe): it imports only `re`.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeAlias

    # A set of characters: (negated, chars). (False, {"a"}) is just "a"; (True, {"/"}) is any
    # character but "/"; (True, set()) is any character at all.
    Label: TypeAlias = tuple[bool, frozenset[str]]

ROOT = "**"
GLOB_CHARS = ("*", "?")


class PatternError(ValueError):
    """A pattern that cannot be a claim (it leaves the repository, or says nothing)."""


def is_glob(text: str) -> bool:
    """Whether TEXT has wildcards (`*` or `?`)."""
    return "*" in text or "?" in text


def normalize(text: str, base: str = "", directory: bool = False) -> str:
    """TEXT (relative to BASE, itself relative to the repository root) as a root-relative pattern.

    `.` segments and repeated slashes go, `..` climbs (never above the root, never out of a
    wildcard segment), runs of `**` segments collapse. A trailing `/` in TEXT, or DIRECTORY, marks a
    directory and is kept for show. The root itself is `**`. Raises PatternError.
    """
    if "\0" in text:
        raise PatternError("a path cannot contain a NUL character")
    joined = f"{base}/{text}" if base and not text.startswith("/") else text
    trailing = directory or joined.endswith("/") or text in (".", "..") or text.endswith(("/.", "/.."))
    parts: list[str] = []
    for segment in joined.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if not parts:
                raise PatternError(f"'{text}' is outside the repository")
            if is_glob(parts[-1]):
                raise PatternError(f"'{text}' climbs out of a wildcard segment ('{parts[-1]}/..')")
            parts.pop()
            continue
        if segment == "**" and parts and parts[-1] == "**":
            continue
        parts.append(segment)
    if not parts or parts == ["**"]:
        return ROOT
    pattern = "/".join(parts)
    if trailing and parts[-1] != "**":
        pattern += "/"
    return pattern


def covers_below(pattern: str) -> bool:
    """Whether PATTERN covers what lies below the paths it matches: a pattern written with a
    trailing slash (a directory) does; any other covers exactly what it matches."""
    return pattern.endswith("/")


# --- atoms: the pattern as a sequence of pieces, shared by the regex and the automaton ------------

# Atom kinds.
_LIT = 0  # one literal character
_ONE = 1  # `?`: one character but "/"
_STAR = 2  # `*`: any run of characters but "/"
_ANY = 3  # `**` inside a segment: any run of characters
_DIRS = 4  # leading or middle `**/`: nothing, or anything ending in "/"
_PLUS = 5  # trailing `/**` (after its slash) or the whole pattern `**`: one character or more
_BELOW = 6  # what every pattern adds: nothing, or "/" and anything


def _atoms(pattern: str) -> list[tuple[int, str]]:
    segments = pattern.rstrip("/").split("/")
    atoms: list[tuple[int, str]] = []
    last = len(segments) - 1
    for index, segment in enumerate(segments):
        if segment == "**":
            if index == last:
                atoms.append((_PLUS, ""))
            else:
                atoms.append((_DIRS, ""))
            continue
        i = 0
        while i < len(segment):
            char = segment[i]
            if char == "*":
                run = 1
                while i + run < len(segment) and segment[i + run] == "*":
                    run += 1
                atoms.append((_ANY if run > 1 else _STAR, ""))
                i += run
                continue
            atoms.append((_ONE, "") if char == "?" else (_LIT, char))
            i += 1
        if index != last:
            atoms.append((_LIT, "/"))
    if covers_below(pattern):
        atoms.append((_BELOW, ""))
    return atoms


# --- matching one path ----------------------------------------------------------------------------

_REGEX_CACHE: dict[str, re.Pattern[str]] = {}
_REGEX_PIECES = {
    _ONE: "[^/]", _STAR: "[^/]*", _ANY: ".*", _DIRS: "(?:.*/)?", _PLUS: ".+", _BELOW: "(?:/.*)?",
}


def _regex(pattern: str) -> re.Pattern[str]:
    compiled = _REGEX_CACHE.get(pattern)
    if compiled is None:
        body = "".join(re.escape(text) if kind == _LIT else _REGEX_PIECES[kind]
                       for kind, text in _atoms(pattern))
        compiled = re.compile(body, re.DOTALL)
        _REGEX_CACHE[pattern] = compiled
    return compiled


def matches(pattern: str, path: str) -> bool:
    """Whether PATTERN covers PATH (a normalised path relative to the root, no trailing slash)."""
    return _regex(pattern).fullmatch(path) is not None


# --- automata -------------------------------------------------------------------------------------

_SLASH: Label = (False, frozenset("/"))
_DOT: Label = (False, frozenset("."))
_NOT_SLASH: Label = (True, frozenset("/"))
_EVERY: Label = (True, frozenset())
_OTHER: Label = (True, frozenset("/."))


def _meet(a: Label, b: Label) -> Label | None:
    """The characters in both A and B, or None when there are none."""
    a_neg, a_chars = a
    b_neg, b_chars = b
    if a_neg and b_neg:
        return (True, a_chars | b_chars)
    if a_neg:
        chars = b_chars - a_chars
    elif b_neg:
        chars = a_chars - b_chars
    else:
        chars = a_chars & b_chars
    return (False, chars) if chars else None


def _has(label: Label, char: str) -> bool:
    negated, chars = label
    return (char not in chars) if negated else (char in chars)


def _sample(label: Label) -> str:
    """One character of LABEL, preferring readable ones (for witnesses)."""
    negated, chars = label
    if not negated:
        return min(chars)
    for char in "abcdefghijklmnopqrstuvwxyz0123456789_-":
        if char not in chars:
            return char
    code = 0xA1
    while chr(code) in chars:
        code += 1
    return chr(code)


# The well-formed paths, as a DFA: segments are non-empty and never "." or "..".
# States: 0 at a segment's start, 1 after ".", 2 after "..", 3 inside an ordinary segment.
_VALID_ACCEPT = 3
_VALID: tuple[tuple[tuple[Label, int], ...], ...] = (
    ((_DOT, 1), (_OTHER, 3)),
    ((_DOT, 2), (_OTHER, 3)),
    ((_DOT, 3), (_OTHER, 3)),
    ((_DOT, 3), (_OTHER, 3), (_SLASH, 0)),
)


class _Nfa:
    """An epsilon-free automaton: moves[state] lists (label, next state); state 0 is the start."""

    __slots__ = ("accept", "moves")

    def __init__(self, moves: list[list[tuple[Label, int]]], accept: list[bool]) -> None:
        self.moves = moves
        self.accept = accept


_NFA_CACHE: dict[str, _Nfa] = {}


def _nfa(pattern: str) -> _Nfa:
    cached = _NFA_CACHE.get(pattern)
    if cached is not None:
        return cached
    atoms = _atoms(pattern)
    count = len(atoms) + 1  # state i is "about to read atom i"; the last one accepts
    moves: list[list[tuple[Label, int]]] = [[] for _ in range(count)]
    empty: list[list[int]] = [[] for _ in range(count)]

    def extra() -> int:
        moves.append([])
        empty.append([])
        return len(moves) - 1

    for i, (kind, text) in enumerate(atoms):
        after = i + 1
        if kind == _LIT:
            moves[i].append(((False, frozenset(text)), after))
        elif kind == _ONE:
            moves[i].append((_NOT_SLASH, after))
        elif kind in (_STAR, _ANY):
            moves[i].append((_NOT_SLASH if kind == _STAR else _EVERY, i))
            empty[i].append(after)
        elif kind == _DIRS:
            inside = extra()
            empty[i].append(after)
            moves[i].append((_SLASH, after))
            moves[i].append((_EVERY, inside))
            moves[inside].append((_EVERY, inside))
            moves[inside].append((_SLASH, after))
        elif kind == _PLUS:
            inside = extra()
            moves[i].append((_EVERY, inside))
            moves[inside].append((_EVERY, inside))
            empty[inside].append(after)
        else:  # _BELOW
            inside = extra()
            empty[i].append(after)
            moves[i].append((_SLASH, inside))
            moves[inside].append((_EVERY, inside))
            empty[inside].append(after)
    final = len(atoms)

    def closure(state: int) -> set[int]:
        seen = {state}
        stack = [state]
        while stack:
            for target in empty[stack.pop()]:
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
        return seen

    closed_moves: list[list[tuple[Label, int]]] = []
    accept: list[bool] = []
    for state in range(len(moves)):
        reach = closure(state)
        closed_moves.append([move for s in sorted(reach) for move in moves[s]])
        accept.append(final in reach)
    result = _Nfa(closed_moves, accept)
    _NFA_CACHE[pattern] = result
    return result


def _plain(pattern: str) -> tuple[str, bool] | None:
    """(path, is a directory) for a pattern without wildcards, else None."""
    if is_glob(pattern):
        return None
    return pattern.rstrip("/"), pattern.endswith("/")


def witness(a: str, b: str) -> str | None:
    """A well-formed path covered by both patterns (a shortest one), or None when they are disjoint."""
    nfa_a = _nfa(a)
    nfa_b = _nfa(b)
    start = (0, 0, 0)
    parent: dict[tuple[int, int, int], tuple[tuple[int, int, int], str] | None] = {start: None}
    queue = [start]
    head = 0
    while head < len(queue):
        state = queue[head]
        head += 1
        p, q, v = state
        if nfa_a.accept[p] and nfa_b.accept[q] and v == _VALID_ACCEPT:
            chars: list[str] = []
            step = parent[state]
            while step is not None:
                state, char = step
                chars.append(char)
                step = parent[state]
            return "".join(reversed(chars))
        for label_a, next_p in nfa_a.moves[p]:
            for label_b, next_q in nfa_b.moves[q]:
                both = _meet(label_a, label_b)
                if both is None:
                    continue
                for label_v, next_v in _VALID[v]:
                    all_three = _meet(both, label_v)
                    if all_three is None:
                        continue
                    target = (next_p, next_q, next_v)
                    if target not in parent:
                        parent[target] = ((p, q, v), _sample(all_three))
                        queue.append(target)
    return None


def overlap(a: str, b: str) -> bool:
    """Whether some path is covered by both patterns (`src/` and `src/a.py` overlap;
    `src/*.py` and `src/*.rs` do not)."""
    plain_a = _plain(a)
    plain_b = _plain(b)
    if plain_a is not None and plain_b is not None:
        (path_a, dir_a), (path_b, dir_b) = plain_a, plain_b
        return (path_a == path_b or (dir_a and path_b.startswith(path_a + "/"))
                or (dir_b and path_a.startswith(path_b + "/")))
    return witness(a, b) is not None


def contains(outer: str, inner: str) -> bool:
    """Whether OUTER covers every path INNER covers (`src/` contains `src/*.py`; not the reverse)."""
    plain_outer = _plain(outer)
    plain_inner = _plain(inner)
    if plain_outer is not None and plain_inner is not None:
        (path_out, dir_out), (path_in, dir_in) = plain_outer, plain_inner
        if dir_out:
            return path_in == path_out or path_in.startswith(path_out + "/")
        return path_in == path_out and not dir_in
    nfa_in = _nfa(inner)
    nfa_out = _nfa(outer)
    # Walk INNER's automaton alongside the determinised OUTER one; a well-formed path INNER accepts
    # where no OUTER state accepts is a counterexample.
    start = (0, frozenset((0,)), 0)
    seen = {start}
    stack = [start]
    while stack:
        p, qs, v = stack.pop()
        if nfa_in.accept[p] and v == _VALID_ACCEPT and not any(nfa_out.accept[q] for q in qs):
            return False
        out_moves = [move for q in qs for move in nfa_out.moves[q]]
        named: set[str] = set()
        for (_, chars), _target in out_moves:
            named |= chars
        for label_in, next_p in nfa_in.moves[p]:
            for label_v, next_v in _VALID[v]:
                step = _meet(label_in, label_v)
                if step is None:
                    continue
                # Characters OUTER tells apart: each named one alone, then all the rest together.
                negated, chars = step
                classes: list[str | None] = [c for c in sorted(chars | named if negated else chars)
                                             if _has(step, c)]
                if negated:
                    classes.append(None)
                for char in classes:
                    if char is None:
                        next_qs = frozenset(t for (neg, _), t in out_moves if neg)
                    else:
                        next_qs = frozenset(t for label, t in out_moves if _has(label, char))
                    target = (next_p, next_qs, next_v)
                    if target not in seen:
                        seen.add(target)
                        stack.append(target)
    return True
