"""Calls a person types rather than a harness sends: `jouet check` and `jouet rule test --command`."""

from __future__ import annotations

import os

from jouet_git.call import KIND_SHELL, POST_TOOL_USE, PRE_TOOL_USE, Call
from jouet_git.errors import JouetError
from jouet_git.harness import adapter, tool_kind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def build_call(command: str | None, cwd: str, tool: str | None, path: str | None,
               exit_code: int | None = None, tool_input: dict[str, Any] | None = None,
               harness: str | None = None) -> Call:
    tool = tool or ("Bash" if command is not None else None)
    if tool is None:
        raise JouetError("give a command to check, or --tool and --path for a file tool")
    given = tool
    own = adapter(harness) if harness else None
    if own is not None:  # the name a hook of that harness gives the call (apply_patch is Edit, ...)
        tool = own.canonical(tool)
    # (a command for Bash is a shell command whatever the harnesses' tables say: they are not read)
    kind = KIND_SHELL if command is not None and tool == "Bash" else tool_kind(given, harness)
    data = dict(tool_input or {})
    if command is not None:
        data.setdefault("command", command)
    if path is not None:
        data.setdefault("file_path", path)
    return Call(
        event=POST_TOOL_USE if exit_code is not None else PRE_TOOL_USE,
        harness=harness or "check", tool=tool, kind=kind, command=command, path=path,
        cwd=os.path.abspath(cwd), exit_code=exit_code, input=data,
        background=bool(data.get("run_in_background")),
    )
