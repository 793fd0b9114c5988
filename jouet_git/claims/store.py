"""The claims store: one JSON file per repository, shared by all its worktrees.

It lives at `<state dir>/claims/<hash of the git common dir>.json`:

    {"version": 1, "repository": "/path/to/repo/.git",
     "claims": [{"pattern": "src/", "session": "...", ...}, ...],
     "remote": {"name": "origin", "synced_at": "...", "claims": [... claims of other machines ...]}}

Writers take the store's lock around read-modify-write and replace the file atomically, mode 0600;
readers take no lock (jouet_git.store). A store that cannot be used is never dropped silently: it
is moved aside to `<store>.corrupt-<time>`, said once on stderr, and read as empty. Short of that,
what can be read is kept: bytes that are not UTF-8 are read as U+FFFD, and a claim record that is
not one is skipped; each is said once on stderr, and the next write leaves them out.

Reading is on the hook's hot path: the top level imports only `os`, `json` and jouet_git.store.
"""

from __future__ import annotations

import json
import os

from jouet_git import paths, store
from jouet_git.claims.record import Claim

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
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

    __slots__ = ("claims", "path", "problems", "remote_claims", "remote_name", "repository", "synced_at")

    def __init__(self, path: str, repository: str | None = None) -> None:
        self.path = path
        self.repository = repository
        self.claims: list[Claim] = []
        self.remote_claims: list[Claim] = []
        self.remote_name: str | None = None
        self.synced_at: str | None = None
        # what was skipped while reading the file, said on stderr by whoever reads it
        self.problems: list[str] = []

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
    except RecursionError:
        raise StoreError(path, "not valid JSON (nested too deeply)") from None
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
    store.claims = _claims(store, data.get("claims", []), "claims")
    remote = data.get("remote")
    if remote is not None:
        if not isinstance(remote, dict):
            store.problems.append("'remote' is not a JSON object: other machines' claims were skipped")
            return store
        name = remote.get("name")
        synced = remote.get("synced_at")
        store.remote_name = name if isinstance(name, str) else None
        store.synced_at = synced if isinstance(synced, str) else None
        store.remote_claims = _claims(store, remote.get("claims", []), "remote.claims")
    return store


def _claims(store: Store, items: object, where: str) -> list[Claim]:
    """The claims in ITEMS; a record that is not a claim is skipped and noted in store.problems."""
    if not isinstance(items, list):
        raise StoreError(store.path, f"'{where}' is not a list")
    claims = []
    for index, item in enumerate(items):
        try:
            claims.append(Claim.from_json(item))
        except (ValueError, OverflowError) as error:
            store.problems.append(f"{where}[{index}] was skipped: {error}")
    return claims


def _parser(path: str) -> Callable[[bytes], Store]:
    def parse_bytes(data: bytes) -> Store:
        problems = []
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            text = data.decode("utf-8", "replace")
            problems.append(f"bytes that are not UTF-8 (the first at byte {error.start}) were read as U+FFFD")
        try:
            claims = parse(path, text)
        except StoreError as error:
            if error.corrupt:
                raise store.Corrupt(error.reason) from None
            raise
        claims.problems[:0] = problems
        if claims.problems:
            store.report(f"the claims store {path} is damaged: {'; '.join(claims.problems)}; "
                         "the rest of it was read, and the next change rewrites it without them",
                         key=f"damaged {path}")
        return claims

    return parse_bytes


def read(path: str) -> Store:
    """The store at PATH without locking: an empty one when the file does not exist yet, or when it
    cannot be used (it is then set aside and reported; see jouet_git.store).

    Raises StoreError for a store written by a newer jouet.
    """
    return store.load(path, _parser(path), lambda: Store(path), "claims store")


def write(claims: Store) -> None:
    """Replace the store's file atomically, 0600. Call only while holding the store's lock."""
    text = json.dumps(claims.to_json(), indent=1, sort_keys=False) + "\n"
    store.write_atomic(claims.path, text, 0o600, make_dirs=True)


class Locked:
    """`with Locked(path) as claims:` read the store under its lock and write it back on success.

    A bad store is set aside and reported first (jouet_git.store), and the block gets an empty one.
    A store written by a newer jouet raises StoreError and is left alone. Set `changed = False`
    inside the block to skip the write.
    """

    def __init__(self, path: str, repository: str | None = None, timeout: float = LOCK_TIMEOUT) -> None:
        self.path = path
        self.repository = repository
        self.timeout = timeout
        self.changed = True
        self._held: store.locked | None = None
        self._store: Store | None = None

    def __enter__(self) -> Store:
        held = store.locked(self.path, self.timeout)
        try:
            held.__enter__()
        except store.Busy:
            raise StoreError(self.path, f"another jouet has held its lock ({self.path}.lock) for "
                                        f"{self.timeout:.0f}s; try again, and if no jouet is running, check "
                                        "what holds that file", corrupt=False) from None
        self._held = held
        try:
            claims = store.load(self.path, _parser(self.path), lambda: Store(self.path), "claims store",
                                under_lock=True)
        except BaseException:
            self._release()
            raise
        if claims.repository is None:
            claims.repository = self.repository
        self._store = claims
        return claims

    def _release(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            held.__exit__(None, None, None)

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
            self._release()
