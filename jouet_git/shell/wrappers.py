"""Looking through programs that run other programs (env, sudo, timeout, xargs, flock, ...) to the
program that actually runs.

`unwrap(words)` gives the argv a rule matches on and the wrappers it passed, outermost first, by
basename. A wrapper that has nothing to run (a bare `env`, `sudo -l`, `command -v git`) is itself
the program. Some wrappers run a shell script rather than an argv (`su -c SCRIPT`, `watch CMD...`,
`flock FILE -c SCRIPT`): unwrapping stops at them and says which script, for the reader to read as
commands of their own, as it does for `sh -c` (`shell_script(argv)`). xargs supplies arguments
read from its input, which are unknown here: unwrapping says so (`stdin_args`).

On the hook path: imports nothing beyond what the reader already has.
"""

from __future__ import annotations

from jouet_git.shell import jouetcmd

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    # (index of the first word after the options, the options seen as (name, value) pairs), or
    # None when the options are malformed (a value is missing).
    Options = tuple[int, list[tuple[str, str | None]]]
    # A wrapper handler: (words, index of the wrapper word, what unwrapping found so far) ->
    # (words, index of what it runs), or None when the wrapper is the program itself (it runs
    # nothing of these words, or it runs a script it has put in found.script).
    Handler = Callable[[list[str], int, "Unwrapped"], "tuple[list[str], int] | None"]
    # (words, index of what the wrapper runs)
    Step = tuple[list[str], int]
    # How xargs makes commands of its input: the -I string, how it splits (blank, line, nul or a
    # delimiter), how many items (or lines, when the flag is set) go to each command (0: all).
    XargsHow = tuple[str | None, str, int, bool]


def program_name(word: str) -> str:
    """The basename of a program word, without a `.exe` suffix: /usr/bin/git and git.exe are git."""
    base = word.rpartition("/")[2]
    if "\\" in base:
        base = base.rpartition("\\")[2]
    if len(base) > 4 and base[-4:].lower() == ".exe":
        base = base[:-4]
    return base


def _options(
    words: list[str], i: int, short_values: str = "", long_values: frozenset[str] = frozenset(),
    optional: str = "",
) -> Options | None:
    """Read getopt-style options from words[i:] up to the first operand (or past `--`).

    short_values: the letters that take a value (`-u root`, `-uroot`); long_values: the long names
    (without dashes) that take one (`--user root`, `--user=root`); optional: the letters whose value,
    if any, is attached (`-i{}`, `-l`). Returns None when the last option needs a value that is not
    there.
    """
    seen: list[tuple[str, str | None]] = []
    n = len(words)
    while i < n:
        word = words[i]
        if word == "--":
            return i + 1, seen
        if len(word) < 2 or word[0] != "-":
            break
        if word[1] == "-":
            name, eq, value = word[2:].partition("=")
            if eq:
                seen.append((name, value))
            elif name in long_values:
                if i + 1 >= n:
                    return None
                seen.append((name, words[i + 1]))
                i += 1
            else:
                seen.append((name, None))
            i += 1
            continue
        k = 1
        while k < len(word):
            letter = word[k]
            if letter in optional:
                seen.append((letter, word[k + 1 :]))
                break
            if letter in short_values:
                if k + 1 < len(word):
                    seen.append((letter, word[k + 1 :]))
                elif i + 1 < n:
                    seen.append((letter, words[i + 1]))
                    i += 1
                else:
                    return None
                break
            seen.append((letter, None))
            k += 1
        i += 1
    return i, seen


def _is_assignment(word: str) -> bool:
    eq = word.find("=")
    return eq > 0


def _assignments(words: list[str], i: int, env: dict[str, str]) -> int:
    """Collect NAME=value words from words[i:] into env; the index of the first other word."""
    while i < len(words) and _is_assignment(words[i]):
        name, _, value = words[i].partition("=")
        env[name] = value
        i += 1
    return i


def split_string(text: str) -> list[str]:
    """Split `env -S` text into words: blanks separate, quotes group, a backslash escapes."""
    out: list[str] = []
    cur: list[str] = []
    have = False
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in " \t\n":
            if have:
                out.append("".join(cur))
                cur = []
                have = False
        elif c == "'":
            j = text.find("'", i + 1)
            j = n if j < 0 else j
            cur.append(text[i + 1 : j])
            have = True
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                cur.append(text[j])
                j += 1
            have = True
            i = j
        elif c == "\\" and i + 1 < n:
            cur.append(text[i + 1])
            have = True
            i += 1
        else:
            cur.append(c)
            have = True
        i += 1
    if have:
        out.append("".join(cur))
    return out


_ENV_LONG = frozenset({"unset", "chdir", "split-string"})
_ASKS = frozenset({"help", "version"})

class Unwrapped:
    """What unwrapping a command's words found.

    argv, via, env and offset as unwrap_full returns them. stdin_args: a wrapper adds arguments it
    reads at run time (xargs), so argv does not show them all. xargs: how the innermost xargs
    splits its input and the string it replaces (for the reader to fill in known input).
    script: the shell script the wrapper at argv[0] runs (su -c, watch, flock -c, ...).
    """

    __slots__ = ("argv", "chdir", "env", "offset", "script", "stdin_args", "via", "xargs")

    def __init__(self) -> None:
        self.argv: list[str] = []
        self.via: list[str] = []
        self.env: dict[str, str] | None = None
        self.offset = 0
        self.stdin_args = False
        self.xargs: XargsHow | None = None
        self.script: str | None = None
        # The directory a wrapper moves to before running the command (env -C, sudo -D...),
        # joined when several do; False when it cannot be told.
        self.chdir: str | bool | None = None

    def moved(self, where: str | None) -> None:
        if where is None or self.chdir is False:
            return
        if not where or "$" in where or "`" in where:
            self.chdir = False
        elif self.chdir is None or where.startswith(("/", "~")):
            self.chdir = where
        else:
            self.chdir = f"{self.chdir}/{where}"

    def assign(self, made: dict[str, str]) -> None:
        if made:
            if self.env is None:
                self.env = {}
            self.env.update(made)


def _env(words: list[str], i: int, u: Unwrapped) -> Step | None:
    env: dict[str, str] = {}
    i += 1
    while True:
        # GNU env reads `-` alone as -i.
        while i < len(words) and words[i] == "-":
            i += 1
        got = _options(words, i, "uCSP", _ENV_LONG)
        if got is None:
            return None
        i, seen = got
        split: str | None = None
        for name, value in seen:
            if name in ("help", "version", "list-signal-handling"):
                return None
            if name in ("S", "split-string"):
                split = value or ""
            elif name in ("C", "chdir"):
                u.moved(value)
        if split is None:
            break
        # -S splits its text into words that stand where it was: options, assignments, command.
        words = [*split_string(split), *words[i:]]
        i = 0
    i = _assignments(words, i, env)
    if i >= len(words):
        return None
    u.assign(env)
    return words, i


_SUDO_VALUES = "ugCDhprtUTR"
_SUDO_LONG = frozenset({
    "user", "group", "close-from", "chdir", "host", "prompt", "role", "type", "other-user",
    "command-timeout", "chroot",
})
# Options after which sudo runs no command of the words: edit, list, validate, version, help.
_SUDO_ASKS = frozenset({"e", "l", "V", "v", "K", "edit", "list", "validate", "version", "help",
                        "remove-timestamp"})


def _sudo(words: list[str], i: int, u: Unwrapped) -> Step | None:
    got = _options(words, i + 1, _SUDO_VALUES, _SUDO_LONG)
    if got is None:
        return None
    i, seen = got
    if any(name in _SUDO_ASKS for name, _ in seen):
        return None
    for name, value in seen:
        if name in ("D", "chdir"):
            u.moved(value)
    env: dict[str, str] = {}
    i = _assignments(words, i, env)
    u.assign(env)
    return words, i


def _doas(words: list[str], i: int, u: Unwrapped) -> Step | None:
    got = _options(words, i + 1, "uaC")
    if got is None:
        return None
    i, seen = got
    if any(name in ("C", "L") for name, _ in seen):
        return None
    return words, i


def _command(words: list[str], i: int, u: Unwrapped) -> Step | None:
    got = _options(words, i + 1)
    if got is None:
        return None
    i, seen = got
    # `command -v git` and `-V` only say what git is; nothing runs.
    if any(name in ("v", "V") for name, _ in seen):
        return None
    return words, i


def _builtin(words: list[str], i: int, u: Unwrapped) -> Step | None:
    i += 1
    if i < len(words) and words[i] == "--":
        i += 1
    return words, i


def _mise(words: list[str], i: int, u: Unwrapped) -> Step | None:
    """`mise x TOOL... -- CMD` and `mise exec ...`; any other mise subcommand is mise itself."""
    got = _options(words, i + 1, "CEj", frozenset({"cd", "env", "jobs", "profile"}))
    if got is None:
        return None
    i = got[0]
    for name, value in got[1]:
        if name in ("C", "cd"):
            u.moved(value)
    if i >= len(words) or words[i] not in ("x", "exec"):
        return None
    try:
        dash = words.index("--", i + 1)
    except ValueError:
        return None  # without `--`, mise exec starts a shell: nothing of these words runs
    return words, dash + 1


def _spec(
    values: str = "",
    long_values: Iterable[str] = (),
    optional: str = "",
    stops: Iterable[str] = (),
    operands: int = 0,
    sub: Iterable[str] = (),
    scripts: Iterable[str] = (),
    dashdash: bool = False,
    chdirs: Iterable[str] = (),
) -> Handler:
    """A handler for a wrapper of the common shape: [SUBCOMMAND] options, OPERANDS fixed operands,
    then the command (only after `--` with dashdash).

    stops: options after which the wrapper runs no command (help, a process id to act on...).
    scripts: options whose value is a shell script the wrapper runs (`--command 'git status'`).
    """
    lvalues = frozenset(long_values)
    stop = _ASKS | frozenset(stops)
    script_opts = frozenset(scripts)
    subs = frozenset(sub)
    moves = frozenset(chdirs)

    def handler(words: list[str], i: int, u: Unwrapped) -> Step | None:
        i += 1
        if subs:
            if i >= len(words) or words[i] not in subs:
                return None
            i += 1
        got = _options(words, i, values, lvalues, optional)
        if got is None:
            return None
        i, seen = got
        for name, value in seen:
            if name in stop:
                return None
            if name in script_opts and value is not None:
                u.script = value
                return None
            if name in moves:
                u.moved(value)
        dashed = i > 0 and words[i - 1] == "--"
        i += operands
        if dashdash and not dashed:
            if "--" not in words[i - operands :]:
                return None
            i = words.index("--", i - operands) + 1
        elif operands and i < len(words) and words[i] == "--":
            i += 1
        return words, i

    return handler


_XARGS_LONG = frozenset({
    "arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var",
})


def _xargs(words: list[str], i: int, u: Unwrapped) -> Step | None:
    """xargs [OPTIONS] [COMMAND [ARGS]]: COMMAND runs with arguments read from its input (or a
    file with -a), appended or put in place of the -I string. Without a command it runs echo."""
    got = _options(words, i + 1, "aEdILnPsJR", _XARGS_LONG, "eil")
    if got is None:
        return None
    i, seen = got
    replace: str | None = None
    split = "blank"
    per = 0
    by_lines = False
    for name, value in seen:
        if name in ("help", "version"):
            return None
        if name in ("I", "J", "i", "replace"):
            replace = value or "{}"
            split = "line"
        elif name in ("0", "null"):
            split = "nul"
        elif name in ("d", "delimiter") and value:
            split = _delimiter(value)
        elif name in ("n", "max-args"):
            per = _count(value)
            by_lines = False
        elif name in ("L", "l", "max-lines"):
            per = _count(value)
            by_lines = True
    u.stdin_args = True
    u.xargs = (replace, split, per, by_lines)
    if i >= len(words):
        # A bare xargs runs echo with its input as arguments.
        return [*words, "echo"], len(words)
    return words, i


def _count(value: str | None) -> int:
    return int(value) if value and value.isdigit() and len(value) < 7 else 1


def _delimiter(value: str) -> str:
    """The one character an xargs -d value names (`\\n`, `\\t`, `\\x2c`, `,`)."""
    if len(value) >= 2 and value[0] == "\\":
        named = {"n": "\n", "t": "\t", "0": "\0", "r": "\r", "\\": "\\", "a": "\a", "b": "\b",
                 "f": "\f", "v": "\v"}
        if value[1] in named and len(value) == 2:
            return named[value[1]]
        if value[1] == "x" and len(value) > 2:
            try:
                return chr(int(value[2:], 16))
            except ValueError:
                return "\n"
        if value[1:].isdigit():
            try:
                return chr(int(value[1:], 8))
            except ValueError:
                return "\n"
    return value[0]


def _time(words: list[str], i: int, u: Unwrapped) -> Step | None:
    return _TIME(words, i, u)


_TIME = _spec("fo", ("format", "output"))
_PLAIN = _spec()

WRAPPERS: dict[str, Handler] = {
    "env": _env,
    "sudo": _sudo,
    "doas": _doas,
    "timeout": _spec("sk", ("signal", "kill-after"), operands=1),
    "nohup": _PLAIN,
    "nice": _spec("n", ("adjustment",)),
    "time": _time,
    "command": _command,
    "builtin": _builtin,
    "exec": _spec("a"),
    "rtk": _PLAIN,
    "mise": _mise,
    "xargs": _xargs,
}
# Less common wrappers: their handlers are in launchers.py, imported when one appears (a test
# checks the two lists agree).
MORE_NAMES = frozenset({
    "please", "run0", "stdbuf", "setsid", "flock", "ionice", "chrt", "taskset", "unbuffer",
    "script", "su", "runuser", "sg", "watch", "nsenter", "unshare", "chroot", "systemd-run",
    "strace", "ltrace", "valgrind", "pkexec", "gosu", "su-exec", "setuidgid", "envdir",
    "envuidgid", "setlock", "softlimit", "chpst", "faketime", "dumb-init", "tini", "catchsegv",
    "eatmydata", "nocache", "fakeroot", "chronic", "ifne", "proxychains", "proxychains4",
    "torsocks", "xvfb-run", "dbus-run-session", "caffeinate", "ssh-agent", "sem", "entr",
    "busybox", "toybox", "nix", "nix-shell", "hyperfine", "tmux", "uv", "poetry", "pipenv",
    "pdm", "rye", "bundle", "pnpm", "yarn", "conda", "mamba", "micromamba", "direnv", "asdf",
    "rbenv", "pyenv", "nodenv", "aws-vault", "op", "doppler"
})




def _more(name: str) -> Handler:
    """A handler that loads launchers.py when it is first asked."""

    def handler(words: list[str], i: int, found: Unwrapped) -> tuple[list[str], int] | None:
        from jouet_git.shell.launchers import MORE

        return MORE[name](words, i, found)

    return handler


# jouet under its other names (python -m jouet_git, uvx jouet-git, ...): see shell/jouetcmd.py. A
# runner that also wraps other programs (uv run X) falls back on its handler in launchers.py.
jouetcmd.register(WRAPPERS, {name: _more(name) for name in MORE_NAMES})

ALL_WRAPPERS = frozenset(WRAPPERS) | MORE_NAMES


def unwrap_more(words: list[str]) -> Unwrapped:
    """Everything unwrapping words finds (see Unwrapped)."""
    u = Unwrapped()
    via = u.via
    i = 0
    split = False
    while i < len(words):
        name = program_name(words[i])
        handler = WRAPPERS.get(name)
        if handler is None:
            if name not in MORE_NAMES:
                break
            from jouet_git.shell.launchers import MORE

            handler = MORE[name]
        before = u.chdir
        got = handler(words, i, u)
        if got is None:
            u.chdir = before  # the wrapper runs nothing of these words: it moves nothing of theirs
            break
        new_words, j = got
        if j >= len(new_words):
            break
        if new_words is not words:
            words = new_words
            split = True
        i = j
        via.append(name)
    u.argv = words[i:] if via else words
    if u.script is not None and i < len(words):
        u.argv = words[i:]
    u.offset = -1 if split else i
    return u


def unwrap_full(words: list[str]) -> tuple[list[str], list[str], dict[str, str] | None, int]:
    """(argv, via, assignments the wrappers made or None, index of argv[0] in words or -1).

    The index is -1 when argv is not a tail of words (env -S splits a string into new words).
    """
    u = unwrap_more(words)
    return u.argv, u.via, u.env, u.offset


def unwrap(words: list[str]) -> tuple[list[str], list[str]]:
    """The words without their wrappers, as Command.argv has them, and the wrappers passed.

    `unwrap(["sudo", "-u", "ci", "timeout", "60", "git", "push"])` is
    `(["git", "push"], ["sudo", "timeout"])`.
    """
    argv, via, _, _ = unwrap_full(list(words))
    return argv, via


SHELLS = frozenset({
    "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "posh", "oksh", "loksh", "rbash",
    "fish", "tcsh", "csh", "bosh", "ksh93",
})
_SHELL_LONG_VALUES = frozenset({"rcfile", "init-file", "init-command"})


def shell_mode(argv: list[str]) -> tuple[str, int]:
    """Where a shell's argv says its script comes from: ("c", index of the script), ("file", index
    of the script file), ("stdin", -1) when it reads its script from its input (-s, or no operand),
    or ("none", -1) when it runs none (--help, -c without a script).

    Reads the shell's options the way bash does: `-c` anywhere in a cluster (`-lc`, `-euc`), `-o`
    and `-O` taking a value (`-euo pipefail -c ...`), and the script as the first operand.
    """
    c_seen = False
    s_seen = False
    i = 1
    n = len(argv)
    while i < n:
        word = argv[i]
        if word in ("--", "-"):
            i += 1
            break
        if len(word) < 2 or word[0] not in "-+":
            break
        if word.startswith("--"):
            name, eq, _ = word[2:].partition("=")
            if name in ("help", "version"):
                return "none", -1
            if name == "command":  # fish, tcsh
                if eq:
                    return "c", i  # the script is in this word, after the =
                return ("c", i + 1) if i + 1 < n else ("none", -1)
            if name in _SHELL_LONG_VALUES and not eq:
                i += 1
            i += 1
            continue
        takes = 0
        for letter in word[1:]:
            if letter == "c":
                c_seen = True
            elif letter == "s":
                s_seen = True
            elif letter in "oO":
                takes += 1
        i += 1 + takes
    if c_seen:
        return ("c", i) if i < n else ("none", -1)
    if s_seen or i >= n:
        return "stdin", -1
    return "file", i


def shell_script(argv: list[str]) -> tuple[str, int] | None:
    """The script a `sh -c SCRIPT` style argv runs and its index in argv, or None."""
    mode, i = shell_mode(argv)
    if mode != "c":
        return None
    if argv[i].startswith("--command=") and i > 0 and argv[i - 1] != "--command":
        return argv[i].partition("=")[2], i
    return argv[i], i


# Programs that run a script given as arguments in another shell language: PowerShell (pwsh,
# powershell; and, inside PowerShell, Invoke-Expression), and cmd. Their script is read as a POSIX
# shell reads it, which is right for the commands the rules look at (a git push reads the same).
OTHER_SHELLS = frozenset({"pwsh", "powershell", "cmd", "Invoke-Expression", "iex", "invoke-expression"})


def other_shell_script(program: str, argv: list[str]) -> str | None:
    """The script PROGRAM (one of OTHER_SHELLS) runs, from its ARGV, or None."""
    if program in ("pwsh", "powershell"):
        return _powershell_script(argv)
    if program == "cmd":
        for i, word in enumerate(argv[1:], 1):
            if word.lower() in ("/c", "/k", "/r"):
                return " ".join(argv[i + 1:]) if i + 1 < len(argv) else None
        return None
    if program in OTHER_SHELLS:  # Invoke-Expression [-Command] SCRIPT
        i = 2 if len(argv) > 2 and argv[1].lower() == "-command" else 1
        return " ".join(argv[i:]) if i < len(argv) else None
    return None


def _powershell_script(argv: list[str]) -> str | None:
    """`pwsh -Command SCRIPT...` (any unambiguous prefix of -Command, -c), the rest of the words
    being the script; `-EncodedCommand B64` (-e, -ec, -enc...), base64 of UTF-16LE text."""
    for i, word in enumerate(argv[1:], 1):
        if len(word) < 2 or word[0] not in "-/":
            continue  # another parameter's value (-ExecutionPolicy Bypass)
        name = word[1:].lower()
        if name in ("f", "fi", "fil") or (len(name) >= 3 and "file".startswith(name)):
            return None  # a script file: nothing to read here
        if name in ("c", "co", "com") or (len(name) >= 3 and "command".startswith(name)):
            return " ".join(argv[i + 1:]) if i + 1 < len(argv) else None
        if name in ("e", "ec", "en", "enc") or (len(name) >= 2 and "encodedcommand".startswith(name)):
            if i + 1 >= len(argv):
                return None
            import base64
            import binascii

            try:
                return base64.b64decode(argv[i + 1], validate=False).decode("utf-16-le")
            except (binascii.Error, ValueError):
                return None
    return None


# -- names the reader needs before reading anything: which programs run more than themselves
# (follow.py reads those), move the shell, or print what jouet can work out (pure.py).

# Commands that move the shell, followed to know where files named later are.
CD = frozenset({"cd", "pushd", "popd"})
CD_VIA = frozenset({"builtin", "command"})
# Interpreters whose inline programs are read (see inline.py); python3.12 and kin too.
INTERPRETERS = frozenset({
    "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "perl", "ruby",
    "php", "awk", "gawk", "mawk", "nawk", "lua", "luajit",
})


def is_interpreter(program: str) -> bool:
    return program in INTERPRETERS or program.startswith(("python", "pypy", "perl5", "ruby", "php", "lua"))


# Programs whose output jouet can work out from their words and input (see pure.py).
PURE = frozenset({
    "echo", "printf", "cat", "base64", "rev", "tac", "sort", "uniq", "head", "tail", "tr", "sed",
    "cut", "xxd", "tee", "basename", "dirname", "true", ":", "openssl",
})

# Programs follow.FOLLOW handles (a test checks the two agree).
FOLLOW_NAMES = frozenset({"source", ".", "eval", "at", "batch", "find", "gfind", "fd", "fdfind", "parallel"})
