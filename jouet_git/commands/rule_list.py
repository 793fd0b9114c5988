"""`jouet rule list`: every rule jouet loads, and whether (and why not) it runs."""

from __future__ import annotations

import json
from typing import Any

from jouet_git.engine.model import BROKEN, DISABLED, NEEDS, UNTRUSTED, Rule
from jouet_git.engine.ruleset import RuleSet, load


def state_text(rule: Rule, disabled: frozenset[str]) -> str:
    if rule.state == NEEDS:
        return f"needs {rule.state_detail}"
    if rule.state == BROKEN:
        return "broken"
    if rule.state == DISABLED:
        return DISABLED
    if rule.state == UNTRUSTED:
        return UNTRUSTED
    if rule.source != "enforced" and (rule.name in disabled or "all" in disabled):
        return DISABLED
    return rule.state


def rule_json(rule: Rule, disabled: frozenset[str]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": rule.name, "state": state_text(rule, disabled), "mode": rule.shown_mode,
        "scope": rule.source_label, "source": rule.source, "author": rule.author, "created": rule.created,
        "why": rule.why, "file": rule.file, "line": rule.line, "on": rule.on,
        "script": rule.script, "error": rule.error, "only_warns": rule.only_warns or None,
    }
    if rule.source == "repo":
        out["trust"] = rule.source_label.split(":", 1)[1] if ":" in rule.source_label else None
    if rule.source == "plugin":
        parts = rule.source_label.split(":")
        out["plugin"] = parts[1] if len(parts) > 1 else None
        out["pin"] = "mismatch" if parts[-1] == "mismatch" else "ok"
    if rule.state_detail:
        out["detail"] = rule.state_detail
    return out


def render(ruleset: RuleSet) -> str:
    disabled = ruleset.disabled_now()
    rows = [(r.name, state_text(r, disabled), r.shown_mode, r.source_label, r.author or "-",
             r.created or "-", r.why) for r in ruleset.rules]
    if not rows:
        return "no rules loaded"
    rows.insert(0, ("NAME", "STATE", "MODE", "SCOPE", "AUTHOR", "CREATED", "WHY"))
    widths = [max(len(row[i]) for row in rows) for i in range(6)]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:6])) + "  " + row[6] for row in rows]
    notes: list[str] = []
    for rule in ruleset.rules:
        if rule.state == BROKEN:
            notes.append(f"broken: {rule.name}: {rule.error}")
        elif rule.state == UNTRUSTED and rule.state_detail:
            notes.append(f"note: {rule.name} does not run: {rule.state_detail}")
        elif rule.state == NEEDS:
            notes.append(f"note: {rule.name} stays off until jouet has `{rule.state_detail}`")
        elif rule.only_warns:
            notes.append(f"note: {rule.name} only warns, and cannot be promoted, until it has examples of both "
                         f"kinds: {rule.only_warns}; see `jouet rule test {rule.name}`")
    # A repository whose .jouet/ changed (or is untrusted) with no rule left to carry the note.
    if not any(r.source == "repo" for r in ruleset.rules):
        for source in ruleset.sources:
            if source["kind"] == "repo" and not source["runs"] and source["detail"]:
                notes.append(f"note: this repository's rules do not run: {source['detail']}")
    for source in ruleset.sources:
        if source["kind"] == "repo" and source.get("notice"):
            notes.append(f"note: {source['notice']}")
    for problem in ruleset.problems:
        notes.append(f"problem: {problem}")
    return "\n".join(lines + (["", *notes] if notes else []))


def run_list(cwd: str, as_json: bool) -> int:
    ruleset = load(cwd)
    if as_json:
        disabled = ruleset.disabled_now()
        print(json.dumps([rule_json(r, disabled) for r in ruleset.rules], indent=2))
    else:
        print(render(ruleset))
    return 0
