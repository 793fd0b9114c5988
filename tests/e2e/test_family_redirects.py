"""Family: what the rules need beyond the words. Where a command runs when a wrapper or a script
moves it (`env -C`, `bash -c 'cd ... && ...'`): the state-aware rules must ask the repository that
loses the work, not the call's own. And where input comes from (`< .env`): recorded as stdin_from
for the secret-files rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testing import make_repo, run_jouet
from testing.gitrules import hook
from testing.realrun import MODIFIED, PRINTED, SECRET, UNTRACKED, effect_happened, lossy_repo, remote_head, run_bash

MOVED = [
    ("env -C ../proj git reset --hard", "reset-hard", MODIFIED),
    ("env --chdir=../proj git clean -f", "clean-untracked", UNTRACKED),
    ("bash -c 'cd ../proj && git reset --hard'", "reset-hard", MODIFIED),
    ("sh -c 'cd ../proj; git reset --hard'", "reset-hard", MODIFIED),
    ("eval 'cd ../proj'; git reset --hard", "reset-hard", MODIFIED),
    ("cd .. && env -C proj bash -c 'git clean -f'", "clean-untracked", UNTRACKED),
]


def _pair(root: Path) -> tuple[Path, Path]:
    """A calm repository (nothing to lose) where the call runs, and proj beside it with work to lose."""
    calm = make_repo(root / "calm")
    proj = lossy_repo(root / "proj")
    return calm, proj


@pytest.mark.parametrize(("command", "rule", "effect"), MOVED)
def test_moved_commands_ask_the_repository_that_loses_the_work(
        tmp_path: Path, command: str, rule: str, effect: str) -> None:
    calm, _ = _pair(tmp_path / "ours")
    verdict = hook(command, calm)
    assert verdict.rule == rule, f"{command!r}: expected a deny by {rule}, got {verdict}"
    calm, proj = _pair(tmp_path / "real")
    before = remote_head(proj)
    proc = run_bash(command, calm)
    assert effect_happened(effect, proj, before, proc.stdout), proc.stderr


@pytest.mark.parametrize("command", ["sh -c 'cd ../proj; git checkout -- a.txt'", "git -C ../proj checkout -- a.txt",
                                     "cd ../proj && git checkout -- a.txt", "env -C ../proj git restore a.txt"])
def test_discarding_in_another_repository(tmp_path: Path, command: str) -> None:
    calm, _ = _pair(tmp_path / "ours")
    assert hook(command, calm).rule == "discard-changes"
    calm, proj = _pair(tmp_path / "real")
    before = (proj / "a.txt").read_text()
    run_bash(command, calm)
    assert (proj / "a.txt").read_text() != before, "the command did not discard the change"


@pytest.mark.parametrize("command", ["env -C ../proj git status --short", "bash -c 'cd ../proj && git diff'"])
def test_moved_read_only_commands_stay_quiet(tmp_path: Path, command: str) -> None:
    calm, _ = _pair(tmp_path)
    assert hook(command, calm).rule is None


READS = [
    "cat < .env",
    "while read -r line; do echo \"$line\"; done < .env",
    "exec < .env; cat",
]


@pytest.mark.parametrize("command", READS)
def test_input_redirections_are_recorded(tmp_path: Path, command: str) -> None:
    repo = lossy_repo(tmp_path / "real")
    proc = run_bash(command, repo)
    assert effect_happened(PRINTED, repo, "", proc.stdout), "the command did not print the secret"
    data = json.loads(run_jouet("parse", "--json", command, check=True).stdout)
    assert ".env" in [c["stdin_from"] for c in data["commands"]]


@pytest.mark.parametrize("command", READS)
def test_secret_files_read_through_input_redirection_are_denied(tmp_path: Path, command: str) -> None:
    repo = lossy_repo(tmp_path / "ours")
    assert hook(command, repo).rule == "secret-files"
    assert SECRET  # the secret the command prints (see test_input_redirections_are_recorded)
