"""git.lost, git.reflog_only and git.unreachable in real repositories, each count checked against
what deleting or overwriting really loses, and the same keys in examples."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing import git
from testing.gitrules import commit, head, other_clone, with_remote

from jouet_git.probes.core import ProbeError, Probes
from jouet_git.probes.examples import ExampleProbes


def answer(value: tuple[object, str | None]) -> object:
    result, reason = value
    assert reason is None, reason
    return result


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return with_remote(tmp_path)


# -- git.lost -----------------------------------------------------------------------------------------


def test_rebased_commits_are_kept_by_their_rewritten_copies(repo: Path) -> None:
    git(repo, "checkout", "-qb", "feature")
    commit(repo, "f.txt", "f\n")
    git(repo, "push", "-q", "-u", "origin", "feature")
    git(repo, "checkout", "-q", "main")
    commit(repo, "m.txt", "m\n")
    git(repo, "checkout", "-q", "feature")
    git(repo, "rebase", "-q", "main")
    probes = Probes(str(repo))
    # origin/feature's commit is in no other ref, but feature carries the same patch.
    assert answer(probes.git_lost("refs/remotes/origin/feature", ["feature"])) == 0
    assert answer(probes.git_lost("refs/remotes/origin/feature", [])) == 1


def test_commits_someone_else_pushed_are_lost(repo: Path, tmp_path: Path) -> None:
    clone = other_clone(tmp_path)
    commit(clone, "theirs.txt", "theirs\n")
    git(clone, "push", "-q")
    git(repo, "fetch", "-q")
    commit(repo, "mine.txt", "mine\n")
    probes = Probes(str(repo))
    assert answer(probes.git_lost("refs/remotes/origin/main", ["main"])) == 1
    git(repo, "branch", "keep", "origin/main")
    assert answer(Probes(str(repo)).git_lost("refs/remotes/origin/main", ["main"])) == 0


def test_a_revision_and_bad_arguments(repo: Path) -> None:
    tip = commit(repo, "a.txt", "a\n")
    git(repo, "reset", "-q", "--keep", "HEAD~1")
    probes = Probes(str(repo))
    assert answer(probes.git_lost(tip, ["main"])) == 1
    assert probes.git_lost("refs/heads/nope", ["main"])[0] is None
    with pytest.raises(ProbeError):
        probes.git_lost("--all", [])
    with pytest.raises(ProbeError):
        probes.git_lost("main", ["-x"])


# -- git.reflog_only and git.unreachable --------------------------------------------------------------


def test_reflog_only_commits(repo: Path) -> None:
    commit(repo, "r1.txt", "1\n")
    tip = commit(repo, "r2.txt", "2\n")
    git(repo, "reset", "-q", "--keep", "HEAD~2")
    probes = Probes(str(repo))
    assert answer(probes.git_reflog_only()) == 2
    # main's reflog and HEAD's each keep them: expiring one loses nothing, both loses them.
    assert answer(probes.git_reflog_only(["main"])) == 0
    assert answer(probes.git_reflog_only(["HEAD"])) == 0
    assert answer(probes.git_reflog_only(["main", "HEAD"])) == 2
    # An entry keeps where the ref went and where it was: the reset's entry still names the tip.
    assert answer(probes.git_reflog_only(["main@{1}"])) == 0
    assert answer(probes.git_reflog_only(["main@{1}", "HEAD@{1}"])) == 0
    # --rewrite makes the reset's entry start from r1: the tip is named nowhere any more.
    assert answer(probes.git_reflog_only(["main@{1}", "HEAD@{1}"], None, True)) == 1
    assert probes.git_reflog_only(["main@{9}"])[0] is None
    git(repo, "reflog", "expire", "--expire=now", "--all")
    assert answer(Probes(str(repo)).git_reflog_only()) == 0
    assert answer(Probes(str(repo)).git_unreachable()) >= 2  # type: ignore[operator]
    git(repo, "gc", "-q", "--prune=now")
    assert git(repo, "cat-file", "-t", tip, check=False) == ""


def test_stash_entries_are_reflog_only(repo: Path) -> None:
    for text in ("a\n", "b\n"):
        (repo / "README.md").write_text(text)
        git(repo, "stash", "push", "-q")
    assert answer(Probes(str(repo)).git_reflog_only()) >= 1  # type: ignore[operator]


def test_unreachable_counts_a_dropped_stash(repo: Path) -> None:
    assert answer(Probes(str(repo)).git_unreachable()) == 0
    (repo / "README.md").write_text("changed\n")
    git(repo, "stash", "push", "-q")
    dropped = head(repo, "stash@{0}")
    git(repo, "stash", "drop", "-q")
    assert answer(Probes(str(repo)).git_unreachable()) >= 1  # type: ignore[operator]
    git(repo, "prune")
    assert git(repo, "cat-file", "-t", dropped, check=False) == ""
    assert answer(Probes(str(repo)).git_unreachable()) == 0


# -- examples -----------------------------------------------------------------------------------------


def test_examples_answer_the_new_probes() -> None:
    probes = ExampleProbes({"git": {"lost": {"refs/remotes/origin/main": 2}, "reflog_only": 3, "unreachable": 1}},
                           "/w")
    assert probes.git_lost("refs/remotes/origin/main", ["main"]) == (2, None)
    assert probes.git_lost("refs/heads/x", [])[0] is None
    assert probes.git_reflog_only() == (3, None)
    assert probes.git_unreachable() == (1, None)
    assert ExampleProbes({}, "/w").git_unreachable()[0] is None
