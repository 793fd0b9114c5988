"""The hook ledger: one line for every call a hook (or `jouet check`) decided, in one shape.

`$JOUET_STATE_DIR/ledger.jsonl`, mode 0600, appended to (never rewritten) by every entry point
through the runner. A line:

    {"v": 1, "time": "2026-11-30T21:03:47.123Z", "harness": "claude", "event": "pre-tool-use",
     "session": "...", "agent": null, "repo": "/src/app", "cwd": "/src/app/api", "tool": "Bash",
     "kind": "shell", "command": "git push origin main", "shape": "git push <arg> <arg>",
     "path": null, "decision": "deny", "rules": [{"rule": "force-push", "action": "deny"}],
     "errors": [], "allowed": [], "records": [], "exit_code": null, "ms": 4.2}

What may hold a secret is redacted before it is written: credentials in URLs (`user:token@`),
values assigned to secret-looking variables (`GITHUB_TOKEN=...`, `--password x`), and tokens of
well-known shapes. With JOUET_STORE_CONTENT=0 no text is stored at all: `command` and `path` are
left out and only the shape (programs, subcommands, options, `<arg>` for every argument) is kept.

On the hook path: imports os, re and json only.
"""

from __future__ import annotations

import json
import os
import re
import time

from jouet_git import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.call import Call, Command
    from jouet_git.engine.decide import Decision

NAME = "ledger.jsonl"
VERSION = 1
REDACTED = "[redacted]"

# Programs whose first argument is a subcommand, kept in a call's shape.
_SUBCOMMANDS = frozenset({
    "git", "gh", "npm", "pnpm", "yarn", "bun", "cargo", "go", "uv", "pip", "docker", "kubectl", "mise", "jj",
    "jouet", "make", "just", "poetry", "brew", "apt", "systemctl", "terraform", "helm", "rustup",
})
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s:@]+(?::[^/\s@]*)?@")
_SECRET_NAME = (r"[A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY"
                r"|CREDENTIALS?|AUTH)[A-Za-z0-9_]*")
_SECRET_ASSIGNMENT = re.compile(r"(?i)\b(" + _SECRET_NAME + r")=(\"[^\"]*\"|'[^']*'|[^\s;&|]+)")
_SECRET_OPTION = re.compile(r"(?i)(--?(?:password|passwd|token|secret|api-key|apikey|access-key|auth)(?:=|\s+))"
                            r"(\"[^\"]*\"|'[^']*'|[^\s;&|]+)")
_AUTH_HEADER = re.compile(r"(?i)(authorization:\s*(?:bearer|basic|token)\s+)[^\s'\"]+")
_TOKENS = re.compile(
    r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[A-Z0-9]{16}|sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"
    r"|AIza[0-9A-Za-z_-]{35}|npm_[A-Za-z0-9]{36}|pypi-[A-Za-z0-9_-]{50,})\b")


def path() -> str:
    return os.path.join(paths.state_dir(), NAME)


def store_content() -> bool:
    """Whether text (commands, paths) may be stored: JOUET_STORE_CONTENT=0 keeps shapes only."""
    return os.environ.get("JOUET_STORE_CONTENT", "1").strip().lower() not in ("0", "false", "no", "off")


def redact(text: str) -> str:
    """TEXT with what looks like a secret replaced by [redacted]."""
    if not text:
        return text
    text = _URL_CREDENTIALS.sub(lambda m: m.group(1) + REDACTED + "@", text)
    text = _SECRET_ASSIGNMENT.sub(lambda m: m.group(1) + "=" + REDACTED, text)
    text = _SECRET_OPTION.sub(lambda m: m.group(1) + REDACTED, text)
    text = _AUTH_HEADER.sub(lambda m: m.group(1) + REDACTED, text)
    return _TOKENS.sub(REDACTED, text)


def shape(commands: list[Command]) -> str:
    """The call's commands with every argument replaced by <arg>: programs, subcommands and options
    (without their values) only."""
    parts = []
    for command in commands:
        if command.nested:
            continue
        words = [command.program or "?"]
        keep_next = command.program in _SUBCOMMANDS
        for word in command.argv[1:]:
            if len(word) > 1 and word[0] == "-":
                words.append(word.split("=", 1)[0] if word.startswith("--") else word)
            elif keep_next and word.replace("-", "").replace("_", "").isalnum():
                words.append(word)
                keep_next = False
            else:
                words.append("<arg>")
                keep_next = False
        parts.append(" ".join(words))
    return " ; ".join(parts)


def entry(call: Call, decision: Decision, root: str | None, ms: float | None = None) -> dict[str, Any]:
    """The ledger line for CALL and what the rules decided about it."""
    content = store_content()
    fired = ([decision.deny] if decision.deny else []) + list(decision.warnings) + \
        ([decision.rewrite] if decision.rewrite else [])
    record: dict[str, Any] = {
        "v": VERSION, "time": now_iso(), "harness": call.harness, "event": call.event,
        "session": call.session, "agent": call.agent, "repo": root, "cwd": call.cwd if content else None,
        "tool": call.tool, "kind": call.kind,
        "command": redact(call.command) if content and call.command is not None else None,
        "shape": shape(call.commands) if call.command else None,
        "path": redact(call.path) if content and call.path is not None else None,
        "decision": decision.action or "none",
        "rules": [{"rule": f.rule, "action": f.action} for f in fired],
        "errors": [{"rule": rule, "error": redact(error)} for rule, error in decision.errors],
        "allowed": list(decision.allowed),
        "records": decision.records,
        "exit_code": call.exit_code,
        "ms": round(ms, 2) if ms is not None else None,
    }
    return record


def now_iso() -> str:
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}Z"


def append(record: dict[str, Any]) -> None:
    """Append RECORD as one line (one write in O_APPEND mode: concurrent hooks never interleave)."""
    directory = paths.state_dir()
    os.makedirs(directory, mode=0o700, exist_ok=True)
    line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", "replace")
    fd = os.open(os.path.join(directory, NAME), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
