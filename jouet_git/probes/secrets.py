"""jouet.secrets.scan(): what gitleaks' rules find in the lines a commit or a push would add.

    findings, reason = scan(cwd, "staged")                      # what `git commit` takes
    findings, reason = scan(cwd, "tracked")                     # what `git commit -a` takes
    findings, reason = scan(cwd, "outgoing")                    # commits on HEAD not on any remote
    findings, reason = scan(cwd, "outgoing", range="OLD..NEW")  # or [(old, new), ...] from pre-push
    findings, reason = scan(cwd, "staged", paths=["src/"])      # plus what `git add src/` would stage

PATHS count for the staged and tracked scopes; an outgoing scan reads only commits.

The config and .gitleaksignore come from the last commit before the change (HEAD for a commit, the
newest commit a remote has for a push), never from the work tree, the index or GITLEAKS_CONFIG:
see jouet_git/gitleaks/committed.py.

findings is a list of {"rule", "path", "line", "commit", "match", "fingerprint"} (match is redacted;
the secret itself is never read back from gitleaks), or None with the reason: gitleaks is missing,
this is not a git work tree, the diff is over the size limit (1 MiB), or the scan ran out of its
budget (5 s by default, capped by `deadline`). An empty list means nothing was found, or that the
lines to scan hold no keyword of any rule in the config gitleaks would use, so gitleaks did not run.

The probe only reads: git runs with GIT_OPTIONAL_LOCKS=0, nothing is staged, no object is written.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from jouet_git.gitleaks.diff import FileChange

SCOPES = ("staged", "tracked", "outgoing")
DEFAULT_BUDGET = 5.0  # seconds (times JOUET_BUDGET_SCALE); scans run only on commits and pushes
MAX_DIFF_BYTES = 1 << 20
ZERO_OID = frozenset({"0" * 40, "0" * 64})


class ScanInfo:
    """What the last scan did, for tests, the bench and the summary `jouet secrets scan` prints."""

    __slots__ = ("allowlists", "bytes", "commits", "files", "gitleaks", "gitleaks_ran", "precheck", "too_large")

    def __init__(self) -> None:
        self.files = 0
        self.commits = 0  # outgoing scans: the commits read
        self.bytes = 0  # the diff read, in bytes
        self.gitleaks_ran = False
        self.gitleaks = ""  # the binary that ran (or would have)
        self.precheck = ""
        self.too_large = False  # stopped at the size limit
        self.allowlists = ""  # where the config and .gitleaksignore came from


LAST = ScanInfo()


def _revisions(range_: str | Sequence[tuple[str, str]] | None) -> list[str]:
    """git log arguments for the outgoing commits."""
    if range_ is None:
        return ["HEAD", "--not", "--remotes"]
    if isinstance(range_, str):
        if not range_ or range_.startswith("-") or any(c.isspace() for c in range_):
            raise ValueError(f"not a revision range: {range_!r}")
        return [range_]
    include: list[str] = []
    exclude: list[str] = []
    new_branch = False
    for old, new in range_:
        for oid in (old, new):
            if oid.startswith("-") or any(c.isspace() for c in oid):
                raise ValueError(f"not an object name: {oid!r}")
        if new in ZERO_OID:
            continue  # a deletion pushes no commit
        include.append(new)
        if old in ZERO_OID:
            new_branch = True
        else:
            exclude.append(f"^{old}")
    if not include:
        return []
    return include + exclude + (["--not", "--remotes"] if new_branch else [])


def scan(
    cwd: str,
    scope: str = "staged",
    paths: list[str] | None = None,
    deadline: float | None = None,
    range: str | Sequence[tuple[str, str]] | None = None,
    budget: float | None = None,
    max_bytes: int = MAX_DIFF_BYTES,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[dict[str, Any]] | None, str | None]:
    """Scan SCOPE of the repository at CWD with gitleaks; see the module docstring."""
    global LAST, _AHEAD
    LAST = ScanInfo()
    ahead, _AHEAD = _AHEAD, None
    if ahead is not None and ahead.key == _key(cwd, scope, paths, deadline, range, budget, max_bytes):
        started = ahead.started
    else:
        if ahead is not None:
            ahead.abandon()
        started = _begin(cwd, scope, paths, deadline, range, budget, max_bytes)
    if isinstance(started, str):
        return None, started
    LAST.gitleaks = started.gitleaks
    if progress is not None:
        progress("reading the commits" if scope == "outgoing" else f"reading the {scope} changes")
    try:
        return _scan(cwd, scope, paths, started, progress)
    finally:
        started.abandon()


class _Started:
    """A scan's first steps (_begin): its limits, and the git runs that need no answer from the
    repository, already running (EARLY: each taken out of it as it is used, the rest abandoned)."""

    __slots__ = ("allow_absent", "budget", "choice", "early", "end", "gitleaks", "layout", "parents", "revisions",
                 "size")

    def __init__(self, budget: float, end: float, choice: Any, revisions: list[str], size: Any) -> None:
        self.budget = budget
        self.end = end
        self.choice = choice
        self.gitleaks: str = choice.path
        self.revisions = revisions
        self.size = size
        self.early: dict[str, Any] = {}
        # The work tree and HEAD, read from its files instead of asked of `git rev-parse` (_layout).
        self.layout: Any = None
        # An outgoing scan's commits and their parents, as its `git log` printed them.
        self.parents: dict[str, list[str]] = {}
        # Whether the allowlist files are known to be absent unless the diff says otherwise, and so
        # not read ahead: for the staged changes, the index holds neither (HEAD has one only if the
        # staged diff removes or renames it: _head_allowlists); for a push, HEAD's tree holds
        # neither (the boundary has one only if an outgoing commit touches it: _boundary_allowlists).
        self.allow_absent = False

    def abandon(self) -> None:
        early, self.early = self.early, {}
        for running in early.values():
            running.abandon()


class _Ahead:
    """A scan begun before it was asked for (read_ahead), and the arguments it was begun with."""

    __slots__ = ("key", "started")

    def __init__(self, key: tuple[Any, ...], started: _Started | str) -> None:
        self.key = key
        self.started = started  # (or why it could not begin)

    def abandon(self) -> None:
        if isinstance(self.started, _Started):
            self.started.abandon()


_AHEAD: _Ahead | None = None


def _key(cwd: str, scope: str, paths: list[str] | None, deadline: float | None,
         range_: str | Sequence[tuple[str, str]] | None, budget: float | None, max_bytes: int) -> tuple[Any, ...]:
    fixed = range_ if range_ is None or isinstance(range_, str) else tuple(tuple(pair) for pair in range_)
    return (cwd, scope, None if paths is None else tuple(paths), deadline, fixed, budget, max_bytes)


def read_ahead(cwd: str, scope: str = "staged", deadline: float | None = None,
               range: str | Sequence[tuple[str, str]] | None = None) -> None:
    """Begin the scan scan(CWD, SCOPE, deadline=DEADLINE, range=RANGE) will be asked for: its git runs
    start now, beside whatever comes before the question (a rule script's Lua VM starting). A scan
    asked with other arguments abandons them and begins afresh; so does the next read_ahead.
    abandon_ahead() abandons one never asked for."""
    global _AHEAD
    abandon_ahead()
    key = _key(cwd, scope, None, deadline, range, None, MAX_DIFF_BYTES)
    _AHEAD = _Ahead(key, _begin(cwd, scope, None, deadline, range, None, MAX_DIFF_BYTES))


def abandon_ahead() -> None:
    """Abandon the git runs of a read_ahead() no scan asked for."""
    global _AHEAD
    ahead, _AHEAD = _AHEAD, None
    if ahead is not None:
        ahead.abandon()


def _begin(cwd: str, scope: str, paths: list[str] | None, deadline: float | None,
           range_: str | Sequence[tuple[str, str]] | None, budget: float | None, max_bytes: int) -> _Started | str:
    """A scan's first steps: its limits, gitleaks found, and the git runs that need no answer from
    the repository started; or why the scan cannot run."""
    import time

    if scope not in SCOPES:
        return f"unknown scope {scope!r}: use staged, tracked or outgoing"
    if budget is None:
        from jouet_git import budgets

        budget = budgets.secrets()  # 5 s, times JOUET_BUDGET_SCALE
    end = time.monotonic() + budget
    if deadline is not None:
        end = min(end, deadline)

    from jouet_git import gitrun
    from jouet_git.gitleaks import binary as gl_binary
    from jouet_git.gitleaks import diff

    # Found here, checked against the official release (ready) only once it is to be read or run.
    choice = gl_binary.which(check=False)
    if choice is None or choice.problem:
        return choice.problem if choice is not None else gl_binary.INSTALL_HINT
    try:
        revisions = _revisions(range_) if scope == "outgoing" else []
    except ValueError as error:
        return str(error)
    started = _Started(budget, end, choice, revisions, diff.Budget(max_bytes))
    from jouet_git.gitleaks import committed

    # Each git costs about a millisecond to start, mostly outside this process: what does not need
    # another's answer starts now and runs beside the others (the staged diff of a plain commit, a
    # push's commits with their parents and the reader of its boundary's allowlists, HEAD's
    # allowlists, and `git rev-parse` where the files do not say where the work tree is). Whatever
    # is not used is abandoned. Where the work tree is and the commit HEAD names are read from the
    # files where they can be: HEAD's allowlists are then asked of that very commit.
    started.layout, found = _layout(cwd)
    head = started.layout.head if started.layout is not None else "HEAD"
    early = started.early
    try:
        if scope == "staged" and not paths:
            early["diff"] = diff.start_staged(cwd, end, started.size)
        elif scope == "outgoing" and revisions:
            early["diff"] = diff.start_outgoing(cwd, end, started.size, revisions)
            started.allow_absent = range_ is None and _head_lacks_allowlists(started.layout, found)
            if not started.allow_absent:
                early["allow"] = committed.start_files_reader(cwd, end)  # asked once the boundary is known
        if scope == "staged" and "diff" in early and found is not None and started.layout is not None:
            from jouet_git.gitdir import index_holds_top

            size = 32 if started.layout.object_format == "sha256" else 20
            started.allow_absent = index_holds_top(found, (committed.CONFIG, committed.IGNORE), size, cwd) is False
        if scope != "outgoing" and not started.allow_absent:
            early["allow"] = committed.start_head_files(cwd, end, head)
        if started.layout is None:
            early["repo"] = diff.start_repo(cwd, end)
    except gitrun.Timeout:
        started.abandon()
        return f"the secret scan ran out of its {budget:g} s budget while reading the diff"
    except (gitrun.GitMissing, OSError) as error:
        started.abandon()
        return str(error)
    return started


def _layout(cwd: str) -> tuple[Any, Any]:
    """The work tree around CWD and the commit HEAD names, read from its files (diff.Repo), where git
    would find the same: not when a variable such as GIT_DIR or GIT_WORK_TREE or
    GIT_CEILING_DIRECTORIES changes where git looks, nor before the first commit (which hash the
    repository uses is then git's to say), nor when the files leave the commit unsure
    (gitdir.head_commit). None: ask `git rev-parse`. With it, the repository found (gitdir.Repo)."""
    if any(os.environ.get(name) for name in _LAYOUT_VARIABLES):
        return None, None
    from jouet_git import gitdir
    from jouet_git.gitleaks import diff

    found = gitdir.find(cwd)
    if found is None:
        return None, None
    known, head = gitdir.head_commit(found)
    if not known or head is None:
        return None, None
    return diff.Repo(found.root, "sha256" if len(head) == 64 else "sha1", head, found.git_dir), found


_LAYOUT_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_NAMESPACE",
                     "GIT_DISCOVERY_ACROSS_FILESYSTEM")


def _repository(cwd: str, started: _Started) -> Any:
    """The work tree the scan reads (diff.Repo): read from its files, or else from `git rev-parse`."""
    from jouet_git.gitleaks import diff

    if started.layout is not None:
        return started.layout
    return diff.open_repo(cwd, started.end, started.early.pop("repo", None))


def _scan(cwd: str, scope: str, paths: list[str] | None, started: _Started,
          progress: Callable[[str], None] | None) -> tuple[list[dict[str, Any]] | None, str | None]:
    """scan() once its first steps are taken (STARTED: see _begin)."""
    from jouet_git import gitrun
    from jouet_git.gitleaks import binary as gl_binary
    from jouet_git.gitleaks import diff, precheck

    revisions, end, size, budget = started.revisions, started.end, started.size, started.budget
    gitleaks, choice, early = started.gitleaks, started.choice, started.early
    pending = early.pop("diff", None)
    try:
        repo = _repository(cwd, started)
        changes = _changes(diff, repo, cwd, scope, paths, revisions, end, size, pending, started.parents)
    except diff.NotARepo as error:
        return None, f"not a git work tree: {error}"
    except diff.TooLarge as error:
        LAST.too_large = True
        return None, f"{error}, the limit for a secret scan: run `gitleaks git` by hand"
    except gitrun.Timeout:
        return None, f"the secret scan ran out of its {budget:g} s budget while reading the diff"
    except (RuntimeError, OSError) as error:
        return None, str(error)
    LAST.files = len(changes)
    LAST.bytes = size.limit - size.left
    LAST.commits = len({c.commit for c in changes if c.commit})
    if not changes:
        LAST.precheck = "nothing to scan"
        return [], None

    from jouet_git.gitleaks import committed
    from jouet_git.gitleaks.summary import generated_default
    from jouet_git.gitleaks.workdir import CannotMake, WorkDir

    work = WorkDir()
    try:
        try:
            if scope == "outgoing":
                base = committed.boundary(repo.toplevel, revisions, end, started.parents)
                allow = committed.prepare(repo.toplevel, base, work, end, early.pop("allow", None),
                                          _boundary_allowlists(started, pending))
            else:
                allow = committed.prepare(repo.toplevel, repo.head, work, end, early.pop("allow", None),
                                          _head_allowlists(started, pending))
        except gitrun.Timeout:
            return None, f"the secret scan ran out of its {budget:g} s budget while reading the allowlists"
        except CannotMake as error:
            return None, str(error)
        except (RuntimeError, OSError) as error:
            return None, f"cannot read the allowlists of the last commit: {error}"
        LAST.allowlists = allow.describe()
        summary = generated_default(gitleaks) if allow.source.kind == "default" else None
        if summary is None:  # another config than the generated default: read the long way
            if gl_binary.ready(choice).problem:
                return None, choice.problem
            from jouet_git.gitleaks import config

            summary, why = config.summarize(gitleaks, allow.source, repo.toplevel)
        if summary is None:
            LAST.precheck = f"cannot pre-check ({why}): running gitleaks"
        else:
            if progress is not None:
                progress(f"looking for gitleaks keywords in {_files(len(changes))}")
            needed, LAST.precheck = precheck.must_scan(summary, _fragments(changes, scope))
            if not needed:
                return [], None

        if progress is not None:
            progress(f"scanning {_files(len(changes))} with gitleaks")
        if gl_binary.ready(choice).problem:
            return None, choice.problem
        LAST.gitleaks_ran = True
        from jouet_git.gitleaks import scanner

        try:
            if scope == "outgoing":
                found = scanner.scan_log(gitleaks, repo.toplevel, repo.git_dir, revisions, allow, work, end)
            else:
                found = scanner.scan_tree(gitleaks, changes, allow, work, end)
        except gitrun.Timeout:
            return None, f"gitleaks ran out of the {budget:g} s budget of a secret scan and was stopped"
        except (scanner.ScanFailed, CannotMake) as error:
            return None, str(error)
        except OSError as error:
            return None, f"cannot run gitleaks ({gitleaks}): {error.strerror}"
        return found, None
    finally:
        work.remove()


def _head_lacks_allowlists(layout: Any, found: Any) -> bool:
    """Whether HEAD's tree surely holds neither allowlist file, read from its loose objects
    (gitdir.top_of_commit); False when unsure."""
    if layout is None or found is None or layout.head is None:
        return False
    from jouet_git.gitdir import top_of_commit
    from jouet_git.gitleaks import committed

    names = top_of_commit(found, layout.head)
    return names is not None and committed.CONFIG not in names and committed.IGNORE not in names


def _boundary_allowlists(started: _Started, pending: Any) -> dict[str, bytes] | None:
    """The boundary commit's allowlist files of a push (HEAD and the commits before it that no remote
    has), when known without asking git: none, when HEAD's tree holds neither (_Started.allow_absent),
    the outgoing commits are one line of single-parent commits from one boundary, and none of their
    patches (PENDING, read) touches either file, so that the boundary's are HEAD's. None: read them."""
    from jouet_git.gitleaks import committed

    if not started.allow_absent or pending is None or not started.parents:
        return None
    parents = started.parents
    if any(len(p) != 1 for p in parents.values()):
        return None  # a merge: its patch is not in the log, and its other parent is a second boundary
    if len({p[0] for p in parents.values() if p[0] not in parents}) != 1:
        return None
    if pending.names_source(committed.CONFIG, committed.IGNORE):
        return None
    return {}


def _head_allowlists(started: _Started, pending: Any) -> dict[str, bytes] | None:
    """HEAD's allowlist files when they are known without asking git: none, when the index holds
    neither (_Started.allow_absent) and the staged diff (PENDING, read) neither removes nor renames
    one (HEAD's files are the index's but for what the diff changes). None: read them from HEAD."""
    from jouet_git.gitleaks import committed

    if not started.allow_absent or pending is None or pending.names_source(committed.CONFIG, committed.IGNORE):
        return None
    return {}


def _files(count: int) -> str:
    return f"{count} changed file" if count == 1 else f"{count} changed files"


def _changes(diff: Any, repo: Any, cwd: str, scope: str, paths: list[str] | None, revisions: list[str],
             end: float, size: Any, started: Any, parents: dict[str, list[str]]) -> list[FileChange]:
    """The changes SCOPE takes; STARTED: their diff, started early (diff.Pending), or None. PARENTS
    gets an outgoing scan's commits and their parents."""
    if scope == "outgoing":
        if not revisions or (repo.head is None and revisions[0] == "HEAD"):
            if started is not None:
                started.abandon()
            return []  # nothing pushed, or no commit yet
        changes: list[FileChange] = (started.finish(parents) if started is not None
                                     else diff.outgoing(repo, cwd, end, size, revisions, parents))
        return changes
    if started is not None:
        changes = started.finish()
    else:
        read = diff.staged if scope == "staged" else diff.tracked
        changes = read(repo, cwd, end, size)
    if paths:
        changes = diff.merge(changes, diff.added_paths(repo, cwd, end, size, paths))
    return changes


def _fragments(changes: list[FileChange], scope: str) -> list[Any]:
    """What gitleaks will scan as separate pieces: each hunk of a commit, or each sparse file."""
    from jouet_git.gitleaks.precheck import Fragment

    if scope == "outgoing":
        return [Fragment(c.path, hunk.fragment_text()) for c in changes for hunk in c.hunks]
    return [Fragment(c.path, c.sparse_text()) for c in changes]
