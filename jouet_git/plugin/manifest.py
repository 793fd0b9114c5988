"""plugin.toml: what a plugin folder says about itself.

    name = "protected-branches"          required; the name its rules carry (protected-branches/RULE)
    description = "..."                  required; one line, shown by `jouet plugin list`
    min_jouet = "0.1"                    optional; the oldest jouet its rules work with

    [settings]                           optional; defaults a user or repository may override
    branches = ["main", "release/*"]

Next to it, `rules/` holds the plugin's rule files and their scripts, as in any rules directory.
"""

from __future__ import annotations

import datetime
import os
import re
from typing import Any

import tomli

from jouet_git import __version__
from jouet_git.engine import keys

MANIFEST = "plugin.toml"
RULES = "rules"
KEYS = ("name", "description", "min_jouet", "settings")
_NAME_RE = re.compile(keys.NAME_PATTERN)


class PluginError(Exception):
    """A plugin that cannot be used, with what is wrong, where, and what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Manifest:
    """A plugin's plugin.toml, validated."""

    __slots__ = ("description", "file", "min_jouet", "name", "settings")

    def __init__(self, name: str, description: str, min_jouet: str, settings: dict[str, Any], file: str) -> None:
        self.name = name
        self.description = description
        self.min_jouet = min_jouet
        self.settings = settings
        self.file = file


def valid_name(name: str) -> bool:
    return bool(_NAME_RE.fullmatch(name)) and len(name) <= keys.NAME_MAX


def name_problem(name: str) -> str:
    """Why NAME cannot name a plugin, or ""."""
    if valid_name(name):
        return ""
    return (f"{name!r} is not a plugin name: use lowercase words joined by dashes, starting with a letter, "
            f"up to {keys.NAME_MAX} characters (such as `protected-branches`)")


def _line(text: str, key: str) -> int:
    pattern = re.compile(r"^\s*(\[\s*)?" + re.escape(key) + r"\s*(=|\])")
    for number, line in enumerate(text.splitlines(), 1):
        if pattern.match(line):
            return number
    return 1


def read_manifest(folder: str) -> Manifest:
    """The manifest of the plugin in FOLDER. Raises PluginError saying what is wrong and where."""
    file = os.path.join(folder, MANIFEST)
    try:
        with open(file, "rb") as f:
            text = f.read().decode("utf-8")
    except FileNotFoundError:
        raise PluginError(f"{file}: not found; a plugin is a folder with plugin.toml (name, description) "
                          "and a rules/ directory") from None
    except (OSError, UnicodeDecodeError) as error:
        raise PluginError(f"{file}: cannot read it: {error}") from None
    try:
        doc = tomli.loads(text)
    except tomli.TOMLDecodeError as error:
        raise PluginError(f"{file}: not valid TOML: {error}") from None
    for key in doc:
        if key not in KEYS:
            raise PluginError(f"{file}:{_line(text, key)}: unknown field `{key}`, expected one of "
                              + ", ".join(f"`{k}`" for k in KEYS))
    name = doc.get("name")
    if not isinstance(name, str):
        raise PluginError(f"{file}:1: missing field `name`: the plugin's name, such as \"protected-branches\"")
    problem = name_problem(name)
    if problem:
        raise PluginError(f"{file}:{_line(text, 'name')}: {problem}")
    description = doc.get("description")
    if not isinstance(description, str) or not description.strip():
        raise PluginError(f"{file}:{_line(text, 'description')}: `description` must say in one line what the "
                          "plugin's rules are for")
    min_jouet = doc.get("min_jouet", "")
    if not isinstance(min_jouet, str) or (min_jouet and version_key(min_jouet) is None):
        raise PluginError(f"{file}:{_line(text, 'min_jouet')}: `min_jouet` must be a version such as \"0.1\"")
    settings = doc.get("settings", {})
    if not isinstance(settings, dict):
        raise PluginError(f"{file}:{_line(text, 'settings')}: `settings` must be a table of defaults")
    return Manifest(name, description.strip(), min_jouet, plain(settings), file)


def plain(value: Any) -> Any:
    """VALUE with TOML dates turned into ISO strings, so it can be cached and handed to a script."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return value


def version_key(text: str) -> tuple[int, ...] | None:
    """The release numbers of a version ("0.1.0.dev0" -> (0, 1, 0)), or None when it has none."""
    m = re.match(r"^v?(\d+(?:\.\d+)*)", text.strip())
    if not m:
        return None
    numbers = [int(n) for n in m.group(1).split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def jouet_too_old(min_jouet: str) -> str:
    """Why this jouet cannot run a plugin that needs MIN_JOUET, or ""."""
    if not min_jouet:
        return ""
    wanted = version_key(min_jouet)
    have = version_key(__version__)
    if wanted is None or have is None or have >= wanted:
        return ""
    return f"it needs jouet {min_jouet} or newer, and this is jouet {__version__}: upgrade jouet"


def merged_settings(defaults: dict[str, Any], overrides: Any, where: str) -> tuple[dict[str, Any], list[str]]:
    """DEFAULTS with OVERRIDES applied, and the overrides that were ignored (with why)."""
    out = dict(defaults)
    problems: list[str] = []
    if overrides is None:
        return out, problems
    if not isinstance(overrides, dict):
        return out, [f"{where} must be a table of settings; the plugin's defaults apply"]
    for key, value in overrides.items():
        if key not in defaults:
            known = ", ".join(f"`{k}`" for k in defaults) or "none"
            problems.append(f"{where}.{key} is not one of the plugin's settings ({known}); it is ignored")
            continue
        if type(plain(value)) is not type(defaults[key]):
            problems.append(f"{where}.{key} must be a {type(defaults[key]).__name__} like the plugin's default; "
                            "it is ignored")
            continue
        out[key] = plain(value)
    return out, problems
