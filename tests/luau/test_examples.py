"""The rule reference's example scripts, translated and run against a fake `call` and `jouet`.

The fake `jouet` module stands in for the sandbox's (written by another part of the project): its
decisions are plain tables, and `jouet.git.state` answers from the test. The call tables have the
fields the reference gives a script (commands with program and argv).
"""

from __future__ import annotations

from typing import Any

import pytest
from testing.luau import run_luau

LONG_SLEEP = """--!strict
local rule: JouetRule = {
  check = function(call: JouetCall): JouetDecision?
    for _, command in call.commands do
      local seconds = tonumber(command.argv[2])
      if command.program == "sleep" and seconds and seconds >= 10 then
        return jouet.warn("Wait for what you need with `jouet wait` instead of sleeping.")
      end
    end
    return nil
  end,
}
return rule
"""

GIT_STATE = """local rule = {
  check = function(call)
    local state = jouet.git.state()
    if state and state.behind and state.behind > 0 then
      return jouet.warn(`{state.branch} is {state.behind} commits behind {state.upstream}`)
    end
    return nil
  end,
}
return rule
"""

FAKE_JOUET = """
jouet = {
  warn = function(message) return { kind = "warn", message = message } end,
  deny = function(message) return { kind = "deny", message = message } end,
  allow = function() return { kind = "allow" } end,
  git = { state = function() return git_state end },
}
"""


def command(words: list[str]) -> str:
    argv = ", ".join(f'"{w}"' for w in words)
    return f'{{ program = "{words[0]}", argv = {{ {argv} }}, words = {{ {argv} }} }}'


def check(source: str, commands: list[list[str]], git_state: str = "nil") -> Any:
    """Load the rule, then call its check with a call made of these commands; returns the decision."""
    run = run_luau(source, "long-sleep.luau", prelude=FAKE_JOUET + f"git_state = {git_state}")
    assert run.error is None, run.error
    rule = run.value
    call = run.vm.eval("{ event = 'pre-tool-use', tool = 'Bash', commands = { " +
                       ", ".join(command(c) for c in commands) + " } }")
    return rule.check(call)


@pytest.mark.parametrize("words", [["sleep", "90"], ["sleep", "10"], ["sleep", "10.5"]])
def test_long_sleep_fires(words: list[str]) -> None:
    decision = check(LONG_SLEEP, [words])
    assert decision.kind == "warn"
    assert decision.message == "Wait for what you need with `jouet wait` instead of sleeping."


@pytest.mark.parametrize("commands", [
    [["sleep", "1"]],
    [["echo", "sleep", "90"]],
    [["sleep", "soon"]],
    [["sleep"]],
    [],
])
def test_long_sleep_stays_quiet(commands: list[list[str]]) -> None:
    assert check(LONG_SLEEP, commands) is None


def test_long_sleep_looks_at_every_command() -> None:
    decision = check(LONG_SLEEP, [["cd", "src"], ["sleep", "30"]])
    assert decision.kind == "warn"


def test_git_state_snippet_warns_when_behind() -> None:
    state = '{ branch = "main", behind = 2, ahead = 0, upstream = "origin/main", dirty = false }'
    decision = check(GIT_STATE, [["git", "push"]], git_state=state)
    assert decision.kind == "warn"
    assert decision.message == "main is 2 commits behind origin/main"


@pytest.mark.parametrize("state", ["nil", '{ branch = "main", behind = 0, upstream = "origin/main" }',
                                   '{ branch = "main" }'])
def test_git_state_snippet_quiet(state: str) -> None:
    assert check(GIT_STATE, [["git", "push"]], git_state=state) is None


def test_long_sleep_translation_keeps_its_lines() -> None:
    run = run_luau(LONG_SLEEP, prelude=FAKE_JOUET)
    lua_lines = run.lua.split("\n")
    assert "for" in lua_lines[3] and "__luau.iter" in lua_lines[3]
    assert "jouet.warn" in lua_lines[6]
    assert lua_lines[12].startswith("return rule")
