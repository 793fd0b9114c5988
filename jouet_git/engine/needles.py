"""Strings a regular expression's every match holds, to skip it on text that holds none of them.

    needles(r"(\\bimport|\\bfrom)\\s+jouet_git\\b")              # ("jouet_git",)
    needles(r"^-[A-Za-z]*m(pip)?$")                           # ("-",)
    needles(r"(?i)^core\\.hookspath=")                         # None: a match may be in any case
    needles(r"(?i)^core\\.hookspath=", fold=True)              # ("core.hookspath=",): in the
                                                              # lower case of an ASCII text

A rule's `text` pattern runs on every word of a command and on its here-documents: looking for a
string is one scan in C, where compiling the pattern and searching a 2 KB here-document with it cost
about a thousand times more. When none of the needles occurs in a text, the pattern cannot match it;
when one does, the pattern decides as before. So the answer never changes, only its cost. The
needles of the built-in rules are made with the package (engine/prebuilt.py); this module is not on
the hook path.

The needles come from the pattern as Python's own parser reads it (re._parser, which re.compile runs
too): the longest run of plain characters that a match must contain, or, for a choice between
alternatives, one such run for each of them. With FOLD, the pattern's case is ignored and the
needles are lower case: a match in an ASCII text (where ignoring case is only upper against lower
case) holds one of them in the text's lower case. A pattern whose matches need no plain character,
or that ignores case anywhere (without FOLD), or whose needles are not ASCII (with FOLD), has none
(None), and is always run.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.engine.model import Rule


def needles(pattern: str, fold: bool = False) -> tuple[str, ...] | None:
    """Strings one of which every match of PATTERN holds (with FOLD: in lower case, see the module
    docstring); None when that cannot be told."""
    try:
        from importlib import import_module

        parser: Any = import_module("re._parser")  # what re.compile reads a pattern with
        parsed = parser.parse(pattern)
        if not fold and parsed.state.flags & parser.SRE_FLAG_IGNORECASE:
            return None
        best = _required(parsed.data, parser, fold)
    except Exception:  # an odd pattern (or another Python's parser): always run it
        return None
    if not best:
        return None
    if fold:
        if not all(needle.isascii() for needle in best):
            return None
        best = {needle.lower() for needle in best}
    return tuple(sorted(best))


def _required(items: Any, parser: Any, fold: bool) -> set[str] | None:
    """For a sequence of parsed items: the best set of strings one of which each match holds (its
    shortest member the longest), or None."""
    best: set[str] | None = None
    run: list[str] = []

    def consider(candidate: set[str] | None) -> None:
        # the longest shortest member wins; between equals, the fewer strings
        nonlocal best
        if candidate and all(candidate) and (best is None or (min(map(len, candidate)), -len(candidate))
                                             > (min(map(len, best)), -len(best))):
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
            if fold or not add_flags & parser.SRE_FLAG_IGNORECASE:
                consider(_required(sub.data, parser, fold))
        elif op is parser.BRANCH:
            merged: set[str] = set()
            for alternative in av[1]:
                required = _required(alternative.data, parser, fold)
                if not required:
                    break
                merged |= required
            else:
                consider(merged)
        elif op in (parser.MAX_REPEAT, parser.MIN_REPEAT, getattr(parser, "POSSESSIVE_REPEAT", None)):
            low, _high, sub = av
            if low >= 1:
                consider(_required(sub.data, parser, fold))
        elif op is parser.IN and 0 < len(av) <= 8 and all(kind is parser.LITERAL for kind, _ in av):
            consider({chr(code) for _, code in av})  # a class of a few characters: one of them
        # Anything else (a wider class, any character, an assertion, a back reference) requires no
        # given string, and ends the run of plain characters.
    if run:
        consider({"".join(run)})
    return best


def rule_needles(rules: list[Rule]) -> dict[str, Any]:
    """For each `text` pattern of RULES that has them, the strings one of its matches must hold
    (engine/needles.py): a call's text holding none of them is never searched with the pattern.
    `exact`: needles in the text as it is; `folded`: lower-case needles of a pattern that ignores
    case, in the lower case of an ASCII text."""
    exact: dict[str, tuple[str, ...]] = {}
    folded: dict[str, tuple[str, ...]] = {}
    matchers = [m for rule in rules for m in rule.data.get("match") or () if isinstance(m, dict)]
    while matchers:
        matcher = matchers.pop()
        for key in ("with", "unless_with"):
            if isinstance(matcher.get(key), dict):
                matchers.append(matcher[key])
        for pattern in matcher.get("text") or ():
            if not isinstance(pattern, str):
                continue
            found = needles(pattern)
            if found:
                exact[pattern] = found
                continue
            found = needles(pattern, fold=True)
            if found:
                folded[pattern] = found
    return {"exact": exact, "folded": folded}
