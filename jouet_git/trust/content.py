"""What a directory holds that can run, as one sha256: the basis of trust records and plugin pins.

The digest is a sha256 over every selected file in path order: its path relative to the
directory, its length and its bytes. Any edit, addition, removal or rename changes it. Each file's
own sha256 is kept too, so a later scan can say which files changed.

Symbolic links are followed only while they stay inside the directory. One that points outside it,
a link that leads nowhere or loops, and anything that is not a regular file or a directory is
refused: it is listed in `refused`, and a caller must not trust or pin content with refusals. So is
a file that appears, vanishes or changes kind while the scan reads the directory: the scan never
raises for what it finds (or stops finding) on disk.

With keep=True the bytes hashed are kept too (Content.data): each file is read exactly once, so
what a caller stores or shows is what the digest covers (trust keeps a copy of them).
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
    """The files of a directory that can run: relative path -> sha256, the digest, and refusals
    (and, when asked for, each file's bytes as hashed)."""

    __slots__ = ("base", "data", "digest", "files", "refused")

    def __init__(self, base: str, files: dict[str, str], digest: str, refused: list[str],
                 data: dict[str, bytes] | None = None) -> None:
        self.base = base
        self.files = files
        self.digest = digest
        self.refused = refused
        self.data = data

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


def scan(base: str, select: Callable[[str], bool] | None = None, shown: str = "",
         skip: frozenset[str] = SKIP, keep: bool = False) -> Content:
    """The content of BASE. SELECT picks the top-level names that count (all when None); names in
    SKIP are left out at every level. KEEP keeps the bytes hashed (Content.data).

    SHOWN is how messages name BASE, such as ".jouet/" (by default its path).
    """
    label = shown or base.rstrip(os.sep) + os.sep
    if os.path.islink(base):
        reason = f"{label.rstrip('/')} is a symbolic link (to {_link(base)}): jouet does not follow it"
        return _finish(base, {}, [reason], keep)
    if not os.path.isdir(base):
        return _finish(base, {}, [], keep)
    real_base = os.path.realpath(base)
    found: dict[str, str] = {}
    refused: list[str] = []
    _walk(base, "", real_base, frozenset({real_base}), select, skip, label, found, refused)
    return _finish(base, found, refused, keep)


def _link(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"


def _walk(directory: str, rel_dir: str, real_base: str, ancestors: frozenset[str],
          select: Callable[[str], bool] | None, skip: frozenset[str], label: str, found: dict[str, str],
          refused: list[str]) -> None:
    try:
        names = sorted(os.listdir(directory))
    except OSError as error:
        refused.append(f"{label}{rel_dir} cannot be read: {error.strerror}")
        return
    for name in names:
        if name in skip or (not rel_dir and select is not None and not select(name)):
            continue
        path = os.path.join(directory, name)
        rel = f"{rel_dir}/{name}" if rel_dir else name
        is_link = os.path.islink(path)
        if is_link:
            target = os.path.realpath(path)
            if not _inside(target, real_base):
                refused.append(f"{label}{rel} is a symbolic link to {_link(path)}, outside "
                               f"{label.rstrip('/')}: remove the link or replace it with the file itself")
                continue
        try:
            st = os.stat(path)
        except OSError:
            if is_link:
                refused.append(f"{label}{rel} is a symbolic link that leads nowhere ({_link(path)}): remove it")
            else:
                refused.append(f"{label}{rel} vanished while jouet read {label.rstrip('/')}: look again")
            continue
        if stat.S_ISDIR(st.st_mode):
            real = os.path.realpath(path)
            if real in ancestors:
                refused.append(f"{label}{rel} is a symbolic link that loops back into itself: remove it")
                continue
            _walk(path, rel, real_base, ancestors | {real}, select, skip, label, found, refused)
        elif stat.S_ISREG(st.st_mode):
            if st.st_size > MAX_FILE:
                refused.append(f"{label}{rel} is {st.st_size} bytes, more than a rule file or script needs")
                continue
            found[rel] = path
        else:
            refused.append(f"{label}{rel} is not a regular file or a directory")


def _read_regular(path: str) -> bytes | None:
    """PATH's bytes (at most MAX_FILE + 1), or None when it is no longer a regular file. Opened
    without blocking, so a file swapped for a fifo since it was listed cannot hang the scan."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return None
        return f.read(MAX_FILE + 1)


def _finish(base: str, found: dict[str, str], refused: list[str], keep: bool = False) -> Content:
    total = hashlib.sha256()
    files: dict[str, str] = {}
    kept: dict[str, bytes] | None = {} if keep else None
    for rel in sorted(found):
        try:
            data = _read_regular(found[rel])
        except OSError as error:
            refused.append(f"{rel} cannot be read: {error.strerror}")
            continue
        if data is None:
            refused.append(f"{rel} stopped being a regular file while jouet read it: look again")
            continue
        if len(data) > MAX_FILE:
            refused.append(f"{rel} grew past {MAX_FILE} bytes while jouet read it")
            continue
        files[rel] = hashlib.sha256(data).hexdigest()
        if kept is not None:
            kept[rel] = data
        total.update(b"file\0" + rel.encode("utf-8", "surrogateescape") + b"\0" + str(len(data)).encode() + b"\0")
        total.update(data)
    for reason in sorted(refused):
        total.update(b"refused\0" + reason.encode("utf-8", "surrogateescape") + b"\0")
    return Content(base, files, total.hexdigest(), refused, kept)
