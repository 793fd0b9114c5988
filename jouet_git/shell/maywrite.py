"""Whether a call's commands may write anything at all: a cheap test done before importing the
write finder (shell/writes.py) and jouet's view of its own files (guarded.py).

    if may_write(call.commands):
        ...   # only then ask writes() which paths

It says True for every command writes() could find a write in (a redirection of stdout to a file, a
program writes() reads the operands of, git's rm, mv and config), and for some that write nothing
(`git log --grep rm`): it is conservative. The program names live here and writes.py takes them from
here, so the two cannot drift apart.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jouet_git.call import Command

# Every operand is written (removed, for the second set).
ALL = frozenset({"tee", "truncate", "touch", "shred", "ed", "ex", "vi", "vim", "nvim", "nano", "emacs",
                 "patch", "setfacl", "chattr"})
REMOVE_ALL = frozenset({"rm", "unlink", "rmdir", "srm"})
# The first operand is the mode or owner; the rest are changed.
MODE = frozenset({"chmod", "chown", "chgrp"})
# The last operand (or -t DIR) receives the others.
DESTINATION = frozenset({"cp", "mv", "install", "ln", "rsync", "scp", "link"})
INTERPRETERS = {"perl": ("-e", "-E"), "ruby": ("-e",), "node": ("-e", "--eval", "-p", "--print"),
                "nodejs": ("-e", "--eval", "-p", "--print"), "bun": ("-e", "--eval"), "deno": ("eval",),
                "php": ("-r",), "Rscript": ("-e",), "osascript": ("-e",)}
# The programs writes() looks at one by one (shell/writes.py _command_writes), besides git and the
# programs named python* or pypy*.
OTHERS = frozenset({"sed", "perl", "dd", "tar", "unzip", "curl", "wget", "find"})
WRITERS = ALL | REMOVE_ALL | MODE | DESTINATION | frozenset(INTERPRETERS) | OTHERS
# The git subcommands writes() finds writes in.
GIT_WRITES = frozenset({"rm", "mv", "config"})
# Redirection targets that are no file.
NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2"})


def may_write(commands: list[Command]) -> bool:
    """False only when writes(COMMANDS) is sure to find nothing."""
    for command in commands:
        if command.stdout_to is not None and command.stdout_to not in NOT_FILES:
            return True
        program = command.program or ""
        if program == "git":
            if not GIT_WRITES.isdisjoint(command.argv):
                return True
        elif program in WRITERS or program.startswith(("python", "pypy")):
            return True
    return False
