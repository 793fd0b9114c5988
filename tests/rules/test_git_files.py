"""discard-changes and clean-untracked in real repositories: a deny exactly where named files hold
changes the command would throw away, or where `git clean` would delete files; quiet cases are run
for real to show nothing was lost."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing import git, make_repo
from testing.gitrules import denied, quiet


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "work", {
        "README.md": "hello\n", "src/app.py": "x = 1\n", "src/util.py": "u = 1\n", "docs/guide.md": "g\n",
    })


# -- discard-changes: changes not staged ------------------------------------------------------------


@pytest.mark.parametrize("command", [
    "git checkout -- src/app.py",
    "git checkout src/app.py",
    "git checkout .",
    "git checkout -- src",
    "git checkout HEAD -- src/app.py",
    "git restore src/app.py",
    "git restore .",
    "git restore --worktree -- src/",
    "git restore '*.py'",
    "git checkout -- :/",
])
def test_unstaged_changes_are_not_discarded(repo: Path, command: str) -> None:
    (repo / "src" / "app.py").write_text("x = 2\n")
    reason = denied(command, repo, "discard-changes")
    assert "src/app.py" in reason and "git stash push -m 'discarded' --" in reason


@pytest.mark.parametrize("command", [
    "git checkout -- src/util.py",
    "git checkout -- docs",
    "git restore README.md",
    "git restore 'docs/*.md'",
    "git checkout -- . ':!src/app.py'",
    "git restore ':(exclude)src/app.py'",
])
def test_files_without_changes_restore_quietly(repo: Path, command: str) -> None:
    (repo / "src" / "app.py").write_text("x = 2\n")
    quiet(command, repo)


def test_a_branch_switch_is_not_a_discard(repo: Path) -> None:
    git(repo, "branch", "feature")
    (repo / "src" / "app.py").write_text("x = 2\n")
    quiet("git checkout feature", repo)
    git(repo, "checkout", "-q", "feature")
    assert (repo / "src" / "app.py").read_text() == "x = 2\n"


def test_from_a_subdirectory(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("x = 2\n")
    denied("git checkout -- app.py", repo / "src", "discard-changes")
    denied("git checkout .", repo / "src", "discard-changes")
    denied("git restore :/README.md :/src", repo / "docs", "discard-changes")
    quiet("git checkout .", repo / "docs")
    quiet("git restore ../README.md", repo / "src")
    denied("cd src && git restore app.py", repo, "discard-changes")


def test_a_deleted_file_comes_back_quietly(repo: Path) -> None:
    (repo / "src" / "app.py").unlink()
    (repo / "src" / "util.py").unlink()
    quiet("git checkout -- src/app.py", repo)
    quiet("git restore src", repo)
    git(repo, "restore", "src")
    assert (repo / "src" / "app.py").read_text() == "x = 1\n"


def test_an_untracked_file_is_not_restored(repo: Path) -> None:
    (repo / "new.txt").write_text("n\n")
    quiet("git checkout -- new.txt", repo)


# -- discard-changes: staged changes -------------------------------------------------------------------


def test_all_staged_from_the_index_loses_nothing(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("x = 2\n")
    git(repo, "add", "src/app.py")
    quiet("git checkout -- src/app.py", repo)
    quiet("git restore src/app.py", repo)
    quiet("git restore --staged src/app.py", repo)
    git(repo, "checkout", "--", "src/app.py")
    assert (repo / "src" / "app.py").read_text() == "x = 2\n"


def test_staged_changes_from_a_commit_are_lost(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("x = 2\n")
    git(repo, "add", "src/app.py")
    denied("git checkout HEAD -- src/app.py", repo, "discard-changes")
    denied("git restore --staged --worktree src/app.py", repo, "discard-changes")
    denied("git restore -SW src", repo, "discard-changes")
    denied("git restore --source=HEAD --staged --worktree -- src/app.py", repo, "discard-changes")


def test_staged_then_changed_again(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("x = 2\n")
    git(repo, "add", "src/app.py")
    (repo / "src" / "app.py").write_text("x = 3\n")
    denied("git checkout -- src/app.py", repo, "discard-changes")
    denied("git restore src/app.py", repo, "discard-changes")
    # The unstaged count is what tells it apart from the all-staged case, even with other changes.
    (repo / "README.md").write_text("changed\n")
    denied("git restore src/app.py", repo, "discard-changes")


def test_staged_file_among_other_unstaged_changes(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("x = 2\n")
    git(repo, "add", "src/app.py")
    (repo / "README.md").write_text("changed\n")
    quiet("git checkout -- src/app.py", repo)
    denied("git checkout -- README.md src/app.py", repo, "discard-changes")


def test_a_clean_tree(repo: Path) -> None:
    quiet("git checkout .", repo)
    quiet("git restore .", repo)
    quiet("git checkout HEAD -- src", repo)


# -- discard-changes: git rm -f and git mv -f ----------------------------------------------------------


def _in_a_copy(repo: Path, command: str, check: str) -> bool:
    """Whether the bash test CHECK holds after COMMAND ran for real in a copy of REPO."""
    import shutil
    import subprocess

    copy = repo.parent / "copy"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(repo, copy, symlinks=True)
    subprocess.run(["bash", "-c", command], cwd=copy, capture_output=True, check=False)
    held = subprocess.run(["bash", "-c", check], cwd=copy, capture_output=True, check=False)
    shutil.rmtree(copy)
    return held.returncode == 0


def _lost(repo: Path, command: str) -> bool:
    """Whether COMMAND, run for real in a copy of REPO, loses the change marked JOUET_MARK."""
    return _in_a_copy(repo, command, "! grep -rq JOUET_MARK --exclude-dir=.git . && ! git grep -q --cached JOUET_MARK")


@pytest.mark.parametrize("command", [
    "git rm -f src/app.py",
    "git rm -rf .",
    "git rm -r --force src",
    "git rm -qf -- src/app.py",
    "git rm --forc src/app.py",
    "git ls-files -m | xargs git rm -f",
    "git mv -f README.md src/app.py",
    "git mv --force -k docs/guide.md src/app.py",
])
def test_forced_removes_and_moves_over_changes(repo: Path, command: str) -> None:
    (repo / "src" / "app.py").write_text("x = 2  # JOUET_MARK\n")
    assert _lost(repo, command)
    reason = denied(command, repo, "discard-changes")
    assert "src/app.py" in reason and "git stash push -m 'before " in reason


def test_a_forced_remove_of_staged_changes(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("x = 2  # JOUET_MARK\n")
    git(repo, "add", "src/app.py")
    assert _lost(repo, "git rm -f src/app.py")
    denied("git rm -f src/app.py", repo, "discard-changes")


def test_a_forced_move_into_a_directory_over_a_changed_file(repo: Path) -> None:
    (repo / "lib").mkdir()
    (repo / "lib" / "app.py").write_text("old\n")
    git(repo, "add", "lib/app.py")
    git(repo, "commit", "-q", "-m", "lib")
    (repo / "lib" / "app.py").write_text("old  # JOUET_MARK\n")
    assert _lost(repo, "git mv -f src/app.py lib")
    reason = denied("git mv -f src/app.py lib", repo, "discard-changes")
    assert "lib/app.py" in reason
    quiet("git mv -f src/util.py lib", repo)  # (lib/util.py is not there: nothing is written over)


@pytest.mark.parametrize("command", [
    "git rm src/app.py",  # (git refuses a file with changes without -f)
    "git rm --cached -f src/app.py",  # (the work tree keeps its copy)
    "git rm -n -f src/app.py",
    "git rm -f README.md",
    "git rm -rf docs",
    "git mv README.md src/app.py",
    "git mv -f src/app.py src/moved.py",  # (the change moves with the file)
])
def test_removes_and_moves_that_keep_the_changes_are_quiet(repo: Path, command: str) -> None:
    (repo / "src" / "app.py").write_text("x = 2  # JOUET_MARK\n")
    assert not _lost(repo, command)
    quiet(command, repo)


@pytest.mark.parametrize("command", [
    "git diff | git apply -R",
    "git diff -- src | patch -R -p1",
    "git diff HEAD | git apply -R",
    "git show HEAD:src/app.py > src/app.py",
    "git show :src/app.py > src/app.py",
    "cd src && git cat-file -p HEAD:src/app.py > app.py",
    "cd src && git show HEAD:./app.py > app.py",
])
def test_discarding_by_hand(repo: Path, command: str) -> None:
    """What `git checkout -- FILE` does, spelled with a reversed diff or a blob written over the file."""
    (repo / "src" / "app.py").write_text("x = 2  # JOUET_MARK\n")
    assert _lost(repo, command)
    reason = denied(command, repo, "discard-changes")
    assert "src/app.py" in reason or "app.py" in reason


@pytest.mark.parametrize("command", [
    "git diff -- docs | git apply -R",
    "git diff --cached | git apply -R",
    "git show HEAD:src/app.py > /tmp/jouet-test-app.py",
    "git show HEAD:README.md > README.md",
])
def test_reversed_diffs_and_blobs_that_keep_the_changes(repo: Path, command: str) -> None:
    (repo / "src" / "app.py").write_text("x = 2  # JOUET_MARK\n")
    assert not _lost(repo, command)
    quiet(command, repo)


def test_a_forced_remove_in_a_clean_tree_is_quiet(repo: Path) -> None:
    quiet("git rm -rf .", repo)
    quiet("git mv -f README.md src/app.py", repo)


# -- clean-untracked ----------------------------------------------------------------------------------


@pytest.fixture
def ignoring(repo: Path) -> Path:
    (repo / ".gitignore").write_text("build/\n*.log\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-qm", "ignore")
    return repo


def test_clean_with_nothing_to_delete(ignoring: Path) -> None:
    for command in ("git clean -f", "git clean -fd", "git clean -fdx", "git clean -fX"):
        quiet(command, ignoring)


@pytest.mark.parametrize("command", ["git clean -f", "git clean -fd", "git clean --force -d", "git clean -fdx"])
def test_clean_over_untracked_files(ignoring: Path, command: str) -> None:
    (ignoring / "notes.txt").write_text("mine\n")
    reason = denied(command, ignoring, "clean-untracked")
    assert "1 untracked file" in reason and "git clean -n" in reason


@pytest.mark.parametrize("command", [
    "git ls-files -o | xargs rm -f",
    "git ls-files --others --exclude-standard -z | xargs -0 rm -rf",
    "git status --porcelain | grep '^??' | cut -c4- | xargs rm -rf",
    "git clean -n | cut -c14- | xargs rm",
])
def test_clean_by_hand(ignoring: Path, command: str) -> None:
    """git clean spelled as rm run by xargs on a listing of untracked files."""
    (ignoring / "notes.txt").write_text("mine\n")
    assert bash_gone(ignoring, command, "notes.txt")
    reason = denied(command, ignoring, "clean-untracked")
    assert "1 untracked file" in reason


def test_rm_by_xargs_on_other_lists_is_quiet(ignoring: Path) -> None:
    (ignoring / "notes.txt").write_text("mine\n")
    quiet("find . -name '*.pyc' | xargs rm -f", ignoring)
    quiet("git ls-files -o | xargs ls -l", ignoring)
    (ignoring / "notes.txt").unlink()
    quiet("git ls-files -o | xargs rm -f", ignoring)  # (nothing untracked)


def bash_gone(repo: Path, command: str, name: str) -> bool:
    """Whether COMMAND, run for real in a copy of REPO, deletes the file NAME."""
    return _in_a_copy(repo, command, f"! test -e {name}")


def test_clean_over_a_new_directory(ignoring: Path) -> None:
    (ignoring / "new" / "deep").mkdir(parents=True)
    (ignoring / "new" / "deep" / "x.py").write_text("x\n")
    denied("git clean -fd", ignoring, "clean-untracked")


def test_ignored_files_are_only_at_risk_with_x(ignoring: Path) -> None:
    (ignoring / "build").mkdir()
    (ignoring / "build" / "out.o").write_text("o\n")
    (ignoring / "debug.log").write_text("l\n")
    quiet("git clean -fd", ignoring)
    git(ignoring, "clean", "-q", "-fd")
    assert (ignoring / "build" / "out.o").exists() and (ignoring / "debug.log").exists()
    reason = denied("git clean -fdx", ignoring, "clean-untracked")
    assert "2 ignored files or directories" in reason and "git clean -ndx" in reason
    denied("git clean -fX", ignoring, "clean-untracked")
    denied("git clean -xf", ignoring, "clean-untracked")


def test_only_ignored_leaves_untracked_alone(ignoring: Path) -> None:
    (ignoring / "notes.txt").write_text("mine\n")
    quiet("git clean -fX", ignoring)
    git(ignoring, "clean", "-q", "-fX")
    assert (ignoring / "notes.txt").exists()


def test_dry_runs_and_refusals(ignoring: Path) -> None:
    (ignoring / "notes.txt").write_text("mine\n")
    for command in ("git clean -n", "git clean -ndx", "git clean --dry-run", "git clean -d"):
        quiet(command, ignoring)


def test_a_directory_reached_through_a_symbolic_link(tmp_path: Path) -> None:
    # git names changed files under the real root; the agent's directory goes through a link.
    real = make_repo(tmp_path / "real" / "proj", {"src/app.py": "x = 1\n", "README.md": "r\n"})
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    (real / "src" / "app.py").write_text("x = 2\n")
    through = tmp_path / "alias" / "proj"
    reason = denied("git checkout -- src/app.py", through, "discard-changes")
    assert "changes in src/app.py" in reason
    denied("git checkout .", through / "src", "discard-changes")
    quiet("git checkout -- README.md", through)
