"""Which machine this is, for claims shared across machines.

The identity is, in order: `JOUET_MACHINE_ID` as given; a digest of /etc/machine-id (the raw id is
meant to stay private to the machine, so only an application-specific hash of it is published);
the host name.
"""

from __future__ import annotations

import hashlib
import os
import re

_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")


def host() -> str:
    """This machine's host name (for people reading `jouet claim ls`)."""
    try:
        return os.uname().nodename or "unknown"
    except AttributeError:  # pragma: no cover - Windows
        import socket

        return socket.gethostname() or "unknown"


def machine_id() -> str:
    """This machine's identity in refs/jouet/claims."""
    given = os.environ.get("JOUET_MACHINE_ID", "").strip()
    if given:
        return given
    for path in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            with open(path, encoding="ascii", errors="replace") as handle:
                raw = handle.read().strip()
        except OSError:
            continue
        if raw:
            return hashlib.sha256(f"jouet-claims:{raw}".encode()).hexdigest()[:16]
    return host()


def file_name(machine: str) -> str:
    """The name of MACHINE's file in the claims tree: the id itself when it is safe as a file name."""
    if _SAFE.match(machine) and machine not in (".", ".."):
        return f"{machine}.json"
    return "m-" + hashlib.sha256(machine.encode("utf-8", "surrogateescape")).hexdigest()[:24] + ".json"
