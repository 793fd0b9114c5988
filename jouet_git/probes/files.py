"""jouet.file.contains(path, text): whether a file holds some text, without handing the file over.

A script learns only true or false, so a rule can ask whether a rule file says `mode = "deny"` without
ever seeing a secret that may sit next to it.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_BYTES = 4 << 20  # files over 4 MiB are not read


def home() -> str:
    return os.environ.get("HOME") or os.path.expanduser("~")


def resolve(path: str, cwd: str) -> str:
    """PATH as an absolute path: from CWD when relative; `~`, `~/...`, `$HOME` and `${HOME}` start at
    the home directory."""
    for prefix in ("~", "$HOME", "${HOME}"):
        if path == prefix:
            return os.path.normpath(home())
        if path.startswith(prefix + "/"):
            return os.path.normpath(os.path.join(home(), path[len(prefix) + 1:]))
    return os.path.normpath(os.path.join(cwd, path))


def contains(target: str, text: str) -> tuple[Any, str | None]:
    """(True or False, None) for whether the file at TARGET holds TEXT, or (None, why it cannot say)."""
    import stat

    try:
        info = os.stat(target)
    except FileNotFoundError:
        return None, f"no such file: {target}"
    except OSError as error:
        return None, f"cannot read {target}: {error.strerror}"
    if stat.S_ISDIR(info.st_mode):
        return None, f"{target} is a directory, not a file"
    if not stat.S_ISREG(info.st_mode):
        return None, f"{target} is not a regular file"
    if info.st_size > MAX_BYTES:
        return None, f"{target} is over 4 MiB ({info.st_size} bytes), the most file.contains reads"
    try:
        with open(target, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as error:
        return None, f"cannot read {target}: {error.strerror}"
    if len(data) > MAX_BYTES:
        return None, f"{target} is over 4 MiB, the most file.contains reads"
    return text.encode("utf-8", "surrogatepass") in data, None
