"""Running a rule's examples: the calls it must fire on, and the near misses it must leave alone.

Examples check what a rule decides before its mode applies, so a warn-mode matcher fires with
deny; an ask-mode rule's examples may say `action = "ask"` of the denial its mode turns into an
ask. They run without the machine's state: every probe answers only what the example says
(`git`, `claims`, `stack`, `secrets`, `files`), so an example gives the same answer anywhere.
"""

from __future__ import annotations

import json
from typing import Any

from jouet_git.call import KIND_SHELL, POST_TOOL_USE, Call
from jouet_git.engine.decide import Outcome, evaluate
from jouet_git.engine.match import Context
from jouet_git.engine.model import Rule

# Examples run in a directory that exists nowhere, so no answer depends on this machine.
EXAMPLE_CWD = "/jouet-example"


class ExampleResult:
    __slots__ = ("actual", "example", "expected", "kind", "label", "ok")

    def __init__(self, kind: str, example: Any, ok: bool, expected: str, actual: str) -> None:
        self.kind = kind
        self.example = example
        self.label = example_label(example)
        self.ok = ok
        self.expected = expected
        self.actual = actual


class ExamplesReport:
    __slots__ = ("missing", "results", "rule")

    def __init__(self, rule: Rule, results: list[ExampleResult], missing: str) -> None:
        self.rule = rule
        self.results = results
        self.missing = missing

    @property
    def passed(self) -> int:
        return sum(1 for r in self.results if r.ok)

    @property
    def ok(self) -> bool:
        return not self.missing and all(r.ok for r in self.results)


def example_label(example: Any) -> str:
    if isinstance(example, str):
        return example
    parts = []
    for key, value in example.items():
        parts.append(f"{key} = {json.dumps(value)}")
    return "{ " + ", ".join(parts) + " }"


def example_call(rule: Rule, example: Any) -> tuple[Call, Context]:
    """The call an example stands for, and its matching context."""
    item: dict[str, Any] = {"command": example} if isinstance(example, str) else example
    tool = item.get("tool") or "Bash"
    command = item.get("command")
    tool_input = dict(item.get("input") or {})
    from jouet_git.harness import tool_kind

    kind = tool_kind(tool, item.get("harness"))
    if command is not None and kind != KIND_SHELL and "tool" not in item:
        kind = KIND_SHELL
    if command is not None and kind == KIND_SHELL:
        tool_input.setdefault("command", command)
    exit_code = item.get("exit_code")
    if rule.on == POST_TOOL_USE and exit_code is None:
        exit_code = 0
    call = Call(
        event=rule.on,
        harness=item.get("harness", "test"),
        tool=tool,
        kind=kind,
        command=command,
        path=item.get("path"),
        cwd=EXAMPLE_CWD,
        session=item.get("session"),
        exit_code=exit_code,
        input=tool_input,
        rewrite=bool(item.get("rewrite") or "rewritten" in item),
        background=bool(tool_input.get("run_in_background")),
    )
    from jouet_git.engine.state import ExampleState

    return call, Context(tracked_files=item.get("tracked_files"), state=ExampleState(item, EXAMPLE_CWD))


def describe(outcome: Outcome | None) -> str:
    if outcome is None or outcome.action in (None, "allow"):
        if outcome is not None and outcome.records:
            return "record " + ", ".join(_record_text(r) for r in outcome.records)
        return "quiet"
    if outcome.action == "rewrite":
        return f"rewrite: {outcome.command} ({outcome.message})"
    return f"{outcome.action}: {outcome.message}"


def _record_text(record: dict[str, Any]) -> str:
    scope = record.get("scope") or "partial"
    selector = record.get("selector")
    return f"{record.get('kind')} {scope}{' ' + selector if selector else ''}"


def check_example(rule: Rule, kind: str, example: Any, scripts: Any = None) -> ExampleResult:
    call, ctx = example_call(rule, example)
    runner = scripts.for_example(example) if scripts is not None else None
    try:
        outcome = evaluate(rule, call, ctx, runner)
    except Exception as error:
        return ExampleResult(kind, example, False, kind,
                             f"error: {error}")
    actual = describe(outcome)
    item = example if isinstance(example, dict) else {}
    if kind == "quiet":
        ok = actual == "quiet"
        return ExampleResult(kind, example, ok, "quiet", actual)
    fired = outcome is not None and (outcome.action in ("deny", "warn", "rewrite") or bool(outcome.records))
    expected = "fires"
    ok = fired
    if ok and outcome is not None:
        want_action = "rewrite" if "rewritten" in item else item.get("action")
        if want_action is not None:
            expected = want_action
            # An ask-mode rule's denial is its ask: `action = "ask"` says so of its examples.
            ok = outcome.action == want_action or (
                want_action == "ask" and outcome.action == "deny" and rule.mode == "ask")
        if ok and "rewritten" in item:
            expected = f"rewrite: {item['rewritten']}"
            ok = outcome.command == item["rewritten"]
        if ok and "kind" in item:
            wanted = item["kind"] + (f" {item['scope']}" if "scope" in item else "")
            expected = f"record {wanted}"
            ok = any(_record_text(r) == wanted or (
                "scope" not in item and r.get("kind") == item["kind"]) for r in outcome.records)
    return ExampleResult(kind, example, ok, expected, actual)


def run_examples(rule: Rule, scripts: Any = None) -> ExamplesReport:
    """Every example of RULE, in order: fires first, then quiet."""
    from jouet_git.engine.settle import missing_examples

    if scripts is None and rule.script is not None:
        scripts = default_script_runner()
    results = [check_example(rule, "fires", ex, scripts) for ex in rule.examples.get("fires") or []]
    results += [check_example(rule, "quiet", ex, scripts) for ex in rule.examples.get("quiet") or []]
    return ExamplesReport(rule, results, missing_examples(rule))


def default_script_runner() -> Any:
    """The script runner examples use: the real sandbox, with probes answered by the example."""
    from jouet_git.engine.scripts import ExampleScripts

    return ExampleScripts()
