"""jouet.stack.layer(): where the current branch sits in a stack of dependent branches.

The first source is gh-stack's state file, `gh-stack` (JSON) in the worktree's git dir or the
repository's common git dir: each stack lists its trunk and its branches bottom to top, so a
branch's parent is the one listed before it, and the first branch's parent is the trunk. Its
parent counts as merged when gh-stack cached the parent's pull request as merged, or when git
reports the parent's upstream branch as gone (`%(upstream:track)` is `[gone]`), which is what
pruning a fetch leaves after a merged pull request's branch was deleted.

The second source is git config as git-town (`git-town-branch.B.parent`) and similar tools
(`branch.B.stackParent`) record it; the trunk is git-town's main branch, or the bottom of the chain
of parents.

The answer is {branch, parent, trunk, parent_merged}. At most one git process runs, and only when
the parent is not the trunk and not already known to be merged.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.claims.repo import Repo
    from jouet_git.probes.core import Probes

STATE_FILE = "gh-stack"
_MAX_STATE_BYTES = 4 << 20


def layer(runner: Probes, repo: Repo) -> tuple[Any, str | None]:
    """The current branch's layer, or None and why there is none."""
    branch, reason = current_branch(runner, repo)
    if branch is None:
        return None, reason
    found, problems = from_gh_stack(repo, branch)
    if found is None:
        found = from_git_config(repo, branch)
    if found is None:
        why = f"no stack tool tracks branch {branch!r}"
        return None, why + (f" ({'; '.join(problems)})" if problems else "")
    parent, trunk, merged = found
    if not merged and parent != trunk:
        merged = upstream_gone(runner, repo.root, parent)
    return {"branch": branch, "parent": parent, "trunk": trunk, "parent_merged": merged}, None


def current_branch(runner: Probes, repo: Repo) -> tuple[str | None, str | None]:
    """The checked-out branch, read from HEAD; git is asked only in a reftable repository."""
    try:
        with open(os.path.join(repo.git_dir, "HEAD"), encoding="utf-8", errors="replace") as handle:
            head = handle.read(4096).strip()
    except OSError as error:
        return None, f"cannot read HEAD in {repo.git_dir}: {error.strerror}"
    if not head.startswith("ref:"):
        return None, "HEAD is detached, so there is no branch to place in a stack"
    ref = head[4:].strip()
    if ref == "refs/heads/.invalid":  # reftable keeps the real HEAD in its tables
        code, out, _err = runner.run_git(["symbolic-ref", "-q", "HEAD"], repo.root)
        if code != 0:
            return None, "HEAD is detached, so there is no branch to place in a stack"
        ref = os.fsdecode(out.strip())
    if not ref.startswith("refs/heads/"):
        return None, f"HEAD points at {ref}, not a branch"
    return ref[len("refs/heads/"):], None


def from_gh_stack(repo: Repo, branch: str) -> tuple[tuple[str, str, bool] | None, list[str]]:
    """(parent, trunk, the cached merged flag of the parent's pull request) from gh-stack's file
    in the worktree's git dir, then the common dir; and what was wrong with files that did not load."""
    problems: list[str] = []
    places = [repo.git_dir] if repo.git_dir == repo.common_dir else [repo.git_dir, repo.common_dir]
    for place in places:
        path = os.path.join(place, STATE_FILE)
        data, problem = _load(path)
        if problem:
            problems.append(problem)
        if data is None:
            continue
        found = find_layer(data, branch)
        if found is not None:
            return found, problems
    return None, problems


def _load(path: str) -> tuple[Any, str | None]:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(_MAX_STATE_BYTES + 1)
    except FileNotFoundError:
        return None, None
    except OSError as error:
        return None, f"cannot read {path}: {error.strerror}"
    if len(raw) > _MAX_STATE_BYTES:
        return None, f"{path} is over 4 MiB"
    try:
        return json.loads(raw), None
    except ValueError as error:
        return None, f"{path} is not valid JSON: {error}"


def find_layer(data: Any, branch: str) -> tuple[str, str, bool] | None:
    """(parent, trunk, parent's merged flag) for BRANCH in gh-stack's state DATA, or None."""
    stacks = data.get("stacks") if isinstance(data, dict) else None
    if not isinstance(stacks, list):
        return None
    for stack in stacks:
        if not isinstance(stack, dict):
            continue
        trunk_entry = stack.get("trunk")
        trunk = trunk_entry.get("branch") if isinstance(trunk_entry, dict) else None
        layers = stack.get("branches")
        if not isinstance(trunk, str) or not isinstance(layers, list):
            continue
        for position, entry in enumerate(layers):
            if not isinstance(entry, dict) or entry.get("branch") != branch:
                continue
            if position == 0:
                return trunk, trunk, False
            below = layers[position - 1]
            if not isinstance(below, dict) or not isinstance(below.get("branch"), str):
                return None
            pull = below.get("pullRequest")
            merged = isinstance(pull, dict) and pull.get("merged") is True
            return below["branch"], trunk, merged
    return None


def from_git_config(repo: Repo, branch: str) -> tuple[str, str, bool] | None:
    """(parent, trunk, False) from git-town's or `branch.B.stackParent` config, or None."""
    from jouet_git.probes.repo import last, read_config

    config = read_config(repo.common_dir, repo.git_dir)
    parents: dict[str, str] = {}
    for key, value in config:
        if not value:
            continue
        if key.startswith("git-town-branch.") and key.endswith(".parent"):
            parents[key[len("git-town-branch."):-len(".parent")]] = value
    for key, value in config:
        if value and key.startswith("branch.") and key.endswith(".stackparent"):
            parents.setdefault(key[len("branch."):-len(".stackparent")], value)
    parent = parents.get(branch)
    if parent is None:
        return None
    trunk = last(config, "git-town.main-branch") or last(config, "git-town.main-branch-name")
    if not trunk:
        trunk = parent
        seen = {branch}
        while trunk in parents and trunk not in seen:
            seen.add(trunk)
            trunk = parents[trunk]
    return parent, trunk, False


def upstream_gone(runner: Probes, root: str, branch: str) -> bool:
    """Whether git reports local BRANCH's upstream as gone (deleted on the remote, then pruned)."""
    from jouet_git.probes.git import valid_branch

    if not valid_branch(branch):
        return False
    code, out, _err = runner.run_git(
        ["for-each-ref", "--format=%(upstream:track)", f"refs/heads/{branch}"], root
    )
    return code == 0 and out.strip() == b"[gone]"
