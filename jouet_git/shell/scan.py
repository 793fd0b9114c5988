"""A scanner for programs in perl, ruby, php, awk, lua and JavaScript (node, deno, bun): it finds the
literal commands they hand to the language's ways of running one, for inline.py.

It knows each language's strings (with escapes and interpolation of known variables), comments,
concatenation and calls; it follows `NAME = literal` assignments (my/local/const/let/var
included). It never runs anything and reads each character a bounded number of times.
"""

from __future__ import annotations

import re

from jouet_git.shell.inline import UNKNOWN

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.shell.inline import Found


# Per language: the calls that run a shell string ("shell"), a string or an argument list like
# Perl's system ("list": one argument is a shell string, several an argv), an argv given as a
# program and an array ("file-args"), or an array ("array").
_CALLS: dict[str, dict[str, str]] = {
    "perl": {"system": "list", "exec": "list", "readpipe": "shell"},
    "ruby": {"system": "list", "exec": "list", "spawn": "list", "IO.popen": "list", "popen": "list",
             "Open3.capture2": "list", "Open3.capture2e": "list", "Open3.capture3": "list",
             "Open3.popen3": "list", "Open3.popen2": "list", "Open3.pipeline": "list",
             "Kernel.system": "list", "Kernel.exec": "list", "Process.spawn": "list", "PTY.spawn": "list"},
    "php": {"system": "shell", "exec": "shell", "shell_exec": "shell", "passthru": "shell", "popen": "shell",
            "proc_open": "list", "pcntl_exec": "file-args"},
    "awk": {"system": "shell"},
    "lua": {"os.execute": "shell", "io.popen": "shell"},
    "js": {"exec": "shell", "execSync": "shell", "spawn": "file-args", "spawnSync": "file-args",
           "execFile": "file-args", "execFileSync": "file-args", "Bun.spawn": "array", "Bun.spawnSync": "array",
           "Deno.run": "object-cmd", "Deno.Command": "file-object"},
}
# Per language: the calls that read a file named by their first argument, with the index of the
# argument that gives the mode (-1: none; the file is read whatever the mode says otherwise).
_READS: dict[str, dict[str, int]] = {
    "js": {"readFileSync": -1, "readFile": -1, "createReadStream": -1, "readTextFile": -1,
           "readTextFileSync": -1, "readFileStr": -1, "copyFileSync": -1, "copyFile": -1, "cpSync": -1,
           "Bun.file": -1, "openSync": 1, "open": 1},
    "ruby": {"File.read": -1, "IO.read": -1, "File.readlines": -1, "IO.readlines": -1, "File.foreach": -1,
             "IO.foreach": -1, "File.binread": -1, "IO.binread": -1, "File.open": 1, "File.new": 1,
             "FileUtils.cp": -1, "FileUtils.copy": -1, "FileUtils.copy_file": -1, "Pathname.new": -1,
             "Dotenv.load": -1, "Dotenv.parse": -1, "YAML.load_file": -1, "JSON.load_file": -1, "open": 1},
    "php": {"file_get_contents": -1, "file": -1, "readfile": -1, "parse_ini_file": -1, "fopen": 1,
            "copy": -1, "highlight_file": -1, "show_source": -1, "SplFileObject": 1},
    "lua": {"io.open": 1, "io.lines": -1},
    "perl": {"read_file": -1, "File::Slurp::read_file": -1, "read_text": -1, "path": -1, "copy": -1,
             "File::Copy::copy": -1},
    "awk": {},
}
# Code that reads the program's file operands (perl and ruby: `<>`, ARGV, ARGF; js: process.argv).
_OPERANDS = {
    "perl": re.compile(r"<\s*(?:ARGV|STDIN)?\s*>|\$ARGV\b|@ARGV|\bARGV\b"),
    "ruby": re.compile(r"\bARGF\b|\bARGV\b|\$<|\bgets\b|\breadlines\b"),
    "js": re.compile(r"process\.argv"),
    "php": re.compile(r"\$argv\b"),
    "lua": re.compile(r"\barg\s*\["),
    "awk": re.compile(r"(?!)"),
}
_CONCAT = {"perl": ".", "php": ".", "ruby": "+", "js": "+", "lua": "..", "awk": ""}
_COMMENTS = {"perl": ("#",), "ruby": ("#",), "awk": ("#",), "php": ("#", "//", "/*"), "js": ("//", "/*"),
             "lua": ("--",)}
_IDENT = re.compile(r"[A-Za-z_$@][A-Za-z0-9_$]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*")
_ESC = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", "'": "'", '"': '"', "`": "`", "$": "$",
        "e": "\x1b", "a": "\a"}


_CHILD_PROCESS = re.compile(
    r"""(?:(?:const|let|var)\s+)?(\w+)\s*=\s*require\(\s*['"](?:node:)?child_process['"]\s*\)"""
    r"""|import\s+(?:\*\s+as\s+)?(\w+)\s+from\s+['"](?:node:)?child_process['"]""")
_JS_RUNNERS = frozenset({"exec", "execSync", "spawn", "spawnSync", "execFile", "execFileSync"})
_INTERPOLATED = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


class Scanner:
    """Reads a program of one of the other languages for the calls in _CALLS, backticks (perl,
    ruby, php), qx// and %x(), perl's open with a pipe, awk's pipes, and Bun's $`...`."""

    def __init__(self, language: str, code: str, presets: dict[str, str], operands: list[str] | None = None) -> None:
        self.lang = language
        self.reads: list[str] = []  # literal paths the program reads
        self.read_calls = _READS[language]
        if operands and _OPERANDS[language].search(code):
            self.reads.extend(operands)
        self.s = code
        self.n = len(code)
        self.i = 0
        self.values: dict[str, Any] = dict(presets)
        self.found: list[Found] = []
        self.calls = _CALLS[language]
        self.last: Any = None  # the value of the last string or variable read (awk's `x | getline`)
        self.owners = {"child_process", "cp", "childProcess"}
        if language == "js":
            for m in _CHILD_PROCESS.finditer(code):
                self.owners.add(m.group(1) or m.group(2))

    def run(self) -> list[Found]:
        s = self.s
        n = self.n
        while self.i < n:
            i = self.i
            c = s[i]
            if self.comment():
                continue
            if c in "'\"" or (c == "`" and self.lang == "js"):
                self.last = self.string()
                continue
            if c == "`" and self.lang in ("perl", "ruby", "php"):
                self.found.append(("shell", self.string()))
                continue
            if c == "%" and self.lang == "ruby" and s.startswith("%x", i):
                self.i = i + 2
                self.found.append(("shell", self.delimited(interpolate=True)))
                continue
            if c == "|" and self.lang == "awk":
                self.awk_pipe()
                continue
            if c == "[" and self.lang == "lua" and s.startswith(("[[", "[=["), i):
                self.last = self.long_string()
                continue
            m = _IDENT.match(s, i)
            if m is None:
                self.i = i + 1
                continue
            name = m.group()
            self.i = m.end()
            if self.lang == "perl" and name in ("qx", "q", "qq", "qw") and self.i < n and not s[self.i].isalnum() \
                    and s[self.i] not in " =,;)":
                got = self.delimited(interpolate=name != "q")
                if name == "qx":
                    self.found.append(("shell", got))
                continue
            if self.lang == "js" and name in ("$", "Bun.$") and self.i < n and s[self.i] == "`":
                self.found.append(("shell", self.string()))
                continue
            if self.assignment(name):
                continue
            self.last = self.values.get(name)
            kind = self.kind(name, i)
            if kind is not None:
                self.call(kind)
            elif self.lang == "awk" and name == "getline":
                self.awk_getline()
            elif self.read_calls:
                self.read_call(name)
        return self.found

    def kind(self, name: str, at: int) -> str | None:
        """What the call of name at `at` does, or None when it runs nothing."""
        if self.lang == "perl" and name == "open":
            return "perl-open"
        if self.lang != "js":
            return self.calls.get(name)
        if name in self.calls and "." in name:
            return self.calls[name]
        owner, _, base = name.rpartition(".")
        if base not in _JS_RUNNERS:
            return None
        if owner:
            return self.calls[base] if owner.split(".")[-1] in self.owners else None
        if at > 0 and self.s[at - 1] == ".":
            # require("child_process").execSync(...); not some_regexp.exec(...)
            return self.calls[base] if "child_process" in self.s[max(0, at - 40) : at] else None
        return self.calls[base]

    # -- pieces of text

    def comment(self) -> bool:
        s = self.s
        i = self.i
        for mark in _COMMENTS[self.lang]:
            if s.startswith(mark, i):
                if mark == "#" and self.lang == "perl" and i > 0 and s[i - 1] == "$":
                    return False  # $#array
                if mark == "#" and self.lang == "ruby" and i > 0 and s[i - 1] == "{":
                    return False
                if mark == "/*":
                    j = s.find("*/", i + 2)
                    self.i = self.n if j < 0 else j + 2
                elif mark == "--" and s.startswith(("--[[", "--[=["), i):
                    j = s.find("]]", i)
                    self.i = self.n if j < 0 else j + 2
                else:
                    j = s.find("\n", i)
                    self.i = self.n if j < 0 else j + 1
                return True
        return False

    def string(self) -> str:
        """Read the string literal at i: its value, interpolations not known written UNKNOWN."""
        s = self.s
        quote = s[self.i]
        i = self.i + 1
        out: list[str] = []
        raw = quote == "'" and self.lang in ("perl", "php", "ruby")
        interpolate = (quote in ('"', "`") and self.lang in ("perl", "php", "ruby")) or (
            quote == "`" and self.lang == "js")
        while i < self.n:
            c = s[i]
            if c == quote:
                i += 1
                break
            if c == "\\" and i + 1 < self.n:
                d = s[i + 1]
                if raw:
                    out.append(d if d in (quote, "\\") else c + d)
                else:
                    out.append(_ESC.get(d, d))
                i += 2
                continue
            if interpolate:
                got = self.interpolation(i)
                if got is not None:
                    value, i = got
                    out.append(UNKNOWN if value is None else value)
                    continue
            out.append(c)
            i += 1
        self.i = i
        return "".join(out)

    def long_string(self) -> str:
        """Lua's [[...]] (or [=[...]=])."""
        s = self.s
        level = s[self.i + 1 : s.find("[", self.i + 1)].count("=")
        close = "]" + "=" * level + "]"
        start = self.i + level + 2
        end = s.find(close, start)
        end = self.n if end < 0 else end
        self.i = min(self.n, end + len(close))
        return s[start:end]

    def interpolation(self, i: int) -> tuple[str | None, int] | None:
        """A variable interpolated at i in a string: (its value or None, where it ends)."""
        s = self.s
        if self.lang in ("perl", "php") and s[i] == "$":
            m = _INTERPOLATED.match(s, i)
            if m:
                value = self.values.get("$" + m.group(1))
                return (value if isinstance(value, str) else None), m.end()
        if (self.lang == "ruby" and s.startswith("#{", i)) or (self.lang == "js" and s.startswith("${", i)):
            j = s.find("}", i)
            if j > 0:
                value = self.values.get(s[i + 2 : j].strip())
                return (value if isinstance(value, str) else None), j + 1
        return None

    def delimited(self, interpolate: bool) -> str:
        """Perl's q/qq/qx and Ruby's %x: the text between the delimiters after i."""
        s = self.s
        while self.i < self.n and s[self.i] in " \t":
            self.i += 1
        if self.i >= self.n:
            return ""
        opening = s[self.i]
        closing = {"(": ")", "{": "}", "[": "]", "<": ">"}.get(opening, opening)
        depth = 0
        i = self.i + 1
        out: list[str] = []
        while i < self.n:
            c = s[i]
            if c == "\\" and i + 1 < self.n:
                out.append(s[i + 1] if s[i + 1] in (closing, opening, "\\") else c + s[i + 1])
                i += 2
                continue
            if c == opening and closing != opening:
                depth += 1
            elif c == closing:
                if depth == 0:
                    i += 1
                    break
                depth -= 1
            if interpolate and opening != "'":
                got = self.interpolation(i)
                if got is not None:
                    value, i = got
                    out.append(UNKNOWN if value is None else value)
                    continue
            out.append(c)
            i += 1
        self.i = i
        return "".join(out)

    # -- expressions

    def skip_blank(self) -> None:
        s = self.s
        while self.i < self.n:
            if s[self.i] in " \t\r\n":
                self.i += 1
            elif not self.comment():
                return

    def assignment(self, name: str) -> bool:
        """`NAME = literal` (with my/local/const/let/var before it): remember the value."""
        if name in ("my", "our", "local", "const", "let", "var"):
            self.skip_blank()
            m = _IDENT.match(self.s, self.i)
            if m is None:
                return True
            name = m.group()
            self.i = m.end()
        save = self.i
        self.skip_blank()
        s = self.s
        if self.i < self.n and s[self.i] == "=" and s[self.i + 1 : self.i + 2] not in ("=", ">", "~"):
            self.i += 1
            value = self.expression()
            if value is None:
                self.values.pop(name, None)
            else:
                self.values[name] = value
            return True
        self.i = save
        return False

    def expression(self) -> Any:
        """A string (or array) expression at i: literals, known variables, concatenation."""
        parts: list[Any] = []
        concat = _CONCAT[self.lang]
        s = self.s
        while True:
            self.skip_blank()
            value = self.primary()
            if value is _NOTHING:
                break
            parts.append(value)
            save = self.i
            self.skip_blank()
            if concat and s.startswith(concat, self.i) and not s.startswith(concat + "=", self.i):
                self.i += len(concat)
                continue
            if not concat and self.i < self.n and (s[self.i] == '"' or self.known_name()):
                continue  # awk joins what stands side by side
            self.i = save
            break
        if not parts:
            return None
        if len(parts) == 1:
            return parts[0]
        if all(p is None or isinstance(p, str) for p in parts):
            return "".join(UNKNOWN if p is None else p for p in parts)
        return None

    def known_name(self) -> bool:
        m = _IDENT.match(self.s, self.i)
        return m is not None and m.group() in self.values

    def primary(self) -> Any:
        s = self.s
        if self.i >= self.n:
            return _NOTHING
        c = s[self.i]
        if c in "'\"" or (c == "`" and self.lang == "js"):
            return self.string()
        if c == "[" and self.lang == "lua" and s.startswith(("[[", "[=["), self.i):
            return self.long_string()
        if c == "[" or (c == "(" and self.lang == "perl"):
            return self.array("]" if c == "[" else ")")
        m = _IDENT.match(s, self.i)
        if m is not None:
            name = m.group()
            self.i = m.end()
            if self.lang == "perl" and name in ("q", "qq", "qw") and self.i < self.n and s[self.i] in "({[</|!":
                got = self.delimited(interpolate=name != "q")
                return got.split() if name == "qw" else got
            if name in ("my", "our", "local"):
                self.skip_blank()
                return self.primary()
            if self.read_calls and name not in self.values:
                self.read_call(name)  # `$f = fopen(".env", "r")`, `const t = fs.readFileSync(".env")`
            return self.values.get(name)
        return _NOTHING

    def array(self, closing: str) -> Any:
        self.i += 1
        items: list[str] = []
        while True:
            self.skip_blank()
            if self.i >= self.n:
                return None
            if self.s[self.i] == closing:
                self.i += 1
                return items
            start = self.i
            value = self.expression()
            if isinstance(value, list):
                items.extend(value)
            else:
                items.append(value if isinstance(value, str) else UNKNOWN)
            self.skip_blank()
            if self.i < self.n and self.s[self.i] == ",":
                self.i += 1
            elif (self.i < self.n and self.s[self.i] != closing) or self.i == start:
                return None

    def arguments(self) -> list[Any]:
        """The argument list of a call at i: in parentheses, or up to the end of the statement."""
        self.skip_blank()
        s = self.s
        paren = self.i < self.n and s[self.i] == "("
        if paren:
            self.i += 1
        args: list[Any] = []
        while self.i < self.n:
            self.skip_blank()
            if self.i >= self.n:
                break
            c = s[self.i]
            if (paren and c == ")") or (not paren and c in ";\n}"):
                self.i += 1
                break
            start = self.i
            args.append(self.object() if c == "{" else self.expression())
            self.skip_blank()
            if (self.i < self.n and s[self.i] == ",") or self.i == start:
                self.i += 1
        return args

    def object(self) -> dict[str, Any]:
        """An object or hash literal: the keys whose values are literals."""
        self.i += 1
        out: dict[str, Any] = {}
        depth = 0
        while self.i < self.n:
            self.skip_blank()
            if self.i >= self.n:
                break
            c = self.s[self.i]
            if c == "}":
                self.i += 1
                if depth == 0:
                    break
                depth -= 1
                continue
            m = _IDENT.match(self.s, self.i)
            if m is None:
                if c == "{":
                    depth += 1
                self.i += 1
                continue
            self.i = m.end()
            self.skip_blank()
            if self.i < self.n and self.s[self.i] == ":":
                self.i += 1
                self.skip_blank()
                if self.s.startswith("true", self.i):
                    self.i += 4
                    out[m.group()] = True
                else:
                    out[m.group()] = self.expression()
        return out

    def call(self, kind: str) -> None:
        args = self.arguments()
        if not args:
            return
        first = args[0]
        found = self.found
        if kind == "shell":
            found.append(("shell", first if isinstance(first, str) else UNKNOWN))
        elif kind == "perl-open":
            # open(FH, "cmd |"), open(FH, "| cmd"), open(FH, "-|", "cmd", ARGS...)
            if len(args) == 2 and isinstance(args[1], str) and "|" in (args[1].strip()[:1], args[1].strip()[-1:]):
                found.append(("shell", args[1].strip().strip("|")))
            elif len(args) > 2 and args[1] in ("-|", "|-"):
                self.list_call(args[2:])
            elif len(args) == 2 and isinstance(args[1], str) and not args[1].lstrip().startswith((">", "+>")):
                self.add_read(args[1].strip().lstrip("<+").strip())  # open(F, "<.env"), open F, ".env"
            elif len(args) > 2 and isinstance(args[1], str) and args[1].strip().startswith(("<", "+<")) \
                    and isinstance(args[2], str):
                self.add_read(args[2])
        elif kind == "list":
            if isinstance(first, dict):
                args = args[1:]  # Ruby's env hash
            self.list_call(args)
        elif kind == "file-args":
            options = next((a for a in args if isinstance(a, dict)), {})
            rest = next((a for a in args[1:] if isinstance(a, list)), [])
            if isinstance(first, str):
                if options.get("shell"):
                    found.append(("shell", " ".join([first, *rest])))
                else:
                    found.append(("argv", [first, *rest]))
        elif kind == "array":
            if isinstance(first, list):
                found.append(("argv", first))
        elif kind == "object-cmd":
            if isinstance(first, dict) and isinstance(first.get("cmd"), list):
                found.append(("argv", first["cmd"]))
        elif kind == "file-object":
            options = args[1] if len(args) > 1 and isinstance(args[1], dict) else {}
            if isinstance(first, str):
                given = options.get("args")
                found.append(("argv", [first, *(given if isinstance(given, list) else [])]))

    def read_call(self, name: str) -> None:
        """A call that reads the file its first argument names (fs.readFileSync, File.read...)."""
        mode_at = self.read_calls.get(name)
        if mode_at is None and self.lang == "js":
            mode_at = self.read_calls.get(name.rpartition(".")[2])
            if mode_at is not None and name.rpartition(".")[2] in ("open", "openSync") and "fs" not in name:
                return  # window.open, some_object.open: not a file
        if mode_at is None:
            return
        save = self.i
        self.skip_blank()
        after = self.s[self.i] if self.i < self.n else ";"
        # A call: its arguments in parentheses or a string; ruby, perl and php also take them bare.
        bare = self.lang in ("ruby", "perl", "php") and after not in "=.[;\n)"
        if after not in "('\"" and not bare:
            self.i = save
            return
        self.i = save
        args = self.arguments()
        if not args or not isinstance(args[0], str):
            return
        if mode_at >= 0 and len(args) > mode_at and isinstance(args[mode_at], str):
            mode = args[mode_at]
            if set(mode) & set("wax") and "+" not in mode and "r" not in mode:
                return  # opened for writing only
        if self.lang == "ruby" and name == "open" and args[0].startswith("|"):
            return  # a command, not a file
        self.add_read(args[0])

    def add_read(self, path: str) -> None:
        if path and UNKNOWN not in path and "\n" not in path:
            self.reads.append(path)

    def awk_getline(self) -> None:
        """awk's `getline < "file"` and `getline var < "file"`."""
        s = self.s
        self.skip_blank()
        m = _IDENT.match(s, self.i)
        if m is not None:
            self.i = m.end()
            self.skip_blank()
        if self.i < self.n and s[self.i] == "<":
            self.i += 1
            self.skip_blank()
            value = self.primary()
            if isinstance(value, str):
                self.add_read(value)

    def list_call(self, args: list[Any]) -> None:
        """Perl's and Ruby's system/exec: one string is a shell script, several words an argv."""
        args = [a for a in args if not isinstance(a, dict)]
        if not args:
            return
        if len(args) == 1:
            first = args[0]
            if isinstance(first, list):
                self.found.append(("argv", first))
            else:
                self.found.append(("shell", first if isinstance(first, str) else UNKNOWN))
            return
        words: list[str] = []
        for a in args:
            if isinstance(a, list):
                words.extend(a)
            else:
                words.append(a if isinstance(a, str) else UNKNOWN)
        self.found.append(("argv", words))

    def awk_pipe(self) -> None:
        """awk's `print ... | "cmd"` and `"cmd" | getline` (`||` is a logical or)."""
        s = self.s
        self.i += 1
        if self.i < self.n and s[self.i] == "|":
            self.i += 1
            return
        if self.i < self.n and s[self.i] == "&":
            self.i += 1
        self.skip_blank()
        if s.startswith("getline", self.i):
            if isinstance(self.last, str):
                self.found.append(("shell", self.last))
            self.i += len("getline")
            return
        value = self.expression()
        if isinstance(value, str):
            self.found.append(("shell", value))


_NOTHING = object()
