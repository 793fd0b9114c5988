"""`jouet rule test NAME --replay`: a rule over the calls the hooks already saw."""

from __future__ import annotations

import json
from pathlib import Path

from testing import claude_payload, make_repo, run_jouet

NO_TAGS = """
[[rule]]
name = "no-tags"
why = "tags are for releases"
message = "Tags are for releases: ask before tagging."
[rule.match]
command = "git tag"
unless_flags = ["-l", "--list"]
[rule.examples]
fires = ["git tag v1"]
quiet = ["git tag -l"]
"""


def seen(repo: Path, commands: list[str], env: dict[str, str] | None = None) -> None:
    for command in commands:
        proc = run_jouet("hook", "claude", "pre", input=claude_payload(command, repo), cwd=repo, env=env)
        assert proc.returncode == 0, proc.stderr


def test_a_rule_file_not_installed_replays_with_fires_and_near_misses(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    seen(repo, ["git tag v1", "git tag v2", "git tag -a v3 -m x", "git tag -l", "git status", "git status",
                "ls", "git tag v1"])
    rule = tmp_path / "no-tags.toml"
    rule.write_text(NO_TAGS)
    proc = run_jouet("rule", "test", str(rule), "--replay", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "no-tags: fired on 4 of 8 calls in the ledger",
        "fires on:",
        "  3x warn   git tag <arg>",
        "  1x warn   git tag -a <arg> -m <arg>",
        "stays quiet on (near misses):",
        "  2x allow  git status",
        "  1x allow  git tag -l",
    ]
    data = json.loads(run_jouet("rule", "test", str(rule), "--replay", "--json", cwd=repo).stdout)
    assert data[0]["fired"] == 4 and data[0]["calls"] == 8
    assert {"count": 3, "action": "warn", "shape": "git tag <arg>"} in data[0]["fires"]


def test_a_rule_that_fires_on_nothing_fails(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    seen(repo, ["git status", "git log -1"])
    proc = run_jouet("rule", "test", "force-push", "--replay", cwd=repo)
    assert proc.returncode == 1
    assert proc.stdout.startswith("force-push: fired on 0 of 2 calls in the ledger\nstays quiet on (near misses):")


def test_a_built_in_deny_rule_replays_after_its_mode(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    seen(repo, ["git add -A", "git add src/a.py", "git add ."])
    proc = run_jouet("rule", "test", "git-add-all", "--replay", cwd=repo)
    assert proc.returncode == 0
    assert "fired on 2 of 3 calls" in proc.stdout and "deny" in proc.stdout and "1x allow  git add <arg>" in proc.stdout


def test_post_tool_rules_replay_the_calls_after_a_tool(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    for command, code in (("cargo test -p a", 0), ("cargo build", 101), ("cargo run", 0)):
        event, extra = ("post", {}) if code == 0 else ("post-failure", {"error": f"Exit code {code}"})
        name = "PostToolUse" if code == 0 else "PostToolUseFailure"
        run_jouet("hook", "claude", event, input=claude_payload(command, repo, name, **extra), cwd=repo)
    proc = run_jouet("rule", "test", "checks", "--replay", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "checks: fired on 2 of 3 calls" in proc.stdout and "record cargo test -p <arg>" in proc.stdout
    assert "1x allow  cargo run" in proc.stdout


def test_replay_needs_the_command_text(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    empty = run_jouet("rule", "test", "git-stash", "--replay", cwd=repo)
    assert empty.returncode == 2 and "the ledger is empty" in empty.stderr
    seen(repo, ["git stash"], env={"JOUET_STORE_CONTENT": "0"})
    proc = run_jouet("rule", "test", "git-stash", "--replay", cwd=repo)
    assert proc.returncode == 2 and "JOUET_STORE_CONTENT=0" in proc.stderr
    both = run_jouet("rule", "test", "git-stash", "--replay", "--command", "git stash", cwd=repo)
    assert both.returncode == 2 and "--replay runs one rule" in both.stderr
