"""Show what jouet's hooks saw and decided: the ledger, newest last.

  jouet log                          the last 20 calls, from every harness and git's hooks
  jouet log -n 100 --decision deny   the last 100 denials
  jouet log --rule force-push --since 2d
  jouet log --session 4f1c --harness claude
  jouet log --repo .                 only calls in this repository's work tree
  jouet log --follow                 keep printing calls as the hooks record them
  jouet log --json                   the ledger's own lines, one JSON object a line
  jouet log --stats                  how often each rule denied and warned, by day and by harness,
                                     and which rules loaded here never fired

--since takes a duration (90s, 30m, 2h, 3d, 1w) or a date (2026-11-30, 2026-11-30T14:00, local
time). The filters combine. Each line shows the time, the harness, the session (first 8
characters), the decision, the rules that spoke up or recorded a check, and the command (or the
file, or the command's shape when content is not stored).

The ledger is ~/.local/state/jouet/ledger.jsonl ($JOUET_STATE_DIR), with up to two rotated files
beside it; `jouet log` reads them all.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

from jouet_git import ledger
from jouet_git.errors import JouetError

DEFAULT_LIMIT = 20
POLL = 0.5  # seconds between looks at the ledger under --follow
DECISIONS = ("deny", "warn", "rewrite", "ask", "none", "record", "held", "error", "unreadable")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-n", "--limit", type=int, default=None, metavar="N",
                        help=f"show the last N calls (default {DEFAULT_LIMIT}; 0 for all)")
    parser.add_argument("--rule", default=None, help="only calls this rule denied, warned about or recorded")
    parser.add_argument("--decision", default=None, choices=DECISIONS,
                        help="only calls with this decision (record: a check was recorded; held: a stop was held)")
    parser.add_argument("--session", default=None, help="only this agent session (a prefix is enough)")
    parser.add_argument("--harness", default=None, help="only this harness (claude, codex, git, check, ...)")
    parser.add_argument("--repo", default=None, metavar="DIR", help="only calls in the work tree holding DIR")
    parser.add_argument("--since", default=None, metavar="WHEN", help="only calls since WHEN (2h, 3d, 2026-11-30)")
    parser.add_argument("--json", action="store_true", help="print the ledger's lines as JSON, one a line")
    parser.add_argument("-f", "--follow", action="store_true", help="keep printing new calls as they come")
    parser.add_argument("--stats", action="store_true",
                        help="how often each rule denied and warned, per day and per harness, as a chart")


def run(args: argparse.Namespace) -> int:
    select = Filter(args)
    if args.stats:
        if args.follow:
            raise JouetError("--stats sums the ledger up once; it does not go with --follow")
        from jouet_git.commands.log_stats import show_stats

        return show_stats(select, args.json, args.since)
    limit = DEFAULT_LIMIT if args.limit is None else args.limit
    if limit < 0:
        raise JouetError("--limit takes 0 (everything) or a positive number")
    if not ledger.exists() and not args.follow:
        if not args.json:
            print(f"the ledger is empty: no hook has recorded a call yet ({ledger.path()})")
        return 0
    # Following starts where the recent lines end: the newest file is opened first, and the recent
    # lines are read from it up to where it ended then, so that no line written meanwhile (hooks go
    # on) is lost or shown twice.
    start = Start() if args.follow else None
    for line in recent(select, limit, start):
        emit(line, args.json)
    if start is not None:
        try:
            follow(select, args.json, start)
        except KeyboardInterrupt:
            return 0
    return 0


# --- selecting ---------------------------------------------------------------------------------------


class Filter:
    """Which ledger lines a person asked for."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.rule: str | None = args.rule
        self.decision: str | None = args.decision
        self.session: str | None = args.session
        self.harness: str | None = args.harness
        self.since: float | None = parse_since(args.since) if args.since else None
        self.wt: str | None = None
        if args.repo is not None:
            from jouet_git import gitdir

            root = gitdir.find_root(os.path.abspath(args.repo))
            if root is None:
                raise JouetError(f"--repo {args.repo}: not inside a git work tree")
            self.wt = ledger.root_hash(root)

    def __call__(self, line: dict[str, Any]) -> bool:
        if self.harness is not None and line.get("harness") != self.harness:
            return False
        if self.session is not None and not str(line.get("session") or "").startswith(self.session):
            return False
        if self.wt is not None and line.get("wt") != self.wt:
            return False
        if self.rule is not None and not any(r.get("rule") == self.rule for r in rules_of(line)):
            return False
        if self.decision is not None:
            if self.decision == "record":
                if not line.get("records"):
                    return False
            elif self.decision == "held":
                if line.get("event") != "stop" or line.get("decision") != "deny":
                    return False
            elif line.get("decision") != self.decision:
                return False
        return not (self.since is not None and timestamp(line) < self.since)


def rules_of(line: dict[str, Any]) -> list[dict[str, Any]]:
    rules = line.get("rules")
    return [r for r in rules if isinstance(r, dict)] if isinstance(rules, list) else []


def timestamp(line: dict[str, Any]) -> float:
    """When the line was written, in seconds since the epoch (0 when it does not say)."""
    ts = line.get("ts")
    if isinstance(ts, (int, float)) and not isinstance(ts, bool):
        return float(ts)
    text = line.get("time")
    if isinstance(text, str) and len(text) >= 19:
        import calendar

        try:
            return float(calendar.timegm(time.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")))
        except ValueError:
            return 0.0
    return 0.0


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_since(text: str, now: float | None = None) -> float:
    """The time --since names: a duration before now (90s, 30m, 2h, 3d, 1w) or a local date and time."""
    text = text.strip()
    now = time.time() if now is None else now
    if len(text) >= 2 and text[-1] in _UNITS and text[:-1].replace(".", "", 1).isdigit():
        return now - float(text[:-1]) * _UNITS[text[-1]]
    for layout in ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d"):
        try:
            return time.mktime(time.strptime(text, layout))
        except ValueError:
            continue
    raise JouetError(f"--since {text!r}: give a duration such as 30m, 2h, 3d or 1w, or a date such as "
                     "2026-11-30 or 2026-11-30T14:00")


def recent(select: Filter, limit: int, start: Start | None = None) -> list[dict[str, Any]]:
    """The last LIMIT lines SELECT takes (all with 0), oldest first, read from the ledger's end (or
    from where START says following begins)."""
    found: list[dict[str, Any]] = []
    for line in ledger.backwards() if start is None else start.backwards():
        if select.since is not None and timestamp(line) < select.since:
            # Lines are in time order within a file; a rotated file is older still.
            break
        if select(line):
            found.append(line)
            if limit and len(found) >= limit:
                break
    found.reverse()
    return found


# --- showing -----------------------------------------------------------------------------------------


def emit(line: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(ledger.encode_line(line), flush=True)
    else:
        print(describe(line), flush=True)


def describe(line: dict[str, Any]) -> str:
    """One line for a person."""
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(timestamp(line)))
    session = str(line.get("session") or "-")[:8]
    decision = str(line.get("decision") or "none")
    event = line.get("event")
    if event == "stop":
        decision = "held" if decision == "deny" else "stop"
    elif event == "session-start":
        decision = "start"
    names = []
    for rule in rules_of(line):
        name = str(rule.get("rule"))
        if rule.get("action") == "record":
            name += "+"
        if name not in names:
            names.append(name)
    what = _what(line)
    head = f"{when}  {line.get('harness') or '?'!s:8} {session:8}  "
    text = _fit(f"{head}{decision:6} {','.join(names) or '-':18} {what}")
    return head + _paint(text[len(head):len(head) + 6], decision) + text[len(head) + 6:]


def _what(line: dict[str, Any]) -> str:
    event = line.get("event")
    if event == "stop":
        note = line.get("reason") or line.get("note")
        errors = line.get("errors") or []
        return f"(stop{': ' + str(note) if note else ''})" + (" [rule failed]" if errors else "")
    if event == "session-start":
        return "(session started)"
    command = line.get("command") or line.get("path") or line.get("shape")
    if command is None:
        tool = line.get("tool")
        command = f"({tool})" if tool else ""
    text = " ".join(str(command).split())
    for record in line.get("records") or []:
        if isinstance(record, dict):
            verdict = "passed" if record.get("ok") else f"failed, exit {record.get('exit_code')}"
            scope = record.get("scope") or "partial"
            text += f"  [{record.get('kind')} {scope}: {verdict}]"
    if line.get("event") == "post-tool-use" and line.get("exit_code") not in (None, 0) and not line.get("records"):
        text += f"  [exit {line.get('exit_code')}]"
    return text


_STYLE = {"deny": "deny", "held": "deny", "warn": "warn", "ask": "warn", "rewrite": "note", "error": "bad"}


def _paint(text: str, decision: str) -> str:
    """TEXT coloured for DECISION on a terminal (jouet_git/term.py: never with NO_COLOR or in a pipe)."""
    from jouet_git import term

    style = _STYLE.get(decision)
    return term.paint(text, style) if style else text


def width() -> int:
    """The columns to fit output into: $COLUMNS, else the terminal's (jouet_git/term.py)."""
    from jouet_git import term

    return term.width(cap=200)


def _fit(text: str) -> str:
    """Cut TEXT to the terminal's width, on a terminal only (a pipe gets the whole line)."""
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError):
        tty = False
    limit = width()
    if not tty or len(text) <= limit:
        return text
    return text[:max(40, limit - 1)] + "…"


# --- following ---------------------------------------------------------------------------------------


class Start:
    """Where following begins: the newest ledger file, open, and its size and inode when it was
    opened; when there was none, the inode of the newest rotated file (None: none either)."""

    __slots__ = ("handle", "inode", "rotated", "size")

    def __init__(self) -> None:
        self.handle: Any = None
        self.size = 0
        self.inode: int | None = None
        self.rotated: int | None = None
        try:
            self.handle = open(ledger.path(), "rb")  # noqa: SIM115 - follow() keeps it open
            info = os.fstat(self.handle.fileno())
        except OSError:
            self.handle = None
            with contextlib.suppress(OSError):
                self.rotated = os.stat(ledger.files()[1]).st_ino
            return
        self.inode = info.st_ino
        # From the end of the last whole line: one being written now is followed, not cut in two.
        tail = os.pread(self.handle.fileno(), min(info.st_size, ledger.BLOCK), max(0, info.st_size - ledger.BLOCK))
        self.size = info.st_size - len(tail) + tail.rfind(b"\n") + 1 if b"\n" in tail else info.st_size - len(tail)

    def backwards(self) -> Iterator[dict[str, Any]]:
        """The ledger's lines before the start, newest first, parsed (broken ones left out)."""
        raws: list[Iterator[bytes]] = []
        if self.handle is not None:
            raws.append(ledger.lines_before(self.handle.fileno(), self.size))
        for name in ledger.rotated_older_than(self.inode):
            raws.append(ledger.lines_backwards(name))
        for lines in raws:
            for raw in lines:
                line = ledger.parse_line(raw)
                if line is not None:
                    yield line


def follow(select: Filter, as_json: bool, start: Start) -> None:
    """Print the lines SELECT takes as the hooks append them, from START on, until interrupted;
    survives rotation."""
    target = ledger.path()
    handle = start.handle
    inode = start.inode
    if handle is not None:
        handle.seek(start.size)
    pending = b""
    # The inode of the last file read to its end (or shown among the recent lines): a rotated file
    # newer than it has lines not shown yet. With no file at all at the start, every one is new.
    finished: int | None = None if handle is not None else start.rotated if start.rotated is not None else -1
    while True:
        if handle is None:
            try:
                handle = open(target, "rb")  # noqa: SIM115
                inode = os.fstat(handle.fileno()).st_ino
            except OSError:
                handle = None
            # Files that came and were rotated away between two looks (a file made and filled past
            # the limit by hooks within one POLL): read whole, oldest first, before the new one.
            if finished is not None:
                for name, number in _rotated_after(finished):
                    if handle is not None and number == inode:
                        break  # (the one just opened, rotated meanwhile: read through its handle)
                    finished = number
                    _print_lines(_whole(name).split(b"\n"), select, as_json)
            if handle is None:
                time.sleep(POLL)
                continue
        chunk = handle.read()
        if chunk:
            pending += chunk
            *complete, pending = pending.split(b"\n")
            _print_lines(complete, select, as_json)
            continue
        try:
            now = os.stat(target)
        except OSError:
            now = None
        if now is None or now.st_ino != inode:
            # Rotated: finish the old file (a hook may have written to it just before), then the new one.
            _print_lines((pending + handle.read()).split(b"\n"), select, as_json)
            handle.close()
            handle = None
            pending = b""
            finished = inode
            continue
        time.sleep(POLL)


def _print_lines(raws: list[bytes], select: Filter, as_json: bool) -> None:
    """Print the ledger lines of RAWS that SELECT takes (a blank or broken one is skipped)."""
    for raw in raws:
        line = ledger.parse_line(raw) if raw else None
        if line is not None and select(line):
            emit(line, as_json)


def _rotated_after(inode: int) -> list[tuple[str, int]]:
    """The rotated ledger files (ledger.jsonl.1, .2, ...) newer than the one with INODE, oldest
    first, with their inodes: all of them when it was dropped already."""
    found: list[tuple[str, int]] = []
    for name, number in ledger.rotated():
        if number == inode:
            break
        found.append((name, number))
    return found[::-1]


def _whole(name: str) -> bytes:
    try:
        with open(name, "rb") as handle:
            return handle.read()
    except OSError:
        return b""
