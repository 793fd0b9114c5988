"""Append-only JSON-lines files in jouet's state directory: the rule log, rule gaps, the ledger.

Each file is created 0600 and only ever appended to, one JSON object a line, so concurrent writers
(several hooks at once) never interleave within a line (each line is one write of under PIPE_BUF
bytes in O_APPEND mode, or one write call for longer lines).
"""

from __future__ import annotations

import json
import os
import time

from jouet_git import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

RULE_LOG = "rule-log.jsonl"
GAPS = "gaps.jsonl"
LEDGER = "ledger.jsonl"


def path(name: str) -> str:
    return os.path.join(paths.state_dir(), name)


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def append(name: str, record: dict[str, Any]) -> None:
    """Append RECORD (with a `time` field added when missing) to the journal NAME."""
    directory = paths.state_dir()
    os.makedirs(directory, mode=0o700, exist_ok=True)
    record = {"time": now_iso(), **record}
    line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    fd = os.open(os.path.join(directory, name), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def read(name: str, last: int | None = None) -> list[dict[str, Any]]:
    """The records of journal NAME, oldest first (only the LAST ones when given). Bad lines are skipped."""
    try:
        with open(path(name), encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
    except FileNotFoundError:
        return []
    if last is not None:
        lines = lines[-last:]
    out = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            out.append(record)
    return out
