"""git.state, git.changed, git.ahead and git.tree against real repositories in every state."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from testing import git, make_repo

from jouet_git.probes.core import ProbeError, Probes


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"README.md": "hello\n", "src/a.py": "a = 1\n", "src/b.py": "b\n"})


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


def state(cwd: Path | str, dir: str | None = None) -> dict[str, object]:
    value, reason = Probes(str(cwd)).git_state(dir)
    assert reason is None, reason
    assert isinstance(value, dict)
    return value


# -- git.state ------------------------------------------------------------------------------------


def test_state_of_a_clean_work_tree(repo: Path) -> None:
    assert state(repo) == {
        "branch": "main", "head": head(repo)[:12], "changed": 0, "untracked": 0, "conflicted": 0,
        "dirty": False,
    }


def test_state_counts_changed_untracked_but_not_ignored(repo: Path) -> None:
    (repo / ".gitignore").write_text("*.log\nbuild/\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-qm", "ignore")
    (repo / "README.md").write_text("changed, not staged\n")
    (repo / "src" / "a.py").write_text("a = 2\n")
    git(repo, "add", "src/a.py")  # staged
    (repo / "src" / "b.py").write_text("b staged\n")
    git(repo, "add", "src/b.py")
    (repo / "src" / "b.py").write_text("b staged, then changed again\n")  # staged and unstaged: one file
    (repo / "notes.txt").write_text("new\n")
    (repo / "new" / "deep").mkdir(parents=True)
    (repo / "new" / "deep" / "x.txt").write_text("x\n")
    (repo / "debug.log").write_text("ignored\n")
    (repo / "build").mkdir()
    (repo / "build" / "out.o").write_text("ignored\n")
    got = state(repo)
    assert got["changed"] == 3
    assert got["untracked"] == 2  # each untracked file, inside new directories too
    assert got["conflicted"] == 0
    assert got["dirty"] is True


def test_only_untracked_files_make_it_dirty(repo: Path) -> None:
    (repo / "scratch.txt").write_text("x\n")
    got = state(repo)
    assert got["dirty"] is True and got["changed"] == 0 and got["untracked"] == 1


def test_a_rename_counts_once(repo: Path) -> None:
    git(repo, "mv", "src/a.py", "src/renamed.py")
    got = state(repo)
    assert got["changed"] == 1 and got["untracked"] == 0


def test_detached_head_has_no_branch(repo: Path) -> None:
    git(repo, "checkout", "-q", "--detach")
    got = state(repo)
    assert "branch" not in got
    assert got["head"] == head(repo)[:12]


def test_an_unborn_branch_has_no_head(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "fresh", {"a.txt": "a\n"}, commit=False)
    got = state(repo)
    assert got["branch"] == "main" and "head" not in got
    assert got["untracked"] == 1


def test_conflicts_are_counted(repo: Path) -> None:
    git(repo, "checkout", "-qb", "other")
    (repo / "README.md").write_text("theirs\n")
    git(repo, "commit", "-qam", "theirs")
    git(repo, "checkout", "-q", "main")
    (repo / "README.md").write_text("ours\n")
    git(repo, "commit", "-qam", "ours")
    git(repo, "merge", "-q", "other", check=False)
    got = state(repo)
    assert got["conflicted"] == 1 and got["dirty"] is True


@pytest.fixture
def cloned(tmp_path: Path, repo: Path) -> tuple[Path, Path]:
    """(a clone of REPO tracking a bare remote, a second clone that pushes to the same remote)."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(remote))
    mine = tmp_path / "mine"
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote), str(mine))
    git(tmp_path, "clone", "-q", str(remote), str(other))
    return mine, other


def test_ahead_and_behind_of_the_upstream(cloned: tuple[Path, Path]) -> None:
    mine, other = cloned
    assert state(mine)["upstream"] == "origin/main"
    assert (state(mine)["ahead"], state(mine)["behind"]) == (0, 0)
    for n in range(2):
        (other / f"o{n}.txt").write_text("o\n")
        git(other, "add", ".")
        git(other, "commit", "-qm", f"other {n}")
    git(other, "push", "-q")
    for n in range(3):
        (mine / f"m{n}.txt").write_text("m\n")
        git(mine, "add", ".")
        git(mine, "commit", "-qm", f"mine {n}")
    git(mine, "fetch", "-q")
    got = state(mine)
    assert (got["ahead"], got["behind"]) == (3, 2)
    assert got["dirty"] is False


def test_a_branch_without_upstream_has_no_counts(repo: Path) -> None:
    got = state(repo)
    assert "upstream" not in got and "ahead" not in got and "behind" not in got


def test_state_of_another_directory(repo: Path, tmp_path: Path) -> None:
    other = make_repo(tmp_path / "other", {"x": "x\n"})
    git(other, "checkout", "-qb", "feature")
    assert state(repo, str(other))["branch"] == "feature"
    assert state(repo, "../other")["branch"] == "feature"  # relative to the call's directory


def test_dir_under_home(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    elsewhere = make_repo(home / "code" / "proj", {"x": "x\n"})
    git(elsewhere, "checkout", "-qb", "from-home")
    assert state(tmp_path, "~/code/proj")["branch"] == "from-home"
    assert state(tmp_path, "$HOME/code/proj")["branch"] == "from-home"


def test_outside_a_repository(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    p = Probes(str(tmp_path / "plain"))
    for probe in (p.git_state, p.git_tree, p.git_changed, p.repo, p.stack_layer):
        assert probe() == (None, "not in a git repository")
    assert p.git_ahead("main", "main") == (None, "not in a git repository")
    assert p.git_processes == 0


def test_a_missing_directory(repo: Path) -> None:
    value, reason = Probes(str(repo)).git_state("no/such/dir")
    assert value is None and reason == f"no such directory: {repo / 'no/such/dir'}"


def test_state_in_a_linked_worktree(repo: Path, tmp_path: Path) -> None:
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "side", str(wt))
    (wt / "side.txt").write_text("s\n")
    got = state(wt)
    assert got["branch"] == "side" and got["untracked"] == 1
    assert state(repo)["untracked"] == 0


# -- git.changed ----------------------------------------------------------------------------------


def test_changed_staged_takes_additions_deletions_and_both_sides_of_a_rename(repo: Path) -> None:
    (repo / "added.txt").write_text("new\n")
    git(repo, "add", "added.txt")
    git(repo, "rm", "-q", "src/b.py")
    git(repo, "mv", "src/a.py", "src/moved.py")
    (repo / "README.md").write_text("unstaged change\n")  # not staged: not taken
    (repo / "untracked.txt").write_text("u\n")
    value, reason = Probes(str(repo)).git_changed("staged")
    assert reason is None
    taken = ("added.txt", "src/b.py", "src/a.py", "src/moved.py")
    assert sorted(value) == sorted(str(repo / p) for p in taken)


def test_changed_defaults_to_staged(repo: Path) -> None:
    (repo / "README.md").write_text("unstaged\n")
    assert Probes(str(repo)).git_changed() == ([], None)


def test_changed_tracked_is_what_commit_a_takes(repo: Path) -> None:
    (repo / "README.md").write_text("unstaged change\n")
    (repo / "src" / "a.py").write_text("staged\n")
    git(repo, "add", "src/a.py")
    (repo / "src" / "b.py").unlink()  # deleted, not staged
    (repo / "untracked.txt").write_text("u\n")  # commit -a leaves it out
    value, reason = Probes(str(repo / "src")).git_changed("tracked")
    assert reason is None
    assert sorted(value) == sorted(str(repo / p) for p in ("README.md", "src/a.py", "src/b.py"))


def test_changed_on_an_unborn_branch(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "fresh", {"a.txt": "a\n", "b.txt": "b\n"}, commit=False)
    git(repo, "add", "a.txt")
    assert Probes(str(repo)).git_changed("staged") == ([str(repo / "a.txt")], None)
    assert Probes(str(repo)).git_changed("tracked") == ([str(repo / "a.txt")], None)


def test_changed_refuses_an_unknown_scope(repo: Path) -> None:
    with pytest.raises(ProbeError, match="unknown scope 'all'"):
        Probes(str(repo)).git_changed("all")


def test_changed_paths_are_absolute_from_a_subdirectory(repo: Path) -> None:
    (repo / "src" / "a.py").write_text("x\n")
    git(repo, "add", "-u")
    assert Probes(str(repo / "src")).git_changed() == ([str(repo / "src" / "a.py")], None)


# -- git.ahead ------------------------------------------------------------------------------------


@pytest.fixture
def branched(repo: Path) -> Path:
    git(repo, "checkout", "-qb", "feature")
    for n in range(3):
        (repo / f"f{n}.txt").write_text(f"{n}\n")
        git(repo, "add", ".")
        git(repo, "commit", "-qm", f"feature {n}")
    git(repo, "checkout", "-q", "main")
    return repo


def test_ahead_of_a_branch_and_a_sha(branched: Path) -> None:
    p = Probes(str(branched))
    assert p.git_ahead("feature", "main") == (3, None)
    assert p.git_ahead("main", "feature") == (0, None)
    feature_parent = git(branched, "rev-parse", "feature~1").strip()
    assert p.git_ahead("feature", feature_parent) == (1, None)
    assert p.git_ahead("feature", feature_parent[:10]) == (1, None)


def test_ahead_of_a_remote_branch(cloned: tuple[Path, Path]) -> None:
    mine, _ = cloned
    for n in range(2):
        (mine / f"m{n}.txt").write_text("m\n")
        git(mine, "add", ".")
        git(mine, "commit", "-qm", f"mine {n}")
    assert Probes(str(mine)).git_ahead("main", "origin/main") == (2, None)


def test_ahead_of_a_missing_local_branch(branched: Path) -> None:
    value, reason = Probes(str(branched)).git_ahead("nope", "main")
    assert value is None and reason == "no local branch 'nope'"
    # A remote-tracking name is not a local branch.
    value, reason = Probes(str(branched)).git_ahead("origin/main", "main")
    assert value is None and reason == "no local branch 'origin/main'"


def test_ahead_of_an_unknown_revision(branched: Path) -> None:
    value, reason = Probes(str(branched)).git_ahead("feature", "origin/nope")
    assert value is None and reason is not None and "'origin/nope' does not resolve" in reason


def test_ahead_refuses_names_git_would_read_as_ranges_or_options(branched: Path) -> None:
    p = Probes(str(branched))
    value, reason = p.git_ahead("main..feature", "main")
    assert value is None and reason is not None and "not a valid branch name" in reason
    with pytest.raises(ProbeError, match="not a branch or revision name"):
        p.git_ahead("--all", "main")
    with pytest.raises(ProbeError, match="not a branch or revision name"):
        p.git_ahead("feature", "--output=/tmp/x")
    with pytest.raises(ProbeError, match="must be a string"):
        p.git_ahead("feature", 3)  # type: ignore[arg-type]


def test_ahead_in_another_directory(branched: Path, tmp_path: Path) -> None:
    assert Probes(str(tmp_path)).git_ahead("feature", "main", str(branched)) == (3, None)


# -- git.tree -------------------------------------------------------------------------------------


def tree(cwd: Path) -> str:
    value, reason = Probes(str(cwd)).git_tree()
    assert reason is None, reason
    assert isinstance(value, str)
    return value


def committed_tree(repo: Path) -> str:
    """What `git add -A` then write-tree gives, in a copy of the repository (this one is untouched)."""
    copy = repo.parent / (repo.name + "-copy")
    shutil.copytree(repo, copy, symlinks=True)
    git(copy, "add", "-A")
    result = git(copy, "write-tree").strip()
    shutil.rmtree(copy)
    return result


def test_a_clean_tree_hashes_to_heads_tree(repo: Path) -> None:
    assert tree(repo) == git(repo, "rev-parse", "HEAD^{tree}").strip()


def test_the_tree_is_what_committing_everything_would_record(repo: Path) -> None:
    (repo / ".gitignore").write_text("*.log\n")
    (repo / "README.md").write_text("changed\n")  # modified, unstaged
    (repo / "src" / "a.py").write_text("staged\n")
    git(repo, "add", "src/a.py")
    (repo / "src" / "a.py").write_text("staged, then changed on disk\n")
    (repo / "src" / "b.py").unlink()  # deleted
    (repo / "tool.sh").write_text("#!/bin/sh\n")
    (repo / "tool.sh").chmod(0o755)  # untracked, executable
    os.symlink("README.md", repo / "link")
    (repo / "deep" / "er").mkdir(parents=True)
    (repo / "deep" / "er" / "x.txt").write_text("x\n")
    (repo / "noise.log").write_text("ignored\n")
    assert tree(repo) == committed_tree(repo)


def test_the_tree_hash_does_not_touch_the_index(repo: Path) -> None:
    (repo / "README.md").write_text("changed\n")
    index = repo / ".git" / "index"
    before = (index.stat().st_mtime_ns, index.read_bytes())
    tree(repo)
    assert (index.stat().st_mtime_ns, index.read_bytes()) == before
    assert not (repo / ".git" / "index.lock").exists()
    assert git(repo, "status", "--porcelain") == " M README.md\n"


def test_same_content_hashes_the_same_staged_or_not(repo: Path, tmp_path: Path) -> None:
    (repo / "README.md").write_text("new text\n")
    unstaged = tree(repo)
    git(repo, "add", "README.md")
    assert tree(repo) == unstaged
    git(repo, "commit", "-qm", "commit it")
    assert tree(repo) == unstaged
    (repo / "README.md").write_text("other text\n")
    assert tree(repo) != unstaged


def test_ignored_files_do_not_change_the_tree(repo: Path) -> None:
    (repo / ".gitignore").write_text("*.log\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-qm", "ignore logs")
    before = tree(repo)
    (repo / "run.log").write_text("noise\n")
    assert tree(repo) == before


def test_more_than_a_thousand_untracked_files_are_left_out(repo: Path) -> None:
    base = tree(repo)
    many = repo / "generated"
    many.mkdir()
    for n in range(1000):
        (many / f"{n}.txt").write_text(f"{n}\n")
    with_them = tree(repo)
    assert with_them != base and with_them == committed_tree(repo)
    (many / "one-more.txt").write_text("x\n")
    assert tree(repo) == base


def test_conflicted_files_hash_as_they_are_on_disk(repo: Path) -> None:
    git(repo, "checkout", "-qb", "other")
    (repo / "README.md").write_text("theirs\n")
    git(repo, "commit", "-qam", "theirs")
    git(repo, "checkout", "-q", "main")
    (repo / "README.md").write_text("ours\n")
    git(repo, "commit", "-qam", "ours")
    git(repo, "merge", "-q", "other", check=False)
    assert tree(repo) == committed_tree(repo)


def test_an_unborn_repository_with_nothing_is_the_empty_tree(tmp_path: Path) -> None:
    repo = tmp_path / "empty"
    repo.mkdir()
    git(repo, "init", "-q")
    assert tree(repo) == "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def test_a_sha256_repository(tmp_path: Path) -> None:
    repo = tmp_path / "sha256"
    repo.mkdir()
    git(repo, "init", "-q", "--object-format=sha256", check=False)
    if not (repo / ".git").exists():
        pytest.skip("this git cannot make sha256 repositories")
    (repo / "a.txt").write_text("a\n")
    assert tree(repo) == committed_tree(repo)
    assert len(tree(repo)) == 64
