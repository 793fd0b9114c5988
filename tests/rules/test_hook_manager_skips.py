"""The switches hook managers read to skip their hooks (pre-commit's SKIP, husky's HUSKY=0...) are
denied like --no-verify. pre-commit's is run for real: its failing hook stops a plain commit, and
SKIP lets the same commit through."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testing import git, make_repo
from testing.gitrules import denied, quiet

PRE_COMMIT = shutil.which("pre-commit") or str(Path(sys.executable).parent / "pre-commit")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n"})
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n  - id: refuse\n    name: refuse\n    entry: 'false'\n"
        "    language: system\n    always_run: true\n    pass_filenames: false\n")
    git(repo, "add", ".pre-commit-config.yaml")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pc-home")}
    subprocess.run([PRE_COMMIT, "install"], cwd=repo, check=True, capture_output=True, env=env)
    (repo / "notes.md").write_text("work\n")
    git(repo, "add", "notes.md")
    return repo


def commit(command: str, repo: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(repo.parent / "pc-home")}
    return subprocess.run(["bash", "-c", command], cwd=repo, capture_output=True, text=True, env=env)


@pytest.mark.skipif(not Path(PRE_COMMIT).exists(), reason="pre-commit is installed by scripts/test")
def test_skip_passes_a_failing_pre_commit_hook_and_is_denied(repo: Path) -> None:
    assert commit("git commit -q -m plain", repo).returncode != 0  # the hook refuses
    command = "SKIP=refuse git commit -q -m skipped"
    denied(command, repo, "no-verify")
    assert commit(command, repo).returncode == 0  # SKIP really skips it
    quiet("SKIP=1 make test", repo)


@pytest.mark.parametrize("command", ["HUSKY=0 git commit -m x", "env LEFTHOOK=0 git push origin main",
                                     "export SKIP=jouet; git commit -m x", "OVERCOMMIT_DISABLE=1 git commit -m x"])
def test_other_hook_manager_switches_are_denied(tmp_path: Path, command: str) -> None:
    denied(command, make_repo(tmp_path / "r", {"a.txt": "a\n"}), "no-verify")
