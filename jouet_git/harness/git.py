"""git's own hooks: the same rules on what a commit or push really contains.

    jouet hook git pre-commit                       the index is what will be committed
    jouet hook git pre-push REMOTE URL < refs       one call per ref git is about to push
    jouet hook git post-checkout PREV NEW FLAG      after a fresh clone: does it ship rules?

Add --framework when the pre-commit framework runs it (no stdin, refs from PRE_COMMIT_* variables).

A denial prints the rule's message and name on stderr and exits 1, which stops git; a warning
prints and lets git go on. A person who disagrees with a rule can let one command through with
JOUET_ALLOW=RULE[,RULE...] (never an enforced rule); each use is recorded in the ledger. Agents
cannot: the built-in jouet-config rule denies setting JOUET_* variables in their commands. If jouet
itself fails, it says so and lets git go on.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jouet_git.call import Call
    from jouet_git.engine.decide import Decision
    from jouet_git.engine.ruleset import RuleSet
    from jouet_git.engine.run import LazyScripts

EVENTS = ("pre-commit", "pre-push", "post-checkout")


def _err(text: str) -> None:
    sys.stderr.write(text if text.endswith("\n") else text + "\n")


def run_git_hook(argv: list[str]) -> int:
    framework = "--framework" in argv
    args = [a for a in argv if a != "--framework"]
    if not args or args[0] not in EVENTS:
        _err("jouet hook git: expected an event: pre-commit, pre-push or post-checkout")
        return 1
    event, rest = args[0], args[1:]
    try:
        return _run(event, rest, framework)
    except Exception as error:  # jouet failing must not stop people's git
        _err(f"jouet: internal error in the {event} hook, nothing checked: {type(error).__name__}: {error}")
        return 0


def _run(event: str, rest: list[str], framework: bool) -> int:
    from jouet_git.harness import git_events

    cwd = os.getcwd()
    if event == "post-checkout":
        argv = git_events.post_checkout_argv_from_framework(os.environ) if framework else rest
        notice = git_events.post_checkout_notice(argv, cwd)
        if notice:
            _err(notice)
        return 0
    if event == "pre-commit":
        calls = git_events.pre_commit_calls(cwd)
    elif framework:
        calls = [ref.call for ref in git_events.pre_push_calls_from_framework(os.environ, cwd)]
    else:
        if len(rest) < 2:
            _err("jouet hook git pre-push: expected the remote's name and URL, as git passes them")
            return 1
        stdin = sys.stdin.read()
        calls = [ref.call for ref in git_events.pre_push_calls(rest[0], rest[1], stdin, cwd)]
    # The agent session making the commit or push, when its shell exported one (jouet's session-start
    # hook does): the claims rule tells its own claims from other sessions'.
    session = os.environ.get("JOUET_SESSION_ID") or None
    for call in calls:
        call.session = session
    return check_calls(calls)


def allowed_rules() -> frozenset[str]:
    """Rules a person let through for this one command with JOUET_ALLOW."""
    value = os.environ.get("JOUET_ALLOW", "")
    return frozenset(name.strip() for name in value.split(",") if name.strip())


def decide_allowing(call: Call, ruleset: RuleSet, allowed: frozenset[str],
                    scripts: LazyScripts) -> tuple[Decision, list[str]]:
    """Decide CALL; a denial by a rule in ALLOWED (not enforced) is let through and decided again."""
    from jouet_git.engine.run import decide_call

    skipped: list[str] = []
    while True:
        decision = decide_call(call, ruleset, scripts, frozenset(skipped))
        deny = decision.deny
        if deny is None or deny.rule not in allowed or deny.source_label.startswith("enforced"):
            return decision, skipped
        skipped.append(deny.rule)


def check_calls(calls: list[Call]) -> int:
    from jouet_git import journal
    from jouet_git.engine.ruleset import load
    from jouet_git.engine.run import LazyScripts

    if not calls:
        return 0
    ruleset = load(calls[0].cwd)
    scripts = LazyScripts(ruleset)  # one Lua VM for every ref of a push
    allowed = allowed_rules()
    status = 0
    for call in calls:
        decision, let_through = decide_allowing(call, ruleset, allowed, scripts)
        for name in let_through:
            _err(f"jouet: JOUET_ALLOW let `{call.command}` through rule {name}; recorded")
            journal.append(journal.LEDGER, {"harness": "git", "event": call.input.get("hook", "pre-commit"),
                                            "rule": name, "action": "allowed", "by": "JOUET_ALLOW",
                                            "command": call.command})
        for warning in decision.warnings:
            _err(f"jouet: warning: {warning.text()}")
        for rule, error in decision.errors:
            _err(f"jouet: rule {rule} failed and said nothing: {error}")
        if decision.deny is not None:
            deny = decision.deny
            _err(f"jouet: {deny.text()}")
            if not deny.source_label.startswith("enforced"):
                _err(f"jouet: if you are a person and disagree, let this one through with "
                     f"JOUET_ALLOW={deny.rule} (it is recorded)")
            journal.append(journal.LEDGER, {"harness": "git", "event": call.input.get("hook", "pre-commit"),
                                            "rule": deny.rule, "action": "deny", "command": call.command})
            status = 1
    return status
