"""Show what jouet's rules decide about a command, as a hook would, without running it.

examples:
  jouet check 'git add -A'                  denied by git-add-all: exit 1
  jouet check --cwd ~/src/app 'git stash'   decide as if run in that directory
  jouet check --json 'git push -f'          the decision as JSON
  jouet check --tool Edit --path .env       a file tool instead of a shell command
  jouet check --jsonl < calls.jsonl         one JSON object a line in, one decision a line out
  jouet check --jsonl --workers 1 < c.jsonl the same, every line answered in this one process

Rules that do not run (a rule file that does not load, a plugin whose copy changed) are named on
stderr, and in --json as `broken` (each with every error in its file) and `problems`.

Exit status: 0 when nothing denies (warnings included), 1 when a rule denies or asks, 2 on bad input.
With --jsonl every line is answered (a bad line gets {"error": ...}) and the exit status is 0
unless the input could not be read. Each answer is written as soon as it and those before it are
ready. When lines arrive faster than one process answers them, `--workers N` processes (default: one
a CPU, at most 8) answer them side by side; the answers and their order are the same.
"""

from __future__ import annotations

import json
import os
import sys

from jouet_git import gitrun, term
from jouet_git.call import Call
from jouet_git.engine import problems
from jouet_git.engine.decide import Decision
from jouet_git.engine.ruleset import RuleSet
from jouet_git.engine.runner import Runner
from jouet_git.errors import JouetError
from jouet_git.harness.manual import build_call

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any


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
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="with --jsonl: when lines come faster than one process answers them, answer them in "
                             "N processes (same answers, same order); 1 answers every line in this one "
                             "(default: the CPUs this process may use, at most 8)")


# --workers: at most this many; by default the CPUs this process may use, at most DEFAULT_WORKERS.
MAX_WORKERS = 32
DEFAULT_WORKERS = 8


def default_workers() -> int:
    """How many processes answer a fast stream by default: one a CPU this process may use, at most
    DEFAULT_WORKERS (1: every line is answered in this process)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # (no sched_getaffinity on macOS)
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, DEFAULT_WORKERS))


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
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        raise JouetError(f"--workers {args.workers}: give a number from 1 (every line answered in this process) "
                         f"to {MAX_WORKERS}")
    if args.jsonl:
        if args.command is not None:
            raise JouetError("--jsonl reads calls from stdin: give no command with it")
        workers = args.workers if args.workers is not None else default_workers()
        return run_jsonl(sys.stdin, sys.stdout, args.cwd, Runner(record=not args.no_record), args.harness, workers)
    if args.workers is not None:
        raise JouetError("--workers is for --jsonl (a stream of calls): leave it out when checking one command")
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
              harness: str | None = None, workers: int = 1) -> int:
    """Answer one call per input line, flushing each answer. WORKERS above 1 lets a stream whose
    input comes faster than one process answers be answered by that many forked processes
    (commands/check_pool.py), with the same answers in the same order; 1 answers every line here."""
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

    answerer = Answerer(runner, base, harness, ParseMemo())
    from jouet_git.gitmemo import GitMemo

    # git's answers read from the repository's files alone are kept while those files stay the same.
    gitrun.MEMO = GitMemo()
    try:
        if workers > 1:
            from jouet_git.commands import check_pool

            if check_pool.usable(stdin):
                return check_pool.serve(stdin, stdout, answerer, workers)
        return _answer_lines(stdin, stdout, answerer)
    finally:
        runner.write_records()
        gitrun.MEMO = None
        gc.set_threshold(*thresholds)


class Answerer:
    """Answers the lines of one stream: a line's decision as JSON, recorded in the ledger (held back
    with the stream's other ledger lines: Runner.hold_records), or its error."""

    __slots__ = ("base", "calls", "harness", "quiet", "reader", "runner")

    # How many calls to keep for the lines they were read from (see answer).
    MAX_CALLS = 4096

    def __init__(self, runner: Runner, base: str, harness: str | None, reader: Any) -> None:
        self.runner = runner
        self.base = base
        self.harness = harness
        self.reader = reader  # a command read before is not read again (shell.ParseMemo)
        self.calls: dict[str, Call] = {}
        # The answer of a line no rule said anything about, and the rule set it was decided with.
        self.quiet: tuple[RuleSet, str] | None = None

    def answer(self, number: int, line: str) -> str:
        """The answer to LINE, the NUMBERth line of the input (counting blank ones)."""
        runner = self.runner
        base = self.base
        harness = self.harness
        if gitrun.MEMO is not None:
            gitrun.MEMO.begin_call()  # (the repository may have changed since the last line)
        try:
            # The call a line makes is a function of the line (with this stream's directory and
            # harness), read once: unless reading its command looked at files (Call.read_disk: `bash
            # x.sh`, a git alias), which may have changed, a line that comes again gets a copy of the
            # call made the first time (again()), its command read already.
            first = self.calls.get(line)
            call = again(first) if first is not None else self._call(line)
            decision = runner.decide_and_record(call, key=(line, base, harness))
            if first is None and not call.read_disk:
                if len(self.calls) >= self.MAX_CALLS:
                    self.calls.clear()
                self.calls[line] = again(call)
            kept = runner.kept_for(call)
            answer = kept.answer if kept is not None else None
            if answer is None:  # (a kept decision's answer is the same each time: made once)
                answer = self._text(decision, runner.ruleset_for(call))
                if kept is not None:
                    kept.answer = answer
        except (ValueError, JouetError) as error:
            message = error.message if isinstance(error, JouetError) else str(error)
            answer = json.dumps({"error": f"line {number}: {message}"})
        return answer

    def _text(self, decision: Decision, ruleset: RuleSet) -> str:
        """DECISION as the JSON answer (with RULESET's broken rules and problems). Most lines get no
        finding at all: their answer, the same for every such line decided with RULESET (a stream's
        rule sets are loaded once and never change), is made once."""
        if decision.deny is None and decision.rewrite is None and not decision.warnings and not decision.errors \
                and not decision.allowed:
            quiet = self.quiet
            if quiet is None or quiet[0] is not ruleset:
                quiet = self.quiet = (ruleset, json.dumps(_with_broken(decision, ruleset)))
            return quiet[1]
        return json.dumps(_with_broken(decision, ruleset))

    def _call(self, line: str) -> Call:
        """The call LINE asks about (raises ValueError, JouetError for a line that is not one)."""
        item = json.loads(line)
        if not isinstance(item, dict):
            raise ValueError("each line must be a JSON object")
        command = item.get("command")
        if command is not None and not isinstance(command, str):
            raise ValueError("`command` must be a string")
        cwd = item.get("cwd") or self.base
        if not isinstance(cwd, str):
            raise ValueError("`cwd` must be a string")
        call = build_call(command, cwd, item.get("tool"), item.get("path"), item.get("exit_code"),
                          item.get("input") if isinstance(item.get("input"), dict) else None,
                          item.get("harness") if isinstance(item.get("harness"), str) else self.harness)
        call.reader = self.reader
        return call


def again(call: Call) -> Call:
    """A new Call of CALL's fields, its command read as CALL's was (the same Commands in a list of
    their own): for a stream's line that comes again. What keeps state for a call (the probes, the
    script host) tells calls apart by identity: each line gets its own. (Here rather than in call.py,
    which every hook imports.)"""
    call.commands  # noqa: B018 - parse on first use
    other = Call.__new__(Call)
    for name in Call.__slots__:
        setattr(other, name, getattr(call, name))
    other.input = dict(call.input)
    other._commands = list(call._commands) if call._commands is not None else None
    other._problems = list(call._problems)
    return other


def _answer_lines(stdin: Any, stdout: Any, answerer: Answerer) -> int:
    write = stdout.write
    waiting = _waiting(stdin)
    answer = answerer.answer
    runner = answerer.runner
    for number, line in enumerate(stdin, 1):
        if not line.strip():
            continue
        text = answer(number, line)
        if not waiting():
            runner.write_records()  # the client may wait for this answer: its ledger line goes first
        write(text + "\n")
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
