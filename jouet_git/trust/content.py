"""What a directory holds that can run, as one sha256: the basis of trust records and plugin pins.

The digest is a sha256 over every selected file in path order: its path relative to the
directory, its length and its bytes. Any edit, addition, removal or rename changes it. Each file's
own sha256 is kept too, so a later scan can say which files changed.

Symbolic links are followed only while they stay inside the directory. One that points outside it,
a link that leads nowhere or loops, and anything that is not a regular file or a directory is
refused: it is listed in `refused`, and a caller must not trust or pin content with refusals.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable

# Directories never part of the content (a plugin fetched with git keeps no .git, but a local
# directory source may have one).
SKIP = frozenset({".git"})
# A runnable file bigger than this is refused rather than read.
MAX_FILE = 16 * 1024 * 1024


class Content:
    """The files of a directory that can run: relative path -> sha256, the digest, and refusals."""

    __slots__ = ("base", "digest", "files", "refused")

    def __init__(self, base: str, files: dict[str, str], digest: str, refused: list[str]) -> None:
        self.base = base
        self.files = files
        self.digest = digest
        self.refused = refused

    @property
    def empty(self) -> bool:
        return not self.files and not self.refused

    def changes_from(self, before: dict[str, str]) -> dict[str, list[str]]:
        """What differs from BEFORE (path -> sha256): files changed, added and removed."""
        return {
            "changed": sorted(p for p in self.files if p in before and before[p] != self.files[p]),
            "added": sorted(p for p in self.files if p not in before),
            "removed": sorted(p for p in before if p not in self.files),
        }


def _inside(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip(os.sep) + os.sep)


def scan(base: str, select: Callable[[str], bool] | None = None, shown: str = "") -> Content:
    """The content of BASE. SELECT picks the top-level names that count (all when None).

    SHOWN is how messages name BASE, such as ".jouet/" (by default its path).
    """
    label = shown or base.rstrip(os.sep) + os.sep
    if os.path.islink(base):
        reason = f"{label.rstrip('/')} is a symbolic link (to {os.readlink(base)}): jouet does not follow it"
        return _finish(base, {}, [reason])
    if not os.path.isdir(base):
        return _finish(base, {}, [])
    real_base = os.path.realpath(base)
    found: dict[str, str] = {}
    refused: list[str] = []
    _walk(base, "", real_base, frozenset({real_base}), select, label, found, refused)
    return _finish(base, found, refused)


def _walk(directory: str, rel_dir: str, real_base: str, ancestors: frozenset[str],
          select: Callable[[str], bool] | None, label: str, found: dict[str, str], refused: list[str]) -> None:
    try:
        names = sorted(os.listdir(directory))
    except OSError as error:
        refused.append(f"{label}{rel_dir} cannot be read: {error.strerror}")
        return
    for name in names:
        if name in SKIP or (not rel_dir and select is not None and not select(name)):
            continue
        path = os.path.join(directory, name)
        rel = f"{rel_dir}/{name}" if rel_dir else name
        if os.path.islink(path):
            target = os.path.realpath(path)
            if not _inside(target, real_base):
                refused.append(f"{label}{rel} is a symbolic link to {os.readlink(path)}, outside "
                               f"{label.rstrip('/')}: remove the link or replace it with the file itself")
                continue
        try:
            st = os.stat(path)
        except OSError:
            refused.append(f"{label}{rel} is a symbolic link that leads nowhere ({os.readlink(path)}): remove it")
            continue
        if stat.S_ISDIR(st.st_mode):
            real = os.path.realpath(path)
            if real in ancestors:
                refused.append(f"{label}{rel} is a symbolic link that loops back into itself: remove it")
                continue
            _walk(path, rel, real_base, ancestors | {real}, select, label, found, refused)
        elif stat.S_ISREG(st.st_mode):
            if st.st_size > MAX_FILE:
                refused.append(f"{label}{rel} is {st.st_size} bytes, more than a rule file or script needs")
                continue
            found[rel] = path
        else:
            refused.append(f"{label}{rel} is not a regular file or a directory")


def _finish(base: str, found: dict[str, str], refused: list[str]) -> Content:
    total = hashlib.sha256()
    files: dict[str, str] = {}
    for rel in sorted(found):
        try:
            with open(found[rel], "rb") as f:
                data = f.read(MAX_FILE + 1)
        except OSError as error:
            refused.append(f"{rel} cannot be read: {error.strerror}")
            continue
        files[rel] = hashlib.sha256(data).hexdigest()
        total.update(b"file\0" + rel.encode("utf-8", "surrogateescape") + b"\0" + str(len(data)).encode() + b"\0")
        total.update(data)
    for reason in sorted(refused):
        total.update(b"refused\0" + reason.encode("utf-8", "surrogateescape") + b"\0")
    return Content(base, files, total.hexdigest(), refused)
