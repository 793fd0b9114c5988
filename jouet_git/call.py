"""The harness-independent tool call and the commands the shell reader finds in it.

Adapters (jouet_git/harness) turn a payload into a Call; the engine only ever sees Calls.
Field names follow the Command and call tables of the rule reference, so a Command converts to the
table a Luau script sees, and to `jouet parse --json`, field for field.

This module is on the hook's hot path: it imports nothing (no typing, no dataclasses), and its
classes are plain __slots__ classes.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PRE_TOOL_USE = "pre-tool-use"
POST_TOOL_USE = "post-tool-use"

# What kind of tool a call is, whatever the harness calls it.
KIND_SHELL = "shell"  # runs a shell command (Claude Code's Bash, Codex's shell, git's own events)
KIND_READ = "read"  # reads a file (Read)
KIND_EDIT = "edit"  # writes a file (Edit, Write, MultiEdit, NotebookEdit)
KIND_SEARCH = "search"  # searches files (Grep, Glob)
KIND_OTHER = "other"
# Each harness's tool names and their kinds live in its adapter (jouet_git/harness/).
# Programs a shell read may be made of (reads.py): a shell call running none of them shows no file.
SHELL_READERS = frozenset({"cat", "head", "tail", "sed", "nl"})

# The fields of the rule reference's Command table, in the order `jouet parse --json` prints them.
COMMAND_FIELDS = (
    "words", "argv", "program", "heredocs", "via", "op", "stdout_to", "stdin_redirected", "env",
    "span", "words_at", "nested", "matched", "status", "text", "line", "background", "stdin_args",
    "stdin_from", "chdir", "reads",
)


class Command:
    """One simple command as a shell would run it.

    span and words_at are 1-based, inclusive byte positions into the UTF-8 script, usable with
    Lua's string.sub; both are None for a command read from a `sh -c` script.
    captured: inside $(...), backticks or <(...), so its standard output is captured, not printed.
    piped: its standard output goes into a pipe, its own or that of a group or subshell around it.
    matched: whether one of a rule's matchers matched it (set by the engine; False from the reader).
    status: after a tool, the exit status this command is known to have had.

    stdin_args: it is run by a program that adds arguments known only at run time (xargs with what
    it reads, find -exec's `{}`, parallel reading its input): argv does not show them all.
    stdin_from: the file its standard input is redirected from (`< .env`, a loop's `done < f`).
    writes_to: the files its other redirections open for writing: another descriptor's (`2> err.log`,
    `3> f`, `{fd}> f`) and `<> f` (opened to read and write). Standard output's is stdout_to.
    chdir: the directory a wrapper moves it to before it runs (`env -C dir`, `sudo -D dir`), as
    written and joined when several do; False when that cannot be told (`find -execdir`).
    reads: for an inline program (`python3 -c`, `node -e`, a here-document fed to an interpreter),
    the literal paths it opens or reads (shell/inline.py).

    Internal, for jouet.dirs: seq is the index among the script's top-level commands of the one it
    runs as part of (its own for a top-level command), scope the subshells it runs in, and origin
    the command that started the process it runs in, if another.
    """

    __slots__ = (
        "argv", "background", "captured", "chdir", "env", "heredocs", "line", "matched", "memo", "nested",
        "op", "origin",
        "piped", "program", "reads", "scope", "seq", "span", "status", "stdin_args", "stdin_from",
        "stdin_redirected", "stdout_to", "text", "via", "words", "words_at", "writes_to",
    )

    def __init__(
        self,
        words: list[str],
        argv: list[str] | None = None,
        program: str = "",
        heredocs: list[str] | None = None,
        via: list[str] | None = None,
        op: str | None = None,
        stdout_to: str | None = None,
        stdin_redirected: bool = False,
        env: dict[str, str] | None = None,
        span: tuple[int, int] | None = None,
        words_at: int | None = None,
        nested: bool = False,
        text: str = "",
        line: str = "",
        background: bool = False,
        captured: bool = False,
        status: int | None = None,
        piped: bool = False,
        matched: bool = False,
        stdin_args: bool = False,
        stdin_from: str | None = None,
        chdir: str | bool | None = None,
    ) -> None:
        self.words = words
        self.argv = list(words) if argv is None else argv
        self.program = program
        self.heredocs = [] if heredocs is None else heredocs
        self.via = [] if via is None else via
        self.op = op
        self.stdout_to = stdout_to
        self.stdin_redirected = stdin_redirected
        self.env = {} if env is None else env
        self.span = span
        self.words_at = words_at
        self.nested = nested
        self.text = text
        self.line = line
        self.background = background
        self.captured = captured
        self.status = status
        self.piped = piped
        self.matched = matched
        self.stdin_args = stdin_args
        self.stdin_from = stdin_from
        self.chdir = chdir
        self.reads: list[str] = []
        self.writes_to: list[str] = []
        self.seq = -1
        self.scope: tuple[int, ...] = ()
        # The command that runs this one in a process of its own (sh -c's, find -exec's), whose
        # place it starts from.
        self.origin: Command | None = None
        # The engine's working notes on this command (how its options read), kept across rules.
        self.memo: dict[Any, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The fields of the Command table, with their documented names."""
        out: dict[str, Any] = {}
        for name in COMMAND_FIELDS:
            value = getattr(self, name)
            if isinstance(value, (list, tuple)):
                value = list(value)
            elif isinstance(value, dict):
                value = dict(value)
            out[name] = value
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Command):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self.__slots__ if n not in ("memo", "origin"))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Command({self.argv!r}, op={self.op!r}, nested={self.nested!r})"


class Call:
    """A tool call (or git event) as the rules see it.

    commands is parsed from command on first use.
    rewrite: whether a rule may answer with a rewrite (a built-in deny-mode rule, before a Claude
    Code Bash call). background: the harness runs the whole call in the background.
    incomplete and problems: the shell reader's verdict on the command (read together with commands).
    """

    __slots__ = (
        "_commands", "_problems", "_read_disk", "agent", "background", "command", "cwd", "duration_ms", "event",
        "exit_code",
        "harness", "input", "kind", "path", "reader", "rewrite", "session", "tool",
    )

    def __init__(
        self,
        event: str = PRE_TOOL_USE,
        harness: str = "test",
        tool: str = "Bash",
        kind: str = KIND_SHELL,
        command: str | None = None,
        path: str | None = None,
        cwd: str = ".",
        session: str | None = None,
        agent: str | None = None,
        exit_code: int | None = None,
        input: dict[str, Any] | None = None,
        rewrite: bool = False,
        background: bool = False,
        duration_ms: int | None = None,
    ) -> None:
        self.event = event
        self.harness = harness
        self.tool = tool
        self.kind = kind
        self.command = command
        self.path = path
        self.cwd = cwd
        self.session = session
        self.agent = agent
        self.exit_code = exit_code
        self.input = {} if input is None else input
        self.rewrite = rewrite
        self.background = background
        # After a tool: how long it ran, when the harness says (for the ledger and recorded checks).
        self.duration_ms = duration_ms
        self._commands: list[Command] | None = None
        self._problems: list[str] = []
        self._read_disk = False
        # What reads the shell command instead of shell.parse: a stream's ParseMemo, or None.
        self.reader: Any = None

    @property
    def commands(self) -> list[Command]:
        """The commands the shell command runs, parsed on first use."""
        if self._commands is None:
            if self.kind == KIND_SHELL and self.command:
                exit_code = self.exit_code if self.event == POST_TOOL_USE else None
                cwd = self.cwd if self.cwd.startswith("/") else None
                if self.reader is not None:
                    result = self.reader.parse(self.command, exit_code, cwd)
                else:
                    from jouet_git.shell import parse

                    result = parse(self.command, exit_code, cwd)
                self._commands = result.commands
                self._read_disk = result.read_files
                self._problems = result.problems if result.incomplete else []
                if result.incomplete and not self._problems:
                    self._problems = ["part of the command could not be read"]
                if any(c.program == "git" for c in self._commands) and _may_alias(self._commands):
                    # What a git alias runs, as nested commands (read only for a non-builtin subcommand).
                    from jouet_git.gitalias import expand

                    self._read_disk = True  # git's config files
                    extra, trouble = expand(self._commands, self.cwd)
                    self._commands.extend(extra)
                    self._problems.extend(trouble)
            else:
                self._commands = []
        return self._commands

    @property
    def read_disk(self) -> bool:
        """Whether reading the command looked at files (a script that `bash x.sh` runs, git's config
        for an alias): the same text may read differently once they change."""
        self.commands  # noqa: B018 - parse on first use
        return self._read_disk

    @property
    def incomplete(self) -> bool:
        """Whether the shell reader gave up on part of the command (kept as data, not commands)."""
        self.commands  # noqa: B018 - parse on first use
        return bool(self._problems)

    @property
    def problems(self) -> list[str]:
        """What the reader could not read, and where, for people (empty when it read everything)."""
        self.commands  # noqa: B018 - parse on first use
        return self._problems

    def __repr__(self) -> str:
        return f"Call({self.event}, {self.harness}, {self.tool}, command={self.command!r}, path={self.path!r})"


def shows_no_file(call: Call) -> bool:
    """Whether a shell CALL surely shows the session no file, as reads.shown would say (None) without
    importing reads.py: no reading program runs, or one reads a here-document or a redirected input
    (`cat > notes.md <<'EOF'`)."""
    if call.kind != KIND_SHELL or not call.command:
        return False
    readers = [c for c in call.commands if c.program in SHELL_READERS]
    return not readers or any(c.stdin_redirected for c in readers)


def _may_alias(commands: list[Command]) -> bool:
    """Whether one of COMMANDS is a git command whose subcommand is not one of git's own (only
    then is the alias reader, gitalias.py, imported)."""
    from jouet_git.gitbuiltins import alias_name

    return any(c.program == "git" and alias_name(c.argv) is not None for c in commands)
