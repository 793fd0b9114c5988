"""`jouet setup opencode|pi|openclaw`: hosts that load plugins in-process get jouet's JavaScript.

    opencode  ~/.config/opencode/plugins/jouet.js (+ jouet/runner.mjs, jouet/jouet.json)
              .opencode/plugins/... with --project
    pi        ~/.pi/agent/extensions/jouet/{index.js, runner.mjs, jouet.json}
              .pi/extensions/jouet/ with --project
    openclaw  ~/.openclaw/extensions/jouet/{index.js, runner.mjs, openclaw.plugin.json, package.json,
              jouet.json}; .openclaw/extensions/jouet/ with --project

The JavaScript ships in the wheel (jouet_git/hosts/) and is copied as it is; jouet.json names the
jouet the runner starts (this jouet's absolute path in your files, `jouet` on PATH in a project's,
as for every other harness). A file of the same name that jouet did not write is never replaced.
`--uninstall` removes the files that are still exactly as jouet wrote them, and the folders it
created when they are left empty.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os

from jouet_git import paths
from jouet_git.errors import JouetError
from jouet_git.setup import saved
from jouet_git.setup.apply import Report, read_text
from jouet_git.setup.targets import Target
from jouet_git.store import write_atomic

SETTINGS = "jouet.json"
# What each host gets: (where it goes, under the target's folder; what it is, under jouet_git/hosts).
FILES: dict[str, list[tuple[str, str | None]]] = {
    "opencode": [("jouet.js", "opencode/jouet.js"), ("jouet/runner.mjs", "runner.mjs"),
                 ("jouet/" + SETTINGS, None)],
    "pi": [("index.js", "pi/index.js"), ("runner.mjs", "runner.mjs"), (SETTINGS, None)],
    "openclaw": [("openclaw.plugin.json", "openclaw/openclaw.plugin.json"), ("package.json", "openclaw/package.json"),
                 ("index.js", "openclaw/index.js"), ("runner.mjs", "runner.mjs"), (SETTINGS, None)],
}


def shipped(name: str) -> str:
    with open(os.path.join(paths.package_dir(), "hosts", name), encoding="utf-8") as f:
        return f.read()


def settings(target: Target, jouet: str) -> str:
    data = {"installedBy": f"jouet setup {target.name}", "command": [jouet]}
    return json.dumps(data, indent=2) + "\n"


def _jouet_of(text: str | None, target: Target) -> str | None:
    """The jouet a settings file written by `jouet setup TARGET` names, or None when it is not one."""
    try:
        data = json.loads(text or "")
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("installedBy") != f"jouet setup {target.name}":
        return None
    command = data.get("command")
    if isinstance(command, list) and len(command) == 1 and isinstance(command[0], str) and command[0]:
        return command[0]
    return None


def is_ours(text: str, target: Target) -> bool:
    """Whether TEXT is a file `jouet setup` writes for a host (its marker, or its settings)."""
    return "jouet-git" in text or _jouet_of(text, target) is not None


def wanted(target: Target, jouet: str) -> list[tuple[str, str]]:
    return [(where, shipped(what) if what else settings(target, jouet)) for where, what in FILES[target.name]]


def apply(target: Target, project: bool, cwd: str, jouet: str, uninstall: bool, dry_run: bool) -> Report:
    directory = target.path(project, cwd)
    report = Report(target.name, "project" if project else "user", directory, dry_run=dry_run)
    writes: list[tuple[str, str]] = []
    removes: list[str] = []
    foreign: list[str] = []
    diffs: list[str] = []
    for where, text in wanted(target, jouet):
        path = os.path.join(directory, where)
        current = read_text(path)
        if uninstall:
            if current is None:
                continue
            pristine = current == text or (where.endswith(SETTINGS) and _jouet_of(current, target) is not None)
            if pristine:
                removes.append(path)
                report.actions.append(f"removed {path}")
                diffs.append("".join(difflib.unified_diff(current.splitlines(True), [], path, "/dev/null")))
            elif is_ours(current, target):
                report.actions.append(f"left {path}: changed since `jouet setup {target.name}` wrote it")
            continue
        if current == text:
            continue
        if current is not None and not is_ours(current, target):
            foreign.append(path)
            continue
        writes.append((path, text))
        report.actions.append(("updated " if current is not None else "added ") + path)
        diffs.append("".join(difflib.unified_diff((current or "").splitlines(True), text.splitlines(True),
                                                  "/dev/null" if current is None else path, path)))
    if foreign:
        raise JouetError(
            "; ".join(f"{p} exists and was not written by jouet" for p in foreign)
            + f". jouet will not replace another plugin's file: move it away and run `jouet setup {target.name}` "
            "again")
    report.diff = "".join(diffs)
    report.changed = bool(writes or removes)
    if dry_run or not report.changed:
        return report
    record = saved.Record.load(directory)
    if writes:
        created: list[str] = []
        for path, _ in writes:
            parent = os.path.dirname(path)
            missing: list[str] = []
            while parent and not os.path.isdir(parent):
                missing.insert(0, parent)
                parent = os.path.dirname(parent)
            created += [d for d in missing if d not in created]
            os.makedirs(os.path.dirname(path), exist_ok=True)
        for path, text in writes:
            write_atomic(path, text, 0o644)
        if record is None:
            record = saved.remember_original(directory, None, created)
            record.save()
    for path in removes:
        os.unlink(path)
    if uninstall:
        for folder in sorted(record.created_dirs if record else [], key=len, reverse=True):
            with contextlib.suppress(OSError):
                os.rmdir(folder)
        saved.forget(directory)
    return report


def installed(target: Target, directory: str) -> tuple[list[str], list[str], list[str]]:
    """(files installed, files missing, the command the runner starts) for TARGET in DIRECTORY."""
    have, missing, run = [], [], []
    for where, what in FILES[target.name]:
        text = read_text(os.path.join(directory, where))
        if text is not None and is_ours(text, target):
            have.append(where)
            if what is None:
                jouet = _jouet_of(text, target)
                if jouet:
                    run.append(f"{jouet} hook neutral --host {target.name}")
        else:
            missing.append(where)
    return have, missing, run
