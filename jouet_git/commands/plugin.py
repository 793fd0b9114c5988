"""Add, list, update and remove rule plugins, each pinned by the sha256 of its content.

A plugin is a folder with plugin.toml (name, description, min_jouet, [settings]) and rules/. Its
rules are named PLUGIN/RULE and deny unless they say otherwise. `add` fetches it (a local
directory as it is, a git URL or a local repository at the exact commit --rev names), shows what
each rule does, refuses rules that fail or lack examples, and, once you agree, keeps a copy in
jouet's data directory and writes the pin to ~/.config/jouet/config.toml. A plugin runs only while
its copy hashes to the pin: a changed copy shows as plugin:NAME:mismatch and does not run.

Settings override the plugin's defaults in config.toml:

  [plugins.protected-branches.settings]
  branches = ["main", "release/*"]

examples:
  jouet plugin add protected-branches                 one of jouet's own plugins (builtin:NAME)
  jouet plugin add team https://git.example.com/team-rules.git --rev v1.2
  jouet plugin add local ~/src/my-plugin              a directory, copied as it is
  jouet plugin list                                   every plugin, its pin and whether it matches
  jouet plugin update team                            fetch again, show what changed, re-pin
  jouet plugin update team --rev v1.3
  jouet plugin remove team

A repository declares plugins for its own rules in .jouet/plugins.toml (same keys), which
`jouet trust` reviews, fetches and covers.

Exit status: 0 done, 1 refused or declined, 2 usage errors (unknown plugin, failed fetch).
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from jouet_git import gitdir, paths, term
from jouet_git.errors import FOUND, JouetError
from jouet_git.plugin import pins as pinmod
from jouet_git.plugin import store
from jouet_git.plugin.fetch import BUILTIN, Fetched, fetch, is_git
from jouet_git.plugin.manifest import PluginError, name_problem
from jouet_git.trust.content import scan
from jouet_git.trust.review import confirm


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="sub", metavar="SUBCOMMAND")
    sub.required = True

    p = sub.add_parser("add", help="fetch a plugin, review its rules, and pin it",
                       description="Fetch the plugin, show each rule with its mode, matchers, message and "
                                   "whether its examples pass, ask, then keep a copy and pin its sha256 in "
                                   "config.toml. Without SOURCE, NAME is one of jouet's own plugins.")
    p.add_argument("name", help="the plugin's name (its plugin.toml must say the same)")
    p.add_argument("source", nargs="?", help="a directory, a git URL, or builtin:NAME (default builtin:NAME)")
    p.add_argument("--rev", default=None, help="the commit, tag or branch to check out (git sources)")
    p.add_argument("--yes", "-y", action="store_true", help="pin without asking (for scripts)")
    p.add_argument("--json", action="store_true", help="print the review as JSON")
    p.set_defaults(func=_add)

    p = sub.add_parser("list", help="every plugin: where it comes from, its pin, and whether its copy matches")
    p.add_argument("--json", action="store_true", help="print the plugins as a JSON list")
    p.add_argument("--cwd", default=None, help="include the plugins the repository in DIR declares")
    p.set_defaults(func=_list)

    p = sub.add_parser("update", help="fetch a plugin again, show what changed in its rules, and re-pin it",
                       description="Fetch the plugin from its source (at --rev, else the rev it was added "
                                   "with), show the rules and files that differ from the pinned copy, ask, "
                                   "then replace the copy and the pin. With nothing changed, it only restores a "
                                   "missing or altered copy from the source.")
    p.add_argument("name")
    p.add_argument("--rev", default=None, help="the commit, tag or branch to move to")
    p.add_argument("--yes", "-y", action="store_true", help="re-pin without asking (for scripts)")
    p.add_argument("--json", action="store_true", help="print what changed as JSON")
    p.set_defaults(func=_update)

    p = sub.add_parser("remove", help="forget a plugin's pin and delete its copy")
    p.add_argument("name")
    p.set_defaults(func=_remove)


def run(args: argparse.Namespace) -> int:
    code: int = args.func(args)
    return code


def _fetch(source: str, rev: str | None) -> Fetched:
    try:
        return fetch(source, rev)
    except PluginError as error:
        raise JouetError(error.message) from None


def _confirm(question: str, yes: bool) -> bool:
    return confirm(question, yes, "jouet asks before it pins a plugin, and there is no terminal to ask on: run it "
                                  "in a terminal, or add --yes once you have read what it shows")


def _emit(as_json: bool, data: dict[str, Any], lines: list[str]) -> None:
    if as_json:
        print(json.dumps(data, indent=2))
    elif lines:
        print("\n".join(lines))


def _add(args: argparse.Namespace) -> int:
    from jouet_git.plugin.review import review_folder

    name = args.name
    problem = name_problem(name)
    if problem:
        raise JouetError(problem)
    existing = pinmod.find_user_pin(name)
    if existing is not None:
        raise JouetError(f"plugin {name} is already pinned ({existing.source}); `jouet plugin update {name}` "
                         "fetches it again, `jouet plugin remove` forgets it")
    fetched = _fetch(args.source or f"{BUILTIN}{name}", args.rev)
    try:
        checked = review_folder(name, fetched.folder)
        data: dict[str, Any] = {"source": fetched.source, "rev": fetched.commit, **checked.to_json()}
        lines = checked.render()
        if checked.refusal or checked.runnable == 0:
            why = checked.refusal or "none of its rules would run (see above)"
            _emit(args.json, {**data, "action": "refused"}, [*lines, "", f"Not pinned: {why}."])
            return FOUND
        if not args.json:
            print("\n".join(lines))
        rules = term.count(checked.runnable, "rule")
        if not _confirm(f"Pin plugin {name} ({rules}) at sha256 {checked.content.digest[:12]}…? "
                        "Its rules will run on every tool call an agent makes.", args.yes):
            _emit(args.json, {**data, "action": "declined"}, ["Nothing was pinned."])
            return FOUND
        store.install(fetched.folder, store.user_copy(name))
        ref = args.rev if args.rev and args.rev != fetched.commit else None
        pin = pinmod.Pin(name, fetched.source, checked.content.digest, fetched.commit, ref)
        settings = checked.manifest.settings if checked.manifest else {}
        defaults = ", ".join(f"{k} = {json.dumps(v)}" for k, v in settings.items())
        note = f"settings go in [plugins.{name}.settings]; the plugin's defaults: {defaults}" if settings else ""
        pinmod.save_user_pin(pin, note)
    finally:
        fetched.discard()
    _emit(args.json, {**data, "action": "pinned"},
          [f"Pinned {name} at sha256 {checked.content.digest[:12]}… in {paths.config_file()}; its rules run from "
           "the next tool call."])
    return 0


def _update(args: argparse.Namespace) -> int:
    from jouet_git.plugin.diff import file_diff, rule_changes
    from jouet_git.plugin.review import review_folder

    name = args.name
    pin = pinmod.find_user_pin(name)
    if pin is None:
        raise JouetError(f"no plugin named {name} is pinned in {paths.config_file()}; `jouet plugin list` shows them")
    if pin.rev is not None or is_git(pin.source, None):
        # Fetched with git before: follow the ref it was added with, else the default branch.
        rev = args.rev or pin.ref or "HEAD"
    else:
        # A directory, or one of jouet's own: copied as it is, unless a rev turns it into a git source.
        rev = args.rev
    fetched = _fetch(pin.source, rev)
    try:
        checked = review_folder(name, fetched.folder)
        copy = store.user_copy(name)
        current = scan(copy) if os.path.isdir(copy) else None
        data: dict[str, Any] = {"source": fetched.source, "rev": fetched.commit, "pinned_sha256": pin.sha256,
                                **checked.to_json()}
        if checked.content.digest == pin.sha256 and not checked.content.refused:
            restored = current is None or current.digest != pin.sha256
            if restored:
                store.install(fetched.folder, copy)
            if fetched.commit != pin.rev:
                pinmod.save_user_pin(pinmod.Pin(name, pin.source, pin.sha256, fetched.commit, pin.ref))
            text = (f"{name}'s copy did not match its pin; restored it from {pin.source}." if restored
                    else f"{name} is up to date (sha256 {pin.sha256[:12]}…).")
            _emit(args.json, {**data, "action": "restored" if restored else "up-to-date"}, [text])
            return 0
        old_rules = review_folder(name, copy).rules if current is not None else []
        changes = rule_changes(old_rules, checked.rules)
        diff = file_diff(copy if current is not None else None, fetched.folder,
                         current.files if current is not None else {}, checked.content.files)
        data.update({"rule_changes": changes, "diff": diff})
        lines = [f"{name}: {pin.source}{' at ' + rev if rev else ''} now hashes to sha256 "
                 f"{checked.content.digest[:12]}…, not the pinned {pin.sha256[:12]}…."]
        if current is not None and current.digest != pin.sha256:
            lines.append("(Your copy no longer matched its pin either; it is compared as it is.)")
        lines += ["", "Rules that change:", *(f"  {c}" for c in changes or ["(no rule changes)"]),
                  "", "Files that change:", *diff, "", *checked.render()]
        if checked.refusal or checked.runnable == 0:
            why = checked.refusal or "none of its rules would run"
            _emit(args.json, {**data, "action": "refused"}, [*lines, "", f"Not re-pinned: {why}; the old pin stays."])
            return FOUND
        if not args.json:
            print("\n".join(lines))
        if not _confirm(f"Re-pin {name} at sha256 {checked.content.digest[:12]}…?", args.yes):
            _emit(args.json, {**data, "action": "declined"}, ["Nothing changed; the old pin stays."])
            return FOUND
        store.install(fetched.folder, copy)
        ref = args.rev if args.rev and args.rev != fetched.commit else (pin.ref if args.rev is None else None)
        pinmod.save_user_pin(pinmod.Pin(name, pin.source, checked.content.digest, fetched.commit, ref))
    finally:
        fetched.discard()
    _emit(args.json, {**data, "action": "re-pinned"}, [f"Re-pinned {name} at sha256 {checked.content.digest[:12]}…."])
    return 0


def _remove(args: argparse.Namespace) -> int:
    name = args.name
    if pinmod.find_user_pin(name) is None:
        raise JouetError(f"no plugin named {name} is pinned in {paths.config_file()}; `jouet plugin list` shows them")
    pinmod.drop_user_pin(name)
    store.discard(store.user_copy(name))
    print(f"Removed plugin {name}: its pin and its copy are gone.")
    return 0


def _copy_state(sha256: str, folder: str) -> tuple[str, str]:
    if not os.path.isdir(folder):
        return "missing", "no copy: fetch it again"
    content = scan(folder)
    if content.refused:
        return "mismatch", content.refused[0]
    if content.digest != sha256:
        return "mismatch", f"its copy hashes to {content.digest[:12]}…"
    return "ok", ""


def _rows(cwd: str) -> list[dict[str, Any]]:
    from jouet_git.engine.sources import writable_by_others
    from jouet_git.plugin.manifest import RULES
    from jouet_git.trust.state import repo_state
    from jouet_git.trust.store import repo_key

    rows: list[dict[str, Any]] = []
    base = os.path.join(paths.system_dir(), "plugins")
    try:
        system = sorted(n for n in os.listdir(base) if not n.startswith(".") and os.path.isdir(os.path.join(base, n)))
    except OSError:
        system = []
    for name in system:
        folder = os.path.join(base, name)
        problem = writable_by_others(paths.system_dir()) or writable_by_others(base) or writable_by_others(folder)
        rows.append({"name": name, "scope": "enforced", "state": "enforced:writable" if problem else "enforced",
                     "source": folder, "rev": None, "sha256": scan(folder).digest, "detail": problem or "",
                     "rules": _count(os.path.join(folder, RULES))})
    user, problems = pinmod.user_pins()
    for pin in user:
        state, detail = _copy_state(pin.sha256, store.user_copy(pin.name))
        rows.append({"name": pin.name, "scope": "user", "state": state, "source": pin.source, "rev": pin.rev,
                     "ref": pin.ref, "sha256": pin.sha256, "detail": detail,
                     "rules": _count(os.path.join(store.user_copy(pin.name), RULES))})
    root = gitdir.find_root(cwd)
    if root is not None:
        key = repo_key(root)
        repo, repo_problems = pinmod.repo_pins(root)
        problems += repo_problems
        trust = repo_state(root)
        for pin in repo:
            if key is None:
                break
            state, detail = _copy_state(pin.sha256, store.repo_copy(key, pin.name))
            if trust is not None and not trust.runs:
                state, detail = f"repo:{trust.state}", "the repository's .jouet/ is not trusted: `jouet trust`"
            rows.append({"name": pin.name, "scope": "repo", "state": state, "source": pin.source, "rev": pin.rev,
                         "sha256": pin.sha256, "detail": detail,
                         "rules": _count(os.path.join(store.repo_copy(key, pin.name), RULES))})
    for problem in problems:
        rows.append({"name": None, "scope": None, "state": "problem", "source": None, "rev": None, "sha256": None,
                     "detail": problem, "rules": 0})
    return rows


def _count(rules_dir: str) -> int:
    """How many rules the plugin's files hold: [[rule]] tables, not files (a file may hold several)."""
    import re

    import tomli

    from jouet_git.engine.sources import rule_files

    total = 0
    for file in rule_files(rules_dir):
        try:
            with open(file, "rb") as f:
                text = f.read().decode("utf-8", "replace")
        except OSError:
            total += 1
            continue
        try:
            tables = tomli.loads(text).get("rule", [])
            total += len(tables) if isinstance(tables, list) else 1
        except tomli.TOMLDecodeError:
            # A file that does not parse still holds its [[rule]] headers (and loads as broken).
            total += max(1, len(re.findall(r"^\s*\[\[\s*rule\s*\]\]", text, re.M)))
    return total


def _list(args: argparse.Namespace) -> int:
    rows = _rows(os.path.abspath(args.cwd or os.getcwd()))
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    plugins = [r for r in rows if r["name"] is not None]
    if not plugins:
        print("No plugins. `jouet plugin add protected-branches` adds one of jouet's own.")
    else:
        table = [("NAME", "STATE", "SCOPE", "RULES", "SHA256", "SOURCE")]
        for row in plugins:
            rev = f" @ {row['rev'][:12]}" if row["rev"] else ""
            table.append((row["name"], row["state"], row["scope"], str(row["rules"]), row["sha256"][:12],
                          f"{row['source']}{rev}"))
        widths = [max(len(r[i]) for r in table) for i in range(5)]
        for row_cells in table:
            print("  ".join(c.ljust(widths[i]) for i, c in enumerate(row_cells[:5])) + "  " + row_cells[5])
        for row in plugins:
            if row["state"] != "ok" and row["detail"]:
                print(f"note: {row['name']}: {row['detail']}")
    for row in rows:
        if row["name"] is None:
            print(f"problem: {row['detail']}")
    return 0
