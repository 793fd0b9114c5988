"""What a session was shown: the lines of files its reads put into the agent's context, and whether
a read would show only lines it already saw, in files unchanged since.

    shown = reads.shown(call)      # Shown (the pieces of files the call reads), or None: not a read
    shown.lines, shown.code_lines  # for min_read_lines and min_code_lines
    reads.seen(call, shown)        # for `seen`: every line already shown to this session, unchanged
    reads.note(call, decision)     # after deciding: remember what an allowed read showed

A read is a file tool's read (Claude Code's Read, with `offset` and `limit`, up to 2,000 lines
without a limit; Gemini CLI's read_file, whose `offset` counts from 0, with the same default;
Copilot's view and its `view_range`; Amp's Read and its `read_range`; the whole file for the
other harnesses' read tools) or a shell call made only of cat, head, tail, `sed -n` and nl (and
`cd`), whose output reaches the transcript: `cat a.py`, `head -n 40 a.py | tail -n 10`,
`sed -n '10,20p' a.py`, `cd src && nl a.py`. Any other call is not a read: it shows no lines and
is never `seen`.

Where it is kept: a per-session log of its own, `$JOUET_STATE_DIR/reads/<hash>.jsonl` (0600 in a
0700 directory), one per agent of a session, one line per file a read showed: a hash of the file's
real path (never the path or its content), the lines shown, and the file's signature then (size,
mtime, ctime, inode). A read is `seen` when every line it shows was in such a line with the
signature the file has now. Not in the hooks' ledger, because the ledger keeps only shapes with
JOUET_STORE_CONTENT=0, does not hold the signature or the lines, is shared by every session (finding
one session's reads would mean scanning it backwards on every read), and cannot be emptied when a
session's context is (Claude Code's /clear and compaction start the log again, see forget_session).

What is remembered is what the call was allowed to show: a read a rule denies is not remembered,
and makes the session's earlier reads of those files count as unseen, so making the same read again
goes through (the reread rule's way through: a read the agent needs again is one repeat away). A
shell read that fails (post-tool-use with a non-zero exit) is forgotten the same way. A Read of
more than TOO_LARGE bytes is not remembered: Claude Code refuses one over its token limit.

The log is bounded: past MAX_LOG bytes it is rewritten keeping the newest half; logs not touched
for STALE_DAYS are removed when a new one starts.

On the hook path: imports os and json; glob and re only for a shell read.
"""

from __future__ import annotations

import json
import os

from jouet_git import cmdline
from jouet_git.call import KIND_READ, KIND_SHELL, POST_TOOL_USE, SHELL_READERS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.call import Call, Command

# Lines a read tool shows without a limit, by harness (others show the whole file).
DEFAULT_LIMIT = {"claude": 2000, "gemini": 2000, "test": 2000, "check": 2000}
# Claude Code refuses a Read over 25,000 tokens (about four bytes each): it shows nothing.
TOO_LARGE = 100_000
# Programs a shell read may be made of.
READERS = SHELL_READERS
# Files counted whole up to this size; beyond it, lines are estimated from the first part.
COUNT_BYTES = 8 * 1024 * 1024
MAX_FILES = 64
MAX_LOG = 256 * 1024
STALE_DAYS = 7
# Files a read tool shows as something other than lines of text.
NOT_TEXT = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".ico", ".pdf", ".ipynb"})

_lines_cache: dict[tuple[str, tuple[int, ...]], int] = {}


class Piece:
    """Lines FIRST to LAST (1-based, inclusive) of the file at PATH (its real path), whose
    signature was SIG when they were read."""

    __slots__ = ("code", "first", "last", "path", "sig")

    def __init__(self, path: str, first: int, last: int, sig: tuple[int, ...], code: bool) -> None:
        self.path = path
        self.first = first
        self.last = last
        self.sig = sig
        self.code = code

    @property
    def count(self) -> int:
        return max(0, self.last - self.first + 1)

    def __repr__(self) -> str:
        return f"Piece({self.path!r}, {self.first}-{self.last})"


class Shown:
    """What a read puts into the context."""

    __slots__ = ("pieces",)

    def __init__(self, pieces: list[Piece]) -> None:
        self.pieces = pieces

    @property
    def lines(self) -> int:
        return sum(p.count for p in self.pieces)

    @property
    def code_lines(self) -> int:
        return sum(p.count for p in self.pieces if p.code)


# --- files ------------------------------------------------------------------------------------------


def signature(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _file(path: str) -> tuple[str, tuple[int, ...]] | None:
    """The real path and signature of the regular file at PATH, or None."""
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except (OSError, ValueError):
        return None
    import stat

    if not stat.S_ISREG(st.st_mode):
        return None
    return real, signature(st)


def line_count(path: str, sig: tuple[int, ...]) -> int:
    """How many lines the file at PATH has (the last one counts without its newline)."""
    key = (path, sig)
    cached = _lines_cache.get(key)
    if cached is not None:
        return cached
    size = sig[0]
    count = 0
    try:
        with open(path, "rb") as f:
            if size <= COUNT_BYTES:
                data = f.read()
                count = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
            else:
                sample = f.read(1024 * 1024)
                per_line = len(sample) / max(1, sample.count(b"\n"))
                count = int(size / per_line)
    except OSError:
        count = 0
    _lines_cache[key] = count
    return count


def _piece(path: str, first: int, last: int | None) -> Piece | None:
    """Lines FIRST to LAST (None: to the end) of the file at PATH, as far as it has them."""
    found = _file(path)
    if found is None:
        return None
    real, sig = found
    total = line_count(real, sig)
    end = total if last is None else min(last, total)
    from jouet_git.outline import language

    return Piece(real, max(1, first), end, sig, language(real) is not None)


# --- file tools ---------------------------------------------------------------------------------------


def _number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def tool_range(call: Call) -> tuple[int, int | None]:
    """The lines a read tool shows: (first, last), last None for the end of the file."""
    given = call.input
    for key in ("view_range", "read_range"):  # Copilot's view, Amp's Read: [first, last], -1 the end
        span = given.get(key)
        if isinstance(span, list) and len(span) == 2:
            first, last = _number(span[0]), _number(span[1])
            if first is not None and last is not None:
                return max(1, first), (None if last < 0 else last)
    offset = _number(given.get("offset"))
    limit = _number(given.get("limit"))
    if call.harness == "gemini":  # read_file counts its offset from 0
        first = (offset or 0) + 1
    else:
        first = offset if offset is not None and offset > 1 else 1
    if limit is None or limit <= 0:
        limit = DEFAULT_LIMIT.get(call.harness)
    return first, (first + limit - 1 if limit is not None else None)


def _tool_shown(call: Call) -> Shown | None:
    if not call.path or os.path.splitext(call.path)[1].lower() in NOT_TEXT:
        return None
    path = os.path.join(call.cwd, os.path.expanduser(call.path))
    first, last = tool_range(call)
    piece = _piece(path, first, last)
    return Shown([piece]) if piece is not None else None


# --- shell reads --------------------------------------------------------------------------------------

# A stream of lines: pieces of files, in order.
Stream = list[Piece]


def _slice(stream: Stream, start: int, end: int | None) -> Stream:
    """Lines START to END (1-based, inclusive; END None: to the end) of STREAM."""
    out: Stream = []
    at = 0  # lines of the stream before the current piece
    for piece in stream:
        lo, hi = at + 1, at + piece.count
        at = hi
        a, b = max(lo, start), hi if end is None else min(hi, end)
        if a <= b:
            out.append(Piece(piece.path, piece.first + (a - lo), piece.first + (b - lo), piece.sig, piece.code))
    return out


def _length(stream: Stream) -> int:
    return sum(p.count for p in stream)


class _Options:
    """A reader's options and operands, read the way its program reads them (cmdline.read_options,
    with head's and tail's `-20` and `+5`); `bad` when the line ends on an option's missing value."""

    def __init__(self, argv: list[str], with_value: frozenset[str], long_with_value: frozenset[str]) -> None:
        self.flags, self.operands, whole = cmdline.read_options(argv, with_value | long_with_value, 1, numbers=True)
        self.bad = not whole

    def has(self, *names: str) -> bool:
        return any(name == wanted for name, _ in self.flags for wanted in names)


_HEAD_VALUES = frozenset({"-n", "-c"})
_HEAD_LONG = frozenset({"--lines", "--bytes"})
_TAIL_VALUES = frozenset({"-n", "-c", "-s"})
_TAIL_LONG = frozenset({"--lines", "--bytes", "--pid", "--sleep-interval", "--max-unchanged-stats"})
_NL_VALUES = frozenset({"-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"})
_NL_LONG = frozenset({"--body-numbering", "--section-delimiter", "--footer-numbering", "--header-numbering",
                      "--line-increment", "--join-blank-lines", "--number-format", "--number-separator",
                      "--starting-line-number", "--number-width"})


def _count_option(options: _Options) -> tuple[str, int] | None:
    """head/tail's line count: ("last", N) for -n N, ("from", N) for tail's +N, ("all-but", N) for
    head's -n -N; None when it reads bytes or the count is not a number."""
    if options.has("-c", "--bytes", "-z", "--zero-terminated"):
        return None
    count: tuple[str, int] = ("last", 10)
    for name, value in options.flags:
        if name == "+" and value is not None:
            count = ("from", int(value))
        elif name in ("-n", "--lines") and value is not None:
            text = value.strip()
            if text.startswith("+") and text[1:].isdigit():
                count = ("from", int(text[1:]))
            elif text.startswith("-") and text[1:].isdigit():
                count = ("all-but", int(text[1:]))
            elif text.isdigit():
                count = ("last", int(text))
            else:
                return None
    return count


def _sed_ranges(options: _Options) -> tuple[list[tuple[int, int | None]], list[str]] | None:
    """The line ranges a `sed -n` script prints, and its file operands; None for any other sed."""
    if not options.has("-n", "--quiet", "--silent") or options.has("-i", "--in-place", "-z", "--null-data", "-f",
                                                                    "--file", "-s", "--separate"):
        return None
    scripts, operands = cmdline.sed_scripts(options.flags, options.operands)
    if not scripts:
        return None
    ranges: list[tuple[int, int | None]] = []
    for script in scripts:
        for part in script.replace("\n", ";").split(";"):
            if not part.strip():
                continue
            found = _sed_print(part)
            if found is None:
                return None
            first, last, what = found
            if what == "q":
                continue
            if first == "$":
                return None  # the last line: the stream's length decides, kept simple
            ranges.append((int(first), None if last == "$" else int(last or first)))
    return (ranges, operands) if ranges else None


def _expand(operand: str, directory: str, home: str) -> list[str] | None:
    """The files an operand names (a glob expanded as the shell does); None when it names none."""
    if operand == "-":
        return None
    if operand.startswith("~/") or operand == "~":
        operand = home + operand[1:]
    full = operand if os.path.isabs(operand) else os.path.join(directory, operand)
    if any(c in operand for c in "*?["):
        import glob

        found = sorted(glob.glob(full))
        return found or None
    return [full]


def _sed_print(part: str) -> tuple[str, str | None, str] | None:
    """A sed command that only prints or quits: `N`, `N,M`, `$` or `N,$`, then p or q, blanks around
    (first, last or None, the command); None for any other."""
    text = part.strip()
    if not text or text[-1] not in "pq":
        return None
    first, comma, last = text[:-1].partition(",")
    first, last = first.strip(), last.strip()

    def address(word: str) -> bool:
        return word == "$" or word.isdecimal()

    if not address(first) or (comma and not address(last)):
        return None
    return first, (last if comma else None), text[-1]


def _read_files(operands: list[str], directory: str, home: str) -> list[str] | None:
    files: list[str] = []
    for operand in operands:
        named = _expand(operand, directory, home)
        if named is None:
            return None
        files.extend(named)
    return files if 0 < len(files) <= MAX_FILES else None


def _whole(path: str) -> Piece | None:
    return _piece(path, 1, None)


def _apply(command: Command, stream: Stream | None, directory: str, home: str) -> Stream | None:
    """What COMMAND prints: from its files when it names any, else from STREAM (what is piped into
    it). None when it is not a read jouet can follow."""
    program, argv = command.program, command.argv
    if program in ("cat", "nl"):
        options = _Options(argv, _NL_VALUES if program == "nl" else frozenset(),
                           _NL_LONG if program == "nl" else frozenset())
        if options.bad:
            return None
        if not options.operands:
            return stream
        files = _read_files(options.operands, directory, home)
        if files is None:
            return None
        out: Stream = []
        for path in files:
            piece = _whole(path)
            if piece is None:
                return None
            if piece.count:
                out.append(piece)
        return out
    if program in ("head", "tail"):
        options = _Options(argv, _HEAD_VALUES if program == "head" else _TAIL_VALUES,
                           _HEAD_LONG if program == "head" else _TAIL_LONG)
        if options.bad or options.has("-f", "-F", "--follow", "--retry"):
            return None
        count = _count_option(options)
        if count is None:
            return None
        kind, n = count
        if (kind == "from" and program == "head") or (kind == "all-but" and program == "tail"):
            return None
        sources: list[Stream]
        if options.operands:
            files = _read_files(options.operands, directory, home)
            if files is None:
                return None
            sources = []
            for path in files:
                piece = _whole(path)
                if piece is None:
                    return None
                sources.append([piece] if piece.count else [])
        elif stream is not None:
            sources = [stream]
        else:
            return None
        out = []
        for source in sources:
            total = _length(source)
            if kind == "from":
                out.extend(_slice(source, n, None))
            elif kind == "all-but":
                out.extend(_slice(source, 1, total - n))
            elif program == "head":
                out.extend(_slice(source, 1, n))
            else:
                out.extend(_slice(source, total - n + 1, None))
        return out
    if program == "sed":
        options = _Options(argv, cmdline.SED_VALUES, frozenset())
        if options.bad:
            return None
        found = _sed_ranges(options)
        if found is None:
            return None
        ranges, operands = found
        if operands:
            files = _read_files(operands, directory, home)
            if files is None:
                return None
            text: Stream = []
            for path in files:
                piece = _whole(path)
                if piece is None:
                    return None
                if piece.count:
                    text.append(piece)
        elif stream is not None:
            text = stream
        else:
            return None
        out = []
        for first, last in ranges:
            out.extend(_slice(text, first, last))
        return out
    return None


def _shell_shown(call: Call) -> Shown | None:
    commands = call.commands
    if not commands or call.incomplete:
        return None
    for command in commands:
        if command.nested or command.background or command.env or (
                command.program not in READERS and command.program != "cd") or command.via:
            return None
    from jouet_git.shell import dirs

    where = dirs(commands)
    home = os.path.expanduser("~")
    pieces: list[Piece] = []
    stream: Stream | None = None
    for index, command in enumerate(commands):
        if command.program == "cd":
            if command.op == "pipe":
                return None
            continue
        place = where[index]
        if place is False:
            return None
        directory = call.cwd if place is None else os.path.join(call.cwd, os.path.expanduser(str(place)))
        if command.stdin_redirected:
            return None
        stream = _apply(command, stream, directory, home)
        if stream is None:
            return None
        if command.op == "pipe":
            continue
        # The end of a pipeline: its output must reach the transcript.
        if command.stdout_to is not None and command.stdout_to not in ("/dev/stdout", "/dev/stderr", "/dev/tty"):
            return None
        pieces.extend(stream)
        stream = None
    return Shown(pieces) if pieces or stream is None else None


def shown(call: Call) -> Shown | None:
    """What CALL puts into the context, or None when it is not a read (see the module docstring)."""
    if call.kind == KIND_READ:
        return _tool_shown(call)
    if call.kind == KIND_SHELL and call.command:
        if not any(c.program in READERS for c in call.commands):
            return None
        return _shell_shown(call)
    return None


# --- the session's log --------------------------------------------------------------------------------


def _hash(text: str) -> str:
    try:
        from _blake2 import blake2b
    except ImportError:  # a Python built without it
        from hashlib import blake2b
    return blake2b(text.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()


def log_path(session: str, agent: str | None) -> str:
    from jouet_git import paths

    return os.path.join(paths.state_dir(), "reads", _hash(f"{session}\0{agent or ''}") + ".jsonl")


def _entries(file: str) -> list[dict[str, Any]]:
    try:
        with open(file, "rb") as f:
            data = f.read(MAX_LOG * 2)
    except OSError:
        return []
    out = []
    for line in data.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("f"), str):
            out.append(entry)
    return out


def seen(call: Call, what: Shown | None) -> bool:
    """Whether the session (and agent) making CALL was already shown every line WHAT holds, in files
    whose signature is still the one they had then."""
    if what is None or not what.pieces or not call.session:
        return False
    entries = _entries(log_path(call.session, call.agent))
    if not entries:
        return False
    # file hash -> signature -> the ranges shown while the file had it
    by_file: dict[str, dict[tuple[int, ...], list[tuple[int, int]]]] = {}
    for entry in entries:
        key = entry["f"]
        if entry.get("x"):
            by_file.pop(key, None)
            continue
        sig = entry.get("s")
        first, last = entry.get("a"), entry.get("b")
        if isinstance(sig, list) and isinstance(first, int) and isinstance(last, int):
            by_file.setdefault(key, {}).setdefault(tuple(sig), []).append((first, last))
    for piece in what.pieces:
        if not piece.count:
            continue
        ranges = by_file.get(_hash(piece.path), {}).get(piece.sig)
        if not ranges or not _covered(piece.first, piece.last, ranges):
            return False
    return True


def _covered(first: int, last: int, ranges: list[tuple[int, int]]) -> bool:
    at = first
    for a, b in sorted(ranges):
        if a > at:
            break
        at = max(at, b + 1)
        if at > last:
            return True
    return at > last


def _append(file: str, entries: list[dict[str, Any]]) -> None:
    from jouet_git import paths

    directory = os.path.dirname(file)
    if paths.private_dir(directory) is None:
        return
    new = not os.path.exists(file)
    data = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries).encode()
    fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, data)
        size = os.fstat(fd).st_size
    finally:
        os.close(fd)
    if size > MAX_LOG:
        _shrink(file)
    if new:
        _prune(directory, file)


def _shrink(file: str) -> None:
    from jouet_git.store import write_atomic

    entries = _entries(file)
    kept = entries[len(entries) // 2:]
    write_atomic(file, "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in kept), sync=False)


def _prune(directory: str, keep: str) -> None:
    import time

    cutoff = time.time() - STALE_DAYS * 86400
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        path = os.path.join(directory, name)
        if path == keep or not name.endswith(".jsonl"):
            continue
        try:
            if os.stat(path).st_mtime < cutoff:
                os.unlink(path)
        except OSError:
            pass


def note(call: Call, denied: bool, what: Shown | None = None) -> None:
    """Remember what CALL showed the session (when it was allowed to run), or forget the files it
    would have shown (when a rule denied it, or a shell read failed)."""
    if not call.session:
        return
    if call.event == POST_TOOL_USE:
        if call.kind != KIND_SHELL or not call.exit_code:
            return
        denied = True  # a shell read that failed: what it showed is unknown
    what = what if what is not None else shown(call)
    if what is None or not what.pieces:
        return
    if denied:
        entries = [{"f": _hash(p), "x": 1} for p in dict.fromkeys(piece.path for piece in what.pieces)]
    else:
        if call.kind == KIND_READ and what.pieces[0].sig[0] > TOO_LARGE and _range_bytes(what) > TOO_LARGE:
            return
        entries = [{"f": _hash(p.path), "s": list(p.sig), "a": p.first, "b": p.last}
                   for p in what.pieces if p.count]
    if entries:
        _append(log_path(call.session, call.agent), entries)


def _range_bytes(what: Shown) -> int:
    """About how many bytes the lines of a single-piece read hold (from the file's average line)."""
    piece = what.pieces[0]
    total = line_count(piece.path, piece.sig)
    return int(piece.sig[0] * piece.count / max(1, total))


def forget_session(session: str | None, agent: str | None = None) -> None:
    """The session's context was emptied (cleared or compacted): nothing it read is still shown."""
    if not session:
        return
    import contextlib

    with contextlib.suppress(OSError):
        os.unlink(log_path(session, agent))
