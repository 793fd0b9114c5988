"""Where rules come from: built in, enforced (the system directory), yours, plugins, repositories.

Each source is a directory of `*.toml` rule files with a label that `jouet rule list` shows in its
scope column, and a verdict on whether it runs. Plugins come from jouet_git/plugin/sources.py. A
repository's rules run from the copy of its `.jouet/` that `jouet trust` showed and recorded
(jouet_git/trust/snapshot.py), never from the work tree: when the work tree's `.jouet/` changes, the
trusted copy keeps running and the source carries a `notice` saying so. Whatever a repository's
`.jouet/` holds, reading it never raises here: a repository cannot stop the other sources' rules.
`extra_sources` lets a caller add sources of its own after yours.
"""

from __future__ import annotations

import functools
import os
import stat
from typing import Any

from jouet_git import paths
from jouet_git.engine.model import BUILTIN, ENFORCED, PLUGIN, REPO, USER

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


class Source:
    """A directory of rule files and whether its rules run."""

    __slots__ = ("default_settings", "deps", "detail", "directory", "failure", "files", "kind", "label",
                 "legacy_files", "notice", "prefix", "problem", "runs", "settings")

    def __init__(self, kind: str, label: str, directory: str, runs: bool = True, detail: str = "",
                 prefix: str = "", *, settings: dict[str, Any] | None = None,
                 default_settings: dict[str, Any] | None = None, deps: list[str] | None = None,
                 problem: str = "", notice: str = "") -> None:
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
        # A source that runs but that a person should hear about (a repository's rules changed since
        # they were trusted: the trusted copy runs), for the session primer and the git hooks.
        self.notice = notice
        # Why the source could not be read at all: said wherever jouet decides (hooks, primer, notices).
        self.failure = ""

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


def enforced(system: str | None = None) -> Source:
    """The enforced rules of the system directory SYSTEM (paths.system_dir() when None)."""
    system = system or paths.system_dir()
    directory = os.path.join(system, "rules")
    problem = writable_by_others(system) or writable_by_others(directory)
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


def repository(root: str | None, assume_trusted: bool = False, copy: str | None = None) -> Source | None:
    """A repository's own rules, from the copy `jouet trust` recorded (see the module docstring).

    COPY builds the rules from that copy (the root of a staged copy) as if trusted: what `jouet trust`
    shows before it asks, from the very bytes it hashed. ASSUME_TRUSTED without a copy builds the
    work tree's rules as if trusted (never for content jouet refuses, such as a link out of `.jouet/`).
    """
    if root is None:
        return None
    from jouet_git.trust.store import store_path

    base = os.path.join(root, ".jouet")
    try:
        return _repository(root, base, assume_trusted, copy)
    except Exception as error:  # never let a repository's .jouet/ stop the other sources
        detail = (f"jouet could not read the repository's .jouet/ ({type(error).__name__}: {error}); "
                  "its rules do not run")
        return Source(REPO, "repo:error", repo_rules_dir(root), runs=False, detail=detail, problem=detail,
                      deps=[store_path(), base])


def _repository(root: str, base: str, assume_trusted: bool, copy: str | None) -> Source | None:
    from jouet_git.trust.state import repo_state
    from jouet_git.trust.store import store_path

    if copy is not None:
        source = Source(REPO, "repo:trusted", repo_rules_dir(copy), deps=[store_path(), base])
        return _files_inside(source, copy)
    state = repo_state(root)
    if state is None:
        return None
    deps = [store_path(), base, *_below(base)]
    if assume_trusted and not state.content.refused:
        return _files_inside(Source(REPO, "repo:trusted", repo_rules_dir(root), deps=deps), root)
    if state.runs and state.copy is not None:
        deps += [state.copy, *_below(state.copy)]
        source = Source(REPO, state.label, repo_rules_dir(state.copy), deps=deps, notice=state.notice())
        return _files_inside(source, state.copy)
    source = Source(REPO, state.label, repo_rules_dir(root), runs=False, detail=state.detail(), deps=deps)
    return _files_inside(source, root)


def _files_inside(source: Source, root: str) -> Source:
    """Never read a rule file through a link that leaves ROOT/.jouet/ (or through .jouet/ being a
    link), not even to list it."""
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


def failed(kind: str, what: str, directory: str, error: BaseException) -> Source:
    """A source that could not be read: it runs nothing, and says so wherever jouet decides."""
    reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    why = (f"{what} in {directory} could not be read ({reason}); they do not run this time, every other "
           f"rule does. Run `jouet rule list` to see them, `jouet doctor` to check the rest")
    source = Source(kind, "failed", directory, runs=False, detail=why)
    source.files = []
    source.failure = why
    return source


def _listed(make: Callable[[str], Source], system: str) -> list[Source]:
    return [make(system)]


def all_sources(root: str | None, extra: list[Source] | None = None, trusted_repo: bool = False,
                repo_copy: str | None = None) -> list[Source]:
    """Every source in load order: built in, enforced (rules, then the system's plugins), yours, extra,
    your plugins, and this repository's plugins and rules (its plugins only while it is trusted, as
    the trusted copy's plugins.toml declares them). REPO_COPY: see repository().

    One source that throws (a folder that cannot be read, a store that breaks, a file that vanishes while
    it is read) becomes a failed source: it runs nothing and says why, and every other source still loads.
    """
    from jouet_git.plugin import sources as plugins

    out: list[Source] = []

    def add(kind: str, what: str, directory: str, make: Callable[[], list[Source]]) -> None:
        try:
            out.extend(make())
        except Exception as error:  # one source's failure must never silence the others
            out.append(failed(kind, what, directory, error))

    add(BUILTIN, "jouet's built-in rules", paths.builtin_rules_dir(), lambda: [builtin()])
    # /etc/jouet always, and JOUET_SYSTEM_DIR when it names another directory: it adds, never replaces.
    systems = paths.system_dirs()
    for system in systems:
        add(ENFORCED, "the enforced rules", os.path.join(system, "rules"),
            functools.partial(_listed, enforced, system))
    for system in systems:
        add(ENFORCED, "the system's plugins", os.path.join(system, "plugins"),
            functools.partial(plugins.system, system))
    add(USER, "your rules", paths.user_rules_dir(), lambda: [user()])
    out.extend(extra or [])
    add(PLUGIN, "your plugins", paths.config_file(), plugins.user)
    if root is not None:
        try:
            repo = repository(root, trusted_repo, repo_copy)
        except Exception as error:  # the trust check broke: the repository's rules do not run, the rest do
            out.append(failed(REPO, "this repository's rules", os.path.join(root, ".jouet"), error))
            repo = None
        if repo is not None:
            if repo.runs:
                from jouet_git.trust.store import repo_key

                declared_in = _copy_root(repo.directory)
                add(PLUGIN, "this repository's plugins", os.path.join(declared_in, ".jouet", "plugins.toml"),
                    lambda: plugins.repository(declared_in, repo_key(root)))
            out.append(repo)
    return out


def _copy_root(rules_dir: str) -> str:
    """The root whose `.jouet/rules` RULES_DIR is (a work tree or a trusted copy)."""
    return os.path.dirname(os.path.dirname(rules_dir))


def describe(sources: list[Source]) -> list[dict[str, Any]]:
    return [{"kind": s.kind, "label": s.label, "directory": s.directory, "runs": s.runs, "detail": s.detail,
             "notice": s.notice} for s in sources]
