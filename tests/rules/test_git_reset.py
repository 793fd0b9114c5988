"""reset-to-remote, reset-hard and force-switch in real repositories: each denies exactly when the
command would lose commits or uncommitted changes, and the quiet cases are run for real to show
that nothing was lost."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing import git
from testing.gitrules import commit, denied, head, other_clone, quiet, with_remote


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return with_remote(tmp_path)


def unpushed(repo: Path, n: int = 2) -> list[str]:
    return [commit(repo, f"local{k}.txt", f"{k}\n") for k in range(n)]


# -- reset-to-remote ------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [
    "git reset --hard origin/main",
    "git fetch -q && git reset --hard origin/main",
    "git reset --keep origin/main",
    "git checkout -B main origin/main",
    "git switch -C main origin/main",
    "git reset --hard HEAD~2",
])
def test_unpushed_commits_are_not_reset_away(repo: Path, command: str) -> None:
    unpushed(repo)
    reason = denied(command, repo, "reset-to-remote")
    assert "main has 2 commits" in reason
    assert "git branch backup/main main" in reason


def test_the_count_is_of_the_commits_lost(repo: Path) -> None:
    unpushed(repo, 3)
    reason = denied("git reset --hard HEAD~1", repo, "reset-to-remote")
    assert "main has 1 commit that HEAD~1 lacks" in reason


def test_a_branch_that_is_not_checked_out(repo: Path) -> None:
    git(repo, "checkout", "-qb", "feature")
    unpushed(repo, 1)
    git(repo, "checkout", "-q", "main")
    denied("git branch -f feature origin/main", repo, "reset-to-remote")
    denied("git checkout -B feature origin/main", repo, "reset-to-remote")
    # The same branch, pushed: nothing is lost, and the reset goes ahead.
    git(repo, "push", "-q", "origin", "feature")
    quiet("git branch -f feature origin/main", repo)
    git(repo, "branch", "-f", "feature", "origin/main")
    assert head(repo, "feature") == head(repo, "origin/main")


def test_pushed_commits_reset_quietly(repo: Path) -> None:
    unpushed(repo)
    git(repo, "push", "-q")
    quiet("git reset --hard origin/main", repo)
    quiet("git checkout -B main origin/main", repo)


def test_behind_only_is_a_fast_forward(repo: Path, tmp_path: Path) -> None:
    other = other_clone(tmp_path)
    theirs = commit(other, "theirs.txt", "t\n")
    git(other, "push", "-q")
    git(repo, "fetch", "-q")
    quiet("git reset --hard origin/main", repo)
    git(repo, "reset", "-q", "--hard", "origin/main")
    assert head(repo) == theirs


def test_diverged_denies_and_names_the_target(repo: Path, tmp_path: Path) -> None:
    other = other_clone(tmp_path)
    commit(other, "theirs.txt", "t\n")
    git(other, "push", "-q")
    unpushed(repo, 1)
    git(repo, "fetch", "-q")
    reason = denied("git reset --hard origin/main", repo, "reset-to-remote")
    assert "1 commit that origin/main lacks" in reason and "git rebase origin/main" in reason


def test_a_backup_branch_keeps_them(repo: Path) -> None:
    mine = unpushed(repo)
    git(repo, "branch", "backup/main")
    quiet("git reset --hard origin/main", repo)
    git(repo, "reset", "-q", "--hard", "origin/main")
    assert head(repo, "backup/main") == mine[-1]


def test_a_backup_earlier_in_the_same_call_keeps_them(repo: Path) -> None:
    unpushed(repo)
    quiet("git branch backup/main && git reset --hard origin/main", repo)
    quiet("git tag before-reset && git checkout -B main origin/main", repo)
    # `;` runs the reset even when the backup fails: that does not count.
    denied("git branch backup/main; git reset --hard origin/main", repo, "reset-to-remote")


def test_creating_a_branch_or_a_detached_head_moves_nothing(repo: Path) -> None:
    unpushed(repo)
    quiet("git checkout -B fresh origin/main", repo)
    quiet("git switch -C fresh origin/main", repo)
    git(repo, "checkout", "-q", "--detach")
    quiet("git reset --hard origin/main", repo)


def test_another_directory(repo: Path, tmp_path: Path) -> None:
    unpushed(repo)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    denied("git -C ../work reset --hard origin/main", outside, "reset-to-remote")
    denied("cd ../work && git reset --hard origin/main", outside, "reset-to-remote")


# -- reset-hard -----------------------------------------------------------------------------------


def test_reset_hard_on_a_clean_tree(repo: Path) -> None:
    quiet("git reset --hard", repo)
    quiet("git reset --hard HEAD", repo)


def test_untracked_files_survive_a_hard_reset(repo: Path) -> None:
    (repo / "notes.txt").write_text("mine\n")
    quiet("git reset --hard", repo)
    git(repo, "reset", "-q", "--hard")
    assert (repo / "notes.txt").read_text() == "mine\n"


@pytest.mark.parametrize("staged", [False, True])
def test_changes_to_tracked_files_are_not_reset_away(repo: Path, staged: bool) -> None:
    (repo / "src" / "app.py").write_text("x = 2\n")
    if staged:
        git(repo, "add", "src/app.py")
    reason = denied("git reset --hard", repo, "reset-hard")
    assert "1 tracked file" in reason and "git stash push -m" in reason
    denied("git reset --hard origin/main", repo, "reset-hard")


def test_a_conflicted_merge(repo: Path) -> None:
    git(repo, "checkout", "-qb", "side")
    commit(repo, "src/app.py", "x = 'side'\n")
    git(repo, "checkout", "-q", "main")
    commit(repo, "src/app.py", "x = 'main'\n")
    git(repo, "merge", "-q", "side", check=False)
    assert "UU" in git(repo, "status", "--short")
    denied("git reset --hard", repo, "reset-hard")


def test_stashing_first_in_the_same_call(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("x = 2\n")
    quiet("git stash push -m 'before reset' && git reset --hard", repo)


# -- force-switch ---------------------------------------------------------------------------------


@pytest.fixture
def two_branches(repo: Path) -> Path:
    git(repo, "branch", "other")
    return repo


@pytest.mark.parametrize("command", [
    "git switch -f other", "git switch --discard-changes other", "git checkout -f other", "git checkout -f",
])
def test_a_forced_switch_over_changes(two_branches: Path, command: str) -> None:
    (two_branches / "src" / "app.py").write_text("x = 2\n")
    reason = denied(command, two_branches, "force-switch")
    assert "1 tracked file" in reason


def test_a_forced_switch_over_staged_changes(two_branches: Path) -> None:
    (two_branches / "new.py").write_text("new\n")
    git(two_branches, "add", "new.py")
    denied("git switch -f other", two_branches, "force-switch")


def test_a_forced_switch_on_a_clean_or_untracked_tree(two_branches: Path) -> None:
    quiet("git switch -f other", two_branches)
    (two_branches / "notes.txt").write_text("mine\n")
    quiet("git checkout -f other", two_branches)
    git(two_branches, "checkout", "-q", "-f", "other")
    assert (two_branches / "notes.txt").read_text() == "mine\n"


def test_forced_checkout_of_paths_is_not_a_switch(two_branches: Path) -> None:
    (two_branches / "src" / "app.py").write_text("x = 2\n")
    (two_branches / "README.md").write_text("changed\n")
    # Restoring an unchanged file loses nothing, whatever else is changed.
    (two_branches / "src" / "other.py").write_text("o\n")
    git(two_branches, "add", "src/other.py")
    git(two_branches, "commit", "-qm", "other")
    quiet("git checkout -f -- src/other.py", two_branches)


def test_words_git_would_refuse_are_not_asked_about(repo: Path) -> None:
    unpushed(repo)
    # The probe refuses names with spaces as a bug in the script; the rule must not pass them on.
    quiet("git reset --hard 'origin/main extra'", repo)
    quiet("git checkout -B 'two words' origin/main", repo)
