"""The harness-independent tool call and the commands the shell reader finds in it.

Adapters (jouet_git/harness) turn a payload into a Call; the engine only ever sees Calls.
Field names follow the Command and call tables of the rule reference, so a Command converts to the
table a Luau script sees, and to `jouet parse --json`, field for field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PRE_TOOL_USE = "pre-tool-use"
POST_TOOL_USE = "post-tool-use"

# What kind of tool a call is, whatever the harness calls it.
KIND_SHELL = "shell"  # runs a shell command (Claude Code's Bash, Codex's shell, git's own events)
KIND_READ = "read"  # reads a file (Read)
KIND_EDIT = "edit"  # writes a file (Edit, Write, MultiEdit, NotebookEdit)
KIND_SEARCH = "search"  # searches files (Grep, Glob)
KIND_OTHER = "other"


@dataclass(slots=True)
class Command:
    """One simple command as a shell would run it.

    span and words_at are 1-based, inclusive byte positions into the UTF-8 script, usable with
    Lua's string.sub; both are None for a command read from a `sh -c` script.
    """

    words: list[str]
    argv: list[str]
    program: str
    heredocs: list[str] = field(default_factory=list)
    via: list[str] = field(default_factory=list)
    op: str | None = None  # "seq", "and", "or", "pipe", "background" or None at the end
    stdout_to: str | None = None
    stdin_redirected: bool = False
    env: dict[str, str] = field(default_factory=dict)
    span: tuple[int, int] | None = None
    words_at: int | None = None
    nested: bool = False
    text: str = ""
    line: str = ""
    background: bool = False
    # Inside $(...) or backticks: its standard output is captured, not printed.
    captured: bool = False
    # After a tool: the exit status this command is known to have had (see shell.assign_status).
    status: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The fields of the rule reference's Command table, with their documented names."""
        return {
            "words": list(self.words),
            "argv": list(self.argv),
            "program": self.program,
            "heredocs": list(self.heredocs),
            "via": list(self.via),
            "op": self.op,
            "stdout_to": self.stdout_to,
            "stdin_redirected": self.stdin_redirected,
            "env": dict(self.env),
            "span": list(self.span) if self.span is not None else None,
            "words_at": self.words_at,
            "nested": self.nested,
            "text": self.text,
            "line": self.line,
            "background": self.background,
        }


@dataclass(slots=True)
class Call:
    """A tool call (or git event) as the rules see it."""

    event: str = PRE_TOOL_USE
    harness: str = "test"
    tool: str = "Bash"
    kind: str = KIND_SHELL
    command: str | None = None
    path: str | None = None
    cwd: str = "."
    session: str | None = None
    agent: str | None = None
    exit_code: int | None = None
    input: dict[str, Any] = field(default_factory=dict)
    # Whether a rule may answer with a rewrite (a built-in deny-mode rule, before a Claude Code Bash call).
    rewrite: bool = False
    # The harness runs the whole call in the background (Claude Code's run_in_background).
    background: bool = False
    _commands: list[Command] | None = None
    _incomplete: bool = False

    @property
    def commands(self) -> list[Command]:
        """The commands the shell command runs, parsed on first use."""
        if self._commands is None:
            if self.kind == KIND_SHELL and self.command:
                from jouet_git.shell import parse

                result = parse(self.command, self.exit_code if self.event == POST_TOOL_USE else None)
                self._commands = result.commands
                self._incomplete = result.incomplete
            else:
                self._commands = []
        return self._commands

    @property
    def is_shell(self) -> bool:
        return self.kind == KIND_SHELL
