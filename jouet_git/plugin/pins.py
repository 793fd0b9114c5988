"""Plugin pins: which plugins run, fetched from where, and the sha256 their content must hash to.

Yours live in ~/.config/jouet/config.toml, written by `jouet plugin add` and `update` (comments and
layout kept); a repository declares its own in .jouet/plugins.toml, which `jouet trust` covers:

    [plugins.protected-branches]
    source = "builtin:protected-branches"   # a directory, a git URL, or one of jouet's own plugins
    rev = "3f1c9e..."                       # git sources: the commit (or tag) to fetch
    ref = "v1"                              # config.toml only: what `jouet plugin update` follows
    sha256 = "9b2d..."                      # the plugin's content, as `jouet plugin list` shows it

    [plugins.protected-branches.settings]   # optional: overrides the plugin's [settings] defaults
    branches = ["main", "release/*"]
"""

from __future__ import annotations

import os
import re
from typing import Any

import tomli

from jouet_git import paths, store
from jouet_git.errors import JouetError
from jouet_git.plugin.manifest import name_problem

_SHA256 = re.compile(r"[0-9a-f]{64}")
CONFIG = "config"
REPO = "repo"


class Pin:
    """One pinned plugin: its name, where it comes from, and what its content must hash to."""

    __slots__ = ("name", "origin", "ref", "rev", "settings", "sha256", "source", "where")

    def __init__(self, name: str, source: str, sha256: str, rev: str | None = None, ref: str | None = None,
                 settings: dict[str, Any] | None = None, origin: str = CONFIG, where: str = "") -> None:
        self.name = name
        self.source = source
        self.sha256 = sha256
        self.rev = rev
        self.ref = ref
        self.settings = settings
        self.origin = origin
        # The file that pins it, for messages.
        self.where = where

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "rev": self.rev, "ref": self.ref,
                "sha256": self.sha256, "settings": self.settings, "pinned_in": self.where}


def repo_plugins_file(root: str) -> str:
    return os.path.join(root, ".jouet", "plugins.toml")


def _read(file: str) -> tuple[dict[str, Any] | None, str]:
    try:
        with open(file, "rb") as f:
            return tomli.load(f), ""
    except FileNotFoundError:
        return None, ""
    except (OSError, UnicodeDecodeError, tomli.TOMLDecodeError) as error:
        return None, f"{file}: {error}; its plugins do not run until it is fixed"


def parse_pins(table: Any, where: str, origin: str) -> tuple[list[Pin], list[str]]:
    """The pins in a `plugins` table, and the problems of entries that cannot be used."""
    if table is None:
        return [], []
    if not isinstance(table, dict):
        return [], [f"{where}: `plugins` must be a table of [plugins.NAME] entries"]
    pins: list[Pin] = []
    problems: list[str] = []
    for name, entry in table.items():
        at = f"{where}: plugins.{name}"
        problem = name_problem(name)
        if problem:
            problems.append(f"{at}: {problem}")
            continue
        if not isinstance(entry, dict):
            problems.append(f"{at} must be a table with `source` and `sha256`")
            continue
        unknown = [k for k in entry if k not in ("source", "rev", "ref", "sha256", "settings")]
        source = entry.get("source")
        sha = entry.get("sha256")
        rev = entry.get("rev")
        ref = entry.get("ref")
        if unknown:
            problems.append(f"{at}: unknown field `{unknown[0]}`, expected `source`, `rev`, `ref`, `sha256` or "
                            "`settings`; the plugin does not run")
        elif not isinstance(source, str) or not source.strip() or source.startswith("-"):
            problems.append(f"{at}: `source` must name a directory, a git URL or builtin:NAME; the plugin "
                            "does not run")
        elif not isinstance(sha, str) or not _SHA256.fullmatch(sha):
            problems.append(f"{at}: `sha256` must be the 64 hex digits `jouet plugin list` shows for the plugin; "
                            "the plugin does not run")
        elif any(v is not None and (not isinstance(v, str) or not v or v.startswith("-")) for v in (rev, ref)):
            problems.append(f"{at}: `rev` and `ref` must name a commit, tag or branch; the plugin does not run")
        else:
            settings = entry.get("settings")
            pins.append(Pin(name, source, sha, rev, ref, settings if settings is not None else None, origin,
                            where))
    return pins, problems


def user_pins() -> tuple[list[Pin], list[str]]:
    """Your pinned plugins (config.toml), and problems with entries that cannot be used."""
    file = paths.config_file()
    doc, problem = _read(file)
    if doc is None:
        return [], [problem] if problem else []
    return parse_pins(doc.get("plugins"), file, CONFIG)


def repo_pins(root: str) -> tuple[list[Pin], list[str]]:
    """The plugins a repository declares in .jouet/plugins.toml, and problems with its entries."""
    file = repo_plugins_file(root)
    doc, problem = _read(file)
    if doc is None:
        return [], [problem] if problem else []
    unknown = [k for k in doc if k != "plugins"]
    if unknown:
        return [], [f"{file}: unknown table `{unknown[0]}`: it holds [plugins.NAME] entries; its plugins do not "
                    "run until it is fixed"]
    return parse_pins(doc.get("plugins"), file, REPO)


def find_user_pin(name: str) -> Pin | None:
    pins, _ = user_pins()
    return next((p for p in pins if p.name == name), None)


def _edit_config(change: Any) -> None:
    """Edit config.toml in place with tomlkit (comments and layout kept), under its lock.

    config.toml is a person's file, not a store: a syntax error stops the edit and says where.
    """
    import tomlkit
    from tomlkit.exceptions import ParseError

    file = paths.config_file()
    try:
        with store.locked(file):
            try:
                with open(file, encoding="utf-8") as f:
                    text = f.read()
            except FileNotFoundError:
                text = ""
            except (OSError, UnicodeDecodeError) as error:
                raise JouetError(f"{file}: cannot be read ({error}); fix it, then run this again") from None
            try:
                doc = tomlkit.parse(text)
            except ParseError as error:
                raise JouetError(f"{file}: {error}; fix it, then run this again") from None
            change(doc)
            mode = os.stat(file).st_mode & 0o777 if os.path.exists(file) else 0o644
            store.write_atomic(file, tomlkit.dumps(doc), mode)
    except store.Busy as error:
        raise JouetError(str(error)) from None


def save_user_pin(pin: Pin, note: str = "") -> None:
    """Write PIN to config.toml: a new [plugins.NAME] table, or the existing one updated in place."""
    import tomlkit

    def change(doc: Any) -> None:
        plugins = doc.get("plugins")
        if plugins is None:
            plugins = tomlkit.table(is_super_table=True)
            doc["plugins"] = plugins
        if not isinstance(plugins, dict):
            raise JouetError(f"{paths.config_file()}: `plugins` must be a table of [plugins.NAME] entries; fix it, "
                             "then run this again")
        entry = plugins.get(pin.name)
        if entry is not None and not isinstance(entry, dict):
            raise JouetError(f"{paths.config_file()}: plugins.{pin.name} must be a table; fix it, then run this again")
        if entry is None:
            entry = tomlkit.table()
            if note:
                entry.add(tomlkit.comment(note))
            plugins[pin.name] = entry
        entry["source"] = pin.source
        for key, value in (("rev", pin.rev), ("ref", pin.ref)):
            if value is None:
                if key in entry:
                    del entry[key]
            else:
                entry[key] = value
        entry["sha256"] = pin.sha256

    _edit_config(change)


def drop_user_pin(name: str) -> None:
    """Remove [plugins.NAME] (and its settings) from config.toml."""

    def change(doc: Any) -> None:
        plugins = doc.get("plugins")
        if isinstance(plugins, dict) and name in plugins:
            del plugins[name]

    _edit_config(change)
