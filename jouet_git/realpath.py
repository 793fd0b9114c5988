"""os.path.realpath, with the kernel resolving what exists (the hook path: imports only os).

Python 3.11's os.path.realpath is Python: an lstat for every component of the path, and string work
for each. Where /proc/self/fd is there (Linux), the kernel resolves an existing path in one step:
open it with O_PATH (no permission to read it is needed) and read back the path of the descriptor.
A path that does not exist yet resolves as far as it exists, as os.path.realpath does: the nearest
existing ancestor through the kernel, and the rest as written. Anything else (no /proc, no O_PATH, a
`..` (after a link it goes up from where the link points, which only a step-by-step walk sees), a
link to nowhere, a loop) is left to os.path.realpath itself, so the answer is always its answer.
"""

from __future__ import annotations

import os

_O_PATH = getattr(os, "O_PATH", 0)
_PROC = "/proc/self/fd/"
# Whether the kernel way works here (found on first use).
_usable: list[bool] = []


def realpath(path: str) -> str:
    """os.path.realpath(PATH) for an absolute or relative PATH (see the module docstring)."""
    if not _usable:
        _usable.append(bool(_O_PATH) and os.path.isdir(_PROC))
    if not _usable[0] or ".." in path.split("/"):  # (`..` after a link goes up from where it points)
        return os.path.realpath(path)
    full = os.path.normpath(path if path.startswith("/") else os.path.join(os.getcwd(), path))
    if full.startswith("//"):  # POSIX leaves a leading // to the system: let os.path.realpath say
        return os.path.realpath(path)
    rest = ""
    current = full
    while True:
        try:
            fd = os.open(current, _O_PATH | os.O_CLOEXEC)
        except FileNotFoundError:
            if current == "/":
                return os.path.realpath(path)
            parent, _, name = current.rpartition("/")
            rest = "/" + name + rest
            current = parent or "/"
            continue
        except OSError:  # a loop, a name too long, permission to search a directory refused
            return os.path.realpath(path)
        try:
            resolved = os.readlink(_PROC + str(fd))
        except OSError:
            return os.path.realpath(path)
        finally:
            os.close(fd)
        break
    if not resolved.startswith("/") or resolved.endswith(" (deleted)"):
        return os.path.realpath(path)
    # What is missing starts with a name the existing directory lacks, unless that name is a link to
    # nowhere (os.path.realpath follows it): the only one that can be, the names below it being in
    # no directory at all.
    if rest and os.path.islink(current.rstrip("/") + "/" + rest[1:].split("/", 1)[0]):
        return os.path.realpath(path)
    return resolved.rstrip("/") + rest if rest else resolved
