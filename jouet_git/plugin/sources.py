"""Plugins as rule sources: each runs only while its copy hashes to its pin.

Three kinds, in the order a rule set loads them:

- the system's plugins, $JOUET_SYSTEM_DIR/plugins/NAME/: enforced, they run always, unless the
  system directory, its plugins/ or anything in the plugin's folder can be written by group or others;
- yours, pinned in config.toml and kept in the data directory;
- a trusted repository's, pinned in its .jouet/plugins.toml and fetched by `jouet trust`.

A plugin's rules are named PLUGIN/RULE. A plugin whose copy is missing or does not hash to its pin is
labelled plugin:NAME:mismatch and nothing of it runs; its rules are still listed, with why.
"""

from __future__ import annotations

import os

from jouet_git import paths
from jouet_git.engine.model import ENFORCED, PLUGIN
from jouet_git.engine.sources import Source, writable_by_others
from jouet_git.plugin import pins as pinmod
from jouet_git.plugin import store
from jouet_git.plugin.manifest import RULES, PluginError, jouet_too_old, merged_settings, read_manifest
from jouet_git.trust.content import scan


def tree(folder: str) -> list[str]:
    """FOLDER and everything below it: what a cached rule set must re-check."""
    out = [folder]
    for base, dirs, files in os.walk(folder):
        out.extend(os.path.join(base, d) for d in dirs)
        out.extend(os.path.join(base, f) for f in files)
    return out


def _short(digest: str) -> str:
    return digest[:12]


def _problem(kind: str, where: str, problem: str) -> Source:
    """A source with no rules that only carries a problem for `jouet rule list` to show."""
    return Source(kind, "plugin", where, runs=False, detail=problem, deps=[where], problem=problem)


def _how_to_fetch(pin: pinmod.Pin) -> str:
    if pin.origin == pinmod.REPO:
        return "run `jouet trust` in the repository to fetch it"
    return f"run `jouet plugin update {pin.name}` to fetch it again"


def pinned(pin: pinmod.Pin, folder: str) -> Source:
    """The source for a pinned plugin whose copy should be in FOLDER."""
    rules_dir = os.path.join(folder, RULES)
    deps = [os.path.dirname(folder), *tree(folder)]
    prefix = f"{pin.name}/"
    mismatch = f"plugin:{pin.name}:mismatch"
    if not os.path.isdir(folder) or os.path.islink(folder):
        why = f"plugin {pin.name} (pinned in {pin.where}) has no copy in {folder}: {_how_to_fetch(pin)}"
        return Source(PLUGIN, mismatch, rules_dir, runs=False, detail=why, prefix=prefix, deps=deps, problem=why)
    content = scan(folder)
    if content.refused:
        why = f"jouet refuses plugin {pin.name}: {content.refused[0]}"
        return Source(PLUGIN, mismatch, rules_dir, runs=False, detail=why, prefix=prefix, deps=deps)
    if content.digest != pin.sha256:
        if pin.origin == pinmod.REPO:
            fix = ("the source no longer holds what the repository pinned; it does not run until the pin and the "
                   "source agree")
        else:
            fix = f"it does not run; `jouet plugin update {pin.name}` shows what differs and offers to re-pin"
        why = (f"plugin {pin.name}'s content hashes to sha256 {_short(content.digest)}…, not the "
               f"{_short(pin.sha256)}… pinned in {pin.where}: {fix}")
        return Source(PLUGIN, mismatch, rules_dir, runs=False, detail=why, prefix=prefix, deps=deps)
    label = f"plugin:{pin.name}"
    try:
        manifest = read_manifest(folder)
    except PluginError as error:
        return Source(PLUGIN, label, rules_dir, runs=False, detail=error.message, prefix=prefix, deps=deps)
    why = ""
    if manifest.name != pin.name:
        why = f"{manifest.file} names the plugin `{manifest.name}`, but it is pinned as `{pin.name}` in {pin.where}"
    else:
        too_old = jouet_too_old(manifest.min_jouet)
        why = f"plugin {pin.name} does not run: {too_old}" if too_old else ""
    if why:
        return Source(PLUGIN, label, rules_dir, runs=False, detail=why, prefix=prefix, deps=deps)
    settings, problems = merged_settings(manifest.settings, pin.settings, f"{pin.where}: plugins.{pin.name}.settings")
    return Source(PLUGIN, label, rules_dir, prefix=prefix, settings=settings, default_settings=manifest.settings,
                  deps=deps, problem="; ".join(problems))


def user() -> list[Source]:
    """Your pinned plugins, in the order config.toml lists them."""
    pins, problems = pinmod.user_pins()
    out = [_problem(PLUGIN, paths.config_file(), p) for p in problems]
    out.extend(pinned(pin, store.user_copy(pin.name)) for pin in pins)
    return out


def repository(root: str, key: str | None) -> list[Source]:
    """The plugins a trusted repository declares. One you pinned with the same content is not loaded twice."""
    pins, problems = pinmod.repo_pins(root)
    where = pinmod.repo_plugins_file(root)
    out = [_problem(PLUGIN, where, p) for p in problems]
    if key is None:
        return out
    mine = {(p.name, p.sha256) for p in pinmod.user_pins()[0]}
    out.extend(pinned(pin, store.repo_copy(key, pin.name)) for pin in pins if (pin.name, pin.sha256) not in mine)
    return out


def system(system_dir: str | None = None) -> list[Source]:
    """The system's plugins: enforced, named NAME/RULE, and off while anyone but root's owner can write them.
    SYSTEM_DIR is the system directory they are in (paths.system_dir() when None)."""
    system_dir = system_dir or paths.system_dir()
    base = os.path.join(system_dir, "plugins")
    try:
        names = sorted(n for n in os.listdir(base) if not n.startswith("."))
    except OSError:
        return []
    out: list[Source] = []
    for name in names:
        folder = os.path.join(base, name)
        if not os.path.isdir(folder):
            continue
        files = tree(folder)
        rules_dir = os.path.join(folder, RULES)
        prefix = f"{name}/"
        problem = writable_by_others(system_dir) or writable_by_others(base)
        for path in files:
            problem = problem or writable_by_others(path)
        if problem:
            out.append(Source(ENFORCED, "enforced:writable", rules_dir, runs=False, detail=problem, prefix=prefix,
                              deps=[base, *files]))
            continue
        try:
            manifest = read_manifest(folder)
        except PluginError as error:
            out.append(Source(ENFORCED, ENFORCED, rules_dir, runs=False, detail=error.message, prefix=prefix,
                              deps=[base, *files]))
            continue
        why = ""
        if manifest.name != name:
            why = f"{manifest.file} names the plugin `{manifest.name}`, but its folder is {folder}: rename one"
        elif jouet_too_old(manifest.min_jouet):
            why = f"plugin {name} does not run: {jouet_too_old(manifest.min_jouet)}"
        out.append(Source(ENFORCED, ENFORCED, rules_dir, runs=not why, detail=why, prefix=prefix,
                          settings=manifest.settings, default_settings=manifest.settings, deps=[base, *files]))
    return out
