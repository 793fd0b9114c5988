"""Amp: jouet as the program Amp delegates a permission decision to.

    jouet hook amp pre-tool-use     a delegated call: the tool's arguments on stdin, its name in
                                    AGENT_TOOL_NAME, the thread in AMP_THREAD_ID

Amp has no hook events. `jouet setup amp` puts rules first in `amp.permissions` that delegate
Bash, edit_file, create_file and Read to this command (the first matching rule wins, so none of
the person's own allow rules can slip a call past jouet). Amp reads only the exit status:

- 0 allow: run the tool without asking. jouet never answers it: approving is not jouet's call.
- 1 ask: the operator decides, in the main thread (a subagent has nobody to ask).
- 2 reject: the call does not run, and stderr goes to the model.

So:
- a denial: exit 2, the advice with its `[jouet rule: NAME]` tag on stderr.
- an ask-mode rule: exit 1, the advice on stderr: Amp puts the call to the person.
- a warning, and nothing fired: exit 1 too. Amp has no "no opinion" answer, and exit 1 is what Amp
  does itself for a call no rule allows. The cost: every delegated call prompts the person, even
  those Amp's built-in rules would have allowed silently (`ls`, edits inside the workspace), since
  jouet's rule matches first and Amp's built-ins are never consulted; in a subagent, where Amp
  rejects what it would ask about, those calls are rejected. A person who wants some calls to run
  without a prompt puts their own allow rules before jouet's, and those calls go unchecked.
- bad input and jouet's own failure: exit 1 (the person decides), with the problem on stderr.

Checked against the Amp manual's permissions appendix: exit statuses as above, `to` may be an
absolute path, and the delegate also gets AMP_THREAD_ID (used as the session). No field changed
from the contract notes.
"""

from __future__ import annotations

from jouet_git.call import KIND_EDIT, KIND_READ, KIND_SEARCH, KIND_SHELL, PRE_TOOL_USE, Call
from jouet_git.harness import common
from jouet_git.harness.base import CALLS, Adapter, BadInput, Outcome, Reply, Request

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

EVENTS = {"pre-tool-use": "a tool call Amp delegates (arguments on stdin, AGENT_TOOL_NAME)"}
TOOLS = {"Bash": KIND_SHELL, "Read": KIND_READ, "edit_file": KIND_EDIT, "create_file": KIND_EDIT,
         "Grep": KIND_SEARCH, "glob": KIND_SEARCH, "Edit": KIND_EDIT, "Write": KIND_EDIT}
SAME_AS = {"edit_file": "Edit", "create_file": "Write", "glob": "Glob"}
ALLOW, ASK, REJECT = 0, 1, 2


def _tool_from_shape(args: dict[str, Any]) -> str | None:
    if "cmd" in args:
        return "Bash"
    if "path" in args:
        if "content" in args:
            return "create_file"
        if "old_str" in args or "new_str" in args:
            return "edit_file"
        return "Read"
    return None


class AmpAdapter(Adapter):
    name = "amp"
    events: ClassVar[dict[str, str]] = EVENTS
    tools: ClassVar[dict[str, str]] = TOOLS
    same_as: ClassVar[dict[str, str]] = SAME_AS

    def read(self, event: str, stdin: str, argv: list[str], environ: Mapping[str, str]) -> Request:
        import os

        if argv:
            raise BadInput(f"jouet hook amp {event} takes no arguments (the tool's arguments come on stdin)")
        args = common.parse(stdin)
        tool = environ.get("AGENT_TOOL_NAME") or _tool_from_shape(args)
        if not tool:
            raise BadInput("AGENT_TOOL_NAME is not set and the arguments do not say which tool this is")
        session = environ.get("AMP_THREAD_ID") or None
        cwd = common.text(args, "cwd") or os.getcwd()
        kind = self.tool_kind(tool)
        if kind == KIND_SHELL:
            command = args.get("cmd", args.get("command"))
            if not isinstance(command, str):
                raise BadInput("the Bash call's arguments have no cmd")
            call = Call(event=PRE_TOOL_USE, harness=self.name, tool=self.canonical(tool), kind=kind, command=command,
                        cwd=cwd, session=session, input=args)
        else:
            path = common.text(args, "path", "file_path")
            call = Call(event=PRE_TOOL_USE, harness=self.name, tool=self.canonical(tool), kind=kind,
                        path=common.absolute(path, cwd) if path else None, cwd=cwd, session=session, input=args)
        return Request(CALLS, event, cwd, [call], session=session, payload=args)

    def recorded_event(self, payload: dict[str, Any]) -> str | None:
        return "pre-tool-use"

    def reply(self, request: Request, outcome: Outcome) -> Reply:
        verdict = common.Verdict(request, outcome)
        lines = list(verdict.person) + [f"jouet: warning: {w}" for w in verdict.warnings]
        if verdict.block is not None:
            status = ASK if verdict.asks else REJECT
            return Reply(stderr="".join(line + "\n" for line in [verdict.reason(), *lines]), exit=status)
        # Nothing to object to: Amp's own default, asking the person; never an approval (exit 0).
        return Reply(stderr="".join(line + "\n" for line in lines), exit=ASK)

    def bad_input(self, event: str, message: str) -> Reply:
        return Reply(stderr=f"jouet: {message}; no decision made, Amp asks you\n", exit=ASK)

    def failure(self, event: str, message: str) -> Reply:
        return Reply(stderr=f"jouet: {message}; no decision made, Amp asks you\n", exit=ASK)


ADAPTER = AmpAdapter()
