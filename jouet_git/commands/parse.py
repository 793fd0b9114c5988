"""Show how jouet reads a shell command: the commands a shell would run, as rules see them.

Rules match the commands jouet finds in a script, not its text: quoted text, comments and
here-document bodies are data, commands inside $(...), backticks and `sh -c '...'` scripts are
read too, and wrappers such as sudo, env, timeout and `mise x --` are looked through.

examples:
  jouet parse 'git commit -m "never git add -A"'      one command: git commit
  jouet parse 'cd sub && sudo -u ci git add -A'        git add, run via sudo, after cd sub
  jouet parse "bash -lc 'git push -f'"                 the push is a nested command
  jouet parse --exit-code 0 'cargo test | tail'        which commands the exit code belongs to
  jouet parse --json 'FOO=1 git push' | jq '.commands[0].env'
  echo 'make test 2>&1 | tee log' | jouet parse -      read the script from stdin

The table lists one command a line: its number, its span (byte positions in the script, or -c for
a command of a `sh -c` script), the operator after it, and its argv. Lines below a command show
what else a rule can match on: wrappers (via), assignments (env), redirections, here-documents,
and whether its output is piped, captured or sent to the background. --json prints
{"commands": [...], "incomplete": bool, "problems": [...]} with the field names of the rule reference's Command table.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys

from jouet_git.errors import JouetError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("script", nargs="?", help="the shell command to read, or - to read it from stdin")
    parser.add_argument("--json", action="store_true", help="print the commands as JSON")
    parser.add_argument(
        "--exit-code", type=int, metavar="N",
        help="the script's exit code: show the status each top-level command is known to have had",
    )


def run(args: argparse.Namespace) -> int:
    from jouet_git.shell import parse

    if args.script is None:
        raise JouetError("jouet parse needs a script: `jouet parse 'git status'`, or `-` to read stdin")
    script = sys.stdin.read() if args.script == "-" else args.script
    result = parse(script, args.exit_code, os.getcwd())
    if args.json:
        sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
        return 0
    sys.stdout.write(table(result, args.exit_code is not None))
    return 0


def table(result: object, with_status: bool) -> str:
    """The readable listing of a ParseResult."""
    from jouet_git.shell import ParseResult

    assert isinstance(result, ParseResult)
    rows: list[list[str]] = []
    notes: list[list[str]] = []
    for number, cmd in enumerate(result.commands, 1):
        where = f"{cmd.span[0]}-{cmd.span[1]}" if cmd.span is not None else "-c"
        row = [str(number), where, cmd.op or "-"]
        if with_status:
            row.append("-" if cmd.status is None else str(cmd.status))
        row.append(" ".join(_quote(w) for w in cmd.argv) if cmd.argv else "(no words)")
        rows.append(row)
        notes.append(_notes(cmd))
    header = ["#", "span", "op", *(["status"] if with_status else []), "argv"]
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header) - 1)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=False)) + "  " + header[-1]]
    indent = " " * (sum(widths) + 2 * len(widths))
    for row, extra in zip(rows, notes, strict=True):
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False)) + "  " + row[-1])
        lines.extend(indent + note for note in extra)
    if not result.commands:
        lines.append("(no commands)")
    if result.incomplete:
        lines.append("incomplete: part of the text could not be read as shell and was kept as data")
        lines.extend(f"  {problem}" for problem in result.problems)
    return "\n".join(lines) + "\n"


def _notes(cmd: object) -> list[str]:
    from jouet_git.call import Command

    assert isinstance(cmd, Command)
    out: list[str] = []
    if cmd.via:
        out.append("via " + ", ".join(cmd.via) + "  (words: " + " ".join(_quote(w) for w in cmd.words) + ")")
    if cmd.env:
        out.append("env " + " ".join(f"{k}={_quote(v)}" for k, v in cmd.env.items()))
    flags = [name for name in ("nested", "captured", "piped", "background") if getattr(cmd, name)]
    if cmd.stdout_to is not None:
        flags.append(f"stdout > {_quote(cmd.stdout_to)}")
    if cmd.stdin_from is not None:
        flags.append(f"stdin < {_quote(cmd.stdin_from)}")
    elif cmd.stdin_redirected:
        flags.append("stdin redirected")
    if cmd.stdin_args:
        flags.append("more arguments at run time")
    if flags:
        out.append(", ".join(flags))
    for body in cmd.heredocs:
        lines = body.count("\n") or 1
        first = body.split("\n", 1)[0]
        shown = first if len(first) <= 50 else first[:47] + "..."
        out.append(f"here-document, {lines} line{'s' if lines != 1 else ''}: {shown!r}")
    return out


def _quote(word: str) -> str:
    return shlex.quote(word) if word else "''"
