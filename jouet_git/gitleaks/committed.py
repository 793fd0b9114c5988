"""The allowlists of a secret scan come from a commit, never from the work tree, the index or the
environment.

gitleaks takes its config from --config, $GITLEAKS_CONFIG, $GITLEAKS_CONFIG_TOML or the scanned
directory's .gitleaks.toml, and the fingerprints it skips from --gitleaks-ignore-path and the
scanned directory's .gitleaksignore. An agent can write every one of those: a line in
.gitleaksignore or an allowlist in .gitleaks.toml, even in the very commit that adds the secret,
would silence the scan that is meant to stop it. So jouet reads both files with git, from a commit
that already holds them before the change being scanned:

- for the staged and tracked scopes (a commit being made), HEAD: the commit's parent;
- for the outgoing scope (a push), the newest commit of what is pushed that a remote already has
  (the boundary of the outgoing range), since HEAD may itself be one of the commits being pushed.

A config that `[extend]`s another file of the repository reads that file from the same commit; an
absolute path outside the repository (a person's own config) is read where it is. Everything is laid
out in a private temporary directory and gitleaks is handed only that: `--config` always (the config
compiled into gitleaks when the commit has none), `--gitleaks-ignore-path` pointing there, and the
scan run where no other .gitleaksignore can be found. Inline `gitleaks:allow` comments are ignored
too (`--ignore-gitleaks-allow`): on an added line, such a comment was written by whoever wrote the
line. With no such commit (a repository's first commit, a push nothing on a remote precedes), the
scan uses gitleaks' own config and no .gitleaksignore.
"""

from __future__ import annotations

import os

from jouet_git import gitrun

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jouet_git.gitleaks.summary import ConfigSource
    from jouet_git.gitleaks.workdir import WorkDir

CONFIG = ".gitleaks.toml"
IGNORE = ".gitleaksignore"
MAX_FILE = 1 << 20  # a config or ignore file larger than this is not read
ALLOWLISTS = "allowlists"  # the directory of the scan's own directory they are laid out in


class Allowlists:
    """What a scan hands gitleaks: the config file (None: the one compiled into gitleaks, which it
    uses when no config is named anywhere), the scan's directory whose "allowlists" holds the ignore
    file (made when gitleaks is handed it, if nothing was written there before), the source
    summarize() reads, and the commit they came from (None when there is none)."""

    __slots__ = ("commit", "config", "source", "work")

    def __init__(self, commit: str | None, config: str | None, work: WorkDir, source: ConfigSource) -> None:
        self.commit = commit
        self.config = config
        self.work = work
        self.source = source

    def describe(self) -> str:
        if self.commit is None:
            return "gitleaks' default config, no .gitleaksignore"
        return f"{CONFIG} and {IGNORE} of commit {self.commit[:12]}"

    def flags(self) -> list[str]:
        """gitleaks' options for these allowlists, and no others."""
        out = ["--ignore-gitleaks-allow", "--gitleaks-ignore-path", self.work.dir(ALLOWLISTS)]
        if self.config is not None:
            out += ["--config", self.config]
        return out


def boundary(toplevel: str, revisions: list[str], deadline: float,
             parents: dict[str, list[str]] | None = None) -> str | None:
    """The newest commit a remote already has that the outgoing REVISIONS start from, or None.

    PARENTS: each outgoing commit's parents, as the scan's `git log` printed them. A parent that is
    not itself outgoing is a boundary commit (what `git rev-list --boundary` prints after the
    commits); when there is one such parent or none, that is the answer without another git. With
    several (a merge brought in a branch a remote has), `git rev-list --boundary` says which is the
    newest."""
    if parents is not None:
        found: list[str] = []
        for commit_parents in parents.values():
            for parent in commit_parents:
                if parent not in parents and parent not in found:
                    found.append(parent)
        if len(found) <= 1:
            return found[0] if found else None
    result = _git(["rev-list", "--boundary", *revisions], toplevel, deadline)
    if not result.ok:
        return None
    for line in result.stdout.decode("ascii", "replace").splitlines():
        if line.startswith("-"):
            return line[1:].strip() or None
    return None


class Reader:
    """A `git cat-file --batch` reading the files at PATHS in a commit: asked at once (COMMIT given),
    or waiting to be asked about a commit known only later (a push's boundary: files() asks)."""

    __slots__ = ("_files", "_paths", "_running")

    def __init__(self, cwd: str, deadline: float, paths: list[str], commit: str | None = None) -> None:
        self._paths = paths
        self._running = gitrun.start(["git", "cat-file", "--batch"], cwd, deadline=deadline,
                                     env=gitrun.git_env(keep_repo=True),
                                     input=None if commit is None else _request(commit, paths),
                                     later_input=commit is None)
        self._files: dict[str, bytes] | None = None

    def files(self, commit: str) -> dict[str, bytes]:
        """The files at PATHS in COMMIT (the one asked at the start, if one was), by path; missing
        ones are left out."""
        if self._files is None:
            running = self._running
            if running.waiting_for_input:
                running.send(_request(commit, self._paths))
            result = running.result()
            if not result.ok:
                raise RuntimeError(f"cannot read {', '.join(self._paths)} from commit {commit[:12]}: "
                                   f"{result.error()}")
            self._files = _parse_batch(result.stdout, self._paths)
        return self._files

    def abandon(self) -> None:
        self._running.abandon()


def start_head_files(cwd: str, deadline: float, commit: str = "HEAD") -> Reader:
    """The reading of COMMIT's config and ignore file, started now, beside the scan's other git runs.
    HEAD (or the commit it names, read from the files) is where a commit's allowlists come from (its
    parent)."""
    return Reader(cwd, deadline, [CONFIG, IGNORE], commit)


def start_files_reader(cwd: str, deadline: float) -> Reader:
    """A `git cat-file --batch` started now, before the commit whose files prepare() reads is known
    (a push's boundary): prepare() sends it the request."""
    return Reader(cwd, deadline, [CONFIG, IGNORE])


def prepare(toplevel: str, commit: str | None, work: WorkDir, deadline: float,
            read_ahead: Reader | None = None, known: dict[str, bytes] | None = None) -> Allowlists:
    """Lay out COMMIT's config and ignore file under WORK (the scan's private directory, made only
    when there is a file to write) for gitleaks. READ_AHEAD: start_head_files() when COMMIT is HEAD,
    or start_files_reader() (used instead of a new git run). KNOWN: the files, when they are known
    without git (none is there)."""
    from jouet_git.gitleaks.summary import ConfigSource

    if not commit or known is not None:
        files: dict[str, bytes] = dict(known or {})
        if read_ahead is not None:
            read_ahead.abandon()
    elif read_ahead is not None:
        files = read_ahead.files(commit)
    else:
        files = _read(toplevel, commit, [CONFIG, IGNORE], deadline)
    ignore = files.get(IGNORE)
    if ignore is not None:
        _write(os.path.join(work.dir(ALLOWLISTS), IGNORE), ignore)
    text = files.get(CONFIG)
    if text is None:
        return Allowlists(commit, None, work, ConfigSource("default"))
    directory = work.dir(ALLOWLISTS)
    top = os.path.join(directory, "config-0.toml")
    chain = _chain(toplevel, commit or "", text, directory, deadline)
    identity = "\0".join(chain)
    return Allowlists(commit, top, work, ConfigSource("commit", top, identity))


def env_without_config(env: dict[str, str]) -> dict[str, str]:
    """ENV without the variables that would point gitleaks at another config."""
    for name in ("GITLEAKS_CONFIG", "GITLEAKS_CONFIG_TOML"):
        env.pop(name, None)
    return env


def _git(args: list[str], cwd: str, deadline: float) -> gitrun.Result:
    return gitrun.git(args, cwd, deadline=deadline, env=gitrun.git_env(keep_repo=True))


def _read(toplevel: str, commit: str, paths: list[str], deadline: float) -> dict[str, bytes]:
    """The files at PATHS (relative to the top) in COMMIT, by path; missing ones are left out."""
    return Reader(toplevel, deadline, paths, commit).files(commit)


def _request(commit: str, paths: list[str]) -> bytes:
    """`git cat-file --batch`'s input asking for the files at PATHS in COMMIT."""
    return "".join(f"{commit}:{p}\n" for p in paths).encode("utf-8", "surrogateescape")


def _parse_batch(data: bytes, paths: list[str]) -> dict[str, bytes]:
    """The files `git cat-file --batch` printed in DATA for PATHS, in order; missing ones (and a tree
    or a submodule by that name, and a file over MAX_FILE) are left out."""
    out: dict[str, bytes] = {}
    at = 0
    for path in paths:
        end = data.find(b"\n", at)
        if end < 0:
            break
        header = data[at:end].split()
        at = end + 1
        if len(header) != 3 or not header[2].isdigit():
            continue  # "NAME missing", "NAME ambiguous"
        size = int(header[2])
        if header[1] == b"blob" and size <= MAX_FILE:
            out[path] = data[at:at + size]
        at += size + 1  # (a tree's listing is printed too)
    return out


def _write(path: str, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _chain(toplevel: str, commit: str, text: bytes, directory: str, deadline: float) -> list[str]:
    """Write TEXT and the files it extends as config-0.toml, config-1.toml ... under DIRECTORY, each
    `[extend] path` made absolute to the next copy; return the texts (the chain's identity)."""
    from jouet_git.gitleaks.config import MAX_EXTEND_DEPTH

    texts: list[str] = []
    current = text
    for level in range(MAX_EXTEND_DEPTH + 1):
        decoded = current.decode("utf-8", "surrogateescape")
        texts.append(decoded)
        target = _extend_path(decoded) if level < MAX_EXTEND_DEPTH else None
        out = os.path.join(directory, f"config-{level}.toml")
        if target is None:
            _write(out, current)
            break
        following = os.path.join(directory, f"config-{level + 1}.toml")
        _write(out, _with_extend_path(decoded, following).encode("utf-8", "surrogateescape"))
        current = _next_file(toplevel, commit, target, deadline)
    return texts


def _extend_path(text: str) -> str | None:
    """The `[extend] path` of a config (keys compared as gitleaks does, case-insensitively)."""
    from jouet_git.gitleaks.config import Unsure, _parse_toml

    try:
        extend = _parse_toml(text, CONFIG).get("extend", {})
    except Unsure:
        return None  # gitleaks will report the broken config itself
    if not isinstance(extend, dict) or extend.get("usedefault"):
        return None
    path = extend.get("path")
    return path if isinstance(path, str) and path else None


def _with_extend_path(text: str, path: str) -> str:
    import tomlkit

    doc = tomlkit.parse(text)
    for key in list(doc.keys()):
        if key.lower() == "extend":
            table = doc[key]
            for sub in list(table.keys()):
                if sub.lower() == "path":
                    table[sub] = path
    return tomlkit.dumps(doc)


def _next_file(toplevel: str, commit: str, target: str, deadline: float) -> bytes:
    """An extended config: from COMMIT when it lies in the repository, else from disk."""
    full = os.path.normpath(os.path.join(toplevel, target))
    inside = os.path.relpath(full, toplevel).replace(os.sep, "/")
    if inside != ".." and not inside.startswith("../"):
        found = _read(toplevel, commit, [inside], deadline).get(inside)
        if found is None:
            raise RuntimeError(f"{CONFIG} of commit {commit[:12]} extends {target}, which that commit does not hold")
        return found
    with open(full, "rb") as f:
        return f.read(MAX_FILE)
