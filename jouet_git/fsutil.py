"""Replacing a file atomically: every state file, cache and hook jouet writes goes through here.

Readers see the old file or the new one, never half of either. Imports only os, so the hook may
use it.
"""

from __future__ import annotations

import contextlib
import os

_counter = 0


def write_atomic(path: str, data: str | bytes, mode: int = 0o600, sync: bool = True) -> None:
    """Replace PATH with DATA: a new file beside it (created with MODE), flushed, then renamed over it.

    sync=False skips the fsync, for caches that are cheap to rebuild. On any failure the new file is
    removed and the error raised; PATH is untouched.
    """
    global _counter
    _counter += 1
    directory = os.path.dirname(path) or "."
    tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.{_counter}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
            if sync:
                out.flush()
                os.fsync(out.fileno())
        os.chmod(tmp, mode)  # the umask may have narrowed what os.open set
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
