"""Gemini CLI: its hook payloads in, its hook replies out.

    jouet hook gemini before-tool     BeforeTool (run_shell_command, read_file, read_many_files,
                                      write_file, replace, grep_search, glob)
    jouet hook gemini after-tool      AfterTool (run_shell_command)
    jouet hook gemini session-start   SessionStart
    jouet hook gemini after-agent     AfterAgent

Replies, on stdout with exit 0:

- a denial: `{"decision": "deny", "reason": advice [jouet rule: NAME]}`: Gemini does not run the
  tool and hands the reason to the model as the tool's error; `systemMessage` tells the person.
- an ask-mode rule: `{"decision": "ask", "reason": ...}`: Gemini asks the person to confirm the call.
- a warning before a tool: `systemMessage` only. Gemini ignores `additionalContext` in BeforeTool,
  so the model does not see it there (said in the README); after a tool, warnings go to
  `hookSpecificOutput.additionalContext`, which Gemini appends to the tool's result.
- after a tool whose result holds a secret: `{"decision": "deny", "reason": the result's text for
  the model (llmContent) with each secret replaced}`. AfterTool has no field that rewrites a result,
  but a denial hides the real output and hands the model (and the person's display) the reason
  instead, marked as the tool's error ("Tool result blocked: ..."); warnings then go into the same
  reason, since Gemini drops `additionalContext` from a blocked result. Parts of a result that are
  not text (an image a tool returned) are dropped with it.
- the primer: SessionStart's `hookSpecificOutput.additionalContext`.
- AfterAgent: `{"decision": "deny", "reason": ...}` when the stop check holds the agent (Gemini
  retries the turn with the reason as the prompt); `stop_hook_active` says it already did.
- lines for the person (rules that failed, notices): `systemMessage`.
- nothing fired: nothing at all, on stdout or stderr. Gemini reads stderr when stdout is empty and
  would turn it into a message, so this adapter writes nothing to stderr on a reply.

Bad input and jouet's own failure exit 1: Gemini logs a warning and goes on. Timeouts in Gemini's
settings are milliseconds (`jouet setup gemini` writes 30000).

Fields beyond the contract notes: `run_shell_command` runs in `dir_path` (relative to the project)
when given, and `tool_input` may carry `is_background`; AfterTool's `tool_response.llmContent`
ends with an `Exit Code:` line for shell commands, which is where the exit code is read from.
"""

from __future__ import annotations

import re

from jouet_git.call import KIND_EDIT, KIND_READ, KIND_SEARCH, KIND_SHELL, POST_TOOL_USE, PRE_TOOL_USE, Call
from jouet_git.harness import common
from jouet_git.harness.base import CALLS, SESSION_START, STOP, Adapter, BadInput, Outcome, Reply, Request

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

EVENTS = {"before-tool": "BeforeTool", "after-tool": "AfterTool", "session-start": "SessionStart",
          "after-agent": "AfterAgent"}
BY_NAME = {name: event for event, name in EVENTS.items()}
TOOLS = {
    "run_shell_command": KIND_SHELL, "read_file": KIND_READ, "read_many_files": KIND_READ, "write_file": KIND_EDIT,
    "replace": KIND_EDIT, "grep_search": KIND_SEARCH, "search_file_content": KIND_SEARCH, "glob": KIND_SEARCH,
    "Bash": KIND_SHELL, "Read": KIND_READ, "Write": KIND_EDIT, "Edit": KIND_EDIT, "Grep": KIND_SEARCH,
    "Glob": KIND_SEARCH,
}
SAME_AS = {"run_shell_command": "Bash", "read_file": "Read", "read_many_files": "Read", "write_file": "Write",
           "replace": "Edit", "grep_search": "Grep", "search_file_content": "Grep", "glob": "Glob"}
_PATH_FIELDS = ("file_path", "absolute_path", "path", "dir_path")
_EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)", re.MULTILINE)


def _exit_code(response: Any) -> int:
    if isinstance(response, dict):
        content = response.get("llmContent")
        found = _EXIT_CODE.search(content) if isinstance(content, str) else None
        if found:
            return int(found.group(1))
        if response.get("error"):
            return 1
    return 0


class GeminiAdapter(Adapter):
    name = "gemini"
    events: ClassVar[dict[str, str]] = {event: f"Gemini CLI's {name}" for event, name in EVENTS.items()}
    tools: ClassVar[dict[str, str]] = TOOLS
    same_as: ClassVar[dict[str, str]] = SAME_AS

    def read(self, event: str, stdin: str, argv: list[str], environ: Mapping[str, str]) -> Request:
        return self.read_payload(event, common.stdin_payload(self.name, event, stdin, argv))

    def read_foreign(self, event: str, payload: dict[str, Any]) -> Request:
        name = common.text(payload, "hook_event_name")
        own = BY_NAME.get(name or "")
        if own is None:
            raise BadInput(f"a Gemini CLI payload for {name or 'an unnamed event'}, which jouet does not guard")
        return self.read_payload(own, payload)

    def read_payload(self, event: str, payload: dict[str, Any]) -> Request:
        cwd = common.text(payload, "cwd") or _here()
        session = common.text(payload, "session_id")
        if event == "session-start":
            return Request(SESSION_START, event, cwd, session=session, payload=payload)
        if event == "after-agent":
            return Request(STOP, event, cwd, session=session, payload=payload,
                           stop_active=payload.get("stop_hook_active") is True)
        tool = common.text(payload, "tool_name")
        if tool is None:
            raise BadInput("the hook input has no tool_name")
        tool_input = payload.get("tool_input")
        if not isinstance(tool_input, dict):
            tool_input = {}
        kind = self.tool_kind(tool)
        after = event == "after-tool"
        exit_code = _exit_code(payload.get("tool_response")) if after else None

        def call(**fields: Any) -> Call:
            return Call(event=POST_TOOL_USE if after else PRE_TOOL_USE, harness=self.name, tool=self.canonical(tool),
                        kind=kind, session=session, exit_code=exit_code, input=tool_input, **fields)

        if kind == KIND_SHELL:
            command = tool_input.get("command")
            if not isinstance(command, str):
                raise BadInput("tool_input.command must be a string")
            where = common.text(tool_input, "dir_path", "directory")
            calls = [call(command=command, cwd=common.absolute(where, cwd) if where else cwd,
                          background=tool_input.get("is_background") is True)]
        elif tool == "read_many_files":
            patterns = tool_input.get("include") or tool_input.get("paths") or []
            paths = [p for p in patterns if isinstance(p, str) and p] if isinstance(patterns, list) else []
            calls = [call(path=common.absolute(p, cwd), cwd=cwd) for p in paths] or [call(cwd=cwd)]
        else:
            path = common.text(tool_input, *_PATH_FIELDS)
            calls = [call(path=common.absolute(path, cwd) if path else None, cwd=cwd)]
        screen = _llm_text(payload.get("tool_response")) if after else None
        return Request(CALLS, event, cwd, calls, session=session, payload=payload, screen=screen)

    def recorded_event(self, payload: dict[str, Any]) -> str | None:
        return BY_NAME.get(common.text(payload, "hook_event_name") or "")

    def reply(self, request: Request, outcome: Outcome) -> Reply:
        verdict = common.Verdict(request, outcome)
        out: dict[str, Any] = {}
        person = list(verdict.person)
        if request.kind == SESSION_START:
            if outcome.primer:
                out["hookSpecificOutput"] = {"hookEventName": "SessionStart", "additionalContext": outcome.primer}
        elif request.kind == STOP:
            if verdict.stop is not None:
                out["decision"] = "deny"
                out["reason"] = verdict.stop.text()
        elif request.event == "before-tool":
            if verdict.block is not None:
                out["decision"] = verdict.block.action  # "deny", or "ask": Gemini asks the person
                out["reason"] = verdict.reason()
                person.insert(0, verdict.for_person())
            else:
                # BeforeTool has no channel to the model for a call that goes ahead: the person reads it.
                person[:0] = [f"{common.PERSON} warns: {w}" for w in verdict.warnings]
        else:
            warnings = list(verdict.warnings)
            screened = outcome.screened
            if screened is not None and screened.screened.problem:
                found = bool(screened.screened.found)
                warnings.append(common.screen_problem(screened.screened.problem, replaced=found))
            if screened is not None and screened.screened.found:
                # A denial after a tool replaces what the model reads with the reason.
                out["decision"] = "deny"
                out["reason"] = "\n\n".join([common.as_text(screened.value), *warnings])
                n = screened.screened.count
                person.insert(0, f"{common.PERSON} replaced {n} secret{'s' if n != 1 else ''} in this tool's output "
                                 f"(gitleaks rules: {', '.join(screened.screened.rules)}).")
            elif warnings:
                out["hookSpecificOutput"] = {"hookEventName": "AfterTool", "additionalContext": "\n".join(warnings)}
        if person:
            out["systemMessage"] = "\n".join(person)
        return Reply(common.dump(out) if out else "")


def _llm_text(response: Any) -> str | None:
    """The text of an AfterTool result the model reads (`llmContent`: a string, or parts whose
    `text` fields are joined), to screen."""
    content = response.get("llmContent") if isinstance(response, dict) else None
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else [content]
    texts = [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return "\n".join(texts) if texts else None


def _here() -> str:
    import os

    return os.getcwd()


ADAPTER = GeminiAdapter()
