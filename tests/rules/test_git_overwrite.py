"""tag-delete, update-ref, branch-overwrite, worktree-remove and force-push beside a lease, in real
repositories: jouet is asked first, then the command runs with bash, and the test checks the
commits (or files) really are lost exactly where jouet denied."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing import git
from testing.gitrules import commit, denied, head, other_clone, quiet, with_remote
from testing.realrun import bash


def kept(repo: Path, sha: str) -> bool:
    """Whether any ref (branch, remote-tracking branch, tag, stash) still holds commit SHA."""
    return bool(git(repo, "for-each-ref", "--contains", sha).strip())


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return with_remote(tmp_path)


@pytest.fixture
def spike(repo: Path) -> str:
    """A branch `spike` with two commits no other ref has; returns its tip."""
    git(repo, "checkout", "-qb", "spike")
    commit(repo, "s1.txt", "1\n")
    tip = commit(repo, "s2.txt", "2\n")
    git(repo, "checkout", "-q", "main")
    return tip


# -- tag-delete -------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["git tag -d archive/spike", "git tag --delete archive/spike",
                                     "git tag --del archive/spike", "git tag -d v0 archive/spike"])
def test_deleting_the_only_tag_of_some_commits(repo: Path, spike: str, command: str) -> None:
    git(repo, "tag", "v0", "main")
    git(repo, "tag", "archive/spike", "spike")
    git(repo, "branch", "-D", "spike")
    reason = denied(command, repo, "tag-delete")
    assert "2 commits" in reason and "git branch archive/spike refs/tags/archive/spike" in reason
    assert bash(command, repo).returncode == 0
    assert not kept(repo, spike)


def test_deleting_a_tag_whose_commits_a_branch_has(repo: Path, spike: str) -> None:
    git(repo, "tag", "-a", "-m", "note", "archive/spike", "spike")
    quiet("git tag -d archive/spike", repo)
    quiet("git branch keep archive/spike && git tag -d archive/spike", repo)
    assert bash("git tag -d archive/spike", repo).returncode == 0
    assert kept(repo, spike)


@pytest.mark.parametrize(("command", "advice"), [
    ("git tag -f archive/spike main", "then move the tag"),
    ("git tag -f archive/spike", "then move the tag"),
    ("git tag --force -a -m moved archive/spike", "then move the tag"),
    ("git tag -fm moved archive/spike", "then move the tag"),
    ("git fetch --prune --prune-tags", "git push origin --tags"),
    ("git fetch -p -P origin", "git push origin --tags"),
    ("git fetch --prune origin '+refs/tags/*:refs/tags/*'", "git push origin --tags"),
    ("git -c fetch.pruneTags=true fetch --prune", "git push origin --tags"),
])
def test_moving_or_pruning_the_only_tag_of_some_commits(repo: Path, spike: str, command: str, advice: str) -> None:
    git(repo, "tag", "archive/spike", "spike")
    git(repo, "branch", "-D", "spike")
    reason = denied(command, repo, "tag-delete")
    assert "2 commits" in reason and advice in reason
    assert bash(command, repo).returncode == 0
    assert not kept(repo, spike)


def test_moving_a_tag_that_loses_nothing(repo: Path, spike: str) -> None:
    git(repo, "tag", "archive/spike", "spike")
    quiet("git tag -f archive/spike main", repo)  # (the branch spike still has its commits)
    quiet("git tag -f new-tag main", repo)  # (no such tag yet)
    git(repo, "branch", "-D", "spike")
    quiet("git branch keep archive/spike && git tag -f archive/spike main", repo)


def test_a_fetch_pruning_tags_that_lose_nothing(repo: Path, spike: str) -> None:
    git(repo, "tag", "archive/spike", "spike")  # (the branch spike still has its commits)
    quiet("git fetch --prune --prune-tags", repo)
    git(repo, "branch", "-D", "spike")
    quiet("git fetch --prune", repo)  # (no tag is pruned)


# -- update-ref --------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [
    "git update-ref -d refs/heads/spike",
    "git update-ref refs/heads/spike 0000000000000000000000000000000000000000",
    "git update-ref refs/heads/spike main",
    "printf 'delete refs/heads/spike\\n' | git update-ref --stdin",
    "git update-ref --stdin <<'EOF'\nstart\ndelete refs/heads/spike\ncommit\nEOF",
])
def test_update_ref_dropping_unkept_commits(repo: Path, spike: str, command: str) -> None:
    denied(command, repo, "update-ref")
    assert bash(command, repo).returncode == 0
    assert not kept(repo, spike)


def test_update_ref_of_head_deletes_the_current_branch(repo: Path, spike: str) -> None:
    git(repo, "checkout", "-q", "spike")
    denied("git update-ref -d HEAD", repo, "update-ref")
    assert bash("git update-ref -d HEAD", repo).returncode == 0
    assert not kept(repo, spike)


def test_update_ref_deleting_the_stash(repo: Path) -> None:
    for text in ("a\n", "b\n"):
        (repo / "README.md").write_text(text)
        git(repo, "stash", "push", "-q")
    entry = head(repo, "stash@{1}")
    denied("git update-ref -d refs/stash", repo, "update-ref")
    assert bash("git update-ref -d refs/stash", repo).returncode == 0
    assert not kept(repo, entry) and git(repo, "stash", "list") == ""


@pytest.mark.parametrize(("command", "updates_ref"), [
    ("git reflog delete --updateref --rewrite 'refs/stash@{0}'", True),  # (what `git stash drop` runs)
    ("git reflog delete --updateref stash@{0}", True),
    ("git reflog delete 'refs/stash@{0}'", False),
])
def test_deleting_a_stash_entry_from_the_reflog(repo: Path, command: str, updates_ref: bool) -> None:
    """A stash entry dropped by deleting its reflog entry directly: it leaves `git stash list`, and
    with --updateref no ref holds it any more. (An older entry, kept by the reflog only, is
    reflog-expire's too; the newest is the one refs/stash points at.)"""
    for text in ("a\n", "b\n"):
        (repo / "README.md").write_text(text)
        git(repo, "stash", "push", "-q")
    entry = head(repo, "stash@{0}")
    reason = denied(command, repo, "stash-drop")
    assert "stash@{0} holds work no branch has" in reason
    assert bash(command, repo).returncode == 0
    assert entry not in git(repo, "log", "-g", "--format=%H", "refs/stash")
    assert kept(repo, entry) is not updates_ref
    quiet("git reflog delete 'HEAD@{1}'", repo)


def test_update_ref_with_unseen_orders(repo: Path, spike: str, tmp_path: Path) -> None:
    orders = tmp_path / "orders.txt"
    orders.write_text("delete refs/heads/spike\n")
    denied(f"git update-ref --stdin < {orders}", repo, "update-ref")
    assert bash(f"git update-ref --stdin < {orders}", repo).returncode == 0
    assert not kept(repo, spike)


def test_update_ref_that_loses_nothing(repo: Path, spike: str) -> None:
    git(repo, "push", "-q", "origin", "spike")
    for command in ("git update-ref -d refs/heads/spike", "git update-ref refs/heads/main origin/spike",
                    "printf 'create refs/heads/new HEAD\\n' | git update-ref --stdin"):
        quiet(command, repo)
        assert bash(command, repo).returncode == 0
    assert kept(repo, spike)


# -- branch-overwrite -------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["git branch -M other spike", "git branch -m -f other spike",
                                     "git branch -C other spike", "git branch --copy --force other spike"])
def test_renaming_or_copying_over_a_branch(repo: Path, spike: str, command: str) -> None:
    git(repo, "branch", "other", "main")
    denied(command, repo, "branch-overwrite")
    assert bash(command, repo).returncode == 0
    assert not kept(repo, spike)


def test_renaming_the_current_branch_over_another(repo: Path, spike: str) -> None:
    git(repo, "checkout", "-qb", "work")
    denied("git branch -M spike", repo, "branch-overwrite")
    assert bash("git branch -M spike", repo).returncode == 0
    assert not kept(repo, spike)


def test_renaming_over_a_branch_that_loses_nothing(repo: Path, spike: str) -> None:
    git(repo, "branch", "spike-v2", "spike")
    commit_on = git(repo, "rev-parse", "spike-v2").strip()
    quiet("git branch -M spike-v2 spike", repo)  # spike-v2 has every commit of spike
    git(repo, "branch", "other", "main")
    git(repo, "push", "-q", "origin", "spike")
    quiet("git branch -M other spike", repo)  # pushed: origin/spike keeps them
    assert bash("git branch -M other spike", repo).returncode == 0
    assert kept(repo, spike) and kept(repo, commit_on)


def test_renaming_over_the_checked_out_branch_is_refused_by_git(repo: Path, spike: str) -> None:
    git(repo, "checkout", "-q", "spike")
    quiet("git branch -M main spike", repo)
    assert bash("git branch -M main spike", repo).returncode == 128
    assert kept(repo, spike)


# -- worktree-remove --------------------------------------------------------------------------------


@pytest.fixture
def worktree(repo: Path, tmp_path: Path) -> Path:
    path = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "wt-branch", str(path))
    return path


@pytest.mark.parametrize("command", ["git worktree remove --force ../wt", "git worktree remove -f ../wt",
                                     "git worktree remove ../wt --forc"])
def test_force_removing_a_worktree_with_changes(repo: Path, worktree: Path, command: str) -> None:
    (worktree / "README.md").write_text("changed in the worktree\n")
    (worktree / "notes.txt").write_text("untracked\n")
    reason = denied(command, repo, "worktree-remove")
    assert "1 changed file and 1 untracked file" in reason
    assert bash(command, repo).returncode == 0
    assert not worktree.exists()


def test_force_removing_a_locked_worktree(repo: Path, worktree: Path) -> None:
    git(repo, "worktree", "lock", str(worktree))
    (worktree / "notes.txt").write_text("untracked\n")
    denied("git worktree remove -f -f ../wt", repo, "worktree-remove")
    assert bash("git worktree remove -f -f ../wt", repo).returncode == 0
    assert not worktree.exists()


def test_removing_a_clean_worktree(repo: Path, worktree: Path) -> None:
    quiet("git worktree remove --force ../wt", repo)
    (worktree / "notes.txt").write_text("untracked\n")
    quiet("git worktree remove ../wt", repo)  # git refuses it itself
    assert bash("git worktree remove ../wt", repo).returncode != 0
    assert (worktree / "notes.txt").exists()


# -- force-push beside a lease ----------------------------------------------------------------------


@pytest.mark.parametrize("command", ["git push --force --force-with-lease origin main",
                                     "git push --force-with-lease origin +main"])
def test_force_beside_a_lease_still_overwrites(repo: Path, tmp_path: Path, command: str) -> None:
    clone = other_clone(tmp_path)
    theirs = commit(clone, "theirs.txt", "theirs\n")
    git(clone, "push", "-q")
    commit(repo, "mine.txt", "mine\n")
    denied(command, repo, "force-push")
    assert bash(command, repo).returncode == 0
    assert not kept(tmp_path / "remote.git", theirs)  # their commit is gone from the remote
