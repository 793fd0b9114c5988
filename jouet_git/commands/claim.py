"""Claim paths for this agent session, so that other sessions keep off them.

A claim is an advisory lease on files, directories or globs of this repository, shared by all its
worktrees (and, through `jouet claim sync`, other machines). jouet's claimed-path rule tells other
sessions before they edit or commit a path someone holds.

examples:
  jouet claim src/parser/ --note "rewriting the lexer"   a directory and everything below it
  jouet claim 'src/*.py' docs/api.md --for 30m            a glob and a file, for half an hour
  jouet claim src/parser/                                 again: renews it (2h from now)
  jouet claim ls                                          live claims in this repository
  jouet claim ls --all --json                             lapsed ones too, as JSON
  jouet claim release src/parser/                         give one up (or all: no path)
  jouet claim release --session OTHER --force             a person ends another session's claims
  jouet claim prune                                       drop lapsed claims
  jouet claim sync                                        share claims with other machines

Claiming is all-or-nothing: when another live session holds an overlapping claim, nothing is
claimed, the holders are listed, and the exit status is 1.

Patterns are relative to the repository root (paths typed here are relative to the current
directory and are converted): `*` matches within one directory, `?` one character, `**` across
directories (`**/*.py`). A directory (an existing one, or any path written with a trailing slash,
such as new/module/) covers everything below it; any other plain path is one file. To claim a
file named like an action (ls, release, prune, sync), write it as ./ls.

The session is $JOUET_SESSION_ID (jouet's session-start hook exports it into the agent's shell) or
--session ID. A claim lapses when it expires (--for: 45m, 2h, 1d, 1h30m; default 2h), when its
worktree is removed, or when the agent process that made it exits (the nearest ancestor that is
not a shell or wrapper; $JOUET_AGENT_PID overrides it, $JOUET_HARNESS names the harness).

Releasing is for the session that holds the claims. `--session OTHER` releases only the claims
this agent process made itself; another session's claims stay unless a person asks for them with
`--force`, from a terminal outside any agent session (`--force` is refused where the environment
shows an agent session: jouet's JOUET_SESSION_ID, or a harness's own marker such as CLAUDECODE).

Exit status: 0 done, 1 held by another session (or nothing to release, or not this session's to
release), 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from jouet_git.claims import actions, patterns
from jouet_git.claims.record import Claim, parse_iso
from jouet_git.errors import FOUND, OK, JouetError

ACTIONS = ("ls", "release", "prune", "sync")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.usage = (
        "jouet claim PATH|GLOB... [--note TEXT] [--for DURATION]\n"
        "       jouet claim ls [--all] [--json]\n"
        "       jouet claim release [PATH...] [--session ID [--force]]\n"
        "       jouet claim prune\n"
        "       jouet claim sync [REMOTE]"
    )
    parser.add_argument("words", nargs="*", metavar="PATH|ACTION",
                        help="paths or globs to claim, or an action (ls, release, prune, sync) "
                             "and its arguments")
    parser.add_argument("--note", default=None, metavar="TEXT",
                        help="why you hold the claim (shown to other sessions)")
    parser.add_argument("--for", dest="duration", default=None, metavar="DURATION",
                        help="how long the claim lasts: 30m, 2h, 1d, 1h30m (default 2h)")
    parser.add_argument("--session", default=None, metavar="ID",
                        help="the session claiming (default $JOUET_SESSION_ID)")
    parser.add_argument("--all", action="store_true", help="ls: include lapsed claims and why they lapsed")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--force", action="store_true",
                        help="release: end another session's claims (a person only: refused inside an agent "
                             "session)")


def run(args: argparse.Namespace) -> int:
    words: list[str] = list(args.words)
    action = words[0] if words and words[0] in ACTIONS else None
    rest = words[1:] if action else words
    _check_options(args, action, rest)
    if action == "ls":
        return _ls(args)
    if action == "release":
        return _release(args, rest)
    if action == "prune":
        return _prune(args)
    if action == "sync":
        return _sync(args, rest)
    return _claim(args, rest)


def _check_options(args: argparse.Namespace, action: str | None, rest: list[str]) -> None:
    if action is None and not rest:
        raise JouetError("name the paths to claim (jouet claim src/parser/), or an action: "
                         "ls, release, prune, sync")
    misplaced = []
    if action is not None and args.note is not None:
        misplaced.append("--note")
    if action is not None and args.duration is not None:
        misplaced.append("--for")
    if action != "ls" and args.all:
        misplaced.append("--all")
    if action in ("prune", "sync") and args.session is not None:
        misplaced.append("--session")
    if action != "release" and args.force:
        misplaced.append("--force")
    if misplaced:
        where = f"jouet claim {action}" if action else "jouet claim PATH..."
        raise JouetError(f"{', '.join(misplaced)} does not apply to {where}; see jouet claim --help")
    if action in ("ls", "prune") and rest:
        raise JouetError(f"jouet claim {action} takes no paths (got '{rest[0]}'); to claim a file named "
                         f"{action}, write ./{action}")
    if action == "sync" and len(rest) > 1:
        raise JouetError("jouet claim sync takes at most one remote")


# --- showing claims -------------------------------------------------------------------------------

def _when(expires_at: str, now: float) -> str:
    try:
        delta = int(parse_iso(expires_at) - now)
    except ValueError:
        return expires_at
    future = delta >= 0
    delta = abs(delta)
    days, rem = divmod(delta, 86400)
    hours, rem = divmod(rem, 3600)
    minutes, seconds = divmod(rem, 60)
    if days:
        span = f"{days}d{hours}h"
    elif hours:
        span = f"{hours}h{minutes:02d}m"
    elif minutes:
        span = f"{minutes}m"
    else:
        span = f"{seconds}s"
    return f"in {span}" if future else f"{span} ago"


def _claim_json(claim: Claim, now: float, session: str | None, state: str | None = None) -> dict[str, Any]:
    data = claim.to_json()
    data["mine"] = session is not None and claim.session == session
    if state is not None:
        data["state"] = state
    return data


def _holder_lines(requested: str, holder: Claim, now: float) -> list[str]:
    if requested == holder.pattern:
        relation = f"{requested} is claimed"
    elif patterns.contains(holder.pattern, requested):
        relation = f"{requested} is inside {holder.pattern}"
    elif patterns.contains(requested, holder.pattern):
        relation = f"{requested} covers {holder.pattern}"
    else:
        relation = f"{requested} overlaps {holder.pattern}"
    who = f"session {holder.session}" + (f" ({holder.harness})" if holder.harness else "")
    if holder.machine is not None:
        who += f" on machine {_machine(holder)}"
    lines = [f"  {relation}", f"      held by   {who}"]
    if holder.worktree:
        branch = f" (branch {holder.branch})" if holder.branch else " (detached HEAD)"
        lines.append(f"      worktree  {holder.worktree}{branch}")
    lines.append(f"      expires   {holder.expires_at} ({_when(holder.expires_at, now)})")
    if holder.note:
        lines.append(f"      note      {holder.note}")
    return lines


def _machine(claim: Claim) -> str:
    """How a claim's machine is shown: its id, and its host name when that says something more."""
    name = claim.machine or "?"
    if claim.host and claim.host != name:
        name += f" ({claim.host})"
    return name


def _warn(warnings: list[str]) -> None:
    for warning in warnings:
        sys.stderr.write(f"jouet: warning: {warning}\n")


def _print_json(value: object) -> None:
    sys.stdout.write(json.dumps(value, indent=2) + "\n")


# --- actions --------------------------------------------------------------------------------------

def _claim(args: argparse.Namespace, paths: list[str]) -> int:
    repo = actions.open_repo()
    session = actions.current_session(args.session)
    seconds = actions.parse_duration(args.duration) if args.duration is not None else actions.DEFAULT_SECONDS
    wanted = actions.to_patterns(repo, paths)
    now = time.time()
    result = actions.claim(repo, session, wanted, args.note, seconds, now)
    if args.json:
        _print_json({
            "session": session.id,
            "claimed": [_claim_json(c, now, session.id) for c in result.claimed],
            "renewed": [_claim_json(c, now, session.id) for c in result.renewed],
            "conflicts": [{"requested": c.requested, "holder": _claim_json(c.holder, now, session.id)}
                          for c in result.conflicts],
        })
        return FOUND if result.conflicts else OK
    if result.conflicts:
        lines = ["jouet: nothing claimed: another session holds an overlapping claim"]
        for conflict in result.conflicts:
            lines.extend(_holder_lines(conflict.requested, conflict.holder, now))
        lines.append("Work on other paths, ask that session to release its claim, or wait until it "
                     "lapses (jouet claim ls shows every claim).")
        sys.stderr.write("\n".join(lines) + "\n")
        return FOUND
    for claim in result.claimed:
        print(f"claimed {claim.pattern} until {claim.expires_at} ({_when(claim.expires_at, now)})")
    for claim in result.renewed:
        print(f"renewed {claim.pattern} until {claim.expires_at} ({_when(claim.expires_at, now)})")
    return OK


def _ls(args: argparse.Namespace) -> int:
    import os

    repo = actions.open_repo()
    session = (args.session or os.environ.get("JOUET_SESSION_ID") or "").strip() or None
    now = time.time()
    rows = actions.listing(repo, args.all, now)
    if args.json:
        _print_json([_claim_json(row.claim, now, session, row.state) for row in rows])
        return OK
    if not rows:
        print("no claims in this repository" if args.all else "no live claims in this repository")
        return OK
    remote = any(not row.local for row in rows)
    header = ["PATTERN", "SESSION", "HARNESS", "BRANCH", "WORKTREE", "EXPIRES", "NOTE"]
    if remote:
        header.insert(1, "MACHINE")
    if args.all:
        header.insert(1, "STATE")
    table = [header]
    for row in rows:
        claim = row.claim
        mark = "*" if session is not None and claim.session == session else ""
        cells = [
            claim.pattern, claim.session + mark, claim.harness or "-", claim.branch or "-",
            claim.worktree or "-", _when(claim.expires_at, now), claim.note or "",
        ]
        if remote:
            cells.insert(1, "-" if row.local else _machine(claim))
        if args.all:
            cells.insert(1, row.state)
        table.append(cells)
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    for line in table:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip())
    if session is not None and any(row.claim.session == session for row in rows):
        print("* this session's claims")
    return OK


def _release(args: argparse.Namespace, paths: list[str]) -> int:
    from jouet_git.agentenv import agent_marker

    own = os.environ.get("JOUET_SESSION_ID", "").strip()
    named = (args.session or "").strip()
    foreign = bool(named) and named != own
    if args.force:
        marker = agent_marker(os.environ)
        if marker is not None:
            raise JouetError(
                f"--force is for a person, and this runs inside an agent session ({marker} is set). Another "
                "session's claims are that session's to release; ask the person if they must go now: they "
                f"can run `jouet claim release --session {named or 'ID'} --force` in their own terminal"
            )
        if not foreign:
            raise JouetError("--force goes with --session OTHER, the session whose claims to release")
    repo = actions.open_repo()
    session = actions.current_session(args.session)
    wanted = actions.to_patterns(repo, paths) if paths else None
    result = actions.release(repo, session, wanted, own_process_only=foreign and not args.force)
    now = time.time()
    if args.json:
        _print_json({
            "session": session.id,
            "released": [_claim_json(c, now, session.id) for c in result.released],
            "not_held": result.not_held,
            "inside": [{"requested": p, "claim": _claim_json(c, now, session.id)} for p, c in result.inside],
            "refused": [_claim_json(c, now, session.id) for c in result.refused],
        })
        return FOUND if result.not_held or result.inside or result.refused else OK
    for claim in result.released:
        print(f"released {claim.pattern}")
    if wanted is None and not result.released:
        print(f"session {session.id} holds no claims in this repository")
    for pattern, claim in result.inside:
        sys.stderr.write(f"jouet: {pattern} is part of this session's claim on {claim.pattern}; a claim "
                         f"is released whole: jouet claim release {claim.pattern}\n")
    for pattern in result.not_held:
        sys.stderr.write(f"jouet: session {session.id} holds no claim on {pattern} (jouet claim ls shows "
                         "what it holds)\n")
    if result.refused:
        held = ", ".join(c.pattern for c in result.refused)
        mine = f"this session is {own}" if own else "no session is set here (JOUET_SESSION_ID)"
        sys.stderr.write(
            f"jouet: not released: {held}, held by session {session.id}; {mine}, and those claims were made by "
            "another agent process. Work on other paths, ask that session to release them, or wait until they "
            "lapse; a person may end them from their own terminal: "
            f"jouet claim release --session {session.id} --force\n"
        )
    return FOUND if result.not_held or result.inside or result.refused else OK


def _prune(args: argparse.Namespace) -> int:
    repo = actions.open_repo()
    count = actions.prune(repo)
    if args.json:
        _print_json({"pruned": count})
    elif count:
        print(f"pruned {count} lapsed claim{'s' if count != 1 else ''}")
    else:
        print("no lapsed claims to prune")
    return OK


def _sync(args: argparse.Namespace, rest: list[str]) -> int:
    from jouet_git.claims import sync

    repo = actions.open_repo()
    now = time.time()
    result = sync.sync(repo, rest[0] if rest else None, now)
    _warn(result.warnings)
    if args.json:
        _print_json({
            "remote": result.remote, "machine": result.machine, "attempts": result.attempts,
            "pushed": result.pushed, "commit": result.commit, "published": result.published,
            "others": [_claim_json(c, now, None) for c in result.others],
            "overlaps": [{"ours": _claim_json(a, now, None), "theirs": _claim_json(b, now, None)}
                         for a, b in result.overlaps],
        })
        return OK
    machines = sorted({_machine(c) for c in result.others})
    plural = "s" if result.published != 1 else ""
    count = f"{result.published} claim{plural} of this machine ({result.machine})"
    if result.pushed:
        print(f"published {count} to {result.remote} {sync.REF}")
    else:
        print(f"{result.remote} {sync.REF} already up to date with {count}")
    print(f"read {len(result.others)} live claim{'s' if len(result.others) != 1 else ''} of "
          f"{len(machines)} other machine{'s' if len(machines) != 1 else ''}"
          + (f": {', '.join(machines)}" if machines else ""))
    for ours, theirs in result.overlaps:
        sys.stderr.write(
            f"jouet: warning: {ours.pattern} (session {ours.session}) overlaps {theirs.pattern} held by "
            f"session {theirs.session} on machine {_machine(theirs)}; one of you should release it\n"
        )
    return OK
