"""Looking through wrapper commands (env, sudo, timeout, ...) to the program that actually runs.

`unwrap(words)` gives the argv a rule matches on and the wrappers it passed, outermost first, by
basename. A wrapper that has nothing to run (a bare `env`, `sudo -l`, `command -v git`) is itself
the program. `shell_script(argv)` finds the script of a `sh -c` / `bash -lc` style call, which the
reader then reads as commands of their own.

On the hook path: imports nothing beyond what the reader already has.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    # (index of the first word after the options, the options seen as (name, value) pairs), or
    # None when the options are malformed (a value is missing).
    Options = tuple[int, list[tuple[str, str | None]]]
    # A wrapper handler: (words, index of the wrapper word) -> (words, index of what it runs,
    # assignments it makes), or None when the wrapper runs nothing and is the program itself.
    Handler = Callable[[list[str], int], "tuple[list[str], int, dict[str, str]] | None"]


def program_name(word: str) -> str:
    """The basename of a program word, without a `.exe` suffix: /usr/bin/git and git.exe are git."""
    base = word.rpartition("/")[2]
    if "\\" in base:
        base = base.rpartition("\\")[2]
    if len(base) > 4 and base[-4:].lower() == ".exe":
        base = base[:-4]
    return base


def _options(
    words: list[str], i: int, short_values: str = "", long_values: frozenset[str] = frozenset()
) -> Options | None:
    """Read getopt-style options from words[i:] up to the first operand (or past `--`).

    short_values: the letters that take a value (`-u root`, `-uroot`); long_values: the long names
    (without dashes) that take one (`--user root`, `--user=root`). Returns None when the last option
    needs a value that is not there.
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


def _env(words: list[str], i: int) -> tuple[list[str], int, dict[str, str]] | None:
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
        if split is None:
            break
        # -S splits its text into words that stand where it was: options, assignments, command.
        words = [*split_string(split), *words[i:]]
        i = 0
    i = _assignments(words, i, env)
    if i >= len(words):
        return None
    return words, i, env


_SUDO_VALUES = "ugCDhprtUTR"
_SUDO_LONG = frozenset({
    "user", "group", "close-from", "chdir", "host", "prompt", "role", "type", "other-user",
    "command-timeout", "chroot",
})
# Options after which sudo runs no command of the words: edit, list, validate, version, help.
_SUDO_ASKS = frozenset({"e", "l", "V", "v", "K", "edit", "list", "validate", "version", "help",
                        "remove-timestamp"})


def _sudo(words: list[str], i: int) -> tuple[list[str], int, dict[str, str]] | None:
    got = _options(words, i + 1, _SUDO_VALUES, _SUDO_LONG)
    if got is None:
        return None
    i, seen = got
    if any(name in _SUDO_ASKS for name, _ in seen):
        return None
    env: dict[str, str] = {}
    i = _assignments(words, i, env)
    return words, i, env


def _doas(words: list[str], i: int) -> tuple[list[str], int, dict[str, str]] | None:
    got = _options(words, i + 1, "uaC")
    if got is None:
        return None
    i, seen = got
    if any(name in ("C", "L") for name, _ in seen):
        return None
    return words, i, {}


_TIMEOUT_LONG = frozenset({"signal", "kill-after"})


def _timeout(words: list[str], i: int) -> tuple[list[str], int, dict[str, str]] | None:
    got = _options(words, i + 1, "sk", _TIMEOUT_LONG)
    if got is None:
        return None
    i, seen = got
    if any(name in ("help", "version") for name, _ in seen):
        return None
    return words, i + 1, {}  # past the duration


def _nice(words: list[str], i: int) -> tuple[list[str], int, dict[str, str]] | None:
    got = _options(words, i + 1, "n", frozenset({"adjustment"}))
    if got is None:
        return None
    i, seen = got
    if any(name in ("help", "version") for name, _ in seen):
        return None
    return words, i, {}


def _time(words: list[str], i: int) -> tuple[list[str], int, dict[str, str]] | None:
    got = _options(words, i + 1, "fo", frozenset({"format", "output"}))
    if got is None:
        return None
    i, seen = got
    if any(name in ("help", "version") for name, _ in seen):
        return None
    return words, i, {}


def _command(words: list[str], i: int) -> tuple[list[str], int, dict[str, str]] | None:
    got = _options(words, i + 1)
    if got is None:
        return None
    i, seen = got
    # `command -v git` and `-V` only say what git is; nothing runs.
    if any(name in ("v", "V") for name, _ in seen):
        return None
    return words, i, {}


def _builtin(words: list[str], i: int) -> tuple[list[str], int, dict[str, str]] | None:
    i += 1
    if i < len(words) and words[i] == "--":
        i += 1
    return words, i, {}


def _exec(words: list[str], i: int) -> tuple[list[str], int, dict[str, str]] | None:
    got = _options(words, i + 1, "a")
    if got is None:
        return None
    return words, got[0], {}


def _plain(words: list[str], i: int) -> tuple[list[str], int, dict[str, str]] | None:
    """A wrapper whose options take no values (nohup, rtk): skip them."""
    got = _options(words, i + 1)
    if got is None:
        return None
    i, seen = got
    if any(name in ("help", "version") for name, _ in seen):
        return None
    return words, i, {}


_MISE_GLOBAL_VALUES = "CEj"
_MISE_GLOBAL_LONG = frozenset({"cd", "env", "jobs", "profile"})


def _mise(words: list[str], i: int) -> tuple[list[str], int, dict[str, str]] | None:
    """`mise x TOOL... -- CMD` and `mise exec ...`; any other mise subcommand is mise itself."""
    got = _options(words, i + 1, _MISE_GLOBAL_VALUES, _MISE_GLOBAL_LONG)
    if got is None:
        return None
    i = got[0]
    if i >= len(words) or words[i] not in ("x", "exec"):
        return None
    try:
        dash = words.index("--", i + 1)
    except ValueError:
        return None  # without `--`, mise exec starts a shell: nothing of these words runs
    return words, dash + 1, {}


WRAPPERS: dict[str, Handler] = {
    "env": _env,
    "sudo": _sudo,
    "doas": _doas,
    "timeout": _timeout,
    "nohup": _plain,
    "nice": _nice,
    "time": _time,
    "command": _command,
    "builtin": _builtin,
    "exec": _exec,
    "rtk": _plain,
    "mise": _mise,
}


def unwrap_full(words: list[str]) -> tuple[list[str], list[str], dict[str, str] | None, int]:
    """(argv, via, assignments the wrappers made or None, index of argv[0] in words or -1).

    The index is -1 when argv is not a tail of words (env -S splits a string into new words).
    """
    via: list[str] = []
    env: dict[str, str] | None = None
    i = 0
    split = False
    while i < len(words):
        name = program_name(words[i])
        handler = WRAPPERS.get(name)
        if handler is None:
            break
        got = handler(words, i)
        if got is None or got[1] >= len(words):
            break
        new_words, i, made = got
        if new_words is not words:
            words = new_words
            split = True
        via.append(name)
        if made:
            if env is None:
                env = {}
            env.update(made)
    if not via:
        return words, via, None, 0
    return words[i:], via, env, -1 if split else i


def unwrap(words: list[str]) -> tuple[list[str], list[str]]:
    """The words without their wrappers, as Command.argv has them, and the wrappers passed.

    `unwrap(["sudo", "-u", "ci", "timeout", "60", "git", "push"])` is
    `(["git", "push"], ["sudo", "timeout"])`.
    """
    argv, via, _, _ = unwrap_full(list(words))
    return argv, via


SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh"})
# Programs that run a script given as arguments in another shell language: PowerShell (pwsh,
# powershell; and, inside PowerShell, Invoke-Expression), and cmd. Their script is read as a POSIX
# shell reads it, which is right for the commands the rules look at (a git push reads the same).
OTHER_SHELLS = frozenset({"pwsh", "powershell", "cmd", "Invoke-Expression", "iex", "invoke-expression"})
_SHELL_LONG_VALUES = frozenset({"rcfile", "init-file"})


def script_of(program: str, argv: list[str]) -> tuple[str, int] | None:
    """The script PROGRAM's ARGV runs (a shell of SHELLS or OTHER_SHELLS) and the index of its
    first word in ARGV, or None."""
    if program in SHELLS:
        return shell_script(argv)
    if program in ("pwsh", "powershell"):
        return _powershell_script(argv)
    if program == "cmd":
        for i, word in enumerate(argv[1:], 1):
            if word.lower() in ("/c", "/k", "/r"):
                return (" ".join(argv[i + 1:]), i + 1) if i + 1 < len(argv) else None
        return None
    if program in OTHER_SHELLS:  # Invoke-Expression [-Command] SCRIPT
        i = 2 if len(argv) > 2 and argv[1].lower() == "-command" else 1
        return (" ".join(argv[i:]), i) if i < len(argv) else None
    return None


def _powershell_script(argv: list[str]) -> tuple[str, int] | None:
    """`pwsh -Command SCRIPT...` (any unambiguous prefix of -Command, -c), the rest of the words
    being the script; `-EncodedCommand B64` (-e, -ec, -enc...), base64 of UTF-16LE text."""
    for i, word in enumerate(argv[1:], 1):
        if len(word) < 2 or word[0] not in "-/":
            continue  # another parameter's value (-ExecutionPolicy Bypass)
        name = word[1:].lower()
        if name in ("f", "fi", "fil") or (len(name) >= 3 and "file".startswith(name)):
            return None  # a script file: nothing to read here
        if name in ("c", "co", "com") or (len(name) >= 3 and "command".startswith(name)):
            return (" ".join(argv[i + 1:]), i + 1) if i + 1 < len(argv) else None
        if name in ("e", "ec", "en", "enc") or (len(name) >= 2 and "encodedcommand".startswith(name)):
            if i + 1 >= len(argv):
                return None
            import base64
            import binascii

            try:
                text = base64.b64decode(argv[i + 1], validate=False).decode("utf-16-le")
            except (binascii.Error, ValueError):
                return None
            return text, i + 1
    return None


def shell_script(argv: list[str]) -> tuple[str, int] | None:
    """The script a `sh -c SCRIPT` style argv runs and its index in argv, or None.

    Reads the shell's options the way bash does: `-c` anywhere in a cluster (`-lc`, `-euc`), `-o`
    and `-O` taking a value (`-euo pipefail -c ...`), and the script as the first operand.
    """
    c_seen = False
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
            if word[2:] in _SHELL_LONG_VALUES:
                i += 1
            i += 1
            continue
        takes = 0
        for letter in word[1:]:
            if letter == "c":
                c_seen = True
            elif letter in "oO":
                takes += 1
        i += 1 + takes
    if c_seen and i < n:
        return argv[i], i
    return None
