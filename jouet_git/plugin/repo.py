"""The plugins a repository declares in .jouet/plugins.toml: fetched by `jouet trust`, never by a hook.

Each declared plugin is fetched from its source at its rev into jouet's data directory and kept
there even when its content does not hash to the repository's pin, so `jouet rule list` can show
its rules as plugin:NAME:mismatch; it runs only when the hash and the pin agree.
"""

from __future__ import annotations

import os
from typing import Any

from jouet_git.plugin import store
from jouet_git.plugin.fetch import fetch
from jouet_git.plugin.manifest import PluginError
from jouet_git.plugin.pins import Pin, repo_pins
from jouet_git.trust.content import scan

OK = "ok"
MISMATCH = "mismatch"
MISSING = "missing"
ERROR = "error"


def _status(pin: Pin, folder: str) -> tuple[str, str, str]:
    """(status, detail, digest) of the copy in FOLDER against PIN."""
    if not os.path.isdir(folder):
        return MISSING, "not fetched yet", ""
    content = scan(folder)
    if content.refused:
        return MISMATCH, content.refused[0], content.digest
    if content.digest != pin.sha256:
        return MISMATCH, f"its content hashes to {content.digest}, not the pinned {pin.sha256}", content.digest
    return OK, "its content hashes to the pin", content.digest


def _view(pin: Pin, status: str, detail: str, digest: str, commit: str | None = None) -> dict[str, Any]:
    return {"name": pin.name, "source": pin.source, "rev": pin.rev, "sha256": pin.sha256, "status": status,
            "detail": detail, "fetched_sha256": digest or None, "commit": commit}


def declared(root: str, key: str, declared_in: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """Each declared plugin and the state of its copy, without fetching anything; and pin problems.
    DECLARED_IN: the root whose .jouet/plugins.toml to read (a trusted copy's), ROOT by default."""
    pins, problems = repo_pins(declared_in or root)
    return [_view(pin, *_status(pin, store.repo_copy(key, pin.name))) for pin in pins], problems


def fetch_declared(root: str, key: str, declared_in: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """Fetch every declared plugin whose copy does not already match its pin; drop undeclared copies.
    DECLARED_IN: the root whose .jouet/plugins.toml to read (a trusted copy's), ROOT by default;
    relative plugin sources are still found from ROOT."""
    pins, problems = repo_pins(declared_in or root)
    views = []
    for pin in pins:
        target = store.repo_copy(key, pin.name)
        status, detail, digest = _status(pin, target)
        if status == OK:
            views.append(_view(pin, status, detail, digest))
            continue
        try:
            fetched = fetch(pin.source, pin.rev, base=root)
        except PluginError as error:
            views.append(_view(pin, ERROR, error.message, ""))
            continue
        try:
            store.install(fetched.folder, target)
        finally:
            fetched.discard()
        status, detail, digest = _status(pin, target)
        views.append(_view(pin, status, detail, digest, fetched.commit))
    keep = {pin.name for pin in pins}
    base = store.repo_copies(key)
    try:
        names = os.listdir(base)
    except OSError:
        names = []
    for name in names:
        if name not in keep:
            store.discard(os.path.join(base, name))
    return views, problems
