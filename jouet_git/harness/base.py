"""What every harness adapter is: a translator between one harness's hook format and jouet.

An adapter reads what a hook event hands it (stdin, arguments, environment) into a Request, and
writes what jouet made of it (an Outcome) as the Reply that harness acts on: its stdout, stderr
and exit code. It knows its harness's payloads, tool names and quirks, and nothing else: it never
loads rules, runs scripts, asks git or writes the ledger (harness/serve.py and the engine's runner
do). Adding a harness is one module with an ADAPTER, a line in harness/__init__.py's registry, and
fixtures under tests/harness/fixtures/.

A harness reads "no objection" in its own way; an adapter never sends an approval for a call jouet
merely has no objection to. Its replies for bad input and for jouet's own failure are its own too:
fail safe on the input where the harness lets a hook refuse, fail open on jouet's bugs.

On the hook path: imports nothing beyond jouet_git.call.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

    from jouet_git.call import Call
    from jouet_git.engine.decide import Decision
    from jouet_git.screen import OutputScreen

# What a Request asks of jouet.
CALLS = "calls"  # decide each of its calls (before or after a tool, a commit, a push)
SESSION_START = "session-start"  # a session starts: the primer
STOP = "stop"  # the agent is about to finish its turn: the stop check
NOTICE = "notice"  # tell the person something (a fresh checkout ships rules), decide nothing
SCREEN = "screen"  # screen text for secrets (a prompt, a reply, a tool's result), decide nothing

# Where a Call's input carries the person's request (the neutral protocol's prompt), for rules.
PROMPT_KEY = "jouet_prompt"


class BadInput(ValueError):
    """A payload or arguments jouet cannot read; the message says what is wrong."""


class Request:
    """What one hook event asks of jouet, as its adapter read it.

    kind: CALLS, SESSION_START, STOP or NOTICE. cwd: where the event happens. calls: for CALLS.
    payload: the decoded payload, for the adapter's own reply. notice: for NOTICE, the text.
    stop_active: for STOP, whether the harness says the agent is already continuing because of a
    stop hook (so jouet must not hold it again). screen: for CALLS after a tool and for SCREEN, what
    to screen for secrets (a tool's output as it arrived, or a text): see jouet_git/screen.py.
    prompts: for a harness that hands over the person's request per session (the neutral protocol),
    the session directory to keep it in ("" for the default): calls without a request of their own
    get the session's stored one on their input (PROMPT_KEY), and with remember, the screened text
    of a SCREEN request becomes the session's request (jouet_git/prompts.py). cleared: for
    SESSION_START, whether the session's context was emptied (Claude Code's /clear and compaction),
    so it no longer holds what it read (jouet_git/reads.py). withhold: whether the event lets a hook
    replace what was screened (False where it may only add context, as after a failed tool: then the
    ledger says the secrets found were not withheld).
    """

    __slots__ = ("agent", "calls", "cleared", "cwd", "event", "kind", "notice", "payload", "prompts", "remember",
                 "screen", "session", "stop_active", "withhold")

    def __init__(self, kind: str, event: str, cwd: str, calls: list[Call] | None = None,
                 session: str | None = None, agent: str | None = None, payload: Any = None,
                 notice: str | None = None, stop_active: bool = False, screen: Any = None,
                 prompts: str | None = None, remember: bool = False, cleared: bool = False,
                 withhold: bool = True) -> None:
        self.kind = kind
        self.event = event
        self.cwd = cwd
        self.calls = calls or []
        self.session = session
        self.agent = agent
        self.payload = payload
        self.notice = notice
        self.stop_active = stop_active
        self.screen = screen
        self.prompts = prompts
        self.remember = remember
        self.cleared = cleared
        self.withhold = withhold


class Outcome:
    """What jouet made of a Request: a Decision per call, the primer, lines for the person, for a
    stop, the Decision that holds the agent (None lets it stop), and what screening request.screen
    found (screen.OutputScreen; None when nothing was to be screened)."""

    __slots__ = ("decisions", "may_allow", "notices", "primer", "screened", "stop")

    def __init__(self) -> None:
        self.decisions: list[Decision] = []
        self.primer = ""
        # Person-facing lines: broken rules, a repository's changed rules, rules that failed.
        self.notices: list[str] = []
        self.stop: Decision | None = None
        # Whether whoever runs this may let a denial through (JOUET_ALLOW in git's hooks): False
        # inside an agent session (engine/overrides.py), so no way through is offered there.
        self.may_allow = True
        self.screened: OutputScreen | None = None


class Reply:
    """What the hook process prints and how it exits."""

    __slots__ = ("exit", "stderr", "stdout")

    def __init__(self, stdout: str = "", stderr: str = "", exit: int = 0) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.exit = exit

    def __repr__(self) -> str:
        return f"Reply(exit={self.exit}, stdout={self.stdout!r}, stderr={self.stderr!r})"


class Adapter:
    """One harness. Subclasses set the attributes and implement read and reply."""

    name = ""
    # The EVENT words `jouet hook NAME EVENT` takes, each with what it is in the harness's terms.
    events: ClassVar[dict[str, str]] = {}
    # The harness's tool names, each with its kind (call.KIND_*). Anything else is KIND_OTHER.
    tools: ClassVar[dict[str, str]] = {}
    # The harness's tool names that Claude Code has an equivalent for, with that name: a Call's tool
    # is the equivalent, so rules and scripts written with Claude Code's names hold everywhere.
    same_as: ClassVar[dict[str, str]] = {}
    # Whether a person's JOUET_ALLOW is honoured (git's hooks, run from a person's terminal).
    honours_allow = False
    # Whether `jouet hook NAME` takes an EVENT word (False: one command for every event, whose kind
    # is in the payload, as in the neutral protocol and polyhook; the arguments go to read()).
    takes_event = True

    def usage(self) -> str:
        lines = [f"usage: jouet hook {self.name} EVENT", "", "events:"]
        width = max((len(e) for e in self.events), default=0)
        lines += [f"  {event.ljust(width)}  {what}" for event, what in self.events.items()]
        return "\n".join(lines) + "\n"

    def reads_stdin(self, event: str, argv: list[str]) -> bool:
        """Whether the event's payload arrives on standard input."""
        return True

    def read(self, event: str, stdin: str, argv: list[str], environ: Mapping[str, str]) -> Request:
        """The Request an event's input describes. Raises BadInput."""
        raise NotImplementedError

    def reply(self, request: Request, outcome: Outcome) -> Reply:
        """The Reply the harness acts on."""
        raise NotImplementedError

    def recorded_event(self, payload: dict[str, Any]) -> str | None:
        """The EVENT word (a key of `events`) a recorded PAYLOAD of this harness was sent for, read
        from the payload itself (for `jouet rule test --payload`); None when it does not say."""
        return None

    def read_foreign(self, event: str, payload: dict[str, Any]) -> Request:
        """The Request in PAYLOAD, this harness's own, that reached another harness's hook command
        for that harness's EVENT (Cursor and Copilot run Claude Code's hooks). Raises BadInput."""
        raise BadInput(f"jouet hook {self.name} cannot read a payload sent to another harness's hook")

    def bad_input(self, event: str, message: str) -> Reply:
        """The reply to input jouet cannot read (by default: say so, exit 1)."""
        return Reply(stderr=f"jouet: {message}; no decision made\n", exit=1)

    def failure(self, event: str, message: str) -> Reply:
        """The reply when jouet itself fails: the harness must read it as "no objection"."""
        return Reply(stderr=f"jouet: {message}; no decision made\n", exit=1)

    def started(self, request: Request, environ: Mapping[str, str]) -> None:
        """A session started: the harness's own session quirks (an env file, say). Default: none."""

    def tool_kind(self, tool: str) -> str:
        from jouet_git.call import KIND_OTHER

        return self.tools.get(tool, KIND_OTHER)

    def canonical(self, tool: str) -> str:
        """The name a Call carries for the harness's TOOL (see same_as)."""
        return self.same_as.get(tool, tool)


def failed_rules(decisions: list[Decision]) -> list[str]:
    """A line for each rule that failed while deciding (it said nothing; the person should know)."""
    lines = []
    for decision in decisions:
        for rule, error in decision.errors:
            lines.append(f"jouet: rule {rule} failed and said nothing: {error}")
    return lines
