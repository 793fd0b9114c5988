"""The copy of a repository's `.jouet/` that `jouet trust` showed and hashed: the only copy hooks run.

    snap = take(root)                    # what .jouet/ holds that can run, each file read once
    staged = stage(snap, key)            # those very bytes, written under jouet's state directory
    ...                                  # the review is built from `staged`, shown, and agreed to
    name = install(staged, key, snap)    # kept as the trusted copy (its name goes in the record)
    copy = copy_of(key, record)          # where the copy of a trust record is (None: no copy)
    problem = check(copy, record)        # "" while the copy still hashes to the record

A repository's files can change at any moment (a `git pull`, an agent's edit, a loop swapping a
file back and forth), so the bytes jouet hashes, the bytes it shows and the bytes it runs must be
the same bytes: each file is read once, into memory, hashed, and written into a private copy; the
review is built from that copy; hooks load rules and scripts only from it. What the work tree holds
afterwards never runs: when it differs, the last trusted copy keeps running and the difference is
announced (trust/state.py) until someone reviews it.

Layout: `<state dir>/trusted/<repository id>/<sha256>/.jouet/...`, directories 0700 and files 0600,
the repository id a hash of its git common directory. A copy mirrors the repository's layout, so
what reads `.jouet/` (rule files, scripts, plugins.toml) reads a copy the same way. Before a copy
runs, check() hashes it again: a copy changed behind jouet's back does not run.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil

from jouet_git import paths
from jouet_git.trust.content import Content, scan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

JOUET_DIR = ".jouet"
# Every file counts, hidden ones and a nested .git's included: a rule's script may live anywhere
# below .jouet/rules/, so nothing below it may change unseen.
NOTHING_SKIPPED: frozenset[str] = frozenset()


def runnable(name: str) -> bool:
    """Whether a top-level entry of `.jouet/` holds something that can run."""
    return name in ("rules", "plugins.toml") or name.endswith(".luau")


def scan_jouet(root: str, keep: bool = False) -> Content:
    """The content of ROOT/.jouet/ that can run (ROOT: a work tree or a copy)."""
    return scan(os.path.join(root, JOUET_DIR), runnable, shown=".jouet/", skip=NOTHING_SKIPPED, keep=keep)


def take(root: str) -> Content:
    """What ROOT's `.jouet/` holds that can run, with the bytes hashed kept."""
    return scan_jouet(root, keep=True)


def repository_dir(key: str) -> str:
    """Where the copies of the repository whose git common dir is KEY live."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return os.path.join(paths.state_dir(), "trusted", digest)


def stage(content: Content, key: str) -> str:
    """Write CONTENT's bytes as a new copy (not yet trusted); return the copy's root."""
    import tempfile

    assert content.data is not None, "stage() takes content scanned with keep=True"
    parent = repository_dir(key)
    os.makedirs(parent, mode=0o700, exist_ok=True)
    staged = tempfile.mkdtemp(prefix=".staging-", dir=parent)
    base = os.path.join(staged, JOUET_DIR)
    os.mkdir(base, 0o700)
    for rel, data in content.data.items():
        target = os.path.join(base, *rel.split("/"))
        os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    return staged


def discard(staged: str) -> None:
    shutil.rmtree(staged, ignore_errors=True)


def install(staged: str, key: str, content: Content) -> str:
    """Keep the STAGED copy of CONTENT as a trusted copy; return its name (for the trust record)."""
    name = content.digest
    target = os.path.join(repository_dir(key), name)
    if os.path.isdir(target):
        # The same content was trusted before: keep the copy that is there if it is intact.
        if not scan_jouet(target).refused and scan_jouet(target).digest == name:
            discard(staged)
            return name
        shutil.rmtree(target, ignore_errors=True)
    os.rename(staged, target)
    return name


def prune(key: str, keep: str | None) -> None:
    """Remove the copies of KEY other than KEEP (all when None), and staging left by a crash."""
    parent = repository_dir(key)
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        if name == keep:
            continue
        if name.startswith(".staging-") and _age(os.path.join(parent, name)) < 3600:
            continue  # another `jouet trust` may be reviewing it right now
        shutil.rmtree(os.path.join(parent, name), ignore_errors=True)
    if keep is None:
        with contextlib.suppress(OSError):
            os.rmdir(parent)


def _age(path: str) -> float:
    import time

    try:
        return time.time() - os.stat(path).st_mtime
    except OSError:
        return 0.0


def copy_of(key: str, record: dict[str, Any]) -> str | None:
    """The root of the copy RECORD names, or None when the record has none (trusted by a jouet that
    kept no copies) or names something that is not a copy."""
    name = record.get("copy")
    if not isinstance(name, str) or len(name) != 64 or not all(c in "0123456789abcdef" for c in name):
        return None
    return os.path.join(repository_dir(key), name)


def check(copy: str, record: dict[str, Any]) -> str:
    """Why the copy at COPY must not run (it no longer hashes to RECORD), or ""."""
    if not os.path.isdir(os.path.join(copy, JOUET_DIR)):
        return f"the copy of .jouet/ you trusted is gone from {copy}"
    content = scan_jouet(copy)
    if content.refused or content.digest != record.get("sha256"):
        return f"the copy of .jouet/ you trusted was changed behind jouet's back ({copy})"
    return ""
