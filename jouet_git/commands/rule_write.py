"""`jouet rule new` and `jouet rule promote`: the commands that write rules of yours."""

from __future__ import annotations

import argparse
import datetime
import getpass
import json
import os
import re
import stat

from jouet_git import journal, paths
from jouet_git.engine import keys
from jouet_git.engine.examples import run_examples
from jouet_git.engine.load import load_file
from jouet_git.engine.model import BROKEN, USER
from jouet_git.engine.ruleset import load
from jouet_git.errors import FOUND, JouetError
from jouet_git.store import write_atomic

_TEMPLATE = """\
#:schema {schema}
# A rule of yours. Fill in the examples first, then the matcher and the message, and run
# `jouet rule test {name}` until every example passes. It starts in warn mode;
# `jouet rule promote {name}` switches it to deny once it passes examples of both kinds.

[[rule]]
name = {name_q}
why = {why_q}
mode = "warn"
author = {author_q}
created = "{created}"
{body}
[rule.match]
# Which calls the rule looks at, such as:
#   command = "git tag"          the program and its subcommands
#   flags = ["-d", "--delete"]   and one of these options
command = ""

[rule.examples]
# Calls the rule must fire on.
fires = []
# Near misses it must leave alone.
quiet = []
"""

_SCRIPT = """\
--!strict
-- The script for the rule {name}: check gets the call and returns jouet.deny(message),
-- jouet.warn(message), or nil to say nothing. `jouet rule types` prints the whole API.
local rule: JouetRule = {{
\tcheck = function(call: JouetCall): JouetDecision?
\t\tfor _, command in call.commands do
\t\t\tif command.matched then
\t\t\t\treturn jouet.warn(`{name}: look again at {{command.text}}`)
\t\t\tend
\t\tend
\t\treturn nil
\tend,
}}
return rule
"""


def _author(given: str | None) -> str:
    if given:
        return given
    session = os.environ.get("JOUET_SESSION_ID")
    if session:
        return session
    try:
        return getpass.getuser()
    except Exception:
        return "me"


def run_new(args: argparse.Namespace) -> int:
    name = args.name
    if not re.fullmatch(keys.NAME_PATTERN, name) or len(name) > keys.NAME_MAX:
        raise JouetError(f"invalid rule name {name!r}: use lowercase words joined by dashes, starting with a "
                         f"letter, up to {keys.NAME_MAX} characters (such as `no-rm-rf`)")
    why = args.why.strip()
    if not why:
        raise JouetError("--why must say what the rule is for, in one line")
    ruleset = load(os.getcwd())
    taken = ruleset.get(name)
    if taken is not None:
        raise JouetError(f"the name `{name}` is taken by the {taken.source_label} rule in {taken.file}")
    directory = paths.user_rules_dir()
    file = os.path.join(directory, f"{name}.toml")
    script = os.path.join(directory, f"{name}.luau")
    for target in (file, script) if args.script else (file,):
        if os.path.exists(target):
            raise JouetError(f"{target} already exists: edit it, or pick another name")
    os.makedirs(directory, exist_ok=True)
    body = f'script = "{name}.luau"\n' if args.script else \
        'message = "What the agent is told when the rule matches, and what to do instead."\n'
    text = _TEMPLATE.format(
        schema=os.path.join(paths.package_dir(), "rules.schema.json"), name=name, name_q=json.dumps(name),
        why_q=json.dumps(why), author_q=json.dumps(_author(args.author)),
        created=datetime.date.today().isoformat(), body=body)
    if args.script:
        with open(script, "x", encoding="utf-8") as f:
            f.write(_SCRIPT.format(name=name))
    with open(file, "x", encoding="utf-8") as f:
        f.write(text)
    journal.append(journal.RULE_LOG, {"action": "new", "rule": name, "detail": file})
    print(f"wrote {file}" + (f" and {script}" if args.script else ""))
    print(f"next: fill in its examples and matcher, then run `jouet rule test {name}`")
    return 0


def run_promote(args: argparse.Namespace) -> int:
    import tomlkit

    ruleset = load(os.getcwd())
    rule = ruleset.get(args.name)
    if rule is None:
        raise JouetError(f"no rule named `{args.name}` is loaded; `jouet rule list` shows them")
    if rule.source != USER:
        raise JouetError(f"{rule.name} is a {rule.source_label} rule: only rules in {paths.user_rules_dir()} "
                         "can be promoted (built-in rules are part of jouet; a repository's change through "
                         "a reviewed change to the repository)")
    if rule.state == BROKEN:
        raise JouetError(f"{rule.name} does not load: {rule.error}")
    if rule.mode == "deny":
        print(f"{rule.name} already denies")
        return 0
    fresh = [r for r in load_file(rule.file, USER, USER) if r.name == rule.name]
    report = run_examples(fresh[0] if fresh else rule)
    if not report.ok:
        why = report.missing or f"{len(report.results) - report.passed} of its examples fail"
        print(f"jouet: {rule.name} cannot be promoted: {why}; see `jouet rule test {rule.name}`")
        return FOUND
    with open(rule.file, encoding="utf-8") as f:
        doc = tomlkit.parse(f.read())
    tables = doc.get("rule")
    target = None
    for table in tables if isinstance(tables, list) else [tables]:
        if table is not None and table.get("name") == rule.name:
            target = table
    if target is None:
        raise JouetError(f"{rule.file}: cannot find the [[rule]] table named {rule.name}")
    target["mode"] = "deny"
    write_atomic(rule.file, tomlkit.dumps(doc), stat.S_IMODE(os.stat(rule.file).st_mode))
    journal.append(journal.RULE_LOG, {"action": "promote", "rule": rule.name, "detail": "warn -> deny",
                                      "reason": args.reason, "file": rule.file})
    print(f"{rule.name} now denies ({rule.file})")
    return 0
