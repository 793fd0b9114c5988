"""The pre-check compiles gitleaks' allowlisted paths only for a file that would need a scan: a
keyword-free commit, the common case, compiles none of them (and decides as before)."""

from __future__ import annotations

from typing import Any

import pytest

from jouet_git.gitleaks import config, decode, goregex, precheck

ALLOW = [r"(?:^|/)package-lock\.json$", r"(?:^|/)vendor/", r"\.lock$"]


def _count(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    original = goregex.compile_go

    def counted(pattern: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(pattern)
        return original(pattern, *args, **kwargs)

    monkeypatch.setattr(goregex, "compile_go", counted)
    return seen


def test_keyword_free_fragments_compile_no_allowlist(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _count(monkeypatch)
    summary = config.RuleSummary(["token", "ghp_"], False, [r"\.pem$"], ALLOW)
    fragments = [precheck.Fragment("src/app.py", "def main():\n    return 0\n"),
                 precheck.Fragment("web/package-lock.json", '{"name": "app"}\n')]
    assert precheck.must_scan(summary, fragments) == (False, "no keyword of any rule in the lines to scan")
    assert seen == [r"\.pem$"]  # the path rule, which every file meets; no allowlist


def test_an_allowlist_is_compiled_once_a_file_would_need_a_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _count(monkeypatch)
    summary = config.RuleSummary(["token"], False, [], ALLOW)
    fragments = [precheck.Fragment("web/package-lock.json", "token\n"), precheck.Fragment("a/vendor/x.go", "token\n"),
                 precheck.Fragment("src/app.py", "x = 1\n")]
    assert precheck.must_scan(summary, fragments) == (False, "no keyword of any rule in the lines to scan")
    assert seen == ALLOW  # once, for the first file holding a keyword, and allowlisted: still no scan
    both = [*fragments, precheck.Fragment("src/config.py", "token = 1\n")]
    assert precheck.must_scan(summary, both) == (True, "src/config.py: holds a rule keyword")


def _fresh_decode(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    compiled: list[Any] = []
    monkeypatch.setattr(decode, "_ENCODINGS", compiled)
    return compiled


def test_text_that_cannot_hold_an_encoding_compiles_no_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = _fresh_decode(monkeypatch)
    for text in ["def main():\n    return 0\n", "plain prose, nothing to see\n", "a_short_name = 15\n", ""]:
        assert decode.decode_pass(text) == (text, 0)
        assert decode.encoded_runs(text) == []
    assert compiled == []
    assert decode.decode_pass("x = 'aGVsbG8gd29ybGQgaGVsbG8='\n") == ("x = 'hello world hello'\n", 1)
    assert len(compiled) == 1


def test_the_look_before_compiling_never_misses_a_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the look lets through unmatched, the full pattern finds nothing in either: random
    texts built from the characters that matter (runs of the base64 alphabet around 16, `%`, `U+`,
    backslashes, non-ASCII letters, separators)."""
    import random
    import re

    pattern = re.compile(decode._ENCODINGS_SOURCE)
    pieces = ["A", "z", "0", "f", "_", "-", "+", "/", "=", " ", "\n", ".", "%", "%4", "1F", "U+", "U+00e9 ",
              "\\", "\\u00e9", "é", "ß", "\t", "abcdefghijklmno", "0123456789abcdef"]
    rng = random.Random(18)
    checked = skipped = 0
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 24)))
        compiled = _fresh_decode(monkeypatch)
        runs = decode.encoded_runs(text)
        if not compiled:
            skipped += 1
            assert runs == [] and not pattern.search(text), text
        else:
            checked += 1
            assert runs == [(m.start(), m.end()) for m in pattern.finditer(text)]
    assert skipped > 500 and checked > 500  # both ways were exercised


def test_a_text_without_keyword_or_encoding_is_checked_without_the_decoder() -> None:
    # The decoder (gitleaks/decode.py) is imported only for a text that may hold something encoded:
    # a fresh interpreter checking plain prose never loads it, and one checking base64 does.
    import subprocess
    import sys

    code = ("import sys; from jouet_git.gitleaks.precheck import fragment_has_keyword as f; "
            "print(f({text!r}, ['ghp_']), 'jouet_git.gitleaks.decode' in sys.modules)")
    plain = subprocess.run([sys.executable, "-c", code.format(text="plain prose, nothing to see\n")],
                           capture_output=True, text=True, check=True)
    assert plain.stdout.split() == ["False", "False"]
    encoded = subprocess.run([sys.executable, "-c", code.format(text="t = 'Z2hwX2FiY2RlZmdoaWprbG1ub3A='\n")],
                             capture_output=True, text=True, check=True)
    assert encoded.stdout.split() == ["True", "True"]  # base64 of "ghp_abcdefghijklmnop"
