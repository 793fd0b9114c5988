"""`jouet secrets scan`, run as a person runs it."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest
from testing import git, make_repo, run_jouet

from jouet_git.gitleaks import binary

pytestmark = pytest.mark.skipif(binary.find_gitleaks() is None, reason="gitleaks is not installed")


def token(seed: int = 3) -> str:
    rng = random.Random(seed)
    return "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"README.md": "hello\n"})


def test_found_exits_1_and_explains(repo: Path) -> None:
    secret = token()
    (repo / "app.py").write_text(f"x = 1\nGH = '{secret}'\n")
    git(repo, "add", "app.py")
    proc = run_jouet("secrets", "scan", cwd=repo)
    assert proc.returncode == 1, proc.stderr
    assert "github-pat: app.py:2" in proc.stdout
    assert "fingerprint: app.py:github-pat:2" in proc.stdout
    assert ".gitleaksignore" in proc.stdout
    assert secret not in proc.stdout + proc.stderr


def test_json_output(repo: Path) -> None:
    secret = token()
    (repo / "app.py").write_text(f"GH = '{secret}'\n")
    git(repo, "add", "app.py")
    proc = run_jouet("secrets", "scan", "--json", cwd=repo)
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert data["scope"] == "staged"
    assert [(f["rule"], f["path"], f["line"], f["commit"]) for f in data["findings"]] == [
        ("github-pat", "app.py", 1, None)]
    assert set(data["findings"][0]) == {"rule", "path", "line", "commit", "match", "fingerprint"}
    assert secret not in proc.stdout


def test_clean_exits_0(repo: Path) -> None:
    (repo / "app.py").write_text("x = 1\n")
    git(repo, "add", "app.py")
    proc = run_jouet("secrets", "scan", cwd=repo)
    assert proc.returncode == 0
    assert proc.stdout.startswith("No secrets found in the staged changes.\nScanned 1 file, ")


def test_paths_and_ignore_file(repo: Path) -> None:
    (repo / "new.py").write_text(f"GH = '{token()}'\n")
    assert run_jouet("secrets", "scan", cwd=repo).returncode == 0
    assert run_jouet("secrets", "scan", "new.py", cwd=repo).returncode == 1
    # an ignore line counts once committed, not while it sits in the work tree
    (repo / ".gitleaksignore").write_text("new.py:github-pat:1\n")
    assert run_jouet("secrets", "scan", "new.py", cwd=repo).returncode == 1
    git(repo, "add", ".gitleaksignore")
    git(repo, "commit", "-q", "-m", "ignore a fixture")
    assert run_jouet("secrets", "scan", "new.py", cwd=repo).returncode == 0


def test_outgoing_range(repo: Path) -> None:
    (repo / "app.py").write_text(f"GH = '{token()}'\n")
    git(repo, "add", "app.py")
    git(repo, "commit", "-q", "-m", "add app")
    proc = run_jouet("secrets", "scan", "--range", "HEAD~1..HEAD", "--json", cwd=repo)
    assert proc.returncode == 1
    [found] = json.loads(proc.stdout)["findings"]
    assert found["commit"] == git(repo, "rev-parse", "HEAD").strip()
    human = run_jouet("secrets", "scan", "--scope", "outgoing", cwd=repo)
    assert human.returncode == 1 and "(commit " in human.stdout


def test_errors_exit_2(tmp_path: Path) -> None:
    proc = run_jouet("secrets", "scan", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("jouet: cannot scan for secrets: not a git work tree")
    repo = make_repo(tmp_path / "r")
    missing = run_jouet("secrets", "scan", cwd=repo, env={"JOUET_GITLEAKS": str(tmp_path / "nope")})
    assert missing.returncode == 2 and "JOUET_GITLEAKS" in missing.stderr
    mixed = run_jouet("secrets", "scan", "--scope", "tracked", "--range", "a..b", cwd=repo)
    assert mixed.returncode == 2 and "--range" in mixed.stderr


def test_help_teaches_with_examples() -> None:
    proc = run_jouet("secrets", "scan", "--help")
    assert proc.returncode == 0
    assert "jouet secrets scan --scope tracked" in proc.stdout


def test_a_clean_scan_says_what_it_read_and_whether_gitleaks_ran(repo: Path) -> None:
    (repo / "app.py").write_text("x = 1\n")
    git(repo, "add", "app.py")
    proc = run_jouet("secrets", "scan", cwd=repo)
    assert proc.stdout.splitlines()[1].startswith("Scanned 1 file, ")
    assert proc.stdout.splitlines()[1].endswith("of diff; gitleaks not needed: no added line holds a keyword of "
                                                "any gitleaks rule.")
    (repo / "conf.py").write_text("api_key = 'not-a-secret'\n")
    git(repo, "add", "conf.py")
    proc = run_jouet("secrets", "scan", "--json", cwd=repo)
    data = json.loads(proc.stdout)
    assert data["summary"]["gitleaks_ran"] is True and data["summary"]["files"] == 2
    assert data["summary"]["bytes"] > 0 and data["summary"]["commits"] is None
    assert data["gitleaks"]["path"] == data["summary"]["gitleaks"]


def many_commits(repo: Path, count: int, lines: int) -> None:
    for number in range(count):
        (repo / f"data{number}.txt").write_text("".join(f"row {i} of file {number}\n" for i in range(lines)))
        git(repo, "add", ".")
        git(repo, "commit", "-q", "-m", f"data {number}")


def test_a_range_over_the_limit_names_the_flag_that_raises_it(repo: Path) -> None:
    many_commits(repo, 3, 400)
    proc = run_jouet("secrets", "scan", "--range", "HEAD~3..HEAD", "--max-kib", "8", cwd=repo)
    assert proc.returncode == 2
    assert proc.stderr == ("jouet: cannot scan for secrets: the commits in HEAD~3..HEAD add more than 8 KiB of "
                           "diff, the limit of a scan: raise it with --max-kib (such as --max-kib 32), or scan a "
                           "shorter range\n")
    proc = run_jouet("secrets", "scan", "--range", "HEAD~3..HEAD", "--max-kib", "64", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "No secrets found in the commits in HEAD~3..HEAD.",
        proc.stdout.splitlines()[1]]
    assert proc.stdout.splitlines()[1].startswith("Scanned 3 commits, 3 files, ")
    assert "outgoing" not in proc.stdout
    outgoing = run_jouet("secrets", "scan", "--scope", "outgoing", "--max-kib", "8", cwd=repo)
    assert "the outgoing commits add more than 8 KiB" in outgoing.stderr


def test_a_progress_line_on_a_terminal_only(repo: Path) -> None:
    import os
    import pty
    import subprocess

    from testing import jouet_exe

    many_commits(repo, 2, 50)
    main, child = pty.openpty()
    proc = subprocess.run([*jouet_exe(), "secrets", "scan", "--range", "HEAD~2..HEAD"], cwd=repo, stdin=child,
                          stdout=subprocess.PIPE, stderr=child, timeout=120)
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(main)
    shown = b"".join(chunks).decode()
    assert proc.returncode == 0
    assert "jouet: reading the commits..." in shown
    assert shown.endswith("\r\033[K")  # the line is cleared before the result is printed
    piped = run_jouet("secrets", "scan", "--range", "HEAD~2..HEAD", cwd=repo)
    assert piped.stderr == ""


def test_max_kib_must_be_positive(repo: Path) -> None:
    proc = run_jouet("secrets", "scan", "--max-kib", "0", cwd=repo)
    assert proc.returncode == 2 and "--max-kib must be" in proc.stderr
