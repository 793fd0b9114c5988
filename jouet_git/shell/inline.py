"""Commands that inline programs run: `python -c`, `python - <<EOF`, `node -e`, `perl -e`, `ruby -e`,
`php -r`, awk programs and `lua -e`. The program is read, never run: literal command strings handed
to the language's ways of running a command (os.system, subprocess.*, child_process.*, system,
backticks...) are found, as shell scripts (a string run by a shell) or as argv lists.

Python is read with the standard library's `ast`, imported here only (this module is imported by
the reader only when an interpreter appears). The other languages are read by a small scanner that
knows their strings, comments and calls (scan.py). Simple variables given a literal earlier in the same
program are followed (`cmd = "git reset --hard"; os.system(cmd)`); anything else (a value computed
at run time) is kept as an unknown word, written `$__unknown`.

The files a program reads are found the same way (`reads`): literal paths handed to the language's
ways of opening or reading a file (open, pathlib's read_text, fs.readFileSync, File.read,
file_get_contents, perl's open for reading, awk's `getline < "file"`...), and the file operands of
a program that reads its arguments (sys.argv[1], perl -n/-p or `<>`, ruby's ARGF). A path opened
only for writing is not a read.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    # What a program runs: ("shell", script) for a string handed to a shell, ("argv", words) for
    # an argument list run directly.
    Found = tuple[str, str | list[str]]

UNKNOWN = "$__unknown"
# Programs longer than this are not read (the caller also counts them against its budget).
MAX_CODE = 256 * 1024

_PYTHONS = frozenset({"python", "python2", "python3", "pypy", "pypy3", "py"})
INTERPRETERS = frozenset({
    *_PYTHONS, "node", "nodejs", "deno", "bun", "perl", "ruby", "php", "awk", "gawk", "mawk", "nawk",
    "lua", "luajit",
})


def interpreter(program: str) -> str | None:
    """The language a program runs (python3.12 is python), or None."""
    base = program.rstrip("0123456789.") if program[:2] in ("py", "pe", "ru", "ph", "lu") else program
    if base in _PYTHONS or program.startswith("python"):
        return "python"
    if base in ("node", "nodejs", "deno", "bun"):
        return "js"
    if base in ("perl", "ruby", "php", "lua", "luajit"):
        return "lua" if base == "luajit" else base
    if base in ("awk", "gawk", "mawk", "nawk"):
        return "awk"
    return None


def source(language: str, argv: list[str]) -> tuple[str, str | None, dict[str, str]]:
    """Where argv's program text comes from: ("code", text, presets), ("stdin", None, presets),
    ("file", path, presets) or ("none", None, {}). presets: variables the command line sets (awk -v)."""
    how = _SOURCES[language]
    return how(argv)


def _python_source(argv: list[str]) -> tuple[str, str | None, dict[str, str]]:
    i = 1
    n = len(argv)
    while i < n:
        word = argv[i]
        if word == "-":
            return "stdin", None, {}
        if word == "--" or not word.startswith("-") or len(word) < 2:
            break
        if word.startswith("--"):
            if word in ("--help", "--version"):
                return "none", None, {}
            i += 1
            continue
        k = 1
        while k < len(word):
            letter = word[k]
            if letter == "c":
                code = word[k + 1 :] or (argv[i + 1] if i + 1 < n else None)
                return ("code", code, {}) if code is not None else ("none", None, {})
            if letter == "m":
                return "none", None, {}  # a module: its code is not in the call
            if letter in "WXQ":
                if k + 1 == len(word):
                    i += 1
                break
            k += 1
        i += 1
    if i < n and argv[i] == "--":
        i += 1
    if i >= n:
        return "stdin", None, {}
    return "file", argv[i], {}


def _js_source(argv: list[str]) -> tuple[str, str | None, dict[str, str]]:
    program = argv[0].rpartition("/")[2]
    i = 1
    n = len(argv)
    if program.startswith(("deno", "bun")) and i < n and argv[i] in ("eval", "-e"):
        return ("code", argv[i + 1], {}) if i + 1 < n else ("none", None, {})
    if program.startswith("deno") and i < n and argv[i] == "run":
        i += 1
    while i < n:
        word = argv[i]
        if word == "-":
            return "stdin", None, {}
        if word in ("-e", "--eval", "-p", "--print", "-pe", "-ep"):
            return ("code", argv[i + 1], {}) if i + 1 < n else ("none", None, {})
        if word.startswith(("--eval=", "--print=")):
            return "code", word.partition("=")[2], {}
        if word in ("-v", "--version", "-h", "--help", "-i", "--interactive"):
            return "none", None, {}
        if not word.startswith("-"):
            return "file", word, {}
        if word in ("-r", "--require", "--import", "--loader", "--env-file", "-C", "--conditions"):
            i += 1
        i += 1
    return "stdin", None, {}


def _perl_like_source(argv: list[str], code_letters: str, value_letters: str) -> tuple[str, str | None, dict[str, str]]:
    """perl and ruby: -e CODE (several are joined by newlines), else a script operand or stdin."""
    codes: list[str] = []
    i = 1
    n = len(argv)
    while i < n:
        word = argv[i]
        if word == "--":
            i += 1
            break
        if word == "-":
            return "stdin", None, {}
        if not word.startswith("-") or len(word) < 2:
            break
        if word.startswith("--"):
            if word in ("--help", "--version"):
                return "none", None, {}
            i += 1
            continue
        k = 1
        took = False
        while k < len(word):
            letter = word[k]
            if letter in code_letters:
                rest = word[k + 1 :]
                if rest:
                    codes.append(rest)
                elif i + 1 < n:
                    codes.append(argv[i + 1])
                    took = True
                break
            if letter in value_letters:
                if k + 1 == len(word):
                    took = True
                break
            if letter in "0lC":
                # An optional number attached (`-l`, `-0777`, `-CSD`): then more options.
                k += 1
                while k < len(word) and (word[k].isdigit() or (letter == "C" and word[k].isalpha()
                                                              and word[k] in "IOEioSDAL")):
                    k += 1
                continue
            if letter in "iFdDx":
                break  # the rest of the word is this option's value (`-pi.bak`, `-F:`)
            k += 1
        i += 2 if took else 1
    if codes:
        return "code", "\n".join(codes), {}
    if i >= n:
        return "stdin", None, {}
    return "file", argv[i], {}


def _perl_source(argv: list[str]) -> tuple[str, str | None, dict[str, str]]:
    return _perl_like_source(argv, "eE", "IMm")


def _ruby_source(argv: list[str]) -> tuple[str, str | None, dict[str, str]]:
    return _perl_like_source(argv, "e", "IrCEF")


def _php_source(argv: list[str]) -> tuple[str, str | None, dict[str, str]]:
    codes: list[str] = []
    i = 1
    n = len(argv)
    while i < n:
        word = argv[i]
        if word in ("-r", "-B", "-R", "-E") and i + 1 < n:
            codes.append(argv[i + 1])
            i += 2
            continue
        if word in ("-v", "-h", "-i", "-m", "-a", "--version", "--help"):
            return "none", None, {}
        if word in ("-c", "-d", "-z", "-t", "-S", "-F"):
            i += 2
            continue
        if word == "--":
            i += 1
            break
        if not word.startswith("-") or word == "-":
            break
        i += 1
    if codes:
        # -r code has no <?php tag; the scanner reads it the same way.
        return "code", "\n".join(codes), {}
    if i >= n or argv[i] == "-":
        return "stdin", None, {}
    return "file", argv[i], {}


def _awk_source(argv: list[str]) -> tuple[str, str | None, dict[str, str]]:
    presets: dict[str, str] = {}
    i = 1
    n = len(argv)
    while i < n:
        word = argv[i]
        if word == "--":
            i += 1
            break
        if word in ("-f", "--file") and i + 1 < n:
            return "file", argv[i + 1], presets
        if word in ("-e", "--source") and i + 1 < n:
            return "code", argv[i + 1], presets
        if word in ("-v", "--assign") and i + 1 < n:
            name, eq, value = argv[i + 1].partition("=")
            if eq:
                presets[name] = value
            i += 2
            continue
        if word.startswith("-v") and len(word) > 2:
            name, eq, value = word[2:].partition("=")
            if eq:
                presets[name] = value
            i += 1
            continue
        if word in ("-F", "-i", "-l", "-E", "--field-separator", "--include", "--load") and i + 1 < n:
            i += 2
            continue
        if word in ("--version", "--help", "-V"):
            return "none", None, {}
        if not word.startswith("-") or word == "-":
            break
        i += 1
    if i >= n:
        return "none", None, {}
    return "code", argv[i], presets


def _lua_source(argv: list[str]) -> tuple[str, str | None, dict[str, str]]:
    codes = [argv[k + 1] for k in range(1, len(argv) - 1) if argv[k] == "-e"]
    if codes:
        return "code", "\n".join(codes), {}
    operands = [w for w in argv[1:] if not w.startswith("-")]
    if not operands or operands[0] == "-":
        return "stdin", None, {}
    return "file", operands[0], {}


_SOURCES = {
    "python": _python_source, "js": _js_source, "perl": _perl_source, "ruby": _ruby_source,
    "php": _php_source, "awk": _awk_source, "lua": _lua_source,
}


def commands(language: str, code: str, presets: dict[str, str] | None = None) -> list[Found]:
    """The commands a program in language runs, as far as its text says."""
    return inspect(language, code, presets)[0]


def inspect(language: str, code: str, presets: dict[str, str] | None = None,
            operands: list[str] | None = None) -> tuple[list[Found], list[str]]:
    """The commands a program in language runs and the files it reads, as far as its text says.
    operands: the words after the program on its command line (its arguments)."""
    if len(code) > MAX_CODE:
        return [], []
    if language == "python":
        if code.isascii() and not any(name in code for name in _PY_CALLED):
            # A call the reader knows holds its last name as written (`subprocess.run`, `open`,
            # `Path(p).read_text`), or names it in the import that renames it (`from os import system
            # as s`): none here, nothing to find, and ast is not imported (`python3 -c 'import sys;
            # print(sys.version)'`). Not ASCII: Python reads `ｏｐｅｎ` as open.
            return [], []
        reader = _python_reader(code, 0, operands or [])
        return (reader.found, reader.reads) if reader is not None else ([], [])
    from jouet_git.shell.scan import Scanner

    scanner = Scanner(language, code, presets or {}, operands or [])
    try:  # noqa: SIM105 - contextlib stays off the hook path
        scanner.run()
    except RecursionError:  # arrays nested thousands deep: what was found so far
        pass
    return scanner.found, scanner.reads


# -- Python, with ast ------------------------------------------------------------------------------

# Functions that hand a string to the shell.
_PY_SHELL = frozenset({
    "os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput", "commands.getoutput",
    "commands.getstatusoutput", "asyncio.create_subprocess_shell", "popen2.popen2", "os.popen2",
    "os.popen3", "os.popen4",
})
# Functions whose first argument is a string (shell=True) or an argv list.
_PY_RUN = frozenset({
    "subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
    "subprocess.Popen",
})


# Functions whose first argument is a file they read (open's mode is looked at), and pathlib's methods
# that read the file of the path they are called on.
_PY_OPEN = frozenset({"open", "io.open", "builtins.open", "codecs.open", "os.open", "gzip.open", "bz2.open",
                      "lzma.open", "tokenize.open", "io.FileIO"})
_PY_READ_FIRST = frozenset({
    "shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copyfileobj", "fileinput.input",
    "linecache.getlines", "linecache.getline", "dotenv.dotenv_values", "dotenv.main.dotenv_values",
    "netrc.netrc",
})
_PY_PATHS = frozenset({"pathlib.Path", "pathlib.PosixPath", "pathlib.PurePath", "pathlib.PurePosixPath"})
_PY_PATH_READS = frozenset({"read_text", "read_bytes", "open"})
_WRITE_MODE = frozenset("wax")
# The last names of every call the reader looks at (_PyReader.call and read_call): a program that
# makes such a call holds one of them, at the call or in the import that gives it another name.
_PY_CALLED = tuple(sorted(
    {name.rpartition(".")[2] for name in _PY_SHELL | _PY_RUN | _PY_OPEN | _PY_READ_FIRST} | _PY_PATH_READS
    | {"exec", "spawn", "eval", "dotenv_values"}))


def _python_reader(code: str, depth: int, operands: list[str]) -> _PyReader | None:
    import ast

    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    reader = _PyReader(depth)
    reader.argv = ["-c", *operands]
    try:  # noqa: SIM105 - contextlib stays off the hook path
        reader.block(tree.body)
    except RecursionError:  # nested thousands deep: what was found so far
        pass
    return reader


class _PyReader:
    """Walks a Python program in order, following simple assignments of literals."""

    def __init__(self, depth: int) -> None:
        self.names: dict[str, str] = {}  # local name -> dotted name it stands for (imports)
        self.values: dict[str, Any] = {}  # variable -> str or list[str] known value
        self.found: list[Found] = []
        self.depth = depth
        self.reads: list[str] = []  # literal paths the program reads
        self.argv: list[str] = []  # sys.argv, when the command line says

    def block(self, body: list[Any]) -> None:
        import ast

        for node in body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    top = alias.name.split(".")[0]
                    self.names[alias.asname or top] = alias.name if alias.asname else top
            elif isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    self.names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                value = node.value
                if value is not None:
                    self.visit(value)
                    got = self.value(value)
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        if isinstance(target, ast.Name):
                            if got is None:
                                self.values.pop(target.id, None)
                            else:
                                self.values[target.id] = got
                continue
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                self.visit(node.value)
                old = self.values.get(node.target.id)
                new = self.value(node.value)
                if isinstance(node.op, ast.Add) and old is not None and new is not None and type(old) is type(new):
                    self.values[node.target.id] = old + new
                else:
                    self.values.pop(node.target.id, None)
                continue
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    self.block([child])
                else:
                    self.visit(child)

    def visit(self, node: Any) -> None:
        """Look for calls in an expression (and the statements inside lambdas and the like)."""
        import ast

        stack = [node]
        while stack:
            item = stack.pop()
            if isinstance(item, ast.Call):
                self.call(item)
            stack.extend(ast.iter_child_nodes(item))

    def dotted(self, node: Any) -> str | None:
        import ast

        if isinstance(node, ast.Name):
            return self.names.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value)
            return None if base is None else f"{base}.{node.attr}"
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__import__"
                and node.args):
            got = self.value(node.args[0])
            return got if isinstance(got, str) else None
        return None

    def call(self, node: Any) -> None:
        import ast

        self.read_call(node)
        name = self.dotted(node.func)
        if name is None:
            return
        args = node.args
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        first = args[0] if args else keywords.get("args") or keywords.get("cmd")
        if name in _PY_SHELL:
            if first is not None:
                self.add_shell(self.value(first, text=True))
        elif name in _PY_RUN:
            if first is None:
                return
            shell = keywords.get("shell")
            is_shell = isinstance(shell, ast.Constant) and bool(shell.value)
            got = self.value(first, text=True)
            if isinstance(got, list):
                if is_shell:
                    self.add_shell(got[0] if got else None)
                else:
                    self.add_argv(got)
            elif is_shell:
                self.add_shell(got)
            elif isinstance(got, str):
                self.add_argv([got])
        elif name.startswith(("os.exec", "os.spawn", "os.posix_spawn")):
            self.exec_like(name, args)
        elif name in ("pty.spawn", "asyncio.create_subprocess_exec"):
            values = [self.value(a, text=True) for a in args]
            if name == "pty.spawn" and values and isinstance(values[0], list):
                self.add_argv(values[0])
            else:
                self.add_argv([v if isinstance(v, str) else UNKNOWN for v in values])
        elif name in ("exec", "eval", "builtins.exec", "builtins.eval") and args and self.depth < 4:
            got = self.value(args[0])
            if isinstance(got, str):
                inner = _python_reader(got, self.depth + 1, self.argv[1:])
                if inner is not None:
                    self.found.extend(inner.found)
                    self.reads.extend(inner.reads)

    def read_call(self, node: Any) -> None:
        """Note the file a call reads, when it is a literal (or a variable holding one)."""
        import ast

        func = node.func
        args = node.args
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        if isinstance(func, ast.Attribute) and func.attr in _PY_PATH_READS:
            # Path('.env').read_text(), (Path.home() / '.netrc').open()
            path = self.path_value(func.value)
            if path is not None:
                mode = args[0] if args and func.attr == "open" else keywords.get("mode")
                if not self.writes_only(mode):
                    self.reads.append(path)
                return
        name = self.dotted(func)
        if name is None:
            return
        first = args[0] if args else keywords.get("file") or keywords.get("src") or keywords.get("path")
        if first is None:
            return
        if name in _PY_OPEN:
            mode = args[1] if len(args) > 1 else keywords.get("mode") or keywords.get("flags")
            if name == "os.open":
                if mode is not None and self.os_flags_write(mode):
                    return
            elif self.writes_only(mode):
                return
        elif name not in _PY_READ_FIRST and name.rpartition(".")[2] != "dotenv_values":
            return
        got = self.path_value(first)
        if got is not None:
            self.reads.append(got)

    def writes_only(self, mode: Any) -> bool:
        """Whether open's MODE opens for writing only ("w", "a", "x" without "+")."""
        got = self.value(mode) if mode is not None else None
        return isinstance(got, str) and bool(_WRITE_MODE & set(got)) and "+" not in got

    def os_flags_write(self, flags: Any) -> bool:
        import ast

        names = {n.attr for n in ast.walk(flags) if isinstance(n, ast.Attribute)}
        return bool(names & {"O_WRONLY", "O_CREAT", "O_TRUNC", "O_APPEND"}) and "O_RDWR" not in names

    def path_value(self, node: Any) -> str | None:
        """The path an expression names: a literal string, a variable holding one, Path(...) of
        one, `/` joins of those, Path.home() (as ~), sys.argv[N] given on the command line."""
        import ast

        if isinstance(node, ast.Call):
            name = self.dotted(node.func)
            if name is not None and (name in _PY_PATHS or name.endswith((".Path", ".home"))):
                if name.endswith(".home") and not node.args:
                    return "~"
                if len(node.args) == 1:
                    return self.path_value(node.args[0])
                return None
            if name in ("os.path.expanduser", "str", "os.fspath") and len(node.args) == 1:
                return self.path_value(node.args[0])
            if name == "os.path.join" and node.args:
                parts = [self.path_value(a) for a in node.args]
                return "/".join(p for p in parts if p is not None) if all(p is not None for p in parts) else None
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("expanduser", "resolve", "absolute"):
                return self.path_value(node.func.value)
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            left, right = self.path_value(node.left), self.path_value(node.right)
            if left is None or right is None:
                return None
            return right if right.startswith("/") else f"{left.rstrip('/')}/{right}"
        if isinstance(node, ast.Subscript) and self.dotted(node.value) == "sys.argv":
            index = node.slice
            if isinstance(index, ast.Constant) and isinstance(index.value, int) and 0 < index.value < len(self.argv):
                return self.argv[index.value]
            return None
        got = self.value(node)
        if isinstance(got, str) and got and UNKNOWN not in got:
            return got
        return None

    def exec_like(self, name: str, args: list[Any]) -> None:
        tail = name.rpartition(".")[2]
        offset = 1 if tail.startswith("spawn") else 0
        values = [self.value(a, text=True) for a in args[offset:]]
        if not values or not isinstance(values[0], str):
            return
        program = values[0]
        if tail.startswith("posix_spawn") or tail.endswith(("v", "ve", "vp", "vpe")):
            argv = values[1] if len(values) > 1 and isinstance(values[1], list) else None
            if argv is None:
                self.add_argv([program])
                return
            self.add_argv([program, *argv[1:]])
            return
        rest = values[2:]
        if tail.endswith("e"):
            rest = rest[:-1]  # the environment
        self.add_argv([program, *(v if isinstance(v, str) else UNKNOWN for v in rest)])

    def add_shell(self, script: Any) -> None:
        if isinstance(script, str):
            self.found.append(("shell", script))

    def add_argv(self, argv: list[Any]) -> None:
        words = [w if isinstance(w, str) else UNKNOWN for w in argv]
        if words:
            self.found.append(("argv", words))

    def value(self, node: Any, text: bool = False) -> Any:
        """A str or list[str] the expression is known to give; with text, unknown parts become
        UNKNOWN rather than making the whole unknown."""
        import ast

        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                return node.value
            if isinstance(node.value, bytes):
                return node.value.decode("utf-8", "surrogateescape")
            if text and isinstance(node.value, (int, float)):
                return str(node.value)
            return None
        if isinstance(node, ast.Name):
            got = self.values.get(node.id)
            return UNKNOWN if got is None and text else got
        if isinstance(node, ast.JoinedStr):
            parts: list[str] = []
            for piece in node.values:
                if isinstance(piece, ast.Constant) and isinstance(piece.value, str):
                    parts.append(piece.value)
                elif isinstance(piece, ast.FormattedValue) and piece.format_spec is None:
                    got = self.value(piece.value, text)
                    if not isinstance(got, str):
                        if not text:
                            return None
                        got = UNKNOWN
                    parts.append(got)
                elif text:
                    parts.append(UNKNOWN)
                else:
                    return None
            return "".join(parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = self.value(node.left, text)
            right = self.value(node.right, text)
            if isinstance(left, str) and isinstance(right, str):
                return left + right
            if isinstance(left, list) and isinstance(right, list):
                return left + right
            return UNKNOWN if text else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            fmt = self.value(node.left)
            if isinstance(fmt, str):
                values = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
                got = [self.value(v, text) for v in values]
                if all(isinstance(g, str) for g in got):
                    try:
                        return fmt % tuple(got)
                    except (TypeError, ValueError):
                        return None
            return UNKNOWN if text else None
        if isinstance(node, (ast.List, ast.Tuple)):
            items: list[str] = []
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    got = self.value(element.value)
                    if isinstance(got, list):
                        items.extend(got)
                        continue
                    if not text:
                        return None
                    items.append(UNKNOWN)
                    continue
                got = self.value(element, text)
                if not isinstance(got, str):
                    if not text:
                        return None
                    got = UNKNOWN
                items.append(got)
            return items
        if isinstance(node, ast.Call):
            return self.call_value(node, text)
        return UNKNOWN if text else None

    def call_value(self, node: Any, text: bool) -> Any:
        import ast

        func = node.func
        name = self.dotted(func)
        args = node.args
        if isinstance(func, ast.Attribute):
            owner = self.value(func.value)
            if isinstance(owner, str):
                if func.attr == "join" and args:
                    items = self.value(args[0], text)
                    if isinstance(items, list):
                        return owner.join(items)
                if func.attr == "split" and not args:
                    return owner.split()
                if func.attr == "format":
                    values = [self.value(a) for a in args]
                    if all(isinstance(v, str) for v in values):
                        try:
                            return owner.format(*values)
                        except (IndexError, KeyError, ValueError):
                            return None
                if func.attr in ("strip", "lower", "upper") and not args:
                    return getattr(owner, func.attr)()
                if func.attr == "replace" and len(args) == 2:
                    a, b = self.value(args[0]), self.value(args[1])
                    if isinstance(a, str) and isinstance(b, str):
                        return owner.replace(a, b)
        if name in ("shlex.split",) and args:
            got = self.value(args[0])
            if isinstance(got, str):
                from jouet_git.shell.wrappers import split_string

                return split_string(got)
        if name in ("shlex.join",) and args:
            got = self.value(args[0], text)
            if isinstance(got, list):
                return " ".join(_quote(w) for w in got)
        if name in ("shlex.quote", "pipes.quote", "str") and args:
            got = self.value(args[0], text)
            if isinstance(got, str):
                return _quote(got) if name != "str" else got
        if name in ("list", "tuple") and args:
            return self.value(args[0], text)
        if name in ("bytes.fromhex",) and args:
            got = self.value(args[0])
            if isinstance(got, str):
                try:
                    return bytes.fromhex(got).decode("utf-8", "surrogateescape")
                except ValueError:
                    return None
        if name in ("base64.b64decode", "base64.standard_b64decode") and args:
            got = self.value(args[0])
            if isinstance(got, str):
                import binascii

                try:
                    return binascii.a2b_base64(got.encode()).decode("utf-8", "surrogateescape")
                except (binascii.Error, ValueError):
                    return None
        if isinstance(func, ast.Attribute) and func.attr == "decode":
            return self.value(func.value, text)
        return UNKNOWN if text else None


def _quote(word: str) -> str:
    if word and all(c.isalnum() or c in "@%+=:,./-_" for c in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"
