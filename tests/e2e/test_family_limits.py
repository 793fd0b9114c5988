"""Family: reading limits. Commands padded, nested or bloated past what jouet reads really run
(bash reads them, and the work is lost), so the reader's verdict on them must be "incomplete", with
a problem naming the limit; the built-in rule that denies such calls for agents reads that verdict.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from testing import run_jouet
from testing.gitrules import hook
from testing.realrun import lossy_repo

from jouet_git.shell.reader import MAX_COMMANDS, MAX_DEPTH, MAX_SIZE

RESET = "git reset --hard"

PADDED = [
    ("too many commands:", ":;" * (MAX_COMMANDS * 3) + RESET),
    ("too many commands:", "true; " * (MAX_COMMANDS * 2) + RESET),
    ("too deep:", "$(" * (MAX_DEPTH + 5) + RESET + ")" * (MAX_DEPTH + 5)),
    ("too deep:", "{ " * (MAX_DEPTH + 5) + RESET + "; }" * (MAX_DEPTH + 5)),
    ("too long:", ": " + "x" * MAX_SIZE + "\n" + RESET),
    ("too much nested text:", "x=a; " + "x=$x$x; " * 24 + RESET),
]


def _really_resets(repo: Path, script: str) -> bool:
    path = repo.parent / "script.sh"
    path.write_text(script)
    subprocess.run(["bash", str(path)], cwd=repo, capture_output=True, timeout=120, check=False)
    return (repo / "a.txt").read_text() == "committed\n"


def _verdict(script: str) -> dict[str, object]:
    proc = run_jouet("parse", "--json", "-", input=script, check=True)
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize(("limit", "script"), PADDED, ids=[f"{p}{k}" for k, (p, _) in enumerate(PADDED)])
def test_padded_commands_run_and_are_read_as_incomplete(tmp_path: Path, limit: str, script: str) -> None:
    assert _really_resets(lossy_repo(tmp_path / "real"), script), "the padded command did not run the reset"
    verdict = _verdict(script)
    assert verdict["incomplete"] is True
    problems = verdict["problems"]
    assert isinstance(problems, list)
    assert any(str(p).startswith(limit) for p in problems), problems


@pytest.mark.xfail(strict=True, reason="the rule that denies incomplete calls for agents is not built in yet")
def test_agents_are_denied_what_jouet_cannot_read(tmp_path: Path) -> None:
    repo = lossy_repo(tmp_path / "ours")
    assert hook(":;" * (MAX_COMMANDS * 3) + RESET, repo).rule is not None
