"""Install jouet's hooks into an agent harness or git; with no target, show what is installed.

examples:
  jouet setup                        every harness and git: installed or not, where, and whether
                                     the jouet the hooks run still answers (--json too)
  jouet setup claude                 Claude Code, every project (~/.claude/settings.json)
  jouet setup claude --project       this repository only (.claude/settings.json), a portable
                                     `jouet hook ...` command that teammates can share
  jouet setup codex|cursor|gemini|copilot|windsurf|cline|amp [--project]
  jouet setup opencode|pi|openclaw [--project]
                                     a JavaScript plugin the host loads in-process; its hooks run
                                     `jouet hook neutral`
  jouet setup cursor --dry-run       show the change as a diff, write nothing
  jouet setup gemini --uninstall     take jouet's entries out again
  jouet setup git                    pre-commit, pre-push and post-checkout hooks for this repository
  jouet setup git --global           the same for every repository you clone or init from now on

Only jouet's entries change: other hooks, keys, their order, comments and the file's own
indentation stay as they are. Running it twice changes nothing. Before each change the file is
backed up under jouet's state directory (the last 3 per file); a file that does not parse is
refused with the line and column of the problem. --uninstall puts the file back byte for byte when
nothing else changed it since, and otherwise takes out only jouet's entries.

An existing git hook is chained (it runs first, and its failure still stops git) and restored by
--uninstall.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from jouet_git.errors import JouetError

HARNESSES = ("claude", "codex", "cursor", "gemini", "copilot", "windsurf", "cline", "amp", "opencode", "pi", "openclaw")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", nargs="?", choices=[*HARNESSES, "git"], help="what to set up")
    parser.add_argument("--project", action="store_true",
                        help="a harness: this repository's config file instead of your user one")
    parser.add_argument("--global", dest="global_", action="store_true",
                        help="git: every new clone and init (init.templateDir)")
    parser.add_argument("--uninstall", action="store_true", help="take jouet's hooks out again")
    parser.add_argument("--dry-run", action="store_true", help="show what would change, write nothing")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def jouet_for(project: bool) -> str:
    """The jouet a hook command runs: `jouet` on PATH in shared files, this jouet's path in yours."""
    if project:
        return "jouet"
    from jouet_git.setup.git import default_jouet_command

    return default_jouet_command()


def run(args: argparse.Namespace) -> int:
    cwd = os.getcwd()
    if args.target is None:
        return _overview(cwd, args.json)
    if args.target == "git":
        return _git(args, cwd)
    if args.global_:
        raise JouetError(f"--global is for `jouet setup git`; `jouet setup {args.target}` writes your user "
                         "config by default, or this repository's with --project")
    from jouet_git.setup.apply import apply
    from jouet_git.setup.targets import TARGETS

    target = TARGETS[args.target]
    if not (target.ready() or args.uninstall or args.dry_run):
        raise JouetError(f"this jouet has no `jouet hook {target.name}` yet, so hooks installed now would fail on "
                         f"every call ({target.title} may read that as a denial): upgrade jouet and run "
                         f"`jouet setup {target.name}` again (--dry-run shows what it would write)")
    report = apply(target, args.project, cwd, jouet_for(args.project), args.uninstall, args.dry_run)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
        return 0
    if not report.changed:
        for action in report.actions:
            print(action)
        print(f"{report.path}: nothing to change")
        return 0
    if args.dry_run:
        print(report.diff, end="" if report.diff.endswith("\n") else "\n")
        print(f"(dry run: {report.path} not written)")
        return 0
    for action in report.actions:
        print(action)
    print(f"wrote {report.path}" + (f" (backup: {report.backup})" if report.backup else ""))
    return 0


def _git(args: argparse.Namespace, cwd: str) -> int:
    if args.project:
        raise JouetError("--project is for the agent harnesses; `jouet setup git` installs into this repository "
                         "(or, with --global, into every new one)")
    from jouet_git.setup import git as gitsetup

    if args.uninstall:
        report = gitsetup.uninstall(cwd, global_=args.global_, dry_run=args.dry_run)
    else:
        report = gitsetup.install(cwd, global_=args.global_, dry_run=args.dry_run)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.text(), end="")
    return 0


def _overview(cwd: str, as_json: bool) -> int:
    from jouet_git.setup import git as gitsetup
    from jouet_git.setup.status import rows
    from jouet_git.setup.targets import TARGETS

    found = rows(cwd)
    git_status = gitsetup.status(cwd)
    if as_json:
        out: dict[str, Any] = {name: [r.to_json() for r in found if r.harness == name] for name in TARGETS}
        out["git"] = git_status.to_json()
        print(json.dumps(out, indent=2))
        return 0
    for name, target in TARGETS.items():
        print(f"{target.title} (jouet setup {name} [--project]):")
        for r in (r for r in found if r.harness == name):
            state = r.state + (f" (missing: {', '.join(r.missing)})" if r.missing else "")
            print(f"  {r.scope:8} {state:14} {r.path}")
            if r.problem:
                print(f"           {r.problem}")
            for prog, verdict in r.runs.items():
                mark = "runs" if verdict.startswith("ok:") else "BROKEN"
                print(f"           {mark}: {prog} -> {verdict}")
    print("git (jouet setup git [--global]):")
    for line in git_status.lines:
        print(f"  {line}")
    return 0
