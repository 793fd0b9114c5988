"""State files: the one atomic writer, the one locked update, and one rule for a file gone bad.

Every file jouet writes (trust records, claims stores, plugin pins, caches, hook scripts, backups)
is replaced through write_atomic: a new file beside it, flushed, renamed over it. Readers see the
old file or the new one, never half of either.

A store is a file only jouet writes (trust.json, a claims store). Reading one gives:
- the store's empty value when the file does not exist;
- when the file cannot be used (bad bytes, not the format, unreadable): the file is moved aside
  to `NAME.corrupt-TIME` (never deleted; under the store's lock, and only while it is still the
  same bad file), one line on stderr says so and where the bad file went (once per process), and
  the store reads as empty; never a traceback;
- TooNew, left alone, when a newer jouet wrote it: the caller says to upgrade.

A file a person edits (config.toml) is not a store: an error in it is reported with its place and
the command stops; it is never moved aside.

Reading is on the hook path: this module imports only os and sys at the top; filelock is imported
by the first writer.
"""

from __future__ import annotations

import os
import sys

from jouet_git.regular import read_regular as read_regular  # store.read_regular, as before

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType
    from typing import Any, TypeVar

    T = TypeVar("T")

LOCK_TIMEOUT = 10.0
_counter = 0
_reported: set[str] = set()


class Corrupt(Exception):
    """A store file that cannot be used; the message says why."""


class TooNew(Exception):
    """A store file written by a newer jouet; the message says what to do."""


class Busy(Exception):
    """Another process holds a store's lock for longer than the timeout; the message says which."""


def write_atomic(path: str, data: str | bytes, mode: int = 0o600, sync: bool = True,
                 make_dirs: bool = False) -> None:
    """Replace PATH with DATA: a new file beside it (created with MODE), flushed, then renamed over it.

    sync=False skips the fsync, for caches that are cheap to rebuild. MAKE_DIRS creates the
    directory (0700) first. On any failure the new file is removed and the error raised; PATH is
    untouched.
    """
    global _counter
    _counter += 1
    directory = os.path.dirname(path) or "."
    if make_dirs:
        os.makedirs(directory, mode=0o700, exist_ok=True)
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
        import contextlib

        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync:
        _sync_directory(directory)


def _sync_directory(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class locked:
    """Hold PATH's lock file (PATH.lock, 0600) for a `with` block; Busy after TIMEOUT seconds."""

    __slots__ = ("_lock", "path", "timeout")

    def __init__(self, path: str, timeout: float = LOCK_TIMEOUT) -> None:
        self.path = path
        self.timeout = timeout
        self._lock: Any = None

    def __enter__(self) -> None:
        import filelock

        os.makedirs(os.path.dirname(self.path) or ".", mode=0o700, exist_ok=True)
        lock = filelock.FileLock(self.path + ".lock", timeout=self.timeout, mode=0o600)
        try:
            lock.acquire()
        except filelock.Timeout:
            raise Busy(f"another jouet has held {self.path}.lock for {self.timeout:.0f}s; try again, and if "
                       "no jouet is running, check what holds that file") from None
        self._lock = lock

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release()


def set_aside(path: str) -> str:
    """Move a bad store out of the way (never deleting it) and return where it went."""
    import time

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = f"{path}.corrupt-{stamp}"
    suffix = 1
    while os.path.exists(target):
        suffix += 1
        target = f"{path}.corrupt-{stamp}-{suffix}"
    os.replace(path, target)
    return target


def report(line: str, key: str | None = None) -> None:
    """Say LINE on stderr, once per process for KEY (the line itself when none)."""
    key = key or line
    if key in _reported:
        return
    _reported.add(key)
    try:  # noqa: SIM105 - contextlib stays off the hook path
        sys.stderr.write(f"jouet: {line}\n")
    except (OSError, ValueError):
        pass


def _read_bytes(path: str) -> bytes | None:
    """PATH's bytes, None when it does not exist; Corrupt when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise Corrupt("it is a directory") from None
    except OSError as error:
        raise Corrupt(f"it cannot be read: {error.strerror or error}") from None


def load(path: str, parse: Callable[[bytes], T], empty: Callable[[], T], what: str,
         under_lock: bool = False) -> T:
    """The store at PATH, parsed; empty() when missing or bad (see the module's docstring).

    PARSE raises Corrupt for a file it cannot use and TooNew for a newer jouet's (passed on).
    UNDER_LOCK: the caller already holds the store's lock.
    """
    data = None
    try:
        data = _read_bytes(path)
        if data is None:
            return empty()
        return parse(data)
    except Corrupt as error:
        _recover(path, data, str(error), what, under_lock)
        return empty()


def _recover(path: str, bad: bytes | None, reason: str, what: str, under_lock: bool) -> None:
    """Move the bad store at PATH aside, if it still holds BAD (None: it could not be read), and
    say so once."""
    aside = None
    try:
        if under_lock:
            aside = set_aside(path)
        else:
            with locked(path, timeout=2.0):
                try:
                    now = _read_bytes(path)
                except Corrupt:
                    now = None
                if now == bad and os.path.lexists(path):
                    aside = set_aside(path)
    except (OSError, Busy):
        aside = None
    where = f"kept it as {aside}" if aside else "left it where it is"
    report(f"the {what} {path} could not be used ({reason}); {where} and went on with an empty one", path)


def update(path: str, parse: Callable[[bytes], T], empty: Callable[[], T], dump: Callable[[T], str | bytes],
           change: Callable[[T], object], what: str, mode: int = 0o600,
           timeout: float = LOCK_TIMEOUT) -> T:
    """Read the store at PATH under its lock, let CHANGE edit it in place, and write it back.

    CHANGE returning False skips the write. A bad store is set aside first (see load); TooNew and
    Busy are raised; anything CHANGE raises leaves the file as it was.
    """
    with locked(path, timeout):
        value = load(path, parse, empty, what, under_lock=True)
        if change(value) is not False:
            write_atomic(path, dump(value), mode)
    return value


def decode_json(data: bytes) -> object:
    """The JSON value in DATA; Corrupt when it is not UTF-8 JSON."""
    import json

    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise Corrupt(f"not UTF-8 text (byte {error.start})") from None
    except ValueError as error:
        raise Corrupt(f"not valid JSON ({error})") from None
