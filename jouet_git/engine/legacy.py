"""Old-style rules: a whole `.luau` file, before rules were TOML. Deprecated; they still load.

Such a file starts with a header of `--- key: value` comment lines (`--- why:` required; `mode`,
`author` and `created` optional) and returns a table with its `check` function and, optionally,
`on`, `needs` and `examples`:

    --- why: a long sleep spends the session's time doing nothing
    return {
        needs = { "wait" },
        examples = { fires = { "sleep 90" }, quiet = { "sleep 1" } },
        check = function(call) ... end,
    }

The rule is named after the file and has no matcher: its check sees every call, as it did then.
`jouet rule list` names each one with how to convert it (a [[rule]] table in NAME.toml, the file
kept as its script without the header and without on, needs and examples in its table); they stop
loading in jouet 0.1.0.

A `.luau` file is old-style only when its first line is the `--- why:` header, and no `.toml` of the
same name sits beside it (that one is the rule, and the file its script). Cold path: loading one
runs it once in the sandbox, to read its table; the rule set cache keeps the result.
"""

from __future__ import annotations

import datetime
import os
import re
from typing import Any

from jouet_git.engine import keys
from jouet_git.engine.load import RuleError, RuleErrors, validate_examples
from jouet_git.engine.model import Rule

HEADER = "--- why:"
_HEADER_LINE = re.compile(r"^---\s*([a-z_]+)\s*:\s*(.*?)\s*$")
REMOVED_IN = "0.1.0"


def rule_files(directory: str) -> list[str]:
    """The old-style rule files directly in DIRECTORY, sorted by name."""
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    out = []
    for name in names:
        if not name.endswith(".luau") or name.startswith("."):
            continue
        if os.path.exists(os.path.join(directory, name[:-5] + ".toml")):
            continue
        path = os.path.join(directory, name)
        if is_legacy(path):
            out.append(path)
    return out


def is_legacy(path: str) -> bool:
    """Whether the Luau file at PATH starts with an old-style rule's `--- why:` header."""
    try:
        with open(path, "rb") as f:
            first = f.readline(4096)
    except OSError:
        return False
    return first.decode("utf-8", "replace").lstrip("\ufeff").startswith(HEADER)


def deprecation(rule: Rule) -> str:
    """What `jouet rule list` says about an old-style rule."""
    stem = os.path.splitext(rule.file)[0]
    return (f"{rule.name} is an old-style Luau rule ({rule.file}), deprecated: it stops loading in jouet "
            f"{REMOVED_IN}. Convert it: write its header and examples as a [[rule]] table in {stem}.toml with "
            f"`script = \"{os.path.basename(rule.file)}\"` (or a matcher that says the same), and remove the "
            "header and the table's on, needs and examples from the script")


def load_file(path: str, source: str, source_label: str, prefix: str = "", evaluate: bool = True) -> Rule:
    """The old-style rule in the file at PATH; broken, with every problem found, when it does not load.

    EVALUATE false reads only the header, without running the file (a source that does not run, such
    as a repository not trusted yet: its code runs nowhere, not even to read its table)."""
    name = os.path.splitext(os.path.basename(path))[0]
    shown = f"{prefix}{name}"
    try:
        data = _data(path, name, evaluate)
    except RuleError as error:
        return _broken(shown, f"{path}:{error.line or 1}: {error.message}", source, source_label, path)
    except RuleErrors as errors:
        text = "\n".join(f"{path}:{e.line or 1}: {e.message}" for e in errors.errors)
        return _broken(shown, text, source, source_label, path)
    data["name"] = shown
    return Rule(data, source, source_label, path, 1)


def _broken(name: str, error: str, source: str, label: str, path: str) -> Rule:
    rule = Rule.broken(name, error, source, label, path, 1)
    rule.data["legacy"] = True
    return rule


def _header(path: str) -> dict[str, tuple[str, int]]:
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RuleError(f"cannot read it: {error}") from None
    found: dict[str, tuple[str, int]] = {}
    for number, line in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        match = _HEADER_LINE.match(line)
        if match is None:
            break
        found[match.group(1)] = (match.group(2), number)
    return found


def _data(path: str, name: str, evaluate: bool) -> dict[str, Any]:
    header = _header(path)
    errors: list[RuleError] = []
    if not re.fullmatch(keys.NAME_PATTERN, name) or len(name) > keys.NAME_MAX:
        errors.append(RuleError(f"the file name makes the rule's name {name!r}: rename the file to lowercase words "
                                "joined by dashes (such as no-rm-rf.luau)"))
    data: dict[str, Any] = {"name": name, "legacy": True, "script": os.path.basename(path), "script_path": path,
                            "match": [{}]}
    for key, (value, line) in header.items():
        if key not in ("why", "mode", "author", "created"):
            errors.append(RuleError(f"unknown header `--- {key}:`: an old-style rule's header takes why, mode, "
                                    "author and created", line))
        elif not value:
            errors.append(RuleError(f"`--- {key}:` is empty", line))
        elif key == "mode" and value not in keys.MODES:
            errors.append(RuleError(f"`--- mode:` must be warn or deny, not {value!r}", line))
        elif key == "created":
            try:
                data["created"] = datetime.date.fromisoformat(value).isoformat()
            except ValueError:
                errors.append(RuleError("`--- created:` must be a date such as 2026-10-30", line))
        else:
            data[key] = value
    if "why" not in header:
        errors.append(RuleError("the file must start with `--- why: ...`, saying what the rule is for"))
    table = _returned(path, errors) if evaluate else None
    if table is not None:
        _table_fields(table, data, errors)
    if errors:
        raise RuleErrors(errors)
    return data


def _returned(path: str, errors: list[RuleError]) -> dict[Any, Any] | None:
    from jouet_git.engine.script_host import EXAMPLE_BUDGET, ScriptFailure, ScriptHost

    global _host
    if _host is None:
        _host = ScriptHost(EXAMPLE_BUDGET, examples=True)
    try:
        table = _host.returned(path)
    except ScriptFailure as error:
        message = str(error)
        located = re.match(re.escape(path) + r":(\d+): (.*)", message, re.S)
        if located:
            errors.append(RuleError(located.group(2), int(located.group(1))))
        else:
            errors.append(RuleError(message.removeprefix(path + ": ")))
        return None
    if not isinstance(table, dict):
        errors.append(RuleError("the file must return a table with a check function (and optionally on, needs "
                                "and examples)"))
        return None
    return table


_host: Any = None


def _table_fields(table: dict[Any, Any], data: dict[str, Any], errors: list[RuleError]) -> None:
    from lupa.lua54 import lua_type

    check = table.get("check")
    if check is None or lua_type(check) != "function":
        errors.append(RuleError("the table the file returns has no check function"))
    for key in table:
        if key not in ("check", "on", "needs", "examples"):
            errors.append(RuleError(f"unknown field `{key}` in the returned table: an old-style rule's table holds "
                                    "check, on, needs and examples"))
    on = table.get("on")
    if on is not None:
        if on not in keys.EVENTS:
            errors.append(RuleError(f"`on` must be \"pre-tool-use\" or \"post-tool-use\", not {on!r}"))
        else:
            data["on"] = on
    needs = plain(table.get("needs"))
    if needs is not None:
        if not (isinstance(needs, list) and needs and all(isinstance(w, str) and w for w in needs)):
            errors.append(RuleError("`needs` must be the jouet command's words, such as { \"wait\", \"ci\" }"))
        else:
            data["needs"] = needs
    examples = plain(table.get("examples"))
    if isinstance(examples, dict):
        for kind in ("fires", "quiet"):
            if examples.get(kind) == {}:  # an empty Lua table: an empty list
                examples[kind] = []
    elif examples == []:
        examples = None
    try:
        data["examples"] = validate_examples(examples, lambda key: 1, data["name"])
    except RuleError as error:
        errors.append(error)
    except RuleErrors as found:
        errors.extend(found.errors)


def plain(value: Any) -> Any:
    """A value read from a Lua table as the TOML loader would give it: a table whose keys are 1..n is
    a list, any other a dict; functions are left out."""
    from lupa.lua54 import lua_type

    if isinstance(value, dict):
        if value and all(isinstance(k, int) for k in value) and sorted(value) == list(range(1, len(value) + 1)):
            return [plain(value[k]) for k in sorted(value)]
        return {k: plain(v) for k, v in value.items() if lua_type(v) != "function"}
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
