"""Claude Code: its hook payloads in, its hook replies out. The only module that knows them.

    jouet hook claude pre            PreToolUse
    jouet hook claude post           PostToolUse
    jouet hook claude post-failure   PostToolUseFailure
    jouet hook claude session-start  SessionStart

A denial is `permissionDecision: "deny"` with the reason; warnings go to `additionalContext`; a
rewrite sends `updatedInput`; when nothing fires, nothing is printed at all (no approval is ever
sent for a call jouet merely has no objection to). Bad input exits 1, which Claude Code reads as a
non-blocking error: the call goes ahead.
"""

from __future__ import annotations

import json
import os
import re

from jouet_git.call import KIND_SHELL, POST_TOOL_USE, PRE_TOOL_USE, Call, tool_kind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.engine.decide import Decision

EVENTS = {
    "pre": "PreToolUse",
    "post": "PostToolUse",
    "post-failure": "PostToolUseFailure",
    "session-start": "SessionStart",
}
_PATH_FIELDS = ("file_path", "notebook_path", "path")
_EXIT_CODE = r"[Ee]xit (?:code|status)[ :]*(-?\d+)"


class PayloadError(ValueError):
    """A payload jouet cannot read: it says what is wrong so the hook can report it."""


def parse(text: str) -> dict[str, Any]:
    try:
        payload = json.loads(text)
    except ValueError as error:
        raise PayloadError(f"the hook input is not JSON ({error})") from None
    if not isinstance(payload, dict):
        raise PayloadError("the hook input must be a JSON object")
    return payload


def call_from_payload(payload: dict[str, Any], event: str, harness: str = "claude") -> Call:
    """The Call a PreToolUse, PostToolUse or PostToolUseFailure payload describes."""
    tool = payload.get("tool_name")
    if not isinstance(tool, str) or not tool:
        raise PayloadError("the hook input has no tool_name")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        tool_input = {}
    kind = tool_kind(tool)
    command = tool_input.get("command") if kind == KIND_SHELL else None
    if command is not None and not isinstance(command, str):
        raise PayloadError("tool_input.command must be a string")
    path = None
    if kind != KIND_SHELL:
        for field in _PATH_FIELDS:
            value = tool_input.get(field)
            if isinstance(value, str) and value:
                path = value
                break
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        cwd = os.getcwd()
    exit_code = None
    call_event = PRE_TOOL_USE
    if event == "post":
        call_event, exit_code = POST_TOOL_USE, 0
    elif event == "post-failure":
        call_event = POST_TOOL_USE
        error = payload.get("error")
        found = re.search(_EXIT_CODE, error) if isinstance(error, str) else None
        exit_code = int(found.group(1)) if found else 1
    session = payload.get("session_id")
    agent = payload.get("agent_id")
    return Call(
        event=call_event,
        harness=harness,
        tool=tool,
        kind=kind,
        command=command,
        path=path,
        cwd=cwd,
        session=session if isinstance(session, str) else None,
        agent=agent if isinstance(agent, str) else None,
        exit_code=exit_code,
        input=tool_input,
        rewrite=(event == "pre" and tool == "Bash" and harness == "claude"),
        background=tool_input.get("run_in_background") is True,
    )


def reply(event: str, call: Call, decision: Decision) -> dict[str, Any] | None:
    """The JSON Claude Code reads, or None to say nothing."""
    name = EVENTS[event]
    warnings = [w.text() for w in decision.warnings]
    if event == "pre":
        if decision.deny is not None:
            return {"hookSpecificOutput": {"hookEventName": name, "permissionDecision": "deny",
                                           "permissionDecisionReason": decision.deny.text()}}
        out: dict[str, Any] = {"hookEventName": name}
        if decision.rewrite is not None and decision.rewrite.command is not None:
            out["updatedInput"] = {**call.input, "command": decision.rewrite.command}
            warnings.insert(0, decision.rewrite.text())
        if warnings:
            out["additionalContext"] = "\n".join(warnings)
        return {"hookSpecificOutput": out} if len(out) > 1 else None
    if decision.deny is not None:  # after a tool nothing can be denied: it is said as a warning
        warnings.insert(0, decision.deny.text())
    if not warnings:
        return None
    return {"hookSpecificOutput": {"hookEventName": name, "additionalContext": "\n".join(warnings)}}
