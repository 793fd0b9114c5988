"""The reader's verdict travels with the Call: rules and scripts can tell a command read in full from
one the reader gave up on partway."""

from __future__ import annotations

from pathlib import Path

from jouet_git.call import Call
from jouet_git.engine.decide import decide
from jouet_git.engine.load import load_file
from jouet_git.engine.model import BUILTIN
from jouet_git.engine.scripts import HookScripts


def test_a_complete_command_has_no_problems() -> None:
    call = Call(command="git status && echo 'done'")
    assert not call.incomplete
    assert call.problems == []


def test_an_unclosed_quote_makes_the_call_incomplete() -> None:
    call = Call(command="git commit -m 'never closed")
    assert call.incomplete
    assert any("quote" in p for p in call.problems), call.problems
    assert [c.program for c in call.commands] == ["git"]


def test_a_file_tool_call_is_never_incomplete() -> None:
    assert not Call(tool="Edit", kind="edit", path="a.py").incomplete


def test_scripts_see_the_verdict(tmp_path: Path) -> None:
    (tmp_path / "v.luau").write_text(
        "return { check = function(call)\n"
        "  return jouet.deny(tostring(call.incomplete) .. ':' .. #call.problems)\n"
        "end }\n")
    (tmp_path / "v.toml").write_text(
        '[[rule]]\nname = "verdict"\nwhy = "testing"\nscript = "v.luau"\n[rule.match]\ncommand = "git"\n'
        '[rule.examples]\nfires = ["git status"]\nquiet = ["ls"]\n')
    [rule] = load_file(str(tmp_path / "v.toml"), BUILTIN, BUILTIN)
    scripts = HookScripts()
    whole = decide([rule], Call(command="git status"), scripts=scripts)
    assert whole.deny is not None and whole.deny.message == "false:0"
    broken = decide([rule], Call(command="git status; echo \"open"), scripts=scripts)
    assert broken.deny is not None and broken.deny.message == "true:1"
