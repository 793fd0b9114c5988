"""What a set of rules from outside would do, shown before anyone trusts a repository or pins a plugin.

For each rule: its name, mode, when it runs, a summary of its matchers, the message it gives (or the
script that decides), how many examples it has, and whether it would run, or why not: refused (it
does not load, lacks examples of either kind, fails one, or takes a name already taken), waiting
for a jouet command, turned off, or not running at all. Scripts are listed with the rules that use
them; a script no rule names is listed too, as never running.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from jouet_git.engine.model import BROKEN, DISABLED, NEEDS, UNTRUSTED, Rule
from jouet_git.errors import JouetError

RUNS = "runs"
REFUSED = "refused"


def _rel(path: str, base: str) -> str:
    try:
        rel = os.path.relpath(path, base)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def matcher_summary(rule: Rule) -> str:
    """The rule's matchers as TOML-like text; alternatives are separated by ` | `."""
    parts = []
    for matcher in rule.data.get("match") or []:
        keys = [f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in matcher.items()]
        parts.append(", ".join(keys))
    return " | ".join(parts) or "-"


def rule_view(rule: Rule, base: str) -> dict[str, Any]:
    """What RULE (settled by the engine's build) would do, for showing and for --json."""
    examples = rule.examples or {}
    fires = len(examples.get("fires") or [])
    quiet = len(examples.get("quiet") or [])
    script = _rel(rule.script, base) if rule.script else None
    if rule.state == BROKEN:
        state, reason = REFUSED, (rule.error or "it does not load").replace(base.rstrip(os.sep) + os.sep, "")
    elif rule.state == NEEDS:
        state, reason = "waits", f"stays off until this jouet has `jouet {rule.state_detail}`"
    elif rule.state == UNTRUSTED:
        state, reason = "off", rule.state_detail
    elif rule.state == DISABLED:
        state, reason = "disabled", "turned off in config.toml"
    else:
        state, reason = RUNS, f"its examples pass ({fires} fires, {quiet} quiet)"
    message = rule.message if rule.message is not None else (f"its script {script} decides" if script else "")
    return {
        "name": rule.name, "file": _rel(rule.file, base), "line": rule.line, "mode": rule.shown_mode,
        "on": rule.on, "match": matcher_summary(rule), "message": message, "script": script,
        "fires": fires, "quiet": quiet, "examples_pass": state in (RUNS, "waits", "disabled"),
        "state": state, "reason": reason,
    }


def scripts_view(rules: list[Rule], scripts: list[str], base: str) -> list[dict[str, Any]]:
    """Each script (absolute paths in SCRIPTS) with the rules that use it."""
    used: dict[str, list[str]] = {}
    for rule in rules:
        if rule.script:
            used.setdefault(os.path.realpath(rule.script), []).append(rule.name)
    return [{"path": _rel(path, base), "rules": used.get(os.path.realpath(path), [])} for path in sorted(scripts)]


def render_rules(views: list[dict[str, Any]], indent: str = "  ") -> list[str]:
    lines: list[str] = []
    for view in views:
        if view["state"] == REFUSED:
            lines.append(f"{indent}{view['name']}  REFUSED: {view['reason']}")
            continue
        lines.append(f"{indent}{view['name']}  {view['mode']}{'' if view['on'] == 'pre-tool-use' else ' after a tool'}"
                     f"  {view['state']}: {view['reason']}")
        lines.append(f"{indent}    matches: {view['match']}")
        if view["message"]:
            lines.append(f"{indent}    says:    {view['message']}")
        lines.append(f"{indent}    file:    {view['file']}:{view['line']}")
    return lines


def render_scripts(scripts: list[dict[str, Any]], indent: str = "  ") -> list[str]:
    lines = []
    for script in scripts:
        users = ", ".join(script["rules"])
        lines.append(f"{indent}{script['path']}  " + (f"used by {users}" if users else "used by no rule; never runs"))
    return lines


def count_runnable(views: list[dict[str, Any]]) -> int:
    return sum(1 for v in views if v["state"] in (RUNS, "waits", "disabled"))


def confirm(question: str, yes: bool, no_terminal: str) -> bool:
    """Whether the person agrees to QUESTION: yes when --yes was given, else asked on the terminal.
    Without a terminal to ask on, it refuses with NO_TERMINAL (what to do instead)."""
    if yes:
        return True
    if not sys.stdin.isatty():
        raise JouetError(no_terminal)
    sys.stderr.write(f"\n{question} [y/N] ")
    sys.stderr.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")
