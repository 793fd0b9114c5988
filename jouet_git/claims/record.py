"""One claim as the store keeps it, its timestamps, and why it lapsed.

Timestamps are ISO 8601 in UTC with a `Z` (`2025-01-31T14:05:00Z`), converted here without
`datetime` or `calendar`: this module is on the hook's hot path and imports only `os`, `re`, `time`.
"""

from __future__ import annotations

import os
import re
import time

from jouet_git.claims import process

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Why a claim no longer counts.
EXPIRED = "expired"
WORKTREE_GONE = "worktree gone"
PROCESS_EXITED = "process exited"

_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})?\Z")


def iso(moment: float) -> str:
    """MOMENT (seconds since the epoch) as ISO 8601 UTC, to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


def _days(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a date of the proleptic Gregorian calendar."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def parse_iso(text: str) -> float:
    """An ISO 8601 timestamp as seconds since the epoch; a time without a zone is UTC.

    Raises ValueError when TEXT is not one.
    """
    found = _ISO.match(text.strip())
    if found is None:
        raise ValueError(f"not an ISO 8601 timestamp: {text!r}")
    year, month, day, hour, minute, second = (int(found.group(i)) for i in range(1, 7))
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour <= 23 and minute <= 59 and second <= 60):
        raise ValueError(f"not an ISO 8601 timestamp: {text!r}")
    moment = float(_days(year, month, day) * 86400 + hour * 3600 + minute * 60 + second)
    if found.group(7):
        moment += float(found.group(7))
    zone = found.group(8)
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        moment -= sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
    return moment


_TEXT_FIELDS = ("pattern", "session", "claimed_at", "expires_at")
_OPTIONAL_TEXT = ("harness", "worktree", "branch", "note", "boot", "ns", "machine", "host")


class Claim:
    """An advisory lease on a pattern, held by one agent session.

    pid, started and boot identify the agent process on this machine (None for claims read from
    another machine, which lapse only when they expire); ns is the pid and mount namespace it was
    made in. machine and host are None for claims of this machine.
    """

    __slots__ = (
        "boot", "branch", "claimed_at", "expires_at", "harness", "host", "machine", "note", "ns",
        "pattern", "pid", "session", "started", "worktree",
    )

    def __init__(
        self,
        pattern: str,
        session: str,
        claimed_at: str,
        expires_at: str,
        harness: str | None = None,
        pid: int | None = None,
        started: int | None = None,
        boot: str | None = None,
        ns: str | None = None,
        worktree: str | None = None,
        branch: str | None = None,
        note: str | None = None,
        machine: str | None = None,
        host: str | None = None,
    ) -> None:
        self.pattern = pattern
        self.session = session
        self.claimed_at = claimed_at
        self.expires_at = expires_at
        self.harness = harness
        self.pid = pid
        self.started = started
        self.boot = boot
        self.ns = ns
        self.worktree = worktree
        self.branch = branch
        self.note = note
        self.machine = machine
        self.host = host

    def expires(self) -> float:
        """When the claim expires, in seconds since the epoch (0 when the stored time is unreadable)."""
        try:
            return parse_iso(self.expires_at)
        except ValueError:
            return 0.0

    def lapsed(self, now: float, local: bool = True) -> str | None:
        """Why the claim no longer counts at NOW (EXPIRED, WORKTREE_GONE, PROCESS_EXITED), or None.

        LOCAL: the claim was made on this machine, so its worktree and process can be checked
        (unless it was made in another container, whose paths and pids are not ours to see).
        """
        if self.expires() <= now:
            return EXPIRED
        if not local:
            return None
        if self.ns is not None and self.ns != process.namespace():
            return None
        if self.worktree and not os.path.isdir(self.worktree):
            return WORKTREE_GONE
        if self.pid is not None and not process.alive(self.pid, self.started, self.boot):
            return PROCESS_EXITED
        return None

    def to_json(self) -> dict[str, Any]:
        """The claim as the store writes it (every field, None included)."""
        return {name: getattr(self, name) for name in _ORDER}

    @classmethod
    def from_json(cls, data: object) -> Claim:
        """A claim from its stored form. Raises ValueError naming the field that is wrong."""
        if not isinstance(data, dict):
            raise ValueError("a claim is not a JSON object")
        values: dict[str, Any] = {}
        for name in _TEXT_FIELDS:
            value = data.get(name)
            if not isinstance(value, str) or not value:
                raise ValueError(f"claim field '{name}' is missing or not a string")
            values[name] = _text(name, value)
        for name in _OPTIONAL_TEXT:
            value = data.get(name)
            if value is not None and not isinstance(value, str):
                raise ValueError(f"claim field '{name}' is not a string")
            values[name] = None if value is None else _text(name, value)
        for name in ("pid", "started"):
            value = data.get(name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise ValueError(f"claim field '{name}' is not an integer")
            values[name] = value
        parse_iso(values["expires_at"])
        return cls(**values)

    def __repr__(self) -> str:
        return f"Claim({self.pattern!r}, session={self.session!r}, expires_at={self.expires_at!r})"


def _text(name: str, value: str) -> str:
    """VALUE, when it is text that can be written out (JSON can hold lone surrogates, which cannot)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"claim field '{name}' is not valid text") from None
    return value


_ORDER = (
    "pattern", "session", "harness", "pid", "started", "boot", "ns", "worktree", "branch", "note",
    "claimed_at", "expires_at", "machine", "host",
)
