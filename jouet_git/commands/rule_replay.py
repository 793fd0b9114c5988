"""`jouet rule test NAME --replay`: what a rule would have done to the calls the hooks already saw.

Every call in the ledger whose text was stored (commands and paths; not with JOUET_STORE_CONTENT=0)
and that happened at the rule's moment (before a tool, after one) is decided again, by this rule
alone, through the runner (as `--command` does: after the rule's mode, without recording). The
calls are grouped by shape and what the rule did:

    no-tags: fired on 8 of 28 calls in the ledger
    fires on:
      6x warn  git tag <arg>
      2x warn  git tag -l
    stays quiet on (near misses):
      2x allow git status

Near misses are the calls it stays quiet on that run one of the programs its matchers name (for a
matcher without a command, calls of the tools it names). Script rules ask their probes about the
machine as it is now, not as it was when the call was made. Exit status 1 when the rule fires on
nothing.
"""

from __future__ import annotations

import json
import os
from typing import Any

from jouet_git.call import KIND_SHELL, Call
from jouet_git.engine.model import BROKEN, ENABLED, Rule
from jouet_git.engine.runner import Runner
from jouet_git.errors import JouetError

EVENTS = ("pre-tool-use", "post-tool-use")


class Replay:
    """What one rule did to the ledger's calls."""

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.calls = 0
        self.fired = 0
        self.fires: dict[tuple[str, str], int] = {}
        self.near: dict[tuple[str, str], int] = {}
        self.errors: dict[str, int] = {}

    def to_json(self) -> dict[str, Any]:
        def rows(groups: dict[tuple[str, str], int]) -> list[dict[str, Any]]:
            return [{"count": n, "action": a, "shape": s} for (a, s), n in _ordered(groups)]

        return {"rule": self.rule.name, "calls": self.calls, "fired": self.fired, "fires": rows(self.fires),
                "near_misses": rows(self.near), "errors": [{"error": e, "count": n} for e, n in self.errors.items()]}

    def lines(self) -> list[str]:
        out = [f"{self.rule.name}: fired on {self.fired} of {self.calls} calls in the ledger"]
        if self.fires:
            out.append("fires on:")
            out += [f"  {n}x {a:6} {s}" for (a, s), n in _ordered(self.fires)]
        if self.near:
            out.append("stays quiet on (near misses):")
            out += [f"  {n}x {a:6} {s}" for (a, s), n in _ordered(self.near)]
        for error, n in self.errors.items():
            out.append(f"  failed on {n} call{'s' if n != 1 else ''}: {error}")
        return out


def _ordered(groups: dict[tuple[str, str], int]) -> list[tuple[tuple[str, str], int]]:
    return sorted(groups.items(), key=lambda kv: (-kv[1], kv[0]))


def run_replay(rules: list[Rule], as_json: bool) -> int:
    from jouet_git import ledger

    if not ledger.exists():
        raise JouetError(f"the ledger is empty ({ledger.path()}): replay needs calls the hooks recorded; "
                         "run an agent with jouet's hooks set up (`jouet setup`), or `jouet check` some commands")
    calls, without_text = _distinct_calls()
    if not calls:
        if without_text:
            raise JouetError(f"the ledger holds {without_text} calls but none with its command or path: they were "
                             "recorded with JOUET_STORE_CONTENT=0, which keeps shapes only, and replay needs the text")
        raise JouetError("the ledger holds no tool calls to replay yet")
    runner = Runner(record=False)
    results = []
    status = 0
    for rule in rules:
        if rule.state == BROKEN:
            raise JouetError(f"{rule.name} does not load: {rule.error}")
        result = replay(rule, calls, runner)
        results.append(result)
        if result.fired == 0:
            status = 1
    if as_json:
        print(json.dumps([r.to_json() for r in results], indent=2))
    else:
        for result in results:
            print("\n".join(result.lines()))
        if without_text:
            print(f"({without_text} calls recorded without their text, with JOUET_STORE_CONTENT=0, were left out)")
    return status


def _distinct_calls() -> tuple[dict[tuple[Any, ...], tuple[dict[str, Any], int]], int]:
    """The ledger's tool calls with their text, each distinct one once with how often it came."""
    from jouet_git import ledger

    calls: dict[tuple[Any, ...], tuple[dict[str, Any], int]] = {}
    without_text = 0
    for line in ledger.forwards():
        if line.get("event") not in EVENTS:
            continue
        if line.get("command") is None and line.get("path") is None:
            if line.get("shape") is not None or line.get("tool") is not None:
                without_text += 1
            continue
        key = (line.get("event"), line.get("harness"), line.get("tool"), line.get("kind"), line.get("command"),
               line.get("path"), line.get("cwd"), line.get("exit_code"), line.get("session"), line.get("agent"))
        seen, count = calls.get(key, (line, 0))
        calls[key] = (seen, count + 1)
    return calls, without_text


def call_of(line: dict[str, Any]) -> Call:
    """The Call a ledger line recorded (what the rule sees again)."""
    command = line.get("command")
    kind = str(line.get("kind") or KIND_SHELL)
    tool_input: dict[str, Any] = {}
    if command is not None:
        tool_input["command"] = command
    if line.get("path") is not None:
        tool_input["file_path"] = line["path"]
    cwd = line.get("cwd") or line.get("repo") or os.getcwd()
    return Call(event=str(line.get("event")), harness=str(line.get("harness") or "test"), tool=str(line.get("tool")),
                kind=kind, command=command, path=line.get("path"), cwd=str(cwd), session=line.get("session"),
                agent=line.get("agent"), exit_code=line.get("exit_code"), input=tool_input,
                rewrite=line.get("harness") == "claude" and line.get("event") == "pre-tool-use" and kind == KIND_SHELL)


def replay(rule: Rule, calls: dict[tuple[Any, ...], tuple[dict[str, Any], int]], runner: Runner) -> Replay:
    copy = Rule.from_data(rule.to_data())
    copy.state = ENABLED
    result = Replay(rule)
    programs = _programs(rule)
    tools = _tools(rule)
    for line, count in calls.values():
        if line.get("event") != rule.on:
            continue
        call = call_of(line)
        result.calls += count
        decision = runner.decide(call, only=[copy])
        for _name, error in decision.errors:
            result.errors[error] = result.errors.get(error, 0) + count
        action = decision.action
        if action is None and decision.records:
            action = "record"
        shape = _shape(line, call)
        if action is not None:
            result.fired += count
            key = (action, shape)
            result.fires[key] = result.fires.get(key, 0) + count
        elif _near(call, programs, tools):
            key = ("allow", shape)
            result.near[key] = result.near.get(key, 0) + count
    return result


def _shape(line: dict[str, Any], call: Call) -> str:
    if call.command is not None:
        shape = line.get("shape")
        if isinstance(shape, str) and shape:
            return shape
        from jouet_git import ledger

        return ledger.shape(call.commands)
    return f"{call.tool} {call.path}"


def _programs(rule: Rule) -> list[str]:
    out: list[str] = []
    for matcher in rule.matchers:
        for program in matcher.programs or ():
            if program not in out:
                out.append(program)
    return out


def _tools(rule: Rule) -> list[str]:
    out: list[str] = []
    for matcher in rule.matchers:
        if matcher.programs is None:
            out.extend(matcher.tool or ("*",))
    return out


def _near(call: Call, programs: list[str], tools: list[str]) -> bool:
    from jouet_git.engine.wildcard import matches

    if programs and call.command is not None:
        ran = {c.program for c in call.commands}
        if any(matches(p, name) for p in programs for name in ran):
            return True
    return bool(tools) and call.command is None and any(matches(t, call.tool) for t in tools)
