"""Running script rules: translate (cached), load once, build the call and the `jouet` module, check.

    host = ScriptHost()
    outcome = host.run(rule, call, matched, probes)   # engine.decide.Outcome, or None

One sandbox (one Lua VM) serves every script rule of a process. A script jouet ships (its built-in
rules', its plugins') comes translated with the package, found by the hash of its source
(engine/prebuilt.py); any other is translated from Luau once and cached by the hash of its source
under $JOUET_CACHE_DIR/luau (a directory created 0700 and not used if anyone else can write it). A
built-in rule's script never comes from that cache. Each is loaded once into globals of its own, and
its `check` called with a read-only call table for every call its matchers matched.

What a script can ask goes through the `jouet` module built here: the decisions (deny, warn, allow,
rewrite), jouet.record, the helpers (jouet.git(command), gh, options, short_flag, has_command,
unwrap, dirs, parse, contains, basename) and the probes, which a Probes (or, under `jouet rule
test`, an ExampleProbes) answers. Reading a field of the module or of the call that does not exist
records a rule gap (`jouet rule gap` lists them) and gives nil.

A script that does not compile, throws, runs out of budget or returns something unexpected raises
ScriptFailure here; the engine turns that into "said nothing, reported".

On the hook path only when a script rule matched: it imports lupa, hashlib and the sandbox, never
the translator unless a script is not in the cache.
"""

from __future__ import annotations

import json
import os

from jouet_git import cmdline
from jouet_git.call import Call, Command
from jouet_git.engine.decide import Outcome
from jouet_git.engine.model import BUILTIN
from jouet_git.luau.sandbox import Budget, Sandbox, ScriptError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.engine.model import Rule

# Bump when the translation changes, so cached translations are made again.
TRANSLATION_FORMAT = "1"
HOOK_BUDGET = Budget(time=0.05, instructions=1_000_000)
# `jouet rule test` runs examples on any machine, loaded or not: it allows a second of the script's work.
EXAMPLE_BUDGET = Budget(time=1.0, instructions=1_000_000)
KINDS = ("test", "lint", "build")
# jouet.parse reads about a microsecond a byte, in one step no budget interrupts: this bounds it.
PARSE_BYTES = 64 * 1024
# A message longer than this is cut before it reaches Python (engine/messages.py cuts it further).
MESSAGE_BYTES = 16 * 1024

CALL_FIELDS = ("event", "harness", "tool", "command", "path", "cwd", "session", "agent", "exit_code", "rewrite",
               "incomplete", "problems",
               "commands", "input")
COMMAND_FIELDS = ("words", "argv", "program", "heredocs", "via", "op", "stdout_to", "stdin_redirected", "env",
                  "span", "words_at", "nested", "matched", "status", "text", "line", "background", "stdin_args",
                  "stdin_from", "reads")
MODULE_FIELDS = ("deny", "warn", "allow", "rewrite", "record", "git", "gh", "options", "short_flag", "has_command",
                 "unwrap", "dirs", "parse", "contains", "basename", "repo", "file", "env", "stack", "secrets",
                 "claims", "settings", "session", "ci", "writes", "guarded", "fnox")

_CONTAINS = """
function(list, value)
  if type(list) ~= "table" then error("jouet.contains: the first argument must be a list", 2) end
  for _, v in ipairs(list) do
    if v == value then return true end
  end
  return false
end
"""
_BASENAME = """
function(path)
  if type(path) ~= "string" then error("jouet.basename: the argument must be a string", 2) end
  local trimmed = path:gsub("/+$", "")
  if trimmed == "" then return path:sub(1, 1) == "/" and "/" or "" end
  return trimmed:match("([^/]*)$")
end
"""


def git_reading(command: Command) -> Any:
    """How git reads COMMAND (gitopts.Reading), worked out once and kept with the matchers' notes."""
    from jouet_git import gitopts

    memo = command.memo
    if memo is None:
        memo = command.memo = {}
    reading = memo.get("git")
    if reading is None:
        reading = memo["git"] = gitopts.read(command.argv)
    return reading


class ScriptFailure(Exception):
    """A script rule that failed: it says nothing, and this says why (file:line: message)."""


def _hash(data: bytes) -> str:
    """BLAKE2b of DATA: the C module behind hashlib.blake2b loads in a fraction of hashlib's time."""
    try:
        from _blake2 import blake2b
    except ImportError:  # a Python built without it
        from hashlib import blake2b
    return blake2b(data, digest_size=32).hexdigest()


def lua_for(path: str, fresh: bool = False, cache: bool = True) -> str:
    """The Lua translation of the Luau script at PATH: the one shipped with the package when PATH
    holds a script jouet ships (engine/prebuilt.py), else from the cache directory when its source is
    there (FRESH: translate again and replace what the cache holds). Without CACHE (a built-in rule's
    script) the cache directory, which any process of the user can write, is neither read nor written."""
    from jouet_git import __version__, paths
    from jouet_git.engine import prebuilt
    from jouet_git.regular import read_regular

    try:
        source = read_regular(path, 4 << 20)
    except OSError as error:
        raise ScriptFailure(f"{path}: cannot read the script: {error.strerror or error}") from None
    shipped = prebuilt.translation(prebuilt.source_hash(source))
    if shipped is not None:
        return shipped
    key = _hash(f"{__version__}|{TRANSLATION_FORMAT}|".encode() + source)
    directory = paths.private_dir(os.path.join(paths.cache_dir(), "luau")) if cache else None
    cached = os.path.join(directory, f"{key}.lua") if directory else None
    if cached is not None and not fresh:
        try:
            with open(cached, encoding="utf-8") as f:
                return f.read()
        except (OSError, UnicodeDecodeError):
            pass
    from jouet_git.luau.translate import LuauSyntaxError, translate

    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError:
        raise ScriptFailure(f"{path}: the script is not UTF-8 text") from None
    try:
        lua = translate(text, os.path.basename(path))
    except LuauSyntaxError as error:
        raise ScriptFailure(f"{path}:{error.line}:{error.column}: {error.detail}") from None
    if cached is not None:
        from jouet_git.store import write_atomic

        try:  # noqa: SIM105 - contextlib stays off the hook path
            write_atomic(cached, lua, sync=False)
        except OSError:
            pass
    return lua


class _Current:
    """What the check running now may touch: its rule, its call, the commands it was given."""

    __slots__ = ("call", "lists", "probes", "records", "rule")

    def __init__(self, rule: Rule, call: Call, probes: Any) -> None:
        self.rule = rule
        self.call = call
        self.probes = probes
        self.records: list[dict[str, Any]] = []
        # tag -> the Commands behind a list the script was given (call.commands, jouet.parse results).
        self.lists: dict[int, list[Command]] = {}


class ScriptHost:
    """One sandbox for every script rule of a process."""

    def __init__(self, budget: Budget | None = None, examples: bool = False) -> None:
        self.sb = Sandbox()
        if budget is None:
            from jouet_git import budgets

            budget = Budget(time=budgets.script(), instructions=HOOK_BUDGET.instructions)
        self.budget = budget
        # Examples run with a plugin's own default settings, so a person narrowing them does not break
        # the plugin's examples; hooks run with the settings in force.
        self.examples = examples
        self._checks: dict[str, _Loaded] = {}
        # Each rule (by identity, kept alive here) and its script, found by _loaded's key once (a
        # rule's script and settings are read when it loads and never change).
        self._by_rule: dict[int, tuple[Rule, _Loaded]] = {}
        self._failures: dict[str, str] = {}
        self._current: _Current | None = None
        self._next_tag = 0
        self._tags: dict[int, Command | list[Command]] = {}
        self._gaps: set[tuple[str, str]] = set()
        # What a call table and its Command tables do when a script reads a field they lack.
        self._missing = {name: self.sb.for_lua(self._gap(name)) for name in ("call", "command")}
        self._shared = self._shared_modules()

    # ------------------------------------------------------------------ the jouet module

    def _now(self) -> _Current:
        if self._current is None:
            raise RuntimeError("jouet's helpers only work while a rule's check runs")
        return self._current

    def _gap(self, where: str) -> Any:
        def missing(key: Any) -> None:
            current = self._current
            rule = current.rule.name if current else "?"
            text = f"read {where}.{key}, which does not exist"
            if (rule, text) not in self._gaps:
                self._gaps.add((rule, text))
                from jouet_git import journal

                try:  # noqa: SIM105 - contextlib stays off the hook path
                    journal.append(journal.GAPS, {"text": text, "rule": rule, "by": "script"})
                except OSError:
                    pass
            return None

        return missing

    def _probe(self, name: str) -> Any:
        def probe(*args: Any) -> Any:
            current = self._now()
            with self.sb.paused():
                return getattr(current.probes, name)(*args)

        return probe

    def _shared_modules(self) -> dict[str, Any]:
        sb = self.sb
        lua = sb.lua

        def decision(action: str) -> Any:
            def make(message: Any = None) -> dict[str, Any]:
                if action != "allow" and not isinstance(message, str):
                    raise TypeError(f"jouet.{action} takes the message to show, as a string")
                return {"action": action, "message": message or ""}

            return make

        def rewrite(command: Any, message: Any) -> dict[str, Any]:
            current = self._now()
            if not isinstance(command, str) or not isinstance(message, str):
                raise TypeError("jouet.rewrite takes the command to run instead and a message, both strings")
            rule = current.rule
            if not (rule.source == "builtin" and rule.mode == "deny" and current.call.rewrite):
                raise ValueError("jouet.rewrite is only for a built-in deny-mode rule, when call.rewrite is true")
            return {"action": "rewrite", "message": message, "command": command}

        def record(kind: Any, tag: Any, scope: Any = None, selector: Any = None, dir: Any = None) -> None:
            current = self._now()
            if kind not in KINDS:
                raise ValueError(f"jouet.record: kind must be test, lint or build, not {kind!r}")
            command = self._tags.get(tag) if tag else None
            if not isinstance(command, Command):
                raise TypeError("jouet.record: pass one of call.commands as the command")
            if scope not in (None, "full", "partial"):
                raise ValueError("jouet.record: scope must be \"full\" or \"partial\"")
            if dir is not None and not isinstance(dir, str):
                raise TypeError("jouet.record: dir must be a string (a path, as jouet.dirs gives it) or nil")
            if command.status is None:
                return None
            from jouet_git.ledger import command_shape

            tree, wt = None, None
            place = getattr(current.probes, "record_place", None)
            if place is not None:
                # The work tree the run was in, after it ran: what the stop check compares with.
                with self.sb.paused():
                    tree, wt = place(dir)
            call = current.call
            current.records.append({
                "kind": kind, "rule": current.rule.name, "ok": command.status == 0,
                "exit_code": command.status, "scope": scope or "partial",
                "selector": selector if isinstance(selector, str) else None,
                "dir": dir, "command": command.line, "shape": command_shape(command),
                "tree": tree, "wt": wt, "harness": call.harness,
                "duration_ms": getattr(call, "duration_ms", None),
            })
            return None

        def git_of(tag: Any) -> Any:
            command = self._command(tag, "jouet.git")
            if command.program != "git":
                return None, []
            # As git reads it: abbreviated long options written out (`--ha` is `--hard`).
            words = git_reading(command).words
            i = cmdline.skip_global_options("git", words, 1)
            if i >= len(words):
                return None, []
            return words[i], words[i + 1:]

        def where_of(tag: Any, base: Any = None) -> Any:
            command = self._command(tag, "jouet.git.where")
            if base is not None and not isinstance(base, (str, bool)):
                raise TypeError("jouet.git.where: the directory must be what jouet.dirs gives (a path, false or nil)")
            return cmdline.command_where(command, base)

        def gh_of(tag: Any) -> Any:
            command = self._command(tag, "jouet.gh")
            if command.program != "gh":
                return None
            i = cmdline.skip_global_options("gh", command.argv, 1)
            return command.argv[i:]

        def dirs(tag: Any) -> Any:
            commands = self._tags.get(tag) if tag else None
            if not isinstance(commands, list):
                raise TypeError("jouet.dirs: pass call.commands or what jouet.parse returned")
            from jouet_git.shell import dirs as shell_dirs

            return shell_dirs(commands)

        def writes_of(tag: Any) -> Any:
            commands = self._tags.get(tag) if tag else None
            if not isinstance(commands, list):
                raise TypeError("jouet.writes: pass call.commands or what jouet.parse returned")
            from jouet_git.shell.writes import writes

            return [w.to_json() for w in writes(commands)]

        def unwrap(words: Any) -> Any:
            from jouet_git.shell import unwrap as shell_unwrap

            argv, via = shell_unwrap(list(words.values()))
            return argv, via

        def options(args: Any) -> list[str]:
            return cmdline.options_before_dashdash(list(args.values()))

        def short_flag(arg: Any, letter: Any, value_letters: Any = "") -> bool:
            if not isinstance(arg, str) or not isinstance(letter, str) or len(letter) != 1:
                raise TypeError("jouet.short_flag takes an argument, a letter and optionally the value letters")
            return cmdline.short_flag(arg, letter, value_letters if isinstance(value_letters, str) else "")

        def has_command(*words: Any) -> bool:
            from jouet_git.commands_index import has_command as known

            return all(isinstance(w, str) for w in words) and known(*words)

        def parse(script: Any, exit_code: Any = None) -> Any:
            if not isinstance(script, str):
                raise TypeError("jouet.parse takes a script, as a string")
            if exit_code is not None and not isinstance(exit_code, int):
                raise TypeError("jouet.parse: the exit code must be a number")
            from jouet_git.shell import parse as shell_parse

            return self._command_list(shell_parse(script, exit_code).commands, set())

        lost_probe = self._probe("git_lost")
        reflog_probe = self._probe("git_reflog_only")

        def git_lost(ref: Any, keep: Any = None, dir: Any = None) -> Any:
            if dir is not None and not isinstance(dir, str):
                raise TypeError("jouet.git.lost: dir must be a string (a path, as jouet.git.where gives it)")
            return lost_probe(ref, list(keep.values()) if keep is not None else None, dir)

        def git_reflog_only(refs: Any = None, dir: Any = None, rewrite: Any = None) -> Any:
            if dir is not None and not isinstance(dir, str):
                raise TypeError("jouet.git.reflog_only: dir must be a string (a path, as jouet.git.where gives it)")
            return reflog_probe(list(refs.values()) if refs is not None else None, dir, bool(rewrite))

        scan_probe = self._probe("secrets_scan")
        held_probe = self._probe("claims_held")

        def secrets_scan(scope: Any = None, paths: Any = None, dir: Any = None) -> Any:
            if scope is not None and not isinstance(scope, str):
                raise TypeError("jouet.secrets.scan: the scope must be \"staged\", \"tracked\" or \"outgoing\"")
            if dir is not None and not isinstance(dir, str):
                raise TypeError("jouet.secrets.scan: dir must be a string (a path, as jouet.dirs gives it)")
            return scan_probe(scope, list(paths.values()) if paths is not None else None, dir)

        def claims_held(paths: Any) -> Any:
            return held_probe(list(paths.values()))

        def submodule(name: str, fields: dict[str, Any], call: Any = None) -> Any:
            return sb.module(fields, self._gap(f"jouet.{name}"), call)

        git = submodule("git", {"state": self._probe("git_state"), "tree": self._probe("git_tree"),
                                "changed": self._probe("git_changed"), "ahead": self._probe("git_ahead"),
                                "lost": sb.with_strings(git_lost, 2, "jouet.git.lost: the revisions to keep",
                                                        optional=True),
                                "reflog_only": sb.with_strings(git_reflog_only, 1, "jouet.git.reflog_only: the refs",
                                                               optional=True),
                                "unreachable": self._probe("git_unreachable"),
                                "editor": self._probe("git_editor"),
                                "where": sb.by_tag(where_of, 1)},
                        sb.by_tag(git_of, 1))
        return {
            # a message is cut rather than refused: a rule must not fail, and say nothing, for saying too much
            "deny": sb.clipping(decision("deny"), MESSAGE_BYTES), "warn": sb.clipping(decision("warn"), MESSAGE_BYTES),
            "allow": decision("allow"),
            "rewrite": rewrite, "record": sb.by_tag(record, 2), "git": git, "gh": sb.by_tag(gh_of, 1),
            "options": sb.with_strings(options, 1, "jouet.options: the arguments"),
            "short_flag": short_flag, "has_command": has_command,
            "unwrap": sb.with_strings(unwrap, 1, "jouet.unwrap: the words"),
            "dirs": sb.by_tag(dirs, 1), "parse": sb.limited(parse, PARSE_BYTES, "jouet.parse"),
            "writes": sb.by_tag(writes_of, 1), "guarded": self._probe("guarded"),
            "contains": lua.eval(_CONTAINS), "basename": lua.eval(_BASENAME),
            "repo": self._probe("repo"), "env": self._probe("env"),
            "file": submodule("file", {"contains": self._probe("file_contains")}),
            "stack": submodule("stack", {"layer": self._probe("stack_layer")}),
            "secrets": submodule("secrets", {"scan": sb.with_strings(secrets_scan, 2, "jouet.secrets.scan: the paths",
                                                                      optional=True)}),
            "claims": submodule("claims", {"held": sb.with_strings(claims_held, 1, "jouet.claims.held: the paths")}),
            "session": submodule("session", {"fired": self._probe("session_fired")}),
            "fnox": submodule("fnox", {"config": self._probe("fnox_config"), "reads": self._probe("fnox_reads")}),
            "ci": submodule("ci", {"last_run": self._probe("ci_last_run")}),
        }

    def _command(self, tag: Any, who: str) -> Command:
        command = self._tags.get(tag) if tag else None
        if not isinstance(command, Command):
            raise TypeError(f"{who}: pass one of call.commands (or of jouet.parse(...))")
        return command

    def _settings(self, rule: Rule) -> dict[str, Any]:
        settings = rule.data.get("default_settings") if self.examples else None
        if not isinstance(settings, dict):
            settings = rule.data.get("settings")
        return dict(settings) if isinstance(settings, dict) else {}

    def _module_for(self, settings: dict[str, Any]) -> Any:
        fields = dict(self._shared)
        fields["settings"] = settings
        return self.sb.module(fields, self._gap("jouet"), None, MODULE_FIELDS)

    # ------------------------------------------------------------------ the call table

    def _new_tag(self, value: Command | list[Command]) -> int:
        self._next_tag += 1
        self._tags[self._next_tag] = value
        return self._next_tag

    @staticmethod
    def _command_row(command: Command, matched: bool) -> dict[str, Any]:
        """The fields of CALL's Command table, as plain data. Every list and dict is a copy of its own:
        the reader shares them (argv is often words itself), and lupa's table_from makes an empty table
        of a list or dict it meets a second time (see Sandbox.plain_module)."""
        fields: dict[str, Any] = {
            "words": list(command.words), "argv": list(command.argv), "program": command.program,
            "heredocs": list(command.heredocs), "via": list(command.via), "op": command.op,
            "stdout_to": command.stdout_to, "stdin_redirected": command.stdin_redirected, "env": dict(command.env),
            "span": list(command.span) if command.span is not None else None, "words_at": command.words_at,
            "nested": command.nested, "matched": matched, "status": command.status, "text": command.text,
            "line": command.line, "background": command.background, "stdin_args": command.stdin_args,
            "stdin_from": command.stdin_from, "reads": list(command.reads) if command.reads else None,
        }
        return {k: v for k, v in fields.items() if v is not None}

    def _command_list(self, commands: list[Command], matched: set[int]) -> Any:
        """The read-only list of Command tables scripts get (call.commands, jouet.parse), each tagged."""
        rows = [self._command_row(c, i in matched) for i, c in enumerate(commands)]
        tags = [self._new_tag(c) for c in commands]
        return self.sb.module_list(rows, self._missing["command"], COMMAND_FIELDS, tags, self._new_tag(commands))

    def _call_table(self, call: Call, matched: list[int]) -> Any:
        fields: dict[str, Any] = {
            "event": call.event, "harness": call.harness, "tool": call.tool, "command": call.command,
            "path": call.path, "cwd": call.cwd, "session": call.session, "agent": call.agent,
            "exit_code": call.exit_code, "rewrite": call.rewrite, "input": _plain(call.input),
            "commands": self._command_list(call.commands, set(matched)),
            "incomplete": call.incomplete, "problems": list(call.problems),
        }
        return self.sb.plain_module({k: v for k, v in fields.items() if v is not None}, self._missing["call"],
                                    CALL_FIELDS)

    # ------------------------------------------------------------------ running

    def check_for(self, rule: Rule) -> Any:
        """The rule's check function, with state of its own (see _Loaded.check)."""
        return self._loaded(rule).check(self)

    def _loaded(self, rule: Rule) -> _Loaded:
        """The rule's script, compiled on first use. Raises ScriptFailure."""
        known = self._by_rule.get(id(rule))
        if known is not None and known[0] is rule:  # (a stream runs the same rules again and again)
            return known[1]
        loaded = self._loaded_by_key(rule)
        self._by_rule[id(rule)] = (rule, loaded)
        return loaded

    def _loaded_by_key(self, rule: Rule) -> _Loaded:
        path = rule.script
        assert path is not None
        settings = self._settings(rule)
        key = f"{rule.name}\0{path}\0{json.dumps(settings, sort_keys=True, default=str)}"
        if key in self._failures:
            raise ScriptFailure(self._failures[key])
        loaded = self._checks.get(key)
        if loaded is not None:
            return loaded
        try:
            module = self._module_for(settings)
            # A built-in rule's script is never read from the cache directory (engine/prebuilt.py).
            cache = rule.source != BUILTIN
            try:
                loaded = self._compile(path, lua_for(path, cache=cache), module)
            except ScriptError:
                if not cache:
                    raise
                # A cached translation that does not load (a damaged cache file) is made again
                # from the script; a script that fails again fails for real.
                loaded = self._compile(path, lua_for(path, fresh=True), module)
        except ScriptError as error:
            self._failures[key] = _where(path, error)
            raise ScriptFailure(self._failures[key]) from None
        except ScriptFailure as error:
            self._failures[key] = str(error)
            raise
        self._checks[key] = loaded
        return loaded

    def _compile(self, path: str, lua: str, module: Any) -> _Loaded:
        """Compile the script at PATH (its Lua translation LUA) once, as a body that runs the whole
        script again with globals of its own each time it is called, and run it a first time."""
        slot = self.sb.lua.table()
        env = self.sb.new_env({"jouet": module})
        env[_SLOT] = slot  # set raw: new_env would hand the script a read-only copy
        body = self.sb.load(_FRESH_HEAD + lua + _FRESH_TAIL, os.path.basename(path), env, self.budget)
        loaded = _Loaded(path, body, slot, module)
        # The first run takes the globals the body was compiled with: untouched (the head only
        # took the slot out of them), so a hook's one call makes no second set.
        loaded.first = loaded.fresh(self, env)
        return loaded

    def returned(self, path: str) -> Any:
        """What the script at PATH returns when it loads (an old-style rule file's table), as plain
        data with its functions kept. Raises ScriptFailure."""
        env = self.sb.new_env({"jouet": self._module_for({})})
        try:
            return self.sb.load(lua_for(path), os.path.basename(path), env, self.budget)
        except ScriptError as error:
            raise ScriptFailure(_where(path, error)) from None

    def run(self, rule: Rule, call: Call, matched: list[int], probes: Any) -> Outcome | None:
        """What the rule's script says about CALL, before the rule's mode applies. The script runs
        from its first line with fresh globals for every call (loaded once, run as many times), so
        nothing one call leaves in them reaches the next call of a stream."""
        check = self.check_for(rule)
        self._current = _Current(rule, call, probes)
        self._tags = {}
        try:
            begin = getattr(probes, "begin_check", None)
            if begin is not None:
                begin()
            table = self._call_table(call, matched)
            result = self.sb.call(check, table, budget=self.budget)
        except ScriptError as error:
            raise ScriptFailure(_where(rule.script or rule.name, error)) from None
        finally:
            records = self._current.records
            self._current = None
            self._tags = {}
        return _outcome(rule, result, records)


# A script is compiled once inside a function that, each time it is called, takes fresh globals
# from the slot (set by _Loaded.fresh just before) and runs the whole script with them, with the Luau
# runtime as its `...`: what a run leaves in its globals, its top-level locals and its tables is gone
# on the next run, as in a hook process of its own. All on the script's first line, so that lines
# in error messages stay the script's own.
_SLOT = "__jouet_fresh_globals"
_FRESH_HEAD = (f"local __jouet_runtime, __jouet_slot = ..., {_SLOT}; {_SLOT} = nil; "
               "return function() local _ENV = __jouet_slot[1]; __jouet_slot[1] = nil; "
               "return (function(...) ")
_FRESH_TAIL = "\nend)(__jouet_runtime) end\n"


def builtin_script_texts(directories: list[str]) -> list[tuple[str, str]]:
    """(chunk name, Lua text) of every Luau script below DIRECTORIES (the built-in rules and the
    bundled plugins), as the host compiles each one as a rule's check: what the wheel precompiles
    (hatch_build.py, luau/precompiled.py)."""
    from jouet_git.engine import prebuilt

    return [(name, _FRESH_HEAD + lua + _FRESH_TAIL) for name, _raw, lua in prebuilt.translated_scripts(directories)]


class _Loaded:
    """A rule's compiled script, and the check function of a run not used yet."""

    __slots__ = ("body", "first", "module", "path", "slot")

    def __init__(self, path: str, body: Any, slot: Any, module: Any) -> None:
        self.path = path
        self.body = body
        self.slot = slot
        self.module = module
        self.first: Any = None

    def check(self, host: ScriptHost) -> Any:
        """A check function from a run of the script no call has used: the first run's (made when
        the script was compiled), then one from a new run for each call."""
        check = self.first
        if check is not None:
            self.first = None
            return check
        try:
            return self.fresh(host)
        except ScriptError as error:
            raise ScriptFailure(_where(self.path, error)) from None

    def fresh(self, host: ScriptHost, env: Any = None) -> Any:
        """Run the script with new globals (ENV, else a new set); its check function. Raises
        ScriptError, ScriptFailure."""
        from lupa.lua54 import lua_type

        if lua_type(self.body) != "function":
            raise ScriptFailure(f"{self.path}: the script must return a table with a check function")
        self.slot[1] = env if env is not None else host.sb.new_env({"jouet": self.module})
        try:
            returned = host.sb.call(self.body, budget=host.budget)
        finally:
            self.slot[1] = None
        check = returned.get("check") if isinstance(returned, dict) else None
        if check is None or lua_type(check) != "function":
            raise ScriptFailure(f"{self.path}: the script must return a table with a check function")
        return check


def _where(path: str, error: ScriptError) -> str:
    line = f":{error.line}" if error.line else ""
    return f"{path}{line}: {error.message}"


def _plain(value: Any) -> Any:
    """Tool input as plain data (JSON values) for the call table."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_plain(v) for v in value if v is not None]
    return value


def _outcome(rule: Rule, result: Any, records: list[dict[str, Any]]) -> Outcome | None:
    if result is None:
        return Outcome(None, records=records) if records else None
    if not isinstance(result, dict) or result.get("action") not in ("deny", "warn", "allow", "rewrite"):
        shown = repr(result)[:80]
        raise ScriptFailure(f"{rule.script}: check returned {shown}; return jouet.deny(message), "
                            "jouet.warn(message), jouet.allow() or nil")
    action = result["action"]
    message = result.get("message")
    if action != "allow" and (not isinstance(message, str) or not message.strip()):
        raise ScriptFailure(f"{rule.script}: check returned a {action} without a message")
    command = result.get("command") if action == "rewrite" else None
    if action == "rewrite" and not isinstance(command, str):
        raise ScriptFailure(f"{rule.script}: check returned a rewrite without a command")
    return Outcome(action, message or "", command, records)
