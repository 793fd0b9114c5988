"""What the harness adapters share: reading a JSON payload, the fields each harness spells its own
way, an apply_patch's target files, and what an Outcome comes to for a reply (Verdict).

Tool names: a Call's `tool` is Claude Code's name for the same tool where the harness has one
(Codex's apply_patch is Edit, Gemini's read_file is Read, Cursor's Shell is Bash), so that a rule or
script written with `tool = "Edit"` or `call.tool == "Read"` holds in every harness; a tool with no
such equivalent keeps its own name. Each adapter lists its tools in `tools` (name -> kind) and the
equivalents in `same_as`.

On the hook path: imports json, os and re only.
"""

from __future__ import annotations

import json
import os
import re

from jouet_git.call import POST_TOOL_USE
from jouet_git.harness.base import BadInput, failed_rules

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.call import Call
    from jouet_git.engine.decide import Finding
    from jouet_git.harness.base import Outcome, Request

# What jouet says in its own name where a harness shows the person a line.
PERSON = "jouet-git"
# Added to an ask-mode rule's advice where the harness cannot ask the person, so the call is denied.
ASKS_DENIED = (" (This rule asks for the person's approval, which jouet cannot ask for here: if it is needed, "
               "ask the person, who can run it themselves.)")


def parse(text: str) -> dict[str, Any]:
    """The payload object in TEXT. Raises BadInput."""
    try:
        payload = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise BadInput(f"the hook input is not JSON ({error})") from None
    if not isinstance(payload, dict):
        raise BadInput("the hook input must be a JSON object")
    return payload


def stdin_payload(harness: str, event: str, stdin: str, argv: list[str]) -> dict[str, Any]:
    """The payload of a harness that hands it on stdin and passes no arguments. Raises BadInput."""
    if argv:
        raise BadInput(f"jouet hook {harness} {event} takes no arguments (the payload comes on stdin)")
    return parse(stdin)


def text(payload: Any, *keys: str) -> str | None:
    """The first of KEYS that PAYLOAD holds as a non-empty string."""
    if isinstance(payload, dict):
        for key in keys:
            value = payload.get(key)
            if isinstance(value, str) and value:
                return value
    return None


def roots(payload: dict[str, Any], key: str) -> str | None:
    """The first workspace root in PAYLOAD[KEY] (a list of paths)."""
    value = payload.get(key)
    if isinstance(value, list):
        for item in value:
            if isinstance(item, str) and item:
                return item
    return None


def absolute(path: str, cwd: str) -> str:
    """PATH, made absolute against CWD when it is relative."""
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(cwd, path))


def decode_args(value: Any) -> Any:
    """A tool's arguments that may arrive as a JSON string (Copilot's toolArgs, Cline's parameter
    values): decoded when they are JSON, else as they came."""
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in ("{", "["):
            try:
                return json.loads(stripped)
            except (ValueError, RecursionError):
                return value
    return value


# Compiled on first use (re's own cache keeps it): most calls carry no patch.
_PATCH_TARGET = r"^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+?)\s*$"


def patch_targets(patch: str) -> list[str]:
    """The files an apply_patch envelope writes (added, updated, deleted, and where a file moves),
    in order, each once."""
    found: list[str] = []
    for match in re.finditer(_PATCH_TARGET, patch, re.MULTILINE):
        path = match.group(1)
        if path not in found:
            found.append(path)
    return found


def export_session(env_file: str | None, session: str | None, harness: str) -> None:
    """Export the session id into the agent's shell through the harness's env file (Claude Code's
    CLAUDE_ENV_FILE, Codex's CODEX_ENV_FILE): `jouet claim` and git's hooks read it."""
    if env_file and session:
        import shlex

        with open(env_file, "a", encoding="utf-8") as f:
            f.write(f"export JOUET_SESSION_ID={shlex.quote(session)}\nexport JOUET_HARNESS={harness}\n")


def not_withheld(found: dict[str, int], what: str, why: str) -> str:
    """The line that tells the model a tool's output (WHAT) holds secrets it already read, because
    the harness lets a hook only add context there (WHY)."""
    n = sum(found.values())
    rules = ", ".join(sorted(found))
    return (f"jouet: {what} holds {n} secret{'s' if n != 1 else ''} (gitleaks rules: {rules}). {why}, so the "
            "output could not be withheld: do not repeat, store or send what it printed.")


def screen_problem(problem: str, replaced: bool) -> str:
    """The line saying gitleaks could not screen an output (REPLACED: whether jouet's own token
    shapes were replaced in it, or could only be looked for)."""
    done = "replaced" if replaced else "looked for"
    return f"jouet: could not screen this output for secrets with gitleaks ({problem}); only well-known token " \
           f"shapes were {done}."


def as_text(value: Any) -> str:
    """A tool's output as one text, for a harness that takes a replacement as text: a string as it
    is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def screened_lines(screened: Any, what: str, why: str) -> list[str]:
    """The lines for the model where a harness can only annotate a screened output (screen.OutputScreen):
    the secrets it holds and that they could not be withheld, and why gitleaks could not run."""
    lines = []
    if screened.screened.found:
        lines.append(not_withheld(screened.screened.found, what, why))
    if screened.screened.problem:
        lines.append(screen_problem(screened.screened.problem, replaced=False))
    return lines


def dump(value: dict[str, Any]) -> str:
    """One JSON object on one line, as every harness reads a hook's stdout."""
    return json.dumps(value, ensure_ascii=False) + "\n"


class Verdict:
    """What the decisions of a Request come to, in the terms every reply needs.

    block: the finding that stops the call, the first denial of any of its calls, else the first
    ask (block.action says which); block_call: the call it is about. warnings: what the agent should
    read while the call goes ahead (each once). rewrite: for a single call nothing blocks, the
    rewrite a rule asks for. person: lines for the person (rules that failed, notices). stop: for a
    STOP request, the finding that keeps the agent going.
    """

    __slots__ = ("block", "block_call", "person", "rewrite", "several", "stop", "warnings")

    def __init__(self, request: Request, outcome: Outcome) -> None:
        self.block: Finding | None = None
        self.block_call: Call | None = None
        self.rewrite: Finding | None = None
        self.warnings: list[str] = []
        self.several = len(request.calls) > 1
        for call, decision in zip(request.calls, outcome.decisions, strict=False):
            found = decision.deny
            if found is not None and call.event == POST_TOOL_USE:  # after a tool nothing is stopped
                self.warnings.append(self._where(call) + found.text())
                found = None
            if found is not None and (self.block is None or (self.block.action != "deny" and found.action == "deny")):
                self.block, self.block_call = found, call
            for warning in decision.warnings:
                line = self._where(call) + warning.text()
                if line not in self.warnings:
                    self.warnings.append(line)
        if self.block is None and len(outcome.decisions) == 1:
            self.rewrite = outcome.decisions[0].rewrite
        self.person = failed_rules(outcome.decisions) + list(outcome.notices)
        stop = outcome.stop
        self.stop: Finding | None = stop.deny if stop is not None else None
        if stop is not None:
            self.warnings.extend(w.text() for w in stop.warnings)
            self.person = failed_rules([stop]) + self.person

    @property
    def asks(self) -> bool:
        """Whether what blocks the call is an ask (mode = "ask"), not a denial."""
        return self.block is not None and self.block.action == "ask"

    def _where(self, call: Call) -> str:
        if not self.several:
            return ""
        named = call.input.get("file_path")
        return f"{named if isinstance(named, str) else call.path or call.command or call.tool}: "

    def reason(self, can_ask: bool = True) -> str:
        """The advice that goes with the block, for the agent (with the rule's tag). CAN_ASK is
        false where the harness cannot put the call to the person, and an ask is a denial: then the
        agent is told so."""
        if self.block is None:
            return ""
        assert self.block_call is not None
        text = self._where(self.block_call) + self.block.text()
        if self.asks and not can_ask:
            text += ASKS_DENIED
        return text

    def for_person(self, can_ask: bool = True) -> str:
        """The line a person reads about the block, where the harness shows one."""
        if self.block is None:
            return ""
        verb = "asks you about" if self.asks and can_ask else "stopped"
        return f"{PERSON} {verb} this call: {self.reason(can_ask)}"

    def person_text(self) -> str:
        return "\n".join(self.person)

    def stderr(self) -> str:
        return "".join(line + "\n" for line in self.person)
