"""Where rules come from: built in, enforced (the system directory), yours, plugins, repositories.

Each source is a directory of `*.toml` rule files with a label that `jouet rule list` shows in its
scope column, and a verdict on whether it runs. Plugins and trusted repository rules plug in here
through `extra_sources`, which the trust and plugin code provides.
"""

from __future__ import annotations

import os
import stat
from typing import Any

from jouet_git import paths
from jouet_git.engine.model import BUILTIN, ENFORCED, REPO, USER


class Source:
    """A directory of rule files and whether its rules run."""

    __slots__ = ("detail", "directory", "files", "kind", "label", "prefix", "runs")

    def __init__(self, kind: str, label: str, directory: str, runs: bool = True, detail: str = "",
                 prefix: str = "") -> None:
        self.kind = kind
        self.label = label
        self.directory = directory
        self.runs = runs
        # Why the source does not run, for `jouet rule list`.
        self.detail = detail
        # Plugin rules are named PLUGIN/NAME.
        self.prefix = prefix
        self.files = rule_files(directory)

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


def repository(root: str | None) -> Source | None:
    """A repository's own rules. They run only once trusted (see jouet_git/trust.py)."""
    if root is None:
        return None
    directory = repo_rules_dir(root)
    if not os.path.isdir(directory):
        return None
    return Source(REPO, "repo:untrusted", directory, runs=False,
                  detail="repository rules run only once you trust them with `jouet trust`")


def all_sources(root: str | None, extra: list[Source] | None = None) -> list[Source]:
    """Every source in load order: built in, enforced, yours, plugins, this repository's."""
    out = [builtin(), enforced(), user()]
    out.extend(extra or [])
    repo = repository(root)
    if repo is not None:
        out.append(repo)
    return out


def describe(sources: list[Source]) -> list[dict[str, Any]]:
    return [{"kind": s.kind, "label": s.label, "directory": s.directory, "runs": s.runs, "detail": s.detail}
            for s in sources]
