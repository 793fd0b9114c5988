"""Two ways around the branch and clean rules, each run for real: a forced fetch into a local branch
(`git fetch origin +main:main` from another branch) and `git clean` made to run without -f
(`-c clean.requireForce=false`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from testing import git
from testing.gitrules import commit, denied, head, quiet, with_remote


def run(command: str, repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", command], cwd=repo, capture_output=True, text=True)


def diverged(tmp_path: Path) -> tuple[Path, str]:
    """main two commits ahead of origin/main, checked out on another branch; main's head."""
    repo = with_remote(tmp_path)
    commit(repo, "a.txt", "one\n")
    mine = commit(repo, "b.txt", "two\n")
    git(repo, "switch", "-q", "-c", "feature", "origin/main")
    return repo, mine


@pytest.mark.parametrize("command", ["git fetch origin +main:main", "git fetch -f origin main:main",
                                     "git fetch origin +refs/heads/main:refs/heads/main"])
def test_a_forced_fetch_over_a_local_branch_with_work_is_denied(tmp_path: Path, command: str) -> None:
    repo, mine = diverged(tmp_path / "asked")
    reason = denied(command, repo, "branch-overwrite")
    assert "main has 2 commits" in reason
    repo, mine = diverged(tmp_path / "real")
    assert run(command, repo).returncode == 0
    assert head(repo, "main") != mine  # the two commits are now only in the reflog


def test_fetches_that_keep_the_work_are_quiet(tmp_path: Path) -> None:
    repo, _ = diverged(tmp_path)
    quiet("git fetch origin", repo)
    quiet("git fetch origin main:main", repo)  # not forced: git refuses a non-fast-forward
    git(repo, "push", "-q", "origin", "main")
    quiet("git fetch origin +main:main", repo)  # everything main held is on the remote


@pytest.mark.parametrize("command", ["git -c clean.requireForce=false clean -X",
                                     "git config clean.requireForce false && git clean -dX"])
def test_clean_without_force_when_git_is_told_not_to_need_it(tmp_path: Path, command: str) -> None:
    def state(path: Path) -> Path:
        repo = with_remote(path)
        (repo / ".gitignore").write_text(".env\n")
        git(repo, "add", ".gitignore")
        git(repo, "commit", "-q", "-m", "ignore")
        (repo / ".env").write_text("TOKEN=local\n")
        return repo

    denied(command, state(tmp_path / "asked"), "clean-untracked")
    real = state(tmp_path / "real")
    run(command, real)
    assert not (real / ".env").exists()
    quiet("git clean -X", state(tmp_path / "refused"))  # git refuses without -f
