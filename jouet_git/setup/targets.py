"""What `jouet setup HARNESS` installs for each agent harness, and where.

One table per harness: its config file at user and project level, how that file lays out hooks,
and one entry per event jouet guards there. Every entry runs `jouet hook HARNESS EVENT`: the
command names its harness and event, so a payload is never guessed from environment variables
(several harnesses read each other's files and set each other's variables).

The command in a project-level file is always the bare `jouet`, found on PATH, so the file works on
every teammate's machine. In a user-level file it is the absolute path of the jouet that ran
`setup`: harnesses started from a desktop launcher (Cursor, Windsurf, VS Code for Cline and
Copilot) often get a shorter PATH than the terminal that installed jouet with pipx or uv, and a
user-level file never leaves this machine. Where a missing jouet would block every call (Copilot
denies when a preToolUse command fails; Cursor blocks when a permission hook prints nothing), the
command first checks that jouet is there and otherwise answers "no objection".
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from jouet_git import gitdir

GROUPED = "grouped"  # {"hooks": {EVENT: [{"matcher": M, "hooks": [HOOK]}]}}     Claude, Codex, Gemini
FLAT = "flat"  # {"hooks": {EVENT: [HOOK]}}                                     Cursor, Copilot, Windsurf
AMP = "amp"  # {"amp.permissions": [RULE, ...]}, jouet's rules first            Amp
SCRIPTS = "scripts"  # one executable file per event in a directory             Cline
PLUGINS = "plugins"  # JavaScript the host loads in-process (setup/plugins.py)   OpenCode, Pi, OpenClaw

_CURSOR_ALLOW = '{"permission":"allow"}'


@dataclass(frozen=True)
class Event:
    key: str  # the harness's name for it: where it goes in the file (the tool name, for Amp)
    ours: str  # jouet's name: `jouet hook HARNESS OURS`
    matcher: str | None = None
    silent_reply: str | None = None  # what to print when jouet is missing (Cursor's permission events)


@dataclass(frozen=True)
class Target:
    name: str
    title: str
    layout: str
    events: tuple[Event, ...]
    user_file: str  # relative to the home directory, after the env override below
    project_file: str  # relative to the repository root
    home_env: str | None = None  # a variable that moves the user-level directory
    home_default: str = ""  # the user-level directory when that variable is unset (under ~)
    timeout_key: str | None = None
    timeout: int | None = None
    command_key: str = "command"
    hook_fields: dict[str, Any] = field(default_factory=dict)  # added to every hook object
    top: dict[str, Any] = field(default_factory=dict)  # top-level keys the file needs
    guard: bool = False  # check that jouet exists before running it (see the module docstring)
    container: str = "hooks"
    notes: str = ""
    adapter: str | None = None  # the `jouet hook ADAPTER` its hooks run, when it is not the harness's own name

    def ready(self) -> bool:
        """Whether this jouet's registry has the adapter `jouet hook NAME` needs, with every event
        this target installs. A hook installed without it would fail on every call, and Copilot and
        Cursor read a failed hook as a denial."""
        from jouet_git.harness import adapter

        found = adapter(self.adapter or self.name)
        if found is None:
            return False
        if self.adapter is not None:  # a plugin host runs `jouet hook ADAPTER` with arguments of its own
            return True
        return all(event.ours in found.events for event in self.events)

    def user_path(self) -> str:
        base = os.environ.get(self.home_env or "") if self.home_env else None
        if not base:
            base = os.path.join(os.path.expanduser("~"), self.home_default)
        return os.path.join(base, self.user_file)

    def project_path(self, cwd: str) -> str:
        return os.path.join(project_root(cwd), self.project_file)

    def path(self, project: bool, cwd: str) -> str:
        return self.project_path(cwd) if project else self.user_path()

    def command(self, event: Event, jouet: str) -> str:
        """The command line for EVENT, running JOUET ('jouet' or an absolute path)."""
        quoted = shlex.quote(jouet)
        run = f"{quoted} hook {self.name} {event.ours}"
        if not self.guard:
            return run
        present = "command -v jouet >/dev/null 2>&1" if jouet == "jouet" else f"[ -x {quoted} ]"
        otherwise = f"{{ echo '{event.silent_reply}'; exit 0; }}" if event.silent_reply else "exit 0"
        return f"{present} || {otherwise}; {run}"

    def hook_object(self, event: Event, command: str) -> dict[str, Any]:
        hook: dict[str, Any] = {}
        if self.layout == FLAT and event.matcher is not None:
            hook["matcher"] = event.matcher
        hook.update(self.hook_fields)
        if self.name == "gemini":
            hook["name"] = f"jouet-{event.ours}"
        hook[self.command_key] = command
        if self.timeout_key and self.timeout is not None:
            hook[self.timeout_key] = self.timeout
        return hook

    def entry(self, event: Event, command: str) -> dict[str, Any]:
        """What goes into the event's list: a matcher group, a hook, or an Amp rule."""
        if self.layout == AMP:
            return {"tool": event.key, "action": "delegate", "to": command}
        hook = self.hook_object(event, command)
        if self.layout == GROUPED:
            group: dict[str, Any] = {} if event.matcher is None else {"matcher": event.matcher}
            group["hooks"] = [hook]
            return group
        return hook


def project_root(cwd: str) -> str:
    return gitdir.find_root(cwd) or os.path.abspath(cwd)


_OURS = re.compile(r"jouet(?:\.exe)?['\"]?\s+hook\s+([a-z]+)\s+([a-z][a-z-]*)")


def ours(command: object) -> tuple[str, str] | None:
    """(harness, event) when COMMAND runs `jouet hook HARNESS EVENT`, else None."""
    if not isinstance(command, str):
        return None
    found = _OURS.search(command)
    return (found.group(1), found.group(2)) if found else None


def program(command: str) -> str | None:
    """The jouet executable COMMAND runs (`jouet` or an absolute path)."""
    tail = command.rsplit(";", 1)[-1]
    try:
        words = shlex.split(tail)
    except ValueError:
        return None
    for i, word in enumerate(words):
        if i + 1 < len(words) and words[i + 1] == "hook" and os.path.basename(word).startswith("jouet"):
            return word
    return None


_CLAUDE_FILE_TOOLS = "Bash|PowerShell|Read|Grep|Edit|Write|MultiEdit|NotebookEdit"
# The tools whose results jouet screens for secrets (jouet_git/screen.py): what a command printed,
# a file read, search results, a fetched page, and every MCP tool's result.
_CLAUDE_RESULT_TOOLS = "Bash|PowerShell|Read|Grep|WebFetch|mcp__.*"

TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target(
            "claude", "Claude Code", GROUPED,
            (
                Event("PreToolUse", "pre", _CLAUDE_FILE_TOOLS),
                Event("PostToolUse", "post", _CLAUDE_RESULT_TOOLS),
                Event("PostToolUseFailure", "post-failure", _CLAUDE_RESULT_TOOLS),
                Event("SessionStart", "session-start"),
                Event("Stop", "stop"),
                Event("SubagentStop", "subagent-stop"),
            ),
            "settings.json", os.path.join(".claude", "settings.json"), "CLAUDE_CONFIG_DIR", ".claude",
            timeout_key="timeout", timeout=30, hook_fields={"type": "command"},
        ),
        Target(
            "codex", "OpenAI Codex CLI", GROUPED,
            (
                Event("PreToolUse", "pre", "Bash|apply_patch"),
                Event("PostToolUse", "post", "Bash|mcp__.*"),
                Event("SessionStart", "session-start"),
                Event("Stop", "stop"),
            ),
            "hooks.json", os.path.join(".codex", "hooks.json"), "CODEX_HOME", ".codex",
            timeout_key="timeout", timeout=30, hook_fields={"type": "command"},
            notes="post-tool hooks fire only for some shell commands",
        ),
        Target(
            "cursor", "Cursor", FLAT,
            (
                Event("beforeShellExecution", "before-shell-execution", silent_reply=_CURSOR_ALLOW),
                Event("preToolUse", "pre-tool-use", "Read|Write|Edit|StrReplace|Delete|Grep",
                      silent_reply=_CURSOR_ALLOW),
                Event("beforeReadFile", "before-read-file", silent_reply=_CURSOR_ALLOW),
                Event("afterFileEdit", "after-file-edit"),
                Event("afterShellExecution", "after-shell-execution"),
                Event("stop", "stop"),
            ),
            "hooks.json", os.path.join(".cursor", "hooks.json"), None, ".cursor",
            timeout_key="timeout", timeout=30, top={"version": 1}, guard=True,
        ),
        Target(
            "gemini", "Gemini CLI", GROUPED,
            (
                Event("BeforeTool", "before-tool",
                      "run_shell_command|read_file|read_many_files|write_file|replace|grep_search|glob"),
                Event("AfterTool", "after-tool",
                      "run_shell_command|read_file|read_many_files|grep_search|search_file_content|web_fetch|mcp_.*"),
                Event("SessionStart", "session-start"),
                Event("AfterAgent", "after-agent"),
            ),
            "settings.json", os.path.join(".gemini", "settings.json"), None, ".gemini",
            timeout_key="timeout", timeout=30_000, hook_fields={"type": "command"},  # milliseconds
        ),
        Target(
            "copilot", "GitHub Copilot (CLI and cloud agent)", FLAT,
            (
                Event("preToolUse", "pre-tool-use"),
                Event("postToolUse", "post-tool-use", "bash|powershell|view|grep|rg|web_fetch"),
                Event("sessionStart", "session-start"),
                Event("agentStop", "agent-stop"),
                Event("subagentStop", "subagent-stop"),
            ),
            os.path.join("hooks", "jouet.json"), os.path.join(".github", "hooks", "jouet.json"),
            "COPILOT_HOME", ".copilot",
            command_key="bash", timeout_key="timeoutSec", timeout=30, hook_fields={"type": "command"},
            top={"version": 1}, guard=True,
        ),
        Target(
            "windsurf", "Windsurf (Cascade)", FLAT,
            (
                Event("pre_run_command", "pre-run-command"),
                Event("pre_write_code", "pre-write-code"),
                Event("pre_read_code", "pre-read-code"),
                Event("post_run_command", "post-run-command"),
            ),
            "hooks.json", os.path.join(".windsurf", "hooks.json"), None, os.path.join(".codeium", "windsurf"),
            hook_fields={"show_output": True},
        ),
        Target(
            "cline", "Cline", SCRIPTS,
            (
                Event("PreToolUse", "pre-tool-use"),
                Event("PostToolUse", "post-tool-use"),
                Event("TaskStart", "task-start"),
            ),
            "Hooks", os.path.join(".clinerules", "hooks"), None, os.path.join("Documents", "Cline"),
        ),
        Target(
            "amp", "Amp", AMP,
            (
                Event("Bash", "pre-tool-use"),
                Event("edit_file", "pre-tool-use"),
                Event("create_file", "pre-tool-use"),
                Event("Read", "pre-tool-use"),
            ),
            os.path.join("amp", "settings.json"), os.path.join(".amp", "settings.json"), "XDG_CONFIG_HOME", ".config",
            container="amp.permissions",
        ),
        # In-process hosts: a JavaScript plugin whose hooks run `jouet hook neutral --host NAME`.
        Target(
            "opencode", "OpenCode", PLUGINS,
            (Event("tool.execute.before", "neutral"), Event("tool.execute.after", "neutral"),
             Event("chat.message", "neutral")),
            os.path.join("opencode", "plugins"), os.path.join(".opencode", "plugins"), "XDG_CONFIG_HOME", ".config",
            adapter="neutral",
        ),
        Target(
            "pi", "Pi", PLUGINS,
            (Event("tool_call", "neutral"), Event("tool_result", "neutral"), Event("input", "neutral")),
            os.path.join("extensions", "jouet"), os.path.join(".pi", "extensions", "jouet"), "PI_CODING_AGENT_DIR",
            os.path.join(".pi", "agent"), adapter="neutral",
        ),
        Target(
            "openclaw", "OpenClaw", PLUGINS,
            (Event("before_tool_call", "neutral"), Event("tool_result_persist", "neutral"),
             Event("before_prompt_build", "neutral")),
            os.path.join("extensions", "jouet"), os.path.join(".openclaw", "extensions", "jouet"),
            "OPENCLAW_STATE_DIR", ".openclaw", adapter="neutral",
        ),
    )
}


def cline_script(event: Event, jouet: str) -> str:
    """The executable Cline runs for EVENT: it hands the payload to jouet, whatever happens."""
    quoted = shlex.quote(jouet)
    present = "command -v jouet >/dev/null 2>&1" if jouet == "jouet" else f"[ -x {quoted} ]"
    return (
        "#!/bin/sh\n"
        f"# jouet: Cline's {event.key} hook, installed by `jouet setup cline`"
        " (`jouet setup cline --uninstall` removes it).\n"
        "# Cline blocks the call when a hook fails or prints no JSON, so a missing jouet answers\n"
        "# \"no objection\" and says why on stderr.\n"
        f"if ! {present}; then\n"
        f"    echo \"jouet: {jouet} not found; Cline's {event.key} call goes ahead unscreened\" >&2\n"
        "    echo '{\"cancel\": false}'\n"
        "    exit 0\n"
        "fi\n"
        f"exec {quoted} hook cline {event.ours}\n"
    )
