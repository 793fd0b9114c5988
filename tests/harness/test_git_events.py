"""pre-commit Calls, the post-checkout notice after a fresh clone, and what the git adapter imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from testing import git, make_repo
from testing.githooks import ZERO, capture_hook, captured, rev, write_script

from jouet_git.call import KIND_SHELL, PRE_TOOL_USE
from jouet_git.harness.git_events import post_checkout_notice, pre_commit_calls, shipped_rule_files

SHIPPED = {
    ".jouet/rules/team.toml": (
        '[[rule]]\nname = "no-push-main"\nwhy = "x"\n\n[[rule]]\nname = "no-amend"\nwhy = "y"\n'
    ),
    ".jouet/rules/team.luau": "return nil\n",
    ".jouet/check.luau": "return nil\n",
    ".jouet/plugins.toml": '[[plugin]]\nname = "acme"\nurl = "https://example.com/acme.git"\n',
    "README.md": "hello\n",
}


def clone_argv(source: Path, tmp_path: Path, name: str = "clone") -> tuple[Path, list[str]]:
    """Clone SOURCE through a template whose post-checkout hook records git's argv; return both."""
    template = tmp_path / f"{name}-template"
    into = tmp_path / f"{name}-captured"
    write_script(
        template / "hooks" / "post-checkout",
        f"#!/bin/sh\nmkdir -p '{into}'\nprintf '%s\\n' \"$@\" > '{into}/argv'\n: > '{into}/stdin'\n",
    )
    clone = tmp_path / name
    git(tmp_path, "clone", "-q", "--template", str(template), str(source), str(clone))
    argv, _ = captured(into)
    return clone, argv


def test_pre_commit_is_one_git_commit_call_at_the_root(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "a" / "b").mkdir(parents=True)
    for where in (repo, repo / "a" / "b"):
        [call] = pre_commit_calls(str(where))
        assert call.command == "git commit"
        assert (call.event, call.harness, call.tool, call.kind) == (PRE_TOOL_USE, "git", "git", KIND_SHELL)
        assert call.cwd == str(repo)


def test_a_fresh_clone_lists_what_the_repository_ships(tmp_path: Path) -> None:
    source = make_repo(tmp_path / "source", SHIPPED)
    clone, argv = clone_argv(source, tmp_path)
    assert argv == [ZERO, rev(source, "HEAD"), "1"]

    notice = post_checkout_notice(argv, str(clone))

    assert notice is not None
    assert ".jouet/rules/team.toml" in notice and "no-push-main, no-amend" in notice
    assert ".jouet/rules/team.luau" in notice and ".jouet/check.luau" in notice
    assert ".jouet/plugins.toml" in notice and "acme (https://example.com/acme.git)" in notice
    assert "`jouet trust --show`" in notice and "`jouet trust`" in notice
    assert "README" not in notice


def test_no_notice_for_ordinary_checkouts_or_plain_repositories(tmp_path: Path) -> None:
    source = make_repo(tmp_path / "source", SHIPPED)
    into = tmp_path / "captured"
    capture_hook(source, "post-checkout", into)
    git(source, "checkout", "-q", "-b", "other")
    argv, _ = captured(into)
    assert argv[0] != ZERO
    assert post_checkout_notice(argv, str(source)) is None

    plain = make_repo(tmp_path / "plain")
    clone, argv = clone_argv(plain, tmp_path, "plain-clone")
    assert argv[0] == ZERO
    assert post_checkout_notice(argv, str(clone)) is None
    assert post_checkout_notice([], str(clone)) is None


def test_a_file_that_does_not_parse_is_named_not_run(tmp_path: Path) -> None:
    source = make_repo(tmp_path / "source", {".jouet/rules/bad.toml": "[[rule]]\nname = \n"})
    clone, argv = clone_argv(source, tmp_path)
    notice = post_checkout_notice(argv, str(clone))
    assert notice is not None and ".jouet/rules/bad.toml" in notice and "does not parse" in notice
    assert "line 2" in notice


def test_names_from_the_repository_cannot_drive_the_terminal(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {".jouet/rules/x.toml": '[[rule]]\nname = "evil\\u001b[2Jname"\n'})
    notice = post_checkout_notice([ZERO, rev(repo, "HEAD"), "1"], str(repo))
    assert notice is not None and "\x1b" not in notice and "evil?[2Jname" in notice


def test_symbolic_links_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "rules").mkdir(parents=True)
    (outside / "rules" / "secret.toml").write_text('[[rule]]\nname = "from-outside"\n')
    repo = make_repo(tmp_path / "r", {"README.md": "x\n"})
    (repo / ".jouet").symlink_to(outside)
    assert shipped_rule_files(str(repo)) == [(".jouet", "a symbolic link, not followed")]
    (repo / ".jouet").unlink()
    (repo / ".jouet" / "rules").mkdir(parents=True)
    (repo / ".jouet" / "rules" / "link.toml").symlink_to(outside / "rules" / "secret.toml")
    notice = post_checkout_notice([ZERO, rev(repo, "HEAD"), "1"], str(repo))
    assert notice is not None and "from-outside" not in notice and "not read" in notice


def test_the_git_adapter_imports_nothing_heavy(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    code = (
        "import sys, json\n"
        "import jouet_git.harness.git_events as g\n"
        "after_import = set(sys.modules)\n"
        f"g.pre_commit_calls({str(repo)!r})\n"
        "after_call = set(sys.modules)\n"
        "print(json.dumps([sorted(after_import), sorted(after_call)]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    after_import, after_call = (set(names) for names in json.loads(proc.stdout))
    heavy = {
        "typing", "subprocess", "pathlib", "dataclasses", "tomli", "tomlkit", "filelock", "git", "argparse",
    }
    assert not heavy & after_import
    # at the top of a work tree (where git runs hooks) a pre-commit call starts no process
    assert not heavy & after_call


def test_a_real_pre_commit_hook_sees_the_work_tree_root(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    into = tmp_path / "captured"
    capture_hook(repo, "pre-commit", into)
    (repo / "deep").mkdir()
    (repo / "deep" / "f").write_text("f\n")
    git(repo / "deep", "add", "f")
    git(repo / "deep", "commit", "-q", "-m", "f")
    hook_cwd = (into / "cwd").read_text().strip()
    [call] = pre_commit_calls(hook_cwd)
    assert call.cwd == str(repo)
