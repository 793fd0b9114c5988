"""One entry point for every caller that decides a call: hooks, `jouet check`, the git hooks.

It loads the rule set for the call's directory (from the cache when nothing changed), works out
the matching context, and starts the script runner only when a script rule's matcher matched.
"""

from __future__ import annotations

from jouet_git import gitdir
from jouet_git.call import KIND_SEARCH, Call
from jouet_git.engine.decide import Decision, decide
from jouet_git.engine.match import Context
from jouet_git.engine.ruleset import RuleSet, load

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SEARCH_PROGRAMS = frozenset({"grep", "rg", "egrep", "fgrep", "ag", "ack", "git-grep"})


class LazyScripts:
    """Starts the real script runner (a Lua VM) the first time a script rule needs it."""

    __slots__ = ("_runner", "ruleset")

    def __init__(self, ruleset: RuleSet) -> None:
        self.ruleset = ruleset
        self._runner: Any = None

    def run(self, rule: Any, call: Call, matched: list[int]) -> Any:
        if self._runner is None:
            from jouet_git.luau.rules import HookScripts

            self._runner = HookScripts(self.ruleset)
        return self._runner.run(rule, call, matched)


def context_for(call: Call, root: str | None) -> Context:
    tracked: int | None = None
    if root is not None and _is_search(call):
        tracked = gitdir.index_entries(root)
    return Context(tracked_files=tracked)


def _is_search(call: Call) -> bool:
    if call.kind == KIND_SEARCH:
        return True
    return any(c.program in _SEARCH_PROGRAMS for c in call.commands) if call.command else False


def decide_call(call: Call, ruleset: RuleSet | None = None, scripts: LazyScripts | None = None,
                also_disabled: frozenset[str] = frozenset()) -> Decision:
    """What the rules that apply in the call's directory decide about it. SCRIPTS, when given, is
    reused (one Lua VM for many calls, as `jouet check --jsonl` and a multi-ref push do);
    ALSO_DISABLED turns rules off for this call on top of the settings (never an enforced one)."""
    if ruleset is None:
        ruleset = load(call.cwd)
    ctx = context_for(call, ruleset.root)
    rules = ruleset.candidates({c.program for c in call.commands})
    return decide(rules, call, ctx, scripts or LazyScripts(ruleset), ruleset.disabled_now() | also_disabled)
