"""Install or remove jouet's entries in a harness's JSON config file, changing nothing else.

The plan is worked out on the parsed data (which of jouet's entries are there, which are stale),
then carried out as edits of the original text (jsonedit), so the diff is only jouet's entries.
Installing twice changes nothing. Before every change the file is backed up (saved.py); a file
that does not parse, or whose hooks are not laid out as the harness expects, is refused with the
place of the problem. `--uninstall` puts the original bytes back when the file is exactly as jouet
left it, and otherwise takes out only jouet's entries.
"""

from __future__ import annotations

import difflib
import os
import stat
from dataclasses import dataclass, field
from typing import Any

from jouet_git.errors import JouetError
from jouet_git.setup import saved
from jouet_git.setup.jsonedit import Document, JsonSyntaxError
from jouet_git.setup.targets import AMP, GROUPED, PLUGINS, SCRIPTS, Event, Target, ours
from jouet_git.store import write_atomic


@dataclass
class Report:
    harness: str
    scope: str
    path: str
    changed: bool = False
    actions: list[str] = field(default_factory=list)
    backup: str | None = None
    diff: str = ""
    dry_run: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"harness": self.harness, "scope": self.scope, "path": self.path, "changed": self.changed,
                "actions": self.actions, "backup": self.backup, "dry_run": self.dry_run}


def read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise JouetError(f"cannot read {path}: {error.strerror}") from None


def read_text(path: str) -> str | None:
    """The text of the file at PATH as a text-mode open reads it (UTF-8, bad bytes replaced, line ends
    made \\n), or None when there is none. Raises JouetError."""
    data = read(path)
    if data is None:
        return None
    return data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


def load(target: Target, path: str, data: bytes | None) -> Document:
    """PATH's text as a Document, checked for the layout TARGET's entries go into."""
    retry = f"fix it, or move it away and run `jouet setup {target.name}` again"
    if data is None or not data.strip():
        return Document.parse("{}\n", path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise JouetError(f"{path}: byte {error.start} is not UTF-8; jouet will not rewrite it: {retry}") from None
    try:
        doc = Document.parse(text, path)
    except JsonSyntaxError as error:
        raise JouetError(f"{error} (the file is not valid JSON); jouet will not rewrite it: {retry}") from None
    if doc.root.kind != "object":
        raise JouetError(f"{doc.where_is([])}: the file holds a JSON {doc.root.kind}, not an object; "
                         f"jouet will not rewrite it: {retry}")
    container = doc.node([target.container])
    if target.layout == AMP:
        if container is not None and container.kind != "array":
            raise JouetError(f"{doc.where_is([target.container])}: `{target.container}` is not a list; "
                             f"jouet will not rewrite it: {retry}")
        return doc
    if container is None:
        return doc
    if container.kind != "object":
        raise JouetError(f"{doc.where_is([target.container])}: `{target.container}` is not an object; "
                         f"jouet will not rewrite it: {retry}")
    for key, child in zip(container.keys, container.children, strict=True):
        if child.kind != "array":
            raise JouetError(f"{doc.where_is([target.container, key])}: `{target.container}.{key}` is not a "
                             f"list; jouet will not rewrite it: {retry}")
    return doc


# -- where jouet's entries are -------------------------------------------------------------


@dataclass
class Found:
    """One of jouet's entries in the file."""

    key: str  # the event (or Amp tool) it sits under
    ours: str  # jouet's event in its command
    path: list[str | int]  # where the entry is: a group, a hook, or an Amp rule
    whole: bool  # True: the whole item is jouet's; False: a hook inside someone else's group
    value: Any = None


def find(target: Target, doc: Document) -> list[Found]:
    out: list[Found] = []
    if target.layout == AMP:
        for i, rule in enumerate(doc.get([target.container]) or []):
            if isinstance(rule, dict) and rule.get("action") == "delegate":
                who = ours(rule.get("to"))
                if who and who[0] == target.name:
                    out.append(Found(str(rule.get("tool")), who[1], [target.container, i], True, rule))
        return out
    hooks = doc.get([target.container])
    if not isinstance(hooks, dict):
        return out
    for key, items in hooks.items():
        for i, item in enumerate(items if isinstance(items, list) else []):
            if not isinstance(item, dict):
                continue
            if target.layout == GROUPED:
                inner = item.get("hooks")
                inner = inner if isinstance(inner, list) else []
                mine = [(j, h) for j, h in enumerate(inner)
                        if isinstance(h, dict) and (ours(h.get("command")) or ("", ""))[0] == target.name]
                for j, hook in mine:
                    who = ours(hook.get("command"))
                    assert who is not None
                    if len(inner) == 1:
                        out.append(Found(key, who[1], [target.container, key, i], True, item))
                    else:
                        out.append(Found(key, who[1], [target.container, key, i, "hooks", j], False, hook))
            else:
                who = ours(item.get(target.command_key))
                if who and who[0] == target.name:
                    out.append(Found(key, who[1], [target.container, key, i], True, item))
    return out


def _remove(doc: Document, found: list[Found]) -> None:
    """Take FOUND out of DOC, last first so earlier paths stay right; drop lists left empty."""
    for f in sorted(found, key=lambda f: [str(s).zfill(8) if isinstance(s, int) else s for s in f.path],
                    reverse=True):
        doc.remove_item(f.path[:-1], int(f.path[-1]))


def plan(target: Target, doc: Document, jouet: str, uninstall: bool) -> list[str]:
    """Edit DOC so that it holds exactly jouet's wanted entries (none with UNINSTALL)."""
    actions: list[str] = []
    wanted = [] if uninstall else list(target.events)
    ids = {(e.key, e.ours) for e in wanted}
    seen: set[tuple[str, str]] = set()
    stale: list[Found] = []
    for f in find(target, doc):
        if (f.key, f.ours) in ids and (f.key, f.ours) not in seen:
            seen.add((f.key, f.ours))
        else:
            stale.append(f)
    if stale:
        _remove(doc, stale)
        actions += [f"removed {f.key}: jouet hook {target.name} {f.ours}" for f in stale]
        _drop_empty(target, doc, {f.key for f in stale})
    present = {(f.key, f.ours): f for f in find(target, doc)}
    missing: list[Event] = []
    for event in wanted:
        command = target.command(event, jouet)
        match = present.get((event.key, event.ours))
        if match is None:
            missing.append(event)
            continue
        expected = target.entry(event, command) if match.whole else target.hook_object(event, command)
        if match.value != expected:
            doc.replace(match.path, expected)
            actions.append(f"updated {event.key}: {command}")
    if not missing:
        return actions
    for name, value in target.top.items():
        if doc.node([name]) is None:
            doc.set_member([], name, value)
    if doc.node([target.container]) is None:
        doc.set_member([], target.container, [] if target.layout == AMP else {})
    if target.layout == AMP:
        # first-match-wins: jouet's rules go first, before any rule that would let a call through
        mine = [int(f.path[-1]) for f in present.values()]
        at = max(mine) + 1 if mine else 0
        for event in missing:
            entry = target.entry(event, target.command(event, jouet))
            doc.insert_item([target.container], at, entry)
            at += 1
            actions.append(f"added a delegate rule for {event.key}: {entry['to']}")
        return actions
    for event in missing:
        command = target.command(event, jouet)
        entry = target.entry(event, command)
        if doc.node([target.container, event.key]) is None:
            doc.set_member([target.container], event.key, [entry])
        else:
            doc.append_item([target.container, event.key], entry)
        actions.append(f"added {event.key}" + (f" ({event.matcher})" if event.matcher else "") + f": {command}")
    return actions


def _drop_empty(target: Target, doc: Document, keys: set[str]) -> None:
    if target.layout == AMP:
        return
    for key in keys:
        if doc.get([target.container, key]) == []:
            doc.remove_member([target.container], key)
    if doc.get([target.container]) == {}:
        doc.remove_member([], target.container)


# -- applying -------------------------------------------------------------------------------


def apply(target: Target, project: bool, cwd: str, jouet: str, uninstall: bool = False,
          dry_run: bool = False) -> Report:
    if target.layout == SCRIPTS:
        from jouet_git.setup import cline

        return cline.apply(target, project, cwd, jouet, uninstall, dry_run)
    if target.layout == PLUGINS:
        from jouet_git.setup import plugins

        return plugins.apply(target, project, cwd, jouet, uninstall, dry_run)
    path = target.path(project, cwd)
    report = Report(target.name, "project" if project else "user", path, dry_run=dry_run)
    before = read(path)
    doc = load(target, path, before)
    actions = plan(target, doc, jouet, uninstall)
    record = saved.Record.load(path)
    restore = uninstall and record is not None and record.written == saved.sha(before) and before is not None
    if restore:
        assert record is not None
        after: bytes | None = record.original()
        actions = actions or ["removed jouet's entries"]
        actions.append("restored the file as it was before `jouet setup`" if after is not None
                       else "removed the file `jouet setup` had created")
    else:
        after = doc.text.encode("utf-8") if actions else before
    if after == before or not actions:
        return report
    report.changed, report.actions = True, actions
    old_text = (before or b"").decode("utf-8", "replace").splitlines(True)
    new_text = (after or b"").decode("utf-8", "replace").splitlines(True)
    report.diff = "".join(difflib.unified_diff(old_text, new_text, fromfile=path, tofile=path))
    if dry_run:
        return report
    _write(path, before, after, record, uninstall, report)
    return report


def _write(path: str, before: bytes | None, after: bytes | None, record: saved.Record | None,
           uninstall: bool, report: Report) -> None:
    if before is not None:
        report.backup = saved.backup(path, before)
    if after is None:
        os.unlink(path)
        for directory in reversed(record.created_dirs if record else []):
            try:
                os.rmdir(directory)
            except OSError:
                break
    else:
        created: list[str] = []
        directory = os.path.dirname(path)
        while directory and not os.path.isdir(directory):
            created.insert(0, directory)
            directory = os.path.dirname(directory)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        mode = stat.S_IMODE(os.stat(path).st_mode) if before is not None else 0o644
        write_atomic(path, after, mode)
        if not uninstall:
            if record is None or record.written != saved.sha(before):
                record = saved.remember_original(path, before, created)
            record.written = saved.sha(after)
            record.save()
    if uninstall:
        saved.forget(path)


def installed(target: Target, doc: Document) -> tuple[list[str], list[str]]:
    """(events installed, events missing) of TARGET's entries in DOC."""
    present = {(f.key, f.ours) for f in find(target, doc)}
    have = [e.key for e in target.events if (e.key, e.ours) in present]
    return have, [e.key for e in target.events if (e.key, e.ours) not in present]


def commands(target: Target, doc: Document) -> list[str]:
    out = []
    for f in find(target, doc):
        value = f.value
        if target.layout == AMP:
            out.append(str(value.get("to")))
        elif target.layout == GROUPED and f.whole:
            out.append(str(value["hooks"][0].get("command")))
        else:
            out.append(str(value.get(target.command_key)))
    return out
