"""The session-start primer: the deny rules an agent should know about before it starts."""

from __future__ import annotations

from jouet_git.engine import problems
from jouet_git.engine.model import DENY, REPO
from jouet_git.engine.ruleset import RuleSet


def primer(ruleset: RuleSet) -> str:
    disabled = ruleset.disabled_now()
    lines = []
    for rule in ruleset.rules:
        if not rule.runs or rule.mode != DENY or rule.only_warns or not rule.primer:
            continue
        if rule.on != "pre-tool-use" or rule.name in disabled or ("all" in disabled and rule.source != "enforced"):
            continue
        advice = f" Run `{rule.suggest}` instead." if rule.suggest else ""
        lines.append(f"- {rule.name}: {rule.why}{advice}")
    text = []
    if lines:
        text.append("jouet-git checks this session's tool calls. These rules deny calls; a denial names its "
                    "rule as [jouet rule: NAME] and says what to do instead:")
        text.extend(lines)
    # Trusting is the person's to do (the trust rule denies it to agents): say what is so, and leave
    # the commands that change it to the person.
    if any(s["kind"] == REPO and not s["runs"] and s["detail"] for s in ruleset.sources):
        text.append("This repository ships jouet rules of its own that do not run here (the person has not "
                    "trusted them, or cannot use them as they are). Only the person can review and trust them; "
                    "mention it to them if it matters for your task.")
    if repo_notices(ruleset):
        text.append("This repository's jouet rules changed since the person trusted them; the copy they trusted "
                    "keeps running. Only the person can review the change.")
    broken = [item["rule"] for item in problems.broken(ruleset)]
    if broken:
        text.append(f"These jouet rules are broken and do not run: {', '.join(broken)} (`jouet rule list` says "
                    "why); tell the person, whose rules they are.")
    return "\n".join(text)


def repo_notices(ruleset: RuleSet) -> list[str]:
    """What a person should hear about the repository's rules although they run: its .jouet/ changed
    since it was trusted, and the copy that was trusted keeps running (trust/state.py)."""
    return [str(s["notice"]) for s in ruleset.sources if s["kind"] == REPO and s.get("notice")]
