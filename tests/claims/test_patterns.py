"""Claim patterns: normalising, matching, and exact overlap and containment.

The hypothesis tests check the automata against brute force: an independent regex translation of
the pattern language, run over every well-formed path of a small universe.
"""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jouet_git.claims.patterns import (
    PatternError,
    contains,
    covers_below,
    matches,
    normalize,
    overlap,
    witness,
)

OVERLAP_CASES = [
    # (a, b, overlap)
    ("src/*.py", "src/*.rs", False),
    ("src/", "src/a/b.py", True),
    ("**/*.py", "docs/", True),
    ("src/a.py", "src/a.py", True),
    ("src/a.py", "src/b.py", False),
    ("src/a", "src/ab", False),
    ("src/*", "src/a/b.py", False),  # a glob covers exactly what it matches
    ("src/*/", "src/a/b.py", True),  # unless it ends in a slash
    ("src/*/", "src/a.py", True),  # (a.py could be a directory)
    ("src/**/m1*.py", "src/**/m2*.py", False),
    ("**/*.md", "**/*.py", False),
    ("*.py", "src/a.py", False),  # `*` stays within the root directory
    ("**/*.py", "src/a.py", True),
    ("**/*.py", "a.py", True),
    ("src/**", "src/", True),
    ("src/**", "src", False),  # the file src, which src/** does not cover
    ("src/**", "srcx/a", False),
    ("src/**/test_*.py", "src/test_a.py", True),
    ("src/**/test_*.py", "src/x/y/test_b.py", True),
    ("src/**/test_*.py", "src/x/y/b.py", False),  # a plain path is one file
    ("src/**/test_*.py", "src/x/y/b.py/", True),  # a directory covers what is below it
    ("src/a.py", "src/a.py/", True),
    ("src/a", "src/a/b", False),
    ("src/a/", "src/a/b", True),
    ("src/?.py", "src/ab.py", False),
    ("src/?.py", "src/*.py", True),
    ("src/??.py", "src/?.py", False),
    ("a/*b", "a/b*", True),  # a/b, a/bb
    ("a/*.py", "a/*.pyc", False),
    ("a/*.py", "a/x.*", True),
    ("**", "anything/at/all", True),
    ("**", "src/*.py", True),
    ("docs/*.md", "docs/api/", False),
    ("docs/*", "docs/api/", True),  # docs/api itself
    ("docs/*", "docs/api/x.md", False),
    ("src/**.py", "src/a/b.py", True),  # `**` inside a segment crosses directories
    ("src/*.py", "src/a/b.py", False),
    ("a/.?", "a/?.", False),  # only "a/..", which is no path
    ("a/.?", "a/.x", True),
    ("x/*/z", "x/y/z", True),
    ("x/*/z", "x/z", False),  # `*` never matches an empty segment
    ("*/b", "a/*", True),
    ("*/b", "a/c", False),
]


@pytest.mark.parametrize(("a", "b", "expected"), OVERLAP_CASES)
def test_overlap_table(a: str, b: str, expected: bool) -> None:
    assert overlap(a, b) is expected
    assert overlap(b, a) is expected
    found = witness(a, b)
    if expected:
        assert found is not None and oracle(a, found) and oracle(b, found), found
    else:
        assert found is None


CONTAINS_CASES = [
    # (outer, inner, contains)
    ("src/", "src/a.py", True),
    ("src/", "src/*.py", True),
    ("src/*.py", "src/", False),
    ("src/*.py", "src/a.py", True),
    ("src/*.py", "src/a.rs", False),
    ("**", "src/**", True),
    ("src/**", "**", False),
    ("**/*.py", "src/*.py", True),
    ("src/*.py", "**/*.py", False),
    ("src/a", "src/a", True),
    ("src/a", "src/ab", False),
    ("src/a", "src/a/", False),
    ("src/a/", "src/a", True),
    ("src/a/", "src/a/b/", True),
    ("src/**.py", "src/*/x.py", True),
    ("src/*", "src/?", True),
    ("src/?", "src/*", False),
    ("src/*", "src/a/b", False),
    ("src/*/", "src/a/b", True),
    ("src/**", "src/*/", True),
    ("src/*/", "src/**", True),  # the same paths, written two ways
]


@pytest.mark.parametrize(("outer", "inner", "expected"), CONTAINS_CASES)
def test_contains_table(outer: str, inner: str, expected: bool) -> None:
    assert contains(outer, inner) is expected


NORMALIZE_CASES = [
    # (text, base, directory, expected)
    ("src/a.py", "", False, "src/a.py"),
    ("./src//a.py", "", False, "src/a.py"),
    ("a.py", "src", False, "src/a.py"),
    ("../docs/", "src", False, "docs/"),
    (".", "src", False, "src/"),
    ("src", "", True, "src/"),
    (".", "", False, "**"),
    ("**/**/*.py", "", False, "**/*.py"),
    ("src/**/", "", False, "src/**"),
    ("*.py", "src/lib", False, "src/lib/*.py"),
]


@pytest.mark.parametrize(("text", "base", "directory", "expected"), NORMALIZE_CASES)
def test_normalize(text: str, base: str, directory: bool, expected: str) -> None:
    assert normalize(text, base, directory) == expected


@pytest.mark.parametrize("text", ["..", "../x", "a/../../b", "src/*/../a"])
def test_normalize_refuses_leaving(text: str) -> None:
    with pytest.raises(PatternError):
        normalize(text)


def test_only_a_trailing_slash_covers_below() -> None:
    assert covers_below("src/") and covers_below("src/*/")
    assert not covers_below("src/a.py") and not covers_below("src/*.py") and not covers_below("**")


def test_matches_uses_the_same_language() -> None:
    assert matches("src/", "src/a/b.py")
    assert matches("src/*.py", "src/a.py")
    assert not matches("src/*.py", "src/a/b.py")
    assert not matches("src/*", "src/a/b.py")
    assert matches("src/*/", "src/a/b.py")
    assert matches("**/*.py", "a.py")
    assert matches("docs/**", "docs/x")
    assert not matches("docs/**", "docs")


# --- brute force ----------------------------------------------------------------------------------

def oracle_regex(pattern: str) -> re.Pattern[str]:
    """An independent translation of the pattern language, for well-formed paths only."""
    segments = pattern.rstrip("/").split("/")
    out = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            out.append("[^/]+(?:/[^/]+)*" if last else "(?:[^/]+/)*")
            continue
        piece = ""
        for run in re.findall(r"\*+|\?|[^*?]+", segment):
            if run.startswith("*"):
                piece += ".*" if len(run) > 1 else "[^/]*"
            elif run == "?":
                piece += "[^/]"
            else:
                piece += re.escape(run)
        out.append(piece + ("" if last else "/"))
    return re.compile("".join(out) + ("(?:/.*)?" if pattern.endswith("/") else ""), re.DOTALL)


def oracle(pattern: str, path: str) -> bool:
    return oracle_regex(pattern).fullmatch(path) is not None


def _segments(max_len: int) -> list[str]:
    words = ["".join(p) for n in range(1, max_len + 1) for p in itertools.product("ab.", repeat=n)]
    return [w for w in words if w not in (".", "..")]


UNIVERSE = (
    _segments(3)
    + ["/".join(p) for p in itertools.product(_segments(3), repeat=2)]
    + ["/".join(p) for p in itertools.product(_segments(2), repeat=3)]
)

token = st.sampled_from(["a", "b", ".", "*", "?", "**", "ab", "a."])
segment = st.one_of(st.just("**"), st.lists(token, min_size=1, max_size=3).map("".join))
pattern_st = st.tuples(st.lists(segment, min_size=1, max_size=3), st.booleans()).map(
    lambda parts: "/".join(parts[0]) + ("/" if parts[1] else "")
).filter(lambda text: all(s not in (".", "..") for s in text.rstrip("/").split("/"))).map(normalize)


@settings(max_examples=300, deadline=None)
@given(pattern_st, pattern_st)
def test_overlap_agrees_with_brute_force(a: str, b: str) -> None:
    regex_a, regex_b = oracle_regex(a), oracle_regex(b)
    both = [p for p in UNIVERSE if regex_a.fullmatch(p) and regex_b.fullmatch(p)]
    result = overlap(a, b)
    assert result is overlap(b, a)
    if both:
        assert result, f"{a!r} and {b!r} both cover {both[0]!r}"
    found = witness(a, b)
    assert (found is not None) is result
    if found is not None:
        # The witness is a well-formed path that both patterns cover.
        assert all(s not in ("", ".", "..") for s in found.split("/")), found
        assert regex_a.fullmatch(found) and regex_b.fullmatch(found), (a, b, found)


@settings(max_examples=300, deadline=None)
@given(pattern_st, pattern_st)
def test_contains_agrees_with_brute_force(outer: str, inner: str) -> None:
    regex_out, regex_in = oracle_regex(outer), oracle_regex(inner)
    counter = next((p for p in UNIVERSE if regex_in.fullmatch(p) and not regex_out.fullmatch(p)), None)
    if counter is not None:
        assert not contains(outer, inner), f"{inner!r} covers {counter!r}, which {outer!r} does not"
    if contains(outer, inner):
        assert counter is None
        assert overlap(outer, inner) or witness(inner, inner) is None


@settings(max_examples=200, deadline=None)
@given(pattern_st)
def test_matches_agrees_with_the_oracle(pattern: str) -> None:
    regex = oracle_regex(pattern)
    for path in UNIVERSE:
        assert matches(pattern, path) == bool(regex.fullmatch(path)), (pattern, path)
