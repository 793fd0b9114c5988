"""Claude Code: its hook payloads in, its hook replies out. The only module that knows them.

    jouet hook claude pre            PreToolUse (Bash and PowerShell, Read, Grep, the file edits)
    jouet hook claude post           PostToolUse
    jouet hook claude post-failure   PostToolUseFailure
    jouet hook claude session-start  SessionStart
    jouet hook claude stop           Stop
    jouet hook claude subagent-stop  SubagentStop

A denial is `permissionDecision: "deny"` with the advice; an ask-mode rule answers
`permissionDecision: "ask"`, so Claude Code puts the call to the person with the advice; warnings
go to `additionalContext` (the model reads them); a rewrite sends `updatedInput`; lines for the
person (broken or failed rules, a repository's changed rules) go to `systemMessage` at session start
and to stderr on each call. When nothing fires,
nothing is printed at all: no approval is ever sent for a call jouet merely has no objection to.
At Stop and SubagentStop, when the stop check holds the agent, `{"decision": "block", "reason"}`
keeps it working; otherwise nothing. After a tool, its output is screened for secrets
(jouet_git/screen.py): PostToolUse replaces each one through `updatedToolOutput`, in the shape the
result arrived in; PostToolUseFailure can only be annotated, and says so. Bad input and jouet's own
failure exit 1, which Claude Code
reads as a non-blocking error: the call goes ahead and the person sees the message. At session start
the primer goes to `additionalContext`, and JOUET_SESSION_ID is exported into the agent's shell
through Claude Code's CLAUDE_ENV_FILE (for `jouet claim` and git's hooks).

PowerShell is a shell tool like Bash: its command goes through the same shell reader (a git
command reads the same in both; PowerShell's own syntax beyond that is read as a POSIX shell would).

Other harnesses run these hooks too: Cursor (with third-party configs on) and GitHub Copilot CLI
load `.claude/settings.json` and run its hooks under their own contracts, where an empty or
non-JSON answer, or a non-zero exit, blocks the call. So the payload's shape says who sent it (the
command line says Claude Code, but the payload is the fallback the contract notes allow):
`cursor_version` or `conversation_id` is Cursor's, `toolName`/`sessionId`/`toolArgs` or a
`timestamp` without `transcript_path` is Copilot's, `turn_id` is Codex's, a Gemini event name is
Gemini's; such a payload is read and answered, bad input and jouet's failure included, by that
harness's own adapter. Input that is not JSON at all cannot say who sent it and gets Claude Code's
answer (exit 1): none of those harnesses sends anything else.
"""

from __future__ import annotations

import os
import re

from jouet_git.call import KIND_EDIT, KIND_READ, KIND_SEARCH, KIND_SHELL, POST_TOOL_USE, PRE_TOOL_USE, Call
from jouet_git.harness import common
from jouet_git.harness.base import CALLS, SESSION_START, STOP, Adapter, BadInput, Outcome, Reply, Request

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
    "Bash": KIND_SHELL, "PowerShell": KIND_SHELL, "Read": KIND_READ, "Edit": KIND_EDIT, "Write": KIND_EDIT,
    "MultiEdit": KIND_EDIT, "NotebookEdit": KIND_EDIT, "Grep": KIND_SEARCH, "Glob": KIND_SEARCH,
}
_PATH_FIELDS = ("file_path", "notebook_path", "path")
_EXIT_CODE = r"[Ee]xit (?:code|status)[ :]*(-?\d+)"
_GEMINI_EVENTS = frozenset({"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel"})

parse = common.parse


def _cwd(payload: dict[str, Any]) -> str:
    return common.text(payload, "cwd") or os.getcwd()


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
        path = common.text(tool_input, *_PATH_FIELDS)
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
        session=common.text(payload, "session_id"),
        agent=common.text(payload, "agent_id"),
        exit_code=exit_code,
        input=tool_input,
        rewrite=(event == "pre" and tool == "Bash" and harness == "claude"),
        background=tool_input.get("run_in_background") is True,
        duration_ms=_duration(payload) if call_event == POST_TOOL_USE else None,
    )


def sender(payload: dict[str, Any]) -> str | None:
    """The harness that sent PAYLOAD to a Claude Code hook, when its shape says it is not Claude Code."""
    if "cursor_version" in payload or "conversation_id" in payload:
        return "cursor"
    if "turn_id" in payload:
        return "codex"
    if "toolName" in payload or "sessionId" in payload or "toolArgs" in payload:
        return "copilot"
    if payload.get("hook_event_name") in _GEMINI_EVENTS:
        return "gemini"
    if "timestamp" in payload and "transcript_path" not in payload:
        return "copilot"
    return None


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
        lines.append(common.not_withheld(found, "this failed tool's output", "After a failed tool a hook may only add "
                                         "context"))
    if problem:
        lines.append(common.screen_problem(problem, replaced=event == "post"))
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

    def __init__(self) -> None:
        # The harness whose payload this process read, when it is not Claude Code (see sender()).
        self.other: Adapter | None = None

    def read(self, event: str, stdin: str, argv: list[str], environ: Mapping[str, str]) -> Request:
        payload = common.stdin_payload(self.name, event, stdin, argv)
        other = sender(payload)
        if other is not None:
            from jouet_git.harness import adapter

            self.other = adapter(other)
            if self.other is not None:
                return self.other.read_foreign(event, payload)
        cwd = _cwd(payload)
        session = common.text(payload, "session_id")
        if event == "session-start":
            # Started again after /clear or a compaction: the context no longer holds what it read.
            cleared = payload.get("source") in ("clear", "compact")
            return Request(SESSION_START, event, cwd, session=session, payload=payload, cleared=cleared)
        if event in ("stop", "subagent-stop"):
            return Request(STOP, event, cwd, session=session, agent=common.text(payload, "agent_id"),
                           payload=payload, stop_active=payload.get("stop_hook_active") is True)
        call = call_from_payload(payload, event)
        return Request(CALLS, event, cwd, [call], session=session, agent=call.agent, payload=payload,
                       screen=output_to_screen(payload, event), withhold=event == "post")

    def recorded_event(self, payload: dict[str, Any]) -> str | None:
        name = payload.get("hook_event_name", "PreToolUse")
        return {n: e for e, n in EVENTS.items()}.get(name) if isinstance(name, str) else None

    def started(self, request: Request, environ: Mapping[str, str]) -> None:
        if self.other is not None:
            self.other.started(request, environ)
            return
        common.export_session(environ.get("CLAUDE_ENV_FILE"), request.session, self.name)

    def bad_input(self, event: str, message: str) -> Reply:
        if self.other is not None:
            return self.other.bad_input(event, message)
        return super().bad_input(event, message)

    def failure(self, event: str, message: str) -> Reply:
        if self.other is not None:
            return self.other.failure(event, message)
        return super().failure(event, message)

    def reply(self, request: Request, outcome: Outcome) -> Reply:
        if self.other is not None:
            return self.other.reply(request, outcome)
        verdict = common.Verdict(request, outcome)
        out: dict[str, Any] = {}
        stderr = ""
        if verdict.person:
            # The person sees systemMessage: said there once, at session start; on each call it goes
            # to stderr (the hook's log), so a broken rule does not interrupt every tool call.
            if request.kind == SESSION_START:
                out["systemMessage"] = verdict.person_text()
            stderr = verdict.stderr()
        name = EVENTS[request.event]
        if request.kind == SESSION_START:
            if outcome.primer:
                out["hookSpecificOutput"] = {"hookEventName": name, "additionalContext": outcome.primer}
        elif request.kind == STOP:
            if verdict.stop is not None:
                out["decision"] = "block"
                out["reason"] = verdict.stop.text()
        else:
            [call] = request.calls
            warnings = list(verdict.warnings)
            body: dict[str, Any] = {"hookEventName": name}
            if verdict.block is not None:
                body["permissionDecision"] = verdict.block.action  # "deny", or "ask": the person decides
                reason = verdict.reason()
                rewrite = outcome.decisions[0].rewrite
                if verdict.asks and rewrite is not None and rewrite.command is not None:
                    reason += f"\n(jouet would otherwise have run instead: {rewrite.command})"
                body["permissionDecisionReason"] = reason
            elif verdict.rewrite is not None and verdict.rewrite.command is not None:
                body["updatedInput"] = {**call.input, "command": verdict.rewrite.command}
                warnings.insert(0, verdict.rewrite.text())
            if outcome.screened is not None and request.event in ("post", "post-failure"):
                warnings += screened_output(body, call.tool, request.event, outcome.screened)
            if warnings:
                body["additionalContext"] = "\n".join(warnings)
            if len(body) > 1:
                out["hookSpecificOutput"] = body
        return Reply(common.dump(out) if out else "", stderr)


ADAPTER = ClaudeAdapter()
