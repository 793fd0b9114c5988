"""The lines a commit or a push would add, read from git without writing anything.

- staged:   the index against HEAD (`git diff --cached`), what `git commit` takes;
- tracked:  the work tree against HEAD for tracked files (`git diff HEAD`), what `git commit -a` takes;
- outgoing: the patches of the commits being pushed (`git log -p`), one commit at a time;
- paths:    files a `git add` is about to stage: their work-tree content against HEAD, and the whole
            content of untracked ones.

Diffs use zero lines of context, so each hunk's added lines are consecutive in the new file, as
gitleaks reads them. A file is kept when it has at least one hunk and is text: a binary file, a
deleted file, a pure rename or a mode change gives gitleaks no fragment to scan.
"""

from __future__ import annotations

import os

from jouet_git import gitrun

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

DIFF_FLAGS = ["-U0", "--no-color", "--no-ext-diff", "--no-textconv", "--no-relative",
              "--src-prefix=a/", "--dst-prefix=b/"]
EMPTY_TREES = {"sha1": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
               "sha256": "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"}
_ESCAPES = {ord("a"): 7, ord("b"): 8, ord("f"): 12, ord("n"): 10, ord("r"): 13, ord("t"): 9, ord("v"): 11,
            ord("\\"): 92, ord('"'): 34}
BINARY_SNIFF = 8000  # git calls a file binary when a NUL byte is in its first 8000 bytes


class TooLarge(Exception):
    """The diff is over the size limit."""


class Hunk:
    """The lines one hunk adds: (line number in the new file, text without its newline)."""

    __slots__ = ("lines", "newline_at_end")

    def __init__(self) -> None:
        self.lines: list[tuple[int, str]] = []
        self.newline_at_end = True  # False when the last added line ends the file without a newline

    def fragment_text(self) -> str:
        """The hunk as gitleaks' git mode scans it: the added lines, each with its newline."""
        text = "".join(line + "\n" for _, line in self.lines)
        return text if self.newline_at_end or not text else text[:-1]


class FileChange:
    """One file of a change: its hunks (from a diff) or its whole content (an untracked file)."""

    __slots__ = ("commit", "content", "hunks", "path")

    def __init__(self, path: str, commit: str | None = None) -> None:
        self.path = path
        self.commit = commit
        self.hunks: list[Hunk] = []
        self.content: str | None = None

    def added_lines(self) -> set[int]:
        if self.content is not None:
            return set(range(1, self.content.count("\n") + 2))
        return {n for hunk in self.hunks for n, _ in hunk.lines}

    def sparse_text(self) -> str:
        """The new file with every line it does not add left blank, so line numbers still hold.

        A file whose hunks only delete lines becomes a single newline: gitleaks still sees the file
        (path-only rules fire on it) but no content.
        """
        if self.content is not None:
            return self.content
        lines = sorted({(n, text) for hunk in self.hunks for n, text in hunk.lines})
        if not lines:
            return "\n"
        parts: list[str] = []
        at = 1
        for number, text in lines:
            parts.append("\n" * (number - at))
            parts.append(text)
            parts.append("\n")
            at = number + 1
        last = max(self.hunks, key=lambda h: h.lines[-1][0] if h.lines else 0)
        if not last.newline_at_end:
            parts.pop()
        return "".join(parts)


def unquote_path(raw: bytes) -> str:
    """A path as git prints it in a patch header (C-quoted when it has special characters)."""
    if raw.endswith(b"\t"):
        raw = raw[:-1]  # git marks a name with a space by a trailing tab
    if raw.startswith(b'"') and raw.endswith(b'"') and len(raw) >= 2:
        out = bytearray()
        body = raw[1:-1]
        i = 0
        while i < len(body):
            c = body[i]
            if c == 92 and i + 1 < len(body):
                nxt = body[i + 1]
                if 48 <= nxt <= 55 and i + 3 <= len(body):
                    out.append(int(body[i + 1:i + 4], 8))
                    i += 4
                    continue
                out.append(_ESCAPES.get(nxt, nxt))
                i += 2
                continue
            out.append(c)
            i += 1
        raw = bytes(out)
    return raw.decode("utf-8", "surrogateescape")


def parse_patch(data: bytes, parents: dict[str, list[str]] | None = None) -> list[FileChange]:
    """Files with hunks from `git diff -p` or `git log -p --format='%x00%H %P'` output (-U0); PARENTS,
    when given, gets each commit's parents, every commit of the log (one without a change too)."""
    changes: list[FileChange] = []
    commit: str | None = None
    current: FileChange | None = None
    hunk: Hunk | None = None
    old_left = new_left = 0
    new_at = 0
    last_sign = b""
    for raw in data.split(b"\n"):
        if old_left or new_left:
            sign = raw[:1]
            if sign == b"+" and new_left and hunk is not None:
                hunk.lines.append((new_at, raw[1:].decode("utf-8", "surrogateescape")))
                new_at += 1
                new_left -= 1
                last_sign = sign
                continue
            if sign == b"-" and old_left:
                old_left -= 1
                last_sign = sign
                continue
            if sign == b" " and old_left and new_left:
                old_left -= 1
                new_left -= 1
                new_at += 1
                last_sign = sign
                continue
            if sign != b"\\":
                old_left = new_left = 0
        if raw.startswith(b"\\"):
            if last_sign == b"+" and hunk is not None:
                hunk.newline_at_end = False
            continue
        if raw.startswith(b"\0"):
            names = raw[1:].decode("ascii", "replace").split()
            commit = names[0] if names else None
            if parents is not None and commit is not None:
                parents[commit] = names[1:]
            current = None
        elif raw.startswith(b"diff --git "):
            current = None
            hunk = None
        elif raw.startswith(b"+++ "):
            name = raw[4:]
            if name == b"/dev/null":
                current = None
            else:
                path = unquote_path(name)
                current = FileChange(path[2:] if path.startswith("b/") else path, commit)
                changes.append(current)
        elif raw.startswith(b"@@ ") and current is not None:
            header = hunk_header(raw)
            if header is not None:
                old_left, new_at, new_left = header
                hunk = Hunk()
                current.hunks.append(hunk)
                last_sign = b""
    return [c for c in changes if c.hunks]


def hunk_header(line: bytes) -> tuple[int, int, int] | None:
    """A hunk header `@@ -OLD[,OLD COUNT] +NEW[,NEW COUNT] @@...` as (old count, new start, new count)
    (a count left out is 1), or None for any other line. (Read without a regular expression: compiling
    one cost a commit's hook more than reading its diff.)"""
    if not line.startswith(b"@@ -"):
        return None
    end = line.find(b" @@", 4)
    if end < 0:
        return None
    old, space, new = line[4:end].partition(b" +")
    first = _range(old)
    second = _range(new) if space else None
    if first is None or second is None:
        return None
    return first[1], second[0], second[1]


def _range(text: bytes) -> tuple[int, int] | None:
    """`START[,COUNT]` as (start, count), or None."""
    start, comma, count = text.partition(b",")
    if not (start.isdigit() and (count.isdigit() if comma else True)):
        return None
    return int(start), int(count) if comma else 1


def _is_binary(data: bytes) -> bool:
    return b"\0" in data[:BINARY_SNIFF]


class Repo:
    """The facts about a work tree every scope needs: its top, HEAD (None when unborn), hash kind."""

    __slots__ = ("git_dir", "head", "object_format", "toplevel")

    def __init__(self, toplevel: str, object_format: str, head: str | None, git_dir: str | None = None) -> None:
        self.toplevel = toplevel
        self.object_format = object_format
        self.head = head
        self.git_dir = git_dir or os.path.join(toplevel, ".git")

    def base(self) -> str:
        """What HEAD is for a diff: the commit, or the empty tree before the first commit."""
        return self.head or EMPTY_TREES.get(self.object_format, EMPTY_TREES["sha1"])


class NotARepo(Exception):
    pass


def _git(args: list[str], cwd: str, deadline: float, max_output: int | None = None) -> gitrun.Result:
    """A read-only git call for a scan. git's own variables (a hook's GIT_INDEX_FILE) are kept, and
    `-c` options keep the user's config from changing the diff's format."""
    return gitrun.git([*_CONFIG, *args], cwd, deadline=deadline, env=gitrun.git_env(keep_repo=True),
                      max_output=max_output)


_CONFIG = ["-c", "core.quotePath=true", "-c", "color.ui=never"]


_REPO_ARGS = ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--show-object-format", "--verify", "-q", "HEAD"]


def start_repo(cwd: str, deadline: float) -> gitrun.Running:
    """open_repo()'s git run, started now (beside the scan's other git runs)."""
    return gitrun.start(["git", *_CONFIG, *_REPO_ARGS], cwd, deadline=deadline, env=gitrun.git_env(keep_repo=True))


def open_repo(cwd: str, deadline: float, started: gitrun.Running | None = None) -> Repo:
    """The work tree around CWD; STARTED: start_repo() of the same CWD (used instead of a new git run)."""
    result = started.result() if started is not None else _git(_REPO_ARGS, cwd, deadline)
    lines = result.stdout.decode("utf-8", "surrogateescape").splitlines()
    if result.code not in (0, 1) or len(lines) < 3:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise NotARepo(message[0] if message else f"{cwd} is not inside a git work tree")
    head = lines[3].strip() if result.code == 0 and len(lines) > 3 else None
    return Repo(lines[0], lines[2].strip(), head, lines[1])


class Budget:
    """How many bytes of diff are left to read before the scan gives up."""

    __slots__ = ("left", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.left = limit

    def take(self, size: int) -> None:
        self.left -= size
        if self.left < 0:
            raise TooLarge(f"the diff is over {self.limit // 1024} KiB")


class Pending:
    """A diff started beside other git runs (start_staged, start_outgoing): finish() reads it as
    staged() or outgoing() would have; abandon() when it is not wanted."""

    __slots__ = ("_args", "_budget", "_running", "stdout")

    def __init__(self, args: list[str], cwd: str, deadline: float, budget: Budget) -> None:
        self._args = args
        self._budget = budget
        self._running = gitrun.start(["git", *_CONFIG, *args], cwd, deadline=deadline,
                                     env=gitrun.git_env(keep_repo=True), max_output=budget.left)
        self.stdout: bytes | None = None  # what git printed, once finish() read it

    def finish(self, parents: dict[str, list[str]] | None = None) -> list[FileChange]:
        """The changes (PARENTS: see parse_patch)."""
        return _diff(self._args, "", 0.0, self._budget, self._running, parents, self)

    def names_source(self, *names: str) -> bool:
        """Whether the diff (or a commit's patch) read by finish() touches a file at the top of the
        work tree named one of NAMES (plain names, which git never quotes): adds, changes, removes,
        renames or copies it, or renames or copies a file to it. True when it was not read."""
        data = self.stdout
        if data is None:
            return True
        for name in names:
            old = f"diff --git a/{name} ".encode()
            new = f" b/{name}\n".encode()
            if data.startswith(old) or b"\n" + old in data:
                return True
            for line in data.split(new)[:-1]:  # (each line that ends with NEW: is it a header?)
                if line[line.rfind(b"\n") + 1:].startswith(b"diff --git a/"):
                    return True
        return False

    def abandon(self) -> None:
        self._running.abandon()


def start_staged(cwd: str, deadline: float, budget: Budget) -> Pending:
    """staged(), started now and read by finish()."""
    return Pending(["diff", "--cached", *DIFF_FLAGS], cwd, deadline, budget)


def start_outgoing(cwd: str, deadline: float, budget: Budget, revisions: list[str]) -> Pending:
    """outgoing(), started now and read by finish()."""
    return Pending(_outgoing_args(revisions), cwd, deadline, budget)


def _diff(args: list[str], cwd: str, deadline: float, budget: Budget,
          running: gitrun.Running | None = None, parents: dict[str, list[str]] | None = None,
          pending: Pending | None = None) -> list[FileChange]:
    try:
        result = running.result() if running is not None else _git(args, cwd, deadline, max_output=budget.left)
    except gitrun.Timeout as error:
        if "bytes of output" in str(error):
            raise TooLarge(f"the diff is over {budget.limit // 1024} KiB") from None
        raise
    if result.code != 0:
        message = result.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"git {args[0]} failed: {message}")
    budget.take(len(result.stdout))
    if pending is not None:
        pending.stdout = result.stdout  # (names_source)
    return parse_patch(result.stdout, parents)


def staged(repo: Repo, cwd: str, deadline: float, budget: Budget) -> list[FileChange]:
    return _diff(["diff", "--cached", *DIFF_FLAGS], cwd, deadline, budget)


def tracked(repo: Repo, cwd: str, deadline: float, budget: Budget) -> list[FileChange]:
    return _diff(["diff", *DIFF_FLAGS, repo.base()], cwd, deadline, budget)


def outgoing(repo: Repo, cwd: str, deadline: float, budget: Budget, revisions: list[str],
             parents: dict[str, list[str]] | None = None) -> list[FileChange]:
    """The changes of the commits REVISIONS name (PARENTS: see parse_patch)."""
    return _diff(_outgoing_args(revisions), cwd, deadline, budget, None, parents)


def _outgoing_args(revisions: list[str]) -> list[str]:
    return ["log", "-p", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/",
            "--format=%x00%H %P", *revisions]


def added_paths(repo: Repo, cwd: str, deadline: float, budget: Budget,
                paths: Iterable[str]) -> list[FileChange]:
    """What `git add PATHS` would stage, against HEAD: tracked changes and untracked files."""
    specs = ["--", *paths]
    changes = _diff(["diff", *DIFF_FLAGS, repo.base(), *specs], cwd, deadline, budget)
    untracked = ["ls-files", "-z", "--others", "--exclude-standard", "--full-name", *specs]
    result = _git(untracked, cwd, deadline)
    if result.code != 0:
        message = result.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"git ls-files failed: {message}")
    for raw in result.stdout.split(b"\0"):
        if not raw:
            continue
        name = raw.decode("utf-8", "surrogateescape")
        full = os.path.join(repo.toplevel, name)
        try:
            if os.path.islink(full):
                data = os.readlink(full).encode("utf-8", "surrogateescape")
            else:
                with open(full, "rb") as f:
                    data = f.read(budget.left + 1)
        except OSError:
            continue
        if not data or _is_binary(data):
            continue
        budget.take(len(data))
        change = FileChange(name)
        change.content = data.decode("utf-8", "surrogateescape")
        changes.append(change)
    return changes


def merge(base: list[FileChange], override: list[FileChange]) -> list[FileChange]:
    """BASE with every file OVERRIDE also has replaced by OVERRIDE's version."""
    replaced = {c.path for c in override}
    return [c for c in base if c.path not in replaced] + override
