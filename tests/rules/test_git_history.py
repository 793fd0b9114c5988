"""reflog-expire, gc-prune and lease-push, and where git runs (GIT_DIR, env -C), in real
repositories: jouet is asked first, then bash runs the command, and the test checks the commits
really are gone exactly where jouet denied."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing import git
from testing.gitrules import commit, denied, head, other_clone, quiet, with_remote
from testing.realrun import bash


def recoverable(repo: Path, sha: str) -> bool:
    """Whether commit SHA is still reachable from a ref or a reflog entry."""
    return sha in git(repo, "rev-list", "--all", "--reflog").split()


def exists(repo: Path, sha: str) -> bool:
    return git(repo, "cat-file", "-t", sha, check=False).strip() == "commit"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return with_remote(tmp_path)


@pytest.fixture
def reset_away(repo: Path) -> str:
    """Two commits main was reset back over: only the reflog keeps them. Returns the tip."""
    commit(repo, "r1.txt", "1\n")
    tip = commit(repo, "r2.txt", "2\n")
    git(repo, "reset", "-q", "--keep", "HEAD~2")
    return tip


# -- reflog-expire -------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [
    "git reflog expire --expire=now --all",
    "git reflog expire --expire-unreachable=now --all",
    "git reflog expire --expire now --all",
    "git reflog expire --expire-un=now --all",
    "git reflog delete --rewrite HEAD@{1} main@{1}",
])
def test_dropping_the_only_way_back(repo: Path, reset_away: str, command: str) -> None:
    denied(command, repo, "reflog-expire")
    assert bash(command, repo).returncode == 0
    assert not recoverable(repo, reset_away)


def test_dropping_reflog_entries_that_lose_nothing(repo: Path, reset_away: str) -> None:
    # The reset's own entry still names the commit it moved away from.
    quiet("git reflog delete HEAD@{1} main@{1}", repo)
    assert bash("git reflog delete HEAD@{1} main@{1}", repo).returncode == 0
    assert recoverable(repo, reset_away)
    quiet("git reflog expire --exp=now --all", repo)  # ambiguous: git refuses it
    quiet("git reflog expire --all", repo)  # git's own 90/30 days keep today's entries
    quiet("git reflog expire --expire=now --all --dry-run", repo)
    git(repo, "branch", "rescue", reset_away)
    quiet("git reflog expire --expire=now --all", repo)
    assert bash("git reflog expire --expire=now --all", repo).returncode == 0
    assert recoverable(repo, reset_away)


def test_expiring_the_stash_reflog(repo: Path) -> None:
    for text in ("a\n", "b\n"):
        (repo / "README.md").write_text(text)
        git(repo, "stash", "push", "-q")
    older = head(repo, "stash@{1}")
    denied("git reflog expire --expire=now refs/stash", repo, "reflog-expire")
    assert bash("git reflog expire --expire=now refs/stash", repo).returncode == 0
    assert not recoverable(repo, older)


# -- gc-prune --------------------------------------------------------------------------------------------


@pytest.fixture
def dropped(repo: Path) -> str:
    """A dropped stash entry: a dangling commit. Returns it."""
    (repo / "README.md").write_text("stashed then dropped\n")
    git(repo, "stash", "push", "-q")
    sha = head(repo, "stash@{0}")
    git(repo, "stash", "drop", "-q")
    return sha


@pytest.mark.parametrize("command", ["git prune", "git prune --expire=now", "git gc --prune=now",
                                     "git gc -q --prune=all", "git -c gc.pruneExpire=now gc -q"])
def test_pruning_a_dropped_stash(repo: Path, dropped: str, command: str) -> None:
    denied(command, repo, "gc-prune")
    assert bash(command, repo).returncode == 0
    assert not exists(repo, dropped)


def test_gc_that_keeps_the_dropped_stash(repo: Path, dropped: str) -> None:
    for command in ("git gc -q", "git prune --expire=2.weeks.ago", "git prune -n"):
        quiet(command, repo)
        assert bash(command, repo).returncode == 0
    assert exists(repo, dropped)


def test_gc_expiring_the_reflog_first(repo: Path, reset_away: str) -> None:
    quiet("git gc -q --prune=now", repo)  # the reflog keeps them
    command = "git -c gc.reflogExpire=now -c gc.reflogExpireUnreachable=now gc -q --prune=now"
    denied(command, repo, "gc-prune")
    assert bash(command, repo).returncode == 0
    assert not exists(repo, reset_away)


# -- lease-push ------------------------------------------------------------------------------------------


def test_a_lease_push_that_drops_fetched_commits(repo: Path, tmp_path: Path) -> None:
    clone = other_clone(tmp_path)
    theirs = commit(clone, "theirs.txt", "theirs\n")
    git(clone, "push", "-q")
    git(repo, "fetch", "-q")
    commit(repo, "mine.txt", "mine\n")
    reason = denied("git push --force-with-lease origin main", repo, "lease-push")
    assert "origin/main holds 1 commit" in reason
    denied("git push --force-with-lease", repo, "lease-push")
    assert bash("git push --force-with-lease origin main", repo).returncode == 0  # git's lease lets it through
    assert theirs not in git(tmp_path / "remote.git", "rev-list", "main").split()


def test_a_lease_push_after_rebasing_your_own_branch(repo: Path, tmp_path: Path) -> None:
    git(repo, "checkout", "-qb", "feature")
    commit(repo, "f.txt", "f\n")
    git(repo, "push", "-q", "-u", "origin", "feature")
    git(repo, "checkout", "-q", "main")
    commit(repo, "m.txt", "m\n")
    git(repo, "push", "-q")
    git(repo, "checkout", "-q", "feature")
    git(repo, "rebase", "-q", "main")
    # The force-push rule's own advice passes.
    denied("git push --force origin feature", repo, "force-push")
    quiet("git push --force-with-lease", repo)
    quiet("git push --force-with-lease --force-if-includes origin feature", repo)
    assert bash("git push --force-with-lease", repo).returncode == 0
    subjects = git(tmp_path / "remote.git", "log", "--format=%s", "feature").split("\n")
    assert "change f.txt" in subjects


# -- where git runs ------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [
    "cd .. && GIT_DIR=work/.git GIT_WORK_TREE=work git reset --hard",
    "cd .. && env -C work git reset --hard",
    "cd .. && env --chdir=work git reset --hard",
    "cd .. && git --git-dir=work/.git --work-tree=work reset --hard",
    "git --git-dir=$PWD/.git --work-tree=$PWD reset --hard",
])
def test_the_repository_a_command_names(repo: Path, command: str) -> None:
    (repo / "src" / "app.py").write_text("x = 2  # uncommitted\n")
    denied(command, repo, "reset-hard")
    assert bash(command, repo).returncode == 0
    assert (repo / "src" / "app.py").read_text() == "x = 1\n"


# -- in git's own pre-push hook ---------------------------------------------------------------------------


def test_the_pre_push_hook_lets_a_rebased_branch_through_and_stops_a_drop(repo: Path, tmp_path: Path) -> None:
    from testing import run_jouet

    assert run_jouet("setup", "git", cwd=repo).returncode == 0
    git(repo, "checkout", "-qb", "feature")
    commit(repo, "f.txt", "f\n")
    git(repo, "push", "-q", "-u", "origin", "feature")
    git(repo, "checkout", "-q", "main")
    commit(repo, "m.txt", "m\n")
    git(repo, "push", "-q")
    git(repo, "checkout", "-q", "feature")
    git(repo, "rebase", "-q", "main")
    proc = bash("git push --force-with-lease", repo)  # the force-push rule's own advice
    assert proc.returncode == 0, proc.stderr
    # Now drop a pushed commit: the hook stops it, whatever the agent's tool hook did.
    dropped = commit(repo, "g.txt", "g\n")
    git(repo, "push", "-q")
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    commit(repo, "h.txt", "h\n")
    proc = bash("git push --force-with-lease", repo)
    assert proc.returncode != 0 and "[jouet rule: force-push]" in proc.stderr
    assert dropped in git(tmp_path / "remote.git", "rev-list", "feature").split()


# -- names that arrive at run time --------------------------------------------------------------------


def test_branches_deleted_by_names_known_only_at_run_time(repo: Path) -> None:
    git(repo, "checkout", "-qb", "spike")
    tip = commit(repo, "s.txt", "s\n")
    git(repo, "checkout", "-q", "main")
    command = "git branch --format='%(refname:short)' | grep -v '^main$' | xargs git branch -D"
    denied(command, repo, "branch-force-delete")
    assert bash(command, repo).returncode == 0
    assert not git(repo, "for-each-ref", "--contains", tip).strip()


def test_discarding_paths_known_only_at_run_time(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("x = 2  # uncommitted\n")
    command = "git ls-files -m | xargs git checkout --"
    denied(command, repo, "discard-changes")
    assert bash(command, repo).returncode == 0
    assert (repo / "src" / "app.py").read_text() == "x = 1\n"
