"""Windsurf (Cascade): its hook payloads in, its hook replies out.

    jouet hook windsurf pre-run-command    pre_run_command (a terminal command)
    jouet hook windsurf pre-write-code     pre_write_code
    jouet hook windsurf pre-read-code      pre_read_code
    jouet hook windsurf post-run-command   post_run_command

Cascade reads no JSON from a hook: exit 2 blocks a pre-hook and what it printed on stderr reaches
the agent (and, with `show_output`, which `jouet setup windsurf` sets, the person in Cascade's
panel); any other exit lets the action go ahead. So:

- a denial, and an ask-mode rule (Cascade cannot ask through a hook): exit 2, the advice with its
  `[jouet rule: NAME]` tag on stderr.
- a warning, before or after a command: exit 0 with the warning on stderr, shown to the person in
  the panel; the agent does not read it.
- nothing fired: nothing, exit 0.
- bad input and jouet's own failure: exit 1 with the problem on stderr (the action goes ahead).

Payloads: `{agent_action_name, trajectory_id, execution_id, timestamp, tool_info}` with
`tool_info` `{command_line, cwd}` for commands and `{file_path, edits}` / `{file_path}` for files;
the trajectory is the session. No field changed from the contract notes. post_run_command carries
no exit status, so after-tool rules that need one do not fire here, and no output either, so
nothing a command printed can be screened for secrets: Cascade hands it to the model unseen.
"""

from __future__ import annotations

from jouet_git.call import KIND_EDIT, KIND_READ, KIND_SHELL, POST_TOOL_USE, PRE_TOOL_USE, Call
from jouet_git.harness import common
from jouet_git.harness.base import CALLS, Adapter, BadInput, Outcome, Reply, Request

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

EVENTS = {
    "pre-run-command": "pre_run_command",
    "pre-write-code": "pre_write_code",
    "pre-read-code": "pre_read_code",
    "post-run-command": "post_run_command",
}
TOOLS = {"run_command": KIND_SHELL, "write_code": KIND_EDIT, "read_code": KIND_READ,
         "Bash": KIND_SHELL, "Edit": KIND_EDIT, "Read": KIND_READ}
SAME_AS = {"run_command": "Bash", "write_code": "Edit", "read_code": "Read"}


class WindsurfAdapter(Adapter):
    name = "windsurf"
    events: ClassVar[dict[str, str]] = {event: f"Cascade's {name}" for event, name in EVENTS.items()}
    tools: ClassVar[dict[str, str]] = TOOLS
    same_as: ClassVar[dict[str, str]] = SAME_AS

    def read(self, event: str, stdin: str, argv: list[str], environ: Mapping[str, str]) -> Request:
        import os

        payload = common.stdin_payload(self.name, event, stdin, argv)
        info = payload.get("tool_info")
        if not isinstance(info, dict):
            raise BadInput("the hook input has no tool_info")
        cwd = common.text(info, "cwd") or os.getcwd()
        session = common.text(payload, "trajectory_id")
        tool = {"pre-write-code": "write_code", "pre-read-code": "read_code"}.get(event, "run_command")
        fields: dict[str, Any] = {}
        if tool == "run_command":
            command = info.get("command_line")
            if not isinstance(command, str):
                raise BadInput("tool_info.command_line must be a string")
            fields = {"command": command, "input": {"command": command}}
        else:
            path = common.text(info, "file_path")
            if path is None:
                raise BadInput("tool_info has no file_path")
            fields = {"path": common.absolute(path, cwd), "input": info}
        call = Call(event=POST_TOOL_USE if event == "post-run-command" else PRE_TOOL_USE, harness=self.name,
                    tool=self.canonical(tool), kind=self.tool_kind(tool), cwd=cwd, session=session, **fields)
        return Request(CALLS, event, cwd, [call], session=session, payload=payload)

    def recorded_event(self, payload: dict[str, Any]) -> str | None:
        name = payload.get("agent_action_name")
        return {n: e for e, n in EVENTS.items()}.get(name) if isinstance(name, str) else None

    def reply(self, request: Request, outcome: Outcome) -> Reply:
        verdict = common.Verdict(request, outcome)
        lines = list(verdict.person)
        lines += [f"jouet: warning: {w}" for w in verdict.warnings]
        if verdict.block is not None:
            # Exit 2: Cascade does not run the action and hands stderr to the agent.
            return Reply(stderr="".join(line + "\n" for line in [verdict.reason(can_ask=False), *lines]), exit=2)
        return Reply(stderr="".join(line + "\n" for line in lines))


ADAPTER = WindsurfAdapter()
