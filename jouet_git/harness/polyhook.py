"""polyhook: a normalized HookEvent in, a HookResponse out (shared/spec/polyhook-schema.json).

    echo '{"event": "tool:before", "tool": "bash", "input": {"command": "git push -f"},
           "sessionId": "s1", "caller": "claude-code"}' | jouet hook polyhook

- tool:before: the rules decide. A denial is `block` with the advice; a rewrite is `modify` with the
  tool's input, the command replaced; anything else is `approve`.
- tool:after: the post-tool rules run and the output is screened for secrets. The schema has no way
  to replace a tool's output (ModifyResponse carries the *input*), so a secret found there, or a
  post-tool warning, is said in a `block` message: after a tool, blocking undoes nothing, and it is
  the only reply that reaches anyone. Otherwise `approve`.
- session:start: `approve`; the primer goes to stderr, since no response carries context.
- session:stop, agent:stop: the stop check; `block` with its advice holds the agent, else `approve`.
- notification: nothing is printed (the schema says no response is required).

`approve` is the schema's own no-op ("proceed unchanged ... the default no-op response when a
hook handler does not need to intervene"): jouet sends it when it has no objection because the
schema has no other way to say "continue". It never stands for a person's approval.

The event is validated against the schema (required fields, types, enums, no other fields); an
event that is not valid is answered with `block` (jouet cannot tell what it would let through).
The caller (`caller`) is recorded as the call's harness: claude-code is `claude`, and so on.
jouet's own failure answers `approve` (fail open on ourselves) with the error on stderr.
"""

from __future__ import annotations

import json
import os

from jouet_git.call import KIND_SHELL, POST_TOOL_USE, PRE_TOOL_USE, Call
from jouet_git.harness.base import (
    CALLS,
    NOTICE,
    PROMPT_KEY,
    SESSION_START,
    STOP,
    Adapter,
    BadInput,
    Outcome,
    Reply,
    Request,
)
from jouet_git.harness.tools import canonical_tool, command_and_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

EVENTS = ("tool:before", "tool:after", "session:start", "session:stop", "agent:stop", "notification")
CALLERS = ("claude-code", "cursor", "windsurf", "cline", "amp", "unknown")
FIELDS = ("event", "tool", "input", "output", "sessionId", "agentId", "caller")
# The harness each caller is recorded as (jouet's own names, where it has one).
HARNESS = {"claude-code": "claude", "cursor": "cursor", "windsurf": "windsurf", "cline": "cline", "amp": "amp",
           "unknown": "polyhook"}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def validate(event: Any) -> dict[str, Any]:
    """EVENT checked against the schema's HookEvent. Raises BadInput naming the field and why."""
    if not isinstance(event, dict):
        raise BadInput(f"a HookEvent must be a JSON object, not {_kind(event)}")
    extra = sorted(set(event) - set(FIELDS))
    if extra:
        raise BadInput(f"a HookEvent has no field {', '.join(map(repr, extra))} (fields: {', '.join(FIELDS)})")
    for field in ("event", "sessionId", "caller"):
        if field not in event:
            raise BadInput(f"the HookEvent has no `{field}`")
    if event["event"] not in EVENTS:
        raise BadInput(f"`event` must be one of {', '.join(EVENTS)}, not {json.dumps(event['event'])}")
    if event["caller"] not in CALLERS:
        raise BadInput(f"`caller` must be one of {', '.join(CALLERS)}, not {json.dumps(event['caller'])}")
    if not isinstance(event["sessionId"], str):
        raise BadInput(f"`sessionId` must be a string, not {_kind(event['sessionId'])}")
    for field in ("tool", "agentId"):
        if field in event and event[field] is not None and not isinstance(event[field], str):
            raise BadInput(f"`{field}` must be a string or null, not {_kind(event[field])}")
    for field in ("input", "output"):
        if field in event and event[field] is not None and not isinstance(event[field], dict):
            raise BadInput(f"`{field}` must be an object or null, not {_kind(event[field])}")
    return event


def _call(event: dict[str, Any], cwd: str) -> Call:
    raw_tool = event.get("tool")
    if not raw_tool:
        raise BadInput(f"a {event['event']} event has no `tool`")
    tool, kind = canonical_tool(raw_tool)
    args = dict(event.get("input") or {})
    command, path = command_and_path(kind, args)
    before = event["event"] == "tool:before"
    return Call(
        event=PRE_TOOL_USE if before else POST_TOOL_USE,
        harness=HARNESS[event["caller"]], tool=tool, kind=kind, command=command, path=path, cwd=cwd,
        session=event["sessionId"] or None, agent=event.get("agentId") or None, input=args,
        # ModifyResponse replaces a tool's input: a rule may rewrite a shell command before it runs.
        rewrite=before and kind == KIND_SHELL and command is not None,
    )


def response(action: str, message: str | None = None, input: dict[str, Any] | None = None) -> str:
    """One HookResponse, as the schema has it."""
    body: dict[str, Any] = {"action": action}
    if action == "block":
        body["message"] = message or ""
    elif action == "modify":
        body["input"] = input or {}
    return json.dumps(body, ensure_ascii=False) + "\n"


class PolyhookAdapter(Adapter):
    name = "polyhook"
    events: ClassVar[dict[str, str]] = {}
    takes_event = False

    def usage(self) -> str:
        return ("usage: jouet hook polyhook\n\n"
                "A polyhook HookEvent on stdin ({\"event\", \"tool\", \"input\", \"output\", \"sessionId\",\n"
                "\"agentId\", \"caller\"}); a HookResponse on stdout\n"
                "({\"action\": \"approve\"|\"block\"|\"modify\", ...}).\n")

    def read(self, event: str, stdin: str, argv: list[str], environ: Mapping[str, str]) -> Request:
        if argv:
            raise BadInput("jouet hook polyhook takes no arguments (the HookEvent comes on stdin)")
        try:
            data = json.loads(stdin)
        except ValueError as error:
            raise BadInput(f"the HookEvent is not JSON ({error})") from None
        hook = validate(data)
        kind = hook["event"]
        cwd = os.getcwd()
        session = hook["sessionId"] or None
        agent = hook.get("agentId") or None
        if kind in ("tool:before", "tool:after"):
            call = _call(hook, cwd)
            screen = hook.get("output") if kind == "tool:after" else None
            return Request(CALLS, kind, cwd, [call], session=session, agent=agent, payload=hook, screen=screen)
        if kind == "session:start":
            return Request(SESSION_START, kind, cwd, session=session, agent=agent, payload=hook)
        if kind in ("session:stop", "agent:stop"):
            return Request(STOP, kind, cwd, session=session, agent=agent, payload=hook)
        return Request(NOTICE, kind, cwd, session=session, agent=agent, payload=hook)

    def reply(self, request: Request, outcome: Outcome) -> Reply:
        from jouet_git.harness.base import failed_rules

        lines = failed_rules(outcome.decisions) + list(outcome.notices)
        kind = request.event
        if kind == "notification":
            return Reply(stderr="".join(line + "\n" for line in lines))
        if kind == "session:start":
            if outcome.primer:
                lines.append(outcome.primer)
            return Reply(response("approve"), "".join(line + "\n" for line in lines))
        if kind in ("session:stop", "agent:stop"):
            held = outcome.stop
            if held is not None and held.deny is not None:
                return Reply(response("block", held.deny.text()), "".join(line + "\n" for line in lines))
            if held is not None and held.warnings:
                lines += [w.text() for w in held.warnings]
            return Reply(response("approve"), "".join(line + "\n" for line in lines))
        [call], [decision] = request.calls, outcome.decisions
        warnings = [w.text() for w in decision.warnings]
        if kind == "tool:before":
            lines += warnings
            stderr = "".join(line + "\n" for line in lines)
            if decision.deny is not None:
                return Reply(response("block", decision.deny.text()), stderr)
            if decision.rewrite is not None and decision.rewrite.command is not None:
                new = {k: v for k, v in call.input.items() if k != PROMPT_KEY}
                key = next((k for k in ("command", "cmd", "script") if isinstance(new.get(k), str)), "command")
                new[key] = decision.rewrite.command
                return Reply(response("modify", input=new), stderr + decision.rewrite.text() + "\n")
            return Reply(response("approve"), stderr)
        # tool:after: nothing can be undone; what the agent must know goes in a block message.
        said = ([decision.deny.text()] if decision.deny is not None else []) + warnings
        screened = outcome.screened
        if screened is not None and screened.changed:
            found = screened.screened.found
            n = sum(found.values())
            said.append(f"jouet: this tool's output holds {n} secret{'s' if n != 1 else ''} (gitleaks rules: "
                        f"{', '.join(sorted(found))}). polyhook cannot replace a tool's output, so it reached you "
                        "as it was: do not repeat, store or send it.")
        if screened is not None and screened.screened.problem:
            lines.append(f"jouet: could not screen the output with gitleaks ({screened.screened.problem})")
        stderr = "".join(line + "\n" for line in lines)
        if said:
            return Reply(response("block", "\n".join(said)), stderr)
        return Reply(response("approve"), stderr)

    def bad_input(self, event: str, message: str) -> Reply:
        text = f"jouet: {message}; the event was not checked, so it is blocked"
        return Reply(response("block", text), text + "\n")

    def failure(self, event: str, message: str) -> Reply:
        return Reply(response("approve"), f"jouet: {message}; no decision made\n")


ADAPTER = PolyhookAdapter()
