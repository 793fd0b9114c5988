"""The trust records: which repositories' `.jouet/` content you reviewed and trusted, byte for byte.

One JSON file, `$JOUET_STATE_DIR/trust.json` (0600), outside every repository, so nothing a
repository ships can trust itself. Records are keyed by the repository's git common directory, so
a linked worktree finds the record of the repository it belongs to; whether its content still
matches is for state.py to say. Reads and writes go through jouet_git.store (a locked update, an
atomic replace, and a bad file set aside and reported rather than trusted).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from jouet_git import gitdir, paths, store
from jouet_git.errors import JouetError

FORMAT = 1
LOCK_TIMEOUT = 10.0


def store_path() -> str:
    return os.path.join(paths.state_dir(), "trust.json")


def repo_key(root: str) -> str | None:
    """The key of the repository whose work tree is at ROOT: its git common dir, resolved."""
    common = gitdir.common_dir(root)
    return os.path.realpath(common) if common else None


def _parse(data: bytes) -> dict[str, dict[str, Any]]:
    try:
        decoded = store.decode_json(data)
    except RecursionError:
        raise store.Corrupt("not valid JSON (nested too deeply)") from None
    if not isinstance(decoded, dict) or not isinstance(decoded.get("repositories"), dict):
        raise store.Corrupt("not a jouet trust file")
    return {key: entry for key, entry in decoded["repositories"].items() if _valid(entry)}


def _dump(records: dict[str, dict[str, Any]]) -> str:
    return json.dumps({"format": FORMAT, "repositories": records}, indent=1, sort_keys=True) + "\n"


def read_records() -> dict[str, dict[str, Any]]:
    """Every trust record by repository key. A trust file that cannot be used is set aside and
    reported (jouet_git.store): no repository counts as trusted until trusted again."""
    return store.load(store_path(), _parse, dict, "trust file")


def _valid(entry: Any) -> bool:
    return (isinstance(entry, dict) and isinstance(entry.get("sha256"), str)
            and isinstance(entry.get("files"), dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in entry["files"].items()))


def get(key: str) -> dict[str, Any] | None:
    return read_records().get(key)


def update(change: Callable[[dict[str, dict[str, Any]]], None]) -> None:
    """Read the records under the lock, let CHANGE edit them in place, and write them back."""
    try:
        store.update(store_path(), _parse, dict, _dump, change, "trust file", timeout=LOCK_TIMEOUT)
    except store.Busy as error:
        raise JouetError(str(error)) from None
