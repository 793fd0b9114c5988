"""Many rules of your own cost a call little: a call is matched only against the rules that name its
programs, and after one rule file is edited only that file is read again, and no rule's matchers are
made until a call could match it (bench/rules_bench.py times both)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from testing import make_repo

from jouet_git import paths
from jouet_git.engine import build, model
from jouet_git.engine.ruleset import load_root
from jouet_git.engine.runner import Runner
from jouet_git.harness.manual import build_call

RULES, PER_FILE = 200, 20


def _rule(n: int, edit: int = 0) -> str:
    return (f'[[rule]]\nname = "tool-{n}-flags"\nwhy = "bench rule {n}"\nauthor = "me"\ncreated = "2026-12-01"\n'
            f'message = "Run tool-{n} without --force ({edit})."\n'
            f'[[rule.match]]\ncommand = ["tool-{n} deploy"]\nflags = ["--force"]\n')


def _write(directory: Path, first: int, edit: int = 0) -> None:
    text = "\n".join(_rule(n, edit if n == first else 0) for n in range(first, first + PER_FILE))
    (directory / f"team-{first:04d}.toml").write_text(text)


def _count(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, counts: dict[str, int]) -> None:
    original = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        counts[name] = counts.get(name, 0) + 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)


def test_an_edit_reads_one_file_again_and_makes_no_matcher(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "r")
    rules = Path(paths.user_rules_dir())
    rules.mkdir(parents=True)
    for first in range(0, RULES, PER_FILE):
        _write(rules, first)
    assert len([r for r in load_root(str(repo)).rules if r.name.startswith("tool-")]) == RULES
    _write(rules, 100, edit=1)
    counts: dict[str, int] = {}
    _count(monkeypatch, build, "load_text", counts)
    _count(monkeypatch, model.Matcher, "__init__", counts)
    ruleset = load_root(str(repo))
    assert counts == {"load_text": 1}, counts  # the edited file, and no matcher of any rule
    edited = ruleset.get("tool-100-flags")
    assert edited is not None and edited.message == "Run tool-100 without --force (1)."


def test_a_call_meets_only_the_rules_for_its_programs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "r")
    rules = Path(paths.user_rules_dir())
    rules.mkdir(parents=True)
    for first in range(0, RULES, PER_FILE):
        _write(rules, first)
    runner = Runner(record=False)
    status = build_call("git status", str(repo), None, None)
    ruleset = runner.ruleset_for(status)
    candidates = ruleset.candidates({c.program for c in status.commands})
    assert candidates and not [r.name for r in candidates if r.name.startswith("tool-")]
    assert runner.decide(status).action is None
    deploy = runner.decide(build_call("tool-42 deploy --force", str(repo), None, None))
    assert deploy.warnings and deploy.warnings[0].rule == "tool-42-flags"  # a rule of yours warns
