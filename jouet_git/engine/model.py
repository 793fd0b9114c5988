"""Rules and matchers as the engine uses them.

A Rule is built from validated TOML data (engine/load.py) or from the on-disk cache
(engine/cache.py), which stores exactly the plain data `Rule.to_data()` returns. Both classes are
plain __slots__ classes: this module is on the hook path.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Where a rule comes from, in the order rule sets load them.
BUILTIN = "builtin"
ENFORCED = "enforced"
USER = "user"
PLUGIN = "plugin"
REPO = "repo"

# A rule's state, as `jouet rule list` shows it.
ENABLED = "enabled"
DISABLED = "disabled"
NEEDS = "needs"
UNTRUSTED = "untrusted"
BROKEN = "broken"

DENY = "deny"
WARN = "warn"
# A jouet extension: the call is put to the person where the harness can ask, denied elsewhere.
ASK = "ask"


class Matcher:
    """One [rule.match] table: every key it sets must hold."""

    __slots__ = (
        "_patterns",
        "args",
        "background",
        "command",
        "env",
        "exact_flags",
        "exit_code",
        "flags",
        "fnox",
        "input",
        "literal_programs",
        "max_args",
        "min_code_lines",
        "min_read_lines",
        "min_tracked_files",
        "paths",
        "prints",
        "programs",
        "read_limit",
        "reads",
        "secret_args",
        "secret_files",
        "secret_vars",
        "seen",
        "stdin_redirected",
        "stdout_to",
        "text",
        "tool",
        "unless_args",
        "unless_flags",
        "unless_input",
        "unless_paths",
        "unless_with",
        "value_flags",
        "via",
        "wild_programs",
        "with_",
    )

    def __init__(self, data: dict[str, Any]) -> None:
        # Made for every candidate rule of every call: written for speed (no generator, _tuple only
        # for a key that is set), with the same values as the plain reading of each key.
        get = data.get
        command = get("command")
        if command is None:
            self.command: tuple[tuple[str, ...], ...] | None = None
            self.programs: tuple[str, ...] | None = None
            # The program names to look for, split for speed: exact names, and wildcard patterns.
            self.literal_programs: frozenset[str] = frozenset()
            self.wild_programs: tuple[str, ...] = ()
        else:
            # Each command pattern as its words: "git stash pop" -> ("git", "stash", "pop").
            patterns = self.command = tuple([tuple(p.split()) for p in command])
            programs = self.programs = tuple([words[0] for words in patterns])
            literal = [p for p in programs if not ("*" in p or "?" in p or "\\" in p)]
            self.literal_programs = frozenset(literal)
            self.wild_programs = () if len(literal) == len(programs) else tuple(
                [p for p in programs if p not in self.literal_programs])
        # The command patterns that can match each program name seen, in order (patterns_for).
        self._patterns: dict[str, tuple[tuple[str, ...], ...]] = {}
        v = get("via")
        self.via = None if v is None else _tuple(v)
        v = get("flags")
        self.flags = None if v is None else _tuple(v)
        v = get("unless_flags")
        self.unless_flags = None if v is None else _tuple(v)
        v = get("exact_flags")
        self.exact_flags = None if v is None else _tuple(v)
        v = get("value_flags")
        self.value_flags = (None if v is None else _tuple(v)) or ()
        v = get("args")
        self.args = None if v is None else _tuple(v)
        v = get("unless_args")
        self.unless_args = None if v is None else _tuple(v)
        self.max_args: int | None = get("max_args")
        self.background: bool | None = get("background")
        self.stdin_redirected: bool | None = get("stdin_redirected")
        v = get("text")
        self.text = None if v is None else _tuple(v)
        with_ = get("with")
        self.with_ = Matcher(with_) if with_ is not None else None
        unless_with = get("unless_with")
        self.unless_with = Matcher(unless_with) if unless_with is not None else None
        self.prints: bool | None = get("prints")
        v = get("stdout_to")
        self.stdout_to = None if v is None else _tuple(v)
        exit_code = get("exit_code")
        self.exit_code: tuple[int, ...] | None = tuple(exit_code) if exit_code is not None else None
        v = get("env")
        self.env = None if v is None else _tuple(v)
        v = get("tool")
        self.tool = None if v is None else _tuple(v)
        v = get("paths")
        self.paths = None if v is None else _tuple(v)
        v = get("unless_paths")
        self.unless_paths = None if v is None else _tuple(v)
        self.input: dict[str, Any] | None = get("input")
        v = get("unless_input")
        self.unless_input = None if v is None else _tuple(v)
        self.min_tracked_files: int | None = get("min_tracked_files")
        # The shell reader stopped at one of its reading limits (or failed): part of the command is unread.
        self.read_limit: bool | None = get("read_limit")
        # What the session was shown, and the project's fnox config: worked out only once every other
        # key of the matcher holds (engine/match.py).
        self.seen: bool | None = get("seen")
        self.min_read_lines: int | None = get("min_read_lines")
        self.min_code_lines: int | None = get("min_code_lines")
        self.reads = self.seen is not None or self.min_read_lines is not None or self.min_code_lines is not None
        self.fnox: bool | None = get("fnox")
        self.secret_files: bool | None = get("secret_files")
        self.secret_vars: bool | None = get("secret_vars")
        self.secret_args: bool | None = get("secret_args")

    def patterns_for(self, program: str) -> tuple[tuple[str, ...], ...]:
        """The command patterns whose program word matches PROGRAM, in the order they are written."""
        found = self._patterns.get(program)
        if found is None:
            from jouet_git.engine import wildcard

            found = tuple(p for p in self.command or () if wildcard.matcher(p[0])(program))
            if len(self._patterns) < 4096:  # program names come from calls: keep the memo bounded
                self._patterns[program] = found
        return found


def _other_programs(data: Any, programs: set[str] | frozenset[str]) -> bool:
    """Whether the [rule.match] table DATA has command patterns, each a string whose first word is a
    plain program name (no wildcard) outside PROGRAMS (anything else: False, and the matcher is made)."""
    if not isinstance(data, dict):
        return False
    command = data.get("command")
    if not isinstance(command, list) or not command:
        return False
    for pattern in command:
        if not isinstance(pattern, str):
            return False
        words = pattern.split(None, 1)
        if not words:
            return False
        first = words[0]
        if first in programs or "*" in first or "?" in first or "\\" in first:
            return False
    return True


def _tuple(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return (value,)
    return tuple(value)


class Rule:
    """A rule with where it came from and whether it runs."""

    __slots__ = (
        "_matchers", "_some", "author", "created", "data", "error", "examples", "file", "line", "message",
        "mode", "name", "needs", "on", "only_warns", "primer", "requires", "requires_claims", "requires_guarded",
        "scope", "script",
        "source", "source_label", "state", "state_detail", "suggest", "why",
    )

    def __init__(self, data: dict[str, Any], source: str, source_label: str, file: str, line: int) -> None:
        self.data = data
        self.name: str = data.get("name", "")
        self.why: str = data.get("why", "")
        self.source = source
        self.source_label = source_label
        self.file = file
        self.line = line
        # Mode unless the rule says: a rule of yours warns, any other source denies.
        self.mode: str = data.get("mode") or (WARN if source == USER else DENY)
        self.scope: str | None = data.get("scope")
        self.author: str = data.get("author", "builtin" if source == BUILTIN else "")
        self.created: str = str(data.get("created", ""))
        self.message: str | None = data.get("message")
        self.suggest: str | None = data.get("suggest")
        self.needs: tuple[str, ...] = tuple(data.get("needs") or ())
        requires = data.get("requires") or {}
        self.requires: tuple[str, ...] = tuple(requires.get("files") or ())
        # Runs only where some session holds a live claim in the repository (a jouet extension).
        self.requires_claims: bool = requires.get("claims") is True
        # Runs only when the call writes one of jouet's own files or hooks (jouet_git/guarded.py).
        self.requires_guarded: bool = requires.get("guarded") is True
        # Made on first use: rebuilding a rule set after an edit reads a thousand rules and matches none.
        self._matchers: list[Matcher] | None = None
        # The matchers matchers_for made so far, by index.
        self._some: dict[int, Matcher] = {}
        self.examples: dict[str, list[Any]] = data.get("examples") or {}
        self.script: str | None = data.get("script_path")
        self.on: str = data.get("on", "pre-tool-use")
        self.primer: bool = data.get("primer", True)
        self.state = ENABLED
        self.state_detail = ""
        self.error: str | None = None
        # Why a rule of yours only warns whatever its mode says (missing examples), or "".
        self.only_warns = ""

    @property
    def matchers(self) -> list[Matcher]:
        """The rule's [rule.match] tables."""
        matchers = self._matchers
        if matchers is None:
            some = self._some
            matchers = self._matchers = [some.get(i) or Matcher(m) for i, m in enumerate(self.data.get("match") or ())]
        return matchers

    @matchers.setter
    def matchers(self, value: list[Matcher]) -> None:
        self._matchers = value

    def matchers_for(self, programs: set[str] | frozenset[str]) -> list[Matcher]:
        """The rule's matchers, in order, less those sure not to match a call running only PROGRAMS:
        a matcher whose every command pattern names a program (no wildcard) that is not among them.
        Those are never made (a call meets some thirty rules, most of whose matchers are about other
        programs); matcher_matches would say None for each (it looks at a command only when its
        program is one of the matcher's)."""
        if self._matchers is not None:
            return self._matchers
        some = self._some
        out: list[Matcher] = []
        for i, data in enumerate(self.data.get("match") or ()):
            built = some.get(i)
            if built is None:
                if _other_programs(data, programs):
                    continue
                built = some[i] = Matcher(data)
            out.append(built)
        return out

    @property
    def legacy(self) -> bool:
        """Whether the rule is an old-style whole-file Luau rule (deprecated; engine/legacy.py)."""
        return self.data.get("legacy") is True

    @property
    def runs(self) -> bool:
        return self.state == ENABLED

    @property
    def shown_mode(self) -> str:
        """The mode `jouet rule list` shows."""
        if self.on == "post-tool-use" and self.script is None:
            return WARN
        fires = self.examples.get("fires") or []
        if self.on == "post-tool-use" and fires and all(isinstance(e, dict) and "kind" in e for e in fires):
            return "record"  # a script rule that records checks after a call (its examples say which)
        return WARN if self.only_warns else self.mode

    def to_data(self) -> dict[str, Any]:
        return {
            "data": self.data, "source": self.source, "source_label": self.source_label,
            "file": self.file, "line": self.line, "state": self.state,
            "state_detail": self.state_detail, "error": self.error, "only_warns": self.only_warns,
        }

    @classmethod
    def from_data(cls, d: dict[str, Any]) -> Rule:
        rule = cls(d["data"], d["source"], d["source_label"], d["file"], d["line"])
        rule.state = d["state"]
        rule.state_detail = d["state_detail"]
        rule.error = d["error"]
        rule.only_warns = d["only_warns"]
        return rule

    @classmethod
    def broken(cls, name: str, error: str, source: str, source_label: str, file: str, line: int) -> Rule:
        rule = cls({"name": name}, source, source_label, file, line)
        rule.state = BROKEN
        rule.error = error
        return rule

    def __repr__(self) -> str:
        return f"Rule({self.name!r}, {self.source_label}, {self.state})"
