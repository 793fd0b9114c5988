"""The pre-check compiles gitleaks' allowlisted paths only for a file that would need a scan: a
keyword-free commit, the common case, compiles none of them (and decides as before)."""

from __future__ import annotations

from typing import Any

import pytest

from jouet_git.gitleaks import config, goregex, precheck

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
