"""The JSON schema of a rule file, for editors (Taplo, Tombi) and `jouet rule schema`.

Built from engine/keys.py, the same list the loader checks against, so the two cannot drift.
"""

from __future__ import annotations

from typing import Any

from jouet_git.engine import keys

_STR = {"type": "string", "minLength": 1}
_STRS = {"oneOf": [_STR, {"type": "array", "items": _STR, "minItems": 1}]}
_FLAGS = {"oneOf": [
    {"type": "string", "pattern": "^(-[A-Za-z0-9]|--[A-Za-z0-9][A-Za-z0-9-]*)$"},
    {"type": "array", "items": {"type": "string", "pattern": "^(-[A-Za-z0-9]|--[A-Za-z0-9][A-Za-z0-9-]*)$"}},
]}
_INT = {"type": "integer", "minimum": 0}


def _matcher_properties(nested: bool) -> dict[str, Any]:
    props: dict[str, Any] = {
        "command": {**_STRS, "description": "The program and its subcommands, such as \"git stash pop\"; "
                    "* and ? are wildcards."},
        "via": {**_STRS, "description": "The wrapper the command ran through, such as sudo or rtk."},
        "flags": {**_FLAGS, "description": "The command has one of these options (-x or --long)."},
        "unless_flags": {**_FLAGS, "description": "The command has none of these options."},
        "exact_flags": {**_FLAGS, "description": "The command's options are exactly these."},
        "value_flags": {**_FLAGS, "description": "Options of the command that take a value."},
        "args": {**_STRS, "description": "One of the command's arguments matches one of these patterns."},
        "unless_args": {**_STRS, "description": "None of the command's arguments matches."},
        "max_args": {**_INT, "description": "The command has at most this many arguments."},
        "background": {"type": "boolean", "description": "The command runs in the background."},
        "stdin_redirected": {"type": "boolean", "description": "The command's standard input is redirected "
                             "(`< FILE`, a here-document or here-string); a pipe is not a redirection."},
        "text": {**_STRS, "description": "Regular expressions that must each match a word after the "
                 "program or a here-document."},
        "prints": {"type": "boolean", "description": "The command's output reaches the transcript."},
        "stdout_to": {**_STRS, "description": "The file the command's output is redirected to matches."},
        "exit_code": {"oneOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"},
                                                      "minItems": 1}],
                      "description": "After a tool: the exit status is one of these."},
        "env": {**_STRS, "description": "The command sets one of these variables (NAME=x cmd, env, export)."},
        "secret_vars": {"type": "boolean", "description": "The command expands, outside single quotes, a "
                        "variable the project's fnox config defines as a secret."},
        "secret_args": {"type": "boolean", "description": "One of the command's arguments names a secret the "
                        "project's fnox config defines."},
    }
    if not nested:
        props.update({
            "with": {"$ref": "#/definitions/with", "description": "Another command in the call matches this."},
            "unless_with": {"$ref": "#/definitions/with", "description": "No other command matches this."},
            "tool": {**_STRS, "description": "The harness's tool name, such as Edit."},
            "paths": {**_STRS, "description": "For a file tool: the path matches one of these globs."},
            "unless_paths": {**_STRS, "description": "For a file tool: the path matches none of these."},
            "input": {"type": "object", "minProperties": 1,
                      "description": "The tool's input has these fields with these values."},
            "unless_input": {**_STRS, "description": "The tool's input has none of these fields."},
            "min_tracked_files": {**_INT, "description": "The work tree tracks at least this many files."},
            "seen": {"type": "boolean", "description": "The session was already shown every line the call "
                     "reads, in files unchanged since."},
            "min_read_lines": {**_INT, "description": "The call puts at least this many lines of files in the "
                               "context."},
            "min_code_lines": {**_INT, "description": "Like min_read_lines, counting only source files jouet "
                               "can outline."},
            "fnox": {"type": "boolean", "description": "The call runs in a project that uses fnox (a fnox.toml, "
                     ".fnox.toml or .config/fnox.toml here or above)."},
            "secret_files": {"type": "boolean", "description": "The call reads a file a fnox plain provider reads "
                             "secrets from: a file tool's path, or with command, one of its arguments."},
            "read_limit": {"type": "boolean", "description": "The shell reader stopped at one of its reading "
                           "limits (size, depth, number of commands...), so part of the command is unread; the "
                           "limit is added to the rule's message."},
        })
    assert set(props) == set(keys.WITH_KEYS if nested else keys.MATCH_KEYS)
    return props


def _example() -> dict[str, Any]:
    props: dict[str, Any] = {
        "command": _STR, "tool": _STR, "path": _STR, "harness": _STR, "exit_code": {"type": "integer"},
        "action": {"enum": list(keys.ACTIONS)}, "rewrite": {"type": "boolean"}, "rewritten": _STR,
        "kind": {"enum": list(keys.KINDS)}, "scope": _STR, "input": {"type": "object"}, "session": _STR,
        "git": {"type": "object"}, "claims": {"type": "array", "items": {"type": "object"}},
        "stack": {"type": "object"}, "secrets": {"type": "array", "items": {"type": "object"}},
        "files": {"type": "object", "additionalProperties": {"type": "string"}},
        "tracked_files": _INT, "seen": {"type": "boolean"}, "read_lines": _INT, "code_lines": _INT,
        "fnox": {"type": "object", "additionalProperties": False, "properties": {
            "secrets": {"type": "array", "items": _STR}, "files": {"type": "array", "items": _STR}}},
        "fired": {"oneOf": [_INT, {"type": "object", "additionalProperties": _INT}],
                  "description": "What jouet.session.fired() answers: a count, or counts by rule name."},
        "runs": {"type": "array", "items": {"type": "object"},
                 "description": "What jouet.ci.last_run() finds: recorded runs, newest first."},
    }
    assert set(props) == set(keys.EXAMPLE_KEYS)
    return {"oneOf": [_STR, {"type": "object", "properties": props, "additionalProperties": False,
                             "anyOf": [{"required": ["command"]}, {"required": ["tool"]}]}]}


def schema() -> dict[str, Any]:
    rule_props: dict[str, Any] = {
        "name": {"type": "string", "pattern": f"^{keys.NAME_PATTERN}$", "maxLength": keys.NAME_MAX,
                 "description": "Lowercase words joined by dashes, unique among loaded rules."},
        "why": {**_STR, "description": "What the rule is for, in one line."},
        "mode": {"enum": list(keys.MODES), "description": "warn, deny or ask (asks the person where it can)."},
        "scope": {"enum": list(keys.SCOPES), "description": "Where the file lives."},
        "author": {**_STR, "description": "Who wrote it: a person, or an agent session."},
        "created": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
                    "description": "When, as a date."},
        "message": {**_STR, "description": "What the agent is told when the rule matches."},
        "suggest": {**_STR, "description": "A command to run instead."},
        "needs": {"type": "array", "items": _STR, "minItems": 1,
                  "description": "The jouet command the advice names."},
        "requires": {"type": "object", "minProperties": 1, "additionalProperties": False,
                     "properties": {"files": {"type": "array", "items": _STR, "minItems": 1},
                                    "claims": {"const": True}, "guarded": {"const": True}},
                     "description": "Project files the rule is about, claims = true, or guarded = true: the "
                                    "rule runs only where they are (in the call's directory or above), where "
                                    "some session holds a claim, or when the call writes one of jouet's own "
                                    "files or hooks."},
        "match": {"oneOf": [{"$ref": "#/definitions/match"},
                            {"type": "array", "items": {"$ref": "#/definitions/match"}, "minItems": 1}]},
        "examples": {"type": "object", "properties": {
            "fires": {"type": "array", "items": {"$ref": "#/definitions/example"}},
            "quiet": {"type": "array", "items": {"$ref": "#/definitions/example"}},
        }, "additionalProperties": False},
        "script": {**_STR, "description": "A Luau file beside this one, or below its directory."},
        "on": {"enum": list(keys.EVENTS), "description": "When the rule runs."},
        "primer": {"type": "boolean", "description": "Whether the session-start primer names it."},
    }
    assert set(rule_props) == set(keys.RULE_KEYS)
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "jouet rule file",
        "description": "A file of [[rule]] tables for jouet-git.",
        "type": "object",
        "properties": {"rule": {"type": "array", "items": {"$ref": "#/definitions/rule"}, "minItems": 1}},
        "required": ["rule"],
        "additionalProperties": False,
        "definitions": {
            "rule": {"type": "object", "properties": rule_props, "required": ["name", "why", "match"],
                     "additionalProperties": False},
            "match": {"type": "object", "properties": _matcher_properties(False), "additionalProperties": False},
            "with": {"type": "object", "properties": _matcher_properties(True), "required": ["command"],
                     "additionalProperties": False},
            "example": _example(),
        },
    }
