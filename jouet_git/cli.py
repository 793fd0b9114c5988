"""Command-line entry point: argument parsing only.

Each command lives in jouet_git/commands/NAME.py with two functions:

    configure(parser: argparse.ArgumentParser) -> None   add its arguments (and sub-commands)
    run(args: argparse.Namespace) -> int                  do the work, return the exit code

and is imported only when it runs. `jouet hook ...` skips argparse altogether: it runs before every
tool call an agent makes, so its start-up is kept to the bare minimum.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

# name -> (module, one-line summary). The summaries feed `jouet --help` without importing anything.
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("jouet_git.commands.check", "show what the rules decide about a command (or many, --jsonl)"),
    "parse": ("jouet_git.commands.parse", "show how jouet reads a shell command"),
    "rule": ("jouet_git.commands.rule", "list, test, write and promote rules; their schema and log"),
    "setup": ("jouet_git.commands.setup", "install jouet's hooks into an agent harness or git"),
    "doctor": ("jouet_git.commands.doctor", "check jouet's hooks, gitleaks, trust and rules, and say what to fix"),
    "hook": ("jouet_git.commands.hook", "the hook a harness or git runs (jouet hook claude pre, ...)"),
    "trust": ("jouet_git.commands.trust", "review and trust the rules a repository ships"),
    "plugin": ("jouet_git.commands.plugin", "add, list, update and remove rule plugins pinned by hash"),
    "claim": ("jouet_git.commands.claim", "claim paths for this agent session so others keep off them"),
    "secrets": ("jouet_git.commands.secrets", "scan staged, tracked or outgoing changes for secrets"),
    "read": ("jouet_git.commands.read", "outline a source file (--outline): what it defines, by line"),
    "log": ("jouet_git.commands.log", "what the hooks saw and decided: recent calls, --follow, --stats"),
    "completions": ("jouet_git.completions", "print shell completions for bash, zsh or fish"),
}

USAGE = """\
usage: jouet [-h] [-V] [--color WHEN] COMMAND [ARGS...]

jouet-git guards git work done by AI coding agents and by people. It reads the tool call an
agent is about to make, or the commit or push git is about to do, and applies one set of rules:
deny with one line of advice, warn, or stay silent.

commands:
{commands}

options:
  -h, --help      show this help (`jouet COMMAND --help` says more about each command)
  -V, --version   print jouet's version
  --color WHEN    auto (the default: colour on a terminal, unless NO_COLOR is set), always, never

Start with:
  jouet check 'git add -A'       see a rule deny a command
  jouet rule list                every rule jouet loads, and whether it runs
  jouet setup claude             guard Claude Code's tool calls
  jouet setup git                guard this repository's commits and pushes
"""

HOOK_USAGE = "usage: jouet hook HARNESS EVENT [ARGS...]   (such as `jouet hook claude pre`; see `jouet hook --help`)\n"


def _usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = [f"  {name.ljust(width)}  {summary}" for name, (_, summary) in COMMANDS.items()]
    return USAGE.format(commands="\n".join(lines))


def suggest(word: str, choices: list[str]) -> str:
    """`; did you mean `X`?` for the choice closest to WORD, or ""."""
    import difflib

    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not close and len(word) >= 2:
        close = [c for c in choices if c.startswith(word)][:1]
    return f"; did you mean `{close[0]}`?" if close else ""


def _global_color(args: list[str]) -> tuple[list[str], str | None]:
    """Take a leading `--color WHEN` / `--color=WHEN` off ARGS."""
    if args and args[0].startswith("--color="):
        return args[1:], args[0].split("=", 1)[1]
    if args and args[0] == "--color":
        if len(args) < 2:
            return args[1:], ""
        return args[2:], args[1]
    return args, None


def entry() -> None:
    """The `jouet` program (the console script and `python -m jouet_git`): main(), then exit. The
    package's modules are imported from the wheel's bundle.marshal where it can be used (bundle.py).

    A hook's process ends without tearing the interpreter down (os._exit once stdout and stderr are
    flushed): every file it wrote is closed by then, it starts no thread and registers nothing to run
    at exit, and the teardown (freeing every module and object one by one, a last garbage
    collection) cost a hook more than reading its payload. Any other command exits as usual."""
    from jouet_git import bundle

    bundle.install()  # (a wheel's modules, from one file: jouet_git/bundle.py)
    args = sys.argv[1:]
    hook = bool(args) and args[0] == "hook"
    if hook:
        # A hook lives for one call and makes few reference cycles: the collector's frequent passes
        # while its modules load cost more than the memory they could give back, so it runs far less
        # often (still bounded: every 50,000 objects kept, not every 700).
        import gc

        gc.set_threshold(50_000, 20, 20)
    code = main()
    if hook and isinstance(code, int) and 0 <= code <= 255:
        _exit_now(code)
    sys.exit(code)


def _exit_now(code: int) -> None:
    """Flush stdout and stderr and end the process with CODE; return (to the ordinary exit, which
    reports it) when a flush fails."""
    import os

    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "hook":
        if len(args) == 1:
            sys.stderr.write(HOOK_USAGE)
            return 2
        # The hot path: no argparse, no command registry.
        from jouet_git.commands.hook import run_fast

        return run_fast(args[1:])
    args, when = _global_color(args)
    if when is not None:
        from jouet_git import term

        try:
            term.set_when(when)
        except ValueError as error:
            sys.stderr.write(f"jouet: {error}\n")
            return 2
        if args and args[0] == "hook":
            return main(args)
    if not args:
        sys.stderr.write(_usage())
        return 2
    if args[0] in ("-h", "--help", "help"):
        if len(args) > 1 and args[0] == "help" and args[1] in COMMANDS:
            return main([args[1], "--help"])
        sys.stdout.write(_usage())
        return 0
    if args[0] in ("-V", "--version", "version"):
        from jouet_git import __version__

        print(f"jouet {__version__}")
        return 0
    name = args[0]
    if name not in COMMANDS:
        hint = suggest(name, list(COMMANDS))
        what = "option" if name.startswith("-") else "command"
        first = _usage().splitlines()[0]
        sys.stderr.write(f"jouet: unknown {what} '{name}'{hint}\n{first}\n(`jouet --help` lists every command)\n")
        return 2
    if name == "check":
        stream = check_stream_args(args[1:])
        if stream is not None:  # a stream of calls starts without argparse (the rest of its options: --help)
            from jouet_git.commands import check

            return _run_module(check.run, stream)
    return _run(name, args[1:])


# `jouet check --jsonl` with these options only is read without argparse: a stream's start-up is part
# of every stream's cost. Each option's attribute and whether it takes a value.
_STREAM_OPTIONS = {"--jsonl": ("jsonl", False), "--no-record": ("no_record", False), "--workers": ("workers", True),
                   "--cwd": ("cwd", True), "--harness": ("harness", True)}


def check_stream_args(args: list[str]) -> Any:
    """The options of `jouet check --jsonl ...` as argparse would give them (the attributes run()
    reads), when ARGS hold --jsonl and only the options of _STREAM_OPTIONS, each once and spelled out,
    with a whole number for --workers; else None (argparse reads them, and says what is wrong)."""
    from types import SimpleNamespace

    found: dict[str, Any] = {"command": None, "cwd": None, "json": False, "jsonl": False, "tool": None,
                             "path": None, "exit_code": None, "harness": None, "no_record": False,
                             "workers": None}
    seen: set[str] = set()
    at = 0
    while at < len(args):
        word = args[at]
        name, has_value, value = word.partition("=")
        option = _STREAM_OPTIONS.get(name)
        if option is None or name in seen:
            return None
        seen.add(name)
        attribute, takes = option
        if not takes:
            if has_value:
                return None
            found[attribute] = True
        else:
            if not has_value:
                at += 1
                if at == len(args) or args[at].startswith("-"):
                    return None
                value = args[at]
            if attribute == "workers":
                if not value.isdigit() or not value.isascii():
                    return None
                found[attribute] = int(value)
            else:
                found[attribute] = value
        at += 1
    return SimpleNamespace(**found) if found["jsonl"] else None


def build_parser(name: str) -> tuple[argparse.ArgumentParser, Any]:
    """The argument parser of command NAME, with its module."""
    import argparse
    import importlib

    module_name, summary = COMMANDS[name]
    module = importlib.import_module(module_name)
    parser = make_parser(
        prog=f"jouet {name}",
        description=(module.__doc__ or summary).strip(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    module.configure(parser)
    _add_color(parser)
    return parser, module


def _run(name: str, rest: list[str]) -> int:
    from jouet_git import term

    parser, module = build_parser(name)
    parsed = parser.parse_args(rest)
    when = getattr(parsed, "color", None)
    if when is not None:
        term.set_when(when)
    return _run_module(module.run, parsed)


def _run_module(run: Any, parsed: Any) -> int:
    """A command's run(PARSED), its errors said as jouet says them: the exit code."""
    from jouet_git.errors import JouetError

    try:
        code: int = run(parsed)
    except JouetError as error:
        sys.stderr.write(f"jouet: {error.message}\n")
        return error.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return code


def _add_color(parser: argparse.ArgumentParser) -> None:
    """`--color WHEN` on PARSER and every sub-command's parser, so it may come after any of them."""
    import argparse

    from jouet_git.term import WHEN

    parser.add_argument("--color", choices=WHEN, default=argparse.SUPPRESS, metavar="WHEN",
                        help="colour the output: auto (on a terminal), always, never")
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in {id(p): p for p in action.choices.values()}.values():
                _add_color(sub)


_PARSER: type[argparse.ArgumentParser] | None = None


def make_parser(**kwargs: Any) -> argparse.ArgumentParser:
    """An argparse parser (its sub-commands' parsers are of the same class) that suggests fixes."""
    global _PARSER
    if _PARSER is None:
        _PARSER = _parser_class()
    return _PARSER(**kwargs)


def _parser_class() -> type[argparse.ArgumentParser]:
    import argparse

    class _Parser(argparse.ArgumentParser):
        """argparse with "did you mean" for a mistyped sub-command, choice or option."""

        def _check_value(self, action: argparse.Action, value: Any) -> None:
            choices = action.choices
            if choices is not None and value not in choices:
                names = [str(c) for c in choices]
                listed = ", ".join(names)
                raise argparse.ArgumentError(
                    action, f"invalid choice: '{value}' (choose from {listed}){suggest(str(value), names)}")

        def error(self, message: str) -> Any:
            if message.startswith("unrecognized arguments:"):
                known = _option_strings(self)
                for word in message.split(":", 1)[1].split():
                    if word.startswith("-"):
                        hint = suggest(word.split("=", 1)[0], known)
                        if hint:
                            message += hint
                            break
            super().error(message)

    return _Parser


def _option_strings(parser: argparse.ArgumentParser) -> list[str]:
    import argparse

    out: list[str] = []
    for action in parser._actions:
        out.extend(s for s in action.option_strings if s.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out.extend(_option_strings(sub))
    return sorted(set(out))
