"""Deciding: run the rules that match a call, in order, and combine what they say.

Built-in rules run first (shape rules before script rules, see run_order) and the first denial
wins; warnings are gathered; the rule's mode applies after the match (a warn-mode rule's denial is a
warning, an ask-mode rule's an ask); a denial or ask of a call that only runs jouet becomes a warning
(for every rule but jouet's own), so no rule can lock a person out of fixing it; a rewrite stands
only when no rule denies. A rule that throws says nothing and is reported in `errors`.

An ask (mode = "ask", a jouet extension) is weaker than a denial and stronger than a warning: the
first ask is kept while later rules may still deny, and when none does it stands in Decision.deny
with action "ask". So every entry point that knows nothing of asking denies it; the adapters of
harnesses that can put a question to the person ask instead. What a rule says is
cleaned before anyone reads it (engine/messages.py: valid text, capped, no rule tag of its own).
"""

from __future__ import annotations

import os

from jouet_git.call import POST_TOOL_USE, Call
from jouet_git.engine.match import Context, read_limit, rule_matches
from jouet_git.engine.model import ASK, BUILTIN, DENY, ENFORCED, WARN

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from jouet_git.engine.model import Rule
    from jouet_git.engine.plan import Planned

    class ScriptRunner(Protocol):
        def run(self, rule: Rule, call: Call, matched: list[int]) -> Outcome | None: ...

# Programs that do nothing but move around: a call of these and jouet still only runs jouet.
_HARMLESS = frozenset({"cd", "pushd", "popd", "true", ":"})


class Outcome:
    """What one rule said about a call, before its mode applies."""

    __slots__ = ("action", "command", "message", "records")

    def __init__(self, action: str | None, message: str = "", command: str | None = None,
                 records: list[dict[str, Any]] | None = None) -> None:
        self.action = action  # "deny", "warn", "rewrite", "allow" or None (nothing)
        self.message = message
        self.command = command  # for a rewrite: what runs instead
        self.records = records or []


class Finding:
    """A rule that spoke up, with what it said once its mode applied."""

    __slots__ = ("action", "command", "message", "rule", "source_label", "suggest")

    def __init__(self, rule: str, action: str, message: str, suggest: str | None = None,
                 command: str | None = None, source_label: str = "") -> None:
        self.rule = rule
        self.action = action
        self.message = message
        self.suggest = suggest
        self.command = command
        self.source_label = source_label

    def text(self) -> str:
        """The line the agent reads: the advice, and the rule's name so it can be looked up."""
        return f"{self.message} [jouet rule: {self.rule}]"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule, "action": self.action, "message": self.message}
        if self.command is not None:
            out["command"] = self.command
        return out


class Decision:
    """The first denial, else the first ask, else the warnings, else a rewrite, else nothing; plus
    recorded checks. `deny` holds the denial or, when no rule denies, the ask (its action says which)."""

    __slots__ = ("allowed", "asked", "deny", "errors", "ms", "records", "rewrite", "warnings")

    def __init__(self) -> None:
        self.deny: Finding | None = None
        self.warnings: list[Finding] = []
        self.rewrite: Finding | None = None
        self.records: list[dict[str, Any]] = []
        self.errors: list[tuple[str, str]] = []
        # Rules a person let through (JOUET_ALLOW), and how long deciding took.
        self.allowed: list[str] = []
        self.ms: float | None = None
        # What deciding asked of the filesystem (a rule's `requires`), in order: (function,
        # arguments, answer). The same call gets the same decision while the answers stay the same.
        self.asked: list[tuple[Any, tuple[Any, ...], bool]] = []

    @property
    def action(self) -> str | None:
        if self.deny is not None:
            return self.deny.action
        if self.rewrite is not None:
            return "rewrite"
        if self.warnings:
            return WARN
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "decision": self.action or "none",
            "deny": self.deny.to_json() if self.deny else None,
            "rewrite": self.rewrite.to_json() if self.rewrite else None,
            "warnings": [w.to_json() for w in self.warnings],
            "errors": [{"rule": r, "error": e} for r, e in self.errors],
            "allowed": list(self.allowed),
        }


def clean(message: str) -> str:
    """engine/messages.py's clean(), imported only when a rule speaks (most calls, none does)."""
    from jouet_git.engine.messages import clean as clean_message

    return clean_message(message)


def only_runs_jouet(call: Call) -> bool:
    """Whether every command the call runs is jouet (or only moves between directories)."""
    commands = call.commands
    if not commands:
        return False
    seen_jouet = False
    for command in commands:
        if command.program == "jouet":
            seen_jouet = True
        elif command.program not in _HARMLESS:
            return False
    return seen_jouet


def requires_found(files: tuple[str, ...], cwd: str) -> bool:
    """Whether one of FILES is in CWD or a directory above it."""
    directory = os.path.abspath(cwd)
    while True:
        for name in files:
            if os.path.exists(os.path.join(directory, name)):
                return True
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent


def claims_found(cwd: str) -> bool:
    """Whether any session holds a live claim in the repository around CWD (no git process; no
    import of the claims package on a machine where no store exists)."""
    from jouet_git.claims import may_hold_claims

    if not may_hold_claims():
        return False
    from jouet_git.claims.probe import any_live

    return any_live(cwd)


def guarded_found(call: Call) -> bool:
    """Whether CALL writes one of jouet's own files or hooks (jouet_git/guarded.py)."""
    from jouet_git.call import KIND_EDIT, KIND_SHELL

    if call.kind not in (KIND_EDIT, KIND_SHELL):
        return False
    if call.kind == KIND_SHELL:
        from jouet_git.shell.maywrite import may_write

        # Most commands write nothing: then neither the write finder nor the view of jouet's own
        # files is imported (call_guarded would find nothing to ask about).
        if not call.command or not may_write(call.commands):
            return False
    from jouet_git.guarded import call_guarded

    return bool(call_guarded(call))


def _ask(decision: Decision, question: Any, *args: Any) -> bool:
    """QUESTION(*ARGS), noted in DECISION.asked."""
    answer: bool = question(*args)
    decision.asked.append((question, args, answer))
    return answer


def evaluate(rule: Rule, call: Call, ctx: Context, scripts: ScriptRunner | None) -> Outcome | None:
    """What RULE says about CALL before its mode applies (examples check exactly this)."""
    hits = rule_matches(rule, call, ctx)
    if hits is None:
        return None
    return _outcome(rule, call, hits, scripts)


def _outcome(rule: Rule, call: Call, hits: list[int], scripts: ScriptRunner | None) -> Outcome | None:
    """What a rule whose matchers matched CALL says: its message, or what its script decides."""
    if rule.script is None:
        message = rule.message or ""
        if rule.suggest:
            message = f"Run `{rule.suggest}` instead. {message}"
        if any(m.read_limit for m in rule.matchers):
            problem = read_limit(call)
            if problem is not None:
                message = f"{message} What jouet stopped at: {problem}."
        return Outcome(DENY, message)
    if scripts is None:
        return None
    return scripts.run(rule, call, hits)


def run_order(rules: list[Rule]) -> list[int]:
    """The order RULES run in, as indexes: source by source as they load (built in first), and within
    a source the rules that only match (shape rules) before the rules with a script, so that a sure
    denial never waits for a Lua VM, a git probe or gitleaks. The first denial wins either way."""
    from jouet_git.engine.ruleset import order_of

    return order_of([(rule.source, rule.source_label, rule.script is not None) for rule in rules])


def decide(rules: list[Rule], call: Call, ctx: Context | None = None, scripts: ScriptRunner | None = None,
           disabled: frozenset[str] = frozenset(), planned: list[Planned] | None = None) -> Decision:
    """PLANNED: for each of RULES, its matchers that could match CALL (engine/plan.py)."""
    ctx = ctx or Context()
    decision = Decision()
    jouet_only: bool | None = None
    ask: Finding | None = None
    for number, rule in enumerate(rules):
        if not rule.runs or rule.on != call.event:
            continue
        if rule.source != ENFORCED and (rule.name in disabled or "all" in disabled):
            continue
        try:
            hits = rule_matches(rule, call, ctx, None if planned is None else planned[number])
            # Matching is cheap; what `requires` asks of the filesystem is checked only for a match.
            if hits is None or (rule.requires and not _ask(decision, requires_found, rule.requires, call.cwd)) or (
                    rule.requires_claims and not _ask(decision, claims_found, call.cwd)) or (
                    rule.requires_guarded and not _ask(decision, guarded_found, call)):
                continue
            outcome = _outcome(rule, call, hits, scripts)
        except Exception as error:  # a rule that throws says nothing, and is reported
            decision.errors.append((rule.name, clean(f"{type(error).__name__}: {error}")))
            continue
        if outcome is None:
            continue
        decision.records.extend(outcome.records)
        action = outcome.action
        if action is None or action == "allow":
            continue
        if action == "rewrite":
            if not (rule.source == BUILTIN and rule.mode == DENY and call.rewrite):
                decision.errors.append((rule.name, "returned jouet.rewrite() where it may not rewrite "
                                                   "(only a built-in deny-mode rule, when call.rewrite is true)"))
                continue
            if decision.rewrite is None:
                decision.rewrite = Finding(rule.name, "rewrite", clean(outcome.message), rule.suggest,
                                           outcome.command, rule.source_label)
            continue
        if action == DENY and (rule.mode == WARN or rule.only_warns or call.event == POST_TOOL_USE):
            action = WARN
        if action == DENY and rule.mode == ASK:
            action = ASK
        if action in (DENY, ASK) and rule.source != BUILTIN:
            # No locking out: a rule from anywhere but jouet itself cannot stop a person running jouet
            # to look at or fix their rules. (Built-in rules are part of jouet and are tested with it.)
            if jouet_only is None:
                jouet_only = only_runs_jouet(call)
            if jouet_only:
                action = WARN
        finding = Finding(rule.name, action, clean(outcome.message), rule.suggest, None, rule.source_label)
        if action == DENY:
            decision.deny = finding
            break
        if action == ASK:
            ask = ask or finding
            continue
        decision.warnings.append(finding)
    if decision.deny is None and ask is not None:
        decision.deny = ask
    return decision
