"""What a command runs besides itself, read as commands of their own: the script of a shell or a
wrapper (`sh -c`, `su -c`, `bash x.sh`, a script fed on its input), eval, source, functions and
aliases defined in the call, find -exec, fd -x, GNU parallel, and the commands xargs makes of
known input. A mixin of the reader (Reader inherits Follow); the reader calls `follow` for each
command it reads, and `feed_pipeline` for each pipeline.

Known input comes from here-documents, here-strings, pure commands earlier in a pipeline (see
pure.py), files written by pure commands earlier in the call, and small files inside the call's
directory (read_file says which).
"""

from __future__ import annotations

from jouet_git.call import Command
from jouet_git.shell.wrappers import (
    OTHER_SHELLS,
    PURE,
    SHELLS,
    is_interpreter,
    other_shell_script,
    program_name,
    shell_mode,
    split_string,
    unwrap_more,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from jouet_git.shell.reader import Consumer, Elem, Reader
    from jouet_git.shell.wrappers import Unwrapped, XargsHow

# Scripts a command runs from a file (`bash x.sh`, `source x.sh`) are read when the file is a
# regular file inside the call's directory, of at most MAX_FILE bytes; at most MAX_READS per call
# (more is a limit: the call is then incomplete).
MAX_FILE = 64 * 1024
MAX_READS = 8



def moved(r: Reader, cmd: Command) -> None:
    """Follow a top-level cd, for reading files where later commands run (see workdirs)."""
    from jouet_git.shell.workdirs import _cd, _lookup

    wheres = r.sh.wheres
    if r.nested:
        # A cd inside $(...) or a -c script: where its later commands run is not followed.
        wheres[r.scope] = False
        return
    wheres[r.scope] = _cd(_lookup(wheres, r.scope), cmd.program, cmd.argv)

# -- what commands run: scripts, and commands made of words -------------------------------


def follow(r: Reader, cmd: Command, u: Unwrapped | None, key: tuple[int, ...], wpos: list[int] | None,
           offset: int) -> None:
    """Read what cmd runs besides itself: the script of a shell or a wrapper, the commands of
    find -exec, fd -x and parallel. key orders what is found among the nested commands."""
    if u is not None and u.script is not None:
        shell_c(r, cmd, u.script, key)
        return
    program = cmd.program
    sh = r.sh
    if sh.functions and program in sh.functions and program not in sh.calling:
        call_function(r, cmd, key)
        return
    if sh.aliases and cmd.argv[0] in sh.aliases and cmd.argv[0] not in sh.calling:
        call_alias(r, cmd, key)
        return
    if program in SHELLS:
        mode, k = shell_mode(cmd.argv)
        if mode == "c":
            if wpos is not None and offset >= 0:
                key = (*r.prefix, r.at(wpos[offset + k]))
            script = cmd.argv[k]
            if script.startswith("--command="):
                script = script.partition("=")[2]
            shell_c(r, cmd, script, key)
        elif mode == "stdin":
            r.sh.consumers[id(cmd)] = ("shell", key, None)
        elif mode == "file":
            run_file(r, cmd, cmd.argv[k], key)
        return
    if program in OTHER_SHELLS:
        other = other_shell_script(program, cmd.argv)
        if other is not None:
            shell_c(r, cmd, other, key)
        return
    how = FOLLOW.get(program)
    if how is not None:
        how(r, cmd, key)
    elif is_interpreter(program):
        inline(r, cmd, key)


def inline(r: Reader, cmd: Command, key: tuple[int, ...]) -> None:
    """An interpreter: read the program it runs, from its words, its input or a file written
    earlier in the call (a program already on disk is not read)."""
    from jouet_git.shell.inline import interpreter, source

    language = interpreter(cmd.program)
    if language is None:
        return
    how, text, presets = source(language, cmd.argv)
    if how == "code" and text is not None:
        run_inline(r, cmd, key, language, text, presets)
    elif how == "stdin":
        r.sh.consumers[id(cmd)] = ("inline", key, None)
    elif how == "file" and text is not None and r.sh.files:
        written = r.sh.files.get(file_key(r, text) or "")
        if written is not None:
            run_inline(r, cmd, key, language, written, presets)


def run_inline(r: Reader, cmd: Command, key: tuple[int, ...], language: str, code: str,
               presets: dict[str, str]) -> None:
    """Read the commands an inline program runs: a string for a shell is read as a script, an
    argument list as a command; their via ends with the interpreter."""
    from jouet_git.shell.inline import MAX_CODE, inspect

    if len(code) > MAX_CODE:
        r.stop(f"too long: an inline {language} program of {len(code)} characters; jouet reads "
               f"programs of at most {MAX_CODE}; put it in a file of its own")
        return
    if not r.charge(len(code)):
        return
    operands = program_operands(language, cmd.argv, code)
    found, reads = inspect(language, code, presets, operands)
    if language in ("perl", "ruby") and any(_loops(word) for word in cmd.argv[1:] if word != code):
        reads = [*operands, *reads]  # perl -ne / -pe, ruby -n / -p: every operand is read
    if reads:
        cmd.reads.extend(r for r in reads if r not in cmd.reads)
    for k, (kind, what) in enumerate(found):
        if kind == "shell" and isinstance(what, str):
            shell_c(r, cmd, what, (*key, k))
        elif isinstance(what, list):
            derive(r, cmd, what, (*key, k), False)


def program_operands(language: str, argv: list[str], code: str) -> list[str]:
    """The words an inline program gets as its arguments: those after its code (`-c CODE ARGS`, `-e
    CODE ARGS`) or after `-` (a program read from standard input). None for awk, whose operands are
    files it reads as any program does."""
    if language == "awk":
        return []
    for k in range(len(argv) - 1, 0, -1):
        if argv[k] == code or argv[k] == "-":
            return [w for w in argv[k + 1:] if not w.startswith("-")]
    return []


def _loops(word: str) -> bool:
    """Whether an option word of perl or ruby is -n or -p (alone or in a cluster such as -lne)."""
    return len(word) > 1 and word[0] == "-" and word[1] != "-" and bool(set(word[1:].split("e")[0]) & {"n", "p"})


def shell_c(r: Reader, cmd: Command, script: str, key: tuple[int, ...]) -> None:
    """Read a script cmd runs in a shell of its own (`sh -c`, `su -c`, ...); its commands share
    cmd's output and see only the variables exported to it."""
    saved = r.child(cmd)
    try:
        kids = r.sub(script, captured=cmd.captured, spans=False, base=0, pmap=None, prefix=key,
                     seq=cmd.seq, chain=[*cmd.via, cmd.program], origin=cmd)
    finally:
        r.restore(saved)
    adopt(r, cmd, kids)


def same_shell(r: Reader, cmd: Command, script: str, key: tuple[int, ...], name: str) -> None:
    """Read a script this shell itself runs (eval, source, a function or an alias): what it
    assigns stays assigned."""
    kids = r.sub(script, captured=cmd.captured, spans=False, base=0, pmap=None, prefix=key,
                    seq=cmd.seq, chain=[*cmd.via, name])
    adopt(r, cmd, kids)


def evaluate(r: Reader, cmd: Command, key: tuple[int, ...]) -> None:
    """`eval ARGS`: the arguments joined by spaces, read again as a script."""
    if len(cmd.argv) > 1:
        same_shell(r, cmd, " ".join(cmd.argv[1:]), key, "eval")


def call_function(r: Reader, cmd: Command, key: tuple[int, ...]) -> None:
    """A call of a function defined earlier in the call: its body is read again with the
    call's arguments as $1, $2, ... and $@."""
    sh = r.sh
    name = cmd.program
    sh.calling.add(name)
    had = sh.vars.get("@")
    r.assign("@", cmd.argv[1:])
    try:
        same_shell(r, cmd, sh.functions[name], key, name)
    finally:
        sh.calling.discard(name)
        r.assign("@", had)


def call_alias(r: Reader, cmd: Command, key: tuple[int, ...]) -> None:
    """A command whose first word is an alias defined earlier in the call: the alias's text
    stands for the word, and the result is read again."""
    from jouet_git.shell.runners import _quote

    sh = r.sh
    name = cmd.argv[0]
    sh.calling.add(name)
    try:
        text = sh.aliases[name] + "".join(" " + _quote(w) for w in cmd.argv[1:])
        same_shell(r, cmd, text, key, name)
    finally:
        sh.calling.discard(name)


def adopt(r: Reader, cmd: Command, kids: list[Command]) -> None:
    """Make kids share cmd's output and input: redirections and pipes of cmd reach them."""
    if not kids:
        return
    sh = r.sh
    sh.children.setdefault(id(cmd), []).extend(kids)
    if id(cmd) in sh.fixed:
        r.mark_stdout(kids, cmd.stdout_to)
    if cmd.stdin_redirected:
        r.mark_stdin(kids, cmd.stdin_from)
    if cmd.background:
        r.mark_background(kids)



def derive(r: Reader, parent: Command, words: list[str], key: tuple[int, ...],
           stdin_args: bool) -> Command | None:
    """A command that parent runs, given as words (find -exec's), read as a nested command."""
    if not words or not r.enter():
        return None
    sh = r.sh
    r.counted()
    try:
        u = unwrap_more(words)
        argv = u.argv
        program = program_name(argv[0]) if argv else ""
        line = " ".join(argv)
        kid = Command(
            words, argv, program, [], [*parent.via, parent.program, *u.via], None, None,
            parent.stdin_redirected, dict(u.env or {}), None, None, True, line[:80], line,
            parent.background, parent.captured,
        )
        kid.stdin_args = stdin_args or u.stdin_args
        kid.chdir = u.chdir
        sh.scopes += 1
        kid.scope = (*parent.scope, sh.scopes)
        kid.origin = parent
        kid.seq = parent.seq
        sh.nested.append((key, kid))
        adopt(r, parent, [kid])
        if (u.script is not None or program in SHELLS or program in OTHER_SHELLS or program in FOLLOW
                or is_interpreter(program)):
            follow(r, kid, u, key, None, -1)
        return kid
    finally:
        sh.depth -= 1


def run_file(r: Reader, cmd: Command, path: str, key: tuple[int, ...]) -> None:
    """Read the script file a shell runs (`bash x.sh`, `source x.sh`), when it may be read."""
    if path in ("/dev/stdin", "-", "/proc/self/fd/0", "/dev/fd/0"):
        r.sh.consumers[id(cmd)] = ("shell", key, None)
        return
    text = r.sh.procsubs.get(path)
    if text is None and cmd.chdir is not False:
        if isinstance(cmd.chdir, str) and not path.startswith("/"):
            path = f"{cmd.chdir}/{path}"
        text = read_file(r, path)
    if text is None:
        return
    if cmd.program in ("source", "."):
        same_shell(r, cmd, text, key, cmd.program)
    else:
        shell_c(r, cmd, text, key)


def source(r: Reader, cmd: Command, key: tuple[int, ...]) -> None:
    """`source FILE` and `. FILE` run the file's commands in this shell."""
    if len(cmd.argv) > 1:
        run_file(r, cmd, cmd.argv[1], key)


def at_job(r: Reader, cmd: Command, key: tuple[int, ...]) -> None:
    """`at TIME` and `batch` run the script they read (or the file given with -f)."""
    argv = cmd.argv
    for k, word in enumerate(argv[1:], 1):
        if word in ("-l", "-d", "-r", "-c", "-q", "-V", "-h", "--help", "--version") or word.startswith("-c"):
            return
        if word == "-f" and k + 1 < len(argv):
            run_file(r, cmd, argv[k + 1], key)
            return
    r.sh.consumers[id(cmd)] = ("shell", key, None)


def executable(r: Reader, cmd: Command, key: tuple[int, ...]) -> None:
    """`./x.sh`: a script written earlier in this call is read (a file on disk is not)."""
    sh = r.sh
    text = sh.files.get(file_key(r, cmd.argv[0]) or "") if sh.files else None
    if text is None:
        return
    first = text.split("\n", 1)[0]
    if first.startswith("#!"):
        words = first[2:].split()
        if words and program_name(words[0]) == "env" and len(words) > 1:
            words = words[1:]
        if not words or program_name(words[0]) not in SHELLS:
            return
    shell_c(r, cmd, text, key)


def file_key(r: Reader, path: str) -> str | None:
    """How a file named in this command is known among the files written earlier in the call:
    its path from the call's directory (None when that cannot be told)."""
    import posixpath

    if not path or "$" in path or "`" in path or path.startswith("~"):
        return None
    if path.startswith("/"):
        return posixpath.normpath(path)
    from jouet_git.shell.workdirs import _lookup

    where = _lookup(r.sh.wheres, r.scope)
    if where is False:
        return None
    base = where if isinstance(where, str) else ""
    if base.startswith(("~", "$HOME", "${HOME}")):
        return None
    return posixpath.normpath(posixpath.join(base, path))


def read_file(r: Reader, path: str) -> str | None:
    """The text of a file a command reads: one written earlier in the call, or a regular
    file of at most MAX_FILE bytes inside the call's directory whose name does not look like it
    holds credentials. None when it is none of these."""
    sh = r.sh
    key = file_key(r, path)
    if key is None:
        return None
    if key in sh.files:
        return sh.files[key]
    if sh.cwd is None or _secret_name(key):
        return None
    if sh.reads >= MAX_READS:
        r.stop(f"too many files: the call runs more than {MAX_READS} script files; split it into "
               "smaller calls")
        return None
    sh.reads += 1
    import os
    import stat

    root = os.path.realpath(sh.cwd)
    full = os.path.realpath(os.path.join(root, key))
    if full != root and not full.startswith(root.rstrip(os.sep) + os.sep):
        return None
    try:
        info = os.stat(full)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE:
            return None
        fd = os.open(full, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            data = os.read(fd, MAX_FILE + 1)
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return None
    if len(data) > MAX_FILE or not r.charge(len(data)):
        return None
    return data.decode("utf-8", "surrogateescape")


_SECRET_PARTS = (".env", "secret", "credential", "token", "password", ".pem", ".key", "id_rsa", "id_dsa",
                 "id_ecdsa", "id_ed25519", ".netrc", ".pgpass", ".npmrc", ".pypirc", ".p12", ".pfx",
                 ".vault", "kubeconfig", ".aws", ".ssh", ".gnupg")


def _secret_name(path: str) -> bool:
    """Whether a path looks like it holds credentials: such a file is never read, so that its
    contents cannot end up in a command jouet records or shows."""
    lowered = path.lower()
    return any(part in lowered for part in _SECRET_PARTS)


# -- feeding commands what they read ------------------------------------------------------


def feed_pipeline(r: Reader, elems: list[Elem]) -> None:
    """Note what the commands of a pipeline read from their input and write to files, to be
    worked out once the here-documents of its line have been read."""
    sh = r.sh
    for k, elem in enumerate(elems):
        cmd = elem.cmd
        if cmd is None:
            continue
        info = sh.consumers.get(id(cmd)) if sh.consumers else None
        if info is not None:
            r.feeds.append((elems, k, info))
        if cmd.stdout_to is not None and cmd.program in PURE:
            r.feeds.append((elems, k, None))
    if r.feeds and not r.pending:
        flush(r)


def flush(r: Reader) -> None:
    feeds = r.feeds
    r.feeds = []
    for elems, k, info in feeds:
        if info is None:
            write(r, elems, k)
        else:
            feed(r, elems, k, info)


def own_input(r: Reader, cmd: Command) -> str | None:
    """What cmd reads from its own redirection: a here-document, a here-string or a file."""
    if cmd.heredocs:
        body = cmd.heredocs[-1]
        text = r.sh.expanded.get(id(body), body)
        if text is None:
            return None
        return text if text.endswith("\n") or not text else text + "\n"
    if cmd.stdin_from is not None:
        return read_file(r, cmd.stdin_from)
    return None


def input_of(r: Reader, elems: list[Elem], k: int) -> str | None:
    """What elems[k] reads: its own redirection, or what the pure commands before it in the
    pipeline print (None when that is not known). Each command's output is worked out once."""
    cmd = elems[k].cmd
    if cmd is None:
        return None
    if cmd.heredocs or cmd.stdin_from is not None:
        return own_input(r, cmd)
    if cmd.stdin_redirected or k == 0:
        return None
    sh = r.sh
    memo = sh.outputs
    # Back to the first command whose input is settled: its own, none, or worked out already.
    j = k - 1
    while j > 0:
        before = elems[j].cmd
        if (before is None or id(before) in memo or before.heredocs or before.stdin_redirected
                or id(before) in sh.consumers or id(before) in sh.unknown):
            break
        j -= 1
    from jouet_git.shell.pure import output

    text: str | None = None
    for m in range(j, k):
        before = elems[m].cmd
        if before is None or id(before) in sh.consumers or id(before) in sh.unknown:
            return None
        key = id(before)
        if key in memo:
            text = memo[key]
        else:
            if before.heredocs or before.stdin_from is not None:
                text = own_input(r, before)
            elif before.stdin_redirected or m == 0:
                text = None
            text = output(before.argv, text, lambda path: read_file(r, path))
            if text is not None and not r.charge(len(text)):
                text = None
            memo[key] = text
        if text is None:
            return None
    return text


def write(r: Reader, elems: list[Elem], k: int) -> None:
    """Remember what a pure command writes to a file, for a later `bash FILE` to read."""
    from jouet_git.shell.pure import output

    cmd = elems[k].cmd
    assert cmd is not None and cmd.stdout_to is not None
    if id(cmd) in r.sh.unknown:
        return
    text = output(cmd.argv, input_of(r, elems, k), lambda path: read_file(r, path))
    if text is None or not r.charge(len(text)):
        return
    targets = [cmd.stdout_to]
    if cmd.program == "tee":
        targets += [a for a in cmd.argv[1:] if not a.startswith("-")]
    for target in targets:
        key = file_key(r, target)
        if key is not None:
            r.sh.files[key] = text


def feed(r: Reader, elems: list[Elem], k: int, info: Consumer) -> None:
    """Give a command that runs what it reads the input it is known to get."""
    kind, key, how = info
    cmd = elems[k].cmd
    assert cmd is not None
    text = input_of(r, elems, k)
    if text is None:
        return
    if kind == "xargs":
        assert how is not None
        fill_xargs(r, cmd, key, how, text)
    elif kind == "shell":
        if cmd.program in ("source", "."):
            same_shell(r, cmd, text, key, cmd.program)
        else:
            shell_c(r, cmd, text, key)
    elif kind == "inline":
        from jouet_git.shell.inline import interpreter

        language = interpreter(cmd.program)
        if language is not None:
            run_inline(r, cmd, key, language, text, {})


def fill_xargs(r: Reader, cmd: Command, key: tuple[int, ...], how: XargsHow, text: str) -> None:
    """Put the arguments xargs reads into the command it runs; each further command xargs
    would make of its input is read as a nested command."""
    replace, split, per, by_lines = how
    if split == "blank":
        items = split_string(text)
        lines = [split_string(line) for line in text.split("\n") if line.strip()] if by_lines else []
    elif split == "line":
        items = [line.lstrip(" \t") for line in text.split("\n") if line.strip(" \t")]
        lines = [[item] for item in items]
    else:
        sep = "\0" if split == "nul" else split
        items = text.split(sep)
        if items and items[-1] in ("", "\n"):
            items.pop()
        lines = [[item] for item in items]
    chunks: list[list[str]]
    if replace is not None:
        chunks = [[item] for item in items]
    elif by_lines:
        step = per or 1
        chunks = [[w for line in lines[j : j + step] for w in line] for j in range(0, len(lines), step)]
    elif per:
        chunks = [items[j : j + per] for j in range(0, len(items), per)]
    else:
        chunks = [items]
    template = list(cmd.argv)
    for n, chunk in enumerate(chunks):
        if r.sh.stopped:
            return
        if replace is not None:
            argv = [w.replace(replace, chunk[0]) for w in template]
        else:
            argv = template + chunk
        if not r.charge(sum(len(w) + 1 for w in argv)):
            return
        if n == 0:
            target = cmd
            cmd.argv = argv
            drop(r, cmd)
        else:
            r.counted()
            target = Command(argv, argv, "", [], list(cmd.via), None, cmd.stdout_to,
                             cmd.stdin_redirected, dict(cmd.env), None, None, True, "", "",
                             cmd.background, cmd.captured)
            target.scope = cmd.scope
            target.origin = cmd.origin
            target.chdir = cmd.chdir
            target.seq = cmd.seq
            r.sh.nested.append(((*key, n), target))
            adopt(r, cmd, [target])
        target.program = program_name(argv[0]) if argv else ""
        target.line = " ".join(argv)
        target.text = target.line[:80]
        target.stdin_args = False
        if target.program in SHELLS or target.program in OTHER_SHELLS or target.program in FOLLOW:
            follow(r, target, None, (*key, n), None, -1)


def drop(r: Reader, cmd: Command) -> None:
    """Forget the commands read from what cmd ran before its arguments were filled in."""
    sh = r.sh
    kids = sh.children.pop(id(cmd), None)
    while kids:
        more: list[Command] = []
        for kid in kids:
            sh.dropped.add(id(kid))
            more.extend(sh.children.pop(id(kid), ()))
        kids = more


def find_exec(r: Reader, cmd: Command, key: tuple[int, ...]) -> None:
    from jouet_git.shell.runners import find_execs, find_roots

    for k, (words, filled, elsewhere) in enumerate(find_execs(cmd.argv)):
        kid = derive(r, cmd, words, (*key, k), filled)
        if kid is not None and elsewhere:
            # -execdir runs in each file's directory, somewhere under the starting point: in its
            # repository when there is one starting point, nowhere that can be told otherwise.
            roots = find_roots(cmd.argv)
            root = roots[0] if len(roots) == 1 and "$" not in roots[0] and "`" not in roots[0] else None
            kid.chdir = root if root is not None else False


def fd_exec(r: Reader, cmd: Command, key: tuple[int, ...]) -> None:
    from jouet_git.shell.runners import fd_execs

    for k, words in enumerate(fd_execs(cmd.argv)):
        derive(r, cmd, words, (*key, k), True)


def parallel(r: Reader, cmd: Command, key: tuple[int, ...]) -> None:
    from jouet_git.shell.runners import parallel_scripts

    got = parallel_scripts(cmd.argv)
    if got is None:
        return
    scripts, unknown = got
    for k, script in enumerate(scripts):
        saved = r.child(cmd)
        try:
            kids = r.sub(script, captured=cmd.captured, spans=False, base=0, pmap=None,
                            prefix=(*key, k), seq=cmd.seq, chain=[*cmd.via, cmd.program], origin=cmd)
        finally:
            r.restore(saved)
        if unknown:
            for kid in kids:
                kid.stdin_args = True
        adopt(r, cmd, kids)


FOLLOW: dict[str, Callable[[Reader, Command, tuple[int, ...]], None]] = {
    "source": source,
    "eval": evaluate,
    ".": source,
    "at": at_job,
    "batch": at_job,
    "find": find_exec,
    "gfind": find_exec,
    "fd": fd_exec,
    "fdfind": fd_exec,
    "parallel": parallel,
}
