"""Claude Code: its hook payloads in, its hook replies out. The only module that knows them.

    jouet hook claude pre            PreToolUse
    jouet hook claude post           PostToolUse
    jouet hook claude post-failure   PostToolUseFailure
    jouet hook claude session-start  SessionStart

A denial is `permissionDecision: "deny"` with the reason; warnings go to `additionalContext`; a
rewrite sends `updatedInput`; when nothing fires, nothing is printed at all (no approval is ever
sent for a call jouet merely has no objection to). After a tool, its output is screened for secrets
(jouet_git/screen.py): PostToolUse replaces each one through `updatedToolOutput`, in the shape the
result arrived in; PostToolUseFailure can only be annotated, and says so. Bad input and jouet's
own failure exit 1, which Claude Code reads as a non-blocking error: the call goes ahead. At
session start the primer goes to `additionalContext`, and JOUET_SESSION_ID is exported into the
agent's shell through Claude Code's CLAUDE_ENV_FILE (for `jouet claim` and git's hooks).
"""

from __future__ import annotations

import json
import os
import re

from jouet_git.call import KIND_EDIT, KIND_READ, KIND_SEARCH, KIND_SHELL, POST_TOOL_USE, PRE_TOOL_USE, Call
from jouet_git.harness.base import (
    CALLS,
    SESSION_START,
    STOP,
    Adapter,
    BadInput,
    Outcome,
    Reply,
    Request,
    failed_rules,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

    from jouet_git.screen import OutputScreen

EVENTS = {
    "pre": "PreToolUse",
    "post": "PostToolUse",
    "post-failure": "PostToolUseFailure",
    "session-start": "SessionStart",
    "stop": "Stop",
    "subagent-stop": "SubagentStop",
}
TOOLS = {
    "Bash": KIND_SHELL, "Read": KIND_READ, "Edit": KIND_EDIT, "Write": KIND_EDIT, "MultiEdit": KIND_EDIT,
    "NotebookEdit": KIND_EDIT, "Grep": KIND_SEARCH, "Glob": KIND_SEARCH,
}
_PATH_FIELDS = ("file_path", "notebook_path", "path")
_EXIT_CODE = r"[Ee]xit (?:code|status)[ :]*(-?\d+)"


def parse(text: str) -> dict[str, Any]:
    """The payload object in TEXT. Raises BadInput."""
    try:
        payload = json.loads(text)
    except ValueError as error:
        raise BadInput(f"the hook input is not JSON ({error})") from None
    if not isinstance(payload, dict):
        raise BadInput("the hook input must be a JSON object")
    return payload


def _cwd(payload: dict[str, Any]) -> str:
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) and cwd else os.getcwd()


def _text(payload: dict[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) and value else None


def call_from_payload(payload: dict[str, Any], event: str, harness: str = "claude",
                      tools: dict[str, str] = TOOLS) -> Call:
    """The Call a PreToolUse, PostToolUse or PostToolUseFailure payload describes."""
    from jouet_git.call import KIND_OTHER

    tool = payload.get("tool_name")
    if not isinstance(tool, str) or not tool:
        raise BadInput("the hook input has no tool_name")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        tool_input = {}
    kind = tools.get(tool, KIND_OTHER)
    command = tool_input.get("command") if kind == KIND_SHELL else None
    if command is not None and not isinstance(command, str):
        raise BadInput("tool_input.command must be a string")
    path = None
    if kind != KIND_SHELL:
        for field in _PATH_FIELDS:
            value = tool_input.get(field)
            if isinstance(value, str) and value:
                path = value
                break
    exit_code = None
    call_event = PRE_TOOL_USE
    if event == "post":
        call_event, exit_code = POST_TOOL_USE, 0
    elif event == "post-failure":
        call_event = POST_TOOL_USE
        error = payload.get("error")
        found = re.search(_EXIT_CODE, error) if isinstance(error, str) else None
        exit_code = int(found.group(1)) if found else 1
    return Call(
        event=call_event,
        harness=harness,
        tool=tool,
        kind=kind,
        command=command,
        path=path,
        cwd=_cwd(payload),
        session=_text(payload, "session_id"),
        agent=_text(payload, "agent_id"),
        exit_code=exit_code,
        input=tool_input,
        rewrite=(event == "pre" and tool == "Bash" and harness == "claude"),
        background=tool_input.get("run_in_background") is True,
        duration_ms=_duration(payload) if call_event == POST_TOOL_USE else None,
    )


def output_to_screen(payload: dict[str, Any], event: str) -> Any:
    """What a post-tool payload hands over to screen: the result as it arrived (PostToolUse), or
    the error text (PostToolUseFailure, where the output arrives as a top-level string)."""
    if event == "post":
        return payload.get("tool_response")
    if event == "post-failure":
        return payload.get("error")
    return None


def screened_output(body: dict[str, Any], tool: str, event: str, screened: OutputScreen) -> list[str]:
    """Put what screening found into a PostToolUse(Failure) reply BODY; the lines for additionalContext.

    PostToolUse takes the whole result back as `updatedToolOutput`, built from the shape that
    arrived (screen.screen_output), and MCP results also as `updatedMCPToolOutput` for Claude Code
    versions that know only that one. PostToolUseFailure takes context only: the output cannot be
    withheld there, and the line says so.
    """
    lines: list[str] = []
    found = screened.screened.found
    problem = screened.screened.problem
    if found and event == "post":
        if screened.written:
            body["updatedToolOutput"] = screened.value
            if tool.startswith("mcp__"):
                body["updatedMCPToolOutput"] = screened.value
        if screened.written and not screened.placed:
            lines.append(screened.notice)
        if not screened.withheld:
            lines.append("jouet: part of this output holds a secret in a field a hook may not rewrite, so it could "
                         "not be withheld: do not repeat, store or send it.")
    elif found:
        n = sum(found.values())
        rules = ", ".join(sorted(found))
        lines.append(f"jouet: this failed tool's output holds {n} secret{'s' if n != 1 else ''} (gitleaks rules: "
                     f"{rules}). After a failed tool a hook may only add context, so the output could not be "
                     "withheld: do not repeat, store or send what it printed.")
    if problem:
        lines.append(f"jouet: could not screen this output for secrets with gitleaks ({problem}); only well-known "
                     "token shapes were replaced.")
    return lines


def _duration(payload: dict[str, Any]) -> int | None:
    """How long the tool ran, from a PostToolUse payload's duration_ms."""
    value = payload.get("duration_ms")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return int(value)


class ClaudeAdapter(Adapter):
    name = "claude"
    events: ClassVar[dict[str, str]] = {event: f"Claude Code's {name}" for event, name in EVENTS.items()}
    tools: ClassVar[dict[str, str]] = TOOLS

    def read(self, event: str, stdin: str, argv: list[str], environ: Mapping[str, str]) -> Request:
        if argv:
            raise BadInput(f"jouet hook claude {event} takes no arguments (the payload comes on stdin)")
        payload = parse(stdin)
        cwd = _cwd(payload)
        session = _text(payload, "session_id")
        if event == "session-start":
            # Started again after /clear or a compaction: the context no longer holds what it read.
            cleared = payload.get("source") in ("clear", "compact")
            return Request(SESSION_START, event, cwd, session=session, payload=payload, cleared=cleared)
        if event in ("stop", "subagent-stop"):
            return Request(STOP, event, cwd, session=session, agent=_text(payload, "agent_id"), payload=payload,
                           stop_active=payload.get("stop_hook_active") is True)
        call = call_from_payload(payload, event)
        return Request(CALLS, event, cwd, [call], session=session, agent=call.agent, payload=payload,
                       screen=output_to_screen(payload, event))

    def started(self, request: Request, environ: Mapping[str, str]) -> None:
        """Export the session id into the agent's shell through CLAUDE_ENV_FILE."""
        env_file = environ.get("CLAUDE_ENV_FILE")
        if env_file and request.session:
            import shlex

            with open(env_file, "a", encoding="utf-8") as f:
                f.write(f"export JOUET_SESSION_ID={shlex.quote(request.session)}\nexport JOUET_HARNESS=claude\n")

    def reply(self, request: Request, outcome: Outcome) -> Reply:
        stderr = "".join(line + "\n" for line in failed_rules(outcome.decisions) + outcome.notices)
        if request.kind == SESSION_START:
            out: dict[str, Any] = {}
            if outcome.primer:
                out["hookSpecificOutput"] = {"hookEventName": "SessionStart", "additionalContext": outcome.primer}
            if outcome.notices:  # Claude Code shows systemMessage to the person: broken rules, say
                out["systemMessage"] = "\n".join(outcome.notices)
            if not out:
                return Reply(stderr=stderr)
            return Reply(json.dumps(out) + "\n", stderr)
        if request.kind == STOP:
            # Stop and SubagentStop: {"decision": "block", "reason"} keeps the agent working.
            held = outcome.stop.deny if outcome.stop is not None else None
            if held is None:
                return Reply(stderr=stderr)
            return Reply(json.dumps({"decision": "block", "reason": held.text()}) + "\n", stderr)
        [call], [decision] = request.calls, outcome.decisions
        name = EVENTS[request.event]
        warnings = [w.text() for w in decision.warnings]
        body: dict[str, Any] | None
        if request.event == "pre":
            if decision.deny is not None:
                body = {"hookEventName": name, "permissionDecision": "deny",
                        "permissionDecisionReason": decision.deny.text()}
            else:
                body = {"hookEventName": name}
                if decision.rewrite is not None and decision.rewrite.command is not None:
                    body["updatedInput"] = {**call.input, "command": decision.rewrite.command}
                    warnings.insert(0, decision.rewrite.text())
                if warnings:
                    body["additionalContext"] = "\n".join(warnings)
                if len(body) == 1:
                    body = None
        else:
            if decision.deny is not None:  # after a tool nothing can be denied: it is said as a warning
                warnings.insert(0, decision.deny.text())
            body = {"hookEventName": name}
            if outcome.screened is not None:
                warnings += screened_output(body, call.tool, request.event, outcome.screened)
            if warnings:
                body["additionalContext"] = "\n".join(warnings)
            if len(body) == 1:
                body = None
        if body is None:
            return Reply(stderr=stderr)
        return Reply(json.dumps({"hookSpecificOutput": body}) + "\n", stderr)


ADAPTER = ClaudeAdapter()
