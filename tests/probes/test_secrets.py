"""jouet.secrets.scan's `dir`: scanning the repository a commit after `cd` or `git -C` runs in.

The probe extension committed-secrets needs: a call in one directory whose commit runs in another.
Real repositories, real gitleaks; the examples' stand-in checks the argument the same way.
"""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest
from testing import git, make_repo

from jouet_git.gitleaks import binary
from jouet_git.probes.core import ProbeError, Probes
from jouet_git.probes.examples import ExampleProbes

needs_gitleaks = pytest.mark.skipif(binary.find_gitleaks() is None, reason="gitleaks is not installed")


def token() -> str:
    rng = random.Random()
    return "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, Path]:
    here = make_repo(tmp_path / "here")
    there = make_repo(tmp_path / "there")
    (there / "sub").mkdir()
    (there / "sub" / "keys.py").write_text(f"GH = '{token()}'\n")
    return here, there


@needs_gitleaks
def test_dir_scans_the_repository_there(two: tuple[Path, Path]) -> None:
    here, there = two
    git(there, "add", "sub/keys.py")
    probes = Probes(str(here))
    assert probes.secrets_scan("staged") == ([], None)
    findings, reason = probes.secrets_scan("staged", None, "../there")
    assert reason is None and findings is not None
    assert [(f["rule"], f["path"], f["line"]) for f in findings] == [("github-pat", "sub/keys.py", 1)]
    # An absolute dir is the same repository, and the same answer.
    assert Probes(str(here)).secrets_scan("staged", None, str(there)) == (findings, None)


@needs_gitleaks
def test_paths_are_read_from_dir(two: tuple[Path, Path]) -> None:
    here, _ = two  # sub/keys.py is untracked: only a `git add` in sub/ would take it
    probes = Probes(str(here))
    assert probes.secrets_scan("staged", None, "../there") == ([], None)
    findings, _ = probes.secrets_scan("staged", ["keys.py"], "../there/sub")
    assert findings is not None and [f["path"] for f in findings] == ["sub/keys.py"]


def test_a_dir_that_is_not_there_has_no_answer(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    value, reason = Probes(str(repo)).secrets_scan("staged", None, "no/such/place")
    assert value is None and reason is not None and "no such directory" in reason


def test_dir_must_be_a_string(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    with pytest.raises(ProbeError, match="dir must be a string"):
        Probes(str(repo)).secrets_scan("staged", None, 3)  # type: ignore[arg-type]
    with pytest.raises(ProbeError, match="dir must be a string"):
        ExampleProbes({"secrets": []}, "/x").secrets_scan("staged", None, 3)  # type: ignore[arg-type]


def test_examples_answer_whatever_dir_is_asked() -> None:
    found = [{"rule": "github-pat", "path": "a.py", "line": 1}]
    value, reason = ExampleProbes({"secrets": found}, "/x").secrets_scan("staged", None, "../api")
    assert reason is None and value is not None and value[0]["fingerprint"] == "a.py:github-pat:1"
