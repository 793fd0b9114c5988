"""A ledger line a stream writes again and again (engine/runner.py: a decision it kept), made into
JSON once. Off the hook path: a hook writes each line once (ledger.py)."""

from __future__ import annotations

import time

from jouet_git.ledger import encode_line, iso, stamped

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Stand-ins for the fields a Stamp fills in, as they come out of the encoder (never in a real value:
# a private-use character, which no field of a line holds, is escaped by no encoder either).
_STAMP_FIELDS = ("time", "ts", "ms")
_STAMP_MARKS = tuple(f"\ue000{field}" for field in _STAMP_FIELDS)


class Stamp:
    """A ledger line made once (entry()) and written again for each later call of a stream it stands
    for (engine/runner.py), as stamped() makes it: the line's JSON is made once, cut where the time,
    the timestamp and the milliseconds go, and joined again around the values of now."""

    __slots__ = ("line", "parts")

    def __init__(self, line: dict[str, Any]) -> None:
        self.line = line
        marked = dict(line)
        for field, mark in zip(_STAMP_FIELDS, _STAMP_MARKS, strict=True):
            marked[field] = mark
        text = encode_line(marked)
        parts: list[str] = []
        for mark in _STAMP_MARKS:
            quoted = f'"{mark}"'
            before, found, text = text.partition(quoted)
            if not found or quoted in text or any(m in before for m in _STAMP_MARKS):
                parts = []  # (a mark in a value: the line is made whole each time instead)
                break
            parts.append(before)
        self.parts = (*parts, text) if parts else None

    def record(self, ms: float | None) -> dict[str, Any] | str:
        """The line for a call decided now, in MS: its JSON text (what append_many writes as it is)."""
        parts = self.parts
        if parts is None:
            return stamped(self.line, ms)
        now = time.time()
        shown = "null" if ms is None else repr(round(ms, 2))
        return f'{parts[0]}"{iso(now)}"{parts[1]}{round(now, 3)!r}{parts[2]}{shown}{parts[3]}'
