"""`jouet hook claude ...` fed real Claude Code payloads, in a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from testing import claude_payload, make_repo, run_jouet

HEAVY = {"git", "filelock", "tomlkit", "rich", "tomli", "dataclasses", "typing", "subprocess", "argparse",
         "pathlib", "hashlib", "lupa", "inspect"}


def hook(event: str, payload: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_jouet("hook", "claude", event, input=payload, cwd=cwd, env=env)


def test_deny_is_a_permission_decision_with_the_rule_name(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    proc = hook("pre", claude_payload("git add -A && git commit -m wip", repo), repo)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse"
    assert out["permissionDecision"] == "deny"
    assert out["permissionDecisionReason"].endswith("[jouet rule: git-add-all]")


def test_nothing_at_all_when_nothing_fires(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    proc = hook("pre", claude_payload("git status && cargo test", repo), repo)
    assert proc.returncode == 0
    assert proc.stdout == ""
    assert proc.stderr == ""


def test_warning_goes_to_additional_context(tmp_path: Path) -> None:
    rules = Path(__import__("os").environ["JOUET_CONFIG_DIR"]) / "rules"
    rules.mkdir(parents=True)
    (rules / "no-tags.toml").write_text(
        '[[rule]]\nname = "no-tags"\nwhy = "tags are for releases"\nmessage = "Tags are for releases."\n'
        '[rule.match]\ncommand = "git tag"\n[rule.examples]\nfires = ["git tag v1"]\nquiet = ["git tags"]\n'
    )
    repo = make_repo(tmp_path / "r")
    proc = hook("pre", claude_payload("git tag v2", repo), repo)
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert "permissionDecision" not in out
    assert out["additionalContext"] == "Tags are for releases. [jouet rule: no-tags]"


def test_edit_tool_payload(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    payload = json.dumps({
        "session_id": "s", "transcript_path": "/t", "cwd": str(repo), "hook_event_name": "PreToolUse",
        "tool_name": "Edit", "tool_use_id": "t1",
        "tool_input": {"file_path": str(Path.home() / ".config/jouet/config.toml"),
                       "old_string": "deny", "new_string": "warn"},
    })
    out = json.loads(hook("pre", payload, repo).stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert "[jouet rule: jouet-files]" in out["permissionDecisionReason"]


def test_a_deny_of_a_call_that_only_runs_jouet_becomes_a_warning(tmp_path: Path) -> None:
    rules = Path(__import__("os").environ["JOUET_CONFIG_DIR"]) / "rules"
    rules.mkdir(parents=True)
    (rules / "no-jouet.toml").write_text(
        '[[rule]]\nname = "no-jouet"\nwhy = "a bad rule"\nmode = "deny"\nmessage = "no"\n'
        '[rule.match]\ncommand = "jouet"\n[rule.examples]\nfires = ["jouet rule list"]\nquiet = ["ls"]\n'
    )
    repo = make_repo(tmp_path / "r")
    out = json.loads(hook("pre", claude_payload("jouet rule test --all", repo), repo).stdout)
    assert "permissionDecision" not in out["hookSpecificOutput"]
    assert "[jouet rule: no-jouet]" in out["hookSpecificOutput"]["additionalContext"]
    denied = json.loads(hook("pre", claude_payload("jouet rule list; rm -rf x", repo), repo).stdout)
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_malformed_input_is_no_decision(tmp_path: Path) -> None:
    proc = hook("pre", "{not json", tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "not JSON" in proc.stderr
    proc = hook("pre", json.dumps({"cwd": str(tmp_path)}), tmp_path)
    assert proc.returncode == 1 and "tool_name" in proc.stderr
    assert run_jouet("hook", "claude", "nope", input="{}").returncode == 1


def test_post_tool_use_failure_reads_the_exit_code(tmp_path: Path) -> None:
    rules = Path(__import__("os").environ["JOUET_CONFIG_DIR"]) / "rules"
    rules.mkdir(parents=True)
    (rules / "ci-pending.toml").write_text(
        '[[rule]]\nname = "ci-pending"\nwhy = "checks pending"\non = "post-tool-use"\n'
        'message = "Checks are still pending."\n[rule.match]\ncommand = "gh pr checks"\nexit_code = 8\n'
        '[rule.examples]\nfires = [{ command = "gh pr checks 12", exit_code = 8 }]\n'
        'quiet = [{ command = "gh pr checks 12", exit_code = 0 }]\n'
    )
    repo = make_repo(tmp_path / "r")
    payload = claude_payload("gh pr checks 12", repo, event="PostToolUseFailure",
                             error="Exit code 8\nsome checks pending", is_interrupt=False)
    out = json.loads(hook("post-failure", payload, repo).stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PostToolUseFailure"
    assert out["additionalContext"] == "Checks are still pending. [jouet rule: ci-pending]"
    ok = claude_payload("gh pr checks 12", repo, event="PostToolUse",
                        tool_response={"stdout": "", "stderr": "", "interrupted": False, "isImage": False})
    assert hook("post", ok, repo).stdout == ""


def test_session_start_primer_and_env_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    env_file = tmp_path / "claude.env"
    payload = json.dumps({"session_id": "abc 123", "transcript_path": "/t", "cwd": str(repo),
                          "hook_event_name": "SessionStart", "source": "startup"})
    proc = hook("session-start", payload, repo, env={"CLAUDE_ENV_FILE": str(env_file)})
    assert proc.returncode == 0, proc.stderr
    text = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "- git-add-all:" in text and "- force-push:" in text
    assert "export JOUET_SESSION_ID='abc 123'" in env_file.read_text()


def test_hook_path_imports_nothing_heavy(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    code = (
        "import sys, io\n"
        "from jouet_git.cli import main\n"
        "main(['hook', 'claude', 'pre'])\n"
        "sys.stderr.write(' '.join(sorted(sys.modules)))\n"
    )
    # The first call builds the rule set cache; the calls after it are what an agent's session runs.
    hook("pre", claude_payload("ls", repo), repo)
    for command in ("git add -A", "cargo test 2>&1 | tee test.log", "git status --short"):
        proc = subprocess.run([sys.executable, "-c", code], input=claude_payload(command, repo), cwd=repo,
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        modules = set(proc.stderr.split())
        assert "jouet_git.engine.match" in modules
        assert not (HEAVY & {m.split(".")[0] for m in modules}), HEAVY & {m.split(".")[0] for m in modules}
        assert "jouet_git.engine.build" not in modules  # the rule set came from the cache


def test_script_rules_and_probes_never_import_the_cold_path_libraries(tmp_path: Path) -> None:
    """Even a call that starts the Lua VM and runs probes (a push: committed-secrets scans what it
    sends) imports none of GitPython, filelock, tomlkit or rich, nor argparse or dataclasses."""
    repo = make_repo(tmp_path / "r")
    code = (
        "import sys\n"
        "from jouet_git.cli import main\n"
        "main(['hook', 'claude', 'pre'])\n"
        "sys.stderr.write(' '.join(sorted(sys.modules)))\n"
    )
    hook("pre", claude_payload("ls", repo), repo)
    for command in ("git push origin main", "git reset --hard"):
        proc = subprocess.run([sys.executable, "-c", code], input=claude_payload(command, repo), cwd=repo,
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        modules = set(proc.stderr.split())
        assert "lupa" in modules and "jouet_git.probes.core" in modules  # a script ran and asked a probe
        roots = {m.split(".")[0] for m in modules}
        assert not ({"git", "filelock", "tomlkit", "rich", "argparse", "dataclasses", "inspect"} & roots), roots
