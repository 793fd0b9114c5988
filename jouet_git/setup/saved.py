"""What `jouet setup` keeps about the files it edits: backups, and the bytes to restore.

Everything lives under jouet's state directory (`setup/` in it), never beside the edited file: a
backup next to `.claude/settings.json` would land in the work tree and, sooner or later, in a
commit. For each edited file there is one folder holding

    original    the file as it was before jouet first added its entries (absent: there was none)
    record.json the file's path, the hash of what jouet last wrote, and the folders it created
    backups/    the file as it was before each change, the last KEEP of them

so that `--uninstall` can put the original bytes back when nothing else changed the file since.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, field

from jouet_git import paths
from jouet_git.store import write_atomic

KEEP = 3


def sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def folder(path: str) -> str:
    """The state folder for the edited file PATH."""
    absolute = os.path.abspath(path)
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", absolute.strip(os.sep))[-60:]
    digest = hashlib.sha256(absolute.encode()).hexdigest()[:12]
    return os.path.join(paths.state_dir(), "setup", f"{slug}-{digest}")


@dataclass
class Record:
    path: str
    written: str | None = None  # sha256 of the bytes jouet last wrote
    had_original: bool = False
    created_dirs: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, path: str) -> Record | None:
        try:
            with open(os.path.join(folder(path), "record.json"), encoding="utf-8") as f:
                data = json.load(f)
            return cls(data["path"], data.get("written"), bool(data.get("had_original")),
                       list(data.get("created_dirs") or []))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def original(self) -> bytes | None:
        if not self.had_original:
            return None
        with open(os.path.join(folder(self.path), "original"), "rb") as f:
            return f.read()

    def save(self) -> None:
        os.makedirs(folder(self.path), mode=0o700, exist_ok=True)
        data = {"path": self.path, "written": self.written, "had_original": self.had_original,
                "created_dirs": self.created_dirs}
        write_atomic(os.path.join(folder(self.path), "record.json"), json.dumps(data, indent=2) + "\n")


def remember_original(path: str, before: bytes | None, created_dirs: list[str]) -> Record:
    """Start a record for PATH whose bytes before jouet's first change were BEFORE."""
    record = Record(os.path.abspath(path), None, before is not None, created_dirs)
    os.makedirs(folder(path), mode=0o700, exist_ok=True)
    original = os.path.join(folder(path), "original")
    if before is not None:
        write_atomic(original, before)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(original)
    return record


def forget(path: str) -> None:
    """Drop PATH's record and original (after an uninstall); its last backups stay."""
    for name in ("record.json", "original"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(folder(path), name))


def backup(path: str, data: bytes) -> str:
    """Keep DATA (PATH's bytes before a change) and drop all but the last KEEP backups."""
    directory = os.path.join(folder(path), "backups")
    os.makedirs(directory, mode=0o700, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    name = f"{os.path.basename(path)}.{stamp}"
    target = os.path.join(directory, name)
    n = 1
    while os.path.exists(target):
        n += 1
        target = os.path.join(directory, f"{name}-{n}")
    write_atomic(target, data)
    kept = sorted(os.listdir(directory), key=lambda f: os.stat(os.path.join(directory, f)).st_mtime_ns)
    for old in kept[:-KEEP]:
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(directory, old))
    return target


def backups(path: str) -> list[str]:
    directory = os.path.join(folder(path), "backups")
    try:
        return sorted(os.path.join(directory, f) for f in os.listdir(directory))
    except OSError:
        return []
