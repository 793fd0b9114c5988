"""branch-force-delete, stash-drop and push-delete in real repositories: a deny exactly where the
branch, stash entry or remote branch holds commits nothing else has; quiet cases are run for real."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing import git
from testing.gitrules import commit, denied, head, other_clone, quiet, with_remote


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return with_remote(tmp_path)


# -- branch-force-delete --------------------------------------------------------------------------


@pytest.fixture
def feature(repo: Path) -> Path:
    """A branch `feature` with two commits on no other branch or remote."""
    git(repo, "checkout", "-qb", "feature")
    commit(repo, "f1.txt", "1\n")
    commit(repo, "f2.txt", "2\n")
    git(repo, "checkout", "-q", "main")
    return repo


@pytest.mark.parametrize("command", [
    "git branch -D feature", "git branch -d --force feature", "git branch --delete --force feature",
    "git branch -df feature", "git branch -D other feature",
])
def test_unmerged_unpushed_branch(feature: Path, command: str) -> None:
    git(feature, "branch", "other")
    reason = denied(command, feature, "branch-force-delete")
    assert "feature has 2 commits" in reason and "git push -u origin feature" in reason


def test_plain_delete_is_left_to_git(feature: Path) -> None:
    quiet("git branch -d feature", feature)


def test_merged_branch(feature: Path) -> None:
    git(feature, "merge", "-q", "--no-edit", "feature")
    quiet("git branch -D feature", feature)
    git(feature, "branch", "-D", "feature")


def test_pushed_branch(feature: Path) -> None:
    git(feature, "push", "-q", "origin", "feature")
    quiet("git branch -D feature", feature)


def test_tagged_branch_and_a_tag_in_the_same_call(feature: Path) -> None:
    quiet("git tag archive/feature feature && git branch -D feature", feature)
    git(feature, "tag", "archive/feature", "feature")
    quiet("git branch -D feature", feature)


def test_partly_pushed_branch(feature: Path) -> None:
    git(feature, "push", "-q", "origin", "feature~1:refs/heads/feature")
    git(feature, "fetch", "-q")
    reason = denied("git branch -D feature", feature, "branch-force-delete")
    assert "feature has 1 commit " in reason


def test_no_such_branch(repo: Path) -> None:
    quiet("git branch -D nope", repo)


# -- stash-drop ---------------------------------------------------------------------------------------


def stash(repo: Path, text: str) -> None:
    (repo / "src" / "app.py").write_text(text)
    git(repo, "stash", "push", "-q", "-m", text.strip())


def test_no_stash(repo: Path) -> None:
    for command in ("git stash drop", "git stash clear", "git stash drop stash@{1}"):
        quiet(command, repo)


def test_an_entry_is_not_dropped(repo: Path) -> None:
    stash(repo, "x = 2\n")
    for command in ("git stash drop", "git stash drop stash@{0}", "git stash drop -q 0"):
        reason = denied(command, repo, "stash-drop")
        assert "stash@{0} holds work" in reason and "git stash pop stash@{0}" in reason
    reason = denied("git stash clear", repo, "stash-drop")
    assert "an entry" in reason
    quiet("git stash drop stash@{3}", repo)  # no such entry: git refuses
    quiet("git stash pop", repo)
    quiet("git stash list", repo)


def test_applied_in_the_same_call_is_a_pop(repo: Path) -> None:
    stash(repo, "x = 2\n")
    quiet("git stash apply && git stash drop", repo)
    denied("git stash apply; git stash drop", repo, "stash-drop")


def test_an_entry_kept_on_a_branch(repo: Path) -> None:
    stash(repo, "x = 2\n")
    stash(repo, "x = 3\n")
    git(repo, "branch", "saved/newest", "stash@{0}")
    quiet("git stash drop", repo)
    reason = denied("git stash drop stash@{1}", repo, "stash-drop")
    assert "stash@{1}" in reason
    reason = denied("git stash clear", repo, "stash-drop")
    assert "an entry" in reason  # only the older one is unkept
    git(repo, "branch", "saved/older", "stash@{1}")
    quiet("git stash clear", repo)
    git(repo, "stash", "clear")
    assert "x = 2" in git(repo, "show", "saved/older:src/app.py")


# -- push-delete --------------------------------------------------------------------------------------


@pytest.fixture
def theirs(repo: Path, tmp_path: Path) -> Path:
    """A branch `theirs` someone else pushed, with a commit no local branch has, fetched here."""
    other = other_clone(tmp_path)
    git(other, "checkout", "-qb", "theirs")
    commit(other, "t.txt", "t\n")
    git(other, "push", "-q", "origin", "theirs")
    git(repo, "fetch", "-q")
    return repo


@pytest.mark.parametrize("command", [
    "git push --delete origin theirs", "git push origin --delete theirs", "git push -d origin theirs",
    "git push origin :theirs", "git push origin :refs/heads/theirs", "git push --mirror origin",
    "git push --prune origin 'refs/heads/*:refs/heads/*'",
])
def test_a_remote_branch_only_on_the_remote(theirs: Path, command: str) -> None:
    reason = denied(command, theirs, "push-delete")
    assert "origin" in reason and "1 commit" in reason


def test_kept_locally_then_deleted_quietly(theirs: Path) -> None:
    git(theirs, "branch", "theirs", "origin/theirs")
    quiet("git push --delete origin theirs", theirs)
    quiet("git push --mirror origin", theirs)
    git(theirs, "push", "-q", "--delete", "origin", "theirs")
    assert "theirs" not in git(theirs, "ls-remote", "--heads", "origin")


def test_a_merged_remote_branch(theirs: Path) -> None:
    git(theirs, "merge", "-q", "--no-edit", "origin/theirs")
    quiet("git push origin :theirs", theirs)


def test_own_pushed_branch(repo: Path) -> None:
    git(repo, "checkout", "-qb", "mine")
    commit(repo, "m.txt", "m\n")
    git(repo, "push", "-q", "-u", "origin", "mine")
    quiet("git push --delete origin mine", repo)


def test_never_fetched_cannot_be_told(repo: Path, tmp_path: Path) -> None:
    other = other_clone(tmp_path)
    git(other, "checkout", "-qb", "unseen")
    commit(other, "u.txt", "u\n")
    git(other, "push", "-q", "origin", "unseen")
    # No remote-tracking ref: the rule cannot know, and says nothing (documented).
    quiet("git push --delete origin unseen", repo)


def test_a_mirror_that_would_rewind(repo: Path, tmp_path: Path) -> None:
    other = other_clone(tmp_path)
    theirs = commit(other, "t.txt", "t\n")
    git(other, "push", "-q")
    git(repo, "fetch", "-q")
    reason = denied("git push --mirror", repo, "push-delete")
    assert "origin's branches hold 1 commit" in reason
    git(repo, "merge", "-q", "--ff-only", "origin/main")
    assert head(repo) == theirs
    quiet("git push --mirror", repo)


def test_tags_and_urls(theirs: Path, tmp_path: Path) -> None:
    git(theirs, "tag", "v1")
    git(theirs, "push", "-q", "origin", "v1")
    quiet("git push --delete origin v1", theirs)  # no remote-tracking branch v1
    quiet("git push origin :refs/tags/v1", theirs)
    quiet(f"git push --delete {tmp_path / 'remote.git'} theirs", theirs)


def test_words_git_would_refuse_are_not_asked_about(feature: Path) -> None:
    quiet("git branch -D 'two words'", feature)
    quiet("git push --delete origin 'two words'", feature)
