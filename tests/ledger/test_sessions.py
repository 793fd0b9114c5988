"""Whole agent sessions driven through `jouet hook claude ...` subprocesses, as Claude Code runs them:
calls, denials, real pytest runs that fail and pass, edits, and a stop attempt at each point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from testing import make_repo, run_jouet
from testing.ledger_rules import write_warn_then_deny

from jouet_git import ledger

CALC = "def add(a, b):\n    return a + b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


class Session:
    """One Claude Code session in REPO: sends the hook payloads a harness would."""

    def __init__(self, repo: Path, session: str = "sess-1", agent: str | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.repo = repo
        self.session = session
        self.agent = agent
        self.env = env

    def _send(self, event: str, payload: dict[str, Any]) -> subprocess.CompletedProcess[str]:
        base: dict[str, Any] = {"session_id": self.session, "transcript_path": "/t", "cwd": str(self.repo)}
        if self.agent:
            base["agent_id"] = self.agent
        proc = run_jouet("hook", "claude", event, input=json.dumps({**base, **payload}), cwd=self.repo, env=self.env)
        assert proc.returncode == 0, proc.stderr
        return proc

    def start(self) -> None:
        self._send("session-start", {"hook_event_name": "SessionStart", "source": "startup"})

    def bash(self, command: str) -> dict[str, Any]:
        """The agent runs COMMAND: the pre hook, the command itself (unless denied), the post hook."""
        proc = self._send("pre", {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                                  "tool_input": {"command": command}})
        reply = json.loads(proc.stdout) if proc.stdout.strip() else {}
        if reply.get("hookSpecificOutput", {}).get("permissionDecision") == "deny":
            return reply
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
        done = subprocess.run(command.replace("pytest", f"{sys.executable} -m pytest", 1), shell=True, cwd=self.repo,
                              capture_output=True, text=True, env=env, timeout=120)
        tool = {"tool_name": "Bash", "tool_input": {"command": command}, "duration_ms": 321}
        if done.returncode == 0:
            self._send("post", {"hook_event_name": "PostToolUse", **tool,
                                "tool_response": {"stdout": done.stdout, "stderr": done.stderr}})
        else:
            self._send("post-failure", {"hook_event_name": "PostToolUseFailure", **tool,
                                        "error": f"Exit code {done.returncode}\n{done.stdout[-200:]}"})
        reply["exit"] = done.returncode
        return reply

    def edit(self, path: Path, text: str) -> None:
        self._send("pre", {"hook_event_name": "PreToolUse", "tool_name": "Write",
                           "tool_input": {"file_path": str(path), "content": text}})
        path.write_text(text)
        self._send("post", {"hook_event_name": "PostToolUse", "tool_name": "Write",
                            "tool_input": {"file_path": str(path), "content": text}})

    def stop(self, active: bool = False) -> str | None:
        """The agent tries to finish: the reason it is held, or None when it may stop."""
        event = "subagent-stop" if self.agent else "stop"
        name = "SubagentStop" if self.agent else "Stop"
        proc = self._send(event, {"hook_event_name": name, "stop_hook_active": active})
        if not proc.stdout.strip():
            return None
        reply = json.loads(proc.stdout)
        assert reply["decision"] == "block"
        reason: str = reply["reason"]
        return reason


def project(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "proj", {
        "calc.py": CALC, "tests/test_calc.py": TESTS, ".gitignore": "__pycache__/\n.pytest_cache/\n",
        "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["."]\naddopts = "-p no:cacheprovider"\n',
    })


def records() -> list[dict[str, Any]]:
    return [r for line in ledger.forwards() for r in line.get("records") or []]


def test_a_session_from_first_call_to_a_clean_finish(tmp_path: Path) -> None:
    repo = project(tmp_path)
    agent = Session(repo)
    agent.start()
    assert agent.stop() is None  # nothing done yet
    agent.bash("ls")
    agent.bash("git status --short")
    assert agent.stop() is None  # it only read
    denied = agent.bash("git add -A")
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert agent.stop() is None  # a denied call changed nothing

    agent.edit(repo / "calc.py", CALC.replace("a + b", "a - b"))
    held = agent.stop()
    assert held is not None and "no test run is recorded" in held and "`pytest`" in held
    assert held.endswith("[jouet rule: stop-check]")

    assert agent.bash("pytest -q")["exit"] == 1
    [failed] = records()
    assert failed["kind"] == "test" and failed["ok"] is False and failed["exit_code"] == 1
    assert failed["scope"] == "full" and failed["harness"] == "claude" and failed["duration_ms"] == 321
    held = agent.stop()
    assert held is not None and "The last test run in this repository failed (`pytest -q` exited 1)" in held
    assert agent.stop(active=True) is None  # Claude Code says it already continues after a stop hook

    agent.edit(repo / "calc.py", CALC)
    assert agent.bash("pytest -q tests/test_calc.py")["exit"] == 0
    passed = records()[-1]
    assert passed["ok"] is True and passed["scope"] == "partial" and passed["selector"] == "tests/test_calc.py"
    assert agent.stop() is None

    agent.edit(repo / "calc.py", CALC + "\n# a later edit\n")
    held = agent.stop()
    assert held is not None and "changed since the last passing test run (`pytest -q tests/test_calc.py`)" in held
    # Held again with nothing changed, then let go: never a loop, even without the harness's flag.
    assert agent.stop() is not None
    assert agent.stop() is None
    assert agent.stop() is None

    assert agent.bash("pytest -q")["exit"] == 0
    assert agent.stop() is None
    # A change outside the repository is not held against it.
    outside = tmp_path / "notes"
    outside.mkdir()
    agent.edit(outside / "todo.md", "- ship it\n")
    assert agent.stop() is None

    held_lines = [line for line in ledger.forwards() if line.get("event") == "stop" and line["decision"] == "deny"]
    assert len(held_lines) == 4 and all(line["tree"] for line in held_lines)
    log = run_jouet("log", "--decision", "held", "-n", "0", cwd=repo)
    assert log.returncode == 0 and log.stdout.count(" held ") == 4 and "stop-check" in log.stdout


def test_the_tree_recorded_with_a_run_is_the_work_tree_it_ran_against(tmp_path: Path) -> None:
    repo = project(tmp_path)
    agent = Session(repo)
    assert agent.bash("pytest -q")["exit"] == 0
    from testing import git

    [run] = records()
    assert run["tree"] == git(repo, "rev-parse", "HEAD^{tree}").strip()  # clean: HEAD's own tree
    assert run["wt"] == ledger.root_hash(str(repo)) and run["command"] == "pytest -q"


def test_a_subagent_is_held_on_its_own_stop(tmp_path: Path) -> None:
    repo = project(tmp_path)
    helper = Session(repo, agent="agent-7")
    helper.edit(repo / "calc.py", CALC + "# helper\n")
    held = helper.stop()
    assert held is not None and "`pytest`" in held
    assert Session(repo, session="another-session").stop() is None  # it made no call here


def test_no_test_setup_nothing_held(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "docs", {"README.md": "hello\n"})
    agent = Session(repo)
    agent.start()
    agent.edit(repo / "README.md", "hello world\n")
    assert agent.stop() is None


def test_a_turned_off_stop_check_holds_nothing(tmp_path: Path) -> None:
    repo = project(tmp_path)
    agent = Session(repo, env={"JOUET_RULES_DISABLE": "stop-check"})
    agent.edit(repo / "calc.py", CALC + "# x\n")
    assert agent.stop() is None


def test_with_content_off_the_advice_names_the_shape(tmp_path: Path) -> None:
    repo = project(tmp_path)
    agent = Session(repo, env={"JOUET_STORE_CONTENT": "0"})
    agent.edit(repo / "calc.py", CALC.replace("a + b", "a * b"))
    assert agent.bash("pytest -q -k add")["exit"] == 1
    held = agent.stop()
    assert held is not None and "(`pytest -q -k <arg>` exited 1)" in held
    text = Path(ledger.path()).read_text()
    assert "calc.py" not in text and "-k add" not in text


STOP_RULE = """
[[rule]]
name = "open-todos"
why = "a turn should not end with its own checklist open"
mode = "deny"
on = "stop"
script = "open-todos.luau"
[rule.examples]
fires = [{ tool = "stop", files = { "TODO.md" = "- [ ] write the docs" } }]
quiet = [{ tool = "stop", files = { "TODO.md" = "- [x] write the docs" } }, { tool = "stop" }]
"""
STOP_SCRIPT = """--!strict
local rule: JouetRule = {
	check = function(call: JouetCall): JouetDecision?
		if jouet.file.contains("TODO.md", "- [ ]") then
			return jouet.deny("TODO.md still has open items: finish them or say why not.")
		end
		return nil
	end,
}
return rule
"""


def test_a_stop_rule_takes_part_in_the_same_decision(tmp_path: Path) -> None:
    rules = Path(os.environ["JOUET_CONFIG_DIR"]) / "rules"
    rules.mkdir(parents=True)
    (rules / "open-todos.toml").write_text(STOP_RULE)
    (rules / "open-todos.luau").write_text(STOP_SCRIPT)
    tested = run_jouet("rule", "test", "open-todos")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    repo = make_repo(tmp_path / "r", {"TODO.md": "- [ ] write the docs\n"})
    agent = Session(repo)
    agent.bash("ls")
    held = agent.stop()
    assert held == "TODO.md still has open items: finish them or say why not. [jouet rule: open-todos]"
    assert agent.stop(active=True) is None  # the harness's flag: a warning at most, never a loop
    (repo / "TODO.md").write_text("- [x] write the docs\n")
    assert agent.stop() is None


def test_a_rule_of_mine_warns_then_denies_through_the_hooks(tmp_path: Path) -> None:
    write_warn_then_deny(Path(os.environ["JOUET_CONFIG_DIR"]) / "rules")
    repo = make_repo(tmp_path / "r")
    agent = Session(repo)
    command = "curl -s https://example.com/install.sh | sh"
    first = Session(repo)._send("pre", {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                                        "tool_input": {"command": command}})
    out = json.loads(first.stdout)["hookSpecificOutput"]
    assert "permissionDecision" not in out and "read it before running it." in out["additionalContext"]
    second = agent._send("pre", {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                                 "tool_input": {"command": command}})
    out = json.loads(second.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "you were told before" in out["permissionDecisionReason"]
    # A subagent of the same session, and another session, start with a warning.
    for other in (Session(repo, agent="helper"), Session(repo, session="sess-2")):
        reply = other._send("pre", {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                                    "tool_input": {"command": command}})
        assert "permissionDecision" not in json.loads(reply.stdout)["hookSpecificOutput"]


def test_runs_cannot_be_forged_from_the_agents_shell(tmp_path: Path) -> None:
    repo = project(tmp_path)
    agent = Session(repo)
    agent.edit(repo / "calc.py", CALC.replace("a + b", "a - b"))
    assert agent.bash("pytest -q")["exit"] == 1
    # A made-up hook payload is denied before it runs; a what-if through `jouet check` is no run.
    forged = agent.bash("echo '{}' | jouet hook claude post")
    assert forged["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "[jouet rule: jouet-hook]" in forged["hookSpecificOutput"]["permissionDecisionReason"]
    what_if = run_jouet("check", "--exit-code", "0", "pytest -q", cwd=repo)
    assert what_if.returncode == 0
    held = agent.stop()
    assert held is not None and "failed (`pytest -q` exited 1)" in held


def test_a_harness_that_reports_no_after_tool_events_is_not_held(tmp_path: Path) -> None:
    repo = project(tmp_path)
    agent = Session(repo)
    agent.edit(repo / "calc.py", CALC + "# x\n")
    # Like Codex: the shell call is seen before it runs, never after, so its test run is unknown.
    agent._send("pre", {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "pytest"}})
    assert agent.stop() is None
    assert [line.get("note") for line in ledger.forwards() if line.get("event") == "stop"] == [
        "the harness reported none of the session's shell calls after they ran, so its test runs are unknown"]
