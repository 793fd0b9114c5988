"""`jouet rule test`: run rules' examples, or check one call against a rule."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from jouet_git import term
from jouet_git.engine.decide import Decision
from jouet_git.engine.examples import ExamplesReport, run_examples
from jouet_git.engine.load import load_file
from jouet_git.engine.model import BROKEN, ENABLED, UNTRUSTED, USER, Rule
from jouet_git.engine.ruleset import RuleSet, load
from jouet_git.engine.runner import Runner
from jouet_git.errors import FOUND, OK, USAGE, JouetError


def _source_of(path: str, ruleset: RuleSet) -> tuple[str, str, str]:
    """Which source a rule file belongs to, by its directory: (kind, label, prefix)."""
    directory = os.path.dirname(os.path.abspath(path))
    for info in ruleset.sources:
        if os.path.abspath(info["directory"]) == directory:
            label = info["label"]
            prefix = f"{label.split(':')[1]}/" if info["kind"] == "plugin" else ""
            return info["kind"], label, prefix
    return USER, USER, ""


def select(args: argparse.Namespace, ruleset: RuleSet) -> list[Rule]:
    if args.all:
        if args.target:
            raise JouetError("give a rule (name or file) or --all, not both")
        return list(ruleset.rules)
    if not args.target:
        raise JouetError("say which rule to test: a name, a file such as ./my-rule.toml, or --all")
    target = args.target
    if target.endswith(".toml") or os.sep in target or os.path.isfile(target):
        if not os.path.isfile(target):
            raise JouetError(f"{target}: no such rule file")
        kind, label, prefix = _source_of(target, ruleset)
        loaded = load_file(target, kind, label, prefix)
        directory = os.path.dirname(os.path.abspath(target))
        for info in ruleset.sources:
            if os.path.abspath(info["directory"]) == directory and not info["runs"]:
                for one in loaded:
                    if one.state != BROKEN:
                        one.state, one.state_detail = UNTRUSTED, info["detail"]
        return loaded
    rule = ruleset.get(target)
    if rule is None:
        names = [r.name for r in ruleset.rules]
        close = [n for n in names if target in n or n in target]
        hint = f" (did you mean {', '.join(close[:3])}?)" if close else "; `jouet rule list` shows them all"
        raise JouetError(f"no rule named `{target}` is loaded here{hint}")
    return [rule]


def untrusted_script(rule: Rule) -> str:
    """Why RULE's examples are not run here (its script is code nobody trusted), or ""."""
    if rule.script and rule.state == UNTRUSTED:
        return (f"{rule.name}: not tested: its script ({rule.script}) comes from a source you have not trusted "
                f"({rule.state_detail or rule.source_label}); jouet runs no untrusted script, not even its examples")
    return ""


def example_lines(report: ExamplesReport) -> list[str]:
    lines = []
    for result in report.results:
        lines.append(f"{'ok  ' if result.ok else 'FAIL'} {result.kind:5} {result.label}")
        if not result.ok:
            lines.append(f"- expected: {result.expected}")
            lines.append(f"+ actual: {result.actual}")
    return lines


def report_json(rule: Rule, report: ExamplesReport | None) -> dict[str, Any]:
    if report is None:
        return {"rule": rule.name, "ok": False, "error": rule.error,
                "errors": (rule.error or "").splitlines()}
    return {
        "rule": rule.name, "ok": report.ok, "missing": report.missing or None,
        "passed": report.passed, "total": len(report.results),
        "examples": [{"kind": r.kind, "example": r.example, "ok": r.ok, "expected": r.expected,
                      "actual": r.actual} for r in report.results],
    }


def run_test(args: argparse.Namespace) -> int:
    cwd = os.path.abspath(args.cwd or os.getcwd())
    ruleset = load(cwd)
    rules = select(args, ruleset)
    if getattr(args, "replay", False):
        if args.all or args.command is not None or args.payload is not None or args.exit_code is not None:
            raise JouetError("--replay runs one rule (a name or a file) over the ledger: leave out --all, "
                             "--command, --payload and --exit-code")
        from jouet_git.commands.rule_replay import run_replay

        return run_replay(rules, args.json)
    if args.command is not None or args.payload is not None:
        return _one_call(args, rules, cwd, ruleset)
    if args.exit_code is not None:
        raise JouetError("--exit-code goes with --command")
    if args.all:
        return _all(rules, args.json)
    failed = 0
    broken = 0
    results = []
    for rule in rules:
        if rule.state == BROKEN:
            broken += 1
            results.append(report_json(rule, None))
            if not args.json:
                _say_broken(rule)
            continue
        skipped = untrusted_script(rule)
        if skipped:
            failed += 1
            results.append({"rule": rule.name, "ok": False, "skipped": skipped})
            if not args.json:
                print(f"jouet: {skipped}", file=sys.stderr)
            continue
        report = run_examples(rule)
        results.append(report_json(rule, report))
        if not report.ok:
            failed += 1
        if args.json:
            continue
        for line in example_lines(report):
            print(line)
        if report.missing:
            print(f"FAIL {rule.name}: {report.missing}")
        print(f"{rule.name}: {report.passed} of {term.count(len(report.results), 'example')} passed")
    if args.json:
        print(json.dumps(results, indent=2))
    return USAGE if broken else FOUND if failed else OK


def _say_broken(rule: Rule) -> None:
    """Every error of a rule that does not load, on stderr, one a line."""
    lines = (rule.error or f"{rule.file}:{rule.line}: it does not load").splitlines()
    sys.stderr.write(term.paint(f"jouet: {rule.name} does not load:", "bad", sys.stderr) + "\n")
    sys.stderr.write("".join(f"    {line}\n" for line in lines))
    sys.stderr.flush()


def _all(rules: list[Rule], as_json: bool) -> int:
    passed = 0
    broken = 0
    skipped = 0
    results = []
    for rule in rules:
        if rule.state == BROKEN:
            broken += 1
            results.append(report_json(rule, None))
            if not as_json:
                first, *rest = (rule.error or "it does not load").splitlines()
                print(f"FAIL {rule.name} does not load: {first}")
                for line in rest:
                    print(f"     {line}")
            continue
        why = untrusted_script(rule)
        if why:
            skipped += 1
            results.append({"rule": rule.name, "ok": None, "skipped": why})
            if not as_json:
                print(f"skip {why}")
            continue
        report = run_examples(rule)
        results.append(report_json(rule, report))
        if report.ok:
            passed += 1
            if not as_json:
                print(f"ok   {rule.name} {term.count(len(report.results), 'example')} passed")
            continue
        if as_json:
            continue
        if report.missing:
            print(f"FAIL {rule.name} {report.missing}")
        else:
            print(f"FAIL {rule.name} {report.passed} of {term.count(len(report.results), 'example')} passed")
        for line in example_lines(report):
            if not line.startswith("ok"):
                print(f"     {line}")
    tested = len(rules) - skipped
    if as_json:
        print(json.dumps(results, indent=2))
    else:
        extra = f" ({term.count(skipped, 'untrusted script rule')} not tested)" if skipped else ""
        print(f"{passed} of {term.count(tested, 'rule')} passed their examples{extra}")
    return USAGE if broken else OK if passed == tested else FOUND


def _one_call(args: argparse.Namespace, rules: list[Rule], cwd: str, ruleset: RuleSet) -> int:
    if args.all:
        raise JouetError("--command and --payload check one rule: name it instead of --all")
    if args.command is not None and args.payload is not None:
        raise JouetError("give --command or --payload, not both")
    if args.harness is not None and args.payload is None:
        raise JouetError("--harness names whose payload --payload is: give --payload FILE too")
    if args.payload is not None:
        from jouet_git.harness.payload import calls_from_recorded_payload

        text = sys.stdin.read() if args.payload == "-" else _read(args.payload)
        calls = calls_from_recorded_payload(text, args.payload, args.harness)
    else:
        from jouet_git.harness.manual import build_call

        call = build_call(args.command, cwd, None, None, args.exit_code)
        call.harness = "test"
        calls = [call]
    status = 0
    runner = Runner(record=False)
    for rule in rules:
        if rule.state == BROKEN:
            _say_broken(rule)
            status = USAGE
            continue
        skipped = untrusted_script(rule)
        if skipped:
            print(f"jouet: {skipped}", file=sys.stderr)
            status = 2
            continue
        copy = Rule.from_data(rule.to_data())
        copy.state = ENABLED
        for call in calls:
            text = _decided(runner.decide(call, only=[copy]))
            if len(calls) > 1:  # a payload of several calls (an apply_patch's files, Cline's run_commands)
                text = f"{call.path or call.command or call.tool}: {text}"
            print(f"{rule.name}: {text}" if len(rules) > 1 else text)
    return status


def _decided(decision: Decision) -> str:
    """What a rule decided about one call, in one line."""
    if decision.deny is not None:
        text = f"{decision.deny.action}: {decision.deny.message}"
    elif decision.rewrite is not None:
        text = f"rewrite: {decision.rewrite.command} ({decision.rewrite.message})"
    elif decision.warnings:
        text = "; ".join(f"warn: {w.message}" for w in decision.warnings)
    else:
        text = "quiet"
    for name, error in decision.errors:
        text += f" (error in {name}: {error})"
    return text


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as error:
        raise JouetError(f"--payload {path}: {error.strerror}") from None

