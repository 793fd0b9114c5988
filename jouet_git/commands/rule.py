"""List, test, write and promote jouet's rules; print their schema, log and gaps.

examples:
  jouet rule list                         every rule jouet loads here, and whether it runs
  jouet rule test --all                   run every rule's examples
  jouet rule test ./no-rm-rf.toml         run the examples of the rules in a file
  jouet rule test git-stash --command 'git stash pop'
                                          what one rule decides about one command
  jouet rule test ./no-tags.toml --replay what a rule would have done to the calls the hooks saw
  jouet rule new no-tags --why "tags are for releases"
                                          start a rule of your own (warn mode)
  jouet rule promote no-tags --reason "examples pass"
                                          switch it to deny once its examples pass
  jouet rule schema > rules.schema.json   the JSON schema of rule files, for your editor
  jouet rule gap "match on the branch name"
                                          note something a rule cannot express yet

Rules of yours live in ~/.config/jouet/rules (or $JOUET_CONFIG_DIR/rules), one TOML file each.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from jouet_git import journal
from jouet_git.errors import JouetError


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="sub", metavar="SUBCOMMAND")
    sub.required = True

    p = sub.add_parser("list", help="every rule jouet loads, with its state, mode and scope",
                       description="List every rule: name, state, mode, scope, author, created and why.")
    p.add_argument("--json", action="store_true", help="print the rules as a JSON list")
    p.add_argument("--cwd", default=None, help="list the rules that apply in DIR (default: here)")
    p.set_defaults(func="list")

    p = sub.add_parser("test", help="run rules' examples, or one rule against a command",
                       description="Run a rule's examples (fires and quiet), or with --command or --payload, "
                                   "show what the rule decides about one call after its mode. Exit 1 when an "
                                   "example fails or a rule lacks examples of either kind.")
    p.add_argument("target", nargs="?", help="a rule file (PATH.toml) or a rule's name")
    p.add_argument("--all", action="store_true", help="run every loaded rule's examples")
    p.add_argument("--command", default=None, help="check this shell command against the rule")
    p.add_argument("--exit-code", type=int, default=None, help="with --command: as after the tool, with this code")
    p.add_argument("--payload", default=None, metavar="FILE",
                   help="check a recorded hook payload of any harness jouet speaks to (- for stdin); the harness "
                        "is read from its shape")
    p.add_argument("--harness", default=None, metavar="NAME",
                   help="with --payload: read it as this harness's (claude, codex, cursor, gemini, copilot, windsurf, "
                        "cline, amp)")
    p.add_argument("--replay", action="store_true",
                   help="run the rule over every call in the hooks' ledger: what it fires on, the near misses "
                        "it stays quiet on; exit 1 when it fires on nothing")
    p.add_argument("--json", action="store_true", help="print results as JSON")
    p.add_argument("--cwd", default=None, help="load rules as in DIR (default: here)")
    p.set_defaults(func="test")

    p = sub.add_parser("new", help="write a new rule of yours from a template",
                       description="Write ~/.config/jouet/rules/NAME.toml in warn mode, with a matcher to fill "
                                   "in and empty fires and quiet lists.")
    p.add_argument("name", help="lowercase words joined by dashes, such as no-rm-rf")
    p.add_argument("--why", required=True, help="what the rule is for, in one line")
    p.add_argument("--script", action="store_true", help="also write NAME.luau for a script")
    p.add_argument("--author", default=None, help="who is writing it (default: $JOUET_SESSION_ID, else you)")
    p.set_defaults(func="new")

    p = sub.add_parser("promote", help="switch a rule of yours from warn to deny",
                       description="Switch a rule in ~/.config/jouet/rules to deny mode, once it passes "
                                   "examples of both kinds. The file's comments and layout are kept.")
    p.add_argument("name")
    p.add_argument("--reason", default=None, help="why, for `jouet rule log`")
    p.set_defaults(func="promote")

    p = sub.add_parser("log", help="every change made to your rules")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func="log")

    p = sub.add_parser("schema", help="print the JSON schema of rule files")
    p.set_defaults(func="schema")

    p = sub.add_parser("gap", help="record something a rule cannot express yet, or list them",
                       description="Record a wish the rule format cannot express (with --rule, the rule you "
                                   "were writing). Without TEXT, list what was recorded, including the gaps "
                                   "scripts record when they read a field that does not exist.")
    p.add_argument("text", nargs="?", help="what you needed")
    p.add_argument("--rule", default=None, help="the rule you were writing")
    p.add_argument("--json", action="store_true", help="with no TEXT: list as JSON")
    p.set_defaults(func="gap")

    p = sub.add_parser("types", help="print Luau type definitions of the script API")
    p.set_defaults(func="types")


def run(args: argparse.Namespace) -> int:
    func = args.func
    if func == "list":
        from jouet_git.commands.rule_list import run_list

        return run_list(args.cwd or os.getcwd(), args.json)
    if func == "test":
        from jouet_git.commands.rule_test import run_test

        return run_test(args)
    if func in ("new", "promote"):
        from jouet_git.commands import rule_write

        return rule_write.run_new(args) if func == "new" else rule_write.run_promote(args)
    if func == "log":
        return _log(args.json)
    if func == "schema":
        from jouet_git.engine.schema import schema

        print(json.dumps(schema(), indent=2))
        return 0
    if func == "gap":
        return _gap(args)
    if func == "types":
        from jouet_git.engine.script_types import definitions

        sys.stdout.write(definitions())
        return 0
    raise JouetError(f"unknown subcommand {func}")


def _log(as_json: bool) -> int:
    records = journal.read(journal.RULE_LOG)
    if as_json:
        print(json.dumps(records, indent=2))
        return 0
    if not records:
        print("no changes to your rules recorded yet (`jouet rule new` and `jouet rule promote` record them)")
        return 0
    for r in records:
        reason = f": {r['reason']}" if r.get("reason") else ""
        print(f"{r.get('time', '?')}  {r.get('action', '?'):8}  {r.get('rule', '?')}  {r.get('detail', '')}{reason}")
    return 0


def _gap(args: argparse.Namespace) -> int:
    if args.text is None:
        records = journal.read(journal.GAPS)
        if args.json:
            print(json.dumps(records, indent=2))
        elif not records:
            print("no rule gaps recorded")
        else:
            for r in records:
                rule = f" [{r['rule']}]" if r.get("rule") else ""
                print(f"{r.get('time', '?')}  {r.get('by', '?')}{rule}: {r.get('text', '')}")
        return 0
    text = args.text.strip()
    if not text:
        raise JouetError("say what a rule could not express, such as `jouet rule gap \"match on the branch\"`")
    journal.append(journal.GAPS, {"text": text, "rule": args.rule, "by": "person",
                                  "session": os.environ.get("JOUET_SESSION_ID")})
    print(f"recorded in {journal.path(journal.GAPS)}")
    return 0
