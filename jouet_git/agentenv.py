"""Whether a process runs inside an AI agent's session, from the environment it inherited.

    from jouet_git.agentenv import agent_marker, in_agent_session

    if in_agent_session(os.environ):
        ...                                # a person's override does not apply here
    agent_marker(os.environ)               # "CLAUDECODE": the variable that shows it, for messages

Agent harnesses put a marker into the environment of the commands their agent runs, and every
process those commands start inherits it: a Python one-liner, a git hook, a `jouet` run. A person's
own terminal has none of them. Overrides meant for a person (`--force`, JOUET_ALLOW in git hooks)
use this to tell the two apart. An agent could unset a marker before running a command; the
markers stop an agent that does not try to hide, and jouet's session variables (set by its own
session-start hook) name the session in its records either way.

MARKERS lists each variable with the harness that sets it. A marker counts when it is set to
anything but "", "0" or "false". Importing this module costs nothing: it imports nothing.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["MARKERS", "agent_marker", "in_agent_session"]

# variable -> the harness that sets it in its agent's commands
MARKERS: dict[str, str] = {
    # jouet's own: its session-start hook exports these into the agent's shell
    "JOUET_SESSION_ID": "jouet (session-start hook)",
    "JOUET_HARNESS": "jouet (session-start hook)",
    # cross-tool conventions
    "AI_AGENT": "any agent following the AI_AGENT convention",
    "AGENT": "Amp, Goose and others (AGENT=name)",
    # one per harness
    "CLAUDECODE": "Claude Code",
    "CLAUDE_CODE_ENTRYPOINT": "Claude Code",
    "CODEX_SANDBOX": "OpenAI Codex CLI",
    "CODEX_SANDBOX_NETWORK_DISABLED": "OpenAI Codex CLI",
    "CODEX_THREAD_ID": "OpenAI Codex CLI",
    "CODEX_CI": "OpenAI Codex CLI",
    "GEMINI_CLI": "Gemini CLI",
    "CURSOR_AGENT": "Cursor (agent CLI)",
    "CLINE_ACTIVE": "Cline",
    "OPENCODE": "OpenCode",
    "OPENCODE_CLIENT": "OpenCode",
    "AMP_CURRENT_THREAD_ID": "Amp",
    "AUGMENT_AGENT": "Augment Code",
    "GOOSE_TERMINAL": "Goose",
    "COPILOT_CLI": "GitHub Copilot CLI",
    "TRAE_AI_SHELL_ID": "Trae",
    "ANTIGRAVITY_AGENT": "Antigravity",
}

# Cursor's editor sets CURSOR_TRACE_ID in a person's terminal too; its agent also sets this pager.
_CURSOR_AGENT_PAGER = "head -n 10000 | cat"


def agent_marker(environ: Mapping[str, str]) -> str | None:
    """The name of the variable in ENVIRON that shows an agent session, or None for none."""
    for name in MARKERS:
        if _set(environ.get(name)):
            return name
    if _set(environ.get("CURSOR_TRACE_ID")) and environ.get("PAGER") == _CURSOR_AGENT_PAGER:
        return "CURSOR_TRACE_ID"
    return None


def in_agent_session(environ: Mapping[str, str]) -> bool:
    """Whether ENVIRON is that of a command an AI agent runs (see MARKERS)."""
    return agent_marker(environ) is not None


def _set(value: str | None) -> bool:
    return value is not None and value.strip().lower() not in ("", "0", "false")
