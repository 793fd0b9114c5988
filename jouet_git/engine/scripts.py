"""The script runners the engine uses: in hooks, with real probes; under `jouet rule test`, with
probes that answer only what each example says."""

from __future__ import annotations

from jouet_git.call import Call
from jouet_git.engine.decide import Outcome
from jouet_git.engine.script_host import EXAMPLE_BUDGET, ScriptHost

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.engine.model import Rule
    from jouet_git.engine.ruleset import RuleSet


class _LazyProbes:
    """Real probes for one call, made on the first question (most scripts ask none)."""

    __slots__ = ("_call", "_probes", "asked")

    def __init__(self, call: Call) -> None:
        self._call = call
        self._probes: Any = None
        # Each question the scripts asked, in order: (probe, arguments, answer); None once one was
        # asked whose arguments or answer are not plain data (for a stream: engine/runner.py _Kept).
        self.asked: list[tuple[str, tuple[Any, ...], Any]] | None = []

    def begin_check(self) -> None:
        if self._probes is not None:
            self._probes.begin_check()

    def _made(self) -> Any:
        if self._probes is None:
            from jouet_git.probes.core import Probes

            self._probes = Probes(self._call.cwd, self._call)
        return self._probes

    def secrets_read_ahead(self, scope: str) -> None:
        """Not a question (it starts the scan a script is about to ask for): not noted in `asked`."""
        self._made().secrets_read_ahead(scope)

    def __getattr__(self, name: str) -> Any:
        probe = getattr(self._made(), name)
        if not callable(probe):
            return probe

        def asking(*args: Any) -> Any:
            answer = probe(*args)
            if self.asked is not None:
                if _plain(args) and _plain(answer):
                    self.asked.append((name, args, answer))
                else:
                    self.asked = None
            return answer

        return asking


def _plain(value: Any) -> bool:
    """Whether VALUE is plain data (what probes take and answer), that == compares in full."""
    if value is None or isinstance(value, (str, int, float)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


class HookScripts:
    """Runs script rules for hook calls: one VM, and real probes shared by the rules of one call."""

    def __init__(self, ruleset: RuleSet | None = None) -> None:
        self._host: ScriptHost | None = None
        self._call: Call | None = None
        self._probes: Any = None

    @property
    def varied(self) -> int:
        """How many times the scripts run so far asked the clock, the date or the random generator
        (Sandbox.varied; 0 before the VM starts)."""
        return self._host.sb.varied if self._host is not None else 0

    @property
    def host(self) -> ScriptHost:
        """The Lua VM, started on the first script run."""
        if self._host is None:
            self._host = ScriptHost()
        return self._host

    def probes_for(self, call: Call) -> Any:
        if call is not self._call:
            self._call = call
            self._probes = _LazyProbes(call)
        return self._probes

    def run(self, rule: Rule, call: Call, matched: list[int]) -> Outcome | None:
        probes = self.probes_for(call)
        from jouet_git.engine.read_ahead import secret_scan

        scope = secret_scan(rule, call, matched)
        if scope is None:
            return self.host.run(rule, call, matched, probes)
        probes.secrets_read_ahead(scope)  # git starts before the VM does, and runs beside it
        try:
            return self.host.run(rule, call, matched, probes)
        finally:
            from jouet_git.probes.secrets import abandon_ahead

            abandon_ahead()

    def asked(self, call: Call) -> list[tuple[str, tuple[Any, ...], Any]] | None:
        """The probes' questions about CALL and their answers, in order (see _LazyProbes.asked)."""
        probes = self._probes
        return probes.asked if call is self._call and probes is not None else []


class _ExampleRunner:
    __slots__ = ("example", "host")

    def __init__(self, host: ScriptHost, example: Any) -> None:
        self.host = host
        self.example = example

    def run(self, rule: Rule, call: Call, matched: list[int]) -> Outcome | None:
        from jouet_git.probes.examples import ExampleProbes

        item = self.example if isinstance(self.example, dict) else {"command": self.example}
        return self.host.run(rule, call, matched, ExampleProbes(item, call.cwd, call))


class ExampleScripts:
    """Runs script rules for examples: one VM per process, probes answered by the example."""

    _host: ScriptHost | None = None

    def __init__(self) -> None:
        if ExampleScripts._host is None:
            ExampleScripts._host = ScriptHost(EXAMPLE_BUDGET, examples=True)
        self.host = ExampleScripts._host

    def for_example(self, example: Any) -> _ExampleRunner:
        return _ExampleRunner(self.host, example)
