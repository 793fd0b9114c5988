"""GitHub Copilot (CLI and cloud agent): its hook payloads in, its hook replies out.

    jouet hook copilot pre-tool-use    preToolUse / PreToolUse
    jouet hook copilot post-tool-use   postToolUse / PostToolUse
    jouet hook copilot session-start   sessionStart / SessionStart
    jouet hook copilot agent-stop      agentStop / Stop
    jouet hook copilot subagent-stop   subagentStop / SubagentStop

Copilot picks the payload's format by how the event is spelled in the config: camelCase events send
`{sessionId, timestamp (ms), cwd, toolName, toolArgs}` with Copilot's own tool names (bash, view,
create, edit, apply_patch, ...); PascalCase ones send `{hook_event_name, session_id, timestamp (ISO),
cwd, tool_name, tool_input}` with Claude Code's tool names. Both are read, whatever the command line
says. `toolArgs` is "unknown": an object, a JSON string, or for apply_patch the patch text itself.

Replies, one JSON object on stdout (Copilot ignores stdout that is not exactly one):

- a denial: `{"permissionDecision": "deny", "permissionDecisionReason": advice [jouet rule: NAME]}`.
- an ask-mode rule: `"permissionDecision": "ask"`: the CLI asks the person (who may add feedback);
  the cloud agent, with nobody to ask, treats it as a denial.
- for a PascalCase (VS Code compatible) payload the same decision is also given inside
  `hookSpecificOutput`, the form Claude Code hooks use, so either reader finds it.
- a warning before a tool: preToolUse has no field that reaches the model for a call that goes
  ahead, so it goes to stderr (the person's log) and the ledger only. After a tool, warnings go to
  `additionalContext`, which Copilot appends to the tool's result; so does the primer at sessionStart.
- after a tool, a secret in its result (`toolResult.textResultForLlm`) is replaced: the screened
  text comes back as `modifiedResult: {resultType: "success", textResultForLlm}`, which Copilot uses
  instead of the original (jouet_git/screen.py). A PascalCase PostToolUseFailure's `error` can only
  be annotated: `additionalContext` says the output holds secrets that could not be withheld.
- agentStop and subagentStop: when the stop check holds the agent, `{"decision": "block",
  "reason"}` makes Copilot run another turn with the reason as its prompt (the same fields in
  both payload formats); otherwise nothing. agentStop's `stop_hook_active` says a stop hook already
  held this turn; subagentStop has no such field, so the stop check's own limit (held twice with
  nothing changed) keeps it from looping, as does Copilot's cap of 8 consecutive blocks.
- nothing fired: nothing at all, exit 0 (Copilot's default flow).
- bad input and jouet's own failure: nothing on stdout, exit 0, the problem on stderr and in the
  ledger. A preToolUse command hook that exits non-zero DENIES the call ("hook errored"), so jouet
  never exits non-zero here.

Fields that changed from the contract notes: postToolUse's `additionalContext` and sessionStart's
are processed now; the cloud agent reads only `.github/hooks/*.json`, runs in /workspace, and needs
jouet installed in its sandbox (copilot-setup-steps); PascalCase PreToolUse reports apply_patch as
Edit.
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

EVENTS = {
    "pre-tool-use": "preToolUse",
    "post-tool-use": "postToolUse",
    "session-start": "sessionStart",
    "agent-stop": "agentStop",
    "subagent-stop": "subagentStop",
}
PASCAL = {"PreToolUse": "pre-tool-use", "PostToolUse": "post-tool-use", "PostToolUseFailure": "post-tool-use",
          "SessionStart": "session-start", "Stop": "agent-stop", "SubagentStop": "subagent-stop"}
# Claude Code's event words (claude.py), for a Copilot payload that reached `jouet hook claude`.
FROM_CLAUDE = {"pre": "pre-tool-use", "post": "post-tool-use", "post-failure": "post-tool-use",
               "session-start": "session-start", "stop": "agent-stop", "subagent-stop": "subagent-stop"}
TOOLS = {
    "bash": KIND_SHELL, "powershell": KIND_SHELL, "view": KIND_READ, "create": KIND_EDIT, "edit": KIND_EDIT,
    "str_replace_editor": KIND_EDIT, "apply_patch": KIND_EDIT, "glob": KIND_SEARCH, "grep": KIND_SEARCH,
    "rg": KIND_SEARCH,
    "Bash": KIND_SHELL, "Read": KIND_READ, "Write": KIND_EDIT, "Edit": KIND_EDIT, "Grep": KIND_SEARCH,
    "Glob": KIND_SEARCH,
}
SAME_AS = {"bash": "Bash", "powershell": "Bash", "view": "Read", "create": "Write", "edit": "Edit",
           "str_replace_editor": "Edit", "apply_patch": "Edit", "grep": "Grep", "rg": "Grep", "glob": "Glob"}
_PATH_FIELDS = ("path", "file_path", "filePath")
_EXITED = re.compile(r"<exited with exit code (-?\d+)>")


def _result_exit_code(payload: dict[str, Any]) -> int:
    result = payload.get("toolResult", payload.get("tool_result"))
    if isinstance(result, dict):
        text = common.text(result, "textResultForLlm", "text_result_for_llm")
        found = _EXITED.search(text) if text else None
        if found:
            return int(found.group(1))
        if common.text(result, "resultType", "result_type") == "failure":
            return 1
    if payload.get("error"):
        return 1
    return 0


class CopilotAdapter(Adapter):
    name = "copilot"
    events: ClassVar[dict[str, str]] = {event: f"Copilot's {name}" for event, name in EVENTS.items()}
    tools: ClassVar[dict[str, str]] = TOOLS
    same_as: ClassVar[dict[str, str]] = SAME_AS

    def read(self, event: str, stdin: str, argv: list[str], environ: Mapping[str, str]) -> Request:
        return self.read_payload(event, common.stdin_payload(self.name, event, stdin, argv))

    def read_foreign(self, event: str, payload: dict[str, Any]) -> Request:
        own = PASCAL.get(common.text(payload, "hook_event_name") or "") or FROM_CLAUDE.get(event)
        if own is None:
            raise BadInput(f"a Copilot payload for {event}, which jouet does not guard")
        return self.read_payload(own, payload)

    def read_payload(self, event: str, payload: dict[str, Any]) -> Request:
        cwd = common.text(payload, "cwd") or _here()
        session = common.text(payload, "sessionId", "session_id")
        if event == "session-start":
            return Request(SESSION_START, event, cwd, session=session, payload=payload)
        if event in ("agent-stop", "subagent-stop"):
            return Request(STOP, event, cwd, session=session, agent=common.text(payload, "agentId", "agent_id"),
                           payload=payload, stop_active=payload.get("stop_hook_active") is True)
        tool = common.text(payload, "toolName", "tool_name")
        if tool is None:
            raise BadInput("the hook input has no toolName (or tool_name)")
        screen, withhold = _to_screen(payload) if event == "post-tool-use" else (None, True)
        raw = payload.get("toolArgs", payload.get("tool_input"))
        args = common.decode_args(raw)
        kind = self.tool_kind(tool)
        after = event == "post-tool-use"

        def call(**fields: Any) -> Call:
            return Call(event=POST_TOOL_USE if after else PRE_TOOL_USE, harness=self.name, tool=self.canonical(tool),
                        kind=kind, cwd=cwd, session=session,
                        exit_code=_result_exit_code(payload) if after else None, **fields)

        if kind == KIND_SHELL:
            command = args.get("command") if isinstance(args, dict) else args
            if not isinstance(command, str):
                raise BadInput("the shell tool's arguments have no command")
            calls = [call(command=command, input=args if isinstance(args, dict) else {"command": command})]
        else:
            tool_input = args if isinstance(args, dict) else ({"input": args} if isinstance(args, str) else {})
            path = common.text(tool_input, *_PATH_FIELDS)
            patch = _patch(args)
            if kind == KIND_EDIT and path is None and patch is not None:
                targets = common.patch_targets(patch)
                calls = [call(path=common.absolute(p, cwd), input={"file_path": p, "patch": patch}) for p in targets] \
                    or [call(input=tool_input)]
            else:
                calls = [call(path=common.absolute(path, cwd) if path else None, input=tool_input)]
        return Request(CALLS, event, cwd, calls, session=session, payload=payload, screen=screen, withhold=withhold)

    def recorded_event(self, payload: dict[str, Any]) -> str | None:
        own = PASCAL.get(common.text(payload, "hook_event_name") or "")
        if own is not None:
            return own
        if "toolName" in payload:
            return "post-tool-use" if "toolResult" in payload or "error" in payload else "pre-tool-use"
        if "stopReason" in payload:
            return "subagent-stop" if "agentId" in payload else "agent-stop"
        return "session-start" if "source" in payload else None

    def reply(self, request: Request, outcome: Outcome) -> Reply:
        verdict = common.Verdict(request, outcome)
        pascal = isinstance(request.payload, dict) and "hook_event_name" in request.payload
        stderr = verdict.stderr()
        out: dict[str, Any] = {}
        if request.kind == SESSION_START:
            if outcome.primer:
                out["additionalContext"] = outcome.primer
        elif request.kind == STOP:
            if verdict.stop is not None:
                out = {"decision": "block", "reason": verdict.stop.text()}
        elif request.event == "pre-tool-use":
            if verdict.block is not None:
                out = {"permissionDecision": verdict.block.action, "permissionDecisionReason": verdict.reason()}
            stderr += "".join(f"jouet: warning: {w}\n" for w in verdict.warnings)
        else:
            lines = list(verdict.warnings)
            screened = outcome.screened
            if screened is not None and request.withhold and screened.screened.found:
                out["modifiedResult"] = {"resultType": "success", "textResultForLlm": screened.value}
                if not screened.placed:
                    lines.append(screened.notice)
                if screened.screened.problem:
                    lines.append(common.screen_problem(screened.screened.problem, replaced=True))
            elif screened is not None:
                lines += common.screened_lines(screened, "this failed tool's output",
                                               "After a failed tool a hook may only add context")
            if lines:
                out["additionalContext"] = "\n".join(lines)
        if pascal and out and request.kind != STOP:
            name = {"pre-tool-use": "PreToolUse", "post-tool-use": "PostToolUse", "session-start": "SessionStart"}
            out["hookSpecificOutput"] = {"hookEventName": request.payload.get("hook_event_name", name[request.event]),
                                         **out}
        return Reply(common.dump(out) if out else "", stderr)

    def bad_input(self, event: str, message: str) -> Reply:
        return Reply(stderr=f"jouet: {message}; no decision made, the call goes ahead\n")

    def failure(self, event: str, message: str) -> Reply:
        return Reply(stderr=f"jouet: {message}; no decision made, the call goes ahead\n")


def _to_screen(payload: dict[str, Any]) -> tuple[str | None, bool]:
    """What a postToolUse payload hands over to screen, and whether a reply may replace it: the
    result's text for the model (camelCase or snake_case), or a failure's error text (annotated only)."""
    result = payload.get("toolResult", payload.get("tool_result"))
    text = common.text(result, "textResultForLlm", "text_result_for_llm")
    if text is not None:
        return text, True
    error = payload.get("error")
    if isinstance(error, dict):
        error = error.get("message")
    return (error, False) if isinstance(error, str) and error else (None, True)


def _patch(args: Any) -> str | None:
    """The apply_patch envelope in a tool's arguments: the arguments themselves, or a string field."""
    values = [args] if isinstance(args, str) else list(args.values()) if isinstance(args, dict) else []
    for value in values:
        if isinstance(value, str) and "*** Begin Patch" in value:
            return value
    return None


def _here() -> str:
    import os

    return os.getcwd()


ADAPTER = CopilotAdapter()
