"""git's own hooks: the same rules on what a commit or push really contains.

    jouet hook git pre-commit                       the index is what will be committed
    jouet hook git pre-push REMOTE URL < refs       one call per ref git is about to push
    jouet hook git post-checkout PREV NEW FLAG      after a fresh clone: does it ship rules?

Add --framework when the pre-commit framework runs it (no stdin, refs from PRE_COMMIT_* variables).

A denial prints the rule's message and name on stderr and exits 1, which stops git; a warning
prints and lets git go on. A person who disagrees with a rule can let one command through with
JOUET_ALLOW=RULE[,RULE...] (never an enforced rule); each use is said and recorded in the ledger.
If jouet itself fails, it says so and lets git go on (exit 0).

This module only translates (harness/git_events.py reads what git hands a hook); deciding is the
runner's, through harness/serve.py.
"""

from __future__ import annotations

import os
import sys

from jouet_git.harness.base import CALLS, NOTICE, Adapter, BadInput, Outcome, Reply, Request, failed_rules
from jouet_git.term import paint

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import ClassVar

EVENTS = {
    "pre-commit": "the index is about to be committed",
    "pre-push": "refs are about to be pushed (REMOTE URL, refs on stdin)",
    "post-checkout": "a checkout or fresh clone finished (PREV NEW FLAG)",
}


class GitAdapter(Adapter):
    name = "git"
    events: ClassVar[dict[str, str]] = EVENTS
    tools: ClassVar[dict[str, str]] = {"git": "shell"}
    honours_allow = True

    def usage(self) -> str:
        return super().usage() + "\nAdd --framework when the pre-commit framework runs the hook.\n"

    def reads_stdin(self, event: str, argv: list[str]) -> bool:
        return event == "pre-push" and "--framework" not in argv

    def read(self, event: str, stdin: str, argv: list[str], environ: Mapping[str, str]) -> Request:
        from jouet_git.harness import git_events

        framework = "--framework" in argv
        rest = [a for a in argv if a != "--framework"]
        cwd = os.getcwd()
        if event == "post-checkout":
            args = git_events.post_checkout_argv_from_framework(environ) if framework else rest
            return Request(NOTICE, event, cwd, notice=git_events.post_checkout_notice(args, cwd))
        if event == "pre-commit":
            calls = git_events.pre_commit_calls(cwd)
        elif framework:
            calls = [ref.call for ref in git_events.pre_push_calls_from_framework(environ, cwd)]
        else:
            if len(rest) < 2:
                raise BadInput("jouet hook git pre-push: expected the remote's name and URL, as git passes them")
            calls = [ref.call for ref in git_events.pre_push_calls(rest[0], rest[1], stdin, cwd)]
        # The agent session making the commit or push, when its shell exported one (jouet's
        # session-start hook does): the claims rule tells its own claims from other sessions'.
        session = environ.get("JOUET_SESSION_ID") or None
        for call in calls:
            call.session = session
        return Request(CALLS, event, cwd, calls, session=session)

    def reply(self, request: Request, outcome: Outcome) -> Reply:
        lines = outcome.notices + failed_rules(outcome.decisions)
        status = 0
        for call, decision in zip(request.calls, outcome.decisions, strict=True):
            for name in decision.allowed:
                lines.append(f"jouet: JOUET_ALLOW let `{call.command}` through rule {name}; recorded")
            lines.extend(paint(f"jouet: warning: {warning.text()}", "warn", sys.stderr)
                         for warning in decision.warnings)
            if decision.deny is not None:
                deny = decision.deny
                # Bold red on a terminal: a denial must stand out among git's own lines.
                lines.append(paint(f"jouet: {deny.text()}", "deny", sys.stderr))
                if not deny.source_label.startswith("enforced"):
                    lines.append(f"jouet: if you are a person and disagree, let this one through with "
                                 f"JOUET_ALLOW={deny.rule} (it is recorded)")
                status = 1
        return Reply(stderr="".join(line + "\n" for line in lines), exit=status)

    def bad_input(self, event: str, message: str) -> Reply:
        return Reply(stderr=f"jouet: {message}\n", exit=1)

    def failure(self, event: str, message: str) -> Reply:
        # jouet failing must not stop people's git.
        return Reply(stderr=f"jouet: {message} in the {event} hook, nothing checked\n", exit=0)


ADAPTER = GitAdapter()
