"""git's own hooks deciding for real: pushes and commits made with plain git, from a Python
subprocess and from a Makefile, through jouet's native hooks and through the pre-commit framework
(`pre-commit try-repo`, which pip-installs this checkout into an environment of its own)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testing import ROOT, git, make_repo, run_jouet

SOURCE = ROOT
AWS_KEY = "AKIA" + "QYLPMN5HHHFPZAM2"  # split so this file itself holds no secret
AWS_SECRET = "Wm9" + "vbGFuZGVyZ2VzY2hpY2h0ZSBpc3Qgc2Nob2Vu"
SECRET_LINE = f'aws_access_key_id = "{AWS_KEY}"\naws_secret_access_key = "{AWS_SECRET}"\n'


def plain(repo: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=repo, capture_output=True, text=True, env={**os.environ, **(env or {})},
                          timeout=120)


@pytest.fixture
def pushed(tmp_path: Path) -> tuple[Path, Path]:
    """A repository with jouet's hooks, whose main is pushed to a local bare remote."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    repo = make_repo(tmp_path / "repo", {"README.md": "hello\n", "src/app.py": "print('hi')\n"})
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "-u", "origin", "main")
    setup = run_jouet("setup", "git", cwd=repo)
    assert setup.returncode == 0, setup.stderr
    return repo, remote


def rewrite_history(repo: Path) -> None:
    (repo / "README.md").write_text("rewritten\n")
    git(repo, "commit", "-q", "-a", "--amend", "-m", "rewritten")


def test_ordinary_commits_and_pushes_pass_silently(pushed: tuple[Path, Path]) -> None:
    repo, _ = pushed
    (repo / "src" / "app.py").write_text("print('hello')\n")
    git(repo, "add", "src/app.py")
    commit = plain(repo, "git", "commit", "-q", "-m", "greet")
    assert commit.returncode == 0 and commit.stderr == "", commit.stderr
    push = plain(repo, "git", "push", "-q")
    assert push.returncode == 0 and push.stderr == "", push.stderr


def test_force_push_is_stopped_from_git_python_and_make(pushed: tuple[Path, Path]) -> None:
    repo, remote = pushed
    rewrite_history(repo)
    before = git(remote, "rev-parse", "main")
    direct = plain(repo, "git", "push", "-f", "origin", "main")
    assert direct.returncode != 0
    assert "[jouet rule: force-push]" in direct.stderr and "--force-with-lease" in direct.stderr
    script = "import subprocess, sys; sys.exit(subprocess.run(['git', 'push', '--force']).returncode)"
    python = plain(repo, sys.executable, "-c", script)
    assert python.returncode != 0 and "[jouet rule: force-push]" in python.stderr
    if shutil.which("make"):
        (repo / "Makefile").write_text("push:\n\tgit push origin +main\n")
        make = plain(repo, "make", "push")
        assert make.returncode != 0 and "[jouet rule: force-push]" in make.stderr
    assert git(remote, "rev-parse", "main") == before  # nothing reached the remote


def test_a_person_can_let_one_push_through_and_it_is_recorded(pushed: tuple[Path, Path]) -> None:
    repo, remote = pushed
    rewrite_history(repo)
    proc = plain(repo, "git", "push", "-f", "origin", "main", env={"JOUET_ALLOW": "force-push"})
    assert proc.returncode == 0, proc.stderr
    assert "JOUET_ALLOW let" in proc.stderr
    assert git(remote, "rev-parse", "main") == git(repo, "rev-parse", "main")
    ledger = Path(os.environ["JOUET_STATE_DIR"]) / "ledger.jsonl"
    records = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert any(r["allowed"] == ["force-push"] and r["decision"] == "none" and r["harness"] == "git" for r in records)


def test_an_agent_cannot_set_jouet_allow(tmp_path: Path) -> None:
    proc = run_jouet("check", "JOUET_ALLOW=force-push git push origin main", cwd=tmp_path)
    assert proc.returncode == 1 and "[jouet rule: jouet-config]" in proc.stdout


def test_every_ref_of_a_multi_ref_push_is_checked(pushed: tuple[Path, Path]) -> None:
    repo, remote = pushed
    git(repo, "branch", "feature")
    git(repo, "tag", "v1")
    rewrite_history(repo)
    proc = plain(repo, "git", "push", "origin", "feature", "v1", "+main")
    assert proc.returncode != 0
    assert "[jouet rule: force-push]" in proc.stderr
    assert "feature" not in git(remote, "branch", "--list", "feature")  # git pushes all or nothing


def test_staged_secret_is_stopped_by_the_native_hook(pushed: tuple[Path, Path]) -> None:
    repo, _ = pushed
    (repo / "config.ini").write_text(SECRET_LINE)
    git(repo, "add", "config.ini")
    proc = plain(repo, "git", "commit", "-m", "config")
    assert proc.returncode != 0
    assert "[jouet rule: committed-secrets]" in proc.stderr
    assert AWS_KEY not in proc.stderr
    script = "import subprocess, sys; sys.exit(subprocess.run(['git', 'commit', '-m', 'config']).returncode)"
    python = plain(repo, sys.executable, "-c", script)
    assert python.returncode != 0 and "[jouet rule: committed-secrets]" in python.stderr
    if shutil.which("make"):
        (repo / "Makefile").write_text("save:\n\tgit commit -m config\n")
        make = plain(repo, "make", "save")
        assert make.returncode != 0 and "[jouet rule: committed-secrets]" in make.stderr
    assert git(repo, "log", "--oneline").count("\n") == 1  # nothing was committed


# The pre-commit framework, for real -------------------------------------------------------------


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit cache for the module: the framework pip-installs jouet once."""
    if not (SOURCE / ".git").exists():
        pytest.fail("these tests run pre-commit try-repo on the jouet-git checkout, which must be a git repository")
    return tmp_path_factory.mktemp("pre-commit-home")


def try_repo(repo: Path, home: Path, hook: str, *args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "pre-commit"
    env = {**os.environ, "PRE_COMMIT_HOME": str(home)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return subprocess.run([str(exe), "try-repo", str(SOURCE), hook, *args], cwd=repo, capture_output=True,
                          text=True, env=env, timeout=600)


def test_framework_pre_commit_stops_a_staged_secret(tmp_path: Path, pre_commit_home: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "config.ini").write_text(SECRET_LINE)
    git(repo, "add", "config.ini")
    proc = try_repo(repo, pre_commit_home, "jouet-pre-commit")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "[jouet rule: committed-secrets]" in proc.stdout
    assert AWS_KEY not in proc.stdout
    git(repo, "rm", "-q", "--cached", "config.ini")
    (repo / "notes.md").write_text("nothing secret here\n")
    git(repo, "add", "notes.md")
    clean = try_repo(repo, pre_commit_home, "jouet-pre-commit")
    assert clean.returncode == 0, clean.stdout + clean.stderr


def test_framework_pre_push_stops_a_forced_push(tmp_path: Path, pre_commit_home: Path) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    repo = make_repo(tmp_path / "repo")
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "-u", "origin", "main")
    old = git(repo, "rev-parse", "HEAD").strip()
    rewrite_history(repo)
    new = git(repo, "rev-parse", "HEAD").strip()
    args = ["--hook-stage", "pre-push", "--from-ref", old, "--to-ref", new, "--remote-name", "origin",
            "--remote-url", str(remote), "--local-branch", "refs/heads/main", "--remote-branch", "refs/heads/main"]
    proc = try_repo(repo, pre_commit_home, "jouet-pre-push", *args)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "[jouet rule: force-push]" in proc.stdout
    (repo / "more.md").write_text("more\n")
    git(repo, "add", "more.md")
    git(repo, "commit", "-q", "-m", "more")
    git(repo, "push", "-q", "-f", "origin", "main")  # (no hooks here) put the rewritten main on the remote
    ahead = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    (repo / "next.md").write_text("next\n")
    git(repo, "add", "next.md")
    git(repo, "commit", "-q", "-m", "next")
    git(repo, "push", "-q", "-f", "origin", "main")
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "last.md").write_text("last\n")
    git(repo, "add", "last.md")
    git(repo, "commit", "-q", "-m", "last")
    ff = ["--hook-stage", "pre-push", "--from-ref", base, "--to-ref", git(repo, "rev-parse", "HEAD").strip(),
          "--remote-name", "origin", "--remote-url", str(remote), "--local-branch", "refs/heads/main",
          "--remote-branch", "refs/heads/main"]
    assert ahead
    fast_forward = try_repo(repo, pre_commit_home, "jouet-pre-push", *ff)
    assert fast_forward.returncode == 0, fast_forward.stdout + fast_forward.stderr


def test_deleting_a_remote_branch_that_holds_unique_work(pushed: tuple[Path, Path], tmp_path: Path) -> None:
    repo, remote = pushed
    # Someone else pushes a branch with work of its own; this clone fetches it.
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote), str(other))
    git(other, "switch", "-q", "-c", "feature")
    (other / "feature.md").write_text("their work\n")
    git(other, "add", "feature.md")
    git(other, "commit", "-q", "-m", "their work")
    git(other, "push", "-q", "origin", "feature")
    git(other, "push", "-q", "origin", "main:merged")  # a branch with nothing of its own
    git(repo, "fetch", "-q", "origin")
    denied = plain(repo, "git", "push", "origin", "--delete", "feature")
    assert denied.returncode != 0 and "[jouet rule: push-delete]" in denied.stderr
    assert "feature" in git(remote, "branch", "--list", "feature")
    allowed = plain(repo, "git", "push", "-q", "origin", ":merged")
    assert allowed.returncode == 0, allowed.stderr
    assert git(remote, "branch", "--list", "merged").strip() == ""
