"""The claims store: one JSON file per repository, shared by all its worktrees.

It lives at `<state dir>/claims/<hash of the git common dir>.json`:

    {"version": 1, "repository": "/path/to/repo/.git",
     "claims": [{"pattern": "src/", "session": "...", ...}, ...],
     "remote": {"name": "origin", "synced_at": "...", "claims": [... claims of other machines ...]}}

Writers take a file lock (`<store>.lock`, with filelock) around read-modify-write and replace the
file atomically (temp file, fsync, rename), mode 0600. Readers take no lock: a rename is atomic, so
they see the old file or the new one, never half of one. A store that does not parse is never
dropped silently: the next writer moves it aside to `<store>.corrupt-<time>` and says so.

Reading is on the hook's hot path: the top level imports only `os` and `json`; filelock and
tempfile are imported by the writer.
"""

from __future__ import annotations

import json
import os

from jouet_git import paths
from jouet_git.claims.record import Claim

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any

VERSION = 1
LOCK_TIMEOUT = 30.0


class StoreError(Exception):
    """A store that cannot be used: unreadable, corrupt, or written by a newer jouet."""

    def __init__(self, path: str, reason: str, corrupt: bool = True) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        self.corrupt = corrupt  # False: the content may be fine (a newer jouet's, or unreadable)


class Store:
    """The claims of one repository: this machine's, and other machines' as last synced."""

    __slots__ = ("claims", "path", "remote_claims", "remote_name", "repository", "synced_at")

    def __init__(self, path: str, repository: str | None = None) -> None:
        self.path = path
        self.repository = repository
        self.claims: list[Claim] = []
        self.remote_claims: list[Claim] = []
        self.remote_name: str | None = None
        self.synced_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "version": VERSION,
            "repository": self.repository,
            "claims": [claim.to_json() for claim in self.claims],
        }
        if self.remote_name is not None or self.remote_claims:
            data["remote"] = {
                "name": self.remote_name,
                "synced_at": self.synced_at,
                "claims": [claim.to_json() for claim in self.remote_claims],
            }
        return data


def _digest(text: str) -> str:
    """A short sha256 of TEXT, without importing hashlib (3 ms) on the hot path when avoidable."""
    data = text.encode("utf-8", "surrogateescape")
    try:
        from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]  # Python 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # type: ignore[import-not-found,no-redef,unused-ignore]  # 3.12+
        except ImportError:
            from hashlib import sha256  # type: ignore[assignment,unused-ignore]
    return str(sha256(data).hexdigest())[:24]


def store_dir() -> str:
    """Where every repository's claims store lives."""
    return os.path.join(paths.state_dir(), "claims")


def store_path(common_dir: str) -> str:
    """The store of the repository whose (resolved) git common dir is COMMON_DIR."""
    return os.path.join(store_dir(), _digest(os.path.realpath(common_dir)) + ".json")


def parse(path: str, text: str) -> Store:
    """A store from the text of its file. Raises StoreError saying what is wrong."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise StoreError(path, f"not valid JSON ({error})") from None
    if not isinstance(data, dict):
        raise StoreError(path, "not a JSON object")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise StoreError(path, "no integer 'version'")
    if version > VERSION:
        raise StoreError(path, f"written by a newer jouet (store version {version}, this one reads "
                               f"{VERSION}); upgrade jouet", corrupt=False)
    repository = data.get("repository")
    store = Store(path, repository if isinstance(repository, str) else None)
    store.claims = _claims(path, data.get("claims", []), "claims")
    remote = data.get("remote")
    if remote is not None:
        if not isinstance(remote, dict):
            raise StoreError(path, "'remote' is not a JSON object")
        name = remote.get("name")
        synced = remote.get("synced_at")
        store.remote_name = name if isinstance(name, str) else None
        store.synced_at = synced if isinstance(synced, str) else None
        store.remote_claims = _claims(path, remote.get("claims", []), "remote.claims")
    return store


def _claims(path: str, items: object, where: str) -> list[Claim]:
    if not isinstance(items, list):
        raise StoreError(path, f"'{where}' is not a list")
    claims = []
    for index, item in enumerate(items):
        try:
            claims.append(Claim.from_json(item))
        except ValueError as error:
            raise StoreError(path, f"{where}[{index}]: {error}") from None
    return claims


def read(path: str) -> Store:
    """The store at PATH without locking (an empty one when the file does not exist yet).

    Raises StoreError when it exists but cannot be used.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return Store(path)
    except OSError as error:
        raise StoreError(path, f"cannot be read ({error.strerror or error})", corrupt=False) from None
    return parse(path, text)


def write(store: Store) -> None:
    """Replace the store's file atomically (temp file in the same directory, fsync, rename), 0600.

    Call only while holding the store's lock.
    """
    import contextlib
    import tempfile

    directory = os.path.dirname(store.path)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    text = json.dumps(store.to_json(), indent=1, sort_keys=False) + "\n"
    handle, temp = tempfile.mkstemp(prefix=".claims-", suffix=".tmp", dir=directory)
    try:
        os.fchmod(handle, 0o600)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, store.path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_dir(directory)


def _fsync_dir(directory: str) -> None:
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


def set_aside(path: str) -> str:
    """Move a corrupt store out of the way (never deleting it) and return where it went."""
    import time

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = f"{path}.corrupt-{stamp}"
    suffix = 1
    while os.path.exists(target):
        suffix += 1
        target = f"{path}.corrupt-{stamp}-{suffix}"
    os.replace(path, target)
    return target


class Locked:
    """`with Locked(path) as store:` read the store under its lock and write it back on success.

    A corrupt store is moved aside first (warnings says where) and the block gets an empty one.
    A store written by a newer jouet raises StoreError and is left alone. Set `changed = False`
    inside the block to skip the write.
    """

    def __init__(self, path: str, repository: str | None = None, timeout: float = LOCK_TIMEOUT) -> None:
        self.path = path
        self.repository = repository
        self.timeout = timeout
        self.warnings: list[str] = []
        self.changed = True
        self._lock: Any = None
        self._store: Store | None = None

    def __enter__(self) -> Store:
        import filelock

        os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
        lock = filelock.FileLock(self.path + ".lock", timeout=self.timeout, mode=0o600)
        try:
            lock.acquire()
        except filelock.Timeout:
            raise StoreError(
                self.path,
                f"another jouet has held its lock ({self.path}.lock) for {self.timeout:.0f}s; "
                "try again, and if no jouet is running, check what holds that file",
            ) from None
        self._lock = lock
        try:
            store = read(self.path)
        except StoreError as error:
            if not error.corrupt:
                lock.release()
                raise
            aside = set_aside(self.path)
            self.warnings.append(
                f"the claims store {self.path} could not be read ({error.reason}); kept it as "
                f"{aside} and started an empty one"
            )
            store = Store(self.path)
        if store.repository is None:
            store.repository = self.repository
        self._store = store
        return store

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            if kind is None and self.changed and self._store is not None:
                write(self._store)
        finally:
            if self._lock is not None:
                self._lock.release()
