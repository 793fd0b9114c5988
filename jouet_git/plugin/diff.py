"""What changes between two versions of a plugin: its rules, then its files line by line.

`jouet plugin update` shows this before it re-pins, so nothing new runs unseen.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
from typing import Any

from jouet_git.engine.model import Rule

# Rule fields that say where a file is, not what the rule does.
_PLACE = frozenset({"script_path"})


def _script_hash(rule: Rule) -> str | None:
    if not rule.script:
        return None
    try:
        with open(rule.script, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def _fields(rule: Rule) -> dict[str, Any]:
    out = {k: v for k, v in rule.data.items() if k not in _PLACE}
    out["state"] = rule.state if rule.error is None else f"{rule.state}: {rule.error.split(': ', 1)[-1]}"
    script = _script_hash(rule)
    if script is not None:
        out["script content"] = script
    return out


def rule_changes(old: list[Rule], new: list[Rule]) -> list[str]:
    """One line per rule added or removed, and per field changed in a rule kept."""
    before = {r.name: r for r in old}
    after = {r.name: r for r in new}
    lines = []
    for name in sorted(set(before) | set(after)):
        if name not in before:
            lines.append(f"+ {name}: new rule ({after[name].shown_mode}): {after[name].why}")
        elif name not in after:
            lines.append(f"- {name}: removed")
        else:
            a, b = _fields(before[name]), _fields(after[name])
            for key in sorted(set(a) | set(b)):
                if a.get(key) != b.get(key):
                    if key == "script content":
                        lines.append(f"~ {name}: its script changed")
                    else:
                        lines.append(f"~ {name}: {key}: {_show(a.get(key))} -> {_show(b.get(key))}")
    return lines


def _show(value: Any) -> str:
    if value is None:
        return "(none)"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 160 else text[:157] + "..."


def file_diff(old_folder: str | None, new_folder: str, old_files: dict[str, str],
              new_files: dict[str, str]) -> list[str]:
    """A unified diff of every file that differs (FILES map relative paths to sha256)."""
    lines: list[str] = []
    for rel in sorted(set(old_files) | set(new_files)):
        if old_files.get(rel) == new_files.get(rel):
            continue
        a = _lines(os.path.join(old_folder, rel)) if old_folder and rel in old_files else []
        b = _lines(os.path.join(new_folder, rel)) if rel in new_files else []
        lines.extend(difflib.unified_diff(a, b, f"a/{rel}", f"b/{rel}", lineterm=""))
    return lines


def _lines(path: str) -> list[str]:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return []
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return [f"(binary file, {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()})"]
