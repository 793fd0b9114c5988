"""Rules that do not run because they are broken, said wherever a decision is made.

A rule file with a TOML error, a misspelt key or a bad pattern loads as a broken rule, which guards
nothing. Its author must hear of it where they look: `jouet check`, `jouet rule test`, `jouet rule
list`, the git hooks' stderr, the session primer and a harness's person-facing message. Every entry
point asks this module, so they all say the same thing:

    broken(ruleset)   [{"rule", "scope", "file", "errors": ["FILE:LINE: what is wrong", ...]}, ...]
    lines(ruleset)    the same for a person, one error a line, then the problems of the rule set
    notices(ruleset)  a few `jouet: ...` lines for a hook's stderr or a harness's message to the person,
                      with the notice of a repository whose rules changed since they were trusted
    summary(ruleset)  one line, for places that have room for one ("" when nothing is broken)

On the hook path: imports nothing but the rule model.
"""

from __future__ import annotations

from jouet_git.engine.model import BROKEN

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.engine.ruleset import RuleSet


def broken(ruleset: RuleSet) -> list[dict[str, Any]]:
    """Every broken rule with each of its errors (file:line: message)."""
    out = []
    for rule in ruleset.broken():
        if rule.state == BROKEN:
            errors = (rule.error or f"{rule.file}:{rule.line}: it does not load").splitlines()
            out.append({"rule": rule.name, "scope": rule.source_label, "file": rule.file, "errors": errors})
    return out


def lines(ruleset: RuleSet) -> list[str]:
    """What a person reads: each broken rule and its errors, then the rule set's other problems
    (a config.toml that does not parse, enforced rules that others can write...)."""
    out = []
    for item in broken(ruleset):
        out.append(f"rule {item['rule']} ({item['scope']}) is broken and does not run:")
        out.extend(f"    {error}" for error in item["errors"])
    out.extend(f"problem: {problem}" for problem in ruleset.problems)
    return out


def summary(ruleset: RuleSet) -> str:
    """One line naming the broken rules, or ""."""
    names = [item["rule"] for item in broken(ruleset)]
    if not names:
        return ""
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    noun = "rule is" if len(names) == 1 else "rules are"
    return f"jouet: {len(names)} {noun} broken and guard nothing until fixed ({shown}); `jouet rule list` says why"


def notices(ruleset: RuleSet, limit: int = 3) -> list[str]:
    """What a hook says to the person about rules that do not run: each broken rule with its first
    error (LIMIT of them, then how many more), and the rule set's problems. [] when all is well."""
    out = []
    items = broken(ruleset)
    for item in items[:limit]:
        more = len(item["errors"]) - 1
        also = f" (and {more} more error{'s' if more != 1 else ''})" if more > 0 else ""
        out.append(f"jouet: rule {item['rule']} is broken and guards nothing: {item['errors'][0]}{also}")
    if len(items) > limit:
        out.append(f"jouet: {len(items) - limit} more broken rule{'s' if len(items) - limit != 1 else ''}")
    if items:
        out.append("jouet: `jouet rule list` shows every error; fix the file or remove it")
    out.extend(f"jouet: {problem}" for problem in ruleset.problems)
    # A repository whose .jouet/ changed since it was trusted: the trusted copy is what runs.
    out.extend(f"jouet: note: {s['notice']}" for s in ruleset.sources if s["kind"] == "repo" and s.get("notice"))
    return out
