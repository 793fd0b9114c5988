"""The host-neutral hook: one JSON object in, one JSON object out, for any agent host.

    echo '{"stage": "tool_call", "tool": "bash", "arguments": {"command": "git push -f"}}' \\
      | jouet hook neutral [--session-dir DIR] [--host NAME]

The payload's `stage` says what is checked:
- tool_call: the rules decide the call (a shell tool's command, a file tool's path); a denial is a
  block whose `onward` is the advice. `arguments` (a string, or an object serialized with sorted
  keys) or else `text` is what the call carries.
- tool_result, output: the text is screened for secrets (jouet_git/screen.py); `onward` is the text
  with each one replaced, and the decision is allow. A tool_result also runs the post-tool rules.
- input: the person's prompt, screened the same way, and stored for the session when allowed.

The reply is {"decision", "findings", "ok", "onward"}. Exit codes: 0 when the check ran (read
`decision`); 2 for a payload that is not valid (nothing on stdout) or a tool_call or input that is
blocked (the refusal on stdout); 1 when jouet itself failed (nothing on stdout), which the
protocol's runners treat as a block at input and tool_call.

The harness jouet records is `neutral`, or the NAME given with --host (the in-process plugins
pass opencode, pi or openclaw). The working directory is the process's own: a host runs the hook
in its project.
"""

from __future__ import annotations

import json
import os
import re

from jouet_git.call import KIND_EDIT, KIND_READ, KIND_SEARCH, KIND_SHELL, POST_TOOL_USE, PRE_TOOL_USE, Call
from jouet_git.harness.base import (
    CALLS,
    PROMPT_KEY,
    SCREEN,
    Adapter,
    BadInput,
    Outcome,
    Reply,
    Request,
    failed_rules,
)
from jouet_git.harness.tools import canonical_tool, command_and_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

STAGES = ("input", "tool_call", "tool_result", "output")
_HOST = re.compile(r"[a-z][a-z0-9-]{0,31}")
# The protocol's session ids: letters, digits, `.`, `_`, `-`; starting with a letter or digit; <= 201.
SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,200}")

def _options(argv: list[str]) -> tuple[str | None, str]:
    """--session-dir DIR and --host NAME, in either `--opt value` or `--opt=value` form."""
    session_dir: str | None = None
    host = "neutral"
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        if name not in ("--session-dir", "--host"):
            raise BadInput(f"jouet hook neutral: unknown argument {arg!r} (it takes --session-dir DIR and --host NAME; "
                           "the payload comes on stdin)")
        if not eq:
            if i + 1 >= len(argv):
                raise BadInput(f"jouet hook neutral: {name} needs a value")
            value = argv[i + 1]
            i += 1
        if name == "--session-dir":
            if not value:
                raise BadInput("jouet hook neutral: --session-dir needs a directory")
            session_dir = value
        else:
            if not _HOST.fullmatch(value):
                raise BadInput(f"jouet hook neutral: --host {value!r} is not a host name "
                               "(lower-case letters, digits, -)")
            host = value
        i += 1
    return session_dir, host


def _optional_str(payload: dict[str, Any], key: str) -> str | None:
    value = payload.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadInput(f"`{key}` must be a string, not {_json_type(value)}")
    return value


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "null" if value is None else type(value).__name__


class Checked:
    """A payload that passed validation: every field, typed."""

    __slots__ = ("args", "args_text", "host", "prompt", "session", "session_dir", "stage", "text", "tool")

    def __init__(self) -> None:
        self.stage = ""
        self.text: str | None = None
        self.tool: str | None = None
        self.args: dict[str, Any] | None = None  # arguments as an object (parsed from a string when it is one)
        self.args_text = ""  # what the call carries, as text: arguments serialized, or the string, or text
        self.prompt: str | None = None
        self.session: str | None = None
        self.session_dir = ""
        self.host = "neutral"


def validate(payload: Any) -> Checked:
    """The protocol's input, checked field by field. Raises BadInput saying which field and why."""
    if not isinstance(payload, dict):
        raise BadInput(f"the payload must be a JSON object, not {_json_type(payload)}")
    out = Checked()
    stage = payload.get("stage")
    if stage is None:
        raise BadInput(f"`stage` is missing (one of {', '.join(STAGES)})")
    if not isinstance(stage, str) or stage not in STAGES:
        raise BadInput(f"`stage` must be one of {', '.join(STAGES)}, not {json.dumps(stage)}")
    out.stage = stage
    out.text = _optional_str(payload, "text")
    if out.text is None and stage != "tool_call":
        raise BadInput(f"`text` is required at stage {stage}")
    out.tool = _optional_str(payload, "tool")
    if stage in ("tool_call", "tool_result") and not out.tool:
        raise BadInput(f"`tool` is required at stage {stage}")
    arguments = payload.get("arguments")
    if arguments is not None and not isinstance(arguments, (str, dict)):
        raise BadInput(f"`arguments` must be a string or an object, not {_json_type(arguments)}")
    if isinstance(arguments, dict):
        out.args = arguments
        out.args_text = json.dumps(arguments, sort_keys=True, ensure_ascii=False)
    elif isinstance(arguments, str) or stage == "tool_call":
        raw = arguments if isinstance(arguments, str) else out.text
        if raw is None:
            raise BadInput("a tool_call needs `arguments` (a string or an object) or `text`")
        out.args_text = raw or ""
        try:
            parsed = json.loads(out.args_text) if out.args_text.lstrip().startswith("{") else None
        except ValueError:
            parsed = None
        out.args = parsed if isinstance(parsed, dict) else None
    out.prompt = _optional_str(payload, "prompt")
    session = payload.get("session_id")
    if session is not None and not isinstance(session, str):
        raise BadInput(f"`session_id` must be a string, not {_json_type(session)}")
    # An id that does not match the pattern is ignored, not an error.
    out.session = session if session is not None and SESSION_ID.fullmatch(session) else None
    return out


def _call(checked: Checked, harness: str, cwd: str) -> Call:
    tool, kind = canonical_tool(checked.tool or "")
    args = dict(checked.args) if checked.args is not None else {}
    if checked.args is None and checked.args_text:
        # A plain string: the command of a shell tool, the path of a file tool.
        args = {"command": checked.args_text} if kind == KIND_SHELL else (
            {"path": checked.args_text} if kind in (KIND_READ, KIND_EDIT, KIND_SEARCH) else {})
    command, path = command_and_path(kind, args)
    if checked.prompt is not None and checked.stage == "tool_call":
        args[PROMPT_KEY] = checked.prompt  # else the session's stored one, added by harness/serve.py
    return Call(
        event=PRE_TOOL_USE if checked.stage == "tool_call" else POST_TOOL_USE,
        harness=harness, tool=tool, kind=kind, command=command, path=path, cwd=cwd,
        session=checked.session, input=args,
        background=args.get("run_in_background") is True or args.get("is_background") is True,
    )


class NeutralAdapter(Adapter):
    name = "neutral"
    events: ClassVar[dict[str, str]] = {}
    takes_event = False

    def usage(self) -> str:
        return ("usage: jouet hook neutral [--session-dir DIR] [--host NAME]\n\n"
                "One JSON object on stdin: {\"stage\": input|tool_call|tool_result|output, \"text\", \"tool\",\n"
                "\"arguments\", \"prompt\", \"session_id\"}; one on stdout: {\"decision\", \"findings\", \"ok\",\n"
                "\"onward\"}. Exit 0: the check ran; 2: an invalid payload (nothing on stdout) or a blocked\n"
                "input or tool_call (the refusal on stdout).\n")

    def read(self, event: str, stdin: str, argv: list[str], environ: Mapping[str, str]) -> Request:
        session_dir, host = _options(argv)
        try:
            payload = json.loads(stdin)
        except ValueError as error:
            raise BadInput(f"the payload is not JSON ({error})") from None
        checked = validate(payload)
        checked.session_dir = os.path.abspath(session_dir) if session_dir else ""
        checked.host = host
        cwd = os.getcwd()
        if checked.stage in ("input", "output"):
            # An allowed prompt becomes the session's request (screened first: no secret is kept).
            return Request(SCREEN, checked.stage, cwd, session=checked.session, payload=checked,
                           screen=checked.text or "", prompts=checked.session_dir,
                           remember=checked.stage == "input")
        call = _call(checked, host, cwd)
        text = checked.args_text if checked.stage == "tool_call" else (checked.text or "")
        return Request(CALLS, checked.stage, cwd, [call], session=checked.session, payload=checked, screen=text,
                       prompts=checked.session_dir)

    def reply(self, request: Request, outcome: Outcome) -> Reply:
        checked: Checked = request.payload
        screened = outcome.screened
        text = screened.screened.texts[0] if screened is not None and screened.screened.texts else (
            request.screen if isinstance(request.screen, str) else "")
        findings = set(screened.screened.found) if screened is not None else set()
        lines = failed_rules(outcome.decisions) + list(outcome.notices)
        if screened is not None and screened.screened.problem:
            lines.append(f"jouet: could not screen the text with gitleaks ({screened.screened.problem}); only "
                         "well-known token shapes were replaced")
        decision, exit_code = "allow", 0
        onward = text
        if outcome.decisions:
            made = outcome.decisions[0]
            findings.update(w.rule for w in made.warnings)
            lines += [f"jouet: {w.text()}" for w in made.warnings]
            if made.deny is not None and checked.stage == "tool_call":
                # The refusal is the rule's advice: the call's arguments are not passed on.
                findings.add(made.deny.rule)
                decision, exit_code = "block", 2
                onward = f"Blocked: {made.deny.text()}"
            elif made.deny is not None:  # after a tool nothing can be undone: said as a warning
                findings.add(made.deny.rule)
                lines.append(f"jouet: {made.deny.text()}")
        body = {"decision": decision, "findings": sorted(findings), "ok": decision == "allow", "onward": onward}
        stderr = "".join(line + "\n" for line in lines)
        return Reply(json.dumps(body, sort_keys=True, ensure_ascii=False) + "\n", stderr, exit_code)

    def bad_input(self, event: str, message: str) -> Reply:
        return Reply(stderr=f"jouet hook neutral: {message}; nothing was checked\n", exit=2)

    def failure(self, event: str, message: str) -> Reply:
        return Reply(stderr=f"jouet hook neutral: {message}; nothing was checked\n", exit=1)


ADAPTER = NeutralAdapter()
