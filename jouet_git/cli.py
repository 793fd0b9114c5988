"""Command-line entry point: argument parsing only.

Each command lives in jouet_git/commands/NAME.py with two functions:

    configure(parser: argparse.ArgumentParser) -> None   add its arguments (and sub-commands)
    run(args: argparse.Namespace) -> int                  do the work, return the exit code

and is imported only when it runs. `jouet hook ...` skips argparse altogether: it runs before every
tool call an agent makes, so its start-up is kept to the bare minimum.
"""

from __future__ import annotations

import sys

# name -> (module, one-line summary). The summaries feed `jouet --help` without importing anything.
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("jouet_git.commands.check", "show what the rules decide about a command (or many, --jsonl)"),
    "parse": ("jouet_git.commands.parse", "show how jouet reads a shell command"),
    "rule": ("jouet_git.commands.rule", "list, test, write, promote and explain rules"),
    "setup": ("jouet_git.commands.setup", "install jouet's hooks into an agent harness or git"),
    "doctor": ("jouet_git.commands.doctor", "check jouet's hooks, gitleaks, trust and rules, and say what to fix"),
    "hook": ("jouet_git.commands.hook", "the hook a harness or git runs (jouet hook claude pre, ...)"),
    "trust": ("jouet_git.commands.trust", "review and trust the rules a repository ships"),
    "plugin": ("jouet_git.commands.plugin", "add, list, update and remove rule plugins pinned by hash"),
    "claim": ("jouet_git.commands.claim", "claim paths for this agent session so others keep off them"),
    "secrets": ("jouet_git.commands.secrets", "scan staged, tracked or outgoing changes for secrets"),
}

USAGE = """\
usage: jouet [--version] COMMAND [ARGS...]

jouet-git guards git work done by AI coding agents and by people. It reads the tool call an
agent is about to make, or the commit or push git is about to do, and applies one set of rules:
deny with one line of advice, warn, or stay silent.

commands:
{commands}

Start with:
  jouet check 'git add -A'       see a rule deny a command
  jouet rule list                every rule jouet loads, and whether it runs
  jouet setup claude             guard Claude Code's tool calls
  jouet setup git                guard this repository's commits and pushes

`jouet COMMAND --help` says more about each command.
"""


def _usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = [f"  {name.ljust(width)}  {summary}" for name, (_, summary) in COMMANDS.items()]
    return USAGE.format(commands="\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "hook":
        # The hot path: no argparse, no command registry.
        from jouet_git.commands.hook import run_fast

        return run_fast(args[1:])
    if not args or args[0] in ("-h", "--help", "help"):
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
        sys.stderr.write(f"jouet: unknown command '{name}'\n\n{_usage()}")
        return 2
    return _run(name, args[1:])


def _run(name: str, rest: list[str]) -> int:
    import argparse
    import importlib

    from jouet_git.errors import JouetError

    module_name, summary = COMMANDS[name]
    module = importlib.import_module(module_name)
    parser = argparse.ArgumentParser(
        prog=f"jouet {name}",
        description=(module.__doc__ or summary).strip(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    module.configure(parser)
    parsed = parser.parse_args(rest)
    try:
        code: int = module.run(parsed)
    except JouetError as error:
        sys.stderr.write(f"jouet: {error.message}\n")
        return error.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return code
