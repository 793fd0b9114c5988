"""`jouet check`: what the rules decide about a command, one at a time or thousands in one process."""

from __future__ import annotations

import json
from pathlib import Path

from testing import make_repo, run_jouet


def test_deny_exits_1_and_names_the_rule(tmp_path: Path) -> None:
    proc = run_jouet("check", "git add -A", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.startswith("deny: ")
    assert "[jouet rule: git-add-all]" in proc.stdout


def test_nothing_fires_exits_0(tmp_path: Path) -> None:
    proc = run_jouet("check", "git status", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.strip() == "no rule fired"


def test_json(tmp_path: Path) -> None:
    proc = run_jouet("check", "--json", "git push -f origin main", cwd=tmp_path)
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert data["decision"] == "deny"
    assert data["deny"]["rule"] == "force-push"


def test_file_tool_and_cwd(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    proc = run_jouet("check", "--cwd", str(repo), "--tool", "Edit", "--path",
                     str(Path.home() / ".config/jouet/config.toml"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "jouet-files" in proc.stdout


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run_jouet("check", cwd=tmp_path).returncode == 2
    proc = run_jouet("check", "--cwd", str(tmp_path / "nope"), "ls")
    assert proc.returncode == 2 and "no such directory" in proc.stderr


def test_jsonl_answers_every_line_in_order(tmp_path: Path) -> None:
    lines = [
        {"command": "git add -A", "cwd": str(tmp_path)},
        {"command": "ls -la"},
        "not json",
        {"command": 3},
        {"tool": "Edit", "path": "/home/me/.config/jouet/config.toml"},
        {"command": "git stash list"},
    ]
    text = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n\n"
    proc = run_jouet("check", "--jsonl", input=text, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(out) == 6
    assert out[0]["decision"] == "deny" and out[0]["deny"]["rule"] == "git-add-all"
    assert out[1]["decision"] == "none"
    assert out[2]["error"].startswith("line 3:")
    assert "must be a string" in out[3]["error"]
    assert out[4]["deny"]["rule"] == "jouet-files"
    assert out[5]["decision"] == "none"


def test_jsonl_many_calls_in_one_process(tmp_path: Path) -> None:
    commands = ["git add -A", "git status", "git push --force", "npm test", "git stash"] * 400
    text = "".join(json.dumps({"command": c}) + "\n" for c in commands)
    proc = run_jouet("check", "--jsonl", input=text, cwd=tmp_path)
    assert proc.returncode == 0
    decisions = [json.loads(line)["decision"] for line in proc.stdout.splitlines()]
    assert decisions == ["deny", "none", "deny", "none", "deny"] * 400
