"""Reading ahead for a script rule: the git runs a built-in script is about to ask for, started
before its Lua VM is.

A script rule's first run in a process starts the Lua VM (a few milliseconds), and the built-in
committed-secrets script then asks jouet.secrets.scan() for a commit's staged lines or a push's
outgoing commits, which starts git three or four times. Started first, those git runs go on beside
the VM's start instead of after it.

What is started is only a guess at what the script will ask: the scan itself takes the runs over
only when it is asked with exactly the arguments they were started with (probes/secrets.py
read_ahead), and abandons them otherwise. A wrong guess costs the runs' time and can change no
answer, so the guess below keeps to the plain cases: one matched `git commit` that takes the staged
lines as they are, or one `git push`, run in the call's own directory.
"""

from __future__ import annotations

from jouet_git import cmdline
from jouet_git.engine.model import BUILTIN

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jouet_git.call import Call, Command
    from jouet_git.engine.model import Rule

SECRETS_RULE = "committed-secrets"

# git commit's options that take a value (the next word, the rest of a short cluster, or after `=`).
_COMMIT_VALUES = ("-m", "-F", "-C", "-c", "-t", "--message", "--file", "--reuse-message", "--reedit-message",
                  "--template", "--author", "--date", "--cleanup", "--fixup", "--squash", "--trailer",
                  "--pathspec-from-file")
# Options that make a commit take more than the staged lines (-a, -i, -o, -p, --pathspec-from-file).
_COMMIT_WIDER_SHORT = frozenset({"-a", "-i", "-o", "-p"})
_COMMIT_WIDER_LONG = ("--all", "--include", "--only", "--interactive", "--patch", "--pathspec-from-file")
# Commands that move the directory a later command runs in.
_MOVERS = frozenset({"cd", "pushd", "popd"})


def secret_scan(rule: Rule, call: Call, matched: list[int]) -> str | None:
    """The scope ("staged" or "outgoing") the built-in committed-secrets script will ask
    jouet.secrets.scan() for in the call's own directory, when that is plain; None otherwise."""
    if rule.name != SECRETS_RULE or rule.source != BUILTIN or len(matched) != 1:
        return None
    commands = call.commands
    if not 0 <= matched[0] < len(commands):
        return None
    for command in commands:
        if command.program in _MOVERS or command.chdir:
            return None
        if command.program == "git" and len(command.argv) > 1 and command.argv[1] in ("add", "stage"):
            return None  # the script adds what this stages to the scan
    command = commands[matched[0]]
    argv = command.argv
    if command.program != "git" or len(argv) < 2:
        return None
    if argv[1] == "push":  # (git's global options, such as -C, come before the subcommand)
        return "outgoing"
    if argv[1] == "commit" and _staged_only(command):
        return "staged"
    return None


def _staged_only(command: Command) -> bool:
    """Whether `git commit ARGS` takes the staged lines as they are: no pathspec, no -a, -i, -o, -p."""
    flags, pathspecs = cmdline.split_options(command.argv[2:], _COMMIT_VALUES)
    return not pathspecs and not any(
        flag in _COMMIT_WIDER_SHORT
        # (git takes an abbreviation such as --al)
        or (flag.startswith("--") and any(full.startswith(flag) for full in _COMMIT_WIDER_LONG))
        for flag in flags)
