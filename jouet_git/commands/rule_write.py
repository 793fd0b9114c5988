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
from jouet_git.engine.keys import PLACEHOLDER
from jouet_git.engine.load import load_file, load_text
from jouet_git.engine.model import BROKEN, USER
from jouet_git.engine.ruleset import load
from jouet_git.errors import FOUND, JouetError
from jouet_git.store import write_atomic

# The schema's copy beside your rules: `#:schema ./rules.schema.json` works wherever the rules
# directory is, whichever Python environment jouet runs from.
SCHEMA_FILE = "rules.schema.json"

_HEADER = """\
#:schema ./{schema}
# A rule of yours. Fill in the matcher, the message and the examples, then run
# `jouet rule test {name}` until every example passes. It loads as it is, but matches nothing
# until its matcher names a program, and only warns until it has examples of both kinds;
# `jouet rule promote {name}` switches it to deny once they pass.

"""



def template(name: str, why: str, author: str, created: str, script: bool) -> str:
    """The TOML text of a new rule, written with tomlkit so that any WHY is quoted correctly."""
    import tomlkit

    rule = tomlkit.table()
    rule.add("name", name)
    rule.add("why", why)
    rule.add("mode", "warn")
    rule.add("author", author)
    rule.add("created", created)
    if script:
        rule.add("script", f"{name}.luau")
    else:
        rule.add("message", "TODO: what the agent is told when the rule matches, and what to do instead.")
    match = tomlkit.table()
    for line in ("Which calls the rule looks at. Replace TODO with the program and its subcommands:",
                 '  command = "git tag"          the program and its subcommands',
                 '  flags = ["-d", "--delete"]   and one of these options (`jouet rule schema` lists',
                 "                               every key; the README's \"Matching a command\" explains them)"):
        match.add(tomlkit.comment(line))
    match.add("command", PLACEHOLDER)
    rule.add("match", match)
    examples = tomlkit.table()
    examples.add(tomlkit.comment('Calls the rule must fire on, such as "git tag v1".'))
    examples.add("fires", tomlkit.array())
    examples.add(tomlkit.comment('Near misses it must leave alone, such as "git tag --list".'))
    examples.add("quiet", tomlkit.array())
    rule.add("examples", examples)
    rules = tomlkit.aot()
    rules.append(rule)
    doc = tomlkit.document()
    doc.add("rule", rules)
    return _HEADER.format(schema=SCHEMA_FILE, name=name) + tomlkit.dumps(doc)


def write_schema(directory: str) -> str:
    """Write (or refresh) the JSON schema of rule files in DIRECTORY; return its path."""
    from jouet_git.engine.schema import schema

    path = os.path.join(directory, SCHEMA_FILE)
    text = json.dumps(schema(), indent=2) + "\n"
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return path
    except OSError:
        pass
    write_atomic(path, text, 0o644)
    return path


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
    why = " ".join(args.why.split())
    if not why:
        raise JouetError("--why must say what the rule is for, in one line")
    try:
        why.encode("utf-8")
    except UnicodeEncodeError:
        raise JouetError("--why is not valid UTF-8 text: say what the rule is for in plain text") from None
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
    text = template(name, why, _author(args.author), datetime.date.today().isoformat(), args.script)
    write_schema(directory)
    if args.script:
        with open(script, "x", encoding="utf-8") as f:
            f.write(_SCRIPT.format(name=name))
    loaded = load_text(text, file, USER, USER)
    if len(loaded) != 1 or loaded[0].state == BROKEN:
        if args.script:
            os.unlink(script)
        raise JouetError(f"the template for {name} does not load (a bug in jouet): {loaded[0].error}")
    with open(file, "x", encoding="utf-8") as f:
        f.write(text)
    journal.append(journal.RULE_LOG, {"action": "new", "rule": name, "detail": file})
    print(f"wrote {file}" + (f" and {script}" if args.script else ""))
    print(f"next: fill in its matcher, message and examples, then run `jouet rule test {name}`")
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
