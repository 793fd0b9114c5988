"""rebase-merged-base in real repositories with gh-stack's state file: a layer whose parent merged
is not rebased onto the trunk in a way that replays the parent's commits, and is left alone when
the parent has not merged or the rebase replays only its own commits."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing import git
from testing.gitrules import commit, denied, gh_stack, head, quiet, with_remote


@pytest.fixture
def stack(tmp_path: Path) -> Path:
    """main <- feat/a (two commits) <- feat/b (one commit), all pushed; feat/b checked out."""
    repo = with_remote(tmp_path, {"README.md": "hello\n", "lib.py": "x = 1\n"})
    git(repo, "checkout", "-qb", "feat/a")
    commit(repo, "lib.py", "x = 2\n", "a: first step")
    commit(repo, "lib.py", "x = 3\n", "a: second step")
    git(repo, "push", "-q", "-u", "origin", "feat/a")
    git(repo, "checkout", "-qb", "feat/b")
    commit(repo, "b.py", "b = 1\n", "b: its own change")
    git(repo, "push", "-q", "-u", "origin", "feat/b")
    return repo


def squash_merge_parent(repo: Path, tmp_path: Path) -> None:
    """What GitHub does for a squash-merged pull request: one new commit on main, pushed."""
    merger = tmp_path / "merger"
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(merger))
    git(merger, "merge", "-q", "--squash", "origin/feat/a")
    git(merger, "commit", "-q", "-m", "feat/a (#1)")
    git(merger, "push", "-q", "origin", "main")
    git(repo, "fetch", "-q")


@pytest.mark.parametrize("command", [
    "git rebase origin/main", "git rebase -i origin/main", "git rebase main",
    "git rebase --onto origin/main origin/main", "git rebase origin/main feat/b", "git rebase --root",
])
def test_rebasing_onto_the_trunk_after_a_squash_merge(stack: Path, tmp_path: Path, command: str) -> None:
    squash_merge_parent(stack, tmp_path)
    git(stack, "fetch", "-q")
    git(stack, "branch", "-f", "main", "origin/main")
    gh_stack(stack, "main", [("feat/a", True), ("feat/b", None)])
    reason = denied(command, stack, "rebase-merged-base")
    assert "feat/a, the layer below feat/b, has merged into main" in reason
    assert "git merge origin/main" in reason and "git rebase --onto origin/main feat/a" in reason


def test_a_rebase_without_an_upstream_uses_the_branchs_own(stack: Path, tmp_path: Path) -> None:
    squash_merge_parent(stack, tmp_path)
    gh_stack(stack, "main", [("feat/a", True), ("feat/b", None)])
    # Tracking origin/feat/b, which has feat/a's commits: only unpushed commits would be replayed.
    quiet("git rebase", stack)
    quiet("git pull --rebase", stack)
    # Tracking the trunk: the rebase replays feat/a's commits.
    git(stack, "branch", "-q", "--set-upstream-to", "origin/main")
    denied("git rebase", stack, "rebase-merged-base")
    denied("git rebase -i", stack, "rebase-merged-base")


def test_what_the_denied_rebase_would_do_and_the_one_that_passes(stack: Path, tmp_path: Path) -> None:
    squash_merge_parent(stack, tmp_path)
    gh_stack(stack, "main", [("feat/a", True), ("feat/b", None)])
    denied("git rebase origin/main", stack, "rebase-merged-base")
    # For real, in a copy: the parent's first commit no longer applies on top of its squashed form.
    copy = tmp_path / "copy"
    git(tmp_path, "clone", "-q", "--no-local", str(stack), str(copy))
    git(copy, "checkout", "-q", "feat/b")
    git(copy, "fetch", "-q", str(tmp_path / "remote.git"), "main:refs/remotes/origin/main")
    failed = git(copy, "rebase", "origin/main", check=False)
    assert (copy / ".git" / "rebase-merge").exists(), failed
    git(copy, "rebase", "--abort")
    # The rebase the message names replays only feat/b's commit.
    quiet("git rebase --onto origin/main feat/a", stack)
    quiet("git rebase --onto origin/main origin/feat/a", stack)
    git(stack, "rebase", "-q", "--onto", "origin/main", "feat/a")
    assert git(stack, "log", "--format=%s", "origin/main..HEAD").split("\n")[0] == "b: its own change"
    assert git(stack, "rev-list", "--count", "origin/main..HEAD").strip() == "1"


def test_merging_the_trunk_is_not_a_rebase(stack: Path, tmp_path: Path) -> None:
    squash_merge_parent(stack, tmp_path)
    gh_stack(stack, "main", [("feat/a", True), ("feat/b", None)])
    quiet("git merge origin/main", stack)
    for command in ("git rebase --continue", "git rebase --abort", "git rebase --skip"):
        quiet(command, stack)


def test_the_parent_has_not_merged(stack: Path) -> None:
    gh_stack(stack, "main", [("feat/a", False), ("feat/b", None)])
    quiet("git rebase feat/a", stack)
    quiet("git rebase origin/main", stack)
    gh_stack(stack, "main", [("feat/a", None), ("feat/b", None)])
    quiet("git rebase origin/main", stack)


def test_a_parent_merged_with_a_merge_commit_is_in_the_trunk(stack: Path, tmp_path: Path) -> None:
    merger = tmp_path / "merger"
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(merger))
    git(merger, "merge", "-q", "--no-ff", "--no-edit", "origin/feat/a")
    git(merger, "push", "-q", "origin", "main")
    git(stack, "fetch", "-q")
    gh_stack(stack, "main", [("feat/a", True), ("feat/b", None)])
    # The trunk has every commit of the parent, so the rebase replays only feat/b's.
    quiet("git rebase origin/main", stack)


def test_merged_is_read_from_a_gone_upstream_too(stack: Path, tmp_path: Path) -> None:
    squash_merge_parent(stack, tmp_path)
    git(stack, "push", "-q", "origin", "--delete", "feat/a")
    git(stack, "fetch", "-q", "--prune")
    assert "[gone]" in git(stack, "for-each-ref", "--format=%(upstream:track)", "refs/heads/feat/a")
    gh_stack(stack, "main", [("feat/a", None), ("feat/b", None)])
    denied("git rebase origin/main", stack, "rebase-merged-base")


def test_the_bottom_layer_and_other_branches(stack: Path, tmp_path: Path) -> None:
    squash_merge_parent(stack, tmp_path)
    gh_stack(stack, "main", [("feat/a", True), ("feat/b", None)])
    git(stack, "checkout", "-q", "feat/a")
    quiet("git rebase origin/main", stack)  # its parent is the trunk
    git(stack, "checkout", "-q", "feat/b")
    git(stack, "branch", "unrelated", "main")
    quiet("git rebase origin/main unrelated", stack)
    assert head(stack, "feat/b") != head(stack, "origin/main")


def test_a_parent_branch_deleted_locally_cannot_be_told_apart(stack: Path, tmp_path: Path) -> None:
    squash_merge_parent(stack, tmp_path)
    gh_stack(stack, "main", [("feat/a", True), ("feat/b", None)])
    git(stack, "branch", "-D", "feat/a")
    denied("git rebase origin/main", stack, "rebase-merged-base")
