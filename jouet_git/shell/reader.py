"""Reads a shell script into the simple commands a shell would run, without running anything.

A recursive-descent reader over the characters of the script, in the shape of bash's own grammar:
lists of and-or lists of pipelines of commands, where a command is a simple command or a compound
one (subshell, group, if, while, until, for, select, case, function, [[ ]], (( ))). Words are read
with quote removal ('...', "...", $'...', backslashes, line continuations); expansions ($VAR,
${...}, $(...), backticks, globs) are kept as written, since nothing is expanded. Commands inside
$(...), backticks, <(...), >(...) and the scripts of `sh -c` are read too and marked nested.

It never raises and stays linear in the size of its input: nesting deeper than MAX_DEPTH, re-reading
(backticks, -c scripts) and lookahead all have budgets, and whatever cannot be read is kept as data
with the result marked incomplete.

Positions are kept as character indexes while reading and turned into 1-based byte positions of the
UTF-8 script at the end.
"""

from __future__ import annotations

import re

from jouet_git.call import Command
from jouet_git.shell.wrappers import (
    ALL_WRAPPERS,
    CD,
    CD_VIA,
    FOLLOW_NAMES,
    INTERPRETERS,
    OTHER_SHELLS,
    PURE,
    SHELLS,
    is_interpreter,
    program_name,
    unwrap_more,
)

# Programs that run more than themselves (see follow.py): looked at more closely when read.
_SPECIAL = SHELLS | OTHER_SHELLS | FOLLOW_NAMES | INTERPRETERS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from types import ModuleType

    from jouet_git.shell.wrappers import Unwrapped, XargsHow

    Where = str | bool | None
    # What a command does with what it reads (xargs, shell), where its nested commands go, and
    # how xargs splits.
    Consumer = tuple[str, tuple[int, ...], XargsHow | None]
    # A variable's value: a string, or a list for an array.
    Value = str | list[str]
    # Where the journal stood, and for a child shell the variables, exported and partly known ones
    # of the shell that started it.
    Saved = tuple[int, tuple[dict[str, Value], set[str], set[str]] | None]

# Reading limits. Past any of them the reader stops (or keeps the rest as data), and the result is
# incomplete with a problem that starts with "too ..." and says which limit was hit: agents' calls
# it cannot read completely are denied rather than let through unread.
# How deep constructs may nest ($( inside $( inside ...). Each level costs about ten Python
# frames, well inside the default recursion limit.
MAX_DEPTH = 40
# The longest command read, in characters; only this much of a longer one is read.
MAX_SIZE = 1 << 20
# Commands (top-level and nested) and words read in one call.
MAX_COMMANDS = 500
MAX_WORDS = 50_000
# Variables whose values are kept, and ${x#p}-style pattern operations worked out, in one call.
MAX_VARS = 1000
MAX_PATTERN_OPS = 64
# At most this many problems are described; the rest only count towards `incomplete`.
MAX_PROBLEMS = 20


# The hook imports this module on every call: only the patterns every script needs are compiled
# here; the others are compiled on first use (see _lazy and _on_first_use: `git status` needs no
# redirection, double quote or here-document, and compiling those three would cost each such hook
# about a tenth of a millisecond).
_DELIMS = " \t\n|&;<>()"
_PLAIN = re.compile(r"[^ \t\n|&;<>()'\"\\$`]+").match
_SKIP = re.compile(r"(?:[ \t]+|\\\n|#[^\n]*)+").match


def _on_first_use(name: str, pattern: str) -> Callable[[str, int], re.Match[str] | None]:
    """A match function for the global NAME that, on its first call, compiles PATTERN and puts the
    compiled match function in its place (the callers look NAME up on every call)."""

    def first(text: str, at: int) -> re.Match[str] | None:
        match: Callable[[str, int], re.Match[str] | None] = re.compile(pattern).match
        globals()[name] = match
        return match(text, at)

    return first


_HEREDOC_PLAIN = _on_first_use("_HEREDOC_PLAIN", r"[^\\$`]+")
_DQ_PLAIN = _on_first_use("_DQ_PLAIN", r"[^\"\\$`]+")
_REDIR = _on_first_use("_REDIR", r"(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})?(&>>|&>|<<<|<<-|<<|<>|<&|>&|>>|>\||<|>)")
_RARE = {
    "cond": r"[^ \t\n;&|'\"\\$`]+",  # a word inside [[ ]], where < > ( ) are operands
    "arith": r"[^()$`\"'\\]+",
    "parens": r"\([ \t]*\)",
    "coproc": r"[A-Za-z_][A-Za-z0-9_]*[ \t]+(?=[{(])",
}
_compiled: dict[str, Callable[[str, int], re.Match[str] | None]] = {}


# Characters that start an escape, quoted text or an expansion inside ${...} and $((...)).
_QUOTING = "\\'\"$`"

def _lazy(name: str) -> Callable[[str, int], re.Match[str] | None]:
    """The match function of a rarely needed pattern, compiled on first use."""
    got = _compiled.get(name)
    if got is None:
        got = _compiled[name] = re.compile(_RARE[name]).match
    return got


_RESERVED_WORDS = frozenset({
    "if", "then", "elif", "else", "fi", "do", "done", "case", "esac", "while", "until", "for",
    "select", "function", "coproc", "time", "in", "{", "}", "!", "[[",
})
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789")
_SPECIAL_PARAMS = frozenset("0123456789@*#?$!-")
# Kinds of the pieces of a word, as expand.fields takes them (tests check they agree).
_SPLIT = 1
_QUOTED = 2
_LIST_SPLIT = 3
_LIST_QUOTED = 4
# Builtins that give variables values, or take them away.
_SETTERS = frozenset({
    "export", "declare", "typeset", "local", "readonly", "unset", "read", "readarray", "mapfile",
    "getopts", "printf", "set", "shift", "alias", "unalias",
})
# Builtins that move the shell, and so change $PWD and $OLDPWD.
_MOVERS = frozenset({"cd", "pushd", "popd"})


def _reserved(s: str, i: int) -> tuple[str, int] | None:
    """The reserved word at i and where it ends, when one stands there as a whole word."""
    m = _PLAIN(s, i)
    if m is None:
        return None
    word = m.group()
    if word not in _RESERVED_WORDS:
        return None
    end = m.end()
    if end < len(s) and s[end] not in _DELIMS:
        return None
    return word, end


def _name_end(s: str, i: int) -> int:
    """Where the shell variable name starting at i ends (i when there is none)."""
    n = len(s)
    if i >= n or s[i] not in _NAME_START:
        return i
    i += 1
    while i < n and s[i] in _NAME_CHARS:
        i += 1
    return i


def _assignment(s: str, i: int, end: int) -> str | None:
    """The `NAME=`, `NAME+=` or `NAME[sub]=` prefix of the word s[i:end], if it is an assignment."""
    j = _name_end(s, i)
    if j == i:
        return None
    if j < end and s[j] == "[":
        k = s.find("]", j)
        if k < 0 or k >= end or "\n" in s[j:k]:
            return None
        j = k + 1
    if j < end and s[j] == "+":
        j += 1
    if j < end and s[j] == "=":
        return s[i : j + 1]
    return None

# Reserved words that close a construct; at the start of a command outside that construct they are
# a syntax error.
_CLOSERS = frozenset({"then", "elif", "else", "fi", "do", "done", "esac", "}"})
_STOP_TOP: frozenset[str] = frozenset()
_STOP_PAREN = frozenset({")"})
_STOP_BRACE = frozenset({"}"})
_STOP_THEN = frozenset({"then"})
_STOP_ELSE = frozenset({"elif", "else", "fi"})
_STOP_FI = frozenset({"fi"})
_STOP_DO = frozenset({"do"})
_STOP_DONE = frozenset({"done"})
_STOP_CASE = frozenset({";;", "esac"})
_COMPOUND_AFTER_TIME = frozenset({"{", "if", "while", "until", "for", "select", "case", "[[", "!"})

_ESCAPES = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
    "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}
_HEX = "0123456789abcdefABCDEF"


class Elem:
    """One element of a pipeline: a simple command, or a compound command and what it holds.

    cmd: the Command when the element is a simple command. body: the lists inside a subshell or a
    group, read again for exit statuses. cmds: every command of the element's own script inside
    it (not those of $(...) or -c scripts).
    """

    __slots__ = ("body", "cmd", "cmds")

    def __init__(self, cmds: list[Command], cmd: Command | None = None, body: list[AndOr] | None = None):
        self.cmds = cmds
        self.cmd = cmd
        self.body = body


class Pipe:
    """A pipeline: its elements, and whether `!` negates its status."""

    __slots__ = ("elems", "negated")

    def __init__(self, elems: list[Elem], negated: bool) -> None:
        self.elems = elems
        self.negated = negated


class AndOr:
    """Pipelines joined by && and ||; ops[k] joins pipes[k] and pipes[k + 1]."""

    __slots__ = ("background", "ops", "pipes")

    def __init__(self, pipes: list[Pipe], ops: list[str]) -> None:
        self.pipes = pipes
        self.ops = ops
        self.background = False


class Shared:
    """What every reader of one parse() call shares: the results and the budgets."""

    __slots__ = (
        "aliases", "calling", "children", "commands", "consumers", "count", "cwd", "depth", "dropped",
        "expanded", "exported", "files", "fixed", "full", "functions", "incomplete", "inherited",
        "journal", "look", "nested", "outputs", "partial", "patterns", "problems", "procsubs", "reads",
        "scopes", "stopped", "top", "unknown", "vars", "wheres", "words", "work", "writes",
    )

    def __init__(self, size: int, cwd: str | None = None) -> None:
        self.top: list[Command] = []
        self.nested: list[tuple[tuple[int, ...], Command]] = []
        self.incomplete = False
        self.problems: list[str] = []
        self.depth = 0
        self.count = 0  # top-level commands so far
        self.scopes = 0  # subshells so far, for jouet.dirs
        # Characters that may be read again (backtick bodies, -c scripts), and looked ahead at.
        self.work = 8 * size + 65536
        self.look = 4 * size + 65536
        # id(command) -> the commands of its -c script, which share its output.
        self.children: dict[int, list[Command]] = {}
        # ids of commands whose standard output is already settled (redirected, duplicated, piped).
        self.fixed: set[int] = set()
        # id(here-document body or here-string) -> its text as the shell expands it (unquoted
        # delimiters only), or None when that holds expansions not known.
        self.expanded: dict[int, str | None] = {}
        # id(command) -> (what it does with its input, where it is among the nested commands,
        # how xargs splits): commands that run what they read (sh, xargs, python -).
        self.consumers: dict[int, Consumer] = {}
        # Files written by pure commands earlier in the call (`echo ... > x.sh`), by path.
        self.files: dict[str, str] = {}
        # ids of nested commands read from words that were later filled in (xargs): not kept.
        self.dropped: set[int] = set()
        # Variables given values earlier in the call (see Reader.lookup), and the exported ones.
        self.vars: dict[str, Value] = {}
        self.exported: set[str] = set()
        # Variables whose values hold expansions not known (kept as written), and ids of commands
        # with such words: what they print is not worked out.
        self.partial: set[str] = set()
        self.unknown: set[int] = set()
        # Changes to vars, exported and partial, undone at the end of a subshell: (name, old
        # value or None, was exported, was partial).
        self.journal: list[tuple[str, Value | None, bool, bool]] = []
        # What each pure command of a pipeline prints, by id, once worked out.
        self.outputs: dict[int, str | None] = {}
        # Counts against the limits, and whether one was hit (nothing more is read then).
        self.commands = 0
        self.words = 0
        self.patterns = 0
        self.stopped = False
        self.full = False  # MAX_VARS was reached
        self.writes = False  # a pure command writes a file (see Reader.emit)
        # ids of commands whose input is the file an earlier `exec < FILE` gave the shell.
        self.inherited: set[int] = set()
        # What a <(...) prints, by its text, when known (for `bash <(echo ...)`).
        self.procsubs: dict[str, str] = {}
        # Functions defined in the call (their bodies' text), aliases, and the functions being
        # read for a call now (not read again inside themselves).
        self.functions: dict[str, str] = {}
        self.aliases: dict[str, str] = {}
        self.calling: set[str] = set()
        # The call's directory, for reading the scripts a command runs (None: read none), how
        # many have been read, and where the top-level cds led, by scope (see workdirs).
        self.cwd = cwd
        self.reads = 0
        self.wheres: dict[tuple[int, ...], str | bool | None] = {(): None}


class Reader:
    """Reads one source text: the script itself, a backtick body, or a -c script."""

    __slots__ = (
        "av", "base", "captured", "chain", "emitted", "feeds", "i", "inherit", "last", "n", "nested",
        "origin", "pending", "pmap", "prefix", "s", "scope", "sep", "seq", "sh", "spans", "substs", "sv",
        "unk", "wf", "wv", "xv",
    )

    def __init__(
        self,
        sh: Shared,
        s: str,
        *,
        nested: bool = False,
        captured: bool = False,
        spans: bool = True,
        base: int = 0,
        pmap: list[int] | None = None,
        prefix: tuple[int, ...] = (),
        seq: int | None = None,
        scope: tuple[int, ...] = (),
        chain: list[str] | None = None,
        origin: Command | None = None,
    ) -> None:
        self.sh = sh
        self.s = s
        self.i = 0
        self.n = len(s)
        self.nested = nested
        self.captured = captured
        self.spans = spans
        self.base = base
        self.pmap = pmap
        self.prefix = prefix
        self.seq = seq
        self.scope = scope
        # The programs that run this text (`sudo bash` for `sudo bash -c TEXT`), outermost first:
        # they start the via of every command read from it.
        self.chain = chain
        # The command that runs this text in a process of its own (see Command.origin).
        self.origin = origin
        # Here-documents whose bodies start after the next newline: delimiter, <<-, whether the
        # delimiter was quoted (the body is then not expanded), where the bodies go.
        self.pending: list[tuple[str, bool, bool, list[list[str]]]] = []
        # Work that waits for here-document bodies: feeding the command elems[k] of a pipeline its
        # known input (with how it reads it), or noting what it writes to a file (None).
        self.feeds: list[tuple[list[Elem], int, Consumer | None]] = []
        self.last: Command | None = None  # the last command read in this scope, for `op`
        self.sep: Command | None = None  # the command whose op a trailing ; or newline set
        self.emitted: list[Command] = []  # commands read in this scope, in order
        self.substs = 0  # how many $( <( >( are open around i
        self.xv: Value | None = None  # the known value of the expansion dollar() just read
        self.sv: str | None = None  # what the substitution or script just read prints, if known
        self.wf: list[str] | None = None  # the fields of the word just read, when it expands
        self.wv = ""  # and its value, unsplit
        self.av: list[str] = []  # the elements of the array assignment just read
        self.unk = False  # whether the word just read holds an expansion whose value is not known
        # The file `exec < FILE` made the shell's input: the commands after it read it.
        self.inherit: str | None = None

    # -- bookkeeping ---------------------------------------------------------------------------

    def bad(self, what: str, at: int | None = None) -> None:
        """Note text that could not be read; the result is then incomplete."""
        sh = self.sh
        sh.incomplete = True
        if len(sh.problems) < MAX_PROBLEMS:
            where = self.at(self.i if at is None else at)
            if self.spans:
                sh.problems.append(f"{what} (character {where + 1})")
            else:
                sh.problems.append(f"{what} (in a -c script)")

    def stop(self, problem: str) -> None:
        """A limit was hit: note it, and read nothing more of the call."""
        sh = self.sh
        if not sh.stopped:
            sh.stopped = True
            self.bad(problem)
        self.i = self.n

    def charge(self, size: int) -> bool:
        """Count size characters of text made or read again against the budget (a limit)."""
        sh = self.sh
        if sh.work < size:
            self.stop("too much nested text: the command makes or reads again more text (expansions, "
                      "scripts it runs, pure output) than jouet reads for its size; split it into smaller "
                      "calls")
            return False
        sh.work -= size
        return True

    def counted(self, more: int = 1) -> None:
        """Count more commands against MAX_COMMANDS."""
        sh = self.sh
        sh.commands += more
        if sh.commands > MAX_COMMANDS:
            self.stop(f"too many commands: the call runs more than {MAX_COMMANDS} commands (nested "
                      "ones included); split it into smaller calls")

    def at(self, k: int) -> int:
        """A position of this text as a character index of the outermost text it came from."""
        if self.pmap is not None:
            return self.pmap[min(k, len(self.pmap) - 1)]
        return self.base + k

    def enter(self) -> bool:
        """Go one level deeper; past MAX_DEPTH, keep the rest of the text as data."""
        sh = self.sh
        if sh.depth >= MAX_DEPTH:
            self.bad(f"too deep: constructs nest more than {MAX_DEPTH} levels; the rest is kept as data")
            self.i = self.n
            return False
        sh.depth += 1
        return True

    def set_op(self, op: str) -> None:
        last = self.last
        if last is not None and last.op is None:
            last.op = op

    # -- blanks, newlines, here-documents ------------------------------------------------------

    def skip(self) -> None:
        """Skip blanks, line continuations and comments (not newlines)."""
        i = self.i
        if i < self.n and self.s[i] in " \t\\#":
            m = _SKIP(self.s, i)
            if m is not None:
                self.i = m.end()

    def skipped(self, k: int) -> int:
        """Where skip() would stop, starting from k."""
        m = _SKIP(self.s, k)
        return k if m is None else m.end()

    def newline(self) -> None:
        """Consume the newline at i, then the bodies of the here-documents started on its line."""
        self.i += 1
        if self.pending:
            pending = self.pending
            self.pending = []
            for delim, strip, quoted, targets in pending:
                self.heredoc_body(delim, strip, quoted, targets)
        if self.feeds and not self.pending:
            self.flush_feeds()

    def skip_newlines(self) -> None:
        s = self.s
        while True:
            self.skip()
            if self.i < self.n and s[self.i] == "\n":
                self.newline()
            else:
                return

    def heredoc_body(self, delim: str, strip: bool, quoted: bool, targets: list[list[str]]) -> None:
        s = self.s
        n = self.n
        i = self.i
        first = i
        lines: list[str] = []
        cut = False  # the body's last line has no newline in the script
        starts: list[int] = []  # where each line of the body starts in the script
        while True:
            if i >= n:
                self.bad(f"here-document ends before its delimiter {delim!r}")
                break
            j = s.find("\n", i)
            end = n if j < 0 else j
            line = s[i:end]
            if strip:
                line = line.lstrip("\t")
            at = end - len(line)
            if self.substs and line.startswith(delim) and line[len(delim) :].lstrip(" \t").startswith(")"):
                # Inside $(...), bash also ends the body at `EOF)`: the ) closes the substitution.
                i = end - len(line) + len(delim)
                break
            i = end + 1
            if line == delim:
                break
            lines.append(line)
            starts.append(at)
            if j < 0:
                cut = True
                self.bad(f"here-document ends before its delimiter {delim!r}")
                break
        self.i = min(i, n)
        body = "".join(line + "\n" for line in lines)
        for target in targets:
            target.append(body)
        if not quoted and body and ("$" in body or "`" in body or "\\" in body):
            # An unquoted delimiter: the shell expands the body, running its $(...) and backticks.
            pmap: list[int] | None = None
            if strip or self.pmap is not None:
                # Map each character of the body back to the script (<<- took tabs out).
                pmap = []
                for line, at in zip(lines, starts, strict=True):
                    pmap.extend(self.at(min(at + c, n)) for c in range(len(line) + 1))
                pmap.append(self.at(n))
            text = body[:-1] if cut else body
            expanded = self.expand_body(text, first, pmap)
            if expanded is None:
                self.sh.expanded[id(body)] = None
            elif expanded + ("\n" if cut else "") != body:
                self.sh.expanded[id(body)] = expanded + ("\n" if cut else "")

    def expand_body(self, body: str, first: int, pmap: list[int] | None) -> str | None:
        """The body of a here-document as the shell expands it (None when it holds expansions not
        known); the commands in it are read."""
        reader = Reader(self.sh, body, nested=True, captured=True, spans=self.spans, base=self.at(first),
                        pmap=pmap, prefix=self.prefix, seq=self.seq, scope=self.scope,
                        chain=self.chain)
        text = reader.heredoc_text()
        return None if reader.unk else text

    def heredoc_text(self) -> str:
        """Read this text as the body of an unquoted here-document: its expanded value (unk: it
        holds expansions not known, kept as written)."""
        s = self.s
        n = self.n
        out: list[str] = []
        i = 0
        self.unk = False
        while i < n:
            m = _HEREDOC_PLAIN(s, i)
            if m is not None:
                out.append(m.group())
                i = m.end()
                if i >= n:
                    break
            c = s[i]
            if c == "\\":
                if i + 1 < n and s[i + 1] in "$`\\\n":
                    if s[i + 1] != "\n":
                        out.append(s[i + 1])
                    i += 2
                else:
                    out.append(c)
                    i += 1
            elif c == "$":
                self.i = i
                written = self.dollar(True)
                out.append(written if self.xv is None else _joined(self.xv))
                i = self.i
            else:
                self.i = i
                written = self.backtick(True)
                out.append(written if self.xv is None else _joined(self.xv))
                i = self.i
        return "".join(out)

    # -- lists ---------------------------------------------------------------------------------

    def script(self) -> list[AndOr]:
        """Read the whole text as a script."""
        items = self.read_list(_STOP_TOP)
        if self.sep is not None:
            self.sep.op = None
            self.sep = None
        if self.pending:
            for delim, _, _, _ in self.pending:
                self.bad(f"here-document ends before its delimiter {delim!r}")
            self.pending = []
        if self.feeds:
            _follow().flush(self)
        return items

    def read_list(self, stops: frozenset[str]) -> list[AndOr]:
        """Read and-or lists separated by ;, & and newlines until EOF or one of stops."""
        items: list[AndOr] = []
        s = self.s
        sh = self.sh
        while True:
            if sh.stopped:
                self.i = self.n
                return items
            self.skip_newlines()
            i = self.i
            if i >= self.n:
                return items
            c = s[i]
            if c == ")":
                if ")" in stops:
                    return items
                self.bad("unexpected )")
                self.i += 1
                continue
            if c == ";":
                if ";;" in stops and (s.startswith(";;", i) or s.startswith(";&", i)):
                    return items
                self.bad("unexpected ;")
                self.i += 2 if s.startswith(";;", i) else 1
                continue
            if c in "&|" and not s.startswith("&>", i):
                self.bad(f"unexpected {c}")
                self.i += 2 if i + 1 < self.n and s[i + 1] in "&|" else 1
                continue
            begin = i
            r = _reserved(s, i)
            if r is not None:
                word = r[0]
                if word in stops:
                    return items
                if word in _CLOSERS:
                    self.bad(f"unexpected {word}")
                    self.i = r[1]
                    continue
            mark = len(sh.journal)
            item = self.and_or()
            items.append(item)
            self.skip()
            i = self.i
            if i < self.n:
                c = s[i]
                if c == ";" and not (s.startswith(";;", i) or s.startswith(";&", i)):
                    self.i += 1
                    self.separated()
                elif c == "&" and not (s.startswith("&&", i) or s.startswith("&>", i)):
                    self.i += 1
                    self.set_op("background")
                    self.sep = None
                    item.background = True
                    self.restore((mark, None))
                    cmds = [cmd for pipe in item.pipes for elem in pipe.elems for cmd in elem.cmds]
                    self.mark_background(cmds)
                    self.rescope(cmds)
                elif c == "\n":
                    self.newline()
                    self.separated()
            if self.i == begin:
                # Nothing could be read here; keep the character as data and move on.
                self.bad(f"unexpected {s[begin]!r}")
                self.i += 1

    def separated(self) -> None:
        last = self.last
        if last is not None and last.op is None:
            last.op = "seq"
            self.sep = last

    def and_or(self) -> AndOr:
        pipes = [self.pipeline()]
        ops: list[str] = []
        s = self.s
        while True:
            self.skip()
            i = self.i
            if s.startswith("&&", i):
                op = "and"
            elif s.startswith("||", i):
                op = "or"
            else:
                break
            self.i += 2
            self.set_op(op)
            ops.append(op)
            self.skip_newlines()
            pipes.append(self.pipeline())
        return AndOr(pipes, ops)

    def pipeline(self) -> Pipe:
        s = self.s
        negated = False
        while True:
            self.skip()
            r = _reserved(s, self.i)
            if r is None or r[0] != "!":
                break
            negated = not negated
            self.i = r[1]
        mark = len(self.sh.journal)
        elems = [self.command()]
        while True:
            self.skip()
            i = self.i
            if i < self.n and s[i] == "|" and not s.startswith("||", i):
                self.i += 2 if s.startswith("|&", i) else 1
                self.set_op("pipe")
                self.skip_newlines()
                elems.append(self.command())
            else:
                break
        if len(elems) > 1:
            if self.sh.inherited:
                # A pipe gives these their input, not the file the shell's input comes from.
                for elem in elems[1:]:
                    for cmd in elem.cmds:
                        if id(cmd) in self.sh.inherited:
                            cmd.stdin_from = None
                            cmd.stdin_redirected = False
            for elem in elems[:-1]:
                self.mark_piped(elem.cmds)
            for elem in elems:
                self.rescope(elem.cmds)
            self.restore((mark, None))
        sh = self.sh
        if sh.consumers:
            _follow().feed_pipeline(self, elems)
        elif sh.writes:
            self.note_writes(elems)
        return Pipe(elems, negated)

    def note_writes(self, elems: list[Elem]) -> None:
        """What the pure commands of a pipeline write to files, worked out (follow.write) once the
        here-documents of its line are read: follow.feed_pipeline's part for a script where no command
        runs what it reads, without importing follow.py for writes that are never worked out."""
        for k, elem in enumerate(elems):
            cmd = elem.cmd
            if cmd is not None and cmd.stdout_to is not None and cmd.program in PURE:
                self.feeds.append((elems, k, None))
        if self.feeds and not self.pending:
            self.flush_feeds()

    def flush_feeds(self) -> None:
        """Work out the feeds (follow.flush); when the script ends here, no command after them can run
        or read what a pure command wrote to a file (`cat > plan.md <<'EOF'`), so that is not."""
        if not self.nested and not self.s[self.i:].strip():
            self.feeds = [feed for feed in self.feeds if feed[2] is not None]
        if self.feeds:
            _follow().flush(self)

    # -- output and scope marks ----------------------------------------------------------------

    def mark_piped(self, cmds: Iterable[Command]) -> None:
        fixed = self.sh.fixed
        for cmd in cmds:
            key = id(cmd)
            if key not in fixed:
                fixed.add(key)
                cmd.piped = True
                kids = self.sh.children.get(key)
                if kids:
                    self.mark_piped(kids)

    def mark_stdout(self, cmds: Iterable[Command], target: str | None) -> None:
        """Send the output of cmds without settled output to target (None: a duplicated fd)."""
        fixed = self.sh.fixed
        for cmd in cmds:
            key = id(cmd)
            if key not in fixed:
                fixed.add(key)
                cmd.stdout_to = target
                kids = self.sh.children.get(key)
                if kids:
                    self.mark_stdout(kids, target)

    def mark_stdin(self, cmds: Iterable[Command], source: str | None = None) -> None:
        """Mark cmds' standard input as redirected (from the file source, when that is known);
        a command whose input was already redirected keeps its own."""
        for cmd in cmds:
            if cmd.stdin_redirected:
                continue
            cmd.stdin_redirected = True
            cmd.stdin_from = source
            kids = self.sh.children.get(id(cmd))
            if kids:
                self.mark_stdin(kids, source)

    def mark_background(self, cmds: Iterable[Command]) -> None:
        for cmd in cmds:
            cmd.background = True
            kids = self.sh.children.get(id(cmd))
            if kids:
                self.mark_background(kids)

    def rescope(self, cmds: list[Command]) -> None:
        """Put cmds in a subshell of their own (a pipeline element, a background list)."""
        if not cmds or self.nested:
            return
        self.sh.scopes += 1
        new = self.sh.scopes
        depth = len(self.scope)
        for cmd in cmds:
            cmd.scope = (*cmd.scope[:depth], new, *cmd.scope[depth:])

    # -- commands ------------------------------------------------------------------------------

    def command(self) -> Elem:
        """Read one command: compound or simple, with the redirections after a compound one."""
        self.skip()
        s = self.s
        i = self.i
        if i >= self.n:
            self.bad("the script ends where a command was expected")
            return Elem([])
        c = s[i]
        if c == "(":
            if s.startswith("((", i) and self.is_arith(i + 2):
                self.i = i + 2
                self.arith()
                return self.compound_redirs(Elem([]))
            return self.subshell()
        r = _reserved(s, i)
        if r is not None:
            word, after = r
            if word in _CLOSERS:
                self.bad(f"a command was expected before `{word}`")
                return Elem([])
            if word == "time":
                k = self.skipped(after)
                if s.startswith("-p", k) and (k + 2 >= self.n or s[k + 2] in " \t"):
                    k = self.skipped(k + 2)
                then = _reserved(s, k)
                if (k < self.n and s[k] == "(") or (then is not None and then[0] in _COMPOUND_AFTER_TIME):
                    self.i = k
                    return self.command()
            elif word == "!":
                # `a | ! b` is an error in bash; read past it (and any more).
                while r is not None and r[0] == "!":
                    self.i = r[1]
                    self.skip()
                    r = _reserved(s, self.i)
                return self.command()
            elif word != "in":
                if not self.enter():
                    return Elem([])
                try:
                    return self.compound(word, after)
                finally:
                    self.sh.depth -= 1
        return self.simple()

    def compound(self, word: str, after: int) -> Elem:
        start = len(self.emitted)
        self.i = after
        if word == "{":
            body = self.read_list(_STOP_BRACE)
            self.expect("}")
            return self.compound_redirs(Elem(self.emitted[start:], None, body))
        if word == "if":
            self.read_list(_STOP_THEN)
            self.expect("then")
            self.read_list(_STOP_ELSE)
            while True:
                r = _reserved(self.s, self.i)
                got = r[0] if r is not None else ""
                if r is not None and got == "elif":
                    self.i = r[1]
                    self.read_list(_STOP_THEN)
                    self.expect("then")
                    self.read_list(_STOP_ELSE)
                elif r is not None and got == "else":
                    self.i = r[1]
                    self.read_list(_STOP_FI)
                    self.expect("fi")
                    break
                else:
                    self.expect("fi")
                    break
        elif word in ("while", "until"):
            self.read_list(_STOP_DO)
            self.expect("do")
            self.read_list(_STOP_DONE)
            self.expect("done")
        elif word in ("for", "select"):
            self.for_loop(word == "select")
        elif word == "case":
            self.case()
        elif word == "function":
            self.skip()
            name = self.word()
            self.skip()
            m = _lazy("parens")(self.s, self.i)
            if m is not None:
                self.i = m.end()
            return self.function_body(name)
        elif word == "[[":
            return self.compound_redirs(self.cond(after - 2))
        elif word == "coproc":
            # `coproc NAME { ...; }` names the coprocess; `coproc cmd args` does not.
            self.skip()
            m = _lazy("coproc")(self.s, self.i)
            if m is not None:
                self.i = m.end()
            return self.command()
        return self.compound_redirs(Elem(self.emitted[start:]))

    def function_body(self, name: str | None) -> Elem:
        """Read the body of a function definition; its commands are read like any others, and
        again with its arguments where the call calls it."""
        if not self.enter():
            return Elem([])
        try:
            self.skip_newlines()
            start = self.i
            elem = Elem(self.command().cmds)
            if name:
                self.sh.functions[name] = self.s[start : self.i]
            return elem
        finally:
            self.sh.depth -= 1

    def expect(self, word: str) -> bool:
        self.skip_newlines()
        r = _reserved(self.s, self.i)
        if r is not None and r[0] == word:
            self.i = r[1]
            return True
        if self.i >= self.n:
            self.bad(f"the script ends before `{word}`")
        else:
            self.bad(f"expected `{word}`")
        return False

    def subshell(self) -> Elem:
        if not self.enter():
            return Elem([])
        try:
            start = len(self.emitted)
            self.sh.scopes += 1
            outer = self.scope
            self.scope = (*outer, self.sh.scopes)
            self.i += 1
            variables = self.save()
            inherit = self.inherit
            body = self.read_list(_STOP_PAREN)
            self.inherit = inherit
            self.restore(variables)
            self.scope = outer
            if self.i < self.n and self.s[self.i] == ")":
                self.i += 1
            else:
                self.bad("the script ends inside ( ... )")
            return self.compound_redirs(Elem(self.emitted[start:], None, body))
        finally:
            self.sh.depth -= 1

    def for_loop(self, select: bool = False) -> None:
        """Read a for (or select) loop. A for loop's variable takes the values of its list when they
        are known; select's is the person's choice, unknown."""
        s = self.s
        self.skip()
        name: str | None = None
        items: list[str] | None = []
        if s.startswith("((", self.i):
            self.i += 2
            self.arith()
        else:
            name = self.word()
            self.skip_newlines()
            r = _reserved(s, self.i)
            if r is not None and r[0] == "in":
                self.i = r[1]
                while True:
                    self.skip()
                    at = self.i
                    if at >= self.n or s[at] in "\n;":
                        break
                    w = self.word()
                    if w is None:
                        self.bad(f"unexpected {s[self.i]!r} in a for loop")
                        self.i += 1
                    elif items is not None:
                        if self.wf is not None:
                            items.extend(self.wf)
                        elif "$" in s[at : self.i] or "`" in s[at : self.i]:
                            items = None
                        else:
                            items.append(w)
            else:
                items = None
            if select:
                items = None
            if name:
                # The loop variable: its first value while the body is read (the others below).
                self.assign(name, items[0] if items else None)
        self.skip()
        if self.i < self.n and s[self.i] == ";":
            self.i += 1
        self.skip_newlines()
        r = _reserved(s, self.i)
        start = self.i
        # The commands read again for the loop's other values belong with its first command.
        first = self.sh.count if self.seq is None else self.seq
        if r is not None and r[0] == "{":
            self.i = r[1]
            self.read_list(_STOP_BRACE)
            self.expect("}")
        else:
            self.expect("do")
            self.read_list(_STOP_DONE)
            self.expect("done")
        if name and items and len(items) > 1:
            self.loop_again(name, items, s[start : self.i], first)

    def loop_again(self, name: str, items: list[str], text: str, seq: int) -> None:
        """Read a for loop's body again for each further value of its variable it is known to
        take (each read counts against the limits)."""
        body = text.strip()
        if body.startswith("{") and body.endswith("}"):
            body = body[1:-1]
        elif body.startswith("do") and body.endswith("done"):
            body = body[2:-4]
        seen = {items[0]}
        for item in items[1:]:
            if item in seen:
                continue
            if self.sh.stopped:
                break
            seen.add(item)
            self.assign(name, item)
            self.sub(body, captured=self.captured, spans=False, base=0, pmap=None,
                     prefix=(*self.prefix, self.at(self.i), len(seen)), seq=seq)

    def case(self) -> None:
        s = self.s
        self.skip()
        self.word()
        self.skip_newlines()
        r = _reserved(s, self.i)
        if r is None or r[0] != "in":
            self.bad("expected `in` after case WORD")
            return
        self.i = r[1]
        while True:
            self.skip_newlines()
            i = self.i
            if i >= self.n:
                self.bad("the script ends before `esac`")
                return
            r = _reserved(s, i)
            if r is not None and r[0] == "esac":
                self.i = r[1]
                return
            if s[i] == "(":
                self.i += 1
            while True:
                self.skip()
                self.word()
                self.skip()
                i = self.i
                if i < self.n and s[i] == "|":
                    self.i += 1
                    continue
                if i < self.n and s[i] == ")":
                    self.i += 1
                    break
                self.bad("expected `)` after a case pattern")
                return
            self.read_list(_STOP_CASE)
            self.skip_newlines()
            i = self.i
            if s.startswith(";;&", i):
                self.i += 3
            elif s.startswith(";;", i) or s.startswith(";&", i):
                self.i += 2

    def cond(self, start: int) -> Elem:
        """Read `[[ ... ]]` as a command whose words are its operands and operators."""
        s = self.s
        words = ["[["]
        while True:
            self.skip()
            i = self.i
            if i >= self.n:
                self.bad("the script ends before `]]`")
                break
            c = s[i]
            if c == "\n":
                self.newline()
                continue
            if s.startswith("]]", i) and (i + 2 >= self.n or s[i + 2] in _DELIMS):
                words.append("]]")
                self.i = i + 2
                break
            if s.startswith("&&", i) or s.startswith("||", i):
                words.append(s[i : i + 2])
                self.i = i + 2
                continue
            w = self.word(cond=True)
            if w is None:
                self.bad(f"unexpected {c!r} inside [[ ]]")
                break
            words.append(w)
        heredocs: list[str] = []
        cmd = self.emit({}, words, heredocs, None, False, False, start, self.i, start, [start])
        return Elem([cmd], cmd)

    def compound_redirs(self, elem: Elem) -> Elem:
        """Read the redirections after a compound command; they apply to the commands inside."""
        s = self.s
        while True:
            self.skip()
            i = self.i
            if i >= self.n or s[i] not in "<>&0123456789{":
                return elem
            if s[i] in "<>" and i + 1 < self.n and s[i + 1] == "(":
                return elem
            m = _REDIR(s, i)
            if m is None:
                return elem
            got = self.redirection(m)
            if got is None:
                continue
            kind, fd, target = got
            cmds = elem.cmds
            if kind == "out" and fd == 1:
                self.mark_stdout(cmds, target)
            elif kind == "out" and target is not None and cmds:
                cmds[0].writes_to.append(target)  # `{ ...; } 2> f`: written once, noted on the first
            elif kind == "dup" and fd == 1:
                self.mark_stdout(cmds, None)
            elif kind in ("in", "inout", "heredoc", "herestring") and fd == 0:
                free = [c for c in cmds if not c.stdin_redirected]
                self.mark_stdin(cmds, target if kind in ("in", "inout") else None)
                if kind == "inout" and target is not None and cmds:
                    cmds[0].writes_to.append(target)
                if kind == "herestring" and target is not None:
                    for c in free:
                        c.heredocs.append(target)
                elif kind == "heredoc" and target is not None:
                    delim, strip, quoted = target[2:], target[0] == "-", target[1] == "q"
                    self.pending.append((delim, strip, quoted, [c.heredocs for c in free]))

    def redirection(self, m: re.Match[str]) -> tuple[str, int, str | None] | None:
        """Read the redirection m starts; (kind, fd, target) with kind out, dup, in, heredoc,
        herestring or other. For a here-document the target is "-" or "=" (for <<- or <<), "q" or
        "u" (quoted delimiter or not), then the delimiter; its body is read at the next newline by
        the caller's pending list."""
        num, op = m.group(1), m.group(2)
        self.i = m.end()
        self.skip()
        at = self.i
        word = self.word()
        if word is None:
            self.bad(f"redirection {op} without a target", at)
            return None
        if op in ("<<", "<<-"):
            # Quoted or not, the body is data: it is kept as written. A quoted delimiter keeps the
            # shell from expanding the body.
            raw = self.s[at : self.i]
            quoted = "q" if ("'" in raw or '"' in raw or "\\" in raw) else "u"
            return "heredoc", (0 if num is None else (int(num) if num.isdigit() and len(num) < 10 else -1)), (
                ("-" if op == "<<-" else "=") + quoted + word)
        if self.wf is not None and op != "<<<":
            word = self.wv
        if num is None:
            fd = 0 if op[0] == "<" else 1
        elif num[0] == "{":
            fd = -1  # {var}> opens a new descriptor; stdin and stdout are untouched
        else:
            fd = int(num) if len(num) < 10 else 1 << 30
        if op == "<<<":
            if self.wf is not None:
                word = self.wv
            if self.unk:
                self.sh.expanded[id(word)] = None
            return "herestring", fd, word
        if op in ("<", "<&"):
            return "in", fd, word
        if op == "<>":
            return ("inout" if fd == 0 else "out"), fd, word
        if op in ("&>", "&>>"):
            return "out", 1, word
        if op == ">&":
            if word == "-" or word.isdigit():
                if num is None or fd == 1:
                    return ("other" if word == "1" else "dup"), 1, None
                return "other", fd, None
            return "out", 1, word  # `>& file` is `&> file`
        return "out", fd, word

    def simple(self) -> Elem:
        """Read a simple command: assignments, words and redirections in any order."""
        s = self.s
        n = self.n
        env: dict[str, str] = {}
        words: list[str] = []
        wpos: list[int] = []
        heredocs: list[str] = []
        stdout_to: str | None = None
        writes_to: list[str] = []
        stdin = False
        stdin_from: str | None = None
        arrays: dict[str, list[str]] = {}
        appended: set[str] = set()
        partial: set[str] = set()
        unknown = False
        sh = self.sh
        fixed = False
        start = -1
        end = -1
        wstart = -1
        pending: list[tuple[str, bool, bool]] = []
        while True:
            self.skip()
            i = self.i
            if i >= n:
                break
            c = s[i]
            if c in "<>&0123456789{":
                if c in "<>" and i + 1 < n and s[i + 1] == "(":
                    pass  # process substitution: a word
                else:
                    m = _REDIR(s, i)
                    if m is not None:
                        got = self.redirection(m)
                        if start < 0:
                            start = i
                        end = self.i
                        if got is None:
                            continue
                        kind, fd, target = got
                        if kind == "out" and fd == 1:
                            stdout_to = target
                            fixed = True
                        elif kind == "out" and target is not None:
                            writes_to.append(target)  # 2> f, 3> f, {fd}> f: a file written all the same
                        elif kind == "dup":
                            stdout_to = None
                            fixed = True
                        elif kind in ("in", "inout") and fd == 0:
                            stdin = True
                            stdin_from = target
                            if kind == "inout" and target is not None:
                                writes_to.append(target)  # <> f creates f and may write it
                        elif kind == "herestring" and fd == 0:
                            stdin = True
                            stdin_from = None
                            if target is not None:
                                heredocs.append(target)
                        elif kind == "heredoc" and target is not None:
                            if fd == 0:
                                stdin = True
                                stdin_from = None
                            pending.append((target[2:], target[0] == "-", target[1] == "q"))
                        continue
            if c in "\n;|)" or (c == "&"):
                break
            if c == "(":
                if len(words) == 1 and not env and start == wpos[0]:
                    fm = _lazy("parens")(s, i)
                    if fm is not None:
                        self.i = fm.end()
                        return self.function_body(words[0])
                self.bad("unexpected (")
                break
            w = self.word()
            if w is None:
                self.bad(f"unexpected {c!r}")
                self.i += 1
                continue
            fields = self.wf
            unk = self.unk
            if start < 0:
                start = i
            end = self.i
            if not words:
                prefix = _assignment(s, i, end)
                if prefix is not None:
                    name = prefix[:-2] if prefix.endswith("+=") else prefix[:-1]
                    if unk:
                        partial.add(name)
                    if fields is not None:
                        w = self.wv
                    if w.startswith(prefix):
                        value = w[len(prefix) :]
                    else:
                        value = w.partition("]=")[2] if "[" in name else w.partition("=")[2]
                    if i + len(prefix) == end and self.i < n and s[self.i] == "(":
                        value = self.array()
                        arrays[name] = self.av
                        if self.unk:
                            partial.add(name)
                        end = self.i
                    if prefix.endswith("+="):
                        appended.add(name)
                    env[name] = value
                    sh.words += 1
                    if sh.words > MAX_WORDS:
                        self.stop(f"too many words: the call has more than {MAX_WORDS} words; split it "
                                  "into smaller calls")
                        break
                    continue
            elif (w.endswith("=") and self.i < n and s[self.i] == "(" and program_name(words[0]) in _SETTERS
                  and _assignment(s, i, end) is not None):
                # `declare -a NAME=(...)`, `local NAME=(...)`: an array given to a builtin.
                text = self.array()
                arrays[w[:-1].rstrip("+")] = self.av
                unk = unk or self.unk
                w += text
                fields = None
                end = self.i
            unknown = unknown or unk
            if fields is not None:
                words.extend(fields)
                wpos.extend([i] * len(fields))
                sh.words += len(fields)
            else:
                words.append(w)
                wpos.append(i)
                sh.words += 1
            if sh.words > MAX_WORDS:
                self.stop(f"too many words: the call has more than {MAX_WORDS} words; split it into "
                          "smaller calls")
                break
            if wstart < 0:
                wstart = i
        if start < 0:
            self.bad("a command was expected")
            return Elem([])
        for delim, strip, quoted in pending:
            self.pending.append((delim, strip, quoted, [heredocs]))
        inherited = False
        if not stdin and self.inherit is not None:
            stdin, stdin_from, inherited = True, self.inherit, True
        cmd = self.emit(env, words, heredocs, stdout_to, stdin, fixed, start, end, wstart, wpos,
                        stdin_from)
        if writes_to:
            cmd.writes_to = writes_to
        if inherited:
            sh.inherited.add(id(cmd))
        elif cmd.argv == ["exec"] and stdin and not heredocs:
            self.inherit = stdin_from  # exec < FILE: the rest of this shell reads FILE
        if unknown:
            self.sh.unknown.add(id(cmd))
        if not words:
            if env:
                self.assignments(env, arrays, appended, partial)
        elif cmd.program in _SETTERS:
            self.setter(cmd, arrays)
        elif cmd.program in _MOVERS:
            from jouet_git.shell.values import moved

            moved(self, cmd)
        return Elem([cmd], cmd)

    def array(self) -> str:
        """Read the (...) of an array assignment; its text as written (av: its elements)."""
        s = self.s
        start = self.i
        self.i += 1
        items: list[str] = []
        self.av = items
        unk = False
        while True:
            self.skip_newlines()
            i = self.i
            if i >= self.n:
                self.bad("the script ends inside an array assignment")
                break
            if s[i] == ")":
                self.i += 1
                break
            w = self.word()
            if w is None:
                self.bad(f"unexpected {s[i]!r} in an array assignment")
                self.i += 1
            elif self.wf is not None:
                items.extend(self.wf)
            else:
                items.append(w)
            unk = unk or self.unk
        self.av = items
        self.unk = unk
        return s[start : self.i]

    # -- words ---------------------------------------------------------------------------------

    def word(self, cond: bool = False) -> str | None:
        """Read one word at i and return its value after quote removal; None when none is there."""
        s = self.s
        i = self.i
        n = self.n
        plain = _lazy("cond") if cond else _PLAIN
        m = plain(s, i)
        self.wf = None
        self.unk = False
        if m is not None:
            j = m.end()
            if j >= n or s[j] in (" \t\n;" if cond else _DELIMS):
                self.i = j
                return m.group()
        parts: list[str] = []
        # Expansions of this word whose values are known: (index in parts, value, kind).
        xs: list[tuple[int, Value, int]] = []
        start = i
        while i < n:
            m = plain(s, i)
            if m is not None:
                parts.append(m.group())
                i = m.end()
                continue
            c = s[i]
            if c == "'":
                j = s.find("'", i + 1)
                if j < 0:
                    self.bad("a single quote is never closed", i)
                    parts.append(s[i + 1 :])
                    i = n
                else:
                    parts.append(s[i + 1 : j])
                    i = j + 1
            elif c == '"':
                self.i = i + 1
                self.dquote(parts, xs)
                i = self.i
            elif c == "\\":
                if i + 1 >= n:
                    parts.append("\\")
                    i += 1
                elif s[i + 1] == "\n":
                    i += 2
                else:
                    parts.append(s[i + 1])
                    i += 2
            elif c == "$":
                self.i = i
                parts.append(self.dollar(False))
                i = self.i
                if self.xv is not None:
                    xs.append((len(parts) - 1, self.xv, _LIST_SPLIT if isinstance(self.xv, list) else _SPLIT))
            elif c == "`":
                self.i = i
                parts.append(self.backtick(False))
                i = self.i
                if self.xv is not None:
                    xs.append((len(parts) - 1, self.xv, _SPLIT))
            elif c in "<>" and i == start and i + 1 < n and s[i + 1] == "(":
                self.i = i + 2
                self.subst(c != ">")
                parts.append(s[i : self.i])
                if self.sv is not None and c == "<":
                    self.sh.procsubs[parts[-1]] = self.sv
                else:
                    self.unk = True
                i = self.i
            elif cond and c in "&|<>()":
                if c in "&|" and i + 1 < n and s[i + 1] == c:
                    break
                parts.append(c)
                i += 1
            else:
                break
        self.i = i
        if i == start:
            return None
        if xs:
            self.expanded_word(parts, xs, s[start:i])
        return "".join(parts)

    def expanded_word(self, parts: list[str], xs: list[tuple[int, Value, int]], raw: str) -> None:
        """Set wf and wv: the fields and the value of a word whose expansions xs are known."""
        from jouet_git.shell import expand

        known = {k: (value, kind) for k, value, kind in xs}
        pieces: list[tuple[Value, int]] = []
        for k, part in enumerate(parts):
            got = known.get(k)
            pieces.append((part, expand.LITERAL) if got is None else got)
        ifs = self.sh.vars.get("IFS", expand.DEFAULT_IFS)
        ifs = ifs if isinstance(ifs, str) else expand.DEFAULT_IFS
        quoted = "'" in raw or '"' in raw
        self.wf = expand.fields(pieces, ifs, quoted)
        self.wv = "".join(expand.joined(value) if kind != expand.LITERAL else str(value) for value, kind in pieces)

    def dquote(self, parts: list[str], xs: list[tuple[int, Value, int]] | None = None) -> None:
        """Read the inside of "..." from i, past the closing quote, adding its value to parts (and
        the known values of its expansions to xs)."""
        s = self.s
        n = self.n
        i = self.i
        start = i - 1
        while True:
            m = _DQ_PLAIN(s, i)
            if m is not None:
                parts.append(m.group())
                i = m.end()
            if i >= n:
                self.bad("a double quote is never closed", start)
                break
            c = s[i]
            if c == '"':
                i += 1
                break
            if c == "\\":
                if i + 1 >= n:
                    parts.append("\\")
                    i += 1
                    continue
                d = s[i + 1]
                if d == "\n":
                    pass
                elif d in '$`"\\':
                    parts.append(d)
                else:
                    parts.append("\\" + d)
                i += 2
            elif c == "$":
                self.i = i
                parts.append(self.dollar(True))
                i = self.i
                if xs is not None and self.xv is not None:
                    xs.append((len(parts) - 1, self.xv, _LIST_QUOTED if isinstance(self.xv, list) else _QUOTED))
            else:  # backtick
                self.i = i
                parts.append(self.backtick(True))
                i = self.i
                if xs is not None and self.xv is not None:
                    xs.append((len(parts) - 1, self.xv, _QUOTED))
        self.i = i

    def dollar(self, in_dq: bool) -> str:
        """Read what starts with the $ at i; its value (expansions as written, $'...' decoded).

        Sets xv to the expansion's value when it is known from earlier in the call (a variable, a
        pure command substitution), None otherwise."""
        s = self.s
        n = self.n
        i = self.i
        self.xv = None
        if i + 1 >= n:
            self.i = i + 1
            return "$"
        c = s[i + 1]
        if c == "(":
            if i + 2 < n and s[i + 2] == "(" and self.is_arith(i + 3):
                self.i = i + 3
                self.arith()
                self.xv = None
            else:
                self.i = i + 2
                self.subst(True)
                self.xv = None if self.sv is None else self.sv.rstrip("\n")
            if self.xv is None:
                self.unk = True
            return s[i : self.i]
        if c == "{":
            self.i = i + 2
            self.brace()
            self.xv = None
            inner = s[i + 2 : self.i - 1]
            if self.sh.vars or ("-" in inner or "=" in inner):
                self.xv = self.param(inner)
            if self.xv is None:
                self.unk = True
            return s[i : self.i]
        if c == "'" and not in_dq:
            return self.ansi_c(i + 2)
        if c == '"' and not in_dq:
            self.i = i + 2
            parts: list[str] = []
            self.dquote(parts)
            return "".join(parts)
        if c == "[":
            j = s.find("]", i + 2)
            self.i = n if j < 0 else j + 1
            return s[i : self.i]
        if c in _SPECIAL_PARAMS:
            self.i = i + 2
            if self.sh.vars:
                xv = self.lookup(c)
                self.xv = xv if xv is None or self.charge(_size(xv)) else None
            if self.xv is None:
                self.unk = True
            return s[i : self.i]
        j = _name_end(s, i + 1)
        self.i = j if j > i + 1 else i + 1
        if j == i + 1:
            return "$"
        if self.sh.vars:
            got = self.lookup(s[i + 1 : j])
            self.xv = (got[0] if got else "") if isinstance(got, list) else got
            if self.xv is not None and not self.charge(len(self.xv)):
                self.xv = None
        if self.xv is None:
            self.unk = True
        return s[i : self.i]

    def param(self, inner: str) -> Value | None:
        """The value of ${inner}, when known; the text it makes counts against the budget, and
        pattern operations against MAX_PATTERN_OPS."""
        from jouet_git.shell.expand import param

        sh = self.sh
        name_end = _name_end(inner, 1 if inner[:1] in "#!" else 0)
        if any(c in inner[name_end:] for c in "#%/"):
            sh.patterns += 1
            if sh.patterns > MAX_PATTERN_OPS:
                self.bad(f"too much nested text: more than {MAX_PATTERN_OPS} pattern operations "
                         "(${x#p}, ${x/p/r}...) to work out")
                return None
        value = param(inner, self.lookup, self.assign)
        if value is None:
            return None
        return value if self.charge(_size(value)) else None

    # -- variables -----------------------------------------------------------------------------

    def lookup(self, name: str) -> Value | None:
        """The value of a variable or parameter assigned earlier in the call, or None. A value
        made with something not known (kept as written in it) marks the word unknown (unk)."""
        got = self.sh.vars.get(name)
        if got is not None:
            if name in self.sh.partial:
                self.unk = True
            return got
        args = self.sh.vars.get("@")
        if not isinstance(args, list):
            return None
        if name.isdigit():
            k = int(name)
            return (args[k - 1] if k <= len(args) else "") if k > 0 else None
        if name == "#":
            return str(len(args))
        if name == "*":
            return " ".join(args)
        return None

    def assign(self, name: str, value: Value | None, partial: bool = False) -> None:
        """Give a variable a value (None: one not known, so $name stays as written; partial: the
        value holds expansions not known, kept as written)."""
        sh = self.sh
        vars_ = sh.vars
        if value is not None and name not in vars_ and len(vars_) >= MAX_VARS:
            if not sh.full:
                sh.full = True
                self.bad(f"too many variables: the call sets more than {MAX_VARS}; the values of the "
                         "others are not followed")
            value = None
        sh.journal.append((name, vars_.get(name), name in sh.exported, name in sh.partial))
        if value is None:
            vars_.pop(name, None)
        else:
            vars_[name] = value
        if partial:
            sh.partial.add(name)
        elif sh.partial:
            sh.partial.discard(name)

    def export(self, name: str, on: bool = True) -> None:
        sh = self.sh
        sh.journal.append((name, sh.vars.get(name), name in sh.exported, name in sh.partial))
        if on:
            sh.exported.add(name)
        else:
            sh.exported.discard(name)

    def save(self) -> Saved:
        """A mark to put the variables back to after a subshell (its cost is that of the changes
        made in between, not of the variables)."""
        return len(self.sh.journal), None

    def restore(self, saved: Saved) -> None:
        sh = self.sh
        mark, outer = saved
        journal = sh.journal
        if outer is not None:
            # Back from a child shell: its variables are dropped whole.
            sh.vars, sh.exported, sh.partial = outer
            del journal[mark:]
            return
        while len(journal) > mark:
            name, old, exported, partial = journal.pop()
            if old is None:
                sh.vars.pop(name, None)
            else:
                sh.vars[name] = old
            if exported:
                sh.exported.add(name)
            else:
                sh.exported.discard(name)
            if partial:
                sh.partial.add(name)
            else:
                sh.partial.discard(name)

    def assignments(self, env: dict[str, str], arrays: dict[str, list[str]], appended: set[str],
                    partial: set[str]) -> None:
        """A command of assignments only: the variables keep their values for the rest of the
        shell (NAME[k]=... makes the array unknown; partial: values made with unknown parts)."""
        for name, value in env.items():
            if "[" in name:
                self.assign(name.partition("[")[0], None)
                continue
            new: Value = arrays.get(name, value)
            if name in appended:
                old = self.lookup(name)
                if old is None:
                    new = None if isinstance(new, list) else "${" + name + "}" + new  # type: ignore[assignment]
                elif isinstance(old, list) or isinstance(new, list):
                    new = (old if isinstance(old, list) else [old]) + (new if isinstance(new, list) else [new])
                else:
                    new = old + new
            self.assign(name, new, name in partial or (name in appended and name in self.sh.partial))

    def setter(self, cmd: Command, arrays: dict[str, list[str]]) -> None:
        """What export, declare, local, readonly, typeset, unset, read, printf -v, set, shift and
        alias do to the variables (and aliases)."""
        from jouet_git.shell.values import builtin

        builtin(self, cmd, arrays)

    def list_value(self, items: list[AndOr]) -> str | None:
        """What a list of commands prints, when every command in it is pure (see pure.py)."""
        for item in items:
            for pipe in item.pipes:
                for elem in pipe.elems:
                    cmd = elem.cmd
                    if cmd is None or (cmd.program not in PURE and cmd.argv and cmd.program != "false"):
                        return None
        from jouet_git.shell.values import list_output

        return list_output(self, items)

    def child(self, cmd: Command) -> Saved:
        """Switch to the variables a child process of cmd sees (exported ones and cmd's own
        assignments); returns the current ones, to restore."""
        sh = self.sh
        saved: Saved = (len(sh.journal), (sh.vars, sh.exported, sh.partial))
        env: dict[str, Value] = {k: sh.vars[k] for k in sh.exported if k in sh.vars}
        env.update(cmd.env)
        partial = {k for k in sh.partial if k in env}
        sh.vars = env
        sh.exported = set(env)
        sh.partial = partial
        return saved

    def skip_quoted(self, i: int) -> int:
        """Past the escape, quoted text or expansion at I (a character of _QUOTING), read as data
        inside ${...} or $((...)); returns where reading goes on."""
        s = self.s
        c = s[i]
        if c == "\\":
            return i + 2
        if c == "'":
            j = s.find("'", i + 1)
            return self.n if j < 0 else j + 1
        self.i = i
        if c == '"':
            self.i = i + 1
            self.dquote([])
        elif c == "$":
            self.dollar(False)
        else:
            self.backtick(False)
        return self.i

    def brace(self) -> None:
        """Read a ${...} expansion from just inside its brace to just past its closing one."""
        if not self.enter():
            return
        try:
            s = self.s
            n = self.n
            depth = 1
            i = self.i
            while i < n:
                c = s[i]
                if c == "}":
                    depth -= 1
                    if depth == 0:
                        self.i = i + 1
                        return
                    i += 1
                elif c == "{":
                    depth += 1
                    i += 1
                elif c in _QUOTING:
                    i = self.skip_quoted(i)
                else:
                    i += 1
            self.i = n
            self.bad("a ${ is never closed")
        finally:
            self.sh.depth -= 1

    def ansi_c(self, i: int) -> str:
        """Decode $'...' from just inside its quote; sets i past the closing quote."""
        s = self.s
        n = self.n
        out: list[str] = []
        raw_bytes = False
        cut = False
        while True:
            if i >= n:
                self.bad("a $'...' string is never closed")
                break
            c = s[i]
            if c == "'":
                i += 1
                break
            if c != "\\" or i + 1 >= n:
                if not cut:
                    out.append(c)
                i += 1
                continue
            d = s[i + 1]
            i += 2
            if d in _ESCAPES:
                ch = _ESCAPES[d]
            elif d in "01234567":
                j = i
                while j < n and j < i + 2 and s[j] in "01234567":
                    j += 1
                value = int(s[i - 1 : j], 8) & 0xFF
                i = j
                ch, raw_bytes = _byte(value, raw_bytes)
            elif d == "x":
                if i < n and s[i] == "{":
                    j = s.find("}", i)
                    digits = s[i + 1 : j] if j > 0 else ""
                    if j > 0 and digits and all(h in _HEX for h in digits) and len(digits) < 9:
                        ch, raw_bytes = _byte(int(digits, 16) & 0xFF, raw_bytes)
                        i = j + 1
                    else:
                        ch = "\\x"
                else:
                    j = i
                    while j < n and j < i + 2 and s[j] in _HEX:
                        j += 1
                    if j == i:
                        ch = "\\x"
                    else:
                        ch, raw_bytes = _byte(int(s[i:j], 16), raw_bytes)
                        i = j
            elif d in "uU":
                j = i
                limit = i + (4 if d == "u" else 8)
                while j < n and j < limit and s[j] in _HEX:
                    j += 1
                if j == i:
                    ch = "\\" + d
                else:
                    ch, raw_bytes = _codepoint(int(s[i:j], 16), raw_bytes)
                    i = j
            elif d == "c":
                if i < n and s[i] != "'":
                    e = s[i]
                    i += 1
                    quote = ""
                    if e == "\\" and i < n and s[i] == "\\":
                        i += 1
                    elif e == "\\" and i < n and s[i] == "'":
                        # bash's scanner reads \' as an escaped quote before decoding: `\c\'` is
                        # control-backslash then a literal quote, and the string goes on.
                        i += 1
                        quote = "'"
                    if e == "?":
                        ch = "\x7f"
                    elif e < "\x80":
                        ch = chr(ord(e) & 0x1F)
                    else:
                        # bash works on bytes: the control character of the first byte, then
                        # the rest of the character's bytes as they were.
                        data = e.encode("utf-8", "surrogatepass")
                        ch = chr(data[0] & 0x1F) + "".join(_byte(b, True)[0] for b in data[1:])
                        raw_bytes = True
                    ch += quote
                else:
                    ch = "\\c"
            else:
                ch = "\\" + d
            if ch == "\x00":
                cut = True  # bash drops the rest of the string after a NUL
            if not cut:
                out.append(ch)
        self.i = min(i, n)
        text = "".join(out)
        return _rejoin(text) if raw_bytes else text

    def backtick(self, in_dq: bool) -> str:
        """Read `...` from the backtick at i: read its body as commands; return it as written."""
        s = self.s
        n = self.n
        start = self.i
        k = start + 1
        j = s.find("`", k)
        simple = j >= 0 and s.find("\\", k, j) < 0
        pmap: list[int] | None
        if simple:
            body = s[k:j]
            end = j + 1
            pmap = None if self.pmap is None else [self.at(x) for x in range(k, j + 1)]
        else:
            chars: list[str] = []
            pmap = []
            while k < n:
                c = s[k]
                if c == "`":
                    break
                if c == "\\" and k + 1 < n:
                    d = s[k + 1]
                    if d in "$`\\" or (in_dq and d == '"'):
                        chars.append(d)
                        pmap.append(self.at(k))
                    else:
                        chars.append(c)
                        pmap.append(self.at(k))
                        chars.append(d)
                        pmap.append(self.at(k + 1))
                    k += 2
                    continue
                chars.append(c)
                pmap.append(self.at(k))
                k += 1
            if k >= n:
                self.bad("a backtick is never closed", start)
                k = n
                end = n
            else:
                end = k + 1
            pmap.append(self.at(k))
            body = "".join(chars)
        self.i = end
        saved = self.save()
        self.sub(body, captured=True, spans=self.spans, base=self.at(start + 1), pmap=pmap,
                 prefix=self.prefix, seq=self.seq, value=True, fresh=True)
        self.restore(saved)
        self.xv = None if self.sv is None else self.sv.rstrip("\n")
        if self.xv is None:
            self.unk = True
        return s[start:end]

    def sub(self, text: str, *, captured: bool, spans: bool, base: int, pmap: list[int] | None,
            prefix: tuple[int, ...], seq: int | None, chain: list[str] | None = None,
            value: bool = False, origin: Command | None = None, fresh: bool = False) -> list[Command]:
        """Read text (a backtick body, a -c script) as a nested script; its own commands.

        chain: the programs that run the text, when it is a script of its own (None: this text's
        own, for a backtick body). value: set sv to what the text prints, when that is known.
        fresh: the text runs in a subshell or process of its own (origin: the command that starts
        it), so that its cds move only its own commands."""
        sh = self.sh
        self.sv = None
        if sh.stopped:
            return []
        if not text.strip():
            if value:
                self.sv = ""
            return []
        if not self.charge(len(text)):
            return []
        if not self.enter():
            return []
        try:
            scope = self.scope
            if fresh or origin is not None:
                sh.scopes += 1
                scope = (*scope, sh.scopes)
            reader = Reader(sh, text, nested=True, captured=captured, spans=spans, base=base,
                            pmap=pmap, prefix=prefix, seq=seq, scope=scope,
                            chain=self.chain if chain is None else chain,
                            origin=self.origin if origin is None and not fresh else origin)
            items = reader.script()
            if value:
                self.sv = reader.list_value(items)
            return reader.emitted
        finally:
            sh.depth -= 1

    def subst(self, captured: bool) -> None:
        """Read the commands of $(...), <(...) or >(...) in place, from just inside the paren;
        sv is then what they print, when that is known."""
        self.sv = None
        if not self.enter():
            return
        saved = (self.nested, self.captured, self.last, self.sep, self.emitted, self.scope, self.origin)
        variables = self.save()
        # A subshell: its cds move only its own commands.
        self.sh.scopes += 1
        self.scope = (*self.scope, self.sh.scopes)
        self.origin = None
        self.nested = True
        self.captured = captured or self.captured
        self.last = None
        self.sep = None
        self.emitted = []
        self.substs += 1
        self.sv = None
        try:
            start = self.i
            items = self.read_list(_STOP_PAREN)
            if self.sep is not None:
                self.sep.op = None
            if self.i < self.n and self.s[self.i] == ")":
                self.i += 1
            else:
                self.bad("a $( or <( is never closed", start - 2)
            if self.feeds and not self.pending:
                _follow().flush(self)
            value = self.list_value(items)
        finally:
            self.nested, self.captured, self.last, self.sep, self.emitted, self.scope, self.origin = saved
            self.restore(variables)
            self.substs -= 1
            self.sh.depth -= 1
        self.sv = value

    def is_arith(self, j: int) -> bool:
        """Whether the (( ending at j opens arithmetic (closed by `))`), not nested subshells."""
        sh = self.sh
        if sh.look <= 0:
            return True
        s = self.s
        n = self.n
        depth = 0
        k = j
        arith_plain = _lazy("arith")
        while k < n:
            m = arith_plain(s, k)
            if m is not None:
                k = m.end()
                if k >= n:
                    break
            c = s[k]
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    sh.look -= k - j
                    return k + 1 < n and s[k + 1] == ")"
                depth -= 1
            elif c == "\\":
                k += 1
            elif c == "'":
                q = s.find("'", k + 1)
                k = n if q < 0 else q
            elif c == '"':
                q = k + 1
                while q < n and s[q] != '"':
                    q += 2 if s[q] == "\\" else 1
                k = q
            k += 1
        sh.look -= k - j
        return True

    def arith(self) -> None:
        """Read arithmetic from just inside (( to just past its )), reading any $( inside."""
        if not self.enter():
            return
        try:
            s = self.s
            n = self.n
            depth = 0
            i = self.i
            arith_plain = _lazy("arith")
            while i < n:
                m = arith_plain(s, i)
                if m is not None:
                    i = m.end()
                    if i >= n:
                        break
                c = s[i]
                if c == "(":
                    depth += 1
                    i += 1
                elif c == ")":
                    if depth == 0:
                        if i + 1 < n and s[i + 1] == ")":
                            self.i = i + 2
                        else:
                            self.bad("arithmetic (( is closed by a single )")
                            self.i = i + 1
                        return
                    depth -= 1
                    i += 1
                else:  # what the plain-text pattern stops at besides parentheses: quoting
                    i = self.skip_quoted(i)
            self.i = n
            self.bad("arithmetic (( is never closed")
        finally:
            self.sh.depth -= 1

    # -- building commands ---------------------------------------------------------------------

    def emit(
        self,
        env: dict[str, str],
        words: list[str],
        heredocs: list[str],
        stdout_to: str | None,
        stdin: bool,
        fixed: bool,
        start: int,
        end: int,
        wstart: int,
        wpos: list[int],
        stdin_from: str | None = None,
    ) -> Command:
        sh = self.sh
        sh.commands += 1
        if sh.commands > MAX_COMMANDS:
            self.counted()
        u: Unwrapped | None = None
        program = program_name(words[0]) if words else ""
        if program in ALL_WRAPPERS:
            u = unwrap_more(words)
            argv, via, offset = u.argv, u.via, u.offset
            if u.env:
                env = {**env, **u.env}
            program = program_name(argv[0]) if argv else ""
        else:
            argv, via, offset = words, [], 0
        if self.chain:
            via = [*self.chain, *via]
        line = " ".join(argv)
        if self.spans:
            span: tuple[int, int] | None = (self.at(start), self.at(end))
            words_at = self.at(wstart) if wstart >= 0 else None
        else:
            span = None
            words_at = None
        cmd = Command(
            words, argv, program, heredocs, via, None, stdout_to, stdin, env, span, words_at,
            self.nested, line[:80], line, False, self.captured,
        )
        cmd.scope = self.scope
        cmd.origin = self.origin
        cmd.stdin_from = stdin_from
        if self.nested:
            cmd.seq = sh.count if self.seq is None else self.seq
            sh.nested.append(((*self.prefix, self.at(start)), cmd))
        else:
            cmd.seq = sh.count
            sh.count += 1
            sh.top.append(cmd)
        if fixed:
            sh.fixed.add(id(cmd))
            if stdout_to is not None and program in PURE:
                sh.writes = True  # a pure command writing a file: what it writes may be run later
        self.last = cmd
        self.sep = None
        self.emitted.append(cmd)
        if u is not None:
            if u.stdin_args:
                cmd.stdin_args = True
            if u.chdir is not None:
                cmd.chdir = u.chdir
            if u.xargs is not None:
                at = wpos[offset] if offset >= 0 else start
                sh.consumers[id(cmd)] = ("xargs", (*self.prefix, self.at(at)), u.xargs)
        if not argv:
            return cmd
        if ((u is not None and u.script is not None) or program in _SPECIAL
                or (sh.functions and program in sh.functions)
                or (sh.aliases and argv[0] in sh.aliases)
                or (program[:1] in "pl" and is_interpreter(program))):
            at = wpos[offset] if offset >= 0 else start
            _follow().follow(self, cmd, u, (*self.prefix, self.at(at)), wpos, offset)
        elif program in CD:
            if all(v in CD_VIA for v in via):
                _follow().moved(self, cmd)
        elif sh.files and "/" in argv[0]:
            at = wpos[offset] if offset >= 0 else start
            _follow().executable(self, cmd, (*self.prefix, self.at(at)))
        return cmd

def _follow() -> ModuleType:
    """follow.py, imported on first use: most commands need none of it."""
    from jouet_git.shell import follow

    return follow


def _size(value: Value) -> int:
    return len(value) if isinstance(value, str) else sum(len(v) + 1 for v in value)


def _joined(value: Value) -> str:
    return value if isinstance(value, str) else " ".join(value)


def _rejoin(text: str) -> str:
    """Join the raw bytes of a $'...' string (kept as surrogate escapes) into the characters they
    spell, as bash passes them on; bytes that spell none stay escaped."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    except UnicodeError:  # a lone surrogate written in the script itself
        return text


def _byte(value: int, raw: bool) -> tuple[str, bool]:
    """One byte of a $'...' string: ASCII as itself, others as surrogate escapes (joined later)."""
    if value < 0x80:
        return chr(value), raw
    return chr(0xDC00 + value), True


def _codepoint(value: int, raw: bool) -> tuple[str, bool]:
    """A \\u or \\U escape: the character, or bash's raw UTF-8-style bytes when it is none."""
    if value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF:
        return chr(value), raw
    if value == 0:
        return "\x00", raw
    # Encode the way bash does, with UTF-8's scheme extended past U+10FFFF.
    if value < 0x10000:
        out = [0xE0 | (value >> 12), 0x80 | ((value >> 6) & 0x3F), 0x80 | (value & 0x3F)]
    elif value < 0x200000:
        out = [0xF0 | (value >> 18), 0x80 | ((value >> 12) & 0x3F), 0x80 | ((value >> 6) & 0x3F),
               0x80 | (value & 0x3F)]
    elif value < 0x4000000:
        out = [0xF8 | (value >> 24), 0x80 | ((value >> 18) & 0x3F), 0x80 | ((value >> 12) & 0x3F),
               0x80 | ((value >> 6) & 0x3F), 0x80 | (value & 0x3F)]
    else:
        out = [0xFC | ((value >> 30) & 0x01), 0x80 | ((value >> 24) & 0x3F),
               0x80 | ((value >> 18) & 0x3F), 0x80 | ((value >> 12) & 0x3F),
               0x80 | ((value >> 6) & 0x3F), 0x80 | (value & 0x3F)]
    return "".join(chr(0xDC00 + b) for b in out), True
