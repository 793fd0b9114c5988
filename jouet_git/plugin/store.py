"""jouet's copies of plugins, in its data directory: the content that runs once it matches a pin.

    $JOUET_DATA_DIR/plugins/user/NAME          a plugin you pinned (config.toml)
    $JOUET_DATA_DIR/plugins/repo/KEY/NAME      a plugin a repository declares; KEY stands for the
                                               repository's git common dir
    $JOUET_DATA_DIR/plugins/.staging/...       fetches in progress

A copy is never trusted because of where it is: the engine hashes it on every rule-set build and
runs it only when the hash equals the pin.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil

from jouet_git import paths


def plugins_dir() -> str:
    return os.path.join(paths.data_dir(), "plugins")


def user_copy(name: str) -> str:
    return os.path.join(plugins_dir(), "user", name)


def repo_copies(key: str) -> str:
    """Where the plugins of the repository with git common dir KEY are kept."""
    return os.path.join(plugins_dir(), "repo", hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:16])


def repo_copy(key: str, name: str) -> str:
    return os.path.join(repo_copies(key), name)


def staging_dir() -> str:
    """A fresh, private directory to fetch into (on the same filesystem as the copies)."""
    import tempfile

    base = os.path.join(plugins_dir(), ".staging")
    os.makedirs(base, mode=0o700, exist_ok=True)
    return tempfile.mkdtemp(prefix="fetch-", dir=base)


def install(staged: str, target: str) -> None:
    """Put the folder STAGED in TARGET's place, replacing what was there."""
    os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
    old = None
    if os.path.lexists(target):
        old = f"{target}.old-{os.getpid()}"
        discard(old)
        os.replace(target, old)
    os.replace(staged, target)
    if old is not None:
        discard(old)


def discard(path: str) -> None:
    """Remove PATH (a folder or a file) if it exists."""
    if os.path.islink(path) or os.path.isfile(path):
        with contextlib.suppress(OSError):
            os.unlink(path)
    elif os.path.isdir(path):
        shutil.rmtree(path, ignore_errors=True)
