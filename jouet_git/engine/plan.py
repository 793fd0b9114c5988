"""Plans: for a stream of calls (`jouet check --jsonl`), which rules and matchers could match a call
of one shape, worked out once per shape instead of once per call.

A call's shape is its event, kind, tool and the heads of the commands it runs: each one's program
and, when it comes right after the program, its subcommand (`git status`; `git -C x status` has
none). Everything a plan leaves out is sure not to match any call of that shape: a rule that runs
on another event, a matcher whose tool patterns do not match the tool (or that is about commands,
for a call that is not a shell command), a matcher none of whose command patterns names one of the
programs, a matcher whose `with` names none of them, a matcher whose patterns all name a subcommand
("git push") when every command of a program it names has another. What a plan keeps is matched in
full, as without a plan (engine/match.py): a plan only skips work, never a check. It holds nothing
about the files, the environment or git, so a plan made for one line is right for every later line
of the same shape.
"""

from __future__ import annotations

from jouet_git.call import KIND_SHELL, Call
from jouet_git.engine import wildcard
from jouet_git.engine.match import plain_subcommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jouet_git.engine.model import Matcher, Rule
    from jouet_git.engine.ruleset import RuleSet

    # Each matcher that could match, with the call's programs its command patterns name (None for a
    # matcher about the tool only) and the (program, subcommand) pairs they begin with (None unless
    # each begins with a plain program and a plain subcommand).
    Planned = list[tuple[Matcher, frozenset[str] | None, frozenset[tuple[str, str]] | None]]
    # A command's program, and its subcommand when it comes right after the program (else None).
    Head = tuple[str, str | None]

# How many shapes a Plans keeps (program names come from the calls: keep it bounded).
MAX_SHAPES = 1024


class Plan:
    """The rules that could match calls of one shape, in the order they run, with their matchers."""

    __slots__ = ("matchers", "rules")

    def __init__(self, rules: list[Rule], matchers: list[Planned]) -> None:
        self.rules = rules
        self.matchers = matchers


class Plans:
    """The plans of one rule set, by shape; `made` counts the plans worked out (tests read it)."""

    __slots__ = ("_by_shape", "_with_subcommands", "made")

    def __init__(self) -> None:
        self._by_shape: dict[tuple[str, str, str, frozenset[Head]], Plan] = {}
        # The programs some command pattern gives a subcommand ("git push": git): for the others a
        # head is the program alone, so that `cat a` and `cat b` are one shape.
        self._with_subcommands: frozenset[str] | None = None
        self.made = 0

    def get(self, call: Call, ruleset: RuleSet) -> Plan:
        """The plan for calls shaped like CALL with RULESET's rules."""
        named = self._with_subcommands
        if named is None:
            named = self._with_subcommands = frozenset(
                program for rule in ruleset.rules for m in rule.matchers
                for program, _ in _heads(m.command or ()) or ())
        heads = frozenset([(c.program, plain_subcommand(c) if c.program in named else None) for c in call.commands])
        key = (call.event, call.kind, call.tool, heads)
        plan = self._by_shape.get(key)
        if plan is None:
            if len(self._by_shape) >= MAX_SHAPES:
                self._by_shape.clear()
            programs = {program for program, _ in heads}
            plan = self._by_shape[key] = make(ruleset.candidates(programs), call, heads)
            self.made += 1
        return plan


def make(candidates: list[Rule], call: Call, heads: frozenset[Head]) -> Plan:
    """The plan for calls like CALL whose commands have HEADS (program, and subcommand when it comes
    right after the program; see match.plain_subcommand)."""
    programs = frozenset(program for program, _ in heads)
    rules: list[Rule] = []
    matchers: list[Planned] = []
    for rule in candidates:
        if rule.on != call.event:
            continue
        kept: Planned = []
        for m in rule.matchers:
            if not _tool_may_match(m, call):
                continue
            if m.command is None:
                kept.append((m, None, None))
                continue
            accepted = frozenset(p for p in programs if _names(m, p))
            if not accepted:
                continue
            with_ = m.with_
            if with_ is not None and not any(_names(with_, p) for p in programs):
                continue  # `with` needs another command of the call that it names: none can be
            subcommands = _heads(m.command)
            if subcommands is not None and not any(
                    program in accepted and (sub is None or (program, sub) in subcommands) for program, sub in heads):
                continue  # every command it names has a subcommand none of its patterns has
            kept.append((m, accepted, subcommands))
        if kept:
            rules.append(rule)
            matchers.append(kept)
    return Plan(rules, matchers)


def _tool_may_match(m: Matcher, call: Call) -> bool:
    """The part of match.tool_matches that depends on the call's kind and tool only."""
    if m.tool is not None:
        return wildcard.any_matches(m.tool, call.tool)
    return m.command is None or call.kind == KIND_SHELL


def _heads(patterns: tuple[tuple[str, ...], ...]) -> frozenset[tuple[str, str]] | None:
    """The (program, subcommand) pairs the command PATTERNS begin with ("git push" gives ("git",
    "push")), or None when one of them has no plain subcommand (a lone program, an option, a
    wildcard): then every command of an accepted program is matched in full."""
    heads = set()
    for pattern in patterns:
        if len(pattern) < 2:
            return None
        program, word = pattern[0], pattern[1]
        if word.startswith("-") or wildcard.has_wildcard(program) or wildcard.has_wildcard(word):
            return None
        heads.add((program, word))
    return frozenset(heads)


def _names(m: Matcher, program: str) -> bool:
    """Whether one of M's command patterns names PROGRAM (False for a matcher without any)."""
    return program in m.literal_programs or any(wildcard.matcher(p)(program) for p in m.wild_programs)
