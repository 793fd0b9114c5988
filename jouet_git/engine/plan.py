"""Plans: for a stream of calls (`jouet check --jsonl`), which rules and matchers could match a call
of one shape, worked out once per shape instead of once per call.

A call's shape is its event, kind, tool and the set of programs it runs. Everything a plan leaves
out is sure not to match any call of that shape: a rule that runs on another event, a matcher whose
tool patterns do not match the tool (or that is about commands, for a call that is not a shell
command), a matcher none of whose command patterns names one of the programs. What a plan keeps is
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

    Planned = list[tuple[Matcher, frozenset[str] | None]]

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
                kept.append((m, None))
                continue
            accepted = frozenset(p for p in programs if p in m.literal_programs or _wild(m.wild_programs, p))
            if accepted:
                kept.append((m, accepted))
        if kept:
            rules.append(rule)
            matchers.append(kept)
    return Plan(rules, matchers)


def _tool_may_match(m: Matcher, call: Call) -> bool:
    """The part of match.tool_matches that depends on the call's kind and tool only."""
    if m.tool is not None:
        return wildcard.any_matches(m.tool, call.tool)
    return m.command is None or call.kind == KIND_SHELL


def _wild(patterns: tuple[str, ...], program: str) -> bool:
    return any(wildcard.matcher(p)(program) for p in patterns)
