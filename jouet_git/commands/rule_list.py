"""`jouet rule list`: every rule jouet loads, and whether (and why not) it runs."""

from __future__ import annotations

import json
from typing import Any

from jouet_git import term
from jouet_git.engine import problems
from jouet_git.engine.keys import PLACEHOLDER
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
        "errors": rule.error.splitlines() if rule.state == BROKEN and rule.error else [],
    }
    if rule.legacy:
        from jouet_git.engine.legacy import deprecation

        out["deprecated"] = deprecation(rule)
    if rule.source == "repo":
        out["trust"] = rule.source_label.split(":", 1)[1] if ":" in rule.source_label else None
    if rule.source == "plugin":
        parts = rule.source_label.split(":")
        out["plugin"] = parts[1] if len(parts) > 1 else None
        out["pin"] = "mismatch" if parts[-1] == "mismatch" else "ok"
    if rule.state_detail:
        out["detail"] = rule.state_detail
    return out


_STATE_STYLE = {"enabled": "ok", "broken": "bad", DISABLED: "dim", UNTRUSTED: "warn"}
# The why column gets its own lines below the row when fewer columns than this are left for it.
_MIN_WHY = 24


def render(ruleset: RuleSet, columns: int | None = None) -> str:
    """The rule table and its notes, fitted into COLUMNS (the terminal's width, at most 100)."""
    width = term.width() if columns is None else columns
    disabled = ruleset.disabled_now()
    rows: list[tuple[str, ...]] = [(r.name, state_text(r, disabled), r.shown_mode, r.source_label, r.author or "-",
             r.created or "-", r.why) for r in ruleset.rules]
    if not rows:
        return "no rules loaded"
    header: tuple[str, ...] = ("NAME", "STATE", "MODE", "SCOPE", "AUTHOR", "CREATED", "WHY")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(6)]
    if sum(widths) + 2 * 5 > width:
        # Too narrow for every column: AUTHOR and CREATED go (`--json` has them).
        header = (*header[:4], header[6])
        rows = [(*row[:4], row[6]) for row in rows]
        widths = widths[:4]
    count = len(widths)
    indent = sum(widths) + 2 * count
    why_width = width - indent
    lines: list[str] = []
    for number, row in enumerate([header, *rows]):
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:count])]
        if number == 0:
            cells = [term.paint(c, "bold") for c in cells]
        else:
            cells[1] = term.paint(cells[1], _STATE_STYLE.get(row[1].split()[0], "warn"))
        left = "  ".join(cells) + "  "
        why = row[count]
        if why_width >= _MIN_WHY:
            wrapped = term.wrap(why, why_width)
            lines.append((left + (term.paint(wrapped[0], "bold") if number == 0 else wrapped[0])).rstrip())
            lines.extend(" " * indent + more for more in wrapped[1:])
        elif number == 0:
            lines.append(left.rstrip())
        else:
            lines.append(left.rstrip())
            lines.extend("    " + more for more in term.wrap(why, width - 4))
    notes = problems.lines(ruleset)
    for rule in ruleset.rules:
        if rule.legacy:
            from jouet_git.engine.legacy import deprecation

            notes.append(f"note: {deprecation(rule)}")
        if rule.state == UNTRUSTED and rule.state_detail:
            notes.append(f"note: {rule.name} does not run: {rule.state_detail}")
        elif rule.state == NEEDS:
            notes.append(f"note: {rule.name} stays off until jouet has `{rule.state_detail}`")
        elif any(m.command == ((PLACEHOLDER,),) for m in rule.matchers):
            notes.append(f"note: {rule.name} is still the template: its matcher looks for a program called "
                         f"{PLACEHOLDER}; fill it in ({rule.file})")
        elif rule.only_warns and rule.state != BROKEN:
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
    fitted = [line for note in notes for line in _hang(note, width)]
    fitted = [term.paint(line, "bad") if line.startswith("rule ") else line for line in fitted]
    return "\n".join(lines + (["", *fitted] if fitted else []))


def _hang(text: str, width: int) -> list[str]:
    """TEXT in lines of WIDTH, the lines after the first indented (as the text's own indent, plus 4)."""
    lead = text[:len(text) - len(text.lstrip())]
    first, *rest = term.wrap(text.strip(), width - len(lead))
    out = [lead + first]
    if rest:
        out.extend(lead + "    " + line for line in term.wrap(" ".join(rest), width - len(lead) - 4))
    return out


def run_list(cwd: str, as_json: bool) -> int:
    ruleset = load(cwd)
    if as_json:
        disabled = ruleset.disabled_now()
        print(json.dumps([rule_json(r, disabled) for r in ruleset.rules], indent=2))
    else:
        print(render(ruleset))
    return 0
