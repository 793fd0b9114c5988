"""`jouet setup cline`: Cline runs an executable named after the event, so jouet writes three.

    ~/Documents/Cline/Hooks/PreToolUse       (user)     .clinerules/hooks/PreToolUse   (project)
    ~/Documents/Cline/Hooks/PostToolUse                 .clinerules/hooks/PostToolUse
    ~/Documents/Cline/Hooks/TaskStart                   .clinerules/hooks/TaskStart

Each is a small sh script that hands the payload to `jouet hook cline EVENT` (targets.cline_script).
A file of that name that jouet did not write is never replaced: Cline runs one file per event, and
merging two programs' answers is the user's call. `--uninstall` removes only the files that are
still exactly as jouet wrote them, and the folders it created when they are left empty.
"""

from __future__ import annotations

import difflib
import os
import re

from jouet_git.errors import JouetError
from jouet_git.setup import saved
from jouet_git.setup.apply import Report, read_text
from jouet_git.setup.targets import Event, Target, cline_script
from jouet_git.store import write_atomic

_EXEC = re.compile(r"^exec (.+) hook cline ([a-z-]+)$", re.MULTILINE)


def is_ours(text: str) -> bool:
    return "installed by `jouet setup cline`" in text


def pristine(event: Event, text: str) -> bool:
    """Whether TEXT is exactly a script jouet writes for EVENT (with some jouet path)."""
    import shlex

    found = _EXEC.search(text)
    if not found:
        return False
    try:
        jouet = shlex.split(found.group(1))[0]
    except (ValueError, IndexError):
        return False
    return text == cline_script(event, jouet)


def apply(target: Target, project: bool, cwd: str, jouet: str, uninstall: bool, dry_run: bool) -> Report:
    directory = target.path(project, cwd)
    report = Report(target.name, "project" if project else "user", directory, dry_run=dry_run)
    writes: list[tuple[str, str]] = []
    removes: list[str] = []
    foreign: list[str] = []
    diffs: list[str] = []
    for event in target.events:
        path = os.path.join(directory, event.key)
        current = read_text(path)
        if uninstall:
            if current is not None and is_ours(current):
                if pristine(event, current):
                    removes.append(path)
                    report.actions.append(f"removed {path}")
                    diffs.append("".join(difflib.unified_diff(current.splitlines(True), [], path, "/dev/null")))
                else:
                    report.actions.append(f"left {path}: changed since `jouet setup cline` wrote it")
            continue
        wanted = cline_script(event, jouet)
        if current == wanted:
            continue
        if current is not None and not is_ours(current):
            foreign.append(path)
            continue
        writes.append((path, wanted))
        report.actions.append(("updated " if current is not None else "added ") + f"{path}: runs "
                              f"{jouet} hook cline {event.ours}")
        diffs.append("".join(difflib.unified_diff((current or "").splitlines(True), wanted.splitlines(True),
                                                  "/dev/null" if current is None else path, path)))
    if foreign:
        raise JouetError(
            "; ".join(f"{p} exists and was not written by jouet" for p in foreign)
            + ". Cline runs one hook file per event, so jouet will not replace yours: make it call "
            "`jouet hook cline EVENT` (and answer with its JSON), or move it away and run "
            "`jouet setup cline` again")
    report.diff = "".join(diffs)
    report.changed = bool(writes or removes)
    if dry_run or not report.changed:
        return report
    record = saved.Record.load(directory)
    if writes:
        created: list[str] = []
        parent = directory
        while parent and not os.path.isdir(parent):
            created.insert(0, parent)
            parent = os.path.dirname(parent)
        os.makedirs(directory, exist_ok=True)
        for path, text in writes:
            write_atomic(path, text, 0o755)
        if record is None:
            record = saved.remember_original(directory, None, created)
            record.save()
    for path in removes:
        os.unlink(path)
    if uninstall:
        for folder in reversed(record.created_dirs if record else []):
            try:
                os.rmdir(folder)
            except OSError:
                break
        saved.forget(directory)
    return report


def installed(target: Target, directory: str) -> tuple[list[str], list[str], list[str]]:
    """(events installed, events missing, the jouet commands the scripts run)."""
    have, missing, run = [], [], []
    for event in target.events:
        text = read_text(os.path.join(directory, event.key))
        found = _EXEC.search(text or "") if text and is_ours(text) else None
        if found:
            have.append(event.key)
            run.append(f"{found.group(1)} hook cline {found.group(2)}")
        else:
            missing.append(event.key)
    return have, missing, run
