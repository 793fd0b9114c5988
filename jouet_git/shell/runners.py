"""Programs that build commands out of their own arguments and run them: find -exec, fd -x and GNU
parallel. Each function gives what would run, for the reader to read as commands of their own.

Imported by the reader only when one of these programs appears.
"""

from __future__ import annotations

from jouet_git.shell.wrappers import _options

# find's actions that run a command: the words up to `;`, or up to `{} +`.
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_FD_EXEC = frozenset({"-x", "--exec", "-X", "--exec-batch"})

# GNU parallel's replacement strings: the argument, without extension, basename, dirname...
_REPLACEMENTS = ("{}", "{.}", "{/}", "{//}", "{/.}", "{#}", "{%}")


def find_roots(argv: list[str]) -> list[str]:
    """The starting points of a find command (`.` when none is given)."""
    roots: list[str] = []
    for word in argv[1:]:
        if word in ("-H", "-L", "-P") or word.startswith("-O") or word.startswith("-D"):
            continue
        if word.startswith(("-", "(", "!")) or word in (",", ")"):
            break
        roots.append(word)
    return roots or ["."]


def find_execs(argv: list[str]) -> list[tuple[list[str], bool, bool]]:
    """The commands find's -exec, -execdir, -ok and -okdir actions run, each with whether find
    fills in some of its arguments (`{}`) and whether it runs in each file's directory (-execdir)."""
    out: list[tuple[list[str], bool, bool]] = []
    i = 1
    n = len(argv)
    while i < n:
        if argv[i] not in _FIND_EXEC:
            i += 1
            continue
        j = i + 1
        while j < n and argv[j] != ";" and not (argv[j] == "+" and j > i + 1 and argv[j - 1] == "{}"):
            j += 1
        words = argv[i + 1 : j]
        if words:
            out.append((words, any("{}" in w for w in words), argv[i].endswith("dir")))
        i = j + 1
    return out


def fd_execs(argv: list[str]) -> list[list[str]]:
    """The command fd's -x/--exec or -X/--exec-batch runs (fd adds the paths it finds)."""
    out: list[list[str]] = []
    i = 1
    n = len(argv)
    while i < n:
        word = argv[i]
        if word not in _FD_EXEC and not word.startswith(("--exec=", "--exec-batch=")):
            i += 1
            continue
        if "=" in word:
            words = [word.partition("=")[2]]
            j = i + 1
        else:
            j = i + 1
            while j < n and argv[j] != ";":
                j += 1
            words = argv[i + 1 : j]
        if words:
            out.append(words)
        i = j + 1
    return out


_PARALLEL_VALUES = "jSNnLldEIaCsPe"
_PARALLEL_LONG = frozenset({
    "jobs", "sshlogin", "max-args", "max-lines", "delimiter", "arg-file", "colsep", "joblog",
    "results", "res", "tmpdir", "timeout", "delay", "retries", "basefile", "bf", "return", "workdir",
    "wd", "env", "halt", "memfree", "load", "nice", "block", "recstart", "recend", "tag-string",
    "tagstring", "header", "termseq", "ssh", "sshloginfile", "slf", "transferfile", "tf", "max-chars",
    "max-procs", "id", "filter", "trc", "rpl", "limit", "slotreplace", "seqreplace", "parens",
    "sqlmaster", "sqlworker", "sqlandworker", "hostgroups", "template", "shard", "group-by",
    "block-size", "arg-sep", "arg-file-sep", "cleanup", "retry-failed", "resume-failed",
})
_SEPARATORS = frozenset({":::", "::::", ":::+", "::::+"})


def parallel_scripts(argv: list[str]) -> tuple[list[str], bool] | None:
    """The shell command lines GNU parallel (or `sem`) runs, and whether some of their arguments
    are unknown (read from its input or from files). None when it runs nothing.

    Every argument given with `:::` appears in at least one command line (not every combination:
    that would grow as their product). parallel joins the command's words with spaces and runs them
    with a shell, quoting each argument.
    """
    got = _options(argv, 1, _PARALLEL_VALUES, _PARALLEL_LONG, "ie")
    if got is None:
        return None
    i, seen = got
    pipe = False
    quote = False
    from_file = False
    for name, _ in seen:
        if name in ("help", "version", "citation", "number-of-cpus", "number-of-cores",
                    "number-of-sockets", "number-of-threads", "max-line-length-allowed",
                    "minversion", "record-env", "embed"):
            return None
        if name in ("pipe", "spreadstdin", "pipepart", "pipe-part"):
            pipe = True
        elif name in ("q", "quote"):
            quote = True
        elif name in ("a", "arg-file"):
            from_file = True
    n = len(argv)
    template: list[str] = []
    while i < n and argv[i] not in _SEPARATORS:
        template.append(argv[i])
        i += 1
    groups: list[list[str]] = []
    while i < n:
        sep = argv[i]
        i += 1
        group: list[str] = []
        while i < n and argv[i] not in _SEPARATORS:
            group.append(argv[i])
            i += 1
        if sep.startswith("::::"):
            from_file = True  # file names: their lines are the arguments
        else:
            groups.append(group)
    unknown = from_file or (not groups and not pipe)
    if quote:
        line = " ".join(_quote(w) for w in template)
    else:
        line = " ".join(template)
    if pipe or not groups:
        return ([line] if line else []), unknown
    if not template:
        # No command: each argument is a command line of its own.
        return [arg for group in groups for arg in group], unknown
    firsts = [group[0] if group else "" for group in groups]
    scripts: list[str] = []
    for k, group in enumerate(groups):
        for arg in group:
            args = list(firsts)
            args[k] = arg
            scripts.append(_fill(line, args))
    return scripts, unknown


def _fill(line: str, args: list[str]) -> str:
    """The command line with the replacement strings filled in, or the arguments appended."""
    if not any(r in line for r in _REPLACEMENTS) and "{1" not in line:
        return line + "".join(" " + _quote(a) for a in args)
    first = args[0] if args else ""
    base = first.rpartition("/")[2]
    values = {
        "{}": " ".join(args), "{.}": _no_ext(first), "{/}": base, "{//}": first.rpartition("/")[0] or ".",
        "{/.}": _no_ext(base), "{#}": "1", "{%}": "1",
    }
    for k, arg in enumerate(args, 1):
        values[f"{{{k}}}"] = arg
        values[f"{{{k}.}}"] = _no_ext(arg)
        values[f"{{{k}/}}"] = arg.rpartition("/")[2]
    out: list[str] = []
    i = 0
    n = len(line)
    while i < n:
        if line[i] == "{":
            j = line.find("}", i)
            key = line[i : j + 1] if j > 0 else ""
            if key == "{}" and len(args) > 1:
                out.append(" ".join(_quote(a) for a in args))
                i = j + 1
                continue
            if key in values:
                out.append(_quote(values[key]))
                i = j + 1
                continue
        out.append(line[i])
        i += 1
    return "".join(out)


def _no_ext(path: str) -> str:
    head, slash, base = path.rpartition("/")
    stem = base.rpartition(".")[0] if "." in base.lstrip(".") else base
    return head + slash + stem


def _quote(word: str) -> str:
    """word quoted for a shell, as parallel quotes an argument."""
    if word and all(c.isalnum() or c in "@%+=:,./-_" for c in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"
