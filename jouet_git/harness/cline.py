"""Cline: its hook payloads in, its hook replies out.

    jouet hook cline pre-tool-use    PreToolUse
    jouet hook cline post-tool-use   PostToolUse
    jouet hook cline task-start      TaskStart

Cline runs an executable named after the event (`jouet setup cline` writes one per event that runs
these commands) and reads one JSON object from its stdout: `{"cancel": bool, "contextModification":
text for the model, "errorMessage": text shown when cancelled}`. Depending on Cline's version a hook
that exits non-zero, prints something that is not JSON or times out either blocks the call or is
skipped, so jouet answers valid JSON and exits 0 on every path:

- a denial, and an ask-mode rule (a hook cannot ask the person in Cline): `{"cancel": true,
  "errorMessage": advice [jouet rule: NAME]}`.
- warnings, before or after a tool: `{"cancel": false, "contextModification": ...}` (the model reads it).
- the primer at TaskStart: `contextModification` too.
- after a tool, its `result` is screened for secrets (jouet_git/screen.py). Cline lets a hook only
  add context there, so a secret found is said in `contextModification` (how many, which gitleaks
  rules, that the output could not be withheld); the output itself reaches the model as it was.
- nothing fired: `{"cancel": false}`, Cline's "no objection".
- bad input and jouet's own failure: `{"cancel": false}` too, failing open, with the problem on
  stderr (and, for a failure, in the ledger).
- lines for the person (rules that failed, notices) go to stderr.

Payloads: `{clineVersion, hookName, timestamp, taskId, workspaceRoots, userId, preToolUse:
{toolName, parameters}}` (`postToolUse` adds `result`, `success`, `executionTimeMs`). Changed from
the contract notes: every parameter value is a string (lists and objects JSON-encoded); the SDK's
runtime (current extension and CLI) names its tools `run_commands` (`commands`, a list), `read_files`,
`editor`, `apply_patch` beside the older `execute_command`, `read_file`, `write_to_file`,
`replace_in_file`, and may send `tool_call {id, name, input}` instead. All are read. Relative paths
are read against the first workspace root, where commands run. `run_commands` is one Call per
command, and the first denial answers for all.
"""

from __future__ import annotations

from jouet_git.call import KIND_EDIT, KIND_READ, KIND_SEARCH, KIND_SHELL, POST_TOOL_USE, PRE_TOOL_USE, Call
from jouet_git.harness import common
from jouet_git.harness.base import CALLS, SESSION_START, Adapter, BadInput, Outcome, Reply, Request

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

EVENTS = {"pre-tool-use": "PreToolUse", "post-tool-use": "PostToolUse", "task-start": "TaskStart"}
TOOLS = {
    "execute_command": KIND_SHELL, "run_commands": KIND_SHELL, "read_file": KIND_READ, "read_files": KIND_READ,
    "write_to_file": KIND_EDIT, "replace_in_file": KIND_EDIT, "editor": KIND_EDIT, "apply_patch": KIND_EDIT,
    "search_files": KIND_SEARCH,
    "Bash": KIND_SHELL, "Read": KIND_READ, "Write": KIND_EDIT, "Edit": KIND_EDIT, "Grep": KIND_SEARCH,
}
SAME_AS = {"execute_command": "Bash", "run_commands": "Bash", "read_file": "Read", "read_files": "Read",
           "write_to_file": "Write", "replace_in_file": "Edit", "editor": "Edit", "apply_patch": "Edit",
           "search_files": "Grep"}
_NO_OBJECTION = '{"cancel": false}\n'


def _strings(value: Any) -> list[str]:
    """A list of strings from a parameter that may be a JSON-encoded list, a list, or one string."""
    value = common.decode_args(value)
    if isinstance(value, list):
        found = [common.text(v, "command", "cmd", "path") if isinstance(v, dict) else v for v in value]
        return [v for v in found if isinstance(v, str) and v]
    if isinstance(value, str) and value:
        return [value]
    return []


def _succeeded(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true") or value is None


class ClineAdapter(Adapter):
    name = "cline"
    events: ClassVar[dict[str, str]] = {event: f"Cline's {name}" for event, name in EVENTS.items()}
    tools: ClassVar[dict[str, str]] = TOOLS
    same_as: ClassVar[dict[str, str]] = SAME_AS

    def read(self, event: str, stdin: str, argv: list[str], environ: Mapping[str, str]) -> Request:
        import os

        payload = common.stdin_payload(self.name, event, stdin, argv)
        cwd = common.roots(payload, "workspaceRoots") or os.getcwd()
        session = common.text(payload, "taskId")
        if event == "task-start":
            return Request(SESSION_START, event, cwd, session=session, payload=payload)
        after = event == "post-tool-use"
        body = payload.get("postToolUse" if after else "preToolUse")
        if not isinstance(body, dict):
            sdk = payload.get("tool_result" if after else "tool_call") or payload.get("tool_call")
            if not isinstance(sdk, dict):
                raise BadInput(f"the hook input has no {'postToolUse' if after else 'preToolUse'} object")
            body = {"toolName": sdk.get("name"), "parameters": sdk.get("input"), "success": sdk.get("success"),
                    "result": sdk.get("result", sdk.get("output"))}
        tool = common.text(body, "toolName")
        if tool is None:
            raise BadInput("the hook input has no toolName")
        parameters = common.decode_args(body.get("parameters"))
        if not isinstance(parameters, dict):
            parameters = {}
        kind = self.tool_kind(tool)
        exit_code = (0 if _succeeded(body.get("success")) else 1) if after else None

        def call(**fields: Any) -> Call:
            return Call(event=POST_TOOL_USE if after else PRE_TOOL_USE, harness=self.name, tool=self.canonical(tool),
                        kind=kind, cwd=cwd, session=session, exit_code=exit_code, **fields)

        if kind == KIND_SHELL:
            commands = _strings(parameters.get("commands")) if "commands" in parameters else \
                _strings(parameters.get("command"))
            if not commands:
                raise BadInput(f"Cline's {tool} call has no command")
            calls = [call(command=command, input={"command": command}) for command in commands]
        elif tool == "apply_patch":
            patch = common.text(parameters, "input", "patch") or ""
            calls = [call(path=common.absolute(p, cwd), input={"file_path": p, "patch": patch})
                     for p in common.patch_targets(patch)] or [call(input=parameters)]
        else:
            paths = _strings(parameters.get("path")) or _strings(parameters.get("files")) or \
                _strings(parameters.get("paths")) or _strings(parameters.get("file_path"))
            calls = [call(path=common.absolute(p, cwd), input=parameters) for p in paths] or [call(input=parameters)]
        screen = body.get("result") if after else None
        return Request(CALLS, event, cwd, calls, session=session, payload=payload, screen=screen, withhold=False)

    def recorded_event(self, payload: dict[str, Any]) -> str | None:
        name = common.text(payload, "hookName")
        own = {"PreToolUse": "pre-tool-use", "PostToolUse": "post-tool-use", "TaskStart": "task-start",
               "tool_call": "pre-tool-use", "tool_result": "post-tool-use"}.get(name or "")
        if own is None and isinstance(payload.get("postToolUse"), dict):
            return "post-tool-use"
        if own is None and isinstance(payload.get("preToolUse"), dict):
            return "pre-tool-use"
        return own

    def reply(self, request: Request, outcome: Outcome) -> Reply:
        verdict = common.Verdict(request, outcome)
        out: dict[str, Any] = {"cancel": False}
        if request.kind == SESSION_START:
            if outcome.primer:
                out["contextModification"] = outcome.primer
        elif verdict.block is not None:
            out = {"cancel": True, "errorMessage": verdict.reason(can_ask=False)}
        else:
            lines = list(verdict.warnings)
            if outcome.screened is not None:
                lines += common.screened_lines(outcome.screened, "this tool's output",
                                               "Cline lets a hook only add context after a tool")
            if lines:
                out["contextModification"] = "\n".join(lines)
        return Reply(common.dump(out), verdict.stderr())

    def bad_input(self, event: str, message: str) -> Reply:
        return Reply(_NO_OBJECTION, f"jouet: {message}; no decision made, the call goes ahead unchecked\n")

    def failure(self, event: str, message: str) -> Reply:
        return Reply(_NO_OBJECTION, f"jouet: {message}; no decision made, the call goes ahead unchecked\n")


ADAPTER = ClineAdapter()
