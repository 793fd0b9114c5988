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
    import time

    global LAST
    LAST = ScanInfo()
    if scope not in SCOPES:
        return None, f"unknown scope {scope!r}: use staged, tracked or outgoing"
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
        return None, choice.problem if choice is not None else gl_binary.INSTALL_HINT
    gitleaks = choice.path
    LAST.gitleaks = gitleaks
    try:
        revisions = _revisions(range) if scope == "outgoing" else []
    except ValueError as error:
        return None, str(error)
    if progress is not None:
        progress("reading the commits" if scope == "outgoing" else f"reading the {scope} changes")
    size = diff.Budget(max_bytes)
    from jouet_git.gitleaks import committed

    # Each git costs about a millisecond to start, mostly outside this process: what does not need
    # the repository's answer starts now and runs beside it (the staged diff of a plain commit, the
    # outgoing commits and their boundary, HEAD's allowlists). Whatever is not used is abandoned.
    early: dict[str, Any] = {}
    try:
        try:
            if scope == "staged" and not paths:
                early["diff"] = diff.start_staged(cwd, end, size)
            elif scope == "outgoing" and revisions:
                early["diff"] = diff.start_outgoing(cwd, end, size, revisions)
                early["boundary"] = committed.start_boundary(cwd, revisions, end)
            if scope != "outgoing":
                early["allow"] = committed.start_head_files(cwd, end)
        except gitrun.Timeout:
            return None, f"the secret scan ran out of its {budget:g} s budget while reading the diff"
        except (gitrun.GitMissing, OSError) as error:
            return None, str(error)
        return _scan(cwd, scope, paths, revisions, end, size, budget, gitleaks, choice, early, progress)
    finally:
        for running in early.values():
            running.abandon()


def _scan(cwd: str, scope: str, paths: list[str] | None, revisions: list[str], end: float, size: Any,
          budget: float, gitleaks: str, choice: Any, early: dict[str, Any],
          progress: Callable[[str], None] | None) -> tuple[list[dict[str, Any]] | None, str | None]:
    """scan() once the git runs that need no answer from the repository have started (EARLY: each
    taken out of it as it is used)."""
    from jouet_git import gitrun
    from jouet_git.gitleaks import binary as gl_binary
    from jouet_git.gitleaks import diff, precheck

    try:
        repo = diff.open_repo(cwd, end)
        changes = _changes(diff, repo, cwd, scope, paths, revisions, end, size, early.pop("diff", None))
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

    work = _work_dir()
    try:
        try:
            if scope == "outgoing":
                base = committed.boundary(repo.toplevel, revisions, end, early.pop("boundary", None))
                allow = committed.prepare(repo.toplevel, base, work, end)
            else:
                allow = committed.prepare(repo.toplevel, repo.head, work, end, early.pop("allow", None))
        except gitrun.Timeout:
            return None, f"the secret scan ran out of its {budget:g} s budget while reading the allowlists"
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
        except scanner.ScanFailed as error:
            return None, str(error)
        except OSError as error:
            return None, f"cannot run gitleaks ({gitleaks}): {error.strerror}"
        return found, None
    finally:
        _remove(work)


def _work_dir() -> str:
    """A new private directory for one scan (what tempfile.mkdtemp makes, without importing tempfile
    and random on every commit's hook)."""
    base = os.environ.get("TMPDIR") or "/tmp"
    for _ in range(100):
        path = os.path.join(base, f"jouet-secrets-{os.urandom(6).hex()}")
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            continue
        return path
    raise OSError(f"cannot make a private directory in {base} for the secret scan")


def _remove(work: str) -> None:
    """Remove WORK, the scan's own directory, and what the scan wrote in it (never raises)."""
    for base, dirs, files in os.walk(work, topdown=False):
        for name in files:
            _quietly(os.unlink, os.path.join(base, name))
        for name in dirs:
            path = os.path.join(base, name)
            _quietly(os.unlink if os.path.islink(path) else os.rmdir, path)
    _quietly(os.rmdir, work)


def _quietly(remove: Any, path: str) -> bool:
    """REMOVE(PATH); whether it worked."""
    try:
        remove(path)
    except OSError:
        return False
    return True


def _files(count: int) -> str:
    return f"{count} changed file" if count == 1 else f"{count} changed files"


def _changes(diff: Any, repo: Any, cwd: str, scope: str, paths: list[str] | None, revisions: list[str],
             end: float, size: Any, started: Any) -> list[FileChange]:
    """The changes SCOPE takes; STARTED: their diff, started early (diff.Pending), or None."""
    if scope == "outgoing":
        if not revisions or (repo.head is None and revisions[0] == "HEAD"):
            if started is not None:
                started.abandon()
            return []  # nothing pushed, or no commit yet
        changes: list[FileChange] = (started.finish() if started is not None
                                     else diff.outgoing(repo, cwd, end, size, revisions))
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
