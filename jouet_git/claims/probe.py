"""The claims probe: which live claims cover the paths a tool call touches.

The rule engine calls `held` from a rule's script (`jouet.claims.held(paths)`) before an edit or a
commit, on the hook's hot path. So it spawns no process, takes no lock (the store is replaced by
atomic renames, so a lock-free read sees a whole file) and imports only what reading needs: no
subprocess, pathlib, typing, filelock or hashlib.
"""

from __future__ import annotations

import os
import time

from jouet_git.claims import patterns
from jouet_git.claims import repo as repo_mod
from jouet_git.claims.store import StoreError, read, store_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def held(paths: list[str], cwd: str, now: float | None = None) -> list[dict[str, Any]] | None:
    """The live claims, of any session, that cover PATHS; None when CWD is outside a repository.

    PATHS are relative to CWD or absolute; globs are read as claim patterns. A path covers a claim
    when the claim's pattern matches it, or lies inside it (a directory covers the claims below
    it). One dict per (path, claim):

        {"path": path relative to the root ("." for the root), "pattern", "session", "harness",
         "worktree", "branch", "note", "expires_at", "machine" (None for this machine's claims)}

    Claims of other machines count as last read by `jouet claim sync`, until they expire. NOW
    (seconds since the epoch) defaults to the current time. An unreadable store counts as empty.
    """
    where = os.path.abspath(cwd)
    repo = repo_mod.find(where)
    if repo is None:
        return None
    try:
        store = read(store_path(repo.common_dir))
    except StoreError:
        return []
    moment = time.time() if now is None else now
    live = [claim for claim in store.claims if claim.lapsed(moment) is None]
    live += [claim for claim in store.remote_claims if claim.lapsed(moment, local=False) is None]
    if not live:
        return []
    rels = [repo_mod.relative(repo, text, where) if isinstance(text, str) and text else None for text in paths]
    return covering(rels, [(claim.pattern, {
        "session": claim.session, "harness": claim.harness, "worktree": claim.worktree, "branch": claim.branch,
        "note": claim.note, "expires_at": claim.expires_at, "machine": claim.machine,
    }) for claim in live])


def covering(rels: list[str | None], live: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """One dict per (path, claim) where a path of RELS (relative to the repository's root; None for
    one outside it) covers a claim of LIVE, given as (its pattern, what to say about it): the claim's
    pattern matches the path or lies inside it (a plain path may be a directory)."""
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    for rel in rels:
        if rel is None:
            continue
        glob = patterns.is_glob(rel)
        try:
            pattern = patterns.normalize(rel, directory=not glob)
        except patterns.PatternError:
            continue
        shown = pattern if glob else (pattern.rstrip("/") if pattern != patterns.ROOT else ".")
        if shown in seen:
            continue
        seen.add(shown)
        for claim_pattern, about in live:
            if patterns.overlap(pattern, claim_pattern):
                found.append({"path": shown, "pattern": claim_pattern, **about})
    return found


def any_live(cwd: str, now: float | None = None) -> bool:
    """Whether any session (of this machine or, as last synced, another) holds a live claim in the
    repository around CWD. Cheap: one stat, and one small read when a store exists."""
    repo = repo_mod.find(os.path.abspath(cwd))
    if repo is None:
        return False
    path = store_path(repo.common_dir)
    if not os.path.exists(path):
        return False
    try:
        store = read(path)
    except StoreError:
        return False
    moment = time.time() if now is None else now
    return any(c.lapsed(moment) is None for c in store.claims) or any(
        c.lapsed(moment, local=False) is None for c in store.remote_claims)
