"""Review the jouet rules, scripts and plugins a repository ships, and trust exactly those bytes.

A repository can ship rules in .jouet/rules/ (with Luau scripts beside them) and pin plugins in
.jouet/plugins.toml. None of it runs until you have looked at it and trusted it here. jouet reads
every file in .jouet/ that can run exactly once (hidden files and anything under a nested .git
included), shows you what those bytes would do, and when you agree keeps a copy of those very
bytes, with their sha256, outside the repository. Hooks run that copy and never the work tree's
files. After a pull that changes a byte, adds or removes a file, the copy you trusted keeps running
and jouet says that .jouet/ changed (here, in the session primer and in git's hooks) until you
review the change and trust it. Linked worktrees run the same copy.

A rule that does not load, lacks examples of either kind, fails one, or takes the name of a rule
that loads before it is refused: it never runs, trusted or not.

examples:
  jouet trust --show          what this repository ships, what each rule does, and whether it is trusted
  jouet trust                 show it, fetch the plugins it declares, ask, and trust it
  jouet trust --yes           trust without asking (for scripts; look at --show first)
  jouet trust --revoke        stop trusting this repository's rules
  jouet trust --show --json   the same as JSON, for tools

Exit status: 0 when trusted (or already trusted, or nothing to trust), 1 when jouet refuses or you
decline, 2 on usage errors (such as no terminal to ask on and no --yes).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
from typing import Any

from jouet_git import gitdir, term
from jouet_git.engine.model import PLUGIN, REPO, Rule
from jouet_git.errors import FOUND, JouetError
from jouet_git.plugin.pins import repo_plugins_file
from jouet_git.trust import review, snapshot, store
from jouet_git.trust.content import Content
from jouet_git.trust.state import SHOWN, TRUSTED, RepoState, repo_state, state_of


def configure(parser: argparse.ArgumentParser) -> None:
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--show", action="store_true", help="only show what the repository ships; trust nothing")
    what.add_argument("--revoke", action="store_true", help="forget the trust recorded for this repository")
    parser.add_argument("--yes", "-y", action="store_true",
                        help="trust without asking (for scripts: review the output of --show first)")
    parser.add_argument("--json", action="store_true", help="print the review as JSON")
    parser.add_argument("--cwd", default=None, help="the repository to review (default: here)")


def run(args: argparse.Namespace) -> int:
    cwd = os.path.abspath(args.cwd or os.getcwd())
    root = gitdir.find_root(cwd)
    if root is None:
        raise JouetError(f"{cwd} is not inside a git repository: run `jouet trust` in the repository whose "
                         ".jouet/ rules you want to review")
    key = store.repo_key(root)
    if key is None:
        raise JouetError(f"{root}/.git does not lead to a git directory; is the repository intact?")
    if args.revoke:
        return _revoke(root, key, args.json)
    current = repo_state(root)
    if current is None:
        return _nothing(root, args.json)
    # Every file is read once: what is shown, hashed and kept below are these bytes.
    content = snapshot.take(root)
    state = state_of(root, key, content, current.record)
    if content.empty:
        return _emptied(root, state, args.json)
    staged = None if content.refused else snapshot.stage(content, key)
    try:
        return _review(args, root, key, state, content, staged)
    finally:
        if staged is not None and os.path.isdir(staged):
            snapshot.discard(staged)


def _review(args: argparse.Namespace, root: str, key: str, state: RepoState, content: Content,
            staged: str | None) -> int:
    fetch = not args.show and staged is not None
    report = _report(root, key, state, fetch, staged)
    out = _Output(args.json, report)
    out.text(_render(report, state))
    if args.show:
        if not (state.state == TRUSTED and state.runs) and not content.refused:
            out.text(["", "Run `jouet trust` to trust these exact files."])
        return out.done("shown", 0)
    if content.refused or staged is None:
        out.text(["", "jouet refuses to trust this repository while that is so; nothing was trusted."])
        return out.done("refused", FOUND)
    if state.state == TRUSTED and state.runs:
        out.text(["", "Already trusted: nothing in .jouet/ changed since."])
        return out.done("already-trusted", 0)
    if report["runnable"] == 0:
        out.text(["", "Nothing here would run: every rule is refused (see above). Nothing was trusted."])
        return out.done("refused", FOUND)
    which = "this" if report["runnable"] == 1 else "these"
    question = (f"Trust {which} {term.count(report['runnable'], 'rule')} in {root}? They will run on every tool call "
                "an agent makes here, exactly as shown, until you trust other ones.")
    if not _confirm(question, args.yes):
        out.text(["Nothing was trusted."])
        return out.done("declined", FOUND)
    name = snapshot.install(staged, key, content)
    _record(root, key, content, name)
    snapshot.prune(key, keep=name)
    lines = [f"Trusted {root}/.jouet (sha256 {content.digest[:12]}…): the copy you reviewed runs from the next "
             "tool call. `jouet trust --revoke` undoes it."]
    if snapshot.scan_jouet(root).digest != content.digest:
        lines.append("Note: .jouet/ changed while you reviewed it. What you reviewed is what runs; "
                     "`jouet trust --show` shows the change.")
    out.text(lines)
    return out.done("trusted", 0)


class _Output:
    """Text for people, or one JSON document at the end for tools."""

    def __init__(self, as_json: bool, report: dict[str, Any]) -> None:
        self.as_json = as_json
        self.report = report

    def text(self, lines: list[str]) -> None:
        if not self.as_json:
            print("\n".join(lines))

    def done(self, action: str, code: int) -> int:
        if self.as_json:
            print(json.dumps({**self.report, "action": action}, indent=2))
        return code


def _emptied(root: str, state: RepoState, as_json: bool) -> int:
    """The work tree's .jouet/ holds nothing that runs any more, but a trust record is left."""
    if as_json:
        print(json.dumps({"root": root, "state": state.state, "runs": state.runs, "action": "nothing",
                          "notice": state.notice() or state.detail()}, indent=2))
    elif state.runs:
        print(f"{root} ships no jouet rules any more, but the copy of .jouet/ you trusted keeps running. "
              "`jouet trust --revoke` stops it.")
    else:
        print(f"{root} ships no jouet rules any more; nothing of it runs. `jouet trust --revoke` forgets the old "
              "trust record.")
    return 0


def _nothing(root: str, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"root": root, "state": None, "action": "nothing"}, indent=2))
    else:
        print(f"Nothing to trust: {root} ships no jouet rules (.jouet/rules/), scripts or plugins "
              "(.jouet/plugins.toml).")
    return 0


def _revoke(root: str, key: str, as_json: bool) -> int:
    from jouet_git.plugin import store as plugin_store

    removed: list[object] = []
    store.update(lambda records: removed.append(records.pop(key, None)))
    plugin_store.discard(plugin_store.repo_copies(key))
    snapshot.prune(key, keep=None)
    was = removed[0] is not None
    if as_json:
        print(json.dumps({"root": root, "key": key, "action": "revoked" if was else "not-trusted"}, indent=2))
    elif was:
        print(f"jouet no longer trusts the .jouet/ rules of {root} (nor of its other worktrees); "
              "`jouet trust` trusts them again.")
    else:
        print(f"jouet did not trust the .jouet/ rules of {root}; nothing to revoke.")
    return 0


def _report(root: str, key: str, state: RepoState, fetch: bool, staged: str | None) -> dict[str, Any]:
    """Everything `jouet trust` shows: the state, the rules as if trusted (built from STAGED, the copy
    of the bytes just hashed), scripts, plugins, problems."""
    from jouet_git.engine.build import build
    from jouet_git.plugin import repo as repo_plugins
    from jouet_git.plugin import store as plugin_store

    base = staged or root
    declared = repo_plugins.fetch_declared if fetch else repo_plugins.declared
    plugins, problems = declared(root, key, base) if staged is not None else ([], [])
    repo_rules: list[Rule] = []
    plugin_rules: dict[str, list[Rule]] = {}
    ruleset_problems: list[str] = []
    if staged is not None:
        ruleset, _ = build(root, repo_copy=staged)
        ruleset_problems = ruleset.problems
        copies = plugin_store.repo_copies(key) + os.sep
        repo_rules = [r for r in ruleset.rules if r.source == REPO]
        for rule in ruleset.rules:
            if rule.source == PLUGIN and rule.file.startswith(copies):
                plugin_rules.setdefault(rule.name.split("/", 1)[0], []).append(rule)
    rule_views = [review.rule_view(r, base) for r in repo_rules]
    scripts = [os.path.join(base, SHOWN, rel) for rel in state.content.files if rel.endswith(".luau")]
    for view in plugins:
        folder = plugin_store.repo_copy(key, view["name"])
        view["rules"] = [review.rule_view(r, folder) for r in plugin_rules.get(view["name"], [])]
        if view["status"] != "ok":
            for rule_view in view["rules"]:
                rule_view["state"], rule_view["reason"] = "off", f"plugin {view['status']}: {view['detail']}"
    runnable = review.count_runnable(rule_views) + sum(review.count_runnable(v["rules"]) for v in plugins)
    record = state.record or {}
    plugins_file = repo_plugins_file(base)
    for problem in ruleset_problems:
        if plugins_file in problem and problem not in problems:
            problems.append(problem)
    problems = [p.replace(plugins_file, f"{SHOWN}plugins.toml") for p in problems]
    return {
        "root": root, "key": key, "state": state.state, "runs": state.runs, "sha256": state.content.digest,
        "files": sorted(state.content.files), "refused": state.content.refused, "changes": state.changes,
        "notice": state.notice() or (state.detail() if state.record is not None else ""),
        "trusted_at": record.get("trusted_at"), "trusted_head": record.get("head"),
        "trusted_sha256": record.get("sha256"),
        "rules": rule_views, "scripts": review.scripts_view(repo_rules, scripts, base), "plugins": plugins,
        "problems": problems,
        "runnable": runnable,
    }


def _render(report: dict[str, Any], state: RepoState) -> list[str]:
    lines = [f"{report['root']} ships jouet rules in .jouet/ ({term.count(len(report['files']), 'file')}, "
             f"sha256 {report['sha256'][:12]}…)."]
    when = f" on {report['trusted_at']}" if report["trusted_at"] else ""
    if state.state == TRUSTED and state.runs:
        lines.append(f"State: trusted{when}; the copy you trusted runs.")
    elif state.state == TRUSTED:
        lines.append(f"State: trusted{when}, but its rules do not run: {state.detail()}.")
    elif state.state == "changed":
        lines.append(f"State: changed since you trusted it{when}: {state.change_summary()}.")
        if state.runs:
            lines.append(f"       The copy you trusted (sha256 {str(report['trusted_sha256'])[:12]}…) keeps running "
                         "until you trust this one; below is what this one would do.")
        else:
            lines.append(f"       Nothing of it runs: {state.detail()}.")
        if report["trusted_head"]:
            lines.append(f"       `git diff {report['trusted_head'][:12]} -- .jouet` shows the changes since then.")
    else:
        lines.append("State: untrusted: nothing of it has run.")
    for reason in report["refused"]:
        lines.append(f"Refused: {reason}")
    lines.append("")
    lines.append(f"Rules ({len(report['rules'])}):")
    lines.extend(review.render_rules(report["rules"]) or ["  none"])
    if report["scripts"]:
        lines.append(f"Scripts ({len(report['scripts'])}):")
        lines.extend(review.render_scripts(report["scripts"]))
    if report["plugins"]:
        lines.append(f"Plugins ({len(report['plugins'])}), pinned in {SHOWN}plugins.toml:")
        for view in report["plugins"]:
            rev = f" at {view['rev']}" if view["rev"] else ""
            lines.append(f"  {view['name']}  {view['source']}{rev}  sha256 {view['sha256'][:12]}…  "
                         f"{view['status']}: {view['detail']}")
            lines.extend(review.render_rules(view["rules"], indent="    "))
    for problem in report["problems"]:
        lines.append(f"Problem: {problem}")
    return lines


def _confirm(question: str, yes: bool) -> bool:
    return review.confirm(question, yes, "jouet asks before it trusts anything, and there is no terminal to ask "
                                         "on: run `jouet trust` in a terminal, or `jouet trust --yes` once you "
                                         "have read `jouet trust --show`")


def _head(root: str) -> str | None:
    """The commit checked out at ROOT, so `--show` can point at `git diff` later."""
    try:
        import git

        repo = git.Repo(root)
        try:
            return str(repo.head.commit.hexsha)
        finally:
            repo.close()
    except Exception:  # an unborn branch, a damaged repository: the record does without
        return None


def _record(root: str, key: str, content: Content, copy: str) -> None:
    entry = {
        "sha256": content.digest, "files": content.files, "root": root, "copy": copy,
        "trusted_at": datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat(),
        "head": _head(root),
    }

    def change(records: dict[str, dict[str, Any]]) -> None:
        records[key] = entry

    store.update(change)
