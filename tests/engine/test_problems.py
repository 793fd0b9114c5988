"""A broken rule is said wherever a decision is made: check, rule test, rule list, the git hooks,
Claude Code's session start (primer and the person's message) and its tool calls."""

from __future__ import annotations

import json
import os
from pathlib import Path

from testing import claude_payload, git, make_repo, run_jouet

BROKEN = """\
[[rule]]
name = "no-tags"
why = "tags are for releases"
mesage = "Tags are made by the release job."

[rule.match]
comand = "git tag"
"""

ERRORS = [
    "no-tags.toml:4: unknown field `mesage`: did you mean `message`?",
    "no-tags.toml:7: unknown field `comand` in the matcher: did you mean `command`?",
]


def break_a_rule() -> Path:
    rules = Path(os.environ["JOUET_CONFIG_DIR"]) / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    path = rules / "no-tags.toml"
    path.write_text(BROKEN)
    return path


def test_check_names_broken_rules_on_stderr_and_in_json(tmp_path: Path) -> None:
    path = break_a_rule()
    proc = run_jouet("check", "git tag v1", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == "no rule fired\n"
    assert proc.stderr.splitlines() == [
        "jouet: rule no-tags (user) is broken and does not run:",
        *(f"    {path.parent}/{line}" for line in ERRORS),
    ]
    data = json.loads(run_jouet("check", "--json", "git tag v1", cwd=tmp_path).stdout)
    assert data["broken"] == [{"rule": "no-tags", "scope": "user", "file": str(path),
                               "errors": [f"{path.parent}/{line}" for line in ERRORS]}]
    assert data["problems"] == []
    lines = run_jouet("check", "--jsonl", input='{"command": "ls"}\n', cwd=tmp_path).stdout.splitlines()
    assert json.loads(lines[0])["broken"][0]["rule"] == "no-tags"


def test_nothing_broken_says_nothing(tmp_path: Path) -> None:
    proc = run_jouet("check", "git tag v1", cwd=tmp_path)
    assert proc.stderr == ""
    assert json.loads(run_jouet("check", "--json", "ls", cwd=tmp_path).stdout)["broken"] == []


def test_rule_test_and_rule_list_show_every_error(tmp_path: Path) -> None:
    path = break_a_rule()
    proc = run_jouet("rule", "test", "no-tags", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == ["jouet: no-tags does not load:",
                                        *(f"    {path.parent}/{line}" for line in ERRORS)]
    listed = " ".join(run_jouet("rule", "list", cwd=tmp_path).stdout.split())
    assert "rule no-tags (user) is broken and does not run:" in listed
    for line in ERRORS:
        assert line.split(":", 2)[2].strip() in listed
    row = next(r for r in json.loads(run_jouet("rule", "list", "--json", cwd=tmp_path).stdout)
               if r["name"] == "no-tags")
    assert row["state"] == "broken" and row["errors"] == [f"{path.parent}/{line}" for line in ERRORS]


def test_git_hooks_say_it_on_every_commit(tmp_path: Path) -> None:
    break_a_rule()
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n"})
    run_jouet("setup", "git", cwd=repo, check=True)
    (repo / "a.txt").write_text("a\n")
    git(repo, "add", "a.txt")
    import subprocess

    proc = subprocess.run(["git", "commit", "-q", "-m", "a"], cwd=repo, capture_output=True, text=True, check=True)
    assert "jouet: rule no-tags is broken and guards nothing: " in proc.stderr
    assert "unknown field `mesage`: did you mean `message`? (and 1 more error)" in proc.stderr
    assert "jouet: `jouet rule list` shows every error" in proc.stderr


def test_a_git_hook_denial_is_coloured_on_a_terminal_only(tmp_path: Path) -> None:
    import subprocess

    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n"})
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    run_jouet("setup", "git", cwd=repo, check=True)
    git(repo, "commit", "-q", "--amend", "-m", "rewritten")

    def push(**env: str) -> str:
        proc = subprocess.run(["git", "push", "-q", "-f", "origin", "main"], cwd=repo, capture_output=True,
                              text=True, env={**os.environ, **env})
        assert proc.returncode != 0
        return proc.stderr

    plain = push()
    assert "[jouet rule: force-push]" in plain and "\033[" not in plain
    coloured = push(FORCE_COLOR="1")
    assert "\033[1;31mjouet: " in coloured


def test_claude_code_hears_it_at_session_start_and_on_each_call(tmp_path: Path) -> None:
    break_a_rule()
    repo = make_repo(tmp_path / "repo")
    start = json.dumps({"session_id": "s", "transcript_path": "/t", "cwd": str(repo),
                        "hook_event_name": "SessionStart", "source": "startup"})
    proc = run_jouet("hook", "claude", "session-start", input=start, cwd=repo)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    # The person: Claude Code shows systemMessage to them.
    assert out["systemMessage"].startswith("jouet: rule no-tags is broken and guards nothing: ")
    # The agent: the primer names it, so it can tell the person.
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "These jouet rules are broken and do not run: no-tags" in context
    call = run_jouet("hook", "claude", "pre", input=claude_payload("ls", repo), cwd=repo)
    assert call.returncode == 0 and call.stdout == ""
    assert "jouet: rule no-tags is broken and guards nothing" in call.stderr
