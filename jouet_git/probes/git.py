"""The git probes that ask git itself: git.state, git.changed, git.ahead, git.lost, git.reflog_only
and git.unreachable.

Each runs one read-only git process through the Probes object (which counts it, bounds it in time
and sets GIT_OPTIONAL_LOCKS=0), in the work tree's root, and turns its output into plain data.

git.ahead asks about more than local branches: its first argument may also be a full ref name
(`refs/remotes/origin/feat`), every ref under a prefix (`refs/remotes/origin/*`) or a stash entry
(`stash@{1}`), and its second may be OTHERS (`*`): every branch, remote-tracking branch and tag but
the refs the first argument names, so the count is what deleting those refs would lose.

git.lost is what overwriting a ref with other commits loses: its commits that no other ref holds
and that the commits put in its place neither hold nor carry a rewritten copy of (the same patch,
as after a rebase). git.reflog_only counts the commits only reflogs keep (what `git reflog expire`
or `git reflog delete` drops), and git.unreachable the commits nothing keeps, not even a reflog,
still in the object store (what `git gc --prune=now` and `git prune` remove).
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.gitdir import Repo
    from jouet_git.probes.core import Probes

# What git's check-ref-format refuses in a branch name (enough to keep rev-list from reading a range).
_BAD_REF = re.compile(r"\.\.|[\x00-\x20\x7f~^:?*\[\\]|@\{|^\.|/\.|\.lock(/|$)|^/|/$|//|\.$|^@$")
_STASH_ENTRY = re.compile(r"stash@\{(0|[1-9][0-9]{0,5})\}")
# git.ahead's `of` that means every branch, remote-tracking branch and tag but the refs asked about.
OTHERS = "*"
# Where each kind of ref lives, and the rev-list option that lists that kind (for --exclude patterns).
_KINDS = (("refs/heads/", "--branches"), ("refs/remotes/", "--remotes"), ("refs/tags/", "--tags"))
# The most reflog entries git.reflog_only passes to one rev-list (each is a commit id).
_MAX_TIPS = 4000


def valid_branch(name: str) -> bool:
    """Whether NAME can be a branch name (so `refs/heads/NAME` is one ref, not a range or pattern)."""
    return bool(name) and _BAD_REF.search(name) is None


def state(runner: Probes, root: str) -> tuple[Any, str | None]:
    """jouet.git.state() of the work tree at ROOT, from one `git status --porcelain=v2 --branch`."""
    code, out, err = runner.run_git(
        ["status", "--porcelain=v2", "--branch", "--show-stash", "-z", "--untracked-files=all",
         "--ignored=matching"], root
    )
    if code != 0:
        return None, f"git status failed in {root}: {_first_line(err)}"
    return parse_status(out), None


def parse_status(out: bytes) -> dict[str, Any]:
    """The state dict from `git status --porcelain=v2 --branch -z` output.

    branch is left out when HEAD is detached, head on an unborn branch, upstream when there is none,
    ahead and behind when git cannot count them (no upstream, or it is gone).

    Four counts are there only when they are not zero: staged (changed files whose index differs
    from HEAD), unstaged (changed files whose work tree differs from the index, deletions
    included), ignored (ignored files, an ignored directory counting once, as `git status
    --ignored=matching` lists them) and stashes (entries in the stash). A file can be both staged
    and unstaged; conflicted files are in neither.
    """
    result: dict[str, Any] = {}
    changed = untracked = conflicted = staged = unstaged = ignored = 0
    records = out.split(b"\0")
    index = 0
    while index < len(records):
        record = records[index]
        index += 1
        if not record:
            continue
        kind = record[:1]
        if kind == b"#":
            _header(record.decode("utf-8", "replace"), result)
        elif kind in (b"1", b"2"):
            changed += 1
            staged += record[2:3] not in (b".", b"")
            unstaged += record[3:4] not in (b".", b"")
            if kind == b"2":
                index += 1  # a rename or copy is followed by the path it came from
        elif kind == b"u":
            conflicted += 1
        elif kind == b"?":
            untracked += 1
        elif kind == b"!":
            ignored += 1
    result["changed"] = changed
    result["untracked"] = untracked
    result["conflicted"] = conflicted
    result["dirty"] = bool(changed or untracked or conflicted)
    for name, count in (("staged", staged), ("unstaged", unstaged), ("ignored", ignored)):
        if count:
            result[name] = count
    return result


def _header(line: str, result: dict[str, Any]) -> None:
    parts = line.split(" ")
    if len(parts) < 3:
        return
    name, value = parts[1], " ".join(parts[2:])
    if name == "branch.oid" and value != "(initial)":
        result["head"] = value[:12]
    elif name == "branch.head" and value != "(detached)":
        result["branch"] = value
    elif name == "branch.upstream":
        result["upstream"] = value
    elif name == "stash" and value.isdigit() and int(value) > 0:
        result["stashes"] = int(value)
    elif name == "branch.ab" and len(parts) == 4:
        try:
            result["ahead"] = int(parts[2].lstrip("+"))
            result["behind"] = int(parts[3].lstrip("-"))
        except ValueError:
            pass


def changed(runner: Probes, root: str, scope: str) -> tuple[Any, str | None]:
    """jouet.git.changed(scope): absolute paths a commit would take.

    "staged": the index against HEAD; "tracked": the work tree's tracked files against HEAD, as
    `git commit -a` takes them. A rename counts as its old path and its new one. "conflicted": the
    paths a merge, rebase, cherry-pick, revert or `git am` left unmerged (each once).
    """
    if scope == "staged":
        args = ["diff", "--cached", "--name-only", "--no-renames", "--ignore-submodules=none", "-z"]
    elif scope == "conflicted":
        args = ["diff", "--name-only", "--diff-filter=U", "-z"]
    else:
        args = ["diff", "HEAD", "--name-only", "--no-renames", "--ignore-submodules=none", "-z", "--"]
    code, out, err = runner.run_git(args, root)
    if code != 0 and scope == "tracked" and b"HEAD" in err:
        # An unborn branch: `git commit -a` takes every index entry still in the work tree.
        code, out, err = runner.run_git(["ls-files", "--cached", "-z"], root)
        if code == 0:
            names = _names(out)
            return [p for p in (os.path.join(root, n) for n in names) if os.path.lexists(p)], None
    if code != 0:
        return None, f"git diff failed in {root}: {_first_line(err)}"
    return [os.path.join(root, name) for name in _names(out)], None


def ahead(runner: Probes, root: str, branch: str, of: str) -> tuple[Any, str | None]:
    """jouet.git.ahead(branch, of): commits on BRANCH that OF does not have.

    BRANCH is a local branch name, a full ref name (`refs/remotes/origin/feat`), every ref under a
    prefix (`refs/remotes/origin/*`) or a stash entry (`stash@{N}`). OF is a revision, or OTHERS
    (`*`): every branch, remote-tracking branch and tag except the refs BRANCH names, so the count
    is what deleting them would lose.
    """
    source = _source(branch)
    if source is None:
        return None, f"no local branch {branch!r}: it is not a valid branch name"
    positive, excludes, shown = source
    if of == OTHERS:
        others = _others(excludes)
        if positive.startswith("--glob="):
            args = ["rev-list", "--count", positive, "--not", *others, "--"]
        else:
            args = ["rev-list", "--count", "--not", *others, "--not", "--end-of-options", positive, "--"]
    elif positive.startswith("--glob="):
        args = ["rev-list", "--count", positive, "--end-of-options", f"^{of}", "--"]
    else:
        args = ["rev-list", "--count", "--end-of-options", positive, f"^{of}", "--"]
    code, out, err = runner.run_git(args, root)
    if code == 0:
        try:
            return int(out.strip()), None
        except ValueError:
            return None, f"git rev-list gave an unexpected answer: {out[:80]!r}"
    message = err.decode("utf-8", "replace")
    if f"'{positive}'" in message or (positive.startswith("stash@") and "stash" in message):
        return None, f"no {shown}"
    if f"'^{of}'" in message:
        return None, f"{of!r} does not resolve to a commit in {root}"
    return None, f"git rev-list failed in {root}: {_first_line(err)}"


def lost(runner: Probes, root: str, ref: str, keep: list[str]) -> tuple[Any, str | None]:
    """jouet.git.lost(ref, keep): commits reachable from REF that no branch, remote-tracking branch
    or tag but REF itself (when it is a ref name) holds, that none of KEEP holds, and that KEEP's
    first revision carries no rewritten copy of (the same patch: `git cherry`'s test). Merge commits
    do not count: their changes are in their parents. This is what moving REF to KEEP, or deleting
    it in favour of KEEP, loses for good. (The pre-push hook asks the same question of the remote's
    old commit in harness/git_events.py.)"""
    source = _source(ref) if ref.startswith("refs/") else (ref, None, f"revision {ref!r}")
    if source is None:
        return None, f"{ref!r} is not a ref name or revision"
    positive, excludes, shown = source
    if positive.startswith("--glob="):
        return None, "jouet.git.lost takes one ref, not a pattern"
    args = ["rev-list", "--no-merges", "--not", *_others(excludes), *keep, "--not", "--end-of-options",
            positive, "--"]
    code, out, err = runner.run_git(args, root)
    if code != 0:
        return None, _unresolved(err, [positive, *keep], shown, root)
    unkept = set(out.split())
    if not unkept or not keep:
        return len(unkept), None
    # Rewritten copies: the left side's commits with no patch-equivalent on the right.
    code, out, err = runner.run_git(
        ["rev-list", "--no-merges", "--left-only", "--cherry-pick", "--end-of-options", f"{positive}...{keep[0]}",
         "--"], root)
    if code != 0:
        return None, _unresolved(err, [positive, *keep], shown, root)
    return len(unkept & set(out.split())), None


def reflog_only(runner: Probes, repo: Repo, refs: list[str] | None, rewrite: bool = False) -> tuple[Any, str | None]:
    """jouet.git.reflog_only(refs): how many commits only the reflog entries REFS name keep.

    REFS: None for every reflog (stash entries included); else reflogs by ref name (`HEAD`,
    `refs/heads/main`, `main`, `stash`), all of whose entries go, or single entries (`HEAD@{1}`).
    A reflog entry keeps two commits, where the ref was and where it went (git's gc keeps both), so
    deleting one entry loses a commit only when no other entry names it; with REWRITE (`git reflog
    delete --rewrite`) the next entry's old value is rewritten too. The reflogs are read as files.
    """
    if refs is None:
        code, out, err = runner.run_git(["rev-list", "--count", "--reflog", "--not", "--all", "--"], repo.root)
        if code != 0:
            return None, f"git rev-list failed in {repo.root}: {_first_line(err)}"
        return int(out.strip() or 0), None
    logs = _reflogs(repo)
    if logs is None:
        return None, "the reflogs are not plain files here (a reftable repository?)"
    dropped: list[str] = []
    for wanted in refs:
        name, _, rest = wanted.partition("@{")
        log = _find_log(logs, name or "HEAD")
        if log is None:
            continue  # no such reflog: nothing dropped
        entries = logs[log]
        if not rest:
            for old, new in entries:
                dropped.extend((old, new))
            entries.clear()
            continue
        index = rest.rstrip("}")
        if not index.isdigit() or int(index) >= len(entries):
            return None, f"no such reflog entry {wanted!r} (only numbered entries are read)"
        position = len(entries) - 1 - int(index)  # the file lists the oldest first
        old, new = entries[position]
        dropped.append(new)
        if rewrite and position + 1 < len(entries):
            newer_old, newer_new = entries[position + 1]
            dropped.append(newer_old)
            entries[position + 1] = (old, newer_new)
        entries[position] = ("", "")
    kept = {sha for entries in logs.values() for pair in entries for sha in pair}
    tips = sorted({sha for sha in dropped if sha and sha not in kept and set(sha) != {"0"}})[:_MAX_TIPS]
    if not tips:
        return 0, None
    others = sorted(sha for sha in kept if sha and set(sha) != {"0"})[:_MAX_TIPS]
    code, out, err = runner.run_git(["rev-list", "--count", "--not", "--all", *others, "--not", *tips, "--"],
                                    repo.root)
    if code != 0:
        return None, f"git rev-list failed in {repo.root}: {_first_line(err)}"
    return int(out.strip() or 0), None


def _reflogs(repo: Repo) -> dict[str, list[tuple[str, str]]] | None:
    """Every reflog of REPO's worktrees, by ref name (`HEAD` for this worktree's, `HEAD@PATH` for
    another's): its (old, new) entries, oldest first. None when there are no reflog files."""
    logs: dict[str, list[tuple[str, str]]] = {}
    common = repo.common_dir
    places = [(os.path.join(repo.git_dir, "logs", "HEAD"), "HEAD")]
    worktrees = os.path.join(common, "worktrees")
    if os.path.isdir(worktrees):
        for name in sorted(os.listdir(worktrees)):
            path = os.path.join(worktrees, name, "logs", "HEAD")
            if os.path.realpath(os.path.dirname(os.path.dirname(path))) != os.path.realpath(repo.git_dir):
                places.append((path, f"HEAD@{name}"))
    if os.path.realpath(common) != os.path.realpath(repo.git_dir):
        places.append((os.path.join(common, "logs", "HEAD"), "HEAD@main"))
    base = os.path.join(common, "logs")
    for folder, _dirs, files in os.walk(os.path.join(base, "refs")):
        for file in files:
            path = os.path.join(folder, file)
            places.append((path, os.path.relpath(path, base).replace(os.sep, "/")))
    found = False
    for path, name in places:
        try:
            with open(path, "rb") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        found = True
        entries: list[tuple[str, str]] = []
        for line in lines:
            parts = line.split(b" ", 2)
            if len(parts) >= 2:
                entries.append((parts[0].decode("ascii", "replace"), parts[1].decode("ascii", "replace")))
        logs[name] = entries
    return logs if found or os.path.isdir(base) else None


def _find_log(logs: dict[str, list[tuple[str, str]]], name: str) -> str | None:
    """The reflog NAME means, as git resolves a short name: HEAD, then refs/NAME, refs/tags/NAME,
    refs/heads/NAME, refs/remotes/NAME."""
    for candidate in (name, f"refs/{name}", f"refs/tags/{name}", f"refs/heads/{name}", f"refs/remotes/{name}"):
        if candidate in logs:
            return candidate
    return None


def unreachable(runner: Probes, root: str) -> tuple[Any, str | None]:
    """jouet.git.unreachable(): how many commits are in the object store that no ref, reflog entry
    or the index reaches: what `git prune` (and `git gc --prune=now`) deletes."""
    code, out, err = runner.run_git(["fsck", "--connectivity-only", "--unreachable", "--no-progress"], root)
    if code not in (0, 1) or (code == 1 and not out):
        return None, f"git fsck failed in {root}: {_first_line(err)}"
    return sum(1 for line in out.splitlines() if line.startswith(b"unreachable commit ")), None


def _unresolved(err: bytes, names: list[str], shown: str, root: str) -> str:
    message = err.decode("utf-8", "replace")
    for name in names:
        if f"'{name}'" in message or f"{name}:" in message:
            return f"{name!r} does not resolve to a commit in {root}"
    return f"git rev-list failed for {shown} in {root}: {_first_line(err)}"


def _source(branch: str) -> tuple[str, tuple[str, str] | None, str] | None:
    """What git.ahead counts from: (the rev-list argument, (the rev-list option listing that kind of
    ref, the --exclude pattern that leaves it out), how to name it in a reason); None when BRANCH
    is none of the names git.ahead takes."""
    if _STASH_ENTRY.fullmatch(branch):
        return branch, None, f"stash entry {branch}"
    if not branch.startswith("refs/"):
        if not valid_branch(branch):
            return None
        return f"refs/heads/{branch}", ("--branches", branch), f"local branch {branch!r}"
    glob = branch.endswith("/*")
    name = branch[:-2] if glob else branch
    if not valid_branch(name) or "/" not in name:
        return None
    exclude: tuple[str, str] | None = None
    for prefix, option in _KINDS:
        if (name + "/").startswith(prefix):
            rest = name[len(prefix):]
            pattern = f"{rest}/*" if glob and rest else ("*" if glob else rest)
            exclude = (option, pattern)
    if glob:
        return f"--glob={branch}", exclude, f"ref under {name}/"
    return branch, exclude, f"ref {branch!r}"


def _others(excludes: tuple[str, str] | None) -> list[str]:
    """rev-list options listing every branch, remote-tracking branch and tag, less EXCLUDES.

    A remote's HEAD (`origin/HEAD`) only points at one of its branches, so it never counts on its
    own: without that, a remote's default branch would always look kept by its own HEAD.
    """
    args: list[str] = []
    for _prefix, option in _KINDS:
        if excludes is not None and excludes[0] == option:
            args.append(f"--exclude={excludes[1]}")
        if option == "--remotes":
            args.append("--exclude=*/HEAD")
        args.append(option)
    return args


def _names(out: bytes) -> list[str]:
    return [os.fsdecode(name) for name in out.split(b"\0") if name]


def _first_line(err: bytes) -> str:
    text = err.decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else "no message"
