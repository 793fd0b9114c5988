"""Tool names across hosts, for the adapters that take tools named by someone else's convention.

The neutral protocol and polyhook carry whatever name the host gives a tool (bash, run_shell_command,
read_file, view, str_replace_editor, ...). jouet's rules name tools as Claude Code does (Bash, Read,
Edit, ...), so these adapters look a name up here: the name the rules use, and its kind. A name jouet
does not know keeps its own, with kind "other".

On the hook path: imports re only.
"""

from __future__ import annotations

import re

from jouet_git.call import KIND_EDIT, KIND_OTHER, KIND_READ, KIND_SEARCH, KIND_SHELL

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Tool names of the hosts jouet knows, each with the name jouet's rules use (Claude Code's) and
# its kind. Looked up lower-cased without separators: run_shell_command, runShellCommand and
# run-shell-command are one name.
_SHELL = ("Bash", KIND_SHELL)
_READ = ("Read", KIND_READ)
_WRITE = ("Write", KIND_EDIT)
_EDIT = ("Edit", KIND_EDIT)
_GREP = ("Grep", KIND_SEARCH)
_GLOB = ("Glob", KIND_SEARCH)
TOOL_NAMES: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("bash", "shell", "sh", "zsh", "runshellcommand", "executecommand", "exec", "execcommand",
                     "localshell", "runcommand", "runterminalcommand", "terminal", "runcommands"), _SHELL),
    **dict.fromkeys(("powershell", "pwsh"), ("PowerShell", KIND_SHELL)),
    **dict.fromkeys(("read", "readfile", "view", "viewfile", "readfiles"), _READ),
    **dict.fromkeys(("write", "writefile", "create", "createfile", "writetofile"), _WRITE),
    **dict.fromkeys(("edit", "editfile", "replace", "strreplace", "strreplaceeditor", "replaceinfile", "editor",
                     "strreplacebasededittool"), _EDIT),
    "multiedit": ("MultiEdit", KIND_EDIT),
    "notebookedit": ("NotebookEdit", KIND_EDIT),
    **dict.fromkeys(("grep", "grepsearch", "search", "rg", "ripgrep", "searchfiles"), _GREP),
    **dict.fromkeys(("glob", "find", "findfiles"), _GLOB),
    **dict.fromkeys(("webfetch", "fetch", "urlfetch"), ("WebFetch", KIND_OTHER)),
}
_COMMAND_KEYS = ("command", "cmd", "script")
_PATH_KEYS = ("file_path", "filePath", "path", "notebook_path", "absolute_path", "target_file", "file", "filename")


def canonical_tool(tool: str) -> tuple[str, str]:
    """The name jouet's rules know TOOL by, and its kind (call.KIND_*); unknown tools keep their name."""
    found = TOOL_NAMES.get(re.sub(r"[^a-z0-9]", "", tool.lower()))
    return found if found is not None else (tool, KIND_OTHER)


def command_and_path(kind: str, args: dict[str, Any]) -> tuple[str | None, str | None]:
    """The shell command (for a shell tool) or the path (for any other) in a tool's arguments."""
    if kind == KIND_SHELL:
        for key in _COMMAND_KEYS:
            value = args.get(key)
            if isinstance(value, str) and value:
                return value, None
        commands = args.get("commands")
        if isinstance(commands, list) and commands and all(isinstance(c, str) for c in commands):
            return "\n".join(commands), None
        return None, None
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value:
            return None, value
    return None, None
