"""Read rule files: TOML to validated rule data, with errors that name the file, line, rule and fix.

This is the cold path (a rule set is loaded once and cached, see engine/cache.py), so it may use
whatever it likes.
"""

from __future__ import annotations

import datetime
import os
import re
from typing import Any

import tomli

from jouet_git.engine import keys
from jouet_git.engine.model import ENFORCED, PLUGIN, REPO, Rule

_NAME_RE = re.compile(keys.NAME_PATTERN)
_FLAG_RE = re.compile(r"-[A-Za-z0-9]|--[A-Za-z0-9][A-Za-z0-9-]*")


class RuleError(Exception):
    """A problem in a rule file, located as precisely as the file allows."""

    def __init__(self, message: str, line: int | None = None, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.rule = rule


def _expected(allowed: tuple[str, ...]) -> str:
    return ", ".join(f"`{k}`" for k in allowed)


class _Locator:
    """Finds the line of a rule's table and of its keys in the TOML source (tomli keeps no positions)."""

    _HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\"' -]+?)\s*\]\]?\s*(?:#.*)?$")

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        # The 1-based line where each [[rule]] starts, and where the next one starts.
        self.starts: list[int] = []
        for number, line in enumerate(self.lines, 1):
            m = self._HEADER.match(line)
            if m and line.lstrip().startswith("[[") and m.group(1).replace(" ", "") == "rule":
                self.starts.append(number)

    def rule_range(self, index: int) -> tuple[int, int]:
        if index >= len(self.starts):
            return (1, len(self.lines))
        end = self.starts[index + 1] - 1 if index + 1 < len(self.starts) else len(self.lines)
        return (self.starts[index], end)

    def rule_line(self, index: int) -> int:
        return self.rule_range(index)[0] if self.starts else 1

    def key_line(self, index: int, key: str, after: str | None = None) -> int:
        """The first line in rule INDEX setting KEY (after a line mentioning AFTER, when given)."""
        first, last = self.rule_range(index)
        pattern = re.compile(r"(?:^|[{,\s])[\"']?" + re.escape(key) + r"[\"']?\s*=")
        start = first
        if after is not None:
            after_re = re.compile(r"(?:^|[\[{,\s.])[\"']?" + re.escape(after) + r"[\"']?(?:\s*=|\s*\]|\.)")
            for number in range(first, last + 1):
                if after_re.search(self.lines[number - 1]):
                    start = number
                    break
        for number in range(start, last + 1):
            line = self.lines[number - 1]
            if pattern.search(line if "'" in line or '"' in line else line.split("#", 1)[0]):
                return number
        return start


def load_file(path: str, source: str, source_label: str, prefix: str = "") -> list[Rule]:
    """Every rule in the TOML file at PATH. A rule that does not validate comes back broken."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return [_broken_file(path, f"cannot read it: {error}", 1, source, source_label)]
    return load_text(text, path, source, source_label, prefix)


def load_text(text: str, path: str, source: str, source_label: str, prefix: str = "") -> list[Rule]:
    locator = _Locator(text)
    try:
        doc = tomli.loads(text)
    except tomli.TOMLDecodeError as error:
        m = re.search(r"line (\d+)", str(error))
        line = int(m.group(1)) if m else 1
        return [_broken_file(path, f"not valid TOML: {error}", line, source, source_label, text)]
    unknown = [k for k in doc if k != "rule"]
    if unknown:
        return [_broken_file(path, f"unknown top-level table `{unknown[0]}`: a rule file holds [[rule]] tables",
                             1, source, source_label, text)]
    tables = doc.get("rule", [])
    if isinstance(tables, dict):
        tables = [tables]
    if not isinstance(tables, list) or not tables:
        return [_broken_file(path, "no [[rule]] table in it", 1, source, source_label, text)]
    rules: list[Rule] = []
    for index, table in enumerate(tables):
        line = locator.rule_line(index)
        name = table.get("name") if isinstance(table, dict) else None
        shown = f"{prefix}{name}" if isinstance(name, str) and name else f"{os.path.basename(path)}#{index + 1}"
        try:
            if not isinstance(table, dict):
                raise RuleError("a rule must be a table", line)
            data = validate_rule(table, locator, index, path, source)
            data["name"] = f"{prefix}{data['name']}"
            rules.append(Rule(data, source, source_label, path, line))
        except RuleError as error:
            where = f"{path}:{error.line or line}"
            rules.append(Rule.broken(shown, f"{where}: {error.message}", source, source_label, path, line))
    return rules


def _broken_file(path: str, message: str, line: int, source: str, label: str, text: str = "") -> Rule:
    names = re.findall(r"^\s*name\s*=\s*[\"']([^\"']+)[\"']", text, re.M)
    name = names[0] if names else os.path.splitext(os.path.basename(path))[0]
    return Rule.broken(name, f"{path}:{line}: {message}", source, label, path, line)


def validate_rule(table: dict[str, Any], loc: _Locator, index: int, path: str, source: str) -> dict[str, Any]:
    def line(key: str, after: str | None = None) -> int:
        return loc.key_line(index, key, after)

    for key in table:
        if key not in keys.RULE_KEYS:
            raise RuleError(f"unknown field `{key}`, expected one of {_expected(keys.RULE_KEYS)}", line(key))
    data: dict[str, Any] = {}
    name = table.get("name")
    if name is None:
        raise RuleError("missing field `name`: give the rule a name of lowercase words joined by dashes",
                        loc.rule_line(index))
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name) or len(name) > keys.NAME_MAX:
        raise RuleError(
            f"invalid name {name!r}: use lowercase words joined by dashes, starting with a letter, "
            f"up to {keys.NAME_MAX} characters (such as `no-rm-rf`)", line("name"), str(name))
    data["name"] = name

    def string(key: str, required: bool = False, hint: str = "") -> str | None:
        value = table.get(key)
        if value is None:
            if required:
                raise RuleError(f"missing field `{key}`{hint}", loc.rule_line(index), name)
            return None
        if not isinstance(value, str) or (required and not value.strip()):
            raise RuleError(f"`{key}` must be a non-empty string", line(key), name)
        return value

    data["why"] = string("why", True, ": say in one line what the rule is for")
    mode = string("mode")
    if mode is not None and mode not in keys.MODES:
        raise RuleError(f"`mode` must be \"warn\", \"deny\" or \"ask\", not {mode!r}", line("mode"), name)
    if mode is not None:
        data["mode"] = mode
    scope = string("scope")
    if scope is not None:
        if scope not in keys.SCOPES:
            raise RuleError(f"`scope` must be one of {_expected(keys.SCOPES)}, not {scope!r}", line("scope"), name)
        # A plugin's file may also say repo; the system's plugins load as enforced, and say plugin.
        allowed = {source} | ({REPO} if source in (PLUGIN, ENFORCED) else set()) | (
            {PLUGIN} if source == ENFORCED else set())
        if scope not in allowed:
            raise RuleError(
                f"`scope = \"{scope}\"` does not match where the file lives ({source}): "
                f"remove the key or move the file", line("scope"), name)
        data["scope"] = scope
    for key in ("author", "message", "suggest"):
        value = string(key)
        if value is not None:
            data[key] = value
    created = table.get("created")
    if created is not None:
        if isinstance(created, (datetime.date, datetime.datetime)):
            data["created"] = created.isoformat()[:10]
        elif isinstance(created, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", created):
            data["created"] = created
        else:
            raise RuleError("`created` must be a date such as 2026-10-30", line("created"), name)
    needs = table.get("needs")
    if needs is not None:
        if not (isinstance(needs, list) and needs and all(isinstance(w, str) and w for w in needs)):
            raise RuleError("`needs` must be the jouet command's words, such as [\"wait\", \"ci\"]",
                            line("needs"), name)
        data["needs"] = list(needs)
    requires = table.get("requires")
    if requires is not None:
        if not isinstance(requires, dict) or not requires or set(requires) - {"files", "claims"}:
            raise RuleError("`requires` must be a table such as { files = [\"pitchfork.toml\"] } or "
                            "{ claims = true }", line("requires"), name)
        data["requires"] = {}
        if "files" in requires:
            files = requires["files"]
            if not (isinstance(files, list) and files and all(isinstance(f, str) and f for f in files)):
                raise RuleError("`requires.files` must be a non-empty list of file names", line("requires"), name)
            data["requires"]["files"] = list(files)
        if "claims" in requires:
            if requires["claims"] is not True:
                raise RuleError("`requires.claims` can only be true", line("requires"), name)
            data["requires"]["claims"] = True
    on = string("on")
    if on is not None:
        if on not in keys.EVENTS:
            raise RuleError(f"`on` must be \"pre-tool-use\" or \"post-tool-use\", not {on!r}", line("on"), name)
        data["on"] = on
    primer = table.get("primer")
    if primer is not None:
        if not isinstance(primer, bool):
            raise RuleError("`primer` must be true or false", line("primer"), name)
        data["primer"] = primer
    script = string("script")
    if script is not None:
        data["script"] = script
        data["script_path"] = _script_path(script, path, line("script"), name)
        if "message" in data:
            raise RuleError("a script rule takes no `message`: its check says what to tell the agent",
                            line("message"), name)
    elif "message" not in data:
        raise RuleError("missing field `message`: say what the agent is told when the rule matches "
                        "(or name a `script` that decides)", loc.rule_line(index), name)

    match = table.get("match")
    if match is None:
        raise RuleError("missing field `match`: say which calls the rule looks at, such as "
                        "[rule.match] command = \"git stash\"", loc.rule_line(index), name)
    tables = match if isinstance(match, list) else [match]
    if not tables or not all(isinstance(t, dict) for t in tables):
        raise RuleError("`match` must be a table, or a list of [[rule.match]] tables", line("match"), name)
    data["match"] = [validate_matcher(t, lambda k: line(k, "match"), name) for t in tables]

    examples = table.get("examples")
    data["examples"] = validate_examples(examples, lambda k: line(k, "examples"), name)
    return data


def _script_path(script: str, rule_file: str, line: int, name: str) -> str:
    base = os.path.dirname(os.path.abspath(rule_file))
    if os.path.isabs(script) or script.startswith("~"):
        raise RuleError(f"`script` must be a path beside the rule file or below it, not {script!r}", line, name)
    full = os.path.normpath(os.path.join(base, script))
    real_base = os.path.realpath(base)
    if not (full + os.sep).startswith(base + os.sep) or not os.path.realpath(full).startswith(real_base + os.sep):
        raise RuleError(f"`script` {script!r} leaves the rule file's directory: keep scripts beside the rule "
                        "file or below it", line, name)
    if not os.path.isfile(full):
        raise RuleError(f"`script` {script!r} does not exist (looked for {full})", line, name)
    return full


def _strings(value: Any, key: str, line: int, name: str, allow_empty: bool = False) -> list[str]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        raise RuleError(f"`{key}` must be a string or a list of strings", line, name)
    if not items and not allow_empty:
        raise RuleError(f"`{key}` must not be empty", line, name)
    if any(not v for v in items):
        raise RuleError(f"`{key}` holds an empty string", line, name)
    return list(items)


def validate_matcher(table: dict[str, Any], line: Any, name: str, nested: bool = False) -> dict[str, Any]:
    allowed = keys.WITH_KEYS if nested else keys.MATCH_KEYS
    for key in table:
        if key not in allowed:
            if key in keys.MATCH_UNSUPPORTED:
                raise RuleError(f"`{key}` is a matcher key this version of jouet does not support yet",
                                line(key), name)
            if nested and key in keys.MATCH_KEYS:
                raise RuleError(f"`{key}` cannot go inside `with`/`unless_with`: they take command keys only",
                                line(key), name)
            raise RuleError(f"unknown field `{key}`, expected one of {_expected(allowed)}", line(key), name)
    out: dict[str, Any] = {}
    for key in ("command", "via", "args", "unless_args", "stdout_to", "tool", "paths", "unless_paths",
                "unless_input", "env"):
        if key in table:
            out[key] = _strings(table[key], key, line(key), name)
    if "command" in out:
        for pattern in out["command"]:
            if not pattern.split():
                raise RuleError("`command` holds a blank pattern", line("command"), name)
            out["command"] = [" ".join(p.split()) for p in out["command"]]
    for key in ("flags", "unless_flags", "exact_flags", "value_flags"):
        if key in table:
            flags = _strings(table[key], key, line(key), name, allow_empty=(key == "exact_flags"))
            for flag in flags:
                if not _FLAG_RE.fullmatch(flag):
                    if re.fullmatch(r"-[A-Za-z0-9]{2,}", flag):
                        raise RuleError(f"`{key}` holds the cluster {flag!r}: write each option on its own, "
                                        f"such as {', '.join(repr('-' + c) for c in flag[1:])}", line(key), name)
                    if "=" in flag:
                        raise RuleError(f"`{key}` holds {flag!r}: write the option without its value",
                                        line(key), name)
                    raise RuleError(f"`{key}` holds {flag!r}: write each option as -x or --long", line(key), name)
            out[key] = flags
    if "max_args" in table:
        value = table["max_args"]
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise RuleError("`max_args` must be a whole number, 0 or more", line("max_args"), name)
        out["max_args"] = value
    if "min_tracked_files" in table:
        value = table["min_tracked_files"]
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise RuleError("`min_tracked_files` must be a whole number, 0 or more",
                            line("min_tracked_files"), name)
        out["min_tracked_files"] = value
    for key in ("background", "prints"):
        if key in table:
            if not isinstance(table[key], bool):
                raise RuleError(f"`{key}` must be true or false", line(key), name)
            out[key] = table[key]
    if "text" in table:
        patterns = _strings(table["text"], "text", line("text"), name)
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as error:
                raise RuleError(f"`text` pattern {pattern!r} is not a valid regular expression: {error}",
                                line("text"), name) from None
        out["text"] = patterns
    if "exit_code" in table:
        value = table["exit_code"]
        codes = [value] if isinstance(value, int) and not isinstance(value, bool) else value
        if not isinstance(codes, list) or not codes or not all(
                isinstance(c, int) and not isinstance(c, bool) for c in codes):
            raise RuleError("`exit_code` must be a number or a list of numbers", line("exit_code"), name)
        out["exit_code"] = codes
    if "input" in table:
        value = table["input"]
        if not isinstance(value, dict) or not value:
            raise RuleError("`input` must be a table of fields and values, such as { output_mode = \"content\" }",
                            line("input"), name)
        out["input"] = value
    for key in ("with", "unless_with"):
        if key in table:
            sub = table[key]
            if not isinstance(sub, dict):
                raise RuleError(f"`{key}` must be a table of command keys, such as {{ command = \"head\" }}",
                                line(key), name)
            out[key] = validate_matcher(sub, line, name, nested=True)
    if "command" not in out:
        if nested:
            raise RuleError("`with`/`unless_with` needs `command`: say which other command to look for",
                            line("with"), name)
        needing = [k for k in table if k in keys.MATCH_COMMAND_KEYS and k not in keys.STANDALONE_KEYS]
        if needing:
            raise RuleError(f"`{needing[0]}` is about a command and needs `command` in the same matcher",
                            line(needing[0]), name)
        if not any(k in out for k in ("tool", "paths")):
            raise RuleError("this matcher would match every call: give it `command`, `tool` or `paths`",
                            line("match"), name)
    return out


def validate_examples(examples: Any, line: Any, name: str) -> dict[str, list[Any]]:
    if examples is None:
        return {"fires": [], "quiet": []}
    if not isinstance(examples, dict):
        raise RuleError("`examples` must be a table with `fires` and `quiet` lists", line("examples"), name)
    for key in examples:
        if key not in ("fires", "quiet"):
            raise RuleError(f"unknown field `{key}` in examples, expected one of `fires`, `quiet`", line(key), name)
    out: dict[str, list[Any]] = {}
    for kind in ("fires", "quiet"):
        items = examples.get(kind, [])
        if not isinstance(items, list):
            raise RuleError(f"`{kind}` must be a list of commands or example tables", line(kind), name)
        out[kind] = [_example(item, kind, line, name) for item in items]
    return out


def _example(item: Any, kind: str, line: Any, name: str) -> Any:
    if isinstance(item, str):
        if not item.strip():
            raise RuleError(f"`{kind}` holds an empty command", line(kind), name)
        return item
    if not isinstance(item, dict):
        raise RuleError(f"each `{kind}` example is a command or a table such as {{ command = \"...\" }}",
                        line(kind), name)
    for key in item:
        if key not in keys.EXAMPLE_KEYS:
            if key in keys.EXAMPLE_UNSUPPORTED:
                raise RuleError(f"example key `{key}` is not supported by this version of jouet", line(key), name)
            raise RuleError(f"unknown example field `{key}`, expected one of {_expected(keys.EXAMPLE_KEYS)}",
                            line(key), name)
    checks: dict[str, tuple[type | tuple[type, ...], str]] = {
        "command": (str, "a string"), "tool": (str, "a string"), "path": (str, "a string"),
        "harness": (str, "a string"), "exit_code": (int, "a number"), "action": (str, "a string"),
        "rewrite": (bool, "true or false"), "rewritten": (str, "a string"), "kind": (str, "a string"),
        "scope": (str, "a string"), "input": (dict, "a table"), "session": (str, "a string"),
        "git": (dict, "a table"), "claims": (list, "a list of tables"), "stack": (dict, "a table"),
        "secrets": (list, "a list of tables"), "files": (dict, "a table"), "tracked_files": (int, "a number"),
    }
    for key, value in item.items():
        expected, said = checks[key]
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise RuleError(f"example field `{key}` must be {said}", line(key), name)
    if "action" in item and item["action"] not in keys.ACTIONS:
        raise RuleError(f"example `action` must be one of {_expected(keys.ACTIONS)}", line("action"), name)
    if "kind" in item and item["kind"] not in keys.KINDS:
        raise RuleError(f"example `kind` must be one of {_expected(keys.KINDS)}", line("kind"), name)
    if kind == "quiet" and any(k in item for k in ("action", "rewritten", "kind", "scope")):
        raise RuleError("a quiet example cannot say what the rule does: `action`, `rewritten`, `kind` and "
                        "`scope` belong to fires examples", line(kind), name)
    if "command" not in item and "tool" not in item:
        raise RuleError("an example table needs `command` (for a shell call) or `tool`", line(kind), name)
    for key in ("claims", "secrets"):
        for entry in item.get(key, []):
            if not isinstance(entry, dict):
                raise RuleError(f"example field `{key}` must be a list of tables", line(key), name)
    return item

