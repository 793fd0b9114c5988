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
from testing.gitrules import denied, hook
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


# The issue's own inputs, beside PADDED: each hides the reset past a limit.
HUGE = [
    ("too deep:", "echo " + "$(" * 100 + RESET + ")" * 100),
    ("too many commands:", ":;" * 10_000 + RESET),
    ("too long:", "echo " + "a" * (1 << 20) + "; " + RESET),
    ("too deep:", "$(" * 100_000 + RESET),
]


@pytest.mark.parametrize(("limit", "script"), PADDED + HUGE,
                         ids=[f"{p}{k}" for k, (p, _) in enumerate(PADDED + HUGE)])
def test_agents_are_denied_what_jouet_cannot_read(tmp_path: Path, limit: str, script: str) -> None:
    repo = lossy_repo(tmp_path / "ours")
    reason = denied(script, repo, "unread")
    assert f"What jouet stopped at: {limit}" in reason, reason
    assert "Split it into smaller calls" in reason
    # `jouet check` decides the same (one JSON line in, so a megabyte is no argument list).
    line = json.dumps({"command": script, "cwd": str(repo)})
    proc = run_jouet("check", "--jsonl", input=line + "\n", cwd=repo, check=True)
    out = json.loads(proc.stdout)
    assert out["decision"] == "deny" and out["deny"]["rule"] == "unread", out
    assert f"What jouet stopped at: {limit}" in out["deny"]["message"]
    verdict = _verdict(script)
    assert verdict["incomplete"] is True
    assert (repo / "a.txt").read_text() == "committed\nmy edit\n"  # deciding ran nothing


def test_what_bash_does_with_the_issues_inputs(tmp_path: Path) -> None:
    # Nested 100 deep, the 10,000 commands and the megabyte: bash runs the reset.
    for k, (_, script) in enumerate(HUGE[:3]):
        assert _really_resets(lossy_repo(tmp_path / f"real{k}"), script), script[:40]
    # 100,000 nested $(: bash crashes reading it and runs nothing (jouet denies it all the same).
    assert not _really_resets(lossy_repo(tmp_path / "real3"), HUGE[3][1])


def test_a_syntax_error_alone_is_left_to_the_other_rules(tmp_path: Path) -> None:
    repo = lossy_repo(tmp_path / "ours")
    assert _verdict("echo 'unclosed")["incomplete"] is True
    assert hook("echo 'unclosed", repo).rule is None
