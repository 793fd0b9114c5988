"""What the builtins that set variables do to the values the reader keeps, and what a list of pure
commands prints. Used by the reader (imported when one of these builtins, or a substitution whose
value is wanted, appears).

Values follow the shell: `export G=git`, `declare -x`, `local`, `readonly`, `typeset` assign;
`unset` empties; `read`, `mapfile`, `getopts`, `declare -n`/`-i` make a variable unknown (it then
stays as written); `printf -v NAME` assigns what printf prints; `set -- ARGS` and `shift` set the
positional parameters; `alias NAME=VALUE` defines an alias.

`cd`, `pushd` and `popd` move `$PWD` (the call's directory at the start, when known) and set
`$OLDPWD` to where they left; `cd -` goes back there, and popd to the directory pushd left (a
stack kept under a name no script can use). A move to where cannot be told (`cd "$DIR"`, `cd ~`,
a popd of a stack from before the call) makes `$PWD` unknown, and it then stays as written.
"""

from __future__ import annotations

from jouet_git.shell import follow, pure

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jouet_git.call import Command
    from jouet_git.shell.reader import AndOr, Pipe, Reader


def builtin(reader: Reader, cmd: Command, arrays: dict[str, list[str]]) -> None:
    """Apply what the builtin cmd does to the variables."""
    program = cmd.program
    args = cmd.argv[1:]
    if program in ("export", "declare", "typeset", "local", "readonly"):
        _declare(reader, program, args, arrays, id(cmd) in reader.sh.unknown)
    elif program == "unset":
        _unset(reader, args)
    elif program == "read":
        _forget(reader, _operands(args, "adinNptu"), "REPLY")
    elif program in ("readarray", "mapfile"):
        _forget(reader, _operands(args, "dnOsuCc")[-1:], "MAPFILE")
    elif program == "getopts":
        _forget(reader, args[1:2], "")
    elif program == "printf":
        _printf_v(reader, cmd, args)
    elif program == "set":
        _set(reader, args)
    elif program == "shift":
        _shift(reader, args)
    elif program == "alias":
        for arg in args:
            name, eq, value = arg.partition("=")
            if eq and name and not name.startswith("-"):
                reader.sh.aliases[name] = value
    elif program == "unalias":
        for arg in args:
            if arg == "-a":
                reader.sh.aliases.clear()
            reader.sh.aliases.pop(arg, None)


def _operands(args: list[str], takes_value: str) -> list[str]:
    """The operands of a builtin whose options in takes_value take a value."""
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            out.extend(args[i + 1 :])
            break
        if arg.startswith("-") and len(arg) > 1:
            letters = arg[1:]
            for k, letter in enumerate(letters):
                if letter in takes_value:
                    if letter == "a":
                        # read -a NAME: NAME is the array it fills.
                        out.append(letters[k + 1 :] or (args[i + 1] if i + 1 < len(args) else ""))
                    if k + 1 == len(letters):
                        i += 1
                    break
            i += 1
            continue
        out.append(arg)
        i += 1
    return [name for name in out if name]


def _forget(reader: Reader, names: list[str], default: str) -> None:
    for name in names or ([default] if default else []):
        reader.assign(name, None)


def _declare(reader: Reader, program: str, args: list[str], arrays: dict[str, list[str]], partial: bool) -> None:
    flags: set[str] = set()
    unexport = False
    for arg in args:
        if arg.startswith(("-", "+")) and len(arg) > 1 and "=" not in arg:
            if arg[0] == "-":
                flags.update(arg[1:])
            elif "x" in arg:
                unexport = True
            continue
        if flags & {"f", "F", "p"}:
            return  # functions, or printing: no variable changes
        name, eq, value = arg.partition("=")
        plus = name.endswith("+")
        if plus:
            name = name[:-1]
        if not name.replace("_", "a").isalnum() or name[:1].isdigit():
            if "[" in name:
                reader.assign(name.partition("[")[0], None)
            continue
        if flags & {"n", "i"}:
            reader.assign(name, None)
            continue
        if eq:
            got: str | list[str] = arrays.get(name, value)
            if plus:
                old = reader.lookup(name)
                if old is None:
                    reader.assign(name, None)
                    continue
                if isinstance(old, list) or isinstance(got, list):
                    got = (old if isinstance(old, list) else [old]) + (got if isinstance(got, list) else [got])
                else:
                    got = old + got
            reader.assign(name, got, partial)
        if program == "export" or "x" in flags:
            reader.export(name, not (unexport or (program == "export" and "n" in flags)))


def _unset(reader: Reader, args: list[str]) -> None:
    functions = False
    for arg in args:
        if arg == "-f":
            functions = True
        elif arg.startswith("-"):
            continue
        elif functions:
            reader.sh.functions.pop(arg, None)
        else:
            # Unset: empty from here on, in this shell and the programs it starts.
            reader.assign(arg, "")


def _printf_v(reader: Reader, cmd: Command, args: list[str]) -> None:
    name: str | None = None
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-v" and i + 1 < len(args):
            name = args[i + 1]
            i += 2
            continue
        if arg.startswith("-v") and len(arg) > 2:
            name = arg[2:]
            i += 1
            continue
        rest = args[i:]
        break
    if name is None:
        return
    value = pure.output(["printf", *rest], None, lambda path: follow.read_file(reader, path))
    reader.assign(name, value, id(cmd) in reader.sh.unknown)


def _set(reader: Reader, args: list[str]) -> None:
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            reader.assign("@", args[i + 1 :])
            return
        if arg in ("-o", "+o"):
            i += 2
            continue
        if arg[:1] in ("-", "+") and len(arg) > 1:
            i += 1
            continue
        reader.assign("@", args[i:])
        return
    return


def _shift(reader: Reader, args: list[str]) -> None:
    current = reader.sh.vars.get("@")
    if not isinstance(current, list):
        return
    count = int(args[0]) if args and args[0].isdigit() else 1
    reader.assign("@", current[count:])


def list_output(reader: Reader, items: list[AndOr]) -> str | None:
    """What a list of and-or lists prints, when every command in it is pure; None otherwise."""
    out: list[str] = []
    for item in items:
        if item.background:
            return None
        ok = True
        for k, pipe in enumerate(item.pipes):
            if k:
                op = item.ops[k - 1]
                if (op == "and" and not ok) or (op == "or" and ok):
                    continue
            got = _pipe_output(reader, pipe)
            if got is None:
                return None
            text, ok = got
            out.append(text)
    return "".join(out)


def _pipe_output(reader: Reader, pipe: Pipe) -> tuple[str, bool] | None:
    elems = pipe.elems
    last = elems[-1].cmd if elems else None
    if last is None:
        return None
    if any(e.cmd is None or id(e.cmd) in reader.sh.unknown for e in elems):
        return None
    if last.stdout_to is not None:
        return None
    if not last.argv:
        # `$(< file)`, or assignments only.
        if last.stdin_from is not None:
            text = follow.read_file(reader, last.stdin_from)
            return None if text is None else (text, True)
        return "", True
    if last.program == "false":
        return "", pipe.negated
    stdin = follow.input_of(reader, elems, len(elems) - 1)
    text = pure.output(last.argv, stdin, lambda path: follow.read_file(reader, path))
    if text is None or not reader.charge(len(text)):
        return None
    return text, not pipe.negated


# The stack of directories pushd left (top first), "" for one not known: kept with the variables
# (so a subshell's pushd is undone with them) under a name no script can write or expand.
_STACK = " dirs"


def moved(reader: Reader, cmd: Command) -> None:
    """What cd, pushd and popd do to $PWD, $OLDPWD and the pushd stack."""
    own = cmd.words[: len(cmd.words) - len(cmd.argv)]
    if any(word not in ("builtin", "command", "--") for word in own):
        return  # run by a wrapper (`sudo cd`): not this shell's move
    sh = reader.sh
    here = sh.vars.get("PWD")
    here_known = here if isinstance(here, str) and "PWD" not in sh.partial else ""
    stack_value = sh.vars.get(_STACK)
    stack = list(stack_value) if isinstance(stack_value, list) else []
    args = [a for a in cmd.argv[1:] if a != "--"]
    unknown = id(cmd) in sh.unknown
    to: str
    if cmd.program == "popd":
        if args == ["-n"] and stack:
            reader.assign(_STACK, stack[1:])
            return
        if args or not stack:
            to, stack = "", []
        else:
            to, stack = stack[0], stack[1:]
    elif cmd.program == "pushd" and (not args or args == ["-n"]):
        if not stack:
            to, stack = "", []
        else:
            to, stack = stack[0], [here_known, *stack[1:]]
    else:
        target = next((a for a in args if not (len(a) > 1 and a[0] == "-" and set(a[1:]) <= set("LPe@n"))), None)
        if target is None or unknown or (cmd.program == "pushd" and target[:1] in "+-" and target[1:].isdigit()):
            to = ""
            if cmd.program == "pushd":
                stack = []
        elif target == "-" and cmd.program == "cd":
            old = sh.vars.get("OLDPWD")
            to = old if isinstance(old, str) and "OLDPWD" not in sh.partial else ""
        else:
            to = _resolve(here_known, target)
        if cmd.program == "pushd":
            if "-n" in args:
                reader.assign(_STACK, [to, *stack])
                return
            stack = [here_known, *stack]
    reader.assign("OLDPWD", here_known or None)
    reader.export("OLDPWD")
    reader.assign("PWD", to or None)
    reader.export("PWD")
    reader.assign(_STACK, stack)


def _resolve(here: str, target: str) -> str:
    """The absolute directory `cd TARGET` from HERE leads to (as `cd -L` does: `..` takes back a
    name), or "" when it cannot be told (HERE not known for a relative TARGET, ~, a glob...)."""
    import posixpath

    if not target or target.startswith("~") or any(c in target for c in "$`*?["):
        return ""
    if not target.startswith("/"):
        if not here:
            return ""
        target = f"{here}/{target}"
    out = posixpath.normpath(target)
    return "/" if out.startswith("//") else out
