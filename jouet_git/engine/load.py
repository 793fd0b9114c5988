"""Read rule files: TOML to validated rule data, with errors that name the file, line, rule and fix.

This is the cold path (a rule set is loaded once and cached, see engine/cache.py), so it may use
whatever it likes.
"""

from __future__ import annotations

import datetime
import os
import re

import tomli

from jouet_git.engine import keys
from jouet_git.engine.model import ENFORCED, PLUGIN, REPO, Rule
from jouet_git.store import read_regular

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# A rule file larger than this is not read (no rule needs a fraction of it).
MAX_RULE_FILE = 4 << 20

_NAME_RE = re.compile(keys.NAME_PATTERN)
_FLAG_RE = re.compile(r"-[A-Za-z0-9]|--[A-Za-z0-9][A-Za-z0-9-]*")


class RuleError(Exception):
    """A problem in a rule file, located as precisely as the file allows."""

    def __init__(self, message: str, line: int | None = None, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.rule = rule


class RuleErrors(Exception):
    """Every problem found in one rule, in the order of the checks."""

    def __init__(self, errors: list[RuleError]) -> None:
        super().__init__("; ".join(e.message for e in errors))
        self.errors = errors


class _Found:
    """Collects a rule's errors so that one pass reports them all, not only the first."""

    def __init__(self) -> None:
        self.errors: list[RuleError] = []

    def add(self, error: RuleError) -> None:
        self.errors.append(error)

    def check(self, fn: Any, *args: Any) -> Any:
        """FN(*ARGS), or None with its RuleError (or RuleErrors) recorded."""
        try:
            return fn(*args)
        except RuleError as error:
            self.errors.append(error)
        except RuleErrors as errors:
            self.errors.extend(errors.errors)
        return None


def _expected(allowed: tuple[str, ...]) -> str:
    return ", ".join(f"`{k}`" for k in allowed)


def close_key(key: str, allowed: tuple[str, ...] | list[str]) -> str | None:
    """The allowed key KEY most likely misspells (`mesage` -> `message`), or None."""
    import difflib

    lowered = {k.lower(): k for k in allowed}
    if key.lower() in lowered:
        return lowered[key.lower()]
    normal = key.replace("-", "_").lower()
    if normal in lowered:
        return lowered[normal]
    close = difflib.get_close_matches(normal, list(lowered), n=1, cutoff=0.75)
    if close:
        return lowered[close[0]]
    # An abbreviation: `cmd` for `command`, `msg` for `message`.
    if len(normal) >= 3:
        abbreviates = [k for k in lowered if k[0] == normal[0] and _subsequence(normal, k)]
        if len(abbreviates) == 1:
            return lowered[abbreviates[0]]
    return None


def _subsequence(short: str, long: str) -> bool:
    letters = iter(long)
    return all(c in letters for c in short)


def unknown_key(key: str, allowed: tuple[str, ...], where: str = "") -> str:
    """The error for KEY, which is not one of ALLOWED: a suggestion when one is close."""
    guess = close_key(key, allowed)
    if guess is not None:
        return f"unknown field `{key}`{where}: did you mean `{guess}`?"
    return f"unknown field `{key}`{where}, expected one of {_expected(allowed)}"


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
        header = re.compile(r"^\s*\[\[?[^\]]*\.\s*[\"']?" + re.escape(key) + r"[\"']?\s*\]")
        for number in range(start, last + 1):
            line = self.lines[number - 1]
            if pattern.search(line if "'" in line or '"' in line else line.split("#", 1)[0]) or header.match(line):
                return number
        return start


def load_file(path: str, source: str, source_label: str, prefix: str = "") -> list[Rule]:
    """Every rule in the TOML file at PATH. A rule that does not validate comes back broken."""
    try:
        text = read_regular(path, MAX_RULE_FILE).decode("utf-8")
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
    top = [_top_error(path, locator, key) for key in doc if key != "rule"]
    if top and "rule" not in doc:
        return [_broken_file(path, "\n".join(top), 1, source, source_label, text, located=True)]
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
            rules.append(Rule.broken(shown, f"{path}:{error.line or line}: {error.message}", source, source_label,
                                     path, line))
        except RuleErrors as errors:
            lines = _ordered(errors.errors, line)
            rules.append(Rule.broken(shown, "\n".join(f"{path}:{n}: {m}" for n, m in lines), source,
                                     source_label, path, line))
    if top:
        # A table outside [[rule]] leaves the file broken as a whole, with every error in it (unless
        # it is [[rule]] misspelt: then the rest follows from that one).
        misspelt = any(close_key(key, ("rule",)) for key in doc if key != "rule")
        every = top + ([] if misspelt else [line for r in rules if r.error for line in r.error.splitlines()])
        return [_broken_file(path, "\n".join(every), 1, source, source_label, text, located=True)]
    return rules


def _top_error(path: str, locator: _Locator, key: str) -> str:
    where = f"{path}:{_top_line(locator, key)}: unknown top-level table `{key}`"
    if key in keys.RULE_KEYS:
        return f"{where}: `{key}` belongs to a rule: write [rule.{key}] below its [[rule]] (or {key} = ... in it)"
    if close_key(key, ("rule",)):
        return f"{where}: did you mean [[rule]]? A rule file holds [[rule]] tables"
    return f"{where}: a rule file holds [[rule]] tables only"


def _ordered(errors: list[RuleError], default: int) -> list[tuple[int, str]]:
    """(line, message) for each error, by line, without repeats."""
    seen: set[tuple[int, str]] = set()
    out: list[tuple[int, str]] = []
    for error in errors:
        item = (error.line or default, error.message)
        if item not in seen:
            seen.add(item)
            out.append(item)
    return sorted(out, key=lambda item: item[0])


def _top_line(locator: _Locator, key: str) -> int:
    pattern = re.compile(r"^\s*\[\[?\s*[\"']?" + re.escape(key) + r"[\"']?\s*[\].]|^\s*[\"']?" + re.escape(key)
                         + r"[\"']?\s*=")
    for number, line in enumerate(locator.lines, 1):
        if pattern.search(line):
            return number
    return 1


def _broken_file(path: str, message: str, line: int, source: str, label: str, text: str = "",
                 located: bool = False) -> Rule:
    names = re.findall(r"^\s*name\s*=\s*[\"']([^\"']+)[\"']", text, re.M)
    name = names[0] if names else os.path.splitext(os.path.basename(path))[0]
    return Rule.broken(name, message if located else f"{path}:{line}: {message}", source, label, path, line)


# Keys people put at the wrong level: a matcher key straight in [[rule]], a rule key in [rule.match].
_MATCHER_ONLY = tuple(k for k in keys.MATCH_KEYS if k not in keys.RULE_KEYS)
_RULE_ONLY = tuple(k for k in keys.RULE_KEYS if k not in keys.MATCH_KEYS)


def validate_rule(table: dict[str, Any], loc: _Locator, index: int, path: str, source: str) -> dict[str, Any]:
    """The rule's data, or RuleErrors with every problem found in it."""
    found = _Found()

    def line(key: str, after: str | None = None) -> int:
        return loc.key_line(index, key, after)

    # Keys a misspelt key stands for: their absence is not reported again.
    meant = {close_key(k, keys.RULE_KEYS) for k in table if k not in keys.RULE_KEYS}
    for key in table:
        if key not in keys.RULE_KEYS:
            if key in _MATCHER_ONLY:
                found.add(RuleError(f"`{key}` is a matcher key: put it under [rule.match]", line(key)))
            else:
                found.add(RuleError(unknown_key(key, keys.RULE_KEYS), line(key)))
    data: dict[str, Any] = {}
    name = table.get("name")
    if name is None:
        found.add(RuleError("missing field `name`: give the rule a name of lowercase words joined by dashes",
                            loc.rule_line(index)))
    elif not isinstance(name, str) or not _NAME_RE.fullmatch(name) or len(name) > keys.NAME_MAX:
        found.add(RuleError(
            f"invalid name {name!r}: use lowercase words joined by dashes, starting with a letter, "
            f"up to {keys.NAME_MAX} characters (such as `no-rm-rf`)", line("name"), str(name)))
    data["name"] = name if isinstance(name, str) else ""
    shown = data["name"] or None

    def string(key: str, required: bool = False, hint: str = "") -> str | None:
        value = table.get(key)
        if value is None:
            if required and key not in meant:
                found.add(RuleError(f"missing field `{key}`{hint}", loc.rule_line(index), shown))
            return None
        if not isinstance(value, str) or (required and not value.strip()):
            found.add(RuleError(f"`{key}` must be a non-empty string", line(key), shown))
            return None
        return value

    data["why"] = string("why", True, ": say in one line what the rule is for")
    mode = string("mode")
    if mode is not None and mode not in keys.MODES:
        found.add(RuleError(f"`mode` must be \"warn\", \"deny\" or \"ask\", not {mode!r}", line("mode"), shown))
    elif mode is not None:
        data["mode"] = mode
    scope = string("scope")
    if scope is not None:
        found.check(_scope, scope, source, line("scope"), shown, data)
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
            found.add(RuleError("`created` must be a date such as 2026-10-30", line("created"), shown))
    needs = table.get("needs")
    if needs is not None:
        if not (isinstance(needs, list) and needs and all(isinstance(w, str) and w for w in needs)):
            found.add(RuleError("`needs` must be the jouet command's words, such as [\"wait\", \"ci\"]",
                                line("needs"), shown))
        else:
            data["needs"] = list(needs)
    requires = table.get("requires")
    if requires is not None:
        found.check(_requires, requires, line("requires"), shown, data)
    on = string("on")
    if on is not None:
        if on not in keys.EVENTS:
            found.add(RuleError(f"`on` must be \"pre-tool-use\", \"post-tool-use\" or \"stop\", not {on!r}",
                                line("on"), shown))
        else:
            data["on"] = on
    primer = table.get("primer")
    if primer is not None:
        if not isinstance(primer, bool):
            found.add(RuleError("`primer` must be true or false", line("primer"), shown))
        else:
            data["primer"] = primer
    script = string("script")
    if script is not None:
        data["script"] = script
        data["script_path"] = found.check(_script_path, script, path, line("script"), shown)
        if "message" in data:
            found.add(RuleError("a script rule takes no `message`: its check says what to tell the agent",
                                line("message"), shown))
    elif "message" not in data and table.get("message") is None and "message" not in meant:
        found.add(RuleError("missing field `message`: say what the agent is told when the rule matches "
                            "(or name a `script` that decides)", loc.rule_line(index), shown))

    match = table.get("match")
    if match is None and on == "stop":
        # A stop has no command: a stop rule looks at every stop (its script decides).
        match = {"tool": "stop"}
    if match is None and "match" in meant:
        pass
    elif match is None:
        found.add(RuleError("missing field `match`: say which calls the rule looks at, such as "
                            "[rule.match] command = \"git stash\"", loc.rule_line(index), shown))
    else:
        tables = match if isinstance(match, list) else [match]
        if not tables or not all(isinstance(t, dict) for t in tables):
            found.add(RuleError("`match` must be a table, or a list of [[rule.match]] tables", line("match"),
                                shown))
        else:
            data["match"] = [found.check(validate_matcher, t, lambda k: line(k, "match"), shown)
                             for t in tables]

    examples = table.get("examples")
    data["examples"] = found.check(validate_examples, examples, lambda k: line(k, "examples"), shown)
    if found.errors:
        raise RuleErrors(found.errors)
    return data


def _scope(scope: str, source: str, line: int, name: str | None, data: dict[str, Any]) -> None:
    if scope not in keys.SCOPES:
        raise RuleError(f"`scope` must be one of {_expected(keys.SCOPES)}, not {scope!r}", line, name)
    # A plugin's file may also say repo; the system's plugins load as enforced, and say plugin.
    allowed = {source} | ({REPO} if source in (PLUGIN, ENFORCED) else set()) | (
        {PLUGIN} if source == ENFORCED else set())
    if scope not in allowed:
        raise RuleError(f"`scope = \"{scope}\"` does not match where the file lives ({source}): "
                        f"remove the key or move the file", line, name)
    data["scope"] = scope


def _requires(requires: Any, line: int, name: str | None, data: dict[str, Any]) -> None:
    if not isinstance(requires, dict) or not requires:
        raise RuleError("`requires` must be a table such as { files = [\"pitchfork.toml\"] }, "
                        "{ claims = true } or { guarded = true }", line, name)
    found = _Found()
    for key in requires:
        if key not in ("files", "claims", "guarded"):
            found.add(RuleError(unknown_key(key, ("files", "claims", "guarded"), " in `requires`"), line, name))
    data["requires"] = {}
    if "files" in requires:
        files = requires["files"]
        if not (isinstance(files, list) and files and all(isinstance(f, str) and f for f in files)):
            found.add(RuleError("`requires.files` must be a non-empty list of file names", line, name))
        else:
            data["requires"]["files"] = list(files)
    if "claims" in requires:
        if requires["claims"] is not True:
            found.add(RuleError("`requires.claims` can only be true", line, name))
        else:
            data["requires"]["claims"] = True
    if "guarded" in requires:
        if requires["guarded"] is not True:
            found.add(RuleError("`requires.guarded` can only be true", line, name))
        else:
            data["requires"]["guarded"] = True
    if found.errors:
        raise RuleErrors(found.errors)


def _script_path(script: str, rule_file: str, line: int, name: str | None) -> str:
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


def _strings(value: Any, key: str, line: int, name: str | None, allow_empty: bool = False) -> list[str]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        raise RuleError(f"`{key}` must be a string or a list of strings", line, name)
    if not items and not allow_empty:
        raise RuleError(f"`{key}` must not be empty", line, name)
    if any(not v for v in items):
        raise RuleError(f"`{key}` holds an empty string", line, name)
    return list(items)


def _flags(table: dict[str, Any], key: str, line: int, name: str | None) -> list[str]:
    flags = _strings(table[key], key, line, name, allow_empty=(key == "exact_flags"))
    for flag in flags:
        if not _FLAG_RE.fullmatch(flag):
            if re.fullmatch(r"-[A-Za-z0-9]{2,}", flag):
                raise RuleError(f"`{key}` holds the cluster {flag!r}: write each option on its own, "
                                f"such as {', '.join(repr('-' + c) for c in flag[1:])}", line, name)
            if "=" in flag:
                raise RuleError(f"`{key}` holds {flag!r}: write the option without its value", line, name)
            raise RuleError(f"`{key}` holds {flag!r}: write each option as -x or --long", line, name)
    return flags


def _count(table: dict[str, Any], key: str, line: int, name: str | None) -> int:
    value = table[key]
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise RuleError(f"`{key}` must be a whole number, 0 or more", line, name)
    return value


def _patterns(table: dict[str, Any], line: int, name: str | None) -> list[str]:
    patterns = _strings(table["text"], "text", line, name)
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as error:
            raise RuleError(f"`text` pattern {pattern!r} is not a valid regular expression: {error}",
                            line, name) from None
    return patterns


def _codes(value: Any, line: int, name: str | None) -> list[int]:
    codes = [value] if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(codes, list) or not codes or not all(
            isinstance(c, int) and not isinstance(c, bool) for c in codes):
        raise RuleError("`exit_code` must be a number or a list of numbers", line, name)
    return codes


def validate_matcher(table: dict[str, Any], line: Any, name: str | None, nested: bool = False) -> dict[str, Any]:
    """The matcher's data, or RuleErrors with every problem found in it."""
    found = _Found()
    allowed = keys.WITH_KEYS if nested else keys.MATCH_KEYS
    for key in table:
        if key not in allowed:
            if nested and key in keys.MATCH_KEYS:
                found.add(RuleError(f"`{key}` cannot go inside `with`/`unless_with`: they take command keys only",
                                    line(key), name))
            elif key in _RULE_ONLY:
                found.add(RuleError(f"`{key}` belongs to the rule, not its matcher: put it above [rule.match]",
                                    line(key), name))
            else:
                where = " in `with`" if nested else " in the matcher"
                found.add(RuleError(unknown_key(key, allowed, where), line(key), name))
    out: dict[str, Any] = {}
    for key in ("command", "via", "args", "unless_args", "stdout_to", "tool", "paths", "unless_paths",
                "unless_input", "env"):
        if key in table:
            value = found.check(_strings, table[key], key, line(key), name)
            if value is not None:
                out[key] = value
    if "command" in out:
        if any(not pattern.split() for pattern in out["command"]):
            found.add(RuleError("`command` holds a blank pattern", line("command"), name))
        out["command"] = [" ".join(p.split()) for p in out["command"]]
    for key in ("flags", "unless_flags", "exact_flags", "value_flags"):
        if key in table:
            value = found.check(_flags, table, key, line(key), name)
            if value is not None:
                out[key] = value
    for key in ("max_args", "min_tracked_files", "min_read_lines", "min_code_lines"):
        if key in table:
            value = found.check(_count, table, key, line(key), name)
            if value is not None:
                out[key] = value
    for key in ("background", "prints", "seen", "fnox", "secret_files", "secret_vars", "secret_args",
                "read_limit", "stdin_redirected"):
        if key in table:
            if not isinstance(table[key], bool):
                found.add(RuleError(f"`{key}` must be true or false", line(key), name))
            else:
                out[key] = table[key]
    if "text" in table:
        value = found.check(_patterns, table, line("text"), name)
        if value is not None:
            out["text"] = value
    if "exit_code" in table:
        value = found.check(_codes, table["exit_code"], line("exit_code"), name)
        if value is not None:
            out["exit_code"] = value
    if "input" in table:
        value = table["input"]
        if not isinstance(value, dict) or not value:
            found.add(RuleError("`input` must be a table of fields and values, such as "
                                "{ output_mode = \"content\" }", line("input"), name))
        else:
            out["input"] = value
    for key in ("with", "unless_with"):
        if key in table:
            sub = table[key]
            if not isinstance(sub, dict):
                found.add(RuleError(f"`{key}` must be a table of command keys, such as {{ command = \"head\" }}",
                                    line(key), name))
            else:
                value = found.check(validate_matcher, sub, line, name, True)
                if value is not None:
                    out[key] = value
    meant = {close_key(k, allowed) for k in table if k not in allowed}
    if "command" not in table and "command" not in meant:
        if nested:
            found.add(RuleError("`with`/`unless_with` needs `command`: say which other command to look for",
                                line("with"), name))
        else:
            needing = [k for k in table if k in keys.MATCH_COMMAND_KEYS and k not in keys.STANDALONE_KEYS]
            if needing:
                found.add(RuleError(f"`{needing[0]}` is about a command and needs `command` in the same matcher",
                                    line(needing[0]), name))
            elif not any(k in table for k in ("tool", "paths")):
                found.add(RuleError("this matcher would match every call: give it `command`, `tool` or `paths`",
                                    line("match"), name))
    if found.errors:
        raise RuleErrors(found.errors)
    return out


def validate_examples(examples: Any, line: Any, name: str | None) -> dict[str, list[Any]]:
    """The examples, or RuleErrors with every problem found in them."""
    if examples is None:
        return {"fires": [], "quiet": []}
    if not isinstance(examples, dict):
        raise RuleError("`examples` must be a table with `fires` and `quiet` lists", line("examples"), name)
    found = _Found()
    for key in examples:
        if key not in ("fires", "quiet"):
            found.add(RuleError(unknown_key(key, ("fires", "quiet"), " in examples"), line(key), name))
    out: dict[str, list[Any]] = {}
    for kind in ("fires", "quiet"):
        items = examples.get(kind, [])
        if not isinstance(items, list):
            found.add(RuleError(f"`{kind}` must be a list of commands or example tables", line(kind), name))
            continue
        out[kind] = [found.check(_example, item, kind, line, name) for item in items]
    if found.errors:
        raise RuleErrors(found.errors)
    return out


_EXAMPLE_TYPES: dict[str, tuple[type | tuple[type, ...], str]] = {
    "command": (str, "a string"), "tool": (str, "a string"), "path": (str, "a string"),
    "harness": (str, "a string"), "exit_code": (int, "a number"), "action": (str, "a string"),
    "rewrite": (bool, "true or false"), "rewritten": (str, "a string"), "kind": (str, "a string"),
    "scope": (str, "a string"), "input": (dict, "a table"), "session": (str, "a string"),
    "git": (dict, "a table"), "claims": (list, "a list of tables"), "stack": (dict, "a table"),
    "secrets": (list, "a list of tables"), "files": (dict, "a table"), "tracked_files": (int, "a number"),
    "seen": (bool, "true or false"), "read_lines": (int, "a number"), "code_lines": (int, "a number"),
    "fnox": (dict, "a table such as { secrets = [\"STRIPE_KEY\"], files = [\"secrets.env\"] }"),
    "fired": ((int, dict), "a number, or a table of numbers by rule name"), "runs": (list, "a list of tables"),
}


def _example(item: Any, kind: str, line: Any, name: str | None) -> Any:
    if isinstance(item, str):
        if not item.strip():
            raise RuleError(f"`{kind}` holds an empty command", line(kind), name)
        return item
    if not isinstance(item, dict):
        raise RuleError(f"each `{kind}` example is a command or a table such as {{ command = \"...\" }}",
                        line(kind), name)
    found = _Found()
    for key in item:
        if key not in keys.EXAMPLE_KEYS:
            guess = close_key(key, keys.EXAMPLE_KEYS)
            message = (f"unknown example field `{key}`: did you mean `{guess}`?" if guess else
                       f"unknown example field `{key}`, expected one of {_expected(keys.EXAMPLE_KEYS)}")
            found.add(RuleError(message, line(key), name))
    for key, value in item.items():
        if key not in _EXAMPLE_TYPES:
            continue
        expected, said = _EXAMPLE_TYPES[key]
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            found.add(RuleError(f"example field `{key}` must be {said}", line(key), name))
    if isinstance(item.get("action"), str) and item["action"] not in keys.ACTIONS:
        found.add(RuleError(f"example `action` must be one of {_expected(keys.ACTIONS)}", line("action"), name))
    if isinstance(item.get("kind"), str) and item["kind"] not in keys.KINDS:
        found.add(RuleError(f"example `kind` must be one of {_expected(keys.KINDS)}", line("kind"), name))
    if kind == "quiet" and any(k in item for k in ("action", "rewritten", "kind", "scope")):
        found.add(RuleError("a quiet example cannot say what the rule does: `action`, `rewritten`, `kind` and "
                            "`scope` belong to fires examples", line(kind), name))
    if "command" not in item and "tool" not in item:
        found.add(RuleError("an example table needs `command` (for a shell call) or `tool`", line(kind), name))
    fnox = item.get("fnox")
    if isinstance(fnox, dict):
        found.check(_example_fnox, fnox, line("fnox"), name)
    for key in ("claims", "secrets", "runs"):
        entries = item.get(key, [])
        if isinstance(entries, list) and not all(isinstance(entry, dict) for entry in entries):
            found.add(RuleError(f"example field `{key}` must be a list of tables", line(key), name))
    if found.errors:
        raise RuleErrors(found.errors)
    return item


def _example_fnox(fnox: dict[str, Any], line: int, name: str | None) -> None:
    """An example's `fnox`: the names its config defines as secrets, and the files its plain
    providers read."""
    found = _Found()
    for key, value in fnox.items():
        if key not in ("secrets", "files"):
            found.add(RuleError(unknown_key(key, ("secrets", "files"), " in the example's `fnox`"), line, name))
        elif not (isinstance(value, list) and all(isinstance(v, str) and v for v in value)):
            found.add(RuleError(f"the example's `fnox.{key}` must be a list of strings", line, name))
    if found.errors:
        raise RuleErrors(found.errors)
