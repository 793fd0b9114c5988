"""jouet's own rules and the Lua translations of every script it ships, pre-built with the package.

A wheel carries `jouet_git/prebuilt.marshal`, made when the wheel is built (hatch_build.py) by the
same code that loads rule files. Hooks read it instead of parsing TOML, and built-in rules never come
from the cache directory, which any process of the user can write: a rewritten cache cannot remove
a built-in rule, and a rewritten translation cannot change what a built-in script does.

In a source checkout (an editable install, the tests) rules/ lies beside the package rather than in
it. There the file is made beside the sources on first use and checked against them (each rule
file's content hash, and the list of files) every time it is read; when they differ it is made
again, so an edited built-in rule takes effect at once. A package whose file is missing or damaged
builds its rules from rules/ in every process (slower, never wrong).

    segment()          the built-in rules (engine/ruleset.py: Segment)
    translation(key)   the Lua translation of a shipped script, by the hash of its Luau source
    generate(...)      the file's content, from rules/ and plugins/
"""

from __future__ import annotations

import marshal
import os

from jouet_git import __version__, paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.engine.model import Rule
    from jouet_git.engine.ruleset import Segment

FILE = "prebuilt.marshal"
FORMAT = 3

_data: dict[str, Any] | None = None
_segment: Segment | None = None


def path() -> str:
    return os.path.join(paths.package_dir(), FILE)


def in_source_checkout() -> bool:
    """Whether rules/ lies beside the package (a source checkout) rather than in it (a wheel)."""
    return not os.path.isdir(os.path.join(paths.package_dir(), "rules"))


def source_hash(raw: bytes) -> str:
    """What a shipped file is known by: the hash of its bytes."""
    from jouet_git.engine.ruleset import _hash

    return _hash(raw)


def data() -> dict[str, Any]:
    """The pre-built data, read once per process (made again first in a source checkout when stale)."""
    global _data
    if _data is None:
        _data = _load()
    return _data


def segment() -> Segment:
    """The built-in rules, in load order."""
    global _segment
    if _segment is None:
        from jouet_git.engine.ruleset import Segment

        seg = dict(data()["segment"])
        seg["base"] = paths.builtin_rules_dir()
        _segment = Segment(seg, trusted=True)
    return _segment


def needles() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """The needles of the built-in rules' `text` patterns, by pattern: exact, and folded
    (engine/needles.py: rule_needles)."""
    found = data()["needles"]
    return found["exact"], found["folded"]


def translation(key: str) -> str | None:
    """The Lua translation of a script jouet ships, by source_hash() of its Luau source; None for
    any other script."""
    found = data()["lua"].get(key)
    return found if isinstance(found, str) else None


def _load() -> dict[str, Any]:
    rules_dir = paths.builtin_rules_dir()
    source_checkout = in_source_checkout()
    try:
        with open(path(), "rb") as f:
            loaded = marshal.loads(f.read())
        if _usable(loaded) and (not source_checkout or _fresh(loaded, rules_dir)):
            return dict(loaded)
    except Exception:  # missing or damaged: build it from the sources below
        pass
    made = generate(rules_dir, paths.builtin_plugins_dir())
    if source_checkout:
        import contextlib

        from jouet_git.store import write_atomic

        with contextlib.suppress(OSError, ValueError):
            write_atomic(path(), marshal.dumps(made, 4), sync=False)
    return made


def _usable(loaded: Any) -> bool:
    return (isinstance(loaded, dict) and loaded.get("format") == FORMAT and loaded.get("version") == __version__
            and isinstance(loaded.get("segment"), dict) and isinstance(loaded.get("lua"), dict)
            and isinstance(loaded.get("sources"), dict) and isinstance(loaded.get("names"), list)
            and isinstance(loaded.get("needles"), dict) and isinstance(loaded["needles"].get("exact"), dict)
            and isinstance(loaded["needles"].get("folded"), dict))


def _fresh(loaded: dict[str, Any], rules_dir: str) -> bool:
    """Whether the rule files in RULES_DIR are exactly those LOADED was built from."""
    try:
        names = sorted(os.listdir(rules_dir))
    except OSError:
        return False
    if names != loaded["names"]:
        return False
    for name, digest in loaded["sources"].items():
        try:
            with open(os.path.join(rules_dir, name), "rb") as f:
                if source_hash(f.read()) != digest:
                    return False
        except OSError:
            return False
    return True


def generate(rules_dir: str, plugins_dir: str) -> dict[str, Any]:
    """The pre-built data for the rules in RULES_DIR and the scripts below it and PLUGINS_DIR."""
    from jouet_git.commands_index import has_command
    from jouet_git.engine.load import load_file
    from jouet_git.engine.model import BROKEN, BUILTIN, NEEDS
    from jouet_git.engine.needles import rule_needles
    from jouet_git.engine.ruleset import pack
    from jouet_git.engine.sources import rule_files

    rules: list[Rule] = []
    taken: dict[str, Rule] = {}
    sources: dict[str, str] = {}
    for file in rule_files(rules_dir):
        with open(file, "rb") as f:
            sources[os.path.basename(file)] = source_hash(f.read())
        for rule in load_file(file, BUILTIN, BUILTIN):
            holder = taken.get(rule.name)
            if rule.state != BROKEN and holder is not None:
                rule.state = BROKEN
                rule.error = f"{rule.file}:{rule.line}: the name `{rule.name}` is taken by the rule in {holder.file}"
            elif rule.state != BROKEN:
                taken[rule.name] = rule
                if rule.needs and not has_command(*rule.needs):
                    rule.state = NEEDS
                    rule.state_detail = "jouet " + " ".join(rule.needs)
            rules.append(rule)
    try:
        names = sorted(os.listdir(rules_dir))
    except OSError:
        names = []
    return {"format": FORMAT, "version": __version__, "names": names, "sources": sources,
            "segment": pack(rules, rules_dir), "lua": _translations([rules_dir, plugins_dir]),
            "needles": rule_needles(rules)}


def _translations(directories: list[str]) -> dict[str, str]:
    """The Lua translation of every Luau script below DIRECTORIES, by source_hash() of its source."""
    return {source_hash(raw): lua for _name, raw, lua in translated_scripts(directories)}


def translated_scripts(directories: list[str]) -> list[tuple[str, bytes, str]]:
    """(file name, Luau source, Lua translation) of every Luau script below DIRECTORIES, in a stable
    order; a script that does not translate is left out (it fails when it runs, as it would anyway)."""
    from jouet_git.luau.translate import LuauSyntaxError, translate

    out: list[tuple[str, bytes, str]] = []
    for directory in directories:
        for base, dirs, files in os.walk(directory):
            dirs.sort()
            for name in sorted(files):
                if not name.endswith(".luau"):
                    continue
                with open(os.path.join(base, name), "rb") as f:
                    raw = f.read()
                try:
                    out.append((name, raw, translate(raw.decode("utf-8"), name)))
                except (LuauSyntaxError, UnicodeDecodeError):
                    continue
    return out
