"""Show what jouet's rules decide about a command, as a hook would, without running it.

examples:
  jouet check 'git add -A'                  denied by git-add-all: exit 1
  jouet check --cwd ~/src/app 'git stash'   decide as if run in that directory
  jouet check --json 'git push -f'          the decision as JSON
  jouet check --tool Edit --path .env       a file tool instead of a shell command
  jouet check --jsonl < calls.jsonl         one JSON object a line in, one decision a line out

Rules that do not run (a rule file that does not load, a plugin whose copy changed) are named on
stderr, and in --json as `broken` (each with every error in its file) and `problems`.

Exit status: 0 when nothing denies (warnings included), 1 when a rule denies or asks, 2 on bad input.
With --jsonl every line is answered (a bad line gets {"error": ...}) and the exit status is 0
unless the input could not be read.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from jouet_git import term
from jouet_git.engine import problems
from jouet_git.engine.decide import Decision
from jouet_git.engine.ruleset import RuleSet
from jouet_git.engine.runner import Runner
from jouet_git.errors import JouetError
from jouet_git.harness.manual import build_call


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("command", nargs="?", help="the shell command to check")
    parser.add_argument("--cwd", default=None, help="decide as if the command ran in DIR (default: here)")
    parser.add_argument("--json", action="store_true", help="print the decision as JSON")
    parser.add_argument("--jsonl", action="store_true",
                        help='read {"command": ..., "cwd": ..., "tool": ..., "path": ...} objects, one a line, '
                             "from stdin and write one decision a line")
    parser.add_argument("--tool", default=None, help="the harness's tool name (default Bash for a command)")
    parser.add_argument("--path", default=None, help="the file a file tool reads or writes")
    parser.add_argument("--exit-code", type=int, default=None,
                        help="check as after the tool ran (post-tool-use rules), with this exit code")
    parser.add_argument("--harness", default=None,
                        help="decide as this harness's hook would (its tool names; default: any harness's)")
    parser.add_argument("--no-record", action="store_true",
                        help="leave the call out of jouet's ledger (by default it is recorded as harness `check`)")


def render(decision: Decision) -> str:
    lines: list[str] = []
    if decision.deny is not None:
        lines.append(term.paint(f"{decision.deny.action}:", "deny") + f" {decision.deny.text()}")
    if decision.rewrite is not None and decision.deny is None:
        lines.append(f"rewrite: {decision.rewrite.command}  ({decision.rewrite.text()})")
    for warning in decision.warnings:
        lines.append(term.paint("warn:", "warn") + f" {warning.text()}")
    for rule, error in decision.errors:
        lines.append(term.paint("error:", "bad") + f" rule {rule} failed and said nothing: {error}")
    if not lines:
        lines.append("no rule fired")
    return "\n".join(lines)


def _with_broken(decision: Decision, ruleset: RuleSet) -> dict[str, Any]:
    """The decision as JSON, with the rules that could not take part in it: `broken` (each with
    every error) and `problems`."""
    out = decision.to_json()
    out["broken"] = problems.broken(ruleset)
    out["problems"] = list(ruleset.problems)
    return out


def _say_broken(ruleset: RuleSet) -> None:
    out = []
    for line in problems.lines(ruleset):
        if line.startswith("rule "):
            out.append(term.paint(f"jouet: {line}", "bad", sys.stderr))
        else:  # an error of the rule above (indented), or a problem of the rule set
            out.append(line if line.startswith(" ") else f"jouet: {line}")
    sys.stderr.write("".join(line + "\n" for line in out))


def run(args: argparse.Namespace) -> int:
    if args.jsonl:
        if args.command is not None:
            raise JouetError("--jsonl reads calls from stdin: give no command with it")
        return run_jsonl(sys.stdin, sys.stdout, args.cwd, Runner(record=not args.no_record), args.harness)
    if args.command is None and args.tool is None:
        raise JouetError("give a command to check, such as `jouet check 'git add -A'` (see --help)")
    cwd = args.cwd or os.getcwd()
    if not os.path.isdir(cwd):
        raise JouetError(f"--cwd {cwd}: no such directory")
    call = build_call(args.command, cwd, args.tool, args.path, args.exit_code, harness=args.harness)
    runner = Runner(record=not args.no_record)
    decision = runner.decide_and_record(call)
    ruleset = runner.ruleset_for(call)
    if args.json:
        print(json.dumps(_with_broken(decision, ruleset), indent=2))
    else:
        print(render(decision))
        sys.stdout.flush()
        _say_broken(ruleset)
    return 1 if decision.deny is not None else 0


def run_jsonl(stdin: Any, stdout: Any, default_cwd: str | None, runner: Runner | None = None,
              harness: str | None = None) -> int:
    """Answer one call per input line, in one process, flushing each answer."""
    import gc

    # A stream keeps what it read (the rule set, shell.ParseMemo, the kept decisions) and makes few
    # reference cycles: the collector's frequent passes over all of it cost more than they give back,
    # so it runs far less often (still bounded: every 50,000 objects kept), as in a hook.
    thresholds = gc.get_threshold()
    gc.set_threshold(50_000, 20, 20)
    from jouet_git import gitdir

    gitdir.resolve_by_kernel()  # (every line looks for its repository)
    base = default_cwd or os.getcwd()
    runner = runner or Runner()
    runner.plan_calls = True
    runner.hold_records()
    from jouet_git.shell import ParseMemo

    try:
        return _answer_lines(stdin, stdout, base, runner, harness, ParseMemo())
    finally:
        runner.write_records()
        gc.set_threshold(*thresholds)


def _answer_lines(stdin: Any, stdout: Any, base: str, runner: Runner, harness: str | None, reader: Any) -> int:
    write = stdout.write
    waiting = _waiting(stdin)
    for number, line in enumerate(stdin, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            if not isinstance(item, dict):
                raise ValueError("each line must be a JSON object")
            command = item.get("command")
            if command is not None and not isinstance(command, str):
                raise ValueError("`command` must be a string")
            cwd = item.get("cwd") or base
            if not isinstance(cwd, str):
                raise ValueError("`cwd` must be a string")
            call = build_call(command, cwd, item.get("tool"), item.get("path"), item.get("exit_code"),
                              item.get("input") if isinstance(item.get("input"), dict) else None,
                              item.get("harness") if isinstance(item.get("harness"), str) else harness)
            call.reader = reader  # a command read before is not read again (shell.ParseMemo)
            # The line (with this stream's directory and harness) is all the call is made of: a
            # decision that read nothing else is given again to the same line (Runner.decide).
            decision = runner.decide_and_record(call, key=(line, base, harness))
            kept = runner.kept_for(call)
            answer = kept.answer if kept is not None else None
            if answer is None:  # (a kept decision's answer is the same each time: made once)
                answer = json.dumps(_with_broken(decision, runner.ruleset_for(call)))
                if kept is not None:
                    kept.answer = answer
        except (ValueError, JouetError) as error:
            message = error.message if isinstance(error, JouetError) else str(error)
            answer = json.dumps({"error": f"line {number}: {message}"})
        if not waiting():
            runner.write_records()  # the client may wait for this answer: its ledger line goes first
        write(answer + "\n")
        stdout.flush()
    return 0


def _waiting(stdin: Any) -> Any:
    """A function saying whether more input is already there (so ledger lines may wait for the
    next answers); without a file descriptor to ask, never."""
    try:
        fd = stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return lambda: False
    import select

    def waiting() -> bool:
        try:
            return bool(select.select([fd], [], [], 0)[0])
        except (OSError, ValueError):
            return False

    return waiting
