"""Plans: for a stream of calls (`jouet check --jsonl`), which rules and matchers could match a call
of one shape, worked out once per shape instead of once per call.

A call's shape is its event, kind, tool and the set of programs it runs. Everything a plan leaves
out is sure not to match any call of that shape: a rule that runs on another event, a matcher whose
tool patterns do not match the tool (or that is about commands, for a call that is not a shell
command), a matcher none of whose command patterns names one of the programs, a matcher whose
`with` names none of them. What a plan keeps is
matched in full, as without a plan (engine/match.py): a plan only skips work, never a check. It
holds nothing about the files, the environment or git, so a plan made for one line is right for
every later line of the same shape.
"""

from __future__ import annotations

from jouet_git.call import KIND_SHELL, Call
from jouet_git.engine import wildcard

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jouet_git.engine.model import Matcher, Rule
    from jouet_git.engine.ruleset import RuleSet

    # Each matcher that could match, with the call's programs its command patterns name (None for a
    # matcher about the tool only) and the (program, subcommand) pairs they begin with (None unless
    # each begins with a plain program and a plain subcommand).
    Planned = list[tuple[Matcher, frozenset[str] | None, frozenset[tuple[str, str]] | None]]

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

    __slots__ = ("_by_shape", "made")

    def __init__(self) -> None:
        self._by_shape: dict[tuple[str, str, str, frozenset[str]], Plan] = {}
        self.made = 0

    def get(self, call: Call, programs: frozenset[str], ruleset: RuleSet) -> Plan:
        """The plan for calls shaped like CALL (running PROGRAMS) with RULESET's rules."""
        key = (call.event, call.kind, call.tool, programs)
        plan = self._by_shape.get(key)
        if plan is None:
            if len(self._by_shape) >= MAX_SHAPES:
                self._by_shape.clear()
            plan = self._by_shape[key] = make(ruleset.candidates(set(programs)), call, programs)
            self.made += 1
        return plan


def make(candidates: list[Rule], call: Call, programs: frozenset[str]) -> Plan:
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
            kept.append((m, accepted, _heads(m.command)))
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
