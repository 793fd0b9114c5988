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
                 "patch", "setfacl", "chattr", "sponge"})
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
OTHERS = frozenset({"sed", "perl", "ruby", "dd", "tar", "unzip", "find"})  # sed: may_write asks its words
# Programs whose writes hide in their options or follow their input's names (shell/writers.py); for
# some, may_write first asks whether a word could say so (sort writes only with -o).
OPTION_WRITERS = frozenset({
    "curl", "wget", "aria2c", "http", "https", "sort", "uniq", "split", "csplit", "7z", "7za", "7zr", "gzip",
    "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd", "lz4", "pigz", "unpigz",
    "yq", "sd", "iconv", "openssl"})
WRITERS = ALL | REMOVE_ALL | MODE | DESTINATION | frozenset(INTERPRETERS) | OTHERS | OPTION_WRITERS
# The git subcommands writes() finds writes in.
GIT_WRITES = frozenset({"rm", "mv", "config", "clone", "worktree", "archive", "init", "bundle", "format-patch"})
# The git subcommands that write the work tree: looked at only when it is moved (-C, --work-tree,
# GIT_WORK_TREE, a cd before them), since the call's own tree is no place of jouet's.
TREE_WRITES = frozenset({"checkout", "restore", "reset", "switch", "merge", "pull", "rebase", "stash", "cherry-pick",
                         "revert", "am", "apply", "clean", "read-tree", "checkout-index"})
# One of these is in every match of writes.py's _WRITE_CALL (a test checks it with engine/needles.py):
# inline code holding none of them writes nothing, and the pattern is neither compiled nor run for it
# (`python3 -c 'print(1)'`). Taking out string literals only removes text, so the raw code is asked.
WRITE_NEEDLES = ("open", "File.", "FileUtils", "IO.write", "`", "appendFile", "chmod", "chown", "copy",
               "createWriteStream", "exec", "file_put_contents", "link", "move", "remove", "rename",
               "replace", "rm", "spawn", "subprocess", "system", "truncate", "writeFile", "write_")
# awk, whose program may print into a file (`print > "f"`): may_write asks whether a word holds `>`.
AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
# Redirection targets that are no file.
NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2"})


def may_write(commands: list[Command]) -> bool:
    """False only when writes(COMMANDS) is sure to find nothing."""
    moved: bool | None = None  # whether a cd (or pushd) runs in the call
    for command in commands:
        if command.stdout_to is not None and command.stdout_to not in NOT_FILES:
            return True
        if command.writes_to and any(target not in NOT_FILES for target in command.writes_to):
            return True
        program = command.program or ""
        if program == "git":
            if not GIT_WRITES.isdisjoint(command.argv) or any(w.startswith("--output") for w in command.argv):
                return True
            if not TREE_WRITES.isdisjoint(command.argv):
                if moved is None:
                    moved = any(c.program in ("cd", "pushd") for c in commands)
                if moved or command.chdir is not None or _moves_git(command):
                    return True
        elif program.startswith(("python", "pypy")) or (program in INTERPRETERS and program not in OTHERS):
            # writes() reads only their inline code (`python3 script.py` has none), and json.tool's output
            if may_write_inline(inline_code(command)) or "json.tool" in command.argv:
                return True
        elif program == "curl":
            # curl writes a file only when an option says so (shell/writers.py): a long one of
            # these, or a short one among -o -O -D -c (in a cluster: `-sSo f`)
            if any(_curl_writes(word) for word in command.argv[1:]):
                return True
        elif program in AWKS:
            if any(">" in word or "inplace" in word for word in command.argv[1:]):
                return True
        elif program == "sed":
            # sed writes with -i (--in-place), or with a w command in its script
            if any(_sed_writes(word) for word in command.argv[1:]):
                return True
        elif program == "sort":
            if any(word.startswith("--o") or (word[:1] == "-" and word[1:2] != "-" and "o" in word)
                   for word in command.argv[1:]):
                return True
        elif program == "uniq":
            if sum(1 for word in command.argv[1:] if not word.startswith("-") or word == "-") >= 2:
                return True
        elif program in WRITERS:
            return True
    return False


def may_write_inline(code: str) -> bool:
    """Whether inline CODE may write a file: it holds one of WRITE_NEEDLES."""
    return any(needle in code for needle in WRITE_NEEDLES)


def _moves_git(command: Command) -> bool:
    """Whether a git command names another work tree or repository than where it runs."""
    if "GIT_WORK_TREE" in command.env or "GIT_DIR" in command.env:
        return True
    return any(word == "-C" or word.startswith(("--work-tree", "--git-dir")) for word in command.argv)


def _sed_writes(word: str) -> bool:
    if word.startswith("--in-place") or (word.startswith("-") and not word.startswith("--") and "i" in word):
        return True
    return "w " in word or "w\t" in word or "W " in word or "W\t" in word  # a script's w command


_CURL_WRITING = ("--output", "--remote-name", "--dump-header", "--cookie-jar", "--trace", "--stderr", "--libcurl",
                 "--etag-save", "--hsts", "--alt-svc", "--config")


def _curl_writes(word: str) -> bool:
    if word.startswith("--"):
        return word.startswith(_CURL_WRITING)
    return word.startswith("-") and any(letter in word for letter in "oODcJK")


def inline_code(command: Command) -> str:
    """The code an interpreter command runs from its words or standard input, or ""."""
    program = command.program
    argv = command.argv
    parts: list[str] = []
    if program.startswith(("python", "pypy")):
        for k, word in enumerate(argv[1:], 1):
            if word == "-c" and k + 1 < len(argv):
                parts.append(argv[k + 1])
                break
            if word.startswith("-") and not word.startswith("--") and "c" in word[1:] and \
                    word[1:].rstrip("c").isalpha():
                rest = word[word.index("c") + 1:]
                parts.append(rest or (argv[k + 1] if k + 1 < len(argv) else ""))
                break
            if word == "-":
                parts.extend(command.heredocs)  # `python3 - ARGS <<EOF`: the program comes on standard input
                break
            if not word.startswith("-"):
                break  # a script: its here-document (if any) is data
        else:
            parts.extend(command.heredocs)
    else:
        flags = INTERPRETERS.get(program, ())
        found = False
        for k, word in enumerate(argv[1:], 1):
            if word in flags and k + 1 < len(argv):
                parts.append(argv[k + 1])
                found = True
            elif program == "perl" and word.startswith(("-e", "-E")) and len(word) > 2:
                parts.append(word[2:])
                found = True
            elif program == "perl" and word.startswith("-") and word[-1:] in ("e", "E") and k + 1 < len(argv):
                parts.append(argv[k + 1])  # -pie 'code'
                found = True
        if not found and all(w.startswith("-") or w == "-" for w in argv[1:]):
            parts.extend(command.heredocs)
    return "\n".join(parts)
