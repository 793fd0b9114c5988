"""What `jouet claim` does: claim, release, prune and list, each one locked read-modify-write.

Every write also drops the claims that have lapsed (expired, worktree gone, process exited), so the
store the hook reads stays small; `prune` does only that, and counts.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field

from jouet_git.claims import patterns, process, record
from jouet_git.claims import repo as repo_mod
from jouet_git.claims.record import Claim
from jouet_git.claims.repo import Repo
from jouet_git.claims.store import Locked, Store, StoreError, store_path
from jouet_git.errors import JouetError

DEFAULT_SECONDS = 2 * 3600
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


@dataclass
class Session:
    """Who claims: the session id, its harness, and the agent process that holds the claims."""

    id: str
    harness: str | None
    pid: int | None
    started: int | None
    boot: str | None
    ns: str | None = None


@dataclass
class Conflict:
    """A requested pattern that overlaps a live claim of another session."""

    requested: str
    holder: Claim
    local: bool


@dataclass
class ClaimResult:
    claimed: list[Claim] = field(default_factory=list)
    renewed: list[Claim] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)


@dataclass
class ReleaseResult:
    released: list[Claim] = field(default_factory=list)
    not_held: list[str] = field(default_factory=list)
    # (requested pattern, the session's broader claim that holds it)
    inside: list[tuple[str, Claim]] = field(default_factory=list)
    # claims of the session named that this process may not release (see release)
    refused: list[Claim] = field(default_factory=list)


@dataclass
class Listed:
    claim: Claim
    local: bool
    state: str  # "live" or why it lapsed


def parse_duration(text: str) -> int:
    """'90s', '30m', '2h', '1d', '1w' or a sum such as '1h30m', in seconds. Raises JouetError."""
    import re

    cleaned = text.strip().lower().replace(" ", "")
    pieces = re.findall(r"(\d+)([smhdw])", cleaned)
    if not cleaned or "".join(n + u for n, u in pieces) != cleaned:
        raise JouetError(
            f"--for '{text}' is not a duration; write a number and a unit: 45m, 2h, 1d, 1h30m "
            "(units s, m, h, d, w)"
        )
    seconds = sum(int(n) * _UNITS[u] for n, u in pieces)
    if seconds <= 0:
        raise JouetError(f"--for '{text}' is no time at all; give a positive duration such as 30m")
    return seconds


def open_repo(cwd: str | None = None) -> Repo:
    """The repository around CWD (the current directory by default). Raises JouetError outside one."""
    where = cwd or os.getcwd()
    found = repo_mod.find(where)
    if found is None:
        raise JouetError(f"{where} is not inside a git worktree; claims belong to a repository, so run "
                         "this from inside one")
    return found


def current_session(explicit: str | None) -> Session:
    """The session claiming: --session, else JOUET_SESSION_ID; its agent process; its harness."""
    session_id = (explicit or os.environ.get("JOUET_SESSION_ID") or "").strip()
    if not session_id:
        raise JouetError(
            "no session: claims belong to an agent session. jouet's session-start hook exports "
            "JOUET_SESSION_ID into the agent's shell; elsewhere set it (export JOUET_SESSION_ID=my-task) "
            "or pass --session ID"
        )
    override = os.environ.get("JOUET_AGENT_PID", "").strip()
    if override:
        try:
            pid = int(override)
        except ValueError:
            raise JouetError(f"JOUET_AGENT_PID='{override}' is not a process id; set it to the pid "
                             "of the agent process, or unset it") from None
        if pid <= 0 or not process.alive(pid, None, None):
            raise JouetError(f"JOUET_AGENT_PID={pid} names no running process; set it to the pid of "
                             "the agent that holds the claims, or unset it")
    else:
        pid = process.agent_pid()
    harness = os.environ.get("JOUET_HARNESS", "").strip() or None
    return Session(session_id, harness, pid, process.start_time(pid), process.boot_id(), process.namespace())


def to_patterns(repo: Repo, texts: list[str], cwd: str | None = None) -> list[str]:
    """Paths and globs as typed (relative to CWD, or absolute) as root-relative patterns.

    A path naming an existing directory gets a trailing slash (it then covers everything below);
    any other plain path is one file. Duplicates are dropped.
    Raises JouetError for a path outside the worktree or inside .git.
    """
    where = cwd or os.getcwd()
    out: list[str] = []
    seen: set[str] = set()
    for text in texts:
        if not text.strip():
            raise JouetError("an empty path cannot be claimed; name a file, a directory or a glob")
        rel = repo_mod.relative(repo, text, where)
        if rel is None:
            raise JouetError(f"'{text}' is outside the repository {repo.root}; claims cover paths "
                             "inside it")
        literal = not patterns.is_glob(rel)
        directory = literal and (rel == "" or os.path.isdir(os.path.join(repo.root, rel.rstrip("/"))))
        try:
            pattern = patterns.normalize(rel, directory=directory)
        except patterns.PatternError as error:
            raise JouetError(f"cannot claim '{text}': {error}") from None
        if pattern.split("/", 1)[0] == ".git":
            raise JouetError(f"'{text}' is inside .git, git's own directory; claim the files you edit")
        if pattern not in seen:
            seen.add(pattern)
            out.append(pattern)
    return out


def _drop_lapsed(store: Store, now: float) -> int:
    """Remove lapsed claims (this machine's for any reason, other machines' when expired)."""
    before = len(store.claims) + len(store.remote_claims)
    store.claims = [c for c in store.claims if c.lapsed(now) is None]
    store.remote_claims = [c for c in store.remote_claims if c.lapsed(now, local=False) is None]
    return before - len(store.claims) - len(store.remote_claims)


def _locked(repo: Repo) -> Locked:
    return Locked(store_path(repo.common_dir), repository=repo.common_dir)


def _store_failed(error: StoreError) -> JouetError:
    return JouetError(f"the claims store {error.path} {error.reason}")


def claim(
    repo: Repo,
    session: Session,
    wanted: list[str],
    note: str | None,
    seconds: int = DEFAULT_SECONDS,
    now: float | None = None,
) -> ClaimResult:
    """Claim every pattern in WANTED for SESSION, or none of them when another live session holds
    an overlapping claim (then the result lists the conflicts and no claim changes)."""
    moment = time.time() if now is None else now
    expires_at = record.iso(math.ceil(moment + seconds))
    result = ClaimResult()
    locked = _locked(repo)
    try:
        with locked as store:
            dropped = _drop_lapsed(store, moment)
            others = [(c, True) for c in store.claims if c.session != session.id]
            others += [(c, False) for c in store.remote_claims if c.session != session.id]
            for pattern in wanted:
                for holder, local in others:
                    if patterns.overlap(pattern, holder.pattern):
                        result.conflicts.append(Conflict(pattern, holder, local))
            if result.conflicts:
                locked.changed = dropped > 0
            else:
                _grant(store, repo, session, wanted, note, moment, expires_at, result)
    except StoreError as error:
        raise _store_failed(error) from None
    return result


def _grant(
    store: Store,
    repo: Repo,
    session: Session,
    wanted: list[str],
    note: str | None,
    moment: float,
    expires_at: str,
    result: ClaimResult,
) -> None:
    branch = repo.branch()
    for pattern in wanted:
        mine = next((c for c in store.claims if c.session == session.id
                     and c.pattern == pattern), None)
        if mine is None:
            fresh = Claim(
                pattern, session.id, record.iso(moment), expires_at, harness=session.harness,
                pid=session.pid, started=session.started, boot=session.boot, ns=session.ns,
                worktree=repo.root,
                branch=branch, note=note,
            )
            store.claims.append(fresh)
            result.claimed.append(fresh)
            continue
        mine.expires_at = expires_at
        mine.harness = session.harness or mine.harness
        mine.pid, mine.started, mine.boot, mine.ns = session.pid, session.started, session.boot, session.ns
        mine.worktree, mine.branch = repo.root, branch
        if note is not None:
            mine.note = note
        result.renewed.append(mine)


def same_process(claim: Claim, session: Session) -> bool:
    """Whether CLAIM was made by SESSION's agent process (the same process, not a reused pid)."""
    return (claim.pid is not None and claim.pid == session.pid and claim.started == session.started
            and claim.boot == session.boot and claim.machine is None)


def release(
    repo: Repo, session: Session, wanted: list[str] | None, now: float | None = None,
    own_process_only: bool = False,
) -> ReleaseResult:
    """Release SESSION's claims that WANTED covers (all of them when WANTED is None).

    With own_process_only (the session is named but is not the caller's own), only claims made by
    the caller's agent process are released; the others are listed in `refused` and kept.
    """
    moment = time.time() if now is None else now
    result = ReleaseResult()
    locked = _locked(repo)
    try:
        with locked as store:
            mine = [c for c in store.claims if c.session == session.id]
            gone: list[Claim] = []
            if wanted is None:
                gone = mine
            for pattern in wanted or []:
                covered = [c for c in mine if patterns.contains(pattern, c.pattern)]
                if covered:
                    gone.extend(c for c in covered if c not in gone)
                    continue
                broader = next((c for c in mine if patterns.contains(c.pattern, pattern)), None)
                if broader is not None:
                    result.inside.append((pattern, broader))
                else:
                    result.not_held.append(pattern)
            if own_process_only:
                result.refused = [c for c in gone if not same_process(c, session)]
                gone = [c for c in gone if c not in result.refused]
            store.claims = [c for c in store.claims if c not in gone]
            result.released = gone
            dropped = _drop_lapsed(store, moment)
            locked.changed = bool(gone) or dropped > 0
    except StoreError as error:
        raise _store_failed(error) from None
    return result


def prune(repo: Repo, now: float | None = None) -> int:
    """Drop every lapsed claim; return how many went."""
    moment = time.time() if now is None else now
    locked = _locked(repo)
    try:
        with locked as store:
            dropped = _drop_lapsed(store, moment)
            locked.changed = dropped > 0
    except StoreError as error:
        raise _store_failed(error) from None
    return dropped


def listing(repo: Repo, include_lapsed: bool, now: float | None = None) -> list[Listed]:
    """The repository's claims, this machine's first; lapsed ones only with INCLUDE_LAPSED.

    Takes the lock only so that a corrupt store is set aside (and reported) rather than ignored.
    """
    moment = time.time() if now is None else now
    locked = _locked(repo)
    try:
        with locked as store:
            locked.changed = False
    except StoreError as error:
        raise _store_failed(error) from None
    rows = [Listed(c, True, c.lapsed(moment) or "live") for c in store.claims]
    rows += [Listed(c, False, c.lapsed(moment, local=False) or "live") for c in store.remote_claims]
    if not include_lapsed:
        rows = [row for row in rows if row.state == "live"]
    return rows
