"""Install jouet's hooks into Claude Code or git; with no target, show what is installed.

examples:
  jouet setup                        what jouet can install, and what is installed here
  jouet setup claude                 add the hooks to ~/.claude/settings.json (every project)
  jouet setup claude --project       add them to this repository's .claude/settings.json
  jouet setup claude --dry-run       show the change without writing it
  jouet setup claude --uninstall     take jouet's hooks out again (nothing else is touched)
  jouet setup git                    pre-commit, pre-push and post-checkout hooks for this repository
  jouet setup git --global           the same for every repository you clone or init from now on

Existing settings and hooks are kept: Claude Code's settings are merged and backed up first; an
existing git hook is chained (it runs first, and its failure still stops git) and restored by
--uninstall.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from jouet_git.errors import JouetError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", nargs="?", choices=["claude", "git"], help="what to set up")
    parser.add_argument("--project", action="store_true", help="claude: this repository's .claude/settings.json")
    parser.add_argument("--global", dest="global_", action="store_true",
                        help="git: every new clone and init (init.templateDir)")
    parser.add_argument("--uninstall", action="store_true", help="take jouet's hooks out again")
    parser.add_argument("--dry-run", action="store_true", help="show what would change, write nothing")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace) -> int:
    cwd = os.getcwd()
    if args.target is None:
        return _overview(cwd, args.json)
    if args.target == "claude":
        if args.global_:
            raise JouetError("--global is for `jouet setup git`; Claude Code's user settings are the default")
        from jouet_git.setup.claude import apply

        report = apply(args.project, cwd, args.uninstall, args.dry_run)
        if args.json:
            print(json.dumps({**report.to_json(), "dry_run": args.dry_run}, indent=2))
            return 0
        if not report.changed:
            print(f"{report.settings}: nothing to change")
            return 0
        if args.dry_run:
            print(report.diff, end="")
            print(f"(dry run: {report.settings} not written)")
            return 0
        for action in report.actions:
            print(action)
        print(f"wrote {report.settings}" + (f" (backup: {report.backup})" if report.backup else ""))
        return 0
    if args.project:
        raise JouetError("--project is for `jouet setup claude`; `jouet setup git` installs into this repository")
    from jouet_git.setup import git as gitsetup

    if args.uninstall:
        git_report = gitsetup.uninstall(cwd, global_=args.global_, dry_run=args.dry_run)
    else:
        git_report = gitsetup.install(cwd, global_=args.global_, dry_run=args.dry_run)
    if args.json:
        print(json.dumps(git_report.to_json(), indent=2))
    else:
        print(git_report.text(), end="")
    return 0


def _overview(cwd: str, as_json: bool) -> int:
    from jouet_git.setup import claude
    from jouet_git.setup import git as gitsetup

    rows: list[dict[str, Any]] = []
    for project in (False, True):
        path, state = claude.installed(project, cwd)
        rows.append({"target": "claude", "where": path, "scope": "project" if project else "user",
                     "installed": state})
    git_status = gitsetup.status(cwd)
    if as_json:
        print(json.dumps({"claude": rows, "git": git_status.to_json()}, indent=2))
        return 0
    print("Claude Code (jouet setup claude [--project]):")
    for row in rows:
        shown = {True: "installed", False: "not installed", None: "unreadable"}[row["installed"]]
        print(f"  {row['scope']:8} {shown:14} {row['where']}")
    print("git (jouet setup git [--global]):")
    for line in git_status.lines:
        print(f"  {line}")
    return 0
