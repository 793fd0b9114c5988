"""Reading a file that must be a regular one (a rule file, a script): a FIFO, a device or a directory
named like one never blocks the hook. Its own module, so a hook that reads a script imports no more
than this (store.py, which re-exports it, is much larger)."""

from __future__ import annotations

import os


def read_regular(path: str, limit: int) -> bytes:
    """The bytes of the regular file at PATH. A FIFO, a device or a directory raises OSError instead
    of blocking or reading forever (a FIFO named like a rule file would stop every hook); so does a file
    over LIMIT bytes."""
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        if info.st_size > limit:
            raise OSError(f"{path} is {info.st_size} bytes, more than the {limit} jouet reads")
        chunks = []
        size = 0
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise OSError(f"{path} grew past the {limit} bytes jouet reads")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
