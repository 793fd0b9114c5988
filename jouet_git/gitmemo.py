"""What a stream of calls asked git, kept while the repository's files say git would answer the same.

`jouet check --jsonl` answers many calls about one repository, and a commit's secret scan, a push's
or a probe's branch count asks git the same question again on each line (1.5 to 3 ms a git). Some
questions are answered from the repository's refs, index, objects and config alone, never from
the work tree: `git diff --cached`, `git log`, `git rev-list`, `git rev-parse`, `git merge-base`,
`git symbolic-ref`, `git for-each-ref`, `git show-ref`, and `git cat-file --batch` given the
objects it reads (`HEAD:.gitleaks.toml`). Others read named files of the work tree besides:
`git diff REV -- FILE...` and `git ls-files --others --exclude-standard -- FILE...` (what `git add
FILE && git commit` would stage), each FILE one literal path. For those, a stream (gitrun.MEMO) keeps
each answer with a fingerprint of what it was read from, and gives it again while the fingerprint
holds:

- the git directory's HEAD (and FETCH_HEAD, ORIG_HEAD, ...), index, packed-refs, config, shallow,
  info/grafts, info/attributes and
  objects/info/alternates (the common directory's too, for a linked work tree), and every directory
  and file under refs/ (or reftable/): git writes a ref, the index and packed-refs to a lock file
  renamed into place, which changes the directory's time stamps and the file's inode;
- the work tree's top .gitattributes, and git's global and system config and attributes files
  (where GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM say, too; nothing is kept while a config file
  includes another or names an attributes or excludes file of its own);
- for named files of the work tree, each file (not a directory) and the .gitattributes and
  .gitignore of every directory from the top down to it (info/exclude and the global ignore file
  are among the files above);
- each one's device, inode, size, and modification and change times in nanoseconds.

An answer is kept only when every one of those changed more than RACY seconds before it was asked
(git's own "racy" rule: a file system stamps times at a coarse tick, so a change made within the
same tick as the fingerprint could leave every stamp the same), only when git succeeded or said a
revision does not exist, and only when its output holds no binary file (an attributes file below
the top could make a file binary or not). Not kept: a run whose environment makes git read other
files or find another repository (GIT_DIR, GIT_INDEX_FILE, ...), a patch that could run an
external diff or a text conversion (without --no-ext-diff and --no-textconv), and any other
command that reads the work tree (`git status`, `git diff` of the whole tree or of a directory or
a pattern).

Under the memo, such a git starts only when its answer is asked for (gitrun.Deferred), so a run a
scan started in case it would be needed costs nothing when it is not.

Only streams use it: a hook asks each question once, and starts its gits side by side.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from jouet_git.gitrun import Result

# How long before a question every file of its fingerprint must have last changed (see above).
RACY = 0.1
# How many answers a stream keeps, and how many bytes of output in all.
MAX_ANSWERS = 1024
MAX_BYTES = 64 << 20
# Subcommands answered from refs, index, objects and config alone.
_PURE = frozenset({"rev-list", "rev-parse", "merge-base", "symbolic-ref", "for-each-ref", "show-ref", "log",
                   "diff"})
_PATCHES = frozenset({"log", "diff"})
# Options that make a diff print names, not a patch.
_NO_PATCH = frozenset({"--name-only", "--name-status", "--raw"})
# Variables that make git read files the fingerprint does not cover, or find another repository.
# (Every other variable is part of an answer's key: its value cannot change within a stream.)
_ELSEWHERE = frozenset({"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
                        "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_GRAFT_FILE", "GIT_SHALLOW_FILE", "GIT_ATTR_SOURCE",
                        "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_NAMESPACE"})
_NOT_THERE = (b"unknown revision", b"bad revision", b"ambiguous argument", b"Needed a single revision",
              b"no such ref", b"not a valid")


# The refs a revision may name that live beside HEAD rather than under refs/.
_PSEUDO_REFS = ("FETCH_HEAD", "ORIG_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD",
                "BISECT_HEAD", "AUTO_MERGE")
# ls-files' options that list named files of the work tree or the index (with `-- PATHS`).
_LS_FILES = frozenset({"-z", "--others", "-o", "--exclude-standard", "--full-name", "--cached", "-c"})
# Characters that make a pathspec more than one literal path (and `:` first: its magic).
_PATTERN = frozenset("*?[\\")


def worktree_paths(argv: list[str]) -> list[str] | None:
    """The files a `git diff REV -- PATHS` (not --cached) or `git ls-files ... -- PATHS` reads from
    the work tree, when each is one literal path; None otherwise."""
    if "--" not in argv or "--cached" in argv or "--staged" in argv:
        return None
    paths = argv[argv.index("--") + 1:]
    if not paths or any(not p or p.startswith(":") or not _PATTERN.isdisjoint(p) for p in paths):
        return None
    return paths


def keepable(argv: list[str], env: Mapping[str, str], input: bytes | None = None) -> bool:
    """Whether git ARGV (run with ENV, given INPUT) is answered from the repository's files alone
    (see above)."""
    if not argv or os.path.basename(argv[0]) != "git":
        return False
    i = 1
    while i < len(argv) and argv[i] == "-c":
        i += 2
    if i >= len(argv):
        return False
    sub = argv[i]
    rest = argv[i + 1:]
    if any(name in _ELSEWHERE for name in env):
        return False
    if sub == "cat-file" and rest in (["--batch"], ["--batch-check"]):
        # The objects its input names (`HEAD:.gitleaks.toml`): refs and objects.
        return input is not None and b"@{" not in input
    if input is not None:
        return False
    if any("@{" in word for word in rest):
        return False  # (a revision read from the reflog, which the fingerprint leaves out)
    if sub == "ls-files":
        # Which of the named files are there and not ignored (_paths_print covers them).
        options = rest[:rest.index("--")] if "--" in rest else rest
        return worktree_paths(argv) is not None and set(options) <= _LS_FILES
    if sub not in _PURE:
        return False
    if sub in _PATCHES:
        if sub == "diff" and "--no-index" in rest:
            return False
        if sub == "diff" and "--cached" not in rest and "--staged" not in rest and worktree_paths(argv) is None:
            return False  # (the whole work tree; named files are read by _paths_print)
        patch = any(w in ("-p", "--patch", "-u") or w.startswith("-U") for w in rest) or (
            sub == "diff" and not any(w in _NO_PATCH for w in rest))
        if patch and ("--no-ext-diff" not in rest or "--no-textconv" not in rest):
            return False  # (a patch could run an external diff or a text conversion)
        if sub == "log" and any(w in ("-g", "--walk-reflogs", "--reflog") for w in rest):
            return False  # (the reflog is not in the fingerprint)
    if sub == "rev-list" and any(w in ("--reflog", "-g", "--walk-reflogs", "--all", "--indexed-objects")
                                 or w.startswith("--disk-usage") for w in rest):
        return False  # (the reflog is not in the fingerprint; --all counts it too)
    return not (sub == "rev-parse" and any(w.startswith(("--git-path", "--local-env-vars", "--shared-index-path"))
                                           for w in rest))


class GitMemo:
    """The answers a stream keeps (gitrun.MEMO while the stream lasts)."""

    __slots__ = ("_answers", "_bytes", "_prints", "hits")

    def __init__(self) -> None:
        self._answers: dict[tuple[object, ...], tuple[tuple[object, ...], Result]] = {}
        self._bytes = 0
        # The fingerprint of each repository for the current call (begin_call clears it): the
        # repository cannot change while one call is decided.
        self._prints: dict[tuple[object, ...], tuple[object, ...] | None] = {}
        self.hits = 0

    def begin_call(self) -> None:
        """A new call: the repository may have changed since the last one."""
        self._prints.clear()

    def key(self, argv: list[str], cwd: str | None, env: Mapping[str, str],
            input: bytes | None = None) -> tuple[object, ...] | None:
        """The key an answer to ARGV in CWD (given INPUT) is kept under, or None when it may not be."""
        if cwd is None or not keepable(argv, env, input):
            return None
        return (tuple(argv), cwd, frozenset(env.items()), input)

    def get(self, key: tuple[object, ...]) -> Result | None:
        """The answer kept under KEY, while its fingerprint holds."""
        kept = self._answers.get(key)
        if kept is None:
            return None
        now = self.print_for(key)
        if now is None or now != kept[0]:
            return None
        self.hits += 1
        return kept[1]

    def put(self, key: tuple[object, ...], print_: tuple[object, ...] | None, result: Result) -> None:
        """Keep RESULT under KEY with the fingerprint PRINT_ taken before git ran (None: not kept)."""
        if print_ is None or not _keepable_result(result):
            return
        size = len(result.stdout) + len(result.stderr)
        if len(self._answers) >= MAX_ANSWERS or self._bytes + size > MAX_BYTES:
            self._answers.clear()
            self._bytes = 0
        if size > MAX_BYTES // 4:
            return
        self._answers[key] = (print_, result)
        self._bytes += size

    def print_for(self, key: tuple[object, ...]) -> tuple[object, ...] | None:
        """The fingerprint of what KEY's answer is read from, now (None: nothing may be kept); worked
        out once per call for each repository, and for each question naming files of the work tree."""
        argv, cwd, env, _ = key
        assert isinstance(argv, tuple) and isinstance(cwd, str) and isinstance(env, frozenset)
        repository = (cwd, env)
        if repository not in self._prints:
            self._prints[repository] = fingerprint(cwd, dict(env))
        found = self._prints[repository]
        paths = worktree_paths(list(argv))
        if paths is None:
            return found
        if key not in self._prints:
            files = _paths_print(cwd, found, paths) if found is not None else None
            self._prints[key] = None if files is None else (found, files)
        return self._prints[key]


def _paths_print(cwd: str, repo_print: tuple[object, ...], paths: list[str]) -> tuple[object, ...] | None:
    """What git reads of the work tree for PATHS (relative to CWD) beyond the repository's own
    files: each file (or its absence: not a directory), and the .gitattributes and .gitignore of
    every directory from the top down to it, each directory not a link. None: not kept (a directory,
    a path outside the work tree, a change within RACY seconds)."""
    import stat

    root = repo_print[0]
    assert isinstance(root, str)
    stamps: list[object] = []
    newest = 0
    dirs: set[str] = set()
    for path in paths:
        full = os.path.normpath(os.path.join(cwd, path))
        if not full.startswith(root + "/"):
            return None
        try:
            st = os.lstat(full)
        except FileNotFoundError:
            stamps.append((full, None))
        except OSError:
            return None
        else:
            if stat.S_ISDIR(st.st_mode):
                return None
            stamps.append((full, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
            newest = max(newest, st.st_mtime_ns, st.st_ctime_ns)
        directory = os.path.dirname(full)
        while len(directory) >= len(root):
            dirs.add(directory)
            directory = os.path.dirname(directory)
    for directory in sorted(dirs):
        try:
            st = os.lstat(directory)
        except FileNotFoundError:
            stamps.append((directory, None))
            continue
        except OSError:
            return None
        if not stat.S_ISDIR(st.st_mode):
            return None  # (a link, or a file where a directory would be)
        stamps.append((directory, st.st_ino))
        for name in (".gitattributes", ".gitignore"):
            try:
                stamp = _stamp(os.path.join(directory, name))
            except OSError:
                return None
            if stamp is not None:
                newest = max(newest, stamp[3], stamp[4])
            stamps.append(stamp)
    if newest > time.time_ns() - int(RACY * 1e9):
        return None
    return tuple(stamps)


def _stamp(path: str) -> tuple[int, int, int, int, int] | None:
    """PATH's device, inode, size, and modification and change times in ns (links followed); None
    when it is not there (OSError when it cannot be told)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _keepable_result(result: Result) -> bool:
    if b"Binary files " in result.stdout or b"GIT binary patch" in result.stdout:
        return False
    if result.code == 0:
        return True
    return any(text in result.stderr for text in _NOT_THERE)


def fingerprint(cwd: str, env: Mapping[str, str] | None = None) -> tuple[object, ...] | None:
    """What the answers about the repository around CWD (git run with ENV, else this process's
    environment) are read from, as the disk stands (see the module docstring); None outside a
    repository, or when a file changed too recently to tell."""
    if env is None:
        env = os.environ
    from jouet_git import gitdir

    repo = gitdir.find(cwd)
    if repo is None:
        return None
    common = repo.common_dir
    home = env.get("HOME") or os.path.expanduser("~")
    xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    configs = [os.path.join(common, "config"), os.path.join(repo.git_dir, "config.worktree"),
               os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config"), "/etc/gitconfig",
               *(env[name] for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM") if env.get(name))]
    files = [os.path.join(repo.git_dir, name) for name in ("HEAD", "index", *_PSEUDO_REFS)]
    files += [os.path.join(common, name) for name in ("packed-refs", "shallow", "info/grafts", "info/attributes",
                                                        "info/exclude", "objects/info/alternates")]
    files += [os.path.join(repo.root, ".gitattributes"), os.path.join(xdg, "git", "attributes"),
              os.path.join(xdg, "git", "ignore"), "/etc/gitattributes"]
    dirs = [os.path.join(repo.git_dir, "refs")]
    if common != repo.git_dir:
        dirs.append(os.path.join(common, "refs"))
    stamps: list[object] = [repo.root, repo.git_dir, common]
    newest = 0
    try:
        for number, path in enumerate([*configs, *files]):
            stamp = _stamp(path)
            if stamp is not None:
                if number < len(configs) and _points_elsewhere(path, stamp):
                    return None
                newest = max(newest, stamp[3], stamp[4])
            stamps.append(stamp)
    except OSError:
        return None
    reftable = os.path.join(common, "reftable")
    for top in [*dirs, reftable]:
        stack = [top]
        while stack:
            directory = stack.pop()
            try:
                st = os.stat(directory)
                entries = os.scandir(directory)
            except FileNotFoundError:
                stamps.append((directory, None))
                continue
            except OSError:
                return None
            stamps.append((directory, st.st_ino, st.st_mtime_ns, st.st_ctime_ns))
            newest = max(newest, st.st_mtime_ns, st.st_ctime_ns)
            with entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                        continue
                    # Each ref file too: git renames a new one into place (the directory's stamps
                    # change), but another program may write one where it is.
                    try:
                        est = entry.stat(follow_symlinks=False)
                    except OSError:
                        return None
                    stamps.append((entry.path, est.st_ino, est.st_size, est.st_mtime_ns, est.st_ctime_ns))
                    newest = max(newest, est.st_mtime_ns, est.st_ctime_ns)
    if newest > time.time_ns() - int(RACY * 1e9):
        return None
    return tuple(stamps)


# Whether a config file (by path and stamp) names other files git reads: an include, or an attributes
# file of its own. Read once per version of the file.
_ELSEWHERE_CONFIG: dict[tuple[str, tuple[int, int, int, int, int]], bool] = {}


def _points_elsewhere(path: str, stamp: tuple[int, int, int, int, int]) -> bool:
    key = (path, stamp)
    found = _ELSEWHERE_CONFIG.get(key)
    if found is None:
        try:
            with open(path, "rb") as handle:
                text = handle.read().lower()
        except OSError:
            return True
        found = _ELSEWHERE_CONFIG[key] = b"include" in text or b"attributesfile" in text or b"excludesfile" in text
    return found
