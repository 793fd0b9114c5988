"""Strings a regular expression's every match holds, to skip it on text that holds none of them.

    needles(r"(\\bimport|\\bfrom)\\s+jouet_git\\b")    # ("jouet_git",)
    needles(r"^-[A-Za-z]*m(pip)?$")                 # ("m",)
    needles(r"(?i)token")                           # None: a match may be written in any case

A rule's `text` pattern runs on every word of a command and on its here-documents: looking for a
string is one scan in C, where compiling the pattern and searching a 2 KB here-document with it cost
about a thousand times more. When none of the needles occurs in a text, the pattern cannot match it;
when one does, the pattern decides as before. So the answer never changes, only its cost.

The needles come from the pattern as Python's own parser reads it (re._parser, which re.compile runs
too): the longest run of plain characters that a match must contain, or, for a choice between
alternatives, one such run for each of them. A pattern whose matches need no plain character, or
that ignores case anywhere, has none (None), and is always run.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_cache: dict[str, tuple[str, ...] | None] = {}


def needles(pattern: str) -> tuple[str, ...] | None:
    """Strings one of which every match of PATTERN holds; None when that cannot be told."""
    try:
        return _cache[pattern]
    except KeyError:
        pass
    found: tuple[str, ...] | None = None
    try:
        import sys

        parser: Any = sys.modules["re._parser"]  # loaded with re (its compiler's parser)
        parsed = parser.parse(pattern)
        if not parsed.state.flags & parser.SRE_FLAG_IGNORECASE:
            best = _required(parsed.data, parser)
            if best:
                found = tuple(sorted(best))
    except Exception:  # an odd pattern (or another Python's parser): always run it
        found = None
    if len(_cache) < 4096:
        _cache[pattern] = found
    return found


def _required(items: Any, parser: Any) -> set[str] | None:
    """For a sequence of parsed items: the best set of strings one of which each match holds (its
    shortest member the longest), or None."""
    best: set[str] | None = None
    run: list[str] = []

    def consider(candidate: set[str] | None) -> None:
        nonlocal best
        if candidate and all(candidate) and (best is None or min(map(len, candidate)) > min(map(len, best))):
            best = candidate

    for op, av in items:
        if op is parser.LITERAL:
            run.append(chr(av))
            continue
        if run:
            consider({"".join(run)})
            run = []
        if op is parser.SUBPATTERN:
            _group, add_flags, _del_flags, sub = av
            if not add_flags & parser.SRE_FLAG_IGNORECASE:
                consider(_required(sub.data, parser))
        elif op is parser.BRANCH:
            merged: set[str] = set()
            for alternative in av[1]:
                required = _required(alternative.data, parser)
                if not required:
                    break
                merged |= required
            else:
                consider(merged)
        elif op in (parser.MAX_REPEAT, parser.MIN_REPEAT, getattr(parser, "POSSESSIVE_REPEAT", None)):
            low, _high, sub = av
            if low >= 1:
                consider(_required(sub.data, parser))
        # Anything else (a class, any character, an assertion, a back reference) requires no given
        # string, and ends the run of plain characters.
    if run:
        consider({"".join(run)})
    return best
