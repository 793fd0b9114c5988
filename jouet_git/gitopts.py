"""Reading a git command's options the way git's own option parser does.

git takes any unambiguous prefix of a long option (`git reset --ha` is `--hard`, `git commit
--no-verif` is `--no-verify`), refuses an unknown or ambiguous one, and only prints its usage for
`-h`, `--help` and `--help-all` among the options. What each builtin command knows is shipped in
jouet_git/data/git-options.json, made from the installed git by scripts/git-options (a test compares
the two). The data is read on first use, only for a git command with a long option.

    reading = read(argv)          # argv of a git command, wrappers already removed
    reading.sub                   # "reset", "stash drop"; None for no subcommand
    reading.words                 # argv with every abbreviated long option written out in full
    reading.refused               # why git would refuse the command or only print its usage; or None

What git refuses because of an unknown option is only believed when the git on PATH is not newer
than the data (a newer git may know the option), and an ambiguous abbreviation only when it is not
older (an older git may lack one of the candidates); `git version` runs at most once per process,
and only for such a command. Otherwise an ambiguous abbreviation is kept as written and reads as
every option it may stand for (Reading.alternatives).

On the hook path: imports only os and json, and only when a git command has a long option.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "git-options.json")

# Global options that never let the subcommand run: git prints help or its version instead.
_GLOBAL_HELP = frozenset({"-h", "--help", "-v", "--version", "--html-path", "--man-path", "--info-path"})
# A command whose first argument, when it is an option, belongs to a default subcommand.
_DEFAULT_SUB = {"stash": "push"}
# Options every command's parser answers with its usage, or a completion list, and nothing else.
_USAGE_LONG = frozenset({"help", "help-all", "git-completion-helper", "git-completion-helper-all"})

# Long options so common, and an exact name in every command agents use them with, that they need
# no reading against the data (a command git refuses for one of them is still judged: fail safe).
_COMMON = frozenset({
    "--oneline", "--stat", "--graph", "--decorate", "--all", "--cached", "--staged", "--name-only",
    "--name-status", "--porcelain", "--short", "--branch", "--verbose", "--quiet", "--global", "--get",
    "--list", "--abbrev-ref", "--show-toplevel", "--amend", "--no-edit", "--message", "--format",
    "--pretty", "--patch", "--no-pager", "--max-count", "--since", "--author", "--set-upstream",
    "--force-with-lease", "--force-if-includes", "--no-ff", "--ff-only", "--rebase", "--continue",
    "--abort", "--skip", "--tags", "--prune", "--remote", "--remotes", "--track", "--show-current",
})
# Commands whose bad option combinations git refuses (see _combination).
_COMBINATIONS = frozenset({"reset", "push", "branch", "checkout"})

_data: dict[str, Any] | None = None
_specs: dict[str, Spec | None] = {}
_installed: tuple[int, ...] | None = None


class Spec:
    """What git's parser knows about one (sub)command's options."""

    __slots__ = ("aliases", "long", "negatable", "short", "stops", "strict", "subcommands")

    def __init__(self, entry: dict[str, Any]) -> None:
        self.long: dict[str, bool] = {}  # each option git's parser holds -> whether it takes a value
        self.negatable: set[str] = set()  # those that also take a --no- form
        self.aliases: dict[str, str] = {}  # an alias -> the option it stands for
        for word in str(entry.get("long", "")).split():
            word, _, target = word.partition(">")
            if target:
                self.aliases[word.rstrip("!=")] = target
            fixed = word.endswith("!")
            word = word.rstrip("!")
            name = word.rstrip("=")
            self.long[name] = word.endswith("=")
            if not fixed:
                self.negatable.add(name)
        self.short: dict[str, str] = {}  # letter -> "" (no value), "=" (takes one), "?" (attached only)
        for word in str(entry.get("short", "")).split():
            self.short[word[0]] = word[1:]
        self.strict = bool(entry.get("strict", True))
        self.stops = bool(entry.get("stops", False))
        self.subcommands = frozenset(str(entry.get("subcommands", "")).split())

    def resolve(self, arg: str) -> list[str]:
        """What long option ARG (without dashes or value) is: see _resolve; an alias is read as
        the option it stands for (and is not ambiguous with it)."""
        out: list[str] = []
        for name in self._resolve(arg):
            negated = name not in self.long
            base = _negated(name) if negated else name
            base = self.aliases.get(base, base)
            full = _negated(base) if negated else base
            if full not in out:
                out.append(full)
        return out

    def _resolve(self, arg: str) -> list[str]:
        """What long option ARG (without dashes or value) is, as git's parser reads it: [its name]
        when it names one or abbreviates one (a negation written `no-NAME`, or for an option named
        `no-X`, `X`), several names when it is ambiguous, none when git does not know it. A parser
        that passes unknown options on (not strict) takes exact names only."""
        found: list[str] = []
        abbreviate = self.strict
        negated_arg = arg.startswith("no-")
        for name in self.long:
            if arg == name:
                return [name]
            if abbreviate and name.startswith(arg):
                found.append(name)
                continue
            if name not in self.negatable:
                continue
            if "no-".startswith(arg):
                if abbreviate:
                    found.append(_negated(name))
                continue
            if not negated_arg:
                if name.startswith("no-"):
                    positive = name[3:]
                    if arg == positive:
                        return [positive]
                    if abbreviate and positive.startswith(arg):
                        found.append(positive)
                continue
            rest = arg[3:]
            if rest == name:
                return [_negated(name)]
            if abbreviate and name.startswith(rest):
                found.append(_negated(name))
        return found

    def takes_value(self, name: str) -> bool:
        """Whether option NAME (as resolve gives it) takes a value: a negation never does."""
        return self.long.get(name, False)


def _negated(name: str) -> str:
    return name[3:] if name.startswith("no-") else f"no-{name}"


def _load() -> dict[str, Any]:
    global _data
    if _data is None:
        import json

        try:
            with open(DATA, encoding="utf-8") as f:
                _data = json.load(f)
        except (OSError, ValueError):
            _data = {}
        if not isinstance(_data, dict) or not isinstance(_data.get("commands"), dict):
            _data = {"commands": {}}
    return _data


def spec(sub: str) -> Spec | None:
    """The options of git subcommand SUB ("reset", "stash drop"); None when the data has none."""
    if sub not in _specs:
        entry = _load()["commands"].get(sub)
        _specs[sub] = Spec(entry) if isinstance(entry, dict) else None
    return _specs[sub]


def data_version() -> tuple[int, ...]:
    return _version_tuple(str(_load().get("git", "")))


def _version_tuple(text: str) -> tuple[int, ...]:
    parts: list[int] = []
    for piece in text.split("."):
        digits = ""
        for c in piece:
            if not c.isdigit():
                break
            digits += c
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts[:3])


def installed_version() -> tuple[int, ...]:
    """The version of the git on PATH (empty when it does not answer), asked once per process."""
    global _installed
    if _installed is None:
        from jouet_git import gitrun

        try:
            out = gitrun.git(["version"], None, timeout=5).text()
        except (gitrun.Timeout, gitrun.GitMissing, OSError):
            out = ""
        words = out.split()
        _installed = _version_tuple(words[2]) if len(words) >= 3 else ()
    return _installed


def set_installed_version(version: tuple[int, ...] | None) -> None:
    """For tests: pretend the git on PATH is VERSION (None: ask it again)."""
    global _installed
    _installed = version


class Reading:
    """A git command as git's parser reads it (see the module's docstring)."""

    __slots__ = ("alternatives", "args", "at", "flags", "refused", "sub", "words")

    def __init__(self, words: list[str], sub: str | None, at: int) -> None:
        self.words = words
        self.sub = sub
        self.at = at  # index in words of the first argument after the subcommand(s)
        self.refused: str | None = None
        # An ambiguous abbreviation, as written -> the long options it may stand for.
        self.alternatives: dict[str, list[str]] = {}
        # When the data was read: the options in force, in full (`--hard`, `-f`; a `--no-X` takes
        # `--X` back), and the arguments that are not options or their values (after `--` too).
        self.flags: list[str] = []
        self.args: list[str] = []


def subcommand_at(argv: list[str]) -> int:
    """The index in ARGV (a git command) of its subcommand, past git's global options."""
    from jouet_git.cmdline import skip_global_options

    return skip_global_options("git", argv, 1)


def _needs_data(sub: str, argv: list[str], start: int) -> bool:
    """Whether reading ARGV needs the data: a long option that is not one of the common exact names
    (which need no writing out), a short cluster that may ask for help, or options to a command
    whose bad combinations git refuses."""
    combination = sub in _COMBINATIONS
    for word in argv[start:]:
        if word == "--":
            return False
        if word[:1] != "-" or len(word) < 2:
            continue
        if word[1] == "-":
            if word.split("=", 1)[0] not in _COMMON:
                return True
        elif "h" in word:
            return True
        if combination:
            return True
    return False


def read(argv: list[str]) -> Reading:
    """ARGV (`git ...`) as git reads it: abbreviations written out, and whether git refuses it."""
    i = subcommand_at(argv)
    for word in argv[1:i]:
        if word in _GLOBAL_HELP:
            reading = Reading(list(argv), None, i)
            reading.refused = f"`git {word}` prints git's help or version and runs nothing"
            return reading
    if i >= len(argv):
        return Reading(list(argv), None, i)
    name = argv[i]
    if name in ("help", "version"):
        reading = Reading(list(argv), name, i + 1)
        reading.refused = f"`git {name}` only prints"
        return reading
    if not _needs_data(name, argv, i + 1):
        return Reading(list(argv), name, i + 1)
    start = i + 1
    sub = name
    top = spec(name)
    if top is not None and top.subcommands:
        if start < len(argv) and argv[start] in top.subcommands:
            sub = f"{name} {argv[start]}"
            start += 1
        elif name in _DEFAULT_SUB and (start >= len(argv) or argv[start].startswith("-")):
            sub = f"{name} {_DEFAULT_SUB[name]}"
    reading = Reading(list(argv), sub, start)
    found = spec(sub)
    if found is None or (found.subcommands and not found.long):
        return reading
    _read_options(reading, found)
    return reading


def _read_options(reading: Reading, found: Spec) -> None:
    words = reading.words
    flags = reading.flags
    j = reading.at
    n = len(words)
    unknown: str | None = None
    ambiguous: str | None = None
    usage: str | None = None
    while j < n:
        word = words[j]
        j += 1
        if word == "--":
            reading.args.extend(words[j:])
            break
        if len(word) < 2 or word[0] != "-":
            reading.args.append(word)
            if found.stops:
                reading.args.extend(words[j:])
                break
            continue
        if word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            if name in _USAGE_LONG:
                usage = usage or word
                continue
            names = found.resolve(name)
            if not names:
                if found.strict:
                    unknown = unknown or word
                flags.append(f"--{name}")
                continue
            if len(names) > 1:
                if found.strict:
                    ambiguous = ambiguous or word
                reading.alternatives[word] = ["--" + full for full in names]
                flags.extend(reading.alternatives[word])
                continue
            full = names[0]
            if full != name:
                words[j - 1] = f"--{full}{eq}{value}"
            undone = f"--{_negated(full)}"
            if undone in flags:
                flags[:] = [f for f in flags if f != undone]
            flags.append(f"--{full}")
            if found.takes_value(full) and not eq:
                j += 1  # its value is the next word
            continue
        # A cluster of short options: stop at the first one that takes a value.
        for k in range(1, len(word)):
            letter = word[k]
            kind = found.short.get(letter)
            if kind is None:
                if letter == "h":
                    usage = usage or "-h"
                elif found.strict and letter.isalpha():
                    unknown = unknown or f"-{letter}"
                break
            flags.append(f"-{letter}")
            if kind:
                if kind == "=" and k == len(word) - 1:
                    j += 1
                break
    if usage is not None:
        reading.refused = f"`{usage}` only prints the usage of git {reading.sub}"
    elif unknown is not None and installed_version() and installed_version() <= data_version():
        reading.refused = f"git {reading.sub} refuses the unknown option {unknown}"
    elif ambiguous is not None and installed_version() >= data_version():
        reading.refused = (f"git {reading.sub} refuses the ambiguous option {ambiguous} "
                           f"({', '.join(reading.alternatives[ambiguous])})")
    else:
        reading.refused = _combination(reading)


def _any(flags: list[str], *names: str) -> bool:
    return any(name in flags for name in names)


def _combination(reading: Reading) -> str | None:
    """Why git refuses this combination of options outright, for the commands jouet's rules guard
    (each checked against git by the tests); None when it does not."""
    sub = reading.sub
    flags = reading.flags
    words = reading.words
    if sub == "reset":
        modes = [m for m in ("--hard", "--soft", "--merge", "--keep") if m in flags]
        if modes and _any(flags, "--patch", "-p"):
            return f"git reset refuses {modes[0]} with --patch"
        if modes and "--" in words[reading.at:] and words[words.index("--", reading.at) + 1:]:
            return f"git reset refuses {modes[0]} with paths"
    elif sub == "push":
        delete = _any(flags, "--delete", "-d")
        whole = [m for m in ("--all", "--mirror", "--tags") if m in flags]
        if delete and whole:
            return f"git push refuses --delete with {whole[0]}"
        if len(whole) > 1:
            return f"git push refuses {whole[0]} with {whole[1]}"
        if whole and whole[0] != "--tags" and len(reading.args) > 1:
            return f"git push refuses {whole[0]} with refspecs"
        if delete and len(reading.args) < 2:
            return "git push refuses --delete without a ref to delete"
    elif sub == "branch":
        branch_modes = {mode for mode, names in (("delete", ("-d", "-D", "--delete")), ("move", ("-m", "-M", "--move")),
                                          ("copy", ("-c", "-C", "--copy"))) if _any(flags, *names)}
        if len(branch_modes) > 1:
            return f"git branch refuses --{' with --'.join(sorted(branch_modes))}"
    elif sub == "checkout" and _any(flags, "-f", "--force") and _any(flags, "-m", "--merge"):
        return "git checkout refuses --force with --merge"
    return None
