"""The trust records: which repositories' `.jouet/` content you reviewed and trusted, byte for byte.

One JSON file, `$JOUET_STATE_DIR/trust.json` (0600), outside every repository, so nothing a
repository ships can trust itself. Records are keyed by the repository's git common directory, so
a linked worktree finds the record of the repository it belongs to; whether its content still
matches is for state.py to say. Writes happen under a file lock and replace the file atomically;
reads take no lock (a reader sees the old file or the new one, never half of one).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from jouet_git import gitdir, paths
from jouet_git.errors import JouetError

FORMAT = 1
LOCK_TIMEOUT = 10.0


def store_path() -> str:
    return os.path.join(paths.state_dir(), "trust.json")


def repo_key(root: str) -> str | None:
    """The key of the repository whose work tree is at ROOT: its git common dir, resolved."""
    common = gitdir.common_dir(root)
    return os.path.realpath(common) if common else None


def read_records() -> tuple[dict[str, dict[str, Any]], str]:
    """Every trust record by repository key, and a problem reading them ("" when none).

    A file that cannot be read or parsed trusts nothing: every repository reads as untrusted.
    """
    path = store_path()
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        return {}, ""
    except (OSError, ValueError) as error:
        return {}, f"{path} cannot be read ({error}); no repository counts as trusted until it is fixed or removed"
    if not isinstance(data, dict) or not isinstance(data.get("repositories"), dict):
        return {}, f"{path} is not a jouet trust file; no repository counts as trusted until it is removed"
    records = {key: entry for key, entry in data["repositories"].items() if _valid(entry)}
    return records, ""


def _valid(entry: Any) -> bool:
    return (isinstance(entry, dict) and isinstance(entry.get("sha256"), str)
            and isinstance(entry.get("files"), dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in entry["files"].items()))


def get(key: str) -> dict[str, Any] | None:
    records, _ = read_records()
    return records.get(key)


def update(change: Callable[[dict[str, dict[str, Any]]], None]) -> None:
    """Read the records under the lock, let CHANGE edit them in place, and write them back."""
    import filelock

    path = store_path()
    directory = os.path.dirname(path)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    lock = filelock.FileLock(path + ".lock", timeout=LOCK_TIMEOUT, mode=0o600)
    try:
        lock.acquire()
    except filelock.Timeout:
        raise JouetError(f"another jouet has held {path}.lock for {LOCK_TIMEOUT:.0f}s; try again, and if no "
                         "jouet is running, check what holds that file") from None
    try:
        records, problem = read_records()
        if problem and os.path.exists(path):
            aside = f"{path}.unreadable"
            os.replace(path, aside)
        change(records)
        text = json.dumps({"format": FORMAT, "repositories": records}, indent=1, sort_keys=True) + "\n"
        write_atomic(path, text)
    finally:
        lock.release()


def write_atomic(path: str, text: str, mode: int = 0o600) -> None:
    """Replace PATH with TEXT atomically (see jouet_git.fsutil), creating its directory."""
    from jouet_git.fsutil import write_atomic as replace

    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    replace(path, text, mode)
