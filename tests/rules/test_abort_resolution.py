"""abort-resolution in real repositories: a merge, rebase or cherry-pick stopped on a conflict, the
conflict resolved by hand (or not), and each way of throwing the resolution away run for real to
show what it loses."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from testing import git, make_repo
from testing.gitrules import denied, quiet

RESOLVED = "x = 3  # JOUET_MARK: both sides kept\n"


def _conflict(tmp_path: Path, how: str) -> Path:
    """A repository stopped on a conflict in src/app.py by HOW: merge, rebase or cherry-pick."""
    repo = make_repo(tmp_path / "work", {"src/app.py": "x = 1\n", "README.md": "hello\n"})
    git(repo, "checkout", "-q", "-b", "other")
    (repo / "src" / "app.py").write_text("x = 2\n")
    git(repo, "commit", "-q", "-am", "other side")
    git(repo, "checkout", "-q", "-")
    (repo / "src" / "app.py").write_text("x = 4\n")
    git(repo, "commit", "-q", "-am", "this side")
    command = {"merge": ["merge", "other"], "rebase": ["rebase", "other"],
               "cherry-pick": ["cherry-pick", "other"]}[how]
    stopped = subprocess.run(["git", *command], cwd=repo, capture_output=True, check=False)
    assert stopped.returncode != 0 and "<<<<<<<" in (repo / "src" / "app.py").read_text()
    return repo


def _lost(repo: Path, command: str) -> bool:
    """Whether COMMAND, run for real in a copy of REPO, loses the resolution."""
    copy = repo.parent / "copy"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(repo, copy, symlinks=True)
    subprocess.run(["bash", "-c", command], cwd=copy, capture_output=True, check=False)
    kept = "JOUET_MARK" in (copy / "src" / "app.py").read_text()
    shutil.rmtree(copy)
    return not kept


@pytest.mark.parametrize(("how", "command"), [
    ("merge", "git merge --abort"),
    ("merge", "git reset --merge"),
    ("merge", "git merge --abor"),
    ("merge", "git checkout -m -- src/app.py"),
    ("merge", "git restore --merge src"),
    ("merge", "git checkout --conflict=diff3 -- ."),
    ("merge", "cd src && git merge --abort"),
    ("merge", "sh -c 'git merge --abort'"),
    ("rebase", "git rebase --abort"),
    ("rebase", "git rebase --skip"),
    ("cherry-pick", "git cherry-pick --abort"),
    ("cherry-pick", "git cherry-pick --skip"),
])
def test_a_resolution_thrown_away_is_denied(tmp_path: Path, how: str, command: str) -> None:
    repo = _conflict(tmp_path, how)
    (repo / "src" / "app.py").write_text(RESOLVED)
    assert _lost(repo, command)
    reason = denied(command, repo, "abort-resolution")
    assert "resolution of src/app.py" in reason and "--continue" in reason


@pytest.mark.parametrize("command", ["git merge --abort", "git reset --merge", "git checkout -m -- src/app.py"])
def test_a_conflict_not_yet_resolved_aborts_quietly(tmp_path: Path, command: str) -> None:
    repo = _conflict(tmp_path, "merge")
    quiet(command, repo)


def test_redoing_another_file_keeps_the_resolution(tmp_path: Path) -> None:
    repo = _conflict(tmp_path, "merge")
    (repo / "src" / "app.py").write_text(RESOLVED)
    assert not _lost(repo, "git checkout -m -- README.md")
    quiet("git checkout -m -- README.md", repo)


def test_no_operation_in_progress(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "work", {"src/app.py": "x = 1\n"})
    (repo / "src" / "app.py").write_text("x = 2\n")
    quiet("git merge --abort", repo)
    quiet("git reset --merge", repo)
