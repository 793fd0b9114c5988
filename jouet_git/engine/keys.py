"""The keys a rule file may use, with their types: the single source for the loader and the schema."""

from __future__ import annotations

# Rule keys, in the order the rule reference lists them.
RULE_KEYS = (
    "name", "why", "mode", "scope", "author", "created", "message", "suggest", "needs", "requires",
    "match", "examples", "script", "on", "primer",
)

# Matcher keys: "command" keys need `command`; the rest are about the tool call.
MATCH_COMMAND_KEYS = (
    "command", "via", "flags", "unless_flags", "exact_flags", "value_flags", "args", "unless_args",
    "max_args", "background", "text", "with", "unless_with", "prints", "stdout_to", "exit_code", "env",
    "secret_vars", "secret_args", "stdin_redirected",
)
MATCH_TOOL_KEYS = (
    "tool", "paths", "unless_paths", "input", "unless_input", "min_tracked_files", "seen", "min_read_lines",
    "min_code_lines", "fnox", "secret_files", "read_limit",
)
# `exit_code` also stands on its own (a post-tool-use rule about the whole call). `secret_files` is
# about a file tool's path, or with `command`, about the command's arguments.
STANDALONE_KEYS = ("exit_code",)
MATCH_KEYS = (
    "tool", "paths", "command", "via", "flags", "unless_flags", "exact_flags", "value_flags", "args",
    "unless_args", "max_args", "background", "text", "with", "unless_with", "input", "unless_input",
    "seen", "min_read_lines", "min_code_lines", "min_tracked_files", "unless_paths", "fnox", "secret_files",
    "secret_vars", "secret_args", "prints", "stdout_to", "exit_code", "env", "read_limit", "stdin_redirected",
)
# Matcher keys that ask about the session or the project (what was read, the fnox config): checked
# last, once every other key of the matcher holds, since they read files.
STATE_KEYS = ("seen", "min_read_lines", "min_code_lines", "fnox", "secret_files", "secret_vars", "secret_args")
# Keys allowed inside `with` and `unless_with`: the command keys, but not another `with`.
WITH_KEYS = tuple(k for k in MATCH_COMMAND_KEYS if k not in ("with", "unless_with"))

EXAMPLE_KEYS = (
    "command", "tool", "path", "harness", "exit_code", "action", "rewrite", "rewritten", "kind", "scope",
    "input", "session", "git", "claims", "stack", "secrets", "files", "tracked_files", "fired", "runs", "seen",
    "read_lines", "code_lines", "fnox",
)

MODES = ("warn", "deny", "ask")
SCOPES = ("builtin", "user", "repo", "plugin", "enforced")
EVENTS = ("pre-tool-use", "post-tool-use", "stop")
ACTIONS = ("deny", "warn", "rewrite", "ask")
KINDS = ("test", "lint", "build")

NAME_PATTERN = r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*"
NAME_MAX = 64

# The command `jouet rule new` puts in a new rule's matcher: a program no one runs, so the template
# loads and matches nothing until its author replaces it.
PLACEHOLDER = "TODO"
