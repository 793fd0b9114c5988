"""Reading a command's options the way its program does: global options, clusters, option values.

Shared by the matchers (engine/match.py) and the helpers scripts get (jouet.git, jouet.options,
jouet.short_flag). On the hook path: no imports.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Options that take a value when they come before the subcommand, by program. Without this,
# `git -C dir add` would read `dir` as the subcommand.
GLOBAL_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "git": frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix",
                      "--config-env", "--attr-source"}),
    "cargo": frozenset({"-C", "-Z", "--config", "--color"}),
    "npm": frozenset({"-C", "--prefix", "-w", "--workspace"}),
    "pnpm": frozenset({"-C", "--dir", "--filter", "-F", "--workspace-dir"}),
    "yarn": frozenset({"--cwd"}),
    "docker": frozenset({"-H", "--host", "-c", "--context", "--config", "-l", "--log-level"}),
    "kubectl": frozenset({"-n", "--namespace", "--context", "--cluster", "--kubeconfig", "-s",
                          "--server", "--user"}),
    "go": frozenset({"-C"}),
    "uv": frozenset({"--directory", "--project", "--cache-dir", "--config-file"}),
    "mise": frozenset({"-C", "--cd", "-E", "--env"}),
    "gh": frozenset({"-R", "--repo"}),
    "jj": frozenset({"-R", "--repository", "--at-op", "--at-operation", "--config"}),
}


def _from_root(path: str) -> bool:
    """Whether PATH names a place on its own: absolute, or under ~ or $HOME."""
    return path.startswith(("/", "~", "$HOME", "${HOME}"))


def _place(where: str | bool | None, target: str) -> str | bool | None:
    """WHERE moved by a `cd TARGET` (git's -C, env -C): absolute or under ~ replaces, relative joins."""
    if not target:
        return where
    if _from_root(target) or where is None:
        return target
    if where is False:
        return False
    return f"{where}/{target}"


def _known_path(path: str) -> bool:
    """Whether PATH is a path as written, not one hiding a variable or a substitution."""
    if path in ("$HOME", "${HOME}"):
        return True
    rest = path
    for home in ("$HOME/", "${HOME}/"):
        if rest.startswith(home):
            rest = rest[len(home):]
    return "$" not in rest and "`" not in rest


def git_where(argv: list[str], base: str | bool | None, env: dict[str, str] | None = None) -> str | bool | None:
    """Where the git command ARGV runs, as the probes' `dir` takes it: the work tree it acts on.

    BASE is where the shell runs the command (what jouet.dirs gives: None for the call's own
    directory, a path as written, or False after a cd jouet cannot follow). Each `-C DIR` before the
    subcommand moves it, as git does: an absolute DIR (or one under ~ or $HOME) replaces it, and a
    relative one is joined to it. Every other global option is skipped with its value (`-c k=v`,
    `--attr-source REV`, ...).

    A repository named by `--git-dir`/`--work-tree` (or GIT_DIR/GIT_WORK_TREE in ENV, the variables
    the command runs with; the options win) is followed, relative to where git ends up after its
    `-C`s: the answer is the work tree, or for a git dir alone the work tree it belongs to
    (`repo` for `repo/.git`, the git dir itself for a bare one). The answer is False when it
    cannot be known: a `-C` with no value, a relative path after an unknown cd, or a path hiding a
    variable.
    """
    where = base
    takes_value = GLOBAL_VALUE_OPTIONS["git"]
    git_dir = env.get("GIT_DIR") if env else None
    work_tree = env.get("GIT_WORK_TREE") if env else None
    i = 1
    n = len(argv)
    while i < n:
        word = argv[i]
        if word == "--" or not is_option(word):
            break
        name, eq, value = word.partition("=")
        if word == "-C":
            if i + 1 >= n:
                return False
            where = _place(where, argv[i + 1])
            i += 2
            continue
        if name in ("--git-dir", "--work-tree"):
            if not eq:
                if i + 1 >= n:
                    return False
                value = argv[i + 1]
            if name == "--git-dir":
                git_dir = value
            else:
                work_tree = value
        i += 2 if not eq and name in takes_value else 1
    if work_tree is None and git_dir is None:
        return where
    target = work_tree
    if target is None:
        assert git_dir is not None
        trimmed = git_dir.rstrip("/")
        head, _, tail = trimmed.rpartition("/")
        if tail == ".git":
            target = head if head or not trimmed.startswith("/") else "/"
        elif trimmed == ".git":
            target = ""
        else:
            target = git_dir
    for pwd in ("$PWD", "${PWD}"):
        if target == pwd or target.startswith(pwd + "/"):
            # The shell's own directory: where git was started (its -C's do not change $PWD).
            rest = target[len(pwd) + 1:]
            return _place(base, rest) if rest else base
    if not _known_path(target):
        return False
    return _place(where, target) if target else where


# Wrappers that run their command in another directory: the option and its long spelling.
def command_where(command: Any, base: str | bool | None) -> str | bool | None:
    """git_where for a Command whose directory jouet.dirs gave as BASE (that already follows a
    wrapper's move, `env -C DIR`, `sudo -D DIR`: Command.chdir), with the GIT_DIR/GIT_WORK_TREE it
    is given (`GIT_DIR=x git`, `env GIT_DIR=x git`)."""
    if command.program != "git":
        return base
    return git_where(command.argv, base, command.env)


def is_option(word: str) -> bool:
    return len(word) > 1 and word[0] == "-"


def skip_global_options(program: str, words: list[str], start: int, value_flags: tuple[str, ...] = ()) -> int:
    """The index of the first word at or after START that is not an option before the subcommand."""
    takes_value = GLOBAL_VALUE_OPTIONS.get(program, frozenset())
    i = start
    n = len(words)
    while i < n:
        word = words[i]
        if word == "--":
            return i + 1
        if word[:1] == "+" and program in ("cargo", "rustup", "rustc"):
            i += 1
            continue
        if not is_option(word):
            return i
        name = word.split("=", 1)[0]
        if "=" not in word and (name in takes_value or name in value_flags):
            i += 2
        elif not word.startswith("--") and len(word) > 2 and word[:2] in takes_value:
            i += 1  # -Cdir: the value is attached
        else:
            i += 1
    return i


def read_options(words: list[str], values: frozenset[str] | tuple[str, ...], first: int = 0,
                 numbers: bool = False) -> tuple[list[tuple[str, str | None]], list[str], bool]:
    """Read WORDS[FIRST:] as a program reads its command line: (its options in order, each with its
    value or None, its operands, whether it is whole).

    A cluster of short options gives each one (`-fu`: -f and -u); an option listed in VALUES (short
    `-o` or long `--output` alike) takes the rest of its cluster or the next word (`-ofile`, `-o
    file`, `--output=file`, `--output file`); a long option with `=` always has its value. After `--`
    every word is an operand, and so is a lone `-`. With NUMBERS, `-20` reads as `-n 20` and `+5` as
    the option "+" with value 5, as head and tail read them. An option that takes a value and ends the
    line comes back with None, and the line is not whole.
    """
    options: list[tuple[str, str | None]] = []
    operands: list[str] = []
    i = first
    n = len(words)
    while i < n:
        word = words[i]
        i += 1
        if word == "--":
            operands.extend(words[i:])
            break
        if len(word) < 2 or word[0] != "-":
            if numbers and word[:1] == "+" and word[1:].isdigit():
                options.append(("+", word[1:]))
            else:
                operands.append(word)
            continue
        if word[1] == "-":
            name, eq, value = word.partition("=")
            if eq:
                options.append((name, value))
            elif name not in values:
                options.append((name, None))
            elif i < n:
                options.append((name, words[i]))
                i += 1
            else:
                options.append((name, None))
                return options, operands, False
            continue
        if numbers and word[1:].isdigit():
            options.append(("-n", word[1:]))
            continue
        for j in range(1, len(word)):
            flag = "-" + word[j]
            if flag not in values:
                options.append((flag, None))
                continue
            if j + 1 < len(word):
                options.append((flag, word[j + 1:]))
            elif i < n:
                options.append((flag, words[i]))
                i += 1
            else:
                options.append((flag, None))
                return options, operands, False
            break
    return options, operands, True


def split_options(words: list[str], value_flags: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """Split WORDS into (options, arguments), as read_options reads them.

    Options come back one per flag, without values: `-fu` gives -f and -u, `--force=x` gives
    --force. An option listed in VALUE_FLAGS takes the next word (or, in a cluster, the rest of the
    cluster) as its value, which is neither an option nor an argument. After `--` everything is an
    argument.
    """
    options, args, _ = read_options(words, value_flags)
    return [name for name, _ in options], args


# The options of sed that take a value, short and long.
SED_VALUES = frozenset({"-e", "-f", "-l", "--expression", "--file", "--line-length"})


def sed_scripts(options: list[tuple[str, str | None]], operands: list[str]) -> tuple[list[str], list[str]]:
    """The scripts a sed command runs (each -e or --expression value, else its first operand) and the
    files it reads, from its options and operands as read_options reads them with SED_VALUES."""
    scripts = [value for name, value in options if name in ("-e", "--expression") and value is not None]
    if scripts:
        return scripts, list(operands)
    return operands[:1], operands[1:]


def short_flag(arg: str, letter: str, value_letters: str = "") -> bool:
    """Whether the short-option cluster ARG holds -LETTER, reading up to the first letter that
    takes a value (one of VALUE_LETTERS): `short_flag("-fu", "f")` is true, and
    `short_flag("-of", "f", "o")` is false because `f` is the value of `-o`."""
    if len(arg) < 2 or arg[0] != "-" or arg[1] == "-":
        return False
    for c in arg[1:]:
        if c == letter:
            return True
        if c in value_letters:
            return False
    return False


def options_before_dashdash(args: list[str]) -> list[str]:
    """The words before the first `--`."""
    try:
        return args[: args.index("--")]
    except ValueError:
        return list(args)
