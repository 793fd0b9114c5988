"""The private directory of one secret scan, made only when something is laid out in it.

Most scans never need one: a change holding no gitleaks keyword is decided without gitleaks, and a
commit without allowlist files writes none. Making and removing a directory costs a stream's scan
about a tenth of a millisecond each (more on some file systems), so it is made on first use:

    work = WorkDir()
    path = work.dir("allowlists")   # TMPDIR/jouet-secrets-XXXX/allowlists, both made now (mode 0700)
    work.remove()                   # the directory and all in it, if it was made (never raises)

(What tempfile.mkdtemp does, without importing tempfile and random on every commit's hook.)
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


class CannotMake(OSError):
    """The scan's directory could not be made (the message says where, and what to do)."""


class WorkDir:
    """One scan's private directory under $TMPDIR (or /tmp, /var/tmp, jouet's cache directory: the
    first that takes one), made by the first dir()."""

    __slots__ = ("_path",)

    def __init__(self) -> None:
        self._path: str | None = None

    def dir(self, name: str) -> str:
        """The directory NAME inside this one, made now (private) if it is not there yet."""
        if self._path is None:
            self._path = _make()
        path = os.path.join(self._path, name)
        if not os.path.isdir(path):  # (only this scan writes in its private directory)
            os.mkdir(path, 0o700)
        return path

    def remove(self) -> None:
        """Remove the directory and what the scan wrote in it, if it was made (never raises)."""
        work = self._path
        if work is None:
            return
        self._path = None
        # Most scans that made one wrote only its allowlists directory, empty: no walk.
        if _quietly(os.rmdir, os.path.join(work, "allowlists")) and _quietly(os.rmdir, work):
            return
        for base, dirs, files in os.walk(work, topdown=False):
            for name in files:
                _quietly(os.unlink, os.path.join(base, name))
            for name in dirs:
                path = os.path.join(base, name)
                _quietly(os.unlink if os.path.islink(path) else os.rmdir, path)
        _quietly(os.rmdir, work)


def _make(bases: list[tuple[str, bool]] | None = None) -> str:
    """A new private directory in the first of BASES (each a directory, and whether to make it when
    it is not there) that takes one: by default $TMPDIR, /tmp, /var/tmp and, made if need be, jouet's
    cache directory, so that a TMPDIR naming nowhere (an agent can set it for the git it runs) never
    keeps a scan from running."""
    if bases is None:
        from jouet_git import paths

        bases = [(b, False) for b in (os.environ.get("TMPDIR"), "/tmp", "/var/tmp") if b]
        bases.append((paths.cache_dir(), True))
    why: list[str] = []
    for base, make in bases:
        try:
            if make:
                os.makedirs(base, 0o700, exist_ok=True)
            path = _made_in(base)
        except OSError as error:
            why.append(f"{base}: {error.strerror or error}")
            continue
        return path
    raise CannotMake(f"cannot make a private directory for the secret scan ({'; '.join(why)}): "
                     "set TMPDIR to a directory you can write")


def _made_in(base: str) -> str:
    for _ in range(100):
        path = os.path.join(base, f"jouet-secrets-{os.urandom(6).hex()}")
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            continue
        return path
    raise OSError("100 names were taken")


def _quietly(remove: Callable[[str], object], path: str) -> bool:
    """REMOVE(PATH); whether it worked."""
    try:
        remove(path)
    except OSError:
        return False
    return True
