"""git's option reading: the shipped data matches the installed git, abbreviations resolve as git
resolves them, and a command git refuses (or answers with its usage) is left alone because it
changes nothing. Each effect is checked by running the command for real."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from testing import ROOT, git
from testing.gitrules import commit, denied, quiet, with_remote
from testing.realrun import bash, failing_hook

from jouet_git import gitopts


def test_shipped_data_matches_the_installed_git() -> None:
    proc = subprocess.run([str(ROOT / "scripts" / "git-options"), "--check"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_the_data_is_read_only_when_needed() -> None:
    gitopts._data = None
    gitopts._specs.clear()
    for argv in (["git", "status"], ["git", "commit", "-am", "x"], ["git", "log", "--oneline", "-5"],
                 ["git", "add", "-A", "--", "--hard"]):
        reading = gitopts.read(argv)
        assert reading.refused is None and reading.words == argv
    assert gitopts._data is None
    assert gitopts.read(["git", "reset", "--ha"]).words == ["git", "reset", "--hard"]
    assert gitopts._data is not None


# Commands whose every long option is tried: its shortest unique abbreviation and one letter less.
SAMPLED = ["reset", "push", "commit", "branch", "checkout", "switch", "restore", "clean", "tag", "merge",
           "rebase", "stash push", "stash drop", "worktree remove", "reflog expire", "update-ref", "gc", "config"]


def _git_says(repo: Path, sub: str, word: str) -> str:
    """How git reads WORD: a `-h` after it prints the usage once WORD was read without error (an
    option of a value git checks may complain about the value instead, or take `-h` as its value:
    either way it knew the option)."""
    proc = subprocess.run(["git", *sub.split(), word, "-h"], cwd=repo,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30)
    out = proc.stdout + proc.stderr
    if "ambiguous option" in out:
        return "ambiguous"
    if "unknown option" in out:
        return "unknown"
    return "known"


@pytest.mark.parametrize("sub", SAMPLED)
def test_abbreviations_resolve_as_git_resolves_them(tmp_path: Path, sub: str) -> None:
    git(tmp_path, "init", "-q")
    spec = gitopts.spec(sub)
    assert spec is not None and spec.long
    tried = 0
    spellings = [*spec.long, *(gitopts._negated(name) for name in spec.negatable)]
    for name in spellings:
        unique = [k for k in range(1, len(name) + 1) if spec.resolve(name[:k]) == spec.resolve(name)]
        for k in {unique[0], unique[0] - 1, len(name)} - {0}:
            prefix = name[:k]
            names = spec.resolve(prefix)
            ours = "known" if len(names) == 1 else ("ambiguous" if names else "unknown")
            word = f"--{prefix}=x" if ours == "known" and spec.takes_value(names[0]) else f"--{prefix}"
            assert _git_says(tmp_path, sub, word) == ours, f"git {sub} {word}: jouet reads it as {names}"
            tried += 1
    assert tried >= len(spellings)


# -- the same rule fires for an abbreviation, and git really does lose the work ------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = with_remote(tmp_path)
    (repo / "src" / "app.py").write_text("x = 2  # not committed\n")
    return repo


@pytest.mark.parametrize("command", ["git reset --ha", "git reset --har HEAD", "git reset -q --h"])
def test_abbreviated_hard_reset(repo: Path, command: str) -> None:
    denied(command, repo, "reset-hard")
    assert bash(command, repo).returncode == 0
    assert (repo / "src" / "app.py").read_text() == "x = 1\n"  # the change is gone


@pytest.mark.parametrize("command", ["git commit -am wip --no-verif", "git commit --no-veri -am wip"])
def test_abbreviated_no_verify(repo: Path, command: str) -> None:
    failing_hook(repo)
    denied(command, repo, "no-verify")
    assert bash("git commit -am wip", repo).returncode != 0  # the hook does refuse it
    assert bash(command, repo).returncode == 0  # and this skips it
    assert git(repo, "log", "-1", "--format=%s").strip() == "wip"


def test_abbreviated_force_push(repo: Path, tmp_path: Path) -> None:
    commit(repo, "a.txt", "a\n")
    git(repo, "push", "-q")
    dropped = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "reset", "-q", "--keep", "HEAD~1")
    remote = tmp_path / "remote.git"
    quiet("git push --force origin main --dry", repo)  # --dry is --dry-run: nothing is sent
    assert bash("git push --force origin main --dry", repo).returncode == 0
    assert git(remote, "rev-parse", "main").strip() == dropped
    denied("git push --force origin main --verb", repo, "force-push")
    assert bash("git push --force origin main --verb", repo).returncode == 0
    assert git(remote, "rev-parse", "main").strip() != dropped


# -- what git refuses or only answers with its usage changes nothing: quiet ---------------------------


@pytest.mark.parametrize(("command", "why"), [
    ("git reset --hard -h", "usage"),
    ("git reset -h --hard", "usage"),
    ("git reset --hard HEAD --help", "usage"),
    ("git reset --hard --help-all", "usage"),
    ("git reset --hard -qh", "usage"),
    ("git reset --hard --no-such-option", "unknown option"),
    ("git reset --hard -Z", "unknown switch"),
    ("git reset --hard --patch", "cannot be used together"),
    ("git reset --hard -- src/app.py", "Cannot do hard reset with paths"),
    ("git reset --keep -- src/app.py", "Cannot do keep reset with paths"),
    ("git --version reset --hard", "version"),
    ("git version", "version"),
])
def test_refused_or_usage_only_reset(repo: Path, command: str, why: str) -> None:
    quiet(command, repo)
    proc = bash(command, repo)
    assert why in proc.stdout + proc.stderr
    assert (repo / "src" / "app.py").read_text() == "x = 2  # not committed\n"


def test_a_value_that_looks_like_help_is_a_value(repo: Path) -> None:
    failing_hook(repo)
    denied("git commit -am -h --no-verify", repo, "no-verify")
    assert bash("git commit -am -h --no-verify", repo).returncode == 0
    assert git(repo, "log", "-1", "--format=%s").strip() == "-h"


@pytest.mark.parametrize(("command", "why"), [
    ("git push --forc origin main", "ambiguous option"),
    ("git push --force --delete --all origin", "cannot be used together"),
    ("git push --force --mirror origin main", "can't be combined with refspecs"),
    ("git push --force --all origin main", "can't be combined with refspecs"),
    ("git push --force --all --tags origin", "cannot be used together"),
    ("git push -f -d origin", "doesn't make sense without any refs"),
    ("git push --force origin main -h", "usage"),
])
def test_refused_push(repo: Path, tmp_path: Path, command: str, why: str) -> None:
    commit(repo, "a.txt", "a\n")
    git(repo, "push", "-q")
    git(repo, "reset", "-q", "--keep", "HEAD~1")
    before = git(tmp_path / "remote.git", "rev-parse", "main")
    quiet(command, repo)
    proc = bash(command, repo)
    assert proc.returncode != 0 and why in proc.stdout + proc.stderr
    assert git(tmp_path / "remote.git", "rev-parse", "main") == before


@pytest.mark.parametrize("command", ["git branch -D -m feature x", "git branch -M -D feature main",
                                     "git branch -D feature -c x"])
def test_refused_branch(repo: Path, command: str) -> None:
    git(repo, "checkout", "-qb", "feature")
    commit(repo, "f.txt", "f\n")
    git(repo, "checkout", "-q", "main")
    quiet(command, repo)
    assert bash(command, repo).returncode == 129
    assert git(repo, "rev-parse", "--verify", "-q", "feature").strip()


def test_refused_checkout(repo: Path) -> None:
    quiet("git checkout -f -m main", repo)
    assert bash("git checkout -f -m main", repo).returncode == 128
    assert (repo / "src" / "app.py").read_text() == "x = 2  # not committed\n"


def test_versions_decide_what_is_believed(monkeypatch: pytest.MonkeyPatch) -> None:
    data = gitopts.data_version()
    try:
        gitopts.set_installed_version((*data[:1], data[1] + 1, 0))  # a newer git may know the option
        assert gitopts.read(["git", "reset", "--hard", "--brand-new"]).refused is None
        assert gitopts.read(["git", "push", "--forc"]).refused is not None
        gitopts.set_installed_version((data[0], data[1] - 1, 0))  # an older one may lack a candidate
        older = gitopts.read(["git", "push", "--forc"])
        assert older.refused is None and "--force" in older.alternatives["--forc"]
        assert gitopts.read(["git", "reset", "--hard", "--brand-new"]).refused is not None
        assert gitopts.read(["git", "reset", "--hard", "-h"]).refused is not None
    finally:
        gitopts.set_installed_version(None)
