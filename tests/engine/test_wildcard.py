"""Wildcards made of literal text and `*` only are matched without a regular expression: the answer
must be the regular expression's, for every pattern and value."""

from __future__ import annotations

import itertools
import re

from jouet_git.engine import wildcard


def test_star_only_patterns_answer_as_the_regular_expression_does() -> None:
    patterns = ["*.gitleaksignore", "*gitleaks.toml", "*jouet/rules/*", "a*b*c", "*a*a*", "**", "a**b", "*ab*ab",
                "x*", "*", "ab*ba", "*/.git/*/hooks/*", "a*\nb*", "aa*aa"]
    alphabet = ["", "a", "b", "c", "ab", "ba", "aa", "abab", "/", ".git", "\n", "hooks", "jouet/rules/x"]
    values = {"".join(p) for n in range(4) for p in itertools.product(alphabet, repeat=n)}
    values |= {".gitleaksignore", "x/.gitleaksignore", "gitleaks.toml", "a/gitleaks.toml.bak", "/x/.git/y/hooks/z",
               "~/.config/jouet/rules/a.toml", "aaa", "aaaa", "aaaaa"}
    for pattern in patterns:
        fast = wildcard.matcher(pattern)
        assert fast.__class__.__name__ == "function", pattern  # no regular expression was compiled
        regex = re.compile(wildcard._translate(pattern, False), re.DOTALL)
        for value in values:
            assert bool(fast(value)) == bool(regex.fullmatch(value)), (pattern, value)


def test_other_wildcards_still_use_the_regular_expression() -> None:
    assert wildcard.matches("g?t", "git") and not wildcard.matches("g?t", "gt")
    assert wildcard.matches("a\\*", "a*") and not wildcard.matches("a\\*", "ab")
    assert wildcard.matches("*.toml", "x.toml") and not wildcard.matches("*.toml", "x.tom")
