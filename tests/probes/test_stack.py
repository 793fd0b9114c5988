"""jouet.stack.layer(): gh-stack's state file (worktree or common dir) and git-town's config."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from testing import git, make_repo

from jouet_git.probes.core import Probes


@pytest.fixture
def stacked(tmp_path: Path) -> Path:
    """main -> feat/parser -> feat/cache -> feat/ui, each pushed to a bare remote with an upstream."""
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n"})
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "-u", "origin", "main")
    base = "main"
    for name in ("feat/parser", "feat/cache", "feat/ui"):
        git(repo, "checkout", "-q", "-b", name, base)
        (repo / f"{name.replace('/', '-')}.txt").write_text(name)
        git(repo, "add", ".")
        git(repo, "commit", "-qm", name)
        git(repo, "push", "-q", "-u", "origin", name)
        base = name
    return repo


def gh_stack(merged: dict[str, bool] | None = None) -> dict[str, Any]:
    merged = merged or {}
    layers = []
    for n, name in enumerate(("feat/parser", "feat/cache", "feat/ui")):
        layer: dict[str, Any] = {"branch": name, "head": "0" * 40}
        if name in merged:
            layer["pullRequest"] = {"number": 10 + n, "url": f"https://github.com/o/r/pull/{10 + n}",
                                    "merged": merged[name]}
        layers.append(layer)
    return {
        "schemaVersion": 1,
        "repository": "github.com:o/r",
        "stacks": [
            {"trunk": {"branch": "other-trunk", "head": "1" * 40}, "branches": [{"branch": "unrelated"}]},
            {"trunk": {"branch": "main", "head": "0" * 40}, "branches": layers},
        ],
    }


def write_state(git_dir: Path, data: dict[str, Any]) -> None:
    (git_dir / "gh-stack").write_text(json.dumps(data))


def layer(cwd: Path) -> tuple[Any, str | None, int]:
    p = Probes(str(cwd))
    value, reason = p.stack_layer()
    return value, reason, p.git_processes


def test_the_first_layer_sits_on_the_trunk(stacked: Path) -> None:
    write_state(stacked / ".git", gh_stack())
    git(stacked, "checkout", "-q", "feat/parser")
    value, reason, processes = layer(stacked)
    assert reason is None
    assert value == {"branch": "feat/parser", "parent": "main", "trunk": "main", "parent_merged": False}
    assert processes == 0  # the trunk's state is never asked


def test_an_unmerged_parent(stacked: Path) -> None:
    write_state(stacked / ".git", gh_stack({"feat/parser": False}))
    git(stacked, "checkout", "-q", "feat/cache")
    value, _, processes = layer(stacked)
    assert value == {"branch": "feat/cache", "parent": "feat/parser", "trunk": "main", "parent_merged": False}
    assert processes == 1  # the parent's upstream was checked, and is still there


def test_a_parent_cached_as_merged_needs_no_git(stacked: Path) -> None:
    write_state(stacked / ".git", gh_stack({"feat/parser": True}))
    git(stacked, "checkout", "-q", "feat/cache")
    value, _, processes = layer(stacked)
    assert value["parent_merged"] is True and processes == 0


def test_a_parent_whose_remote_branch_is_gone_counts_as_merged(stacked: Path) -> None:
    write_state(stacked / ".git", gh_stack({"feat/parser": False}))
    git(stacked, "push", "-q", "origin", "--delete", "feat/parser")
    git(stacked, "fetch", "-q", "--prune")
    git(stacked, "checkout", "-q", "feat/cache")
    value, _, processes = layer(stacked)
    assert value["parent"] == "feat/parser" and value["parent_merged"] is True
    assert processes == 1
    # Only the parent's upstream matters: feat/ui's parent, feat/cache, is still on the remote.
    git(stacked, "checkout", "-q", "feat/ui")
    assert layer(stacked)[0]["parent_merged"] is False


def test_the_state_file_in_the_common_dir_serves_a_linked_worktree(stacked: Path, tmp_path: Path) -> None:
    write_state(stacked / ".git", gh_stack())
    git(stacked, "checkout", "-q", "main")
    wt = tmp_path / "wt"
    git(stacked, "worktree", "add", "-q", str(wt), "feat/ui")
    value, reason, _ = layer(wt)
    assert reason is None and value["branch"] == "feat/ui" and value["parent"] == "feat/cache"
    assert layer(stacked)[:2] == (None, "no stack tool tracks branch 'main'")  # the main worktree


def test_the_worktrees_own_state_file_comes_first(stacked: Path, tmp_path: Path) -> None:
    common = gh_stack()
    write_state(stacked / ".git", common)
    git(stacked, "checkout", "-q", "main")
    wt = tmp_path / "wt"
    git(stacked, "worktree", "add", "-q", str(wt), "feat/ui")
    own_git_dir = Path(git(wt, "rev-parse", "--absolute-git-dir").strip())
    own = {"stacks": [{"trunk": {"branch": "develop"}, "branches": [{"branch": "feat/ui"}]}]}
    write_state(own_git_dir, own)
    value, _, _ = layer(wt)
    assert (value["parent"], value["trunk"]) == ("develop", "develop")


def test_a_branch_gh_stack_does_not_track(stacked: Path) -> None:
    write_state(stacked / ".git", gh_stack())
    git(stacked, "checkout", "-q", "-b", "loose")
    assert layer(stacked)[:2] == (None, "no stack tool tracks branch 'loose'")


def test_no_stack_tool_at_all(stacked: Path) -> None:
    assert layer(stacked)[:2] == (None, "no stack tool tracks branch 'feat/ui'")


def test_a_broken_state_file_is_named(stacked: Path) -> None:
    (stacked / ".git" / "gh-stack").write_text("{not json")
    value, reason, _ = layer(stacked)
    assert value is None and reason is not None
    assert "no stack tool tracks branch 'feat/ui'" in reason and "is not valid JSON" in reason


def test_detached_head(stacked: Path) -> None:
    write_state(stacked / ".git", gh_stack())
    git(stacked, "checkout", "-q", "--detach")
    value, reason, _ = layer(stacked)
    assert value is None and reason is not None and "detached" in reason


def test_git_town_parents(stacked: Path) -> None:
    git(stacked, "config", "git-town-branch.feat/parser.parent", "main")
    git(stacked, "config", "git-town-branch.feat/cache.parent", "feat/parser")
    git(stacked, "config", "git-town-branch.feat/ui.parent", "feat/cache")
    value, reason, processes = layer(stacked)
    assert reason is None
    assert value == {"branch": "feat/ui", "parent": "feat/cache", "trunk": "main", "parent_merged": False}
    assert processes == 1
    git(stacked, "push", "-q", "origin", "--delete", "feat/cache")
    git(stacked, "fetch", "-q", "--prune")
    assert layer(stacked)[0]["parent_merged"] is True


def test_git_town_main_branch_setting_names_the_trunk(stacked: Path) -> None:
    git(stacked, "config", "git-town.main-branch", "main")
    git(stacked, "config", "git-town-branch.feat/ui.parent", "feat/cache")
    value, _, _ = layer(stacked)
    assert (value["parent"], value["trunk"]) == ("feat/cache", "main")


def test_branch_stack_parent_config(stacked: Path) -> None:
    git(stacked, "config", "branch.feat/ui.stackParent", "feat/cache")
    git(stacked, "config", "branch.feat/cache.stackParent", "main")
    value, _, _ = layer(stacked)
    assert value == {"branch": "feat/ui", "parent": "feat/cache", "trunk": "main", "parent_merged": False}


def test_gh_stack_wins_over_git_config(stacked: Path) -> None:
    write_state(stacked / ".git", gh_stack())
    git(stacked, "config", "git-town-branch.feat/ui.parent", "main")
    assert layer(stacked)[0]["parent"] == "feat/cache"
