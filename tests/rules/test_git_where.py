"""Where a git command runs: one helper (cmdline.git_where, jouet.git.where in scripts) for every rule.

Every git global option, with or without a value, is skipped on the way to the subcommand, so
`git --attr-source HEAD -C web reset --hard` asks about `web` exactly as `git -C web reset --hard` does.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from testing import git, make_repo
from testing.gitrules import denied, quiet

from jouet_git import cmdline
from jouet_git.call import Call
from jouet_git.engine.decide import decide
from jouet_git.engine.load import load_file
from jouet_git.engine.model import BUILTIN
from jouet_git.engine.scripts import HookScripts

# Every global option git documents, each with a value where it takes one (both spellings).
GLOBAL_OPTIONS: list[list[str]] = [
    ["-c", "core.pager=cat"], ["--config-env", "core.editor=EDITOR"], ["--config-env=core.editor=EDITOR"],
    ["--attr-source", "HEAD"], ["--attr-source=HEAD"], ["--namespace", "ns"], ["--namespace=ns"],
    ["--super-prefix", "sub/"], ["--super-prefix=sub/"], ["--exec-path=/usr/lib/git-core"], ["--exec-path"],
    ["-p"], ["--paginate"], ["-P"], ["--no-pager"], ["--no-replace-objects"], ["--no-lazy-fetch"],
    ["--no-optional-locks"], ["--no-advice"], ["--bare"], ["--literal-pathspecs"], ["--glob-pathspecs"],
    ["--noglob-pathspecs"], ["--icase-pathspecs"], ["--html-path"], ["--man-path"], ["--info-path"],
]


@pytest.mark.parametrize("option", GLOBAL_OPTIONS, ids=lambda o: " ".join(o))
def test_every_global_option_is_skipped_on_the_way_to_the_subcommand(option: list[str]) -> None:
    argv = ["git", *option, "-C", "web", "reset", "--hard"]
    assert cmdline.git_where(argv, None) == "web"
    assert cmdline.git_where(argv, "api") == "api/web"
    assert argv[cmdline.skip_global_options("git", argv, 1)] == "reset"


def test_the_value_options_git_documents_are_all_known() -> None:
    usage = subprocess.run(["git", "-h"], capture_output=True, text=True).stdout
    documented = set(re.findall(r"(--?[a-z][a-z-]*)(?:=| )<", usage))
    assert documented, usage
    assert documented <= cmdline.GLOBAL_VALUE_OPTIONS["git"], documented - cmdline.GLOBAL_VALUE_OPTIONS["git"]


@pytest.mark.parametrize(("argv", "base", "where"), [
    (["git", "status"], None, None),
    (["git", "status"], "api", "api"),
    (["git", "status"], False, False),
    (["git", "-C", "a", "-C", "b", "status"], None, "a/b"),
    (["git", "-C", "/srv/repo", "status"], False, "/srv/repo"),
    (["git", "-C", "~/src/app", "status"], "api", "~/src/app"),
    (["git", "-C", "rel", "status"], False, False),
    (["git", "-C", "", "status"], "api", "api"),
    (["git", "-C"], None, False),
    (["git", "--git-dir=.git", "status"], None, None),
    (["git", "--git-dir=.git", "status"], "api", "api"),
    (["git", "--git-dir=/srv/repo/.git", "status"], "api", "/srv/repo"),
    (["git", "--git-dir", "../r/.git", "status"], "api", "api/../r"),
    (["git", "--git-dir=bare.git", "status"], None, "bare.git"),
    (["git", "--work-tree", "w", "status"], None, "w"),
    (["git", "--git-dir=/r/.git", "--work-tree=/w", "status"], None, "/w"),
    (["git", "-C", "sub", "--git-dir=.git", "status"], None, "sub"),
    (["git", "--git-dir=$X/.git", "status"], None, False),
    (["git", "--git-dir=$HOME/r/.git", "status"], None, "$HOME/r"),
    (["git", "--git-dir=$HOME/.dotfiles", "--work-tree=$HOME", "status"], "api", "$HOME"),
    (["git", "--work-tree=${HOME}", "status"], None, "${HOME}"),
    (["git", "--work-tree=rel", "status"], False, False),
    (["git", "--git-dir"], None, False),
    (["git", "--git-dir=$PWD/.git", "--work-tree=$PWD", "status"], None, None),
    (["git", "-C", "x", "--git-dir=${PWD}/.git", "status"], "api", "api"),
    (["git", "--work-tree=$PWD/sub", "status"], "api", "api/sub"),
    (["git", "status", "-C", "x"], None, None),
])
def test_where_follows_each_dash_c(argv: list[str], base: str | bool | None, where: str | bool | None) -> None:
    assert cmdline.git_where(argv, base) == where


def _where_rule(tmp_path: Path) -> object:
    (tmp_path / "w.luau").write_text(
        "local rule: JouetRule = {\n"
        "  check = function(call: JouetCall): JouetDecision?\n"
        "    local dirs = jouet.dirs(call.commands)\n"
        "    local out = {}\n"
        "    for i, command in call.commands do\n"
        "      table.insert(out, tostring(jouet.git.where(command, dirs[i])))\n"
        "    end\n"
        "    return jouet.deny(table.concat(out, ' '))\n"
        "  end,\n"
        "}\n"
        "return rule\n")
    (tmp_path / "w.toml").write_text(
        '[[rule]]\nname = "where"\nwhy = "testing"\nscript = "w.luau"\n[rule.match]\ncommand = "git"\n'
        '[rule.examples]\nfires = ["git status"]\nquiet = ["ls"]\n')
    [rule] = load_file(str(tmp_path / "w.toml"), BUILTIN, BUILTIN)
    return rule


@pytest.mark.parametrize("option", GLOBAL_OPTIONS, ids=lambda o: " ".join(o))
def test_scripts_get_the_same_answer(tmp_path: Path, option: list[str]) -> None:
    rule = _where_rule(tmp_path)
    words = " ".join(option)
    command = f"cd api && git {words} -C web reset --hard && cd $X && git -C web status && git -C /abs status"
    decision = decide([rule], Call(command=command, cwd=str(tmp_path)), scripts=HookScripts())  # type: ignore[list-item]
    assert decision.deny is not None, decision.errors
    assert decision.deny.message == "nil api/web api false /abs"


def test_attr_source_before_dash_c_asks_the_right_work_tree(tmp_path: Path) -> None:
    top = make_repo(tmp_path / "top")
    web = make_repo(top / "web", {"app.py": "print(1)\n"})
    (web / "app.py").write_text("print(2)\n")
    denied("git -C web reset --hard", top, "reset-hard")
    denied("git --attr-source HEAD -C web reset --hard", top, "reset-hard")
    denied("git --attr-source=HEAD -c core.pager=cat -C web reset --hard", top, "reset-hard")
    git(web, "stash", "push", "-m", "keep")
    quiet("git --attr-source HEAD -C web reset --hard", top)
