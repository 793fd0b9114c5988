"""Serve one hook event: the adapter reads it, the runner decides, the adapter replies.

    jouet hook HARNESS EVENT [ARGS]   ->   serve(adapter, event, args)

This is the only place a hook meets the engine. Whatever goes wrong, the process answers with the
adapter's own reply: bad input gets adapter.bad_input, and jouet's own failure adapter.failure,
which every harness reads as "no objection" (a Copilot or Cline call is never blocked because jouet
broke). Both leave a ledger line (decision "unreadable" or "error") saying the event went unchecked.
"""

from __future__ import annotations

import os
import sys

from jouet_git.harness.base import (
    CALLS,
    NOTICE,
    SCREEN,
    SESSION_START,
    STOP,
    Adapter,
    BadInput,
    Outcome,
    Reply,
    Request,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import TextIO

    from jouet_git.call import Call
    from jouet_git.engine.ruleset import RuleSet


def serve(adapter: Adapter, event: str, argv: list[str]) -> int:
    """Run EVENT of ADAPTER's harness with ARGV; print the reply and return its exit code."""
    environ = os.environ
    reply: Reply
    try:
        stdin = sys.stdin.read() if adapter.reads_stdin(event, argv) else ""
        request = adapter.read(event, stdin, argv, environ)
    except BadInput as error:
        reply = adapter.bad_input(event, str(error))
        _record(adapter, event, "unreadable", str(error))
    except Exception as error:  # jouet's own bug while reading: no objection
        reply = _failed(adapter, event, error)
    else:
        try:
            outcome = answer(adapter, request, environ)
            reply = adapter.reply(request, outcome)
        except Exception as error:
            reply = _failed(adapter, event, error)
    _write(sys.stdout, reply.stdout)
    _write(sys.stderr, reply.stderr)
    return reply.exit


def answer(adapter: Adapter, request: Request, environ: Mapping[str, str]) -> Outcome:
    """What jouet makes of REQUEST: decisions, the primer, the stop check, notices."""
    from jouet_git.engine.runner import Runner

    outcome = Outcome()
    if request.kind == NOTICE:
        if request.notice:
            outcome.notices.append(request.notice)
        return outcome
    policy = None
    if adapter.honours_allow:
        # git's hooks: a person may let a commit through; an agent session may weaken nothing.
        from jouet_git.engine.overrides import for_git_hook

        policy = for_git_hook(os.environ if environ is os.environ else dict(environ))
        outcome.notices.extend(policy.notices)
        outcome.may_allow = not policy.agent
        runner = Runner(allow=policy.allow, disable_only=policy.disable_only)
    else:
        runner = Runner()
    if request.prompts is not None and request.session:
        _recall_prompt(request)
    if request.kind == CALLS:
        outcome.decisions = [runner.decide(call) for call in request.calls]
        _screen(request, outcome)
        for call, decision in zip(request.calls, outcome.decisions, strict=True):
            runner.record(call, decision)
        if policy is not None:
            outcome.notices.extend(policy.kept_on(runner.kept_on))
        # Rules that do not run (a broken file, a plugin whose copy changed, a source that could not be
        # read) are said wherever a decision is made, so nobody believes a rule guards them when it does not.
        if request.calls:
            outcome.notices.extend(_notices(runner.ruleset(request.calls[0].cwd)))
    elif request.kind == SCREEN:
        _screen(request, outcome)
        if request.remember and request.prompts is not None and request.session and outcome.screened is not None:
            from jouet_git import prompts

            text = outcome.screened.screened.texts[0] if outcome.screened.screened.texts else ""
            prompts.save(prompts.session_dir(request.prompts), request.session, text)
    elif request.kind == SESSION_START:
        from jouet_git.harness.primer import primer

        adapter.started(request, environ)
        if request.cleared:
            from jouet_git import reads

            reads.forget_session(request.session)
        ruleset = runner.ruleset(request.cwd)
        outcome.primer = primer(ruleset)
        outcome.notices.extend(_notices(ruleset))
        from jouet_git.engine import stop

        stop.session_started(runner, event_call(adapter, request, "session-start"))
    elif request.kind == STOP:
        from jouet_git.engine import stop

        call = event_call(adapter, request, "stop")
        decision, extra = stop.check(runner, call, request.stop_active)
        runner.record(call, decision, extra)
        # An adapter says the stop decision's failed rules to the person (common.Verdict).
        outcome.stop = decision
    return outcome


def _notices(ruleset: RuleSet) -> list[str]:
    """What to say about rules that do not run (engine/problems.py, imported only when there is any)."""
    if not ruleset.has_notices():
        return []
    from jouet_git.engine import problems

    return problems.notices(ruleset)


def _recall_prompt(request: Request) -> None:
    """Give each call before a tool that carries no request of its own the session's stored one."""
    from jouet_git import prompts
    from jouet_git.call import PRE_TOOL_USE
    from jouet_git.harness.base import PROMPT_KEY

    calls = [c for c in request.calls if c.event == PRE_TOOL_USE and PROMPT_KEY not in c.input]
    if not calls or request.session is None:
        return
    stored = prompts.load(prompts.session_dir(request.prompts), request.session)
    if stored is not None:
        for call in calls:
            call.input[PROMPT_KEY] = stored


def _screen(request: Request, outcome: Outcome) -> None:
    """Screen what the request carries for secrets (a tool's output); the ledger gets the counts."""
    if request.screen is None:
        return
    from jouet_git.screen import screen_output

    outcome.screened = screen_output(request.screen, request.cwd)
    if not request.withhold:  # the harness may only annotate here: nothing found was withheld
        outcome.screened.withheld = False
    if outcome.decisions and (outcome.screened.changed or outcome.screened.screened.problem):
        outcome.decisions[0].records.append(outcome.screened.record())


def event_call(adapter: Adapter, request: Request, event: str) -> Call:
    """The call a session start or a stop stands for: no command, tool "stop" or "session-start"."""
    from jouet_git.call import KIND_OTHER, Call

    return Call(event=event, harness=adapter.name, tool=event, kind=KIND_OTHER, cwd=request.cwd,
                session=request.session, agent=request.agent, input={"stop_active": request.stop_active})


def _failed(adapter: Adapter, event: str, error: Exception) -> Reply:
    """The adapter's "no objection" for jouet's own failure, which the ledger records too."""
    message = f"internal error: {type(error).__name__}: {error}"
    _record(adapter, event, "error", message)
    return adapter.failure(event, message)


def _record(adapter: Adapter, event: str, what: str, message: str) -> None:
    """A ledger line for a hook event jouet decided nothing about (it never raises)."""
    try:
        from jouet_git.engine.runner import record_unanswered

        record_unanswered(adapter.name, event, what, message)
    except Exception:  # a ledger that cannot be written must not break the hook's answer
        pass


def _write(stream: TextIO, text: str) -> None:
    if not text:
        return
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):  # a closed pipe: nobody is listening any more
        pass
