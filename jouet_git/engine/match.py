"""Does a rule's matcher match a call? Every key a matcher sets must hold; a list matches when any
item does (`text` excepted: every pattern must match).

On the hook path: imports only re, os and jouet's own light modules.
"""

from __future__ import annotations

import json
import os
import re

from jouet_git import cmdline, gitopts
from jouet_git.call import KIND_SHELL, Call, Command
from jouet_git.engine import wildcard

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.engine.model import Matcher, Rule
    from jouet_git.engine.plan import Planned

_text_cache: dict[str, Any] = {}
_NO_CONTEXT: Context

# Builtins that set variables through their arguments (`export JOUET_X=1`).
_SETTERS = frozenset({"export", "declare", "typeset", "local", "readonly", "setenv"})
# Where output still reaches the transcript although it is "redirected".
_STILL_PRINTS = frozenset({"/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2"})


class Context:
    """What matching may need beyond the call, computed at most once per call.

    state answers the state keys (seen, min_read_lines, min_code_lines, fnox, secret_*): a
    HookState reads the files when first asked, an ExampleState says what an example says
    (engine/state.py); without one, nothing was read and there is no fnox project.
    """

    __slots__ = ("home", "state", "tracked_files")

    def __init__(self, tracked_files: int | None = None, home: str | None = None, state: Any = None) -> None:
        # None: unknown (outside a repository, or not worked out), and min_tracked_files holds.
        self.tracked_files = tracked_files
        self.home = home if home is not None else os.path.expanduser("~")
        if state is None:
            from jouet_git.engine.state import NO_STATE

            state = NO_STATE
        self.state = state


class Parsed:
    """A command read against one command pattern: its options and arguments after the subcommands."""

    __slots__ = ("args", "flags")

    def __init__(self, flags: list[str], args: list[str]) -> None:
        self.flags = flags
        self.args = args


def _memo(command: Command) -> dict[Any, Any]:
    memo = command.memo
    if memo is None:
        memo = command.memo = {}
    return memo


def _git_reading(command: Command, memo: dict[Any, Any]) -> gitopts.Reading:
    """A git COMMAND read as git reads it (abbreviated long options written out), noted in MEMO."""
    reading: gitopts.Reading | None = memo.get("git")
    if reading is None:
        reading = memo["git"] = gitopts.read(command.argv)
    return reading


def _subcommand_at(command: Command, argv: list[str], memo: dict[Any, Any], value_flags: tuple[str, ...]) -> int:
    """Where the subcommand of COMMAND (read as ARGV) is, past its program's global options (noted in MEMO)."""
    sub_key = ("sub", value_flags)
    i: int = memo.get(sub_key, 0)
    if not i:
        i = memo[sub_key] = cmdline.skip_global_options(command.program, argv, 1, value_flags)
    return i


def read_command(pattern: tuple[str, ...], command: Command, value_flags: tuple[str, ...]) -> Parsed | None:
    """Match COMMAND against a command pattern such as ("git", "stash", "pop"); None if it does not."""
    if not wildcard.matcher(pattern[0])(command.program):
        return None
    argv = command.argv
    memo = _memo(command)
    reading: gitopts.Reading | None = None
    if command.program == "git":
        # Nothing matches a command git refuses or only answers with its usage: it changes nothing.
        reading = _git_reading(command, memo)
        if reading.refused is not None:
            return None
        argv = reading.words
    i = 1
    if len(pattern) > 1:
        if not pattern[1].startswith("-"):
            i = _subcommand_at(command, argv, memo, value_flags)
        for word in pattern[1:]:
            if i >= len(argv) or not wildcard.matcher(word)(argv[i]):
                return None
            i += 1
    key = (i, value_flags)
    parsed = memo.get(key)
    if parsed is None:
        flags, args = cmdline.split_options(argv[i:], value_flags)
        if reading is not None and reading.alternatives:
            # An ambiguous abbreviation git would take (an older git): it reads as each option.
            for word, names in reading.alternatives.items():
                if word.split("=", 1)[0] in flags:
                    flags.extend(names)
        parsed = memo[key] = Parsed(flags, args)
    return parsed


def _needles() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """The needles of the built-in rules' `text` patterns, made with the package (engine/prebuilt.py):
    a pattern of a rule from outside has none here, and is always searched with."""
    from jouet_git.engine import prebuilt

    return prebuilt.needles()


def subcommand(command: Command, value_flags: tuple[str, ...]) -> str | None:
    """The word read_command compares a command pattern's second word with (worked out as it does,
    sharing its notes): "" when there is none, None when git refuses COMMAND (nothing matches it)."""
    argv = command.argv
    memo = _memo(command)
    if command.program == "git":
        reading = _git_reading(command, memo)
        if reading.refused is not None:
            return None
        argv = reading.words
    i = _subcommand_at(command, argv, memo, value_flags)
    return argv[i] if i < len(argv) else ""


def plain_subcommand(command: Command) -> str | None:
    """COMMAND's subcommand when it comes right after the program ("" when there is none), so that
    every command pattern's subcommand is compared with it whatever options take values
    (read_command); None when options come first (`git -C x status`) or git refuses COMMAND."""
    argv = command.argv
    if command.program == "git":
        reading = _git_reading(command, _memo(command))
        if reading.refused is not None:
            return None
        argv = reading.words
    if len(argv) < 2:
        return ""
    if cmdline.skip_global_options(command.program, argv, 1) != 1:
        return None
    return argv[1]


def _regex(pattern: str) -> Any:
    compiled = _text_cache.get(pattern)
    if compiled is None:
        compiled = _text_cache[pattern] = re.compile(pattern)
    return compiled


def command_matches(m: Matcher, command: Command, call: Call, others: list[Command],
                    ctx: Context | None = None) -> bool:
    """Whether the command keys of M hold for COMMAND (OTHERS: the call's other commands)."""
    parsed: Parsed | None = None
    assert m.command is not None
    # First the keys about the command as a whole, which need no reading of its options (every key
    # must hold, so the order changes nothing but the cost).
    if m.via is not None and not any(wildcard.any_matches(m.via, v) for v in command.via):
        return False
    if m.background is not None and (command.background or call.background) != m.background:
        return False
    if m.stdin_redirected is not None and command.stdin_redirected != m.stdin_redirected:
        return False
    if m.stdout_to is not None and (
        command.stdout_to is None or not wildcard.any_matches(m.stdout_to, command.stdout_to)
    ):
        return False
    if m.exit_code is not None and command.status not in m.exit_code:
        return False
    if m.prints is not None and prints(command) != m.prints:
        return False
    if m.env is not None and not any(wildcard.any_matches(m.env, name) for name in assigned(command)):
        return False
    for pattern in m.patterns_for(command.program):
        parsed = read_command(pattern, command, m.value_flags)
        if parsed is not None:
            break
    if parsed is None:
        return False
    if m.flags is not None and not any(f in parsed.flags for f in m.flags):
        return False
    if m.unless_flags is not None and any(f in parsed.flags for f in m.unless_flags):
        return False
    if m.exact_flags is not None and set(parsed.flags) != set(m.exact_flags):
        return False
    if m.args is not None and not any(wildcard.any_matches(m.args, a) for a in parsed.args):
        return False
    if m.unless_args is not None and any(wildcard.any_matches(m.unless_args, a) for a in parsed.args):
        return False
    if m.max_args is not None and len(parsed.args) > m.max_args:
        return False
    if m.text is not None:
        haystack = command.argv[1:] + command.heredocs
        if command.stdin_from is not None:
            haystack.append(command.stdin_from)  # `cat < .env` reads .env as surely as `cat .env`
        if command.reads:
            haystack.extend(command.reads)  # so does `python3 -c "print(open('.env').read())"`
        exact, folded = _needles()
        for regex in m.text:
            # Strings one of which its every match holds (engine/needles.py): none of them in the text,
            # the pattern cannot match it. Folded ones are lower case, for the lower case of ASCII text.
            found = exact.get(regex)
            if found is not None and not any(needle in word for word in haystack for needle in found):
                return False
            found = folded.get(regex)
            if found is not None and all(word.isascii() for word in haystack) and not any(
                    needle in word.lower() for word in haystack for needle in found):
                return False
            search = _regex(regex).search
            if not any(search(word) for word in haystack):
                return False
    if m.with_ is not None and not any(
        command_matches(m.with_, other, call, [], ctx) for other in others if other is not command
    ):
        return False
    if m.unless_with is not None and any(
        command_matches(m.unless_with, other, call, [], ctx) for other in others if other is not command
    ):
        return False
    # Last, the keys that read the project's fnox config.
    if m.secret_vars is not None or m.secret_args is not None or m.secret_files is not None:
        config = (ctx or _NO_CONTEXT).state.fnox()
        if m.secret_vars is not None and bool(config and _expands_secret(command, call, config.secrets)) \
                != m.secret_vars:
            return False
        if m.secret_args is not None and bool(config and any(a in config.secrets for a in parsed.args)) \
                != m.secret_args:
            return False
        if m.secret_files is not None:
            where = _command_dir(command, call) if config else None
            on = bool(config and where and any(config.has_file(a, where) for a in [*parsed.args, *command.reads]))
            if on != m.secret_files:
                return False
    return True


def _command_dir(command: Command, call: Call) -> str | None:
    """The directory COMMAND runs in, after the cds before it; None when jouet cannot follow them."""
    from jouet_git.shell import dirs

    commands = call.commands
    for index, other in enumerate(commands):
        if other is command:
            place = dirs(commands)[index]
            if place is False:
                return None
            return call.cwd if place is None else os.path.join(call.cwd, os.path.expanduser(str(place)))
    return call.cwd


def expanded_names(text: str, quotes: bool = True) -> list[str]:
    """The variables TEXT expands for their value: `$NAME` and `${NAME...}` outside single quotes
    (QUOTES false: a here-document's body, where quotes are text), not `\\$NAME`, not `${#NAME}` (its
    length) and not `${NAME:+word}` or `${NAME+word}` (the word)."""
    names: list[str] = []
    i, n = 0, len(text)
    double = False
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
        elif quotes and ch == "'" and not double:
            close = text.find("'", i + 1)
            i = (n if close < 0 else close) + 1
        elif quotes and ch == '"':
            double = not double
            i += 1
        elif ch == "$" and text.startswith("{", i + 1):
            close = text.find("}", i + 2)
            inner = text[i + 2:(n if close < 0 else close)]
            found = re.match(_BRACED, inner)
            if found and not found.group(3):
                names.append(found.group(2))
            i = (n if close < 0 else close) + 1
        elif ch == "$":
            found = re.compile(_NAME).match(text, i + 1)
            if found:
                names.append(found.group(0))
                i = found.end()
            else:
                i += 1
        else:
            i += 1
    return names


# Compiled on first use (re's own cache keeps them): most calls expand no variable.
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_BRACED = r"(!?)([A-Za-z_][A-Za-z0-9_]*)(:?\+)?"
_QUOTED_HEREDOC = r"<<-?\s*(?:'|\"|\\)"


def _expands_secret(command: Command, call: Call, secrets: frozenset[str]) -> bool:
    """Whether COMMAND expands one of SECRETS: in its own text (read with its quoting, from the
    call's command), or in a `sh -c` script's words (whose quoting is gone), or in a here-document
    whose delimiter is not quoted."""
    if not secrets:
        return False
    raw = None
    if command.span is not None and call.command:
        encoded = call.command.encode("utf-8", "surrogatepass")
        raw = encoded[command.span[0] - 1:command.span[1]].decode("utf-8", "replace")
    if raw is not None:
        if any(name in secrets for name in expanded_names(raw)):
            return True
    elif any(name in secrets for name in expanded_names(" ".join(command.argv[1:]), quotes=False)):
        return True
    if command.heredocs and not (raw is not None and re.search(_QUOTED_HEREDOC, raw)):
        return any(name in secrets for body in command.heredocs for name in expanded_names(body, quotes=False))
    return False


def prints(command: Command) -> bool:
    """Whether the command's standard output reaches the transcript."""
    if command.captured or getattr(command, "piped", False):
        return False
    return command.stdout_to is None or command.stdout_to in _STILL_PRINTS


def assigned(command: Command) -> list[str]:
    """The variables a command sets: assignments before it, through `env`, or with export and kin."""
    names = list(command.env)
    wrapper_words = command.words[: len(command.words) - len(command.argv)]
    for word in wrapper_words:
        name, eq, _ = word.partition("=")
        if eq and name.isidentifier():
            names.append(name)
    if command.program in _SETTERS:
        for word in command.argv[1:]:
            if word.startswith("-"):
                continue
            name = word.split("=", 1)[0].split("+", 1)[0]
            if name.isidentifier():
                names.append(name)
    return names


def _relative_path(path: str, cwd: str, home: str) -> str:
    """PATH as a rule's `paths` patterns see it: from the working directory when it lies below it."""
    if not os.path.isabs(path):
        return os.path.normpath(path)
    base = os.path.normpath(cwd)
    full = os.path.normpath(path)
    if full.startswith(base + os.sep):
        return full[len(base) + 1:]
    return full


def path_matches(patterns: tuple[str, ...], path: str, cwd: str, home: str) -> bool:
    rel = _relative_path(path, cwd, home)
    full = os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))
    name = os.path.basename(rel)
    for pattern in patterns:
        if "/" not in pattern:
            if wildcard.path_matcher(pattern)(name):
                return True
            continue
        if pattern.startswith("~/"):
            if wildcard.path_matcher(home.rstrip("/") + pattern[1:])(full):
                return True
            continue
        if pattern.startswith("/"):
            if wildcard.path_matcher(pattern)(full):
                return True
            continue
        if wildcard.path_matcher(pattern)(rel):
            return True
    return False


def _input_matches(wanted: dict[str, Any], given: dict[str, Any]) -> bool:
    for key, value in wanted.items():
        if key not in given:
            return False
        actual = given[key]
        if isinstance(value, str):
            text = actual if isinstance(actual, str) else json.dumps(actual)
            if not wildcard.matches(value, text):
                return False
        elif json.dumps(value, sort_keys=True) != json.dumps(actual, sort_keys=True):
            return False
    return True


def tool_matches(m: Matcher, call: Call, ctx: Context) -> bool:
    """Whether the tool keys of M hold for CALL."""
    if m.tool is not None:
        if not wildcard.any_matches(m.tool, call.tool):
            return False
    elif m.command is not None and call.kind != KIND_SHELL:
        return False
    if m.paths is not None or m.unless_paths is not None:
        if call.kind == KIND_SHELL or not call.path:
            if m.paths is not None:
                return False
        else:
            if m.paths is not None and not path_matches(m.paths, call.path, call.cwd, ctx.home):
                return False
            if m.unless_paths is not None and path_matches(m.unless_paths, call.path, call.cwd, ctx.home):
                return False
    if m.input is not None and not _input_matches(m.input, call.input):
        return False
    if m.unless_input is not None and any(key in call.input for key in m.unless_input):
        return False
    if (m.min_tracked_files is not None and ctx.tracked_files is not None
            and ctx.tracked_files < m.min_tracked_files):
        return False
    if m.read_limit is not None and (read_limit(call) is not None) != m.read_limit:
        return False
    return m.command is not None or m.exit_code is None or call.exit_code in m.exit_code


def read_limit(call: Call) -> str | None:
    """The problem of the reading limit the shell reader stopped at for CALL (or its own failure),
    or None: it read the whole command, or stopped only at a syntax error (which bash refuses too)."""
    if call.kind != KIND_SHELL or not call.incomplete:
        return None
    for problem in call.problems:
        if problem.startswith(("too ", "internal error:")):
            return problem
    return None


def state_matches(m: Matcher, call: Call, ctx: Context) -> bool:
    """Whether the call-level state keys of M hold: what the call reads and whether the session saw
    it, the fnox project, and (for a file tool) whether its path is a fnox secret file."""
    state = ctx.state
    if m.reads:
        if m.min_read_lines is not None and state.read_lines() < m.min_read_lines:
            return False
        if m.min_code_lines is not None and state.code_lines() < m.min_code_lines:
            return False
        if m.seen is not None and state.seen() != m.seen:
            return False
    if m.fnox is not None and (state.fnox() is not None) != m.fnox:
        return False
    if m.secret_files is not None and m.command is None:
        config = state.fnox()
        on = bool(config and call.kind != KIND_SHELL and call.path and config.has_file(call.path, call.cwd))
        if on != m.secret_files:
            return False
    return True


def matcher_matches(m: Matcher, call: Call, ctx: Context, accepted: frozenset[str] | None = None,
                    heads: frozenset[tuple[str, str]] | None = None) -> list[int] | None:
    """None when M does not match CALL; else the indexes of the commands it matched (empty for a
    matcher about the tool only). ACCEPTED: the call's programs that M's command patterns name,
    when the caller worked them out already; HEADS: the (program, subcommand) pairs M's command
    patterns begin with, when each begins with a plain program and subcommand (engine/plan.py)."""
    if not tool_matches(m, call, ctx):
        return None
    if m.command is None:
        return [] if state_matches(m, call, ctx) else None
    commands = call.commands
    literal = m.literal_programs
    wild = m.wild_programs
    hits: list[int] = []
    for index, command in enumerate(commands):
        program = command.program
        if accepted is not None:
            if program not in accepted:
                continue
            if heads is not None and (program, subcommand(command, m.value_flags)) not in heads:
                continue  # no pattern's subcommand is the command's (read_command would say None)
        elif program not in literal and not (wild and _wild_match(wild, program)):
            continue
        if command_matches(m, command, call, commands, ctx):
            hits.append(index)
    if not hits or not state_matches(m, call, ctx):
        return None
    return hits


def _wild_match(patterns: tuple[str, ...], program: str) -> bool:
    for pattern in patterns:
        if wildcard.matcher(pattern)(program):
            return True
    return False


def rule_matches(rule: Rule, call: Call, ctx: Context, planned: Planned | None = None) -> list[int] | None:
    """None when no matcher of RULE matches; else the indexes of every command any matcher matched.

    PLANNED: the matchers of RULE that could match a call like CALL, each with the call's programs
    it names (engine/plan.py), instead of working them out here."""
    found: list[int] | None = None
    if planned is not None:
        for m, accepted, heads in planned:
            hits = matcher_matches(m, call, ctx, accepted, heads)
            if hits is not None:
                found = _joined(found, hits)
        return found
    for m in rule.matchers_for({c.program for c in call.commands}):
        hits = matcher_matches(m, call, ctx)
        if hits is not None:
            found = _joined(found, hits)
    return found


def _joined(found: list[int] | None, hits: list[int]) -> list[int]:
    """FOUND with the indexes of HITS it lacks added, in order (a new list when FOUND is None)."""
    if found is None:
        found = []
    for index in hits:
        if index not in found:
            found.append(index)
    return found


_NO_CONTEXT = Context()
