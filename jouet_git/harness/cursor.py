"""Cursor: its hook payloads in, its hook replies out.

    jouet hook cursor before-shell-execution   beforeShellExecution (a shell command)
    jouet hook cursor pre-tool-use             preToolUse (Read, Write, Edit, StrReplace, Delete, Grep)
    jouet hook cursor before-read-file         beforeReadFile
    jouet hook cursor after-file-edit          afterFileEdit
    jouet hook cursor after-shell-execution    afterShellExecution
    jouet hook cursor stop                     stop
    jouet hook cursor post-tool-use            postToolUse      (not installed by setup; see claude.py)
    jouet hook cursor session-start            sessionStart     (idem)

The three permission events (beforeShellExecution, preToolUse, beforeReadFile) must answer JSON:
Cursor blocks the call "for safety" when such a hook prints nothing or anything that is not a
JSON object with a `permission` (reported against Cursor 2.x and 3.x; its docs say otherwise). Its
only answers are allow, deny and ask, so "no objection" has to be one of them:

- nothing fired: `{"permission": "allow"}`. Of the three it is the least like an approval: "deny"
  blocks and "ask" would prompt the person for every call; Cursor runs these hooks before its own
  permission check (run mode, allowlist, sandbox), which still decides, so "allow" here says "this
  hook does not object" and approves nothing on the person's behalf that Cursor would have asked
  about. It carries no message, so nothing tells the agent that jouet vouched for the call.
- a denial: `{"permission": "deny", "agent_message": advice [jouet rule: NAME], "user_message": the
  same for the person}`.
- an ask-mode rule: a denial too. Cursor does not enforce `ask` on preToolUse, ignores a
  beforeShellExecution `ask` in its Auto-review run mode (the command runs without a prompt,
  reported on Cursor 3.21), and third-party hook bridges report it downgraded to deny elsewhere;
  an ask that may silently run the call is worse than a denial that says a person must run it.
- warnings: `{"permission": "allow", "agent_message": ..., "user_message": ...}`.
- bad input and jouet's own failure: `{"permission": "allow"}` with the problem in `user_message`
  and on stderr, exit 0: Cursor blocks on a failed hook, and jouet must not block work because it
  broke.

afterShellExecution and afterFileEdit answer `{}`: Cursor passes nothing from them to the agent or
the person, so a rule after a tool there is recorded in the ledger and said on stderr (Cursor's
Hooks output channel) only; afterShellExecution's `output` is not screened for secrets, since
nothing jouet could say about it would reach anyone. postToolUse (Cursor running Claude Code's
PostToolUse hooks) can only add context: its `tool_output` is screened, and a secret found there is
said in `additional_context` (the output itself could not be withheld).

stop answers `{"followup_message": reason}` when the stop check holds the agent (Cursor then sends
it as the next prompt), else `{}`; `loop_count` above 0 is a stop after such a follow-up.

Fields beyond the contract notes: payloads carry `session_id` and `composer_mode` (read: the
session); preToolUse's Shell has `tool_input.working_directory`.
"""

from __future__ import annotations

from jouet_git.call import KIND_EDIT, KIND_READ, KIND_SEARCH, KIND_SHELL, POST_TOOL_USE, PRE_TOOL_USE, Call
from jouet_git.harness import common
from jouet_git.harness.base import CALLS, SESSION_START, STOP, Adapter, BadInput, Outcome, Reply, Request

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

EVENTS = {
    "before-shell-execution": "beforeShellExecution",
    "pre-tool-use": "preToolUse",
    "before-read-file": "beforeReadFile",
    "after-file-edit": "afterFileEdit",
    "after-shell-execution": "afterShellExecution",
    "stop": "stop",
    "post-tool-use": "postToolUse",
    "session-start": "sessionStart",
}
BY_NAME = {name: event for event, name in EVENTS.items()}
PERMISSION = frozenset({"before-shell-execution", "pre-tool-use", "before-read-file"})
# Events whose answer is not a permission: they read `{}` (or their own fields) and nothing else.
NOT_PERMISSION = frozenset({"after-file-edit", "after-shell-execution", "stop", "post-tool-use", "session-start"})
TOOLS = {
    "Shell": KIND_SHELL, "Read": KIND_READ, "Write": KIND_EDIT, "Edit": KIND_EDIT, "StrReplace": KIND_EDIT,
    "MultiEdit": KIND_EDIT, "Delete": KIND_EDIT, "Grep": KIND_SEARCH, "Glob": KIND_SEARCH, "Bash": KIND_SHELL,
}
SAME_AS = {"Shell": "Bash", "StrReplace": "Edit", "Delete": "Write"}
_PATH_FIELDS = ("file_path", "path", "target_file", "filePath", "target_directory")
_ALLOW = {"permission": "allow"}


class CursorAdapter(Adapter):
    name = "cursor"
    events: ClassVar[dict[str, str]] = {event: f"Cursor's {name}" for event, name in EVENTS.items()}
    tools: ClassVar[dict[str, str]] = TOOLS
    same_as: ClassVar[dict[str, str]] = SAME_AS

    def read(self, event: str, stdin: str, argv: list[str], environ: Mapping[str, str]) -> Request:
        return self.read_payload(event, common.stdin_payload(self.name, event, stdin, argv))

    def read_foreign(self, event: str, payload: dict[str, Any]) -> Request:
        name = common.text(payload, "hook_event_name")
        own = BY_NAME.get(name or "")
        if own is None:
            raise BadInput(f"a Cursor payload for {name or 'an unnamed event'}, which jouet does not guard")
        return self.read_payload(own, payload)

    def read_payload(self, event: str, payload: dict[str, Any]) -> Request:
        root = common.roots(payload, "workspace_roots")
        cwd = common.text(payload, "cwd") or root or _here()
        session = common.text(payload, "session_id", "conversation_id")
        if event == "session-start":
            return Request(SESSION_START, event, cwd, session=session, payload=payload)
        if event == "stop":
            loops = payload.get("loop_count")
            return Request(STOP, event, cwd, session=session, payload=payload,
                           stop_active=isinstance(loops, int) and loops > 0)
        after = event in ("after-file-edit", "after-shell-execution", "post-tool-use")

        def call(tool: str, **fields: Any) -> Call:
            return Call(event=POST_TOOL_USE if after else PRE_TOOL_USE, harness=self.name, tool=self.canonical(tool),
                        kind=self.tool_kind(tool), cwd=fields.pop("cwd", cwd), session=session, **fields)

        if event in ("before-shell-execution", "after-shell-execution"):
            command = payload.get("command")
            if not isinstance(command, str):
                raise BadInput(f"Cursor's {EVENTS[event]} input has no command")
            return Request(CALLS, event, cwd, [call("Shell", command=command, input={"command": command})],
                           session=session, payload=payload)
        if event in ("before-read-file", "after-file-edit"):
            path = common.text(payload, "file_path")
            if path is None:
                raise BadInput(f"Cursor's {EVENTS[event]} input has no file_path")
            file_tool = "Read" if event == "before-read-file" else "Edit"
            found = call(file_tool, path=common.absolute(path, cwd), input={"file_path": path})
            return Request(CALLS, event, cwd, [found], session=session, payload=payload)
        named = common.text(payload, "tool_name")
        if named is None:
            raise BadInput("the hook input has no tool_name")
        screen = payload.get("tool_output") if event == "post-tool-use" else None
        tool: str = named
        tool_input = payload.get("tool_input")
        if not isinstance(tool_input, dict):
            tool_input = {}
        if self.tool_kind(tool) == KIND_SHELL:
            command = tool_input.get("command")
            if not isinstance(command, str):
                raise BadInput("tool_input.command must be a string")
            where = common.text(tool_input, "working_directory", "cwd") or cwd
            found = call(tool, command=command, cwd=where, input=tool_input)
        else:
            path = common.text(tool_input, *_PATH_FIELDS)
            found = call(tool, path=common.absolute(path, cwd) if path else None, input=tool_input)
        return Request(CALLS, event, cwd, [found], session=session, payload=payload, screen=screen, withhold=False)

    def recorded_event(self, payload: dict[str, Any]) -> str | None:
        return BY_NAME.get(common.text(payload, "hook_event_name") or "")

    def reply(self, request: Request, outcome: Outcome) -> Reply:
        verdict = common.Verdict(request, outcome)
        stderr = verdict.stderr()
        event = request.event
        if event in PERMISSION:
            if verdict.block is not None:
                # An ask is a denial here (see the module's docstring).
                person = [verdict.for_person(can_ask=False), *verdict.person]
                out = {"permission": "deny", "user_message": "\n".join(person),
                       "agent_message": verdict.reason(can_ask=False)}
            else:
                out = dict(_ALLOW)
                if verdict.warnings:
                    out["agent_message"] = "\n".join(verdict.warnings)
                person = [f"{common.PERSON} warns: {w}" for w in verdict.warnings] + verdict.person
                if person:
                    out["user_message"] = "\n".join(person)
            return Reply(common.dump(out), stderr)
        if request.kind == STOP:
            if verdict.stop is not None:
                return Reply(common.dump({"followup_message": verdict.stop.text()}), stderr)
            return Reply("{}\n", stderr)
        if request.kind == SESSION_START:
            if outcome.primer:
                return Reply(common.dump({"additional_context": outcome.primer}), stderr)
            return Reply("{}\n", stderr)
        if event == "post-tool-use":
            lines = list(verdict.warnings)
            if outcome.screened is not None:
                lines += common.screened_lines(outcome.screened, "this tool's output",
                                               "Cursor lets a hook only add context after a tool")
            if lines:
                return Reply(common.dump({"additional_context": "\n".join(lines)}), stderr)
        # afterShellExecution and afterFileEdit pass nothing on: the person's log gets the warnings.
        lines = [f"jouet: warning: {w}" for w in verdict.warnings]
        return Reply("{}\n", stderr + "".join(line + "\n" for line in lines))

    def bad_input(self, event: str, message: str) -> Reply:
        return self._no_objection(event, f"{message}; the call goes ahead unchecked")

    def failure(self, event: str, message: str) -> Reply:
        return self._no_objection(event, f"{message}; the call goes ahead unchecked")

    def _no_objection(self, event: str, message: str) -> Reply:
        if event in NOT_PERMISSION:
            return Reply("{}\n", f"jouet: {message}\n")
        out = {**_ALLOW, "user_message": f"{common.PERSON}: {message}"}
        return Reply(common.dump(out), f"jouet: {message}\n")


def _here() -> str:
    import os

    return os.getcwd()


ADAPTER = CursorAdapter()
