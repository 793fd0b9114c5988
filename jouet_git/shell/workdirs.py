"""Where each command of a script runs, after the `cd`s at the top level of the script before it.

A `cd` inside a subshell, a pipeline element or a background list moves only the commands after it
in that same subshell; one inside $(...) or a -c script moves nothing here. A command inside $(...)
or a -c script runs where the top-level command it belongs to runs.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jouet_git.call import Command

    Where = str | None | bool

_CD = frozenset({"cd", "pushd", "popd"})
_CD_VIA = frozenset({"builtin", "command"})


def dirs(commands: list[Command]) -> list[str | bool | None]:
    """For each command, by index: None in the call's own directory, the path the cds before it
    lead to (relative, absolute, or under ~ or $HOME, as written, joined when several), or False
    after a cd that cannot be followed (a bare `cd`, `cd -`, `cd $DIR`).

    Expects the commands of one parse() result: their internal seq and scope say which top-level
    command each belongs to and which subshell it runs in. Commands built some other way (seq -1)
    are taken in list order, nested ones after every top-level cd.
    """
    order = sorted(range(len(commands)), key=lambda k: _order(commands[k], k))
    states: dict[tuple[int, ...], Where] = {(): None}
    out: list[Where] = [None] * len(commands)
    for k in order:
        cmd = commands[k]
        scope = getattr(cmd, "scope", ())
        here = _lookup(states, scope)
        out[k] = here
        if not cmd.nested and cmd.program in _CD and all(v in _CD_VIA for v in cmd.via):
            states[scope] = _cd(here, cmd.program, cmd.argv)
    return out


def _order(cmd: Command, index: int) -> tuple[int, int, int]:
    seq = getattr(cmd, "seq", -1)
    if seq < 0:
        seq = 1 << 40 if cmd.nested else index
    # Commands of $(...) run before the command they belong to, and so before its cd.
    return seq, 1 if not cmd.nested else 0, index


def _lookup(states: dict[tuple[int, ...], Where], scope: tuple[int, ...]) -> Where:
    while scope not in states:
        scope = scope[:-1]
    return states[scope]


def _cd(here: Where, program: str, argv: list[str]) -> Where:
    """Where a cd (or pushd, popd) from here leads."""
    if program == "popd":
        return False
    args = argv[1:]
    target: str | None = None
    for k, arg in enumerate(args):
        if arg == "--":
            target = args[k + 1] if k + 1 < len(args) else None
            break
        if len(arg) > 1 and arg[0] == "-" and all(c in "LPe@" for c in arg[1:]):
            continue
        target = arg
        break
    if target is None or target == "" or target == "-":
        return False
    if program == "pushd" and target[0] in "+-" and target[1:].isdigit():
        return False
    if not _followable(target):
        return False
    if _rooted(target) or here is None:
        return None if target in (".", "./") else target
    if not isinstance(here, str):
        return False  # relative to somewhere unknown
    joined = _join(here, target)
    if joined is None:
        return False
    return None if joined == "." else joined


def _followable(path: str) -> bool:
    """Whether a cd target can be named without running anything: no expansion but a leading
    $HOME or ~, no globs."""
    rest = path
    for home in ("$HOME", "${HOME}"):
        if path == home or path.startswith(home + "/"):
            rest = path[len(home) :]
            break
    else:
        if path.startswith("~") and not (path == "~" or path.startswith("~/")):
            return False  # ~user
    return not any(c in rest for c in "$`*?[")


def _rooted(path: str) -> bool:
    return path.startswith(("/", "~", "$HOME", "${HOME}"))


def _join(base: str, rel: str) -> str | None:
    """base/rel with `.` dropped and `..` taken back, never past base's root (None if it would)."""
    root = ""
    for prefix in ("/", "~", "${HOME}", "$HOME"):
        if base == prefix or base.startswith(prefix + "/") or (prefix == "/" and base.startswith("/")):
            root = prefix
            break
    body = base[len(root) :]
    parts: list[str] = []
    for part in (body + "/" + rel).split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif root:
                if root == "/":
                    continue  # /.. is /
                return None  # above ~ or $HOME: not nameable as written
            else:
                parts.append(part)
        else:
            parts.append(part)
    if root == "/":
        return "/" + "/".join(parts)
    if root:
        return root + ("/" + "/".join(parts) if parts else "")
    return "/".join(parts) if parts else "."
