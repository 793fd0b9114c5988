"""Where each command of a script runs, after the `cd`s at the top level of the script before it,
and the directory a wrapper moves it to (`env -C dir`, `sudo -D dir`: Command.chdir).

A `cd` inside a subshell, a pipeline element or a background list moves only the commands after it
in that same subshell; one inside $(...) or a -c script moves nothing here. A command inside $(...)
or a -c script runs where the top-level command it belongs to runs.

`cd -` goes back to where the cd before it left, and `pushd`/`popd` keep a stack of directories, so
`cd /tmp && cd - && x` and `pushd /tmp && popd && x` run x where the call started. Where the shell
was before the call (its `cd -` at the start, its stack of pushd directories) is not known.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jouet_git.call import Command

    Where = str | None | bool
    # Where a shell is, where its `cd -` leads, and its pushd stack (top first).
    State = tuple[Where, Where, tuple[Where, ...]]

_CD = frozenset({"cd", "pushd", "popd"})
_CD_VIA = frozenset({"builtin", "command"})


def dirs(commands: list[Command]) -> list[str | bool | None]:
    """For each command, by index: None in the call's own directory, the path the cds before it
    lead to (relative, absolute, or under ~ or $HOME, as written, joined when several), or False
    after a cd that cannot be followed (a bare `cd`, `cd -`, `cd $DIR`).

    Expects the commands of one parse() result: their internal seq, scope and origin say which
    top-level command each belongs to, which subshell it runs in, and which command started the
    process it runs in. A cd moves the later commands of its own subshell or process (a `sh -c`
    script's cd moves that script's commands; eval's, source's and a function's move the shell).
    A wrapper's move (Command.chdir) moves its command and what that command runs. Commands built
    some other way (seq -1) are taken in list order, nested ones after every top-level cd.
    """
    order = sorted(range(len(commands)), key=lambda k: _order(commands[k], k))
    # At the start, the shell's `cd -` and its stack are those of the agent's shell: not known.
    states: dict[tuple[int, ...], State] = {(): (None, False, ())}
    started: dict[int, State] = {}  # id(command) -> where the process it starts begins
    out: list[Where] = [None] * len(commands)
    for k in order:
        cmd = commands[k]
        scope = getattr(cmd, "scope", ())
        origin = getattr(cmd, "origin", None)
        if origin is not None and scope not in states:
            states[scope] = _start(origin, states, started)
        state = _state(states, scope)
        here = _moved(state[0], getattr(cmd, "chdir", None))
        out[k] = here
        if cmd.program in _CD and _plain(cmd):
            states[scope] = _step((here, state[1], state[2]), cmd.program, cmd.argv)
    return out


def _start(origin: Command, states: dict[tuple[int, ...], State], started: dict[int, State]) -> State:
    """Where the process origin starts begins: where origin runs (its own start first). A new
    process keeps its parent's `cd -` (OLDPWD is exported) but not its pushd stack."""
    key = id(origin)
    if key not in started:
        outer = getattr(origin, "origin", None)
        scope = getattr(origin, "scope", ())
        if outer is not None and scope not in states:
            states[scope] = _start(outer, states, started)
        here, previous, _ = _state(states, scope)
        started[key] = (_moved(here, getattr(origin, "chdir", None)), previous, ())
    return started[key]


def _step(state: State, program: str, argv: list[str]) -> State:
    """The state after a cd, pushd or popd run in STATE."""
    here, previous, stack = state
    args = [a for a in argv[1:] if a != "--"]
    if program == "popd":
        if args == ["-n"] and stack:
            return here, previous, stack[1:]
        if args or not stack:
            return False, here, ()  # popd +N, or a stack from before the call
        return stack[0], here, stack[1:]
    if program == "pushd":
        if not args or args == ["-n"]:
            if not stack:
                return False, here, ()
            return stack[0], here, (here, *stack[1:])  # swap the top two
        operand = args[-1]
        if operand[:1] in "+-" and operand[1:].isdigit():
            return False, here, ()  # rotations
        to = _cd(here, "cd", ["cd", *argv[1:]])
        return (here, to, stack) if "-n" in args else (to, here, (here, *stack))
    target = _operand(args)
    if target == "-":
        return previous, here, stack
    return _cd(here, "cd", argv), here, stack


def _operand(args: list[str]) -> str | None:
    for arg in args:
        if len(arg) > 1 and arg[0] == "-" and all(c in "LPe@" for c in arg[1:]):
            continue
        return arg
    return None


def _moved(here: Where, chdir: str | bool | None) -> Where:
    if chdir is False:
        return False
    if not isinstance(chdir, str):
        return here
    return _cd(here, "cd", ["cd", chdir])


def _plain(cmd: Command) -> bool:
    """Whether a cd is run by the shell itself: no wrapper of its own but builtin or command (the
    programs running the script it is in do not count)."""
    own = cmd.words[: len(cmd.words) - len(cmd.argv)]
    return all(word in _CD_VIA or word == "--" for word in own)


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


def _state(states: dict[tuple[int, ...], State], scope: tuple[int, ...]) -> State:
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
