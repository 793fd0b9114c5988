"""`jouet hook polyhook`: HookEvents in, HookResponses out, each checked against the polyhook schema
(tests/data/polyhook-schema.json) with jsonschema."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from testing import TESTS, make_repo, run_jouet
from testing.screening import Planted, counting_gitleaks, starts

from jouet_git.engine.decide import Decision, Finding
from jouet_git.harness.base import CALLS, STOP, Outcome, Request
from jouet_git.harness.polyhook import ADAPTER, _call

SCHEMA = json.loads((TESTS / "data" / "polyhook-schema.json").read_text())


def validator(definition: str) -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator({"$ref": f"#/definitions/{definition}", "definitions": SCHEMA["definitions"]})


EVENT = validator("HookEvent")
RESPONSE = validator("HookResponse")


def polyhook(event: Any, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_jouet("hook", "polyhook", input=event if isinstance(event, str) else json.dumps(event), cwd=cwd, env=env)


def reply(event: dict[str, Any], cwd: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    """The HookResponse for a valid EVENT, both checked against the schema."""
    EVENT.validate(event)
    proc = polyhook(event, cwd, env)
    assert proc.returncode == 0, proc.stderr
    body: dict[str, Any] = json.loads(proc.stdout)
    RESPONSE.validate(body)
    assert proc.stdout.count("\n") == 1
    return body


def event(kind: str, **fields: Any) -> dict[str, Any]:
    return {"event": kind, "sessionId": "sess-1", "caller": "claude-code", **fields}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "r")


def ledger() -> list[dict[str, Any]]:
    path = Path(os.environ["JOUET_STATE_DIR"]) / "ledger.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# -- tool:before -------------------------------------------------------------------------------


def test_a_denied_call_is_a_block_with_the_advice(repo: Path) -> None:
    body = reply(event("tool:before", tool="bash", input={"command": "git push --force origin main"}), repo)
    assert body["action"] == "block"
    assert body["message"].endswith("[jouet rule: force-push]")


def test_no_objection_is_the_schemas_no_op(repo: Path) -> None:
    assert reply(event("tool:before", tool="bash", input={"command": "git status"}), repo) == {"action": "approve"}


@pytest.mark.parametrize(("tool", "args"), [("read_file", {"path": ".env"}), ("read", {"file_path": ".env"})])
def test_file_tools_are_decided_by_path(repo: Path, tool: str, args: dict[str, str]) -> None:
    (repo / ".env").write_text("A=1\n")
    body = reply(event("tool:before", tool=tool, input=args), repo)
    assert body["action"] == "block" and "[jouet rule: secret-files]" in body["message"]


def test_a_rewrite_is_a_modify_with_the_whole_input() -> None:
    call = _call(event("tool:before", tool="bash", input={"command": "git push -f", "timeout": 5}), "/tmp")
    assert call.rewrite  # a shell call before it runs may be rewritten
    decision = Decision()
    decision.rewrite = Finding("safer-push", "rewrite", "Pushing with a lease instead.", None,
                               "git push --force-with-lease")
    outcome = Outcome()
    outcome.decisions = [decision]
    request = Request(CALLS, "tool:before", "/tmp", [call])
    out = ADAPTER.reply(request, outcome)
    body = json.loads(out.stdout)
    RESPONSE.validate(body)
    assert body == {"action": "modify", "input": {"command": "git push --force-with-lease", "timeout": 5}}
    assert "Pushing with a lease instead." in out.stderr


# -- tool:after: post-tool rules and output screening ----------------------------------------------------


def test_a_secret_in_the_output_is_said_in_a_block_message_without_the_secret(repo: Path) -> None:
    planted = Planted()
    output = {"stdout": f"TOKEN={planted.github}\n", "exitCode": 0}
    body = reply(event("tool:after", tool="bash", input={"command": "cat .env"}, output=output), repo)
    assert body["action"] == "block"
    assert "github-pat" in body["message"] and "cannot replace a tool's output" in body["message"]
    assert planted.github not in json.dumps(body)
    assert ledger()[-1]["records"][0]["screen"]["rules"] == {"github-pat": 1}


def test_clean_output_is_approved_without_gitleaks(repo: Path, tmp_path: Path) -> None:
    env, log = counting_gitleaks(tmp_path)
    output = {"stdout": "".join(f"line {i}: the key they used is fine\n" for i in range(500))}
    assert reply(event("tool:after", tool="bash", input={"command": "make"}, output=output), repo, env) == \
        {"action": "approve"}
    assert starts(log) == 0


def test_an_after_event_with_a_null_output_is_approved(repo: Path) -> None:
    assert reply(event("tool:after", tool="bash", input={"command": "true"}, output=None), repo) == \
        {"action": "approve"}


# -- sessions, stops, notifications -----------------------------------------------------------------------


def test_session_start_approves_and_the_primer_goes_to_stderr(repo: Path) -> None:
    proc = polyhook(event("session:start"), repo)
    assert json.loads(proc.stdout) == {"action": "approve"}
    assert "jouet-git checks this session's tool calls" in proc.stderr


@pytest.mark.parametrize("kind", ["session:stop", "agent:stop"])
def test_a_stop_with_no_objection_approves(repo: Path, kind: str) -> None:
    assert reply(event(kind, agentId="sub-1" if kind == "agent:stop" else None), repo) == {"action": "approve"}


def test_a_held_stop_is_a_block_with_the_advice() -> None:
    held = Decision()
    held.deny = Finding("unpushed-work", "deny", "Push your branch before you stop.")
    outcome = Outcome()
    outcome.stop = held
    out = ADAPTER.reply(Request(STOP, "session:stop", "/tmp"), outcome)
    body = json.loads(out.stdout)
    RESPONSE.validate(body)
    assert body == {"action": "block", "message": "Push your branch before you stop. [jouet rule: unpushed-work]"}


def test_a_notification_needs_no_response(repo: Path) -> None:
    proc = polyhook(event("notification"), repo)
    assert proc.returncode == 0 and proc.stdout == ""


# -- the caller ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("caller", "harness"), [("claude-code", "claude"), ("cursor", "cursor"),
                                                 ("windsurf", "windsurf"), ("cline", "cline"), ("amp", "amp"),
                                                 ("unknown", "polyhook")])
def test_the_caller_is_the_recorded_harness(repo: Path, caller: str, harness: str) -> None:
    reply({"event": "tool:before", "tool": "bash", "input": {"command": "ls"}, "sessionId": "s", "caller": caller,
           "agentId": None}, repo)
    line = ledger()[-1]
    assert line["harness"] == harness and line["tool"] == "Bash" and line["session"] == "s"


# -- validation, both ways ------------------------------------------------------------------------------

VALID = [
    event("tool:before", tool="write_file", input={"path": "a.txt", "content": "x"}),
    event("tool:after", tool="read_file", input=None, output={"content": "x"}),
    event("session:start", tool=None, input=None, output=None, agentId=None),
    event("agent:stop", agentId="sub"),
    {"event": "notification", "sessionId": "", "caller": "unknown"},
]
INVALID = [
    {"event": "tool:before", "sessionId": "s"},  # no caller
    {"event": "tool:before", "caller": "cursor"},  # no sessionId
    event("tool:during", tool="bash"),
    {**event("tool:before", tool="bash"), "caller": "vim"},
    event("tool:before", tool=5),
    event("tool:before", tool="bash", input=["ls"]),
    event("tool:after", tool="bash", output="text"),
    {**event("session:start"), "sessionId": 7},
    event("session:start", agentId=3),
    event("tool:before", tool="bash", cwd="/tmp"),  # no other fields
    ["tool:before"],
]


@pytest.mark.parametrize("valid", VALID)
def test_events_the_schema_accepts_are_read(repo: Path, valid: dict[str, Any]) -> None:
    EVENT.validate(valid)
    proc = polyhook(valid, repo)
    assert proc.returncode == 0
    assert "not checked" not in proc.stderr
    if valid["event"] != "notification":
        RESPONSE.validate(json.loads(proc.stdout))


@pytest.mark.parametrize("invalid", INVALID)
def test_events_the_schema_refuses_are_blocked(repo: Path, invalid: Any) -> None:
    assert not EVENT.is_valid(invalid)
    proc = polyhook(invalid, repo)
    body = json.loads(proc.stdout)
    RESPONSE.validate(body)
    assert body["action"] == "block" and "the event was not checked" in body["message"]


def test_not_json_is_blocked(repo: Path) -> None:
    body = json.loads(polyhook("{oops", repo).stdout)
    RESPONSE.validate(body)
    assert body["action"] == "block"


def test_a_tool_event_without_a_tool_is_blocked(repo: Path) -> None:
    valid = event("tool:before", input={"command": "git push -f"})
    EVENT.validate(valid)  # the schema allows it; jouet cannot check a call it cannot name
    body = json.loads(polyhook(valid, repo).stdout)
    assert body["action"] == "block" and "no `tool`" in body["message"]


def test_jouets_own_failure_is_a_valid_approve() -> None:
    out = ADAPTER.failure("", "internal error: boom")
    RESPONSE.validate(json.loads(out.stdout))
    assert json.loads(out.stdout) == {"action": "approve"} and "boom" in out.stderr
