"""Where rules come from: built in, enforced (the system directory), yours, plugins, repositories.

Each source is a directory of `*.toml` rule files with a label that `jouet rule list` shows in its
scope column, and a verdict on whether it runs. Plugins come from jouet_git/plugin/sources.py; a
repository's rules run only while jouet_git/trust/state.py finds its `.jouet/` content trusted.
`extra_sources` lets a caller add sources of its own after yours.
"""

from __future__ import annotations

import os
import stat
from typing import Any

from jouet_git import paths
from jouet_git.engine.model import BUILTIN, ENFORCED, REPO, USER


class Source:
    """A directory of rule files and whether its rules run."""

    __slots__ = ("default_settings", "deps", "detail", "directory", "files", "kind", "label", "legacy_files",
                 "prefix", "problem", "runs", "settings")

    def __init__(self, kind: str, label: str, directory: str, runs: bool = True, detail: str = "",
                 prefix: str = "", *, settings: dict[str, Any] | None = None,
                 default_settings: dict[str, Any] | None = None, deps: list[str] | None = None,
                 problem: str = "") -> None:
        self.kind = kind
        self.label = label
        self.directory = directory
        self.runs = runs
        # Why the source does not run, for `jouet rule list`.
        self.detail = detail
        # Plugin rules are named PLUGIN/NAME.
        self.prefix = prefix
        self.files = rule_files(directory)
        # Old-style whole-file Luau rules (deprecated, engine/legacy.py).
        from jouet_git.engine.legacy import rule_files as legacy_rule_files

        self.legacy_files = legacy_rule_files(directory)
        # A plugin's settings, given to each of its rules as data["settings"]; its rules' examples run
        # with the plugin's own defaults.
        self.settings = settings
        self.default_settings = default_settings
        # More paths a cached rule set must re-check (trust records, plugin folders, pin files).
        self.deps = deps or []
        # Something `jouet rule list` should report about the source as a whole.
        self.problem = problem

    def __repr__(self) -> str:
        return f"Source({self.label}, {self.directory}, runs={self.runs})"


def rule_files(directory: str) -> list[str]:
    """The rule files directly in DIRECTORY, sorted by name."""
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    return [os.path.join(directory, n) for n in names if n.endswith(".toml") and not n.startswith(".")]


def writable_by_others(path: str) -> str | None:
    """Why PATH (or a directory above it, up to the system directory) is not safe to trust, or None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        who = "group" if st.st_mode & stat.S_IWGRP else "others"
        return f"{path} is writable by its {who}: run `chmod go-w {path}`"
    return None


def builtin() -> Source:
    return Source(BUILTIN, BUILTIN, paths.builtin_rules_dir())


def enforced() -> Source:
    directory = paths.system_rules_dir()
    problem = writable_by_others(paths.system_dir()) or writable_by_others(directory)
    if problem is None:
        for file in rule_files(directory):
            problem = writable_by_others(file)
            if problem:
                break
    if problem:
        return Source(ENFORCED, "enforced:writable", directory, runs=False, detail=problem)
    return Source(ENFORCED, ENFORCED, directory)


def user() -> Source:
    return Source(USER, USER, paths.user_rules_dir())


def repo_rules_dir(root: str) -> str:
    return os.path.join(root, ".jouet", "rules")


def repository(root: str | None, assume_trusted: bool = False) -> Source | None:
    """A repository's own rules: they run only while its `.jouet/` matches what `jouet trust` recorded.

    ASSUME_TRUSTED builds the rules as if trusted, for `jouet trust` to show what trusting would run
    (never for content it refuses, such as a symbolic link out of `.jouet/`).
    """
    if root is None:
        return None
    from jouet_git.trust.state import jouet_dir, repo_state
    from jouet_git.trust.store import store_path

    state = repo_state(root)
    if state is None:
        return None
    base = jouet_dir(root)
    deps = [store_path(), base, *_below(base)]
    directory = repo_rules_dir(root)
    if assume_trusted and not state.content.refused:
        source = Source(REPO, "repo:trusted", directory, deps=deps)
    else:
        source = Source(REPO, state.label, directory, runs=state.runs, detail=state.detail(), deps=deps)
    # Never read a rule file through a link that leaves .jouet/ (or through .jouet/ being a link),
    # not even to list it.
    real_base = os.path.join(os.path.realpath(root), ".jouet")
    source.files = [f for f in source.files if os.path.realpath(f).startswith(real_base + os.sep)]
    source.legacy_files = [f for f in source.legacy_files if os.path.realpath(f).startswith(real_base + os.sep)]
    return source


def _below(directory: str) -> list[str]:
    out: list[str] = []
    for base, dirs, files in os.walk(directory):
        out.extend(os.path.join(base, d) for d in dirs)
        out.extend(os.path.join(base, f) for f in files)
    return out


def all_sources(root: str | None, extra: list[Source] | None = None, trusted_repo: bool = False) -> list[Source]:
    """Every source in load order: built in, enforced (rules, then the system's plugins), yours, extra,
    your plugins, and this repository's plugins and rules (its plugins only while it is trusted)."""
    from jouet_git.plugin import sources as plugins

    out = [builtin(), enforced(), *plugins.system(), user()]
    out.extend(extra or [])
    out.extend(plugins.user())
    repo = repository(root, trusted_repo)
    if repo is not None and root is not None:
        if repo.runs:
            from jouet_git.trust.store import repo_key

            out.extend(plugins.repository(root, repo_key(root)))
        out.append(repo)
    return out


def describe(sources: list[Source]) -> list[dict[str, Any]]:
    return [{"kind": s.kind, "label": s.label, "directory": s.directory, "runs": s.runs, "detail": s.detail}
            for s in sources]
