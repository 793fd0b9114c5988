"""index-overwrite: git's plumbing that writes over the work tree (read-tree -u --reset,
checkout-index -f) is denied when it would overwrite uncommitted changes. Each command is run for
real in a copy of the same state, to show the work really goes."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing import git, make_repo
from testing.gitrules import denied, quiet
from testing.realrun import bash


def state(path: Path, staged: bool = False) -> Path:
    """A repository whose app.py holds an uncommitted change (staged too when STAGED)."""
    repo = make_repo(path, {"app.py": "x = 1\n", "README.md": "hi\n"})
    (repo / "app.py").write_text("x = 2  # work\n")
    if staged:
        git(repo, "add", "app.py")
    return repo


def lost(repo: Path) -> bool:
    return (repo / "app.py").read_text() == "x = 1\n"


@pytest.mark.parametrize(("command", "staged"), [
    ("git read-tree -u --reset HEAD", False),
    ("git read-tree -u --reset HEAD", True),
    ("git read-tree --reset -u HEAD", False),
    ("git checkout-index -f -a", False),
    ("git checkout-index -fa", False),
    ("git checkout-index --force -- app.py", False),
    ("echo app.py | xargs git checkout-index -f --", False),
    ("sh -c 'git read-tree -u --reset HEAD'", False),
])
def test_overwriting_plumbing_is_denied_when_work_would_go(tmp_path: Path, command: str, staged: bool) -> None:
    denied(command, state(tmp_path / "asked", staged), "index-overwrite")
    real = state(tmp_path / "real", staged)
    bash(command, real)
    assert lost(real), "the command did not overwrite the change"


@pytest.mark.parametrize("command", [
    "git read-tree --reset HEAD",          # the index only
    "git checkout-index -a",               # refuses to overwrite a file that is there
    "git checkout-index -f -a --prefix=out/",  # written elsewhere
])
def test_plumbing_that_leaves_the_work_tree_alone_is_quiet(tmp_path: Path, command: str) -> None:
    quiet(command, state(tmp_path / "asked"))
    real = state(tmp_path / "real")
    bash(command, real)
    assert not lost(real)


def test_a_clean_work_tree_has_nothing_to_lose(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "clean", {"app.py": "x = 1\n"})
    quiet("git read-tree -u --reset HEAD", repo)
    quiet("git checkout-index -f -a", repo)
