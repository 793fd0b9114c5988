"""Which commands of a script get the script's exit status, and which status.

A failure belongs only to the last pipeline: its last command gets the code when the script's last
and-or list is that one pipeline (`a; b` failing says b failed; `a && b` failing could be either).
Success belongs to every command of the final && chain, except one piped into another, whose own
status the pipe hides (unless `set -o pipefail` ran earlier in the script). A subshell or group
passes the status on to its own last list; other compound commands keep it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jouet_git.call import Command
    from jouet_git.shell.reader import AndOr, Elem, Pipe


def assign(items: list[AndOr], top: list[Command], code: int) -> None:
    """Set `status` on the top-level commands of the script read into items."""
    _assign(items, code, _pipefail(top))


def _pipefail(top: list[Command]) -> dict[int, bool]:
    """For each top-level command, whether `set -o pipefail` is on when it starts."""
    on = False
    out: dict[int, bool] = {}
    for cmd in top:
        out[id(cmd)] = on
        if cmd.program == "set" and not cmd.scope:
            on = _set_pipefail(cmd.argv, on)
    return out


def _set_pipefail(argv: list[str], on: bool) -> bool:
    """Read `set -o pipefail`, `set -euo pipefail` and `set +o pipefail`."""
    i = 1
    while i < len(argv):
        word = argv[i]
        i += 1
        if len(word) < 2 or word[0] not in "-+" or word == "--":
            continue
        for letter in word[1:]:
            if letter == "o" and i < len(argv):
                if argv[i] == "pipefail":
                    on = word[0] == "-"
                i += 1
    return on


def _assign(items: list[AndOr], code: int, pipefail: dict[int, bool]) -> None:
    if not items:
        return
    last = items[-1]
    if last.background:
        return  # the list runs on; the script's status says nothing about it
    if code == 0:
        pipes = last.pipes
        start = 0
        for k, op in enumerate(last.ops):
            if op == "or":
                start = k + 2  # the pipeline right of || may not have run at all
        for pipe in pipes[start:]:
            _success(pipe, pipefail)
        return
    if len(last.pipes) != 1:
        return
    pipe = last.pipes[0]
    if pipe.negated or not pipe.elems:
        return
    if len(pipe.elems) > 1 and _on(pipe, pipefail):
        return  # any element could have failed
    _give(pipe.elems[-1], code, pipefail)


def _success(pipe: Pipe, pipefail: dict[int, bool]) -> None:
    if pipe.negated or not pipe.elems:
        return
    if len(pipe.elems) > 1 and _on(pipe, pipefail):
        for elem in pipe.elems:
            _give(elem, 0, pipefail)
    else:
        _give(pipe.elems[-1], 0, pipefail)


def _on(pipe: Pipe, pipefail: dict[int, bool]) -> bool:
    for elem in pipe.elems:
        if elem.cmds:
            return pipefail.get(id(elem.cmds[0]), False)
    return False


def _give(elem: Elem, code: int, pipefail: dict[int, bool]) -> None:
    if elem.cmd is not None:
        if not elem.cmd.nested:
            elem.cmd.status = code
    elif elem.body is not None:
        _assign(elem.body, code, pipefail)
