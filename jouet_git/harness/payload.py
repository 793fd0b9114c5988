"""A recorded hook payload (Claude Code's or Codex's) as a Call, for `jouet rule test --payload`."""

from __future__ import annotations

from jouet_git.call import Call
from jouet_git.errors import JouetError
from jouet_git.harness import claude
from jouet_git.harness.base import BadInput

_EVENTS = {"PreToolUse": "pre", "PostToolUse": "post", "PostToolUseFailure": "post-failure"}


def call_from_recorded_payload(text: str, where: str) -> Call:
    """The call a Claude Code or Codex PreToolUse/PostToolUse payload describes."""
    try:
        payload = claude.parse(text)
    except BadInput as error:
        raise JouetError(f"{where}: {error}") from None
    name = payload.get("hook_event_name", "PreToolUse")
    event = _EVENTS.get(name if isinstance(name, str) else "")
    if event is None:
        raise JouetError(f"{where}: hook_event_name {name!r} is not a tool call "
                         f"(expected one of {', '.join(_EVENTS)})")
    # Codex sends the same layout as Claude Code, with a turn_id and model of its own.
    harness = "codex" if "turn_id" in payload else "claude"
    try:
        return claude.call_from_payload(payload, event, harness)
    except BadInput as error:
        raise JouetError(f"{where}: {error}") from None
