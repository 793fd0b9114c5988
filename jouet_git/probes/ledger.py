"""What the hooks' ledger says about a session and about the checks run in a work tree.

    fired("piped-test-output", session, agent, deadline)   # how many earlier calls it spoke up on
    last_run(wt, "test", "full", deadline)                 # the newest full test run in that work tree

Both read the ledger from its end backwards (ledger.backwards), skipping lines that cannot be about
what they look for before parsing them, and stop at the probes' deadline or after READ_LIMIT bytes:
a long session's earliest calls may scroll out of what is read.

On the hook path: imports nothing beyond jouet_git.ledger.
"""

from __future__ import annotations

import json

from jouet_git import ledger

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

READ_LIMIT = ledger.MAX_BYTES  # at most one full ledger file's worth, newest first
SPOKE = ("deny", "warn")
RECORD_KINDS = ("test", "lint", "build")
NO_LEDGER = "the hooks have recorded nothing yet (no ledger)"
# Calls a person typed (`jouet check`, `jouet rule test`): their records are what-ifs, not runs.
MANUAL = ("check", "test")


def fired(rule: str, session: str | None, agent: str | None, deadline: float | None) -> tuple[Any, str | None]:
    """How many earlier calls by AGENT (None: the session's own agent) in SESSION RULE denied or
    warned about; nil with no ledger."""
    if not ledger.exists():
        return None, NO_LEDGER
    if session is None:
        return 0, None
    needle = b'"session":' + json.dumps(session, ensure_ascii=False).encode("utf-8")
    count = 0
    for line in ledger.backwards(READ_LIMIT, deadline, needle):
        if line.get("session") != session or line.get("agent") != agent:
            continue
        if line.get("event") not in ("pre-tool-use", "post-tool-use"):
            continue
        rules = line.get("rules")
        if isinstance(rules, list) and any(
                isinstance(r, dict) and r.get("rule") == rule and r.get("action") in SPOKE for r in rules):
            count += 1
    return count, None


def last_run(wt: str | None, kind: str | None, scope: str | None,
             deadline: float | None) -> tuple[Any, str | None]:
    """The newest run of KIND (any when None) and SCOPE ("full", "partial" or any) in the work tree
    WT; nil when there is none, or no ledger."""
    if not ledger.exists():
        return None, NO_LEDGER
    for line in ledger.backwards(READ_LIMIT, deadline, _needle(wt)):
        if line.get("harness") in MANUAL:
            continue  # `jouet check --exit-code`: what a person asked about, not a run that happened
        records = line.get("records")
        if not isinstance(records, list):
            continue
        for record in reversed(records):
            if not isinstance(record, dict) or record.get("wt") != wt:
                continue
            if kind is not None and record.get("kind") != kind:
                continue
            if scope is not None and record.get("scope") != scope:
                continue
            return run_of(record, line), None
    what = " ".join(w for w in (scope, kind or "test, lint or build") if w)
    return None, f"no {what} run recorded in this work tree"


def _needle(wt: str | None) -> bytes:
    """What a line holding a run of the work tree WT contains: its hash (else any record)."""
    return f'"wt":"{wt}"'.encode("ascii") if wt else b'"records":[{'


def run_of(record: dict[str, Any], line: dict[str, Any]) -> dict[str, Any]:
    """A recorded run as the probe returns it (fields without a value left out)."""
    run = {
        "kind": record.get("kind"), "rule": record.get("rule"), "ok": bool(record.get("ok")),
        "scope": record.get("scope") or "partial", "selector": record.get("selector"),
        "tree": record.get("tree"), "exit_code": record.get("exit_code"), "shape": record.get("shape"),
        "command": record.get("command"), "ts": line.get("ts"),
        "duration_ms": record.get("duration_ms"), "harness": record.get("harness") or line.get("harness"),
        "session": line.get("session"),
    }
    return {k: v for k, v in run.items() if v is not None}
