"""Add jouet's hooks to Claude Code's settings, or take them out again.

The hook entries are merged into the settings file without touching anything else in it: other
hooks, permissions, unknown keys and their order all stay. Running it twice changes nothing; the
file is backed up before every change; a file that is not valid JSON is refused, never replaced.
"""

from __future__ import annotations

import difflib
import json
import os
import shlex
import shutil
import stat
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from jouet_git import gitdir
from jouet_git.errors import JouetError
from jouet_git.store import write_atomic

# (Claude Code event, matcher or None, jouet's event)
ENTRIES: tuple[tuple[str, str | None, str], ...] = (
    ("PreToolUse", "Bash|Read|Grep|Edit|Write|MultiEdit|NotebookEdit", "pre"),
    ("PostToolUse", "Bash", "post"),
    ("PostToolUseFailure", "Bash", "post-failure"),
    ("SessionStart", None, "session-start"),
)
TIMEOUT = 30
_MARK = " hook claude "


@dataclass
class ClaudeReport:
    settings: str
    changed: bool
    actions: list[str] = field(default_factory=list)
    backup: str | None = None
    diff: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"settings": self.settings, "changed": self.changed, "actions": self.actions,
                "backup": self.backup}


def settings_path(project: bool, cwd: str) -> str:
    if project:
        root = gitdir.find_root(cwd) or os.path.abspath(cwd)
        return os.path.join(root, ".claude", "settings.json")
    base = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    return os.path.join(base, "settings.json")


def jouet_command() -> str:
    """How the hook runs jouet: the absolute path of this jouet when it can be found."""
    found = shutil.which("jouet")
    script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if os.path.basename(script) == "jouet" and os.access(script, os.X_OK):
        found = script
    return shlex.quote(found) if found else "jouet"


def _is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and _MARK in f" {hook['command']} "


def _read(path: str) -> tuple[dict[str, Any], str | None]:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return {}, None
    except OSError as error:
        raise JouetError(f"cannot read {path}: {error.strerror}") from None
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except ValueError as error:
        raise JouetError(f"{path} is not valid JSON ({error}); jouet will not rewrite it: fix it, or move it "
                         "away and run `jouet setup claude` again") from None
    if not isinstance(data, dict):
        raise JouetError(f"{path} does not hold a JSON object; jouet will not rewrite it")
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise JouetError(f"{path}: `hooks` is not an object; jouet will not rewrite it")
    for event, entries in (hooks or {}).items():
        if not isinstance(entries, list):
            raise JouetError(f"{path}: hooks.{event} is not a list; jouet will not rewrite it")
    return data, text


def _install(data: dict[str, Any], command: str, actions: list[str]) -> None:
    hooks = data.setdefault("hooks", {})
    for event, matcher, ours in ENTRIES:
        wanted = f"{command} hook claude {ours}"
        entries = hooks.setdefault(event, [])
        present = False
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("hooks"), list):
                continue
            for hook in entry["hooks"]:
                if _is_ours(hook) and hook["command"].split()[-1] == ours:
                    present = True
                    if hook["command"] != wanted or entry.get("matcher") != matcher:
                        hook["command"] = wanted
                        if matcher is None:
                            entry.pop("matcher", None)
                        else:
                            entry["matcher"] = matcher
                        actions.append(f"updated {event}: {wanted}")
        if not present:
            entry = {"matcher": matcher} if matcher is not None else {}
            entry["hooks"] = [{"type": "command", "command": wanted, "timeout": TIMEOUT}]
            entries.append(entry)
            actions.append(f"added {event}" + (f" ({matcher})" if matcher else "") + f": {wanted}")


def _uninstall(data: dict[str, Any], actions: list[str]) -> None:
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return
    for event in list(hooks):
        entries = hooks[event]
        kept_entries = []
        for entry in entries:
            if isinstance(entry, dict) and isinstance(entry.get("hooks"), list):
                kept = [h for h in entry["hooks"] if not _is_ours(h)]
                if len(kept) != len(entry["hooks"]):
                    actions.append(f"removed {event}: jouet hook")
                    if not kept:
                        continue
                    entry["hooks"] = kept
            kept_entries.append(entry)
        if kept_entries:
            hooks[event] = kept_entries
        else:
            del hooks[event]
    if not hooks:
        del data["hooks"]


def apply(project: bool, cwd: str, uninstall: bool = False, dry_run: bool = False,
          command: str | None = None) -> ClaudeReport:
    path = settings_path(project, cwd)
    data, before = _read(path)
    actions: list[str] = []
    if uninstall:
        _uninstall(data, actions)
    else:
        _install(data, command or jouet_command(), actions)
    after = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    report = ClaudeReport(path, bool(actions), actions)
    if not actions:
        return report
    report.diff = "".join(difflib.unified_diff((before or "").splitlines(True), after.splitlines(True),
                                               fromfile=path, tofile=path))
    if dry_run:
        return report
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if before is not None:
        backup = f"{path}.jouet-backup-{time.strftime('%Y%m%d-%H%M%S')}"
        n = 1
        while os.path.exists(backup):
            n += 1
            backup = f"{path}.jouet-backup-{time.strftime('%Y%m%d-%H%M%S')}-{n}"
        shutil.copy2(path, backup)
        report.backup = backup
    mode = stat.S_IMODE(os.stat(path).st_mode) if before is not None else 0o644
    write_atomic(path, after, mode)
    return report


def installed(project: bool, cwd: str) -> tuple[str, bool | None]:
    """The settings file, and whether jouet's pre-tool hook is in it (None when unreadable)."""
    path = settings_path(project, cwd)
    try:
        data, _ = _read(path)
    except JouetError:
        return path, None
    for entry in (data.get("hooks") or {}).get("PreToolUse", []):
        if isinstance(entry, dict) and any(_is_ours(h) for h in entry.get("hooks") or []):
            return path, True
    return path, False
