"""A project's fnox configuration, as far as jouet's rules need it: the names it defines as secrets,
and the files that hold secrets in plain text.

    config = fnox.find(cwd)          # None outside a fnox project
    config.secrets                   # frozenset of names: "STRIPE_KEY", ...
    config.has_file("secrets.env", cwd)

fnox (https://fnox.jdx.dev) keeps a project's secrets as references or ciphertext in TOML files.
What this module reads, from fnox's own documentation:

- Which files (fnox.jdx.dev/guide/config-files.html; docs/guide/hierarchical-config.md in
  jdx/fnox): from the current directory fnox walks up to the filesystem root and loads every
  config it finds. Each directory's config is `fnox.toml`, or the hidden `.fnox.toml`, or
  `.config/fnox.toml`; beside each, `fnox.local.toml` and `fnox.<profile>.toml` (in the same three
  forms) add to it. `root = true` in a file stops the walk above that directory. The global config
  (~/.config/fnox/config.toml) is not the project's and is not read.
- What a secret is (docs/reference/configuration.md): each key of `[secrets]` (and of
  `[profiles.NAME.secrets]`) names one, as `NAME = { provider = "...", value = "...", default =
  "...", ... }`. A top-level `imports` (or `import`) list names more config files, relative to the
  one that lists them.
- What is not a secret (docs/providers/plain.md, "Plaintext defaults"): a value with only a
  `default` and neither `provider` nor `value` is a plain setting (LOG_LEVEL, PORT), and so is one
  whose provider is a `plain` provider without `file`. A bare string is taken the same way.
- Secret files (docs/providers/plain.md, "Reading from a plaintext file"): a provider with
  `type = "plain"` and a `file` looks each secret's value up in that file (with `format` env,
  shell, json, yaml or toml). A relative `file` is relative to the config file that declares the
  provider, and `~` is the home directory. Every secret such a provider resolves is a secret too.
- FNOX_AGE_KEY holds the age identity that decrypts a project's secrets (docs/providers/age.md),
  so it counts as a secret name in every fnox project.

Reading stops at MAX_FILES config files of at most MAX_BYTES each; a file that is not valid TOML
is skipped (fnox itself would refuse it; the project still counts as a fnox project).

Imported only when a rule's `fnox`, `secret_vars`, `secret_args` or `secret_files` key is asked
about, after everything else in its matcher held: a hook pays for it only then. tomli is imported
only when a config file exists.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAIN_NAMES = ("fnox.toml", ".fnox.toml", os.path.join(".config", "fnox.toml"))
MAX_FILES = 32
MAX_BYTES = 1024 * 1024
# fnox's own key: the age identity that decrypts a project's secrets.
ALWAYS_SECRET = ("FNOX_AGE_KEY",)

_cache: dict[str, Config | None] = {}


class Config:
    """What a fnox project's config files say, for jouet's rules."""

    __slots__ = ("files", "root", "secret_files", "secrets")

    def __init__(self, root: str, files: list[str], secrets: set[str], secret_files: set[str]) -> None:
        # The directory holding the nearest config file, and every config file read.
        self.root = root
        self.files = files
        self.secrets: frozenset[str] = frozenset(secrets)
        # Absolute, normalised paths of the files plain providers read secrets from.
        self.secret_files: frozenset[str] = frozenset(secret_files)

    def has_file(self, path: str, cwd: str) -> bool:
        """Whether PATH (from CWD when relative, `~` for home) is a file a plain provider reads."""
        if not self.secret_files:
            return False
        full = os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))
        if full in self.secret_files:
            return True
        real = os.path.realpath(full)
        return real in self.secret_files or any(os.path.realpath(f) == real for f in self.secret_files)

    def to_json(self) -> dict[str, Any]:
        return {"root": self.root, "files": list(self.files), "secrets": sorted(self.secrets),
                "secret_files": sorted(self.secret_files)}


def main_config(directory: str) -> str | None:
    """The fnox config file of DIRECTORY itself (fnox.toml, .fnox.toml, .config/fnox.toml), or None."""
    for name in MAIN_NAMES:
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            return path
    return None


def find(cwd: str) -> Config | None:
    """The fnox config of the project around CWD (walking up), or None when no directory from CWD up
    has a fnox config."""
    start = os.path.abspath(cwd)
    if start in _cache:
        return _cache[start]
    found: list[tuple[str, str]] = []  # (directory, main config), nearest first
    directory = start
    while True:
        main = main_config(directory)
        if main is not None:
            found.append((directory, main))
            if _says_root(main):
                break
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    config = _read(found) if found else None
    _cache[start] = config
    return config


def _says_root(path: str) -> bool:
    """Whether the config at PATH sets `root = true` (read cheaply, without parsing the file)."""
    import re

    text = _text(path)
    return text is not None and re.search(r"(?m)^\s*root\s*=\s*true\b", text) is not None


def _text(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_BYTES:
        return None
    return data.decode("utf-8", "replace")


def _siblings(directory: str) -> list[str]:
    """The local and profile files beside a directory's config: fnox.local.toml, fnox.<profile>.toml,
    in the plain, hidden and .config/ forms."""
    out: list[str] = []
    for base, prefixes in ((directory, ("fnox.", ".fnox.")), (os.path.join(directory, ".config"), ("fnox.",))):
        try:
            names = sorted(os.listdir(base))
        except OSError:
            continue
        for name in names:
            if name.endswith(".toml") and any(name.startswith(p) for p in prefixes) and name.count(".") >= 2 \
                    and name not in ("fnox.toml", ".fnox.toml"):
                out.append(os.path.join(base, name))
    return out


def _read(found: list[tuple[str, str]]) -> Config:
    files: list[str] = []
    for directory, main in reversed(found):  # outermost first, as fnox merges them
        for path in [main, *_siblings(directory)]:
            if path not in files:
                files.append(path)
    secrets: set[str] = set(ALWAYS_SECRET)
    secret_files: set[str] = set()
    read: list[str] = []
    queue = list(files)
    while queue and len(read) < MAX_FILES:
        path = queue.pop(0)
        if path in read:
            continue
        read.append(path)
        doc = _load(path)
        if doc is None:
            continue
        for imported in _imports(doc, path):
            if imported not in read and imported not in queue:
                queue.append(imported)
        _collect(doc, path, secrets, secret_files)
    return Config(found[0][0], read, secrets, secret_files)


def _load(path: str) -> dict[str, Any] | None:
    text = _text(path)
    if text is None:
        return None
    import tomli

    try:
        doc = tomli.loads(text)
    except tomli.TOMLDecodeError:
        return None
    return doc if isinstance(doc, dict) else None


def _imports(doc: dict[str, Any], path: str) -> list[str]:
    out = []
    for key in ("imports", "import"):
        value = doc.get(key)
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list):
            for item in value:
                if isinstance(item, str) and item:
                    full = _resolve(item, path)
                    if os.path.isfile(full):
                        out.append(full)
    return out


def _resolve(file: str, config: str) -> str:
    """FILE as fnox reads it: `~` is home; relative to the directory of the config that names it."""
    return os.path.normpath(os.path.join(os.path.dirname(config), os.path.expanduser(file)))


def _collect(doc: dict[str, Any], path: str, secrets: set[str], secret_files: set[str]) -> None:
    """Add what one config file defines: its own tables and each profile's."""
    top_providers = _table(doc, "providers")
    default = doc.get("default_provider") if isinstance(doc.get("default_provider"), str) else None
    scopes = [(top_providers, _table(doc, "secrets"), default)]
    for profile in _table(doc, "profiles").values():
        if isinstance(profile, dict):
            providers = {**top_providers, **_table(profile, "providers")}
            own = profile.get("default_provider")
            scopes.append((providers, _table(profile, "secrets"), own if isinstance(own, str) else default))
    for providers, table, default_provider in scopes:
        for provider in providers.values():
            file = provider.get("file") if isinstance(provider, dict) and provider.get("type") == "plain" else None
            if isinstance(file, str) and file:
                secret_files.add(_resolve(file, path))
        for name, entry in table.items():
            if isinstance(name, str) and _is_secret(entry, providers, default_provider):
                secrets.add(name)


def _table(doc: dict[str, Any], key: str) -> dict[str, Any]:
    value = doc.get(key)
    return value if isinstance(value, dict) else {}


def _is_secret(entry: Any, providers: dict[str, Any], default_provider: str | None) -> bool:
    """Whether a [secrets] entry holds a secret rather than a plain setting."""
    if not isinstance(entry, dict):
        return False  # a bare value: plain text in the config itself
    provider_name = entry.get("provider") if isinstance(entry.get("provider"), str) else None
    if provider_name is None and "value" not in entry:
        # Only a default (a plain setting), or nothing: then the value comes from the environment,
        # where a project keeps what it does not write down.
        return "default" not in entry
    provider = providers.get(provider_name or default_provider or "")
    return not (isinstance(provider, dict) and provider.get("type") == "plain" and not provider.get("file"))


def clear_cache() -> None:
    """Forget what was read (tests, and long-lived callers after a config changes)."""
    _cache.clear()
