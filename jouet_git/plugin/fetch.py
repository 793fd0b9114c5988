"""Getting a plugin's content into a staging directory, from one of three kinds of source.

    builtin:NAME                 one of jouet's own plugins, shipped with it (plugins/NAME)
    /path/to/folder              a local directory, copied as it is (without any .git)
    https://host/repo.git, git@host:repo, file:///path, or a local repository with a rev
                                 cloned with GitPython and checked out at the exact commit the rev
                                 names (HEAD when none); the commit is kept with the pin

Nothing fetched runs here: the caller hashes it, reviews its rules, and installs it only when the
person agrees (or when it matches a pin already made).
"""

from __future__ import annotations

import os
import re
import shutil

from jouet_git import paths
from jouet_git.plugin import store
from jouet_git.plugin.manifest import PluginError, name_problem

BUILTIN = "builtin:"
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://|^[\w.-]+@[\w.-]+:")


class Fetched:
    """A fetched plugin folder in staging, and the exact commit it came from (git sources)."""

    __slots__ = ("commit", "folder", "source", "workdir")

    def __init__(self, folder: str, workdir: str, source: str, commit: str | None) -> None:
        self.folder = folder
        self.workdir = workdir
        self.source = source
        self.commit = commit

    def discard(self) -> None:
        store.discard(self.workdir)


def is_git(source: str, rev: str | None) -> bool:
    """Whether SOURCE is fetched with git: a URL, or a local directory with a rev to check out."""
    return bool(_URL.match(source)) or (rev is not None and not source.startswith(BUILTIN))


def resolve_source(source: str, base: str | None = None) -> str:
    """SOURCE with a local path made absolute (relative to BASE, else the current directory)."""
    if source.startswith(BUILTIN) or _URL.match(source):
        return source
    expanded = os.path.expanduser(source)
    if not os.path.isabs(expanded):
        expanded = os.path.join(base or os.getcwd(), expanded)
    return os.path.normpath(expanded)


def fetch(source: str, rev: str | None = None, base: str | None = None) -> Fetched:
    """Fetch SOURCE (at REV for git) into staging. Raises PluginError saying what went wrong."""
    if source.startswith("-"):
        raise PluginError(f"{source!r} is not a plugin source: give a directory, a git URL or builtin:NAME")
    source = resolve_source(source, base)
    workdir = store.staging_dir()
    try:
        if source.startswith(BUILTIN):
            if rev is not None:
                raise PluginError(f"{source} is one of jouet's own plugins: it has no revisions to pick from")
            folder, commit = _builtin(source, workdir), None
        elif is_git(source, rev):
            folder, commit = _clone(source, rev, workdir)
        else:
            folder, commit = _copy(source, workdir), None
    except BaseException:
        store.discard(workdir)
        raise
    return Fetched(folder, workdir, source, commit)


def _builtin(source: str, workdir: str) -> str:
    name = source[len(BUILTIN):]
    problem = name_problem(name)
    folder = os.path.join(paths.builtin_plugins_dir(), name)
    if problem or not os.path.isdir(folder):
        shipped = sorted(n for n in _listdir(paths.builtin_plugins_dir()) if not n.startswith("."))
        raise PluginError(f"jouet ships no plugin named {name!r}; it ships: {', '.join(shipped) or 'none'}")
    return _copy(folder, workdir)


def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def _copy(folder: str, workdir: str) -> str:
    if not os.path.isdir(folder):
        raise PluginError(f"{folder} is not a directory: give a plugin folder (with plugin.toml and rules/), "
                          "a git URL, or builtin:NAME")
    target = os.path.join(workdir, "plugin")
    try:
        shutil.copytree(folder, target, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    except (OSError, shutil.Error) as error:
        raise PluginError(f"cannot copy {folder}: {error}") from None
    return target


def _clone(url: str, rev: str | None, workdir: str) -> tuple[str, str]:
    import git

    target = os.path.join(workdir, "plugin")
    env = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}
    try:
        # No checkout yet, and no hooks ever: the clone's content is reviewed before anything uses it.
        repo = git.Repo.clone_from(url, target, no_checkout=True, env=env,
                                   multi_options=["-c", "core.hooksPath=/dev/null"], allow_unsafe_options=True)
    except git.GitCommandError as error:
        raise PluginError(f"cannot clone {url}: {_stderr(error)}") from None
    try:
        commit = _resolve(repo, url, rev)
        repo.git.checkout("--quiet", "--detach", commit)
    except git.GitCommandError as error:
        raise PluginError(f"cannot check out {rev or 'HEAD'} of {url}: {_stderr(error)}") from None
    finally:
        repo.close()
    shutil.rmtree(os.path.join(target, ".git"))
    return target, commit


def _resolve(repo: object, url: str, rev: str | None) -> str:
    import git

    assert isinstance(repo, git.Repo)
    for candidate in ([rev, f"origin/{rev}"] if rev else ["HEAD"]):
        try:
            return str(repo.git.rev_parse("--verify", "--quiet", f"{candidate}^{{commit}}")).strip()
        except git.GitCommandError:
            continue
    raise PluginError(f"{url} has no commit, tag or branch named {rev or 'HEAD'}: check the name with "
                      f"`git ls-remote {url}`")


def _stderr(error: object) -> str:
    text = str(getattr(error, "stderr", "") or error).strip()
    text = re.sub(r"^stderr:\s*", "", text)
    return " ".join(line.strip(" '") for line in text.splitlines() if line.strip(" '")) or str(error)
