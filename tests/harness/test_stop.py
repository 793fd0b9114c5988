"""The stop event in each harness: the Request the adapter reads (stop_active from the harness's own
field), and the reply when the stop check holds the agent (Outcome.stop holds a denial) and when it
lets it stop. The stop check itself is another issue's; these build the Outcome it will fill."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jouet_git.engine.decide import Decision, Finding
from jouet_git.harness import adapter
from jouet_git.harness.base import STOP, Outcome

FIXTURES = Path(__file__).parent / "fixtures"
HOLD = "Checks are still running on your pull request. [jouet rule: ci-pending]"

# harness, event word, fixture, the field that says a stop hook already held the agent
CASES = [
    ("claude", "stop", "claude/Stop.json", {"stop_hook_active": True}),
    ("claude", "subagent-stop", "claude/Stop.json", {"stop_hook_active": True}),
    ("codex", "stop", "codex/Stop.json", {"stop_hook_active": True}),
    ("cursor", "stop", "cursor/stop.json", {"loop_count": 1}),
    ("gemini", "after-agent", "gemini/AfterAgent.json", {"stop_hook_active": True}),
    ("copilot", "agent-stop", "copilot/agentStop.json", {"stop_hook_active": True}),
    ("copilot", "agent-stop", "copilot/Stop.json", {"stop_hook_active": True}),  # the PascalCase form
    ("copilot", "subagent-stop", "copilot/subagentStop.json", {"stop_hook_active": True}),
]
HELD: dict[str, Any] = {
    "claude": {"decision": "block", "reason": HOLD},
    "codex": {"decision": "block", "reason": HOLD},
    "cursor": {"followup_message": HOLD},
    "gemini": {"decision": "deny", "reason": HOLD},
    "copilot": {"decision": "block", "reason": HOLD},  # the same fields in both payload formats
}
LET_GO = {"claude": "", "codex": "", "cursor": "{}\n", "gemini": "", "copilot": ""}


def held() -> Outcome:
    outcome = Outcome()
    outcome.stop = Decision()
    outcome.stop.deny = Finding("ci-pending", "deny", "Checks are still running on your pull request.")
    return outcome


@pytest.mark.parametrize(("harness", "event", "fixture", "active"), CASES)
def test_stop_request_and_replies(harness: str, event: str, fixture: str, active: dict[str, Any]) -> None:
    found = adapter(harness)
    assert found is not None
    payload = json.loads((FIXTURES / fixture).read_text())
    request = found.read(event, json.dumps(payload), [], {})
    assert request.kind == STOP and request.stop_active is False and request.cwd == "/workspace/project"
    again = found.read(event, json.dumps({**payload, **active}), [], {})
    assert again.stop_active is True
    reply = found.reply(request, held())
    assert (reply.exit, json.loads(reply.stdout)) == (0, HELD[harness])
    let_go = found.reply(request, Outcome())
    assert (let_go.exit, let_go.stdout) == (0, LET_GO[harness])

