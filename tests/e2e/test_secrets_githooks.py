"""committed-secrets from git's own hooks: `jouet setup git`, then plain git, with no agent involved.

A commit or a push made by a person, a Makefile or a script is refused with the rule's message on
stderr, and nothing is recorded or sent; a clean one goes through.
"""

from __future__ import annotations

import random
import string
import subprocess
from pathlib import Path

import pytest
from testing import git, make_repo, run_jouet

from jouet_git.gitleaks import binary

pytestmark = pytest.mark.skipif(binary.find_gitleaks() is None, reason="gitleaks is not installed")

RULE = "[jouet rule: committed-secrets]"


def github_token() -> str:
    rng = random.Random()
    return "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    remote = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    work = make_repo(tmp_path / "work", {"README.md": "hello\n", "app.py": "x = 1\n"})
    git(work, "remote", "add", "origin", str(remote))
    git(work, "push", "-q", "origin", "main")
    git(work, "switch", "-q", "-c", "feature")
    setup = run_jouet("setup", "git", cwd=work)
    assert setup.returncode == 0, setup.stderr
    return work


def plain_git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, timeout=120)


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


def test_git_commit_with_a_staged_secret_is_refused(repo: Path) -> None:
    token = github_token()
    (repo / "deploy.sh").write_text(f"#!/bin/sh\nexport GH={token}\n")
    git(repo, "add", "deploy.sh")
    before = head(repo)

    proc = plain_git(repo, "commit", "-m", "deploy script")
    assert proc.returncode != 0
    assert RULE in proc.stderr
    assert "deploy.sh:2 (github-pat)" in proc.stderr
    assert "JOUET_ALLOW=committed-secrets" in proc.stderr  # a person may let this one through
    assert token not in proc.stderr + proc.stdout
    assert head(repo) == before
    assert git(repo, "diff", "--cached", "--name-only").split() == ["deploy.sh"]  # still staged


def test_git_commit_all_is_scanned_through_git_s_temporary_index(repo: Path) -> None:
    token = github_token()
    (repo / "app.py").write_text(f"x = 1\nGH = '{token}'\n")  # tracked, not staged
    before = head(repo)
    proc = plain_git(repo, "commit", "-a", "-m", "wip")
    assert proc.returncode != 0
    assert "app.py:2 (github-pat)" in proc.stderr and RULE in proc.stderr
    assert head(repo) == before


def test_a_clean_commit_goes_through(repo: Path) -> None:
    (repo / "app.py").write_text("x = 2\n")
    git(repo, "add", "app.py")
    proc = plain_git(repo, "commit", "-m", "two")
    assert proc.returncode == 0, proc.stderr
    assert RULE not in proc.stderr
    assert git(repo, "log", "-1", "--format=%s").strip() == "two"


def test_a_committed_gitleaksignore_entry_lets_the_commit_through(repo: Path) -> None:
    (repo / "fixture.txt").write_text(f"sample: {github_token()}\n")
    git(repo, "add", "fixture.txt")
    refused = plain_git(repo, "commit", "-m", "fixture")
    assert refused.returncode != 0
    fingerprint = refused.stderr.split("fingerprint, for them: `", 1)[1].split("`", 1)[0]
    # In the same commit as the fixture, the entry silences nothing.
    (repo / ".gitleaksignore").write_text(fingerprint + "\n")
    git(repo, "add", ".gitleaksignore")
    assert plain_git(repo, "commit", "-m", "fixture").returncode != 0
    # Committed first (the person's call), it does.
    git(repo, "restore", "--staged", "fixture.txt")
    assert plain_git(repo, "commit", "-m", "ignore a test fixture").returncode == 0
    git(repo, "add", "fixture.txt")
    proc = plain_git(repo, "commit", "-m", "fixture")
    assert proc.returncode == 0, proc.stderr


def test_git_push_of_a_commit_with_a_secret_is_refused(repo: Path) -> None:
    token = github_token()
    (repo / "notes.md").write_text(f"the token is {token}\n")
    git(repo, "add", "notes.md")
    # Committed with the hook bypassed, as an older clone without jouet's hooks would have.
    git(repo, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "notes")
    sha = head(repo)

    proc = plain_git(repo, "push", "origin", "feature")
    assert proc.returncode != 0
    assert RULE in proc.stderr
    assert f"notes.md:1 in commit {sha[:7]} (github-pat)" in proc.stderr
    assert token not in proc.stderr
    remote_branches = git(repo, "ls-remote", "--heads", "origin")
    assert "refs/heads/feature" not in remote_branches  # nothing was sent


def test_git_push_of_clean_commits_goes_through(repo: Path) -> None:
    (repo / "app.py").write_text("x = 3\n")
    git(repo, "commit", "-q", "-am", "three")
    proc = plain_git(repo, "push", "origin", "feature")
    assert proc.returncode == 0, proc.stderr
    assert git(repo, "ls-remote", "origin", "refs/heads/feature").split()[0] == head(repo)
