"""OpenAI Codex CLI: its hook payloads in, its hook replies out.

    jouet hook codex pre            PreToolUse (shell commands and apply_patch)
    jouet hook codex post           PostToolUse (shell commands)
    jouet hook codex session-start  SessionStart
    jouet hook codex stop           Stop

Codex sends Claude Code's layout (plus `turn_id` and `model`) and parses the replies strictly: an
object with a field it does not know, `permissionDecision: "ask"`, `"allow"` without
`updatedInput`, `continue`, `stopReason` or `suppressOutput` makes the hook "failed", and the call
then goes ahead. So this adapter only ever sends:

- a denial: `hookSpecificOutput.permissionDecision: "deny"` with the advice (exit 0); an ask-mode
  rule denies too, since Codex has no way to ask through a hook;
- warnings: `hookSpecificOutput.additionalContext` (it reaches the model), before or after a tool;
- lines for the person (broken or failed rules, notices): `systemMessage` (shown as a warning) at
  session start, stderr on each call;
- nothing at all for a call nothing objects to (never an approval);
- after a tool whose output holds a secret: `{"decision": "block", "reason": the output with each
  secret replaced}`. Codex has no field that rewrites a result (a reply with `updatedToolOutput` is
  refused as a failed hook, and the original output goes through), but a PostToolUse block puts its
  reason in place of the output the model reads; so the screened output is that reason (as text:
  JSON when the result is structured), and Codex shows the hook as having blocked the result.

apply_patch: Codex hands the whole patch as `tool_input.command`. Each file it adds, updates,
deletes or moves to (`*** Add File:`, `*** Update File:`, `*** Delete File:`, `*** Move to:`) is
one Call of kind edit, tool Edit, with that file as its path, so that every path rule judges every
file; the first denial among them answers for the patch, naming the file. A patch that names no
file is one edit Call without a path. A shell command that carries a patch (`apply_patch <<'EOF'`)
is judged as the command and as an edit of each file the patch names.

Fields that changed from the contract notes (checked against openai/codex's hooks crate): replies
are deserialized with unknown fields refused, and `hookSpecificOutput.hookEventName` is required;
`additionalContext` is accepted before a tool; SessionStart exports variables through
`CODEX_ENV_FILE` (or `CLAUDE_ENV_FILE`), which this adapter uses for JOUET_SESSION_ID as it does in
Claude Code. Known gaps, said in the README: `cwd` is the turn's directory, not the `workdir` a
command runs in (openai/codex#32360); PostToolUse fires for some shell commands only (not for
interactive ones), so `on = "post-tool-use"` rules may not run.

Bad input and jouet's own failure exit 1: Codex counts the hook as failed and the call goes ahead.
"""

from __future__ import annotations

from jouet_git.call import KIND_EDIT, KIND_SHELL, POST_TOOL_USE, PRE_TOOL_USE, Call
from jouet_git.harness import common
from jouet_git.harness.base import CALLS, SESSION_START, STOP, Adapter, BadInput, Outcome, Reply, Request

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

EVENTS = {"pre": "PreToolUse", "post": "PostToolUse", "session-start": "SessionStart", "stop": "Stop"}
BY_NAME = {name: event for event, name in EVENTS.items()}
TOOLS = {
    "Bash": KIND_SHELL, "local_shell": KIND_SHELL, "exec_command": KIND_SHELL, "shell": KIND_SHELL,
    "apply_patch": KIND_EDIT, "Edit": KIND_EDIT, "Write": KIND_EDIT,
}
SAME_AS = {"local_shell": "Bash", "exec_command": "Bash", "shell": "Bash", "apply_patch": "Edit"}


def _exit_code(response: Any) -> int:
    if isinstance(response, dict):
        for key in ("exit_code", "exitCode"):
            value = response.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
    return 0


class CodexAdapter(Adapter):
    name = "codex"
    events: ClassVar[dict[str, str]] = {event: f"Codex's {name}" for event, name in EVENTS.items()}
    tools: ClassVar[dict[str, str]] = TOOLS
    same_as: ClassVar[dict[str, str]] = SAME_AS

    def read(self, event: str, stdin: str, argv: list[str], environ: Mapping[str, str]) -> Request:
        return self.read_payload(event, common.stdin_payload(self.name, event, stdin, argv))

    def read_foreign(self, event: str, payload: dict[str, Any]) -> Request:
        name = common.text(payload, "hook_event_name")
        own = BY_NAME.get(name or "") or {"post-failure": "post", "subagent-stop": "stop"}.get(event, event)
        if own not in EVENTS:
            raise BadInput(f"a Codex payload for {name or event}, which jouet does not guard")
        return self.read_payload(own, payload)

    def read_payload(self, event: str, payload: dict[str, Any]) -> Request:
        cwd = common.text(payload, "cwd") or _here()
        session = common.text(payload, "session_id")
        agent = common.text(payload, "agent_id")
        if event == "session-start":
            return Request(SESSION_START, event, cwd, session=session, payload=payload)
        if event == "stop":
            return Request(STOP, event, cwd, session=session, agent=agent, payload=payload,
                           stop_active=payload.get("stop_hook_active") is True)
        tool = common.text(payload, "tool_name")
        if tool is None:
            raise BadInput("the hook input has no tool_name")
        tool_input = payload.get("tool_input")
        if not isinstance(tool_input, dict):
            tool_input = {}
        command = tool_input.get("command")
        if command is not None and not isinstance(command, str):
            raise BadInput("tool_input.command must be a string")
        kind = self.tool_kind(tool)
        call_event, exit_code = (POST_TOOL_USE, _exit_code(payload.get("tool_response"))) if event == "post" \
            else (PRE_TOOL_USE, None)

        def call(**fields: Any) -> Call:
            named = "Edit" if fields["kind"] == KIND_EDIT else self.canonical(tool)
            return Call(event=call_event, harness=self.name, tool=named, cwd=cwd, session=session,
                        agent=agent, exit_code=exit_code, **fields)

        if kind == KIND_EDIT and tool == "apply_patch":
            patch = command or ""
            targets = common.patch_targets(patch)
            calls = [call(kind=KIND_EDIT, path=common.absolute(p, cwd), input={"file_path": p, "patch": patch})
                     for p in targets] or [call(kind=KIND_EDIT, input={"patch": patch})]
        elif kind == KIND_SHELL:
            calls = [call(kind=KIND_SHELL, command=command, input=tool_input)]
            if command and "*** Begin Patch" in command:
                # `apply_patch <<'EOF' ... EOF` run as a shell command edits files all the same.
                calls += [call(kind=KIND_EDIT, path=common.absolute(p, cwd), input={"file_path": p, "patch": command})
                          for p in common.patch_targets(command)]
        else:
            path = common.text(tool_input, "file_path", "path")
            calls = [call(kind=kind, path=common.absolute(path, cwd) if path else None, input=tool_input)]
        return Request(CALLS, event, cwd, calls, session=session, agent=agent, payload=payload,
                       screen=payload.get("tool_response") if event == "post" else None)

    def recorded_event(self, payload: dict[str, Any]) -> str | None:
        return BY_NAME.get(common.text(payload, "hook_event_name") or "PreToolUse")

    def started(self, request: Request, environ: Mapping[str, str]) -> None:
        common.export_session(environ.get("CODEX_ENV_FILE") or environ.get("CLAUDE_ENV_FILE"), request.session,
                              self.name)

    def reply(self, request: Request, outcome: Outcome) -> Reply:
        verdict = common.Verdict(request, outcome)
        name = EVENTS[request.event]
        out: dict[str, Any] = {}
        stderr = ""
        if verdict.person:
            # The person sees systemMessage: said there once, at session start; on each call it goes
            # to stderr (the hook's log), so a broken rule does not interrupt every tool call.
            if request.kind == SESSION_START:
                out["systemMessage"] = verdict.person_text()
            stderr = verdict.stderr()
        if request.kind == SESSION_START:
            if outcome.primer:
                out["hookSpecificOutput"] = {"hookEventName": name, "additionalContext": outcome.primer}
        elif request.kind == STOP:
            if verdict.stop is not None:
                out["decision"] = "block"
                out["reason"] = verdict.stop.text()
        else:
            specific: dict[str, Any] = {"hookEventName": name}
            if verdict.block is not None and request.event == "pre":
                # An ask is a denial here: Codex counts "ask" as a failed hook and runs the call.
                specific["permissionDecision"] = "deny"
                specific["permissionDecisionReason"] = verdict.reason(can_ask=False)
            warnings = list(verdict.warnings)
            screened = outcome.screened
            if screened is not None and screened.screened.found and screened.written:
                # The block's reason takes the output's place in what the model reads.
                reason = common.as_text(screened.value)
                if not screened.placed:
                    reason = reason.rstrip("\n") + "\n\n" + screened.notice
                out["decision"] = "block"
                out["reason"] = reason
            if screened is not None and screened.screened.found and not screened.withheld:
                warnings.append("jouet: part of this output holds a secret in a field jouet does not rewrite, so it "
                                "could not be withheld: do not repeat, store or send it.")
            if screened is not None and screened.screened.problem:
                warnings.append(common.screen_problem(screened.screened.problem, replaced=screened.written))
            if warnings:
                specific["additionalContext"] = "\n".join(warnings)
            if len(specific) > 1:
                out["hookSpecificOutput"] = specific
        return Reply(common.dump(out) if out else "", stderr)


def _here() -> str:
    import os

    return os.getcwd()


ADAPTER = CodexAdapter()
