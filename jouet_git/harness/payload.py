"""A recorded hook payload, from any harness jouet speaks to, as the Calls its hook would decide, for
`jouet rule test --payload`.

The payload goes through the same adapter, and the same reader, as when that harness runs the hook:
a Codex apply_patch is one edit per file it names, a Copilot `toolArgs` string is decoded, a Cline
`run_commands` is one call per command. Which harness sent it is read from its shape, as
`jouet hook claude` tells another harness's payload from Claude Code's (claude.sender), or named
with --harness; which event, from the payload's own event field (Adapter.recorded_event).
"""

from __future__ import annotations

import os
from typing import Any

from jouet_git.call import Call
from jouet_git.errors import JouetError
from jouet_git.harness import ADAPTERS, adapter, claude, common
from jouet_git.harness.base import CALLS, BadInput

# Adapters whose payloads are hook events of a tool call (the neutral protocol and polyhook have
# commands of their own that validate and answer them: `jouet hook neutral` / `jouet hook polyhook`).
HARNESSES = tuple(name for name in ADAPTERS if name not in ("git", "neutral", "polyhook"))


def detect(payload: dict[str, Any]) -> str:
    """The harness whose hook PAYLOAD is, from its shape; Claude Code when nothing says otherwise."""
    if "clineVersion" in payload or "hookName" in payload:
        return "cline"
    if "agent_action_name" in payload or "trajectory_id" in payload:
        return "windsurf"
    found = claude.sender(payload)  # (it would take either of those for Copilot's: they carry a timestamp)
    if found is not None:
        return found
    if "hook_event_name" not in payload and "tool_name" not in payload and ("cmd" in payload or "path" in payload):
        return "amp"  # a delegate program gets the tool's bare arguments
    return "claude"


def calls_from_recorded_payload(text: str, where: str, harness: str | None = None) -> list[Call]:
    """The calls the hook payload TEXT (read from WHERE) describes, read as HARNESS's (default: the
    harness its shape says) would be when that harness runs its hook."""
    try:
        payload = common.parse(text)
    except BadInput as error:
        raise JouetError(f"{where}: {error}") from None
    if harness is not None and harness not in HARNESSES:
        raise JouetError(f"--harness {harness}: jouet reads no hook payload of that name "
                         f"(one of: {', '.join(HARNESSES)})")
    name = harness or detect(payload)
    found = adapter(name)
    assert found is not None
    event = found.recorded_event(payload)
    if event is None:
        raise JouetError(f"{where}: this {name} payload does not say which of its hook events it was sent for "
                         f"(jouet reads: {', '.join(found.events)}); is it another harness's? Name it with --harness")
    try:
        request = found.read(event, text, [], os.environ)
    except BadInput as error:
        raise JouetError(f"{where}: as {name}'s {event} payload: {error}") from None
    if request.kind != CALLS or not request.calls:
        raise JouetError(f"{where}: {name}'s {event} payload is not a tool call (rules decide tool calls; "
                         "a stop is checked by `on = \"stop\"` rules' examples)")
    return request.calls
