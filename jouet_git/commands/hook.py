"""The hooks a harness or git runs. `jouet setup` installs them; people rarely run them by hand.

  jouet hook claude pre|post|post-failure|session-start   Claude Code (payload on stdin)
  jouet hook git pre-commit|pre-push|post-checkout [ARGS]  git's own hooks (add --framework when
                                                            run by the pre-commit framework)

This command runs before every tool call an agent makes, so it skips argparse and imports only
what the call needs.
"""

from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jouet_git.call import Call
    from jouet_git.engine.decide import Decision

USAGE = __doc__ or ""


def run_fast(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write("usage: jouet hook HARNESS EVENT\n\n" + USAGE)
        return 0
    harness = argv[0]
    if harness == "claude":
        return _claude(argv[1:])
    if harness == "git":
        from jouet_git.harness.git import run_git_hook

        return run_git_hook(argv[1:])
    sys.stderr.write(f"jouet hook: unknown harness '{harness}' (expected claude or git)\n")
    return 1


def _claude(argv: list[str]) -> int:
    from jouet_git.harness import claude

    if len(argv) != 1 or argv[0] not in claude.EVENTS:
        sys.stderr.write("jouet hook claude: expected one event: pre, post, post-failure or session-start\n")
        return 1
    event = argv[0]
    try:
        payload = claude.parse(sys.stdin.read())
        if event == "session-start":
            return _session_start(payload)
        call = claude.call_from_payload(payload, event)
        from jouet_git.engine.run import decide_call

        decision = decide_call(call)
        out = claude.reply(event, call, decision)
        _record(call, decision)
        for rule, error in decision.errors:  # a rule that fails says nothing to the agent, but is reported
            sys.stderr.write(f"jouet: rule {rule} failed and said nothing: {error}\n")
    except claude.PayloadError as error:
        sys.stderr.write(f"jouet: {error}; no decision made\n")
        return 1
    except Exception as error:  # never block a call because jouet itself failed
        sys.stderr.write(f"jouet: internal error, no decision made: {type(error).__name__}: {error}\n")
        return 1
    if out is not None:
        sys.stdout.write(json.dumps(out))
        sys.stdout.write("\n")
    return 0


def _session_start(payload: dict[str, object]) -> int:
    from jouet_git.engine.ruleset import load
    from jouet_git.harness.primer import primer

    cwd = payload.get("cwd")
    ruleset = load(cwd if isinstance(cwd, str) and cwd else os.getcwd())
    session = payload.get("session_id")
    env_file = os.environ.get("CLAUDE_ENV_FILE")
    if env_file and isinstance(session, str) and session:
        import shlex

        with open(env_file, "a", encoding="utf-8") as f:
            f.write(f"export JOUET_SESSION_ID={shlex.quote(session)}\nexport JOUET_HARNESS=claude\n")
    text = primer(ruleset)
    if text:
        sys.stdout.write(json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                            "additionalContext": text}}) + "\n")
    return 0


def _record(call: Call, decision: Decision) -> None:
    """One ledger line per rule that spoke up: which rule, what it did, to which programs."""
    findings = ([decision.deny] if decision.deny else []) + decision.warnings + \
        ([decision.rewrite] if decision.rewrite else [])
    if not findings and not decision.errors:
        return
    from jouet_git import journal

    programs = sorted({c.program for c in call.commands})
    base = {"harness": call.harness, "event": call.event, "session": call.session, "agent": call.agent,
            "tool": call.tool, "programs": programs}
    try:
        for finding in findings:
            journal.append(journal.LEDGER, {**base, "rule": finding.rule, "action": finding.action})
        for rule, error in decision.errors:
            journal.append(journal.LEDGER, {**base, "rule": rule, "action": "error", "error": error})
    except OSError:
        pass


def configure(parser: object) -> None:  # `jouet hook` never goes through argparse (see run_fast)
    pass


def run(args: object) -> int:
    return run_fast(sys.argv[2:])
