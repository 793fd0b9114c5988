"""A cache jouet keeps (parsed rule sets, Luau translations, gitleaks config summaries) filled with
garbage is rebuilt, never trusted and never a traceback: the rules decide as before."""

from __future__ import annotations

import os
from pathlib import Path

from testing import git, make_repo, run_jouet

GARBAGE = b"\xff\xfe\x00garbage{[("


def _caches() -> list[Path]:
    base = Path(os.environ["JOUET_CACHE_DIR"])
    return [p for p in base.rglob("*") if p.is_file()]


def test_every_cache_filled_with_garbage_is_rebuilt(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"app.py": "x = 1\n"})
    (repo / "app.py").write_text("x = 2\n")
    first = run_jouet("check", "git add -A && git reset --hard", cwd=repo)
    assert "[jouet rule: git-add-all]" in first.stdout
    reset = run_jouet("check", "git reset --hard", cwd=repo)
    assert "[jouet rule: reset-hard]" in reset.stdout, reset.stdout + reset.stderr
    git(repo, "add", "app.py")
    commit = run_jouet("check", "git commit -m two", cwd=repo)
    assert commit.returncode == 0, commit.stdout + commit.stderr
    caches = _caches()
    kinds = {p.parent.name for p in caches}
    # Built-in scripts come translated with the package: they never fill the translation cache.
    assert "rulesets" in kinds and "luau" not in kinds, kinds
    for path in caches:
        path.write_bytes(GARBAGE)
    (repo / "app.py").write_text("x = 3\n")
    again = run_jouet("check", "git reset --hard", cwd=repo)
    assert "[jouet rule: reset-hard]" in again.stdout, again.stdout + again.stderr
    assert "Traceback" not in again.stderr and "failed" not in again.stdout
    assert "[jouet rule: git-add-all]" in run_jouet("check", "git add -A", cwd=repo).stdout
    assert run_jouet("check", "git commit -m three", cwd=repo).returncode == 0
