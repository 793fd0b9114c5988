"""Which paths a call's commands write, move away, delete or change the mode of.

    for w in writes(call.commands):
        w.path      # as written, joined to where the `cd`s before it lead (relative, absolute, ~/...)
        w.how       # "redirect", "tee", "sed -i", "rm", "mv", "cp", "chmod", "python -c", "git config", ...
        w.removes   # deleted or moved away (with everything below it, for a directory)
        w.index     # the command's index in call.commands
        w.lost      # a relative path after a `cd` jouet cannot follow: where it lands is unknown
        w.key       # for `git config`: the key (lower case) or "[section]" it sets or removes

Nothing here touches the filesystem: a destination that may be a directory (`cp a b`) is given as
written, and a caller that cares asks the filesystem. Inline programs (`python -c`, `perl -e`,
`node -e`, a here-document fed to an interpreter) count as writing every literal path they name
when the code holds a call that writes, removes, moves or changes the mode of files; code that only
reads is left alone.

On the hook path only when a rule asks (jouet.writes, or `requires = { guarded = true }` for a call
shell/maywrite.py says may write).
"""

from __future__ import annotations

import re

from jouet_git import cmdline
from jouet_git.shell.maywrite import (
    ALL,
    AWKS,
    DESTINATION,
    INTERPRETERS,
    MODE,
    NOT_FILES,
    OPTION_WRITERS,
    REMOVE_ALL,
    TREE_WRITES,
    inline_code,
    may_write_inline,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jouet_git.call import Command


class Write:
    __slots__ = ("how", "index", "key", "lost", "path", "removes")

    def __init__(self, path: str, how: str, index: int, removes: bool = False, lost: bool = False,
                 key: str | None = None) -> None:
        self.path = path
        self.how = how
        self.index = index
        self.removes = removes
        self.lost = lost
        self.key = key

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"path": self.path, "how": self.how, "index": self.index + 1,
                                  "removes": self.removes, "lost": self.lost}
        if self.key is not None:
            out["key"] = self.key
        return out

    def __repr__(self) -> str:
        return f"Write({self.path!r}, {self.how!r}, removes={self.removes})"


# The program names, shared with the cheap test done before this module is imported.
_ALL = ALL
_REMOVE_ALL = REMOVE_ALL
_MODE = MODE
_DESTINATION = DESTINATION
_INTERPRETERS = INTERPRETERS

# Options that take the next word as their value, per program.
_VALUES: dict[str, frozenset[str]] = {
    "truncate": frozenset({"-s", "-r", "--size", "--reference"}),
    "install": frozenset({"-m", "-o", "-g", "-t", "-S", "--mode", "--owner", "--group", "--target-directory",
                          "--suffix"}),
    "cp": frozenset({"-t", "-S", "--target-directory", "--suffix"}),
    "mv": frozenset({"-t", "-S", "--target-directory", "--suffix"}),
    "ln": frozenset({"-t", "-S", "--target-directory", "--suffix"}),
    "rsync": frozenset({"-e", "--rsh", "-f", "--filter", "--exclude", "--include", "--exclude-from",
                        "--include-from", "--files-from", "-T", "--temp-dir", "--backup-dir", "--chmod",
                        "--chown", "--log-file", "--password-file", "-B", "--block-size", "--compare-dest",
                        "--copy-dest", "--link-dest", "--partial-dir", "--suffix", "--timeout"}),
    "scp": frozenset({"-c", "-F", "-i", "-J", "-l", "-o", "-P", "-S"}),
    "sed": cmdline.SED_VALUES,
    "perl": frozenset({"-e", "-E", "-I", "-M", "-m", "-x"}),
    "ruby": frozenset({"-e", "-E", "-I", "-r", "-C", "-F"}),
    "vim": frozenset({"-c", "--cmd", "-S", "-u", "-U", "-i", "-T", "-w", "-W", "-s", "-t", "-q"}),
    "shred": frozenset({"-n", "-s", "--iterations", "--size", "--random-source"}),
    "tee": frozenset({"--output-error"}),
    "chmod": frozenset({"--reference"}),
    "chown": frozenset({"--reference", "--from"}),
    "chgrp": frozenset({"--reference"}),
    "touch": frozenset({"-d", "-r", "-t", "--date", "--reference"}),
    "patch": frozenset({"-p", "-i", "-o", "-r", "-B", "-D", "-F", "-V", "-Y", "-z", "--input", "--output",
                        "--reject-file", "--prefix", "--suffix"}),
    "setfacl": frozenset({"-m", "-M", "-x", "-X", "--modify", "--remove", "--set", "--set-file"}),
    "chattr": frozenset({"-v", "-p"}),
    "ed": frozenset({"-p", "--prompt"}),
    "tar": frozenset({"-C", "--directory", "-f", "--file", "-T", "--files-from", "-X", "--exclude-from",
                      "-b", "-H", "--format", "-g", "--listed-incremental", "-I", "--use-compress-program"}),
    "unzip": frozenset({"-d", "-x", "-P"}),
    "find": frozenset(),
}


def writes(commands: list[Command]) -> list[Write]:
    """Every path the commands write, in command order (see the module docstring)."""
    from jouet_git.shell import dirs

    where = dirs(commands)
    out: list[Write] = []
    for index, command in enumerate(commands):
        base = where[index]
        add = _Adder(out, index, base)
        if command.stdout_to is not None and command.stdout_to not in _NOT_FILES:
            add(command.stdout_to, "redirect")
        for target in command.writes_to:
            if target not in _NOT_FILES:
                add(target, "redirect")
        _command_writes(command, add)
    return out


_NOT_FILES = NOT_FILES


_HERE = object()  # where the command runs (what jouet.dirs says), for _Adder's `base`


class _Adder:
    __slots__ = ("base", "index", "out")

    def __init__(self, out: list[Write], index: int, base: str | bool | None) -> None:
        self.out = out
        self.index = index
        self.base = base

    def __call__(self, path: str, how: str, removes: bool = False, base: object = _HERE,
                 key: str | None = None) -> None:
        if not path or path == "{}":  # find -exec's placeholder: find's own starting points count instead
            return
        where = self.base if base is _HERE else base
        full, lost = join(where if isinstance(where, (str, bool)) else None, path)
        self.out.append(Write(full, how, self.index, removes, lost, key))


def _rooted(path: str) -> bool:
    return path.startswith(("/", "~")) or path == "$HOME" or path.startswith(("$HOME/", "${HOME}"))


def join(base: str | bool | None, path: str) -> tuple[str, bool]:
    """PATH from the directory BASE (None: the call's own; False: unknown), and whether it is lost."""
    if _rooted(path) or base is None:
        return path, False
    if base is False:
        return path, True
    return f"{str(base).rstrip('/')}/{path}", False


def _split(argv: list[str], program: str, first: int = 1,
           values: frozenset[str] | None = None) -> tuple[list[str], dict[str, str]]:
    """(operands, options with their values) of argv[first:]; an option's value goes with it (VALUES:
    the options taking one, else PROGRAM's)."""
    if values is None:
        values = _VALUES.get(program, frozenset())
    operands: list[str] = []
    options: dict[str, str] = {}
    i = first
    n = len(argv)
    dashes = False
    while i < n:
        word = argv[i]
        if dashes or word == "-" or not word.startswith("-"):
            operands.append(word)
        elif word == "--":
            dashes = True
        elif word.startswith("--") and "=" in word:
            name, _, value = word.partition("=")
            options[name] = value
        elif word in values:
            options[word] = argv[i + 1] if i + 1 < n else ""
            i += 1
        elif not word.startswith("--") and len(word) > 2 and word[:2] in values:
            options[word[:2]] = word[2:]
        else:
            if not word.startswith("--"):
                for letter in word[1:]:
                    options["-" + letter] = ""
            options[word] = ""
        i += 1
    return operands, options


def _has(options: dict[str, str], *names: str) -> bool:
    return any(name in options for name in names)


def _command_writes(command: Command, add: _Adder) -> None:
    program = command.program
    argv = command.argv
    if program == "git":
        _git(command, add)
        return
    if program in _REMOVE_ALL:
        operands, _ = _split(argv, program)
        for operand in operands:
            add(operand, program, removes=True)
    elif program in _ALL:
        operands, options = _split(argv, "vim" if program in _VIS else program)
        if program == "patch":
            target = options.get("-o") or options.get("--output")
            operands = ([target] if target else []) + operands[:1]
        elif program in _VIS:
            operands = [o for o in operands if not o.startswith("+")]  # +CMD is a command, not a file
        for operand in operands:
            add(operand, program)
        if program in _VIS:
            for file in _vi_written(argv):
                add(file, f"{program} -c")
    elif program in _MODE:
        for operand in _mode_operands(program, argv):
            add(operand, program)
    elif program in _DESTINATION:
        _destination(program, argv, add)
    elif program == "sed":
        _in_place_files(program, argv, add)
        for file in _sed_written(argv):
            add(file, "sed w")
    elif program in ("perl", "ruby"):
        _in_place_files(program, argv, add)
        _inline(command, add)
    elif program == "dd":
        for word in argv[1:]:
            if word.startswith("of="):
                add(word[3:], "dd")
    elif program == "tar":
        operands, options = _split(argv, program)
        extracting = _has(options, "-x", "--extract", "--get") or (
            bool(argv[1:]) and not argv[1].startswith("-") and "x" in argv[1])
        if extracting:
            add(options.get("-C") or options.get("--directory") or ".", "tar -x", removes=True)
    elif program == "unzip":
        operands, options = _split(argv, program)
        add(options.get("-d") or ".", "unzip", removes=True)
    elif program in OPTION_WRITERS:
        _option_writer(program, argv, add)
    elif program in AWKS:
        _awk(argv, add)
    elif program == "find":
        _find(argv, add)
    elif program.startswith(("python", "pypy")) or program in _INTERPRETERS:
        _inline(command, add)
        if "json.tool" in argv:
            _json_tool(argv, add)


# Short options whose value is the rest of the cluster or the next word: `i` is looked for before them.
_CLUSTER_VALUES = {"sed": "efl", "perl": "eEIMmlx0", "ruby": "eEIrCFx0"}
_VIS = frozenset({"vi", "vim", "nvim", "ex"})
# An editor's command that writes a file it names: `:w path`, `:w! path`, `:w >> path`, `:sav path`.
_VI_WRITE = r"(?:^|[|\s:])(?:w|write|wq|x|xit|sav|saveas)!?\s*(?:>>\s*)?([^\s|]+)"


def _vi_written(argv: list[str]) -> list[str]:
    """The files the commands given to vi with -c, --cmd or +CMD write (`vim -es -c 'w! f' -c q x`)."""
    found: list[str] = []
    for k, word in enumerate(argv[1:], 1):
        if word in ("-c", "--cmd") and k + 1 < len(argv):
            text = argv[k + 1]
        elif word.startswith("+") and len(word) > 1 and not word[1:].isdigit():
            text = word[1:]
        else:
            continue
        found.extend(m.group(1) for m in re.finditer(_VI_WRITE, text))
    return found


def _json_tool(argv: list[str], add: _Adder) -> None:
    """python -m json.tool IN OUT writes OUT."""
    at = argv.index("json.tool")
    if at > 0 and argv[at - 1] == "-m":
        operands = [w for w in argv[at + 1:] if not w.startswith("-")]
        if len(operands) >= 2:
            add(operands[1], "python -m json.tool")


_MODE_OPTIONS = frozenset("cfvRHLPh")


def _mode_operands(program: str, argv: list[str]) -> list[str]:
    """The files chmod, chown or chgrp changes: past the options and the mode (`chmod -x FILE`
    reads -x as a mode, as GNU chmod does) or owner, unless --reference names a file instead."""
    operands: list[str] = []
    reference = False
    skip = False
    for word in argv[1:]:
        if skip:
            skip = False
            continue
        if word.startswith("--"):
            reference = reference or word.startswith("--reference")
            skip = word in ("--reference", "--from")
            continue
        if word.startswith("-") and len(word) > 1 and all(c in _MODE_OPTIONS for c in word[1:]):
            continue
        operands.append(word)
    return operands if reference else operands[1:]


def _in_place(argv: list[str], program: str) -> bool:
    """Whether sed, perl or ruby edits its files in place (-i, -i.bak, -pi, --in-place)."""
    for word in argv[1:]:
        if word == "--":
            return False
        if word.startswith("--"):
            if word == "--in-place" or word.startswith("--in-place="):
                return True
            continue
        if not word.startswith("-") or word == "-":
            continue
        for letter in word[1:]:
            if letter == "i":
                return True
            if letter in _CLUSTER_VALUES[program]:
                break
    return False


# The `how` of a write that puts a whole tree of files in place, by program (see _destination), and
# the mark on a destination that receives the sources by name when it is a directory.
TREE_HOWS = {"cp": "cp -r", "rsync": "rsync -r", "scp": "scp -r", "mv": "mv"}
TREE_INTO = " into"
_RECURSIVE = {"cp": ("-r", "-R", "-a", "--recursive", "--archive"), "rsync": ("-r", "-a", "--recursive", "--archive"),
              "scp": ("-r",)}


def _tree_how(program: str, options: dict[str, str]) -> str | None:
    """The `how` of PROGRAM's writes when it copies or moves whole directories (mv always; cp, rsync
    and scp when recursive), else None."""
    if program == "mv":
        return "mv"
    flags = _RECURSIVE.get(program)
    return TREE_HOWS[program] if flags is not None and _has(options, *flags) else None


def _in_place_files(program: str, argv: list[str], add: _Adder) -> None:
    if not _in_place(argv, program):
        return
    operands, options = _split(argv, program)
    given = _has(options, "-e", "-f", "--expression", "--file", "-E") or any(
        w.startswith("-") and not w.startswith("--") and w[-1:] in ("e", "E") for w in argv[1:])
    files = operands if given else operands[1:]
    for file in files:
        add(file, f"{program} -i")


def _sed_written(argv: list[str]) -> list[str]:
    """The files a sed script's w and W commands (and the s command's w flag) write: the rest of the
    line after `w` and blanks. Read loosely: any such `w` counts, so a pattern holding `w text` names
    a file too (a write jouet only checks, never a miss)."""
    found: list[str] = []
    options, operands, _ = cmdline.read_options(argv, cmdline.SED_VALUES, 1)
    for script in cmdline.sed_scripts(options, operands)[0]:
        for line in script.split("\n"):
            at = 0
            while True:
                k = min((i for i in (line.find("w", at), line.find("W", at)) if i >= 0), default=-1)
                if k < 0:
                    break
                rest = line[k + 1:]
                name = rest.lstrip(" \t")
                if name and len(name) < len(rest):
                    found.append(name.rstrip())
                at = k + 1
    return found


def _remote(operand: str) -> bool:
    """Whether an rsync or scp operand names another host's path (host:path)."""
    return ":" in operand.split("/", 1)[0]


def _destination(program: str, argv: list[str], add: _Adder) -> None:
    operands, options = _split(argv, program)
    target = options.get("-t") or options.get("--target-directory")
    if program == "install" and _has(options, "-d", "--directory"):
        for operand in operands:
            add(operand, "install -d")
        return
    sources = operands
    dest: str | None = target
    if dest is None:
        if len(operands) >= 2:
            dest, sources = operands[-1], operands[:-1]
        elif program == "ln" and len(operands) == 1:
            dest, sources = ".", operands
    if program == "rsync" or program == "scp":
        # host:path is not here: a copy to another host writes nothing here, and one from it lands
        # here under the name of its path.
        if dest is not None and _remote(dest):
            dest = None
        sources = [o.partition(":")[2] or "." if _remote(o) else o for o in sources]
    if program == "mv":
        for source in sources:
            add(source, "mv", removes=True)
    if program in ("ln", "link"):
        # A link to a file is a second way to write it: `ln -s ~/.config/jouet /tmp/j && echo > /tmp/j/x`.
        for source in sources:
            add(source, program)
    if dest is None:
        return
    if program == "rsync" and _has(options, "--delete", "--delete-before", "--delete-after", "--delete-during",
                                   "--delete-excluded", "--del"):
        add(dest, "rsync --delete", removes=True)
    tree = _tree_how(program, options)
    if tree is None:
        # The destination itself (a file, or a directory receiving the sources) and, for a directory,
        # what lands in it.
        add(dest, program)
        for source in sources:
            name = source.rstrip("/").rpartition("/")[2]
            if name and name not in (".", ".."):
                add(f"{dest.rstrip('/')}/{name}", program)
        return
    # A copy or move of whole directories puts a tree of files in place: what lies below the path
    # written counts too (`cp -r /tmp/x/.config ~/` writes ~/.config/jouet/...). The destination
    # receives each source under its own name, unless what is copied is a directory's content (`x/.`,
    # rsync's `x/`, a glob, -T) or may be (a value not known), which lands in the destination itself;
    # and a destination that is not a directory yet becomes the copy (TREE_INTO: guarded.py tells
    # which by looking).
    contents = program in ("cp", "mv") and _has(options, "-T", "--no-target-directory")
    for source in sources:
        bare = source.rstrip("/")
        name = bare.rpartition("/")[2]
        if (contents or not name or name in (".", "..") or (program == "rsync" and source.endswith("/"))
                or any(c in source for c in "*?[$`")):
            contents = True
        else:
            add(f"{dest.rstrip('/')}/{name}", tree)
    add(dest, tree if contents else tree + TREE_INTO)


_AWK_REDIRECT = r"\bprintf?\b[^;{}\n]*>"
_AWK_STRING = r'"((?:[^"\\\n]|\\.)*)"'


def _awk(argv: list[str], add: _Adder) -> None:
    """An awk program that prints into a file (`print > "f"`, `printf ... >> f`) writes the literal
    paths it names (and, when it reads ENVIRON or HOME, the same under ~), as inline programs do;
    gawk -i inplace rewrites each file it reads."""
    programs, files, inplace = _awk_words(argv)
    if inplace:
        for file in files:
            add(file, "gawk -i inplace")
    for code in programs:
        if not re.search(_AWK_REDIRECT, code):
            continue
        home = "ENVIRON" in code or "HOME" in code
        for match in re.finditer(_AWK_STRING, code):
            text = match.group(1)
            if not _path_like(text):
                continue
            add(text, "awk >")
            if home and not text.startswith("~"):  # ENVIRON["HOME"] "/.config/...": joined to the home
                add(_under_home(text), "awk >")


def _awk_words(argv: list[str]) -> tuple[list[str], list[str], bool]:
    """An awk command's programs given on its line (-e values, else its first operand), the files it
    reads (the operands after the program; var=value operands assign), and whether `-i inplace`
    makes gawk rewrite them."""
    programs: list[str] = []
    files: list[str] = []
    program_given = inplace = False
    k = 1
    while k < len(argv):
        word = argv[k]
        if word in ("-f", "--file", "-e", "--source", "-i", "--include", "-v", "--assign", "-F",
                    "--field-separator"):
            value = argv[k + 1] if k + 1 < len(argv) else None
            if word in ("-e", "--source") and value is not None:
                programs.append(value)
            inplace = inplace or (word in ("-i", "--include") and value == "inplace")
            program_given = program_given or word in ("-f", "--file", "-e", "--source")
            k += 2
            continue
        if word.startswith("-") and word != "-":
            inplace = inplace or word in ("-iinplace", "--include=inplace")
            if word.startswith("--source="):
                programs.append(word.partition("=")[2])
            program_given = program_given or word.startswith(("-f", "--file=", "--source="))
        elif not program_given:
            programs.append(word)
            program_given = True
        elif "=" not in word:
            files.append(word)
        k += 1
    return programs, files, inplace


def _option_writer(program: str, argv: list[str], add: _Adder) -> None:
    """A program whose writes hide in its options or follow its input's names (shell/writers.py)."""
    from jouet_git.shell import writers

    writers.write(program, argv, add)


def _find(argv: list[str], add: _Adder) -> None:
    starts: list[str] = []
    for word in argv[1:]:
        if word.startswith(("-", "(", "!", ")")):
            break
        starts.append(word)
    actions = set(argv[1:])
    writers = {"rm", "mv", "chmod", "shred", "unlink", "truncate", "cp", "tee", "sed", "perl", "ln"}
    deletes = "-delete" in actions or any(
        argv[k] in ("-exec", "-execdir", "-ok", "-okdir") and k + 1 < len(argv)
        and argv[k + 1].rpartition("/")[2] in writers for k in range(1, len(argv)))
    if deletes:
        for start in starts or ["."]:
            add(start, "find", removes=True)


# -- inline programs ---------------------------------------------------------------------------

_WRITE_CALL = (
    r"""open\s*\([^)]*,\s*(?:mode\s*=\s*)?['"][rbt]*[wax+]"""  # open(p, 'w'), open(p, mode="a")
    r"""|\.open\s*\(\s*['"][rbt]*[wax+]"""  # Path(p).open('w')
    r"""|open\s*\(?\s*(?:my\s+)?[\w$]+\s*,\s*['"]\s*(?:>|\+<|\|)"""  # perl: open(F, '>', ...), open F, ">path"
    r"""|\bwrite_(?:text|bytes)\b|\bunlink\w*|\bremove\w*|\brmtree\b|\brmdir\w*|\brm(?:Sync)?\s*\("""
    r"""|\brename\w*|\breplace\s*\(\s*[^)]*,|\bchmod\w*|\bchown\w*|\blchmod\b|\bsymlink\w*|\blink\w*\s*\("""
    r"""|\btruncate\w*|\bcopy\w*|\bmove\w*|\bwriteFile\w*|\bappendFile\w*|\bcreateWriteStream\b"""
    r"""|\bFile\.(?:write|delete|open|rename)|\bIO\.write|\bFileUtils\b|\bfile_put_contents\b|\bfopen\b"""
    r"""|\bsystem\s*\(|\bsubprocess\b|\bpopen\b|\bspawn\w*|\bexec\w*\s*\(|`"""
)
_LITERAL = r"""'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)\""""
_HOME_JOIN = r"""home\s*\(\s*\)|expanduser|\$HOME|\bHOME\b|homedir\s*\(|\$ENV\{\s*HOME"""


def _inline(command: Command, add: _Adder) -> None:
    """Literal paths named by inline code that writes files."""
    code = inline_code(command)
    # Look for a write in the code itself, not in what its strings say (a path may hold `popen`);
    # short strings stay, since they are the modes ('w', "a+", '>').
    if not may_write_inline(code) or not re.search(_WRITE_CALL, re.sub(_LITERAL, _mode_only, code)):
        return
    how = f"{command.program} (inline code)"
    if any(name in code for name in _ARGV_NAMES):
        # a path given on the command line (sys.argv[1], process.argv, $ARGV[0]): each word after the code
        for word in _after_code(command.argv, code):
            add(word, how)
    home = bool(re.search(_HOME_JOIN, code))
    for match in re.finditer(_LITERAL, code):
        text = match.group(1) if match.group(1) is not None else match.group(2)
        if text[:1] in (">", "<", "+", "|"):  # perl's two-argument open names the mode with the path
            text = text.lstrip("+<>| ")
        if not _path_like(text):
            continue
        add(text, how)
        if home and not _rooted(text):
            add(_under_home(text), how)


_ARGV_NAMES = ("argv", "ARGV", "Deno.args", "arg[", "$args")


def _after_code(argv: list[str], code: str) -> list[str]:
    """The operands after an inline program's code (its own arguments: the words after the last
    `-c CODE`, `-e CODE`), or after the interpreter's options when the code comes from standard input."""
    parts = set(code.split("\n"))
    start = 1
    for k in range(len(argv) - 1, 1, -1):
        if argv[k - 1].startswith("-") and (argv[k] == code or argv[k] in parts):
            start = k + 1
            break
    return [word for word in argv[start:] if word != "-" and not word.startswith("-")]


def _under_home(text: str) -> str:
    """TEXT joined to the home directory, for a program that joins a literal path to $HOME."""
    return f"~/{text.lstrip('./') if text.startswith('./') else text.lstrip('/')}"


def _mode_only(match: re.Match[str]) -> str:
    text = match.group(0)
    if len(text) <= 5:
        return text
    if text[1:2] in (">", "|", "+"):  # perl's two-argument open: open(F, ">path")
        return text[:3] + text[0]
    return "''"


def _path_like(text: str) -> bool:
    if not text or len(text) > 4096 or "\n" in text:
        return False
    return "/" in text or text.startswith(("~", ".")) or text.endswith((".toml", ".json", ".luau"))


# -- git ------------------------------------------------------------------------------------------

_GIT_CONFIG_VALUES = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment", "--value", "-t"})
_GIT_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color",
                               "--get-colorbool", "-l", "--list"})
_GIT_CONFIG_WHOLE = frozenset({"--edit", "-e"})
_GIT_CONFIG_KEYED = frozenset({"--unset", "--unset-all", "--replace-all", "--add"})
_GIT_CONFIG_SECTIONS = frozenset({"--rename-section", "--remove-section"})


def _git(command: Command, add: _Adder) -> None:
    argv = command.argv
    i = cmdline.skip_global_options("git", argv, 1)
    if i >= len(argv):
        return
    sub = argv[i]
    here = cmdline.git_where(argv, add.base)
    if sub in ("rm", "mv"):
        operands, options = _split(argv, "mv" if sub == "mv" else "rm", i + 1)
        if sub == "rm":
            if _has(options, "--cached"):
                return
            for operand in operands:
                add(operand, "git rm", removes=True, base=here)
        else:
            for operand in operands[:-1]:
                add(operand, "git mv", removes=True, base=here)
            if len(operands) >= 2:
                add(operands[-1], "git mv", base=here)
        return
    if sub == "config":
        for key in git_config_keys(argv[i + 1:]):
            file = _git_config_file(argv[i + 1:])
            add(file, "git config", base=here, key=key)
    elif sub in ("clone", "worktree", "archive"):
        _git_new_files(sub, argv, i + 1, add, here)
    elif sub == "bundle" and i + 2 < len(argv) and argv[i + 1] == "create" and not argv[i + 2].startswith("-"):
        add(argv[i + 2], "git bundle create", base=here)
    elif sub in _GIT_OUTPUT:
        # --output=FILE (diff, log, show, ...) and format-patch's -o/--output-directory DIR
        _, options = _split(argv, "", i + 1, _GIT_OUTPUT[sub])
        for name in _GIT_OUTPUT[sub]:
            if options.get(name):
                add(options[name], f"git {sub} --output", base=here)
    elif sub == "init":
        operands, _ = _split(argv, "", i + 1, _GIT_INIT_VALUES)
        if operands or here is not None:
            add(f"{operands[0].rstrip('/') if operands else '.'}/.git", "git init", base=here)
    elif sub in TREE_WRITES:
        # Where the work tree is moved (-C, --work-tree, GIT_WORK_TREE, a cd before): the files the
        # pathspecs after -- name there, or, without them, anything in it.
        tree = cmdline.command_where(command, add.base)
        if tree is None:
            return  # the call's own work tree
        rest = argv[i + 1:]
        if "--" in rest:
            for spec in rest[rest.index("--") + 1:]:
                add(spec, f"git {sub}", base=tree)
        else:
            add(".", f"git {sub}", removes=True, base=tree)


# The options that name a file (or, for format-patch, a directory) a git command writes its output to.
_GIT_OUTPUT = {sub: frozenset({"--output"}) for sub in ("diff", "log", "show", "diff-tree", "diff-index",
                                                       "diff-files", "range-diff", "whatchanged")}
_GIT_OUTPUT["format-patch"] = frozenset({"-o", "--output-directory", "--output"})
_GIT_INIT_VALUES = frozenset({"-b", "--initial-branch", "--template", "--separate-git-dir", "--object-format",
                              "--ref-format", "--shared"})
_GIT_VALUES = {
    "clone": frozenset({"-o", "--origin", "-b", "--branch", "-u", "--upload-pack", "--reference", "--reference-if-able",
                        "--separate-git-dir", "--depth", "-c", "--config", "--template", "-j", "--jobs", "--filter",
                        "--shallow-since", "--shallow-exclude", "--bundle-uri", "--server-option", "--ref-format"}),
    "worktree": frozenset({"-b", "-B", "--reason", "--orphan"}),
    "archive": frozenset({"-o", "--output", "--format", "--prefix", "--remote", "--exec", "--add-file",
                          "--add-virtual-file", "--mtime"}),
}


def _git_new_files(sub: str, argv: list[str], first: int, add: _Adder, here: str | bool | None) -> None:
    """What git clone (its directory), git worktree add (its path) and git archive -o (its file) write."""
    operands, options = _split(argv, "", first, _GIT_VALUES[sub])
    if sub == "clone":
        if len(operands) >= 2:
            add(operands[1], "git clone", base=here)
        elif operands:
            name = operands[0].rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
            add(name[:-4] if name.endswith(".git") else name, "git clone", base=here)
        if options.get("--separate-git-dir"):
            add(options["--separate-git-dir"], "git clone", base=here)
    elif sub == "worktree":
        if len(operands) >= 2 and operands[0] == "add":
            add(operands[1], "git worktree add", base=here)
    elif options.get("-o") or options.get("--output"):
        add(options.get("-o") or options["--output"], "git archive -o", base=here)


# The file `git config` writes without -f, by scope option (None: the repository's). guarded.py
# judges a write of one of them by its key alone, and any other file (-f) as any write of it.
GIT_CONFIG_FILES = {"--global": "~/.gitconfig", "--system": "/etc/gitconfig", None: ".git/config"}


def _git_config_file(args: list[str]) -> str:
    for k, word in enumerate(args):
        if word in ("-f", "--file") and k + 1 < len(args):
            return args[k + 1]
        if word.startswith("--file="):
            return word[len("--file="):]
    for scope in ("--global", "--system"):
        if scope in args:
            return GIT_CONFIG_FILES[scope]
    return GIT_CONFIG_FILES[None]


def git_config_keys(args: list[str]) -> list[str]:
    """The keys (lower case) a `git config ARGS` call sets or removes: [] when it only reads; "*"
    when it cannot be told (an editor opens the file); "[section]" for a section renamed or removed."""
    operands: list[str] = []
    mode: str | None = None
    k = 0
    n = len(args)
    while k < n:
        word = args[k]
        if word == "--":
            operands.extend(args[k + 1:])
            break
        if word.startswith("-"):
            name = word.split("=", 1)[0]
            if name in _GIT_CONFIG_VALUES and "=" not in word:
                k += 1
            elif name in _GIT_CONFIG_READS:
                return []
            elif name in _GIT_CONFIG_WHOLE or name in _GIT_CONFIG_KEYED or name in _GIT_CONFIG_SECTIONS:
                mode = name
        else:
            operands.append(word)
        k += 1
    if operands and mode is None and operands[0] in ("get", "list"):
        return []
    if operands and mode is None and operands[0] in ("set", "unset", "edit", "rename-section", "remove-section"):
        mode = {"set": None, "unset": "--unset", "edit": "--edit", "rename-section": "--rename-section",
                "remove-section": "--remove-section"}[operands[0]]
        operands = operands[1:]
        if mode is None:
            return [operands[0].lower()] if operands else []
    if mode in _GIT_CONFIG_WHOLE:
        return ["*"]
    if mode in _GIT_CONFIG_SECTIONS:
        return [f"[{operands[0].lower()}]"] if operands else ["*"]
    if mode in _GIT_CONFIG_KEYED:
        return [operands[0].lower()] if operands else []
    # `git config KEY VALUE` sets; `git config KEY` reads.
    if len(operands) >= 2:
        return [operands[0].lower()]
    return []
