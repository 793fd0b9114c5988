"""The shell reader: what commands a shell command string runs, read without running anything.

    from jouet_git.shell import parse, unwrap, dirs

    result = parse("cd sub && sudo git add -A > log", exit_code=0)
    result.commands    # [Command(cd sub), Command(git add -A via sudo)]
    result.incomplete  # True when some text could not be read (it is kept as data)

This package is on the hook's hot path: it imports only `re` and jouet_git.call.
"""

from __future__ import annotations

from jouet_git.call import Command
from jouet_git.shell.reader import MAX_SIZE, Reader, Shared
from jouet_git.shell.wrappers import program_name, unwrap

__all__ = ["ParseMemo", "ParseResult", "dirs", "parse", "program_name", "unwrap"]


class ParseResult:
    """What parse() found: the commands, top-level ones first, then the nested ones.

    incomplete: some of the text could not be read as shell (an unclosed quote or construct, a
    syntax error), or a reading limit was hit; it was kept as data. problems says what and where,
    for people; a limit's problem starts with "too " ("too long:", "too deep:", "too many
    commands:", "too many words:", "too many variables:", "too much nested text:").
    """

    __slots__ = ("commands", "incomplete", "problems", "read_files")

    def __init__(self, commands: list[Command], incomplete: bool, problems: list[str],
                 read_files: bool = False) -> None:
        self.commands = commands
        self.incomplete = incomplete
        self.problems = problems
        # Whether the reader looked for a script file on disk (`bash x.sh` with a cwd): the result
        # then holds for the files as they were, not for the text alone.
        self.read_files = read_files

    def to_json(self) -> dict[str, object]:
        return {"commands": [c.to_json() for c in self.commands], "incomplete": self.incomplete,
                "problems": list(self.problems)}

    def __repr__(self) -> str:
        return f"ParseResult({self.commands!r}, incomplete={self.incomplete!r})"


def parse(script: str, exit_code: int | None = None, cwd: str | None = None) -> ParseResult:
    """Read script as a shell would; with exit_code, give top-level commands their `status`.

    cwd: the directory the script runs in; with it, the small script files a command runs
    (`bash x.sh`, `source x.sh`, `sh < x.sh`) are read too when they lie inside it.
    Never raises: text it cannot read is kept as data and the result marked incomplete.
    """
    sh = Shared(len(script), cwd)
    if cwd is not None:
        sh.vars["PWD"] = cwd  # where the call starts; `cd` moves it, and sets OLDPWD (shell/values.py)
        sh.exported.add("PWD")
    items = []
    if len(script) > MAX_SIZE:
        sh.incomplete = True
        sh.problems.append(f"too long: the command is {len(script)} characters; jouet reads the first "
                           f"{MAX_SIZE}; split it into smaller calls")
        script = script[:MAX_SIZE]
    try:
        items = Reader(sh, script).script()
    except Exception as error:  # a bug here must never break a hook: keep what was read
        sh.incomplete = True
        sh.problems.append(f"internal error: {type(error).__name__}: {error}")
        items = []
    nested = sorted(sh.nested, key=_first)
    if sh.dropped:
        nested = [entry for entry in nested if id(entry[1]) not in sh.dropped]
    commands = sh.top + [cmd for _, cmd in nested]
    _byte_positions(script, commands)
    if exit_code is not None and items:
        from jouet_git.shell.status import assign

        assign(items, sh.top, exit_code)
    return ParseResult(commands, sh.incomplete, sh.problems, sh.reads > 0)


class ParseMemo:
    """parse() for a stream of calls (`jouet check --jsonl`), which keeps what it read by the exact
    text, exit code and directory, and hands back a copy of it when the same command comes again.

    Only a result that depends on nothing but those is kept: not one for which the reader looked
    for a file on disk (`bash x.sh`, which may change between calls), nor one the reader failed on.
    The Command objects are shared between the calls given them: nothing changes them once read
    (their `memo` holds what matching worked out from their words alone). `parsed` counts the
    commands actually read, `kept` those served from the memo (tests read them).
    """

    __slots__ = ("_kept", "kept", "parsed")

    # How many results to keep, and the longest text kept (a long here-document is rarely repeated).
    MAX_RESULTS = 2048
    MAX_TEXT = 16 * 1024

    def __init__(self) -> None:
        self._kept: dict[tuple[str, int | None, str | None], ParseResult] = {}
        self.parsed = 0
        self.kept = 0

    def parse(self, script: str, exit_code: int | None = None, cwd: str | None = None) -> ParseResult:
        key = (script, exit_code, cwd)
        result = self._kept.get(key)
        if result is not None:
            self.kept += 1
        else:
            result = parse(script, exit_code, cwd)
            self.parsed += 1
            if result.read_files or len(script) > self.MAX_TEXT or any(
                    p.startswith("internal error:") for p in result.problems):
                return result
            if len(self._kept) >= self.MAX_RESULTS:
                self._kept.clear()
            self._kept[key] = result
        return ParseResult(list(result.commands), result.incomplete, list(result.problems))


def dirs(commands: list[Command]) -> list[str | bool | None]:
    """Where each command runs after the top-level cds before it, by index (see workdirs.dirs):
    None in the call's own directory, a path as written, or False after a cd it cannot follow."""
    from jouet_git.shell.workdirs import dirs as where

    return where(commands)


def _first(entry: tuple[tuple[int, ...], Command]) -> tuple[int, ...]:
    return entry[0]


def _byte_positions(script: str, commands: list[Command]) -> None:
    """Turn character spans into 1-based inclusive byte positions of the UTF-8 script."""
    if script.isascii():
        for cmd in commands:
            if cmd.span is not None:
                cmd.span = (cmd.span[0] + 1, cmd.span[1])
                if cmd.words_at is not None:
                    cmd.words_at += 1
        return
    wanted: set[int] = set()
    for cmd in commands:
        if cmd.span is not None:
            wanted.update(cmd.span)
            if cmd.words_at is not None:
                wanted.add(cmd.words_at)
    offsets: dict[int, int] = {}
    done = 0
    size = 0
    for pos in sorted(wanted):
        size += len(script[done:pos].encode("utf-8", "surrogatepass"))
        done = pos
        offsets[pos] = size
    for cmd in commands:
        if cmd.span is not None:
            cmd.span = (offsets[cmd.span[0]] + 1, offsets[cmd.span[1]])
            if cmd.words_at is not None:
                cmd.words_at = offsets[cmd.words_at] + 1
