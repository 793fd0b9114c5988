"""The one runner: every entry point hands it Calls and gets Decisions.

    runner = Runner()                     # Runner(allow=...) where a person may let a rule through
    decision = runner.decide(call)        # what the rules that apply in call.cwd decide
    runner.record(call, decision)         # its one ledger line (jouet_git/ledger.py)

Agent hooks, git's hooks, `jouet check` (one call or a jsonl stream), `jouet rule test --command`
and the entry points to come all decide here, so they cannot drift apart. Per repository root
(None outside any) the runner keeps the rule set and one script host (a Lua VM, started only when a
script rule's matcher matches), so a push of many refs, a jsonl batch or a replay loads each once.

The JOUET_ALLOW policy (a person letting one command through named rules, never an enforced one)
is applied here for the entry points that pass `allow`; what was let through is in
Decision.allowed and in the ledger.
"""

from __future__ import annotations

import time

from jouet_git import gitdir
from jouet_git.call import KIND_READ, KIND_SEARCH, KIND_SHELL, Call, shows_no_file
from jouet_git.engine.decide import Decision, decide
from jouet_git.engine.match import Context
from jouet_git.engine.ruleset import RuleSet, load_root

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.engine.model import Rule
    from jouet_git.engine.plan import Planned, Plans
    from jouet_git.ledger_stamp import Stamp

# How many ledger lines, and for how long, a stream of calls may hold back (Runner.hold_records).
HELD_LINES = 256
HELD_SECONDS = 0.5
# How many decisions a repository's memo keeps for a stream of calls (Runner.decide's KEY).
MEMO_DECISIONS = 4096

_SEARCH_PROGRAMS = frozenset({"grep", "rg", "egrep", "fgrep", "ag", "ack", "git-grep"})


class LazyScripts:
    """Starts the real script host (a Lua VM) the first time a script rule needs it.

    `varied` turns true when a script it ran asked the clock, the date or the random generator (set
    back to false by whoever reads it): what the script said may differ next time."""

    __slots__ = ("_scripts", "varied")

    def __init__(self) -> None:
        self._scripts: Any = None
        self.varied = False

    def run(self, rule: Rule, call: Call, matched: list[int]) -> Any:
        scripts = self._scripts
        if scripts is None:
            from jouet_git.engine.scripts import HookScripts

            scripts = self._scripts = HookScripts()
        asked = scripts.varied  # (not scripts.host: the VM starts in run(), after the scan's read-ahead)
        try:
            return scripts.run(rule, call, matched)
        finally:
            if scripts.varied != asked:
                self.varied = True

    def asked(self, call: Call) -> list[tuple[str, tuple[Any, ...], Any]] | None:
        """What the scripts asked the probes about CALL, in order, with the answers (None: something
        that cannot be compared)."""
        return self._scripts.asked(call) if self._scripts is not None else []


class _Repository:
    """What the runner keeps for one repository root: its rule set and its script host."""

    __slots__ = ("memo", "plans", "root", "ruleset", "scripts")

    def __init__(self, root: str | None, ruleset: RuleSet) -> None:
        self.root = root
        self.ruleset = ruleset
        self.scripts = LazyScripts()
        # For a stream of calls (Runner.plan_calls): the rules that could match each shape of call.
        self.plans: Plans | None = None
        # For a stream of calls: decisions that may be given again (Runner.decide's KEY), each with
        # the questions asked of the filesystem and their answers.
        self.memo: dict[tuple[Any, frozenset[str]], _Kept] = {}


class Runner:
    """Turns Calls into Decisions for every entry point, and records them."""

    __slots__ = ("_decided", "_kept", "_pending", "_pending_since", "_repos", "_state", "_texts", "allow",
                 "disable_only", "kept_on", "memo_hits", "plan_calls", "record_calls", "use_cache")

    def __init__(self, allow: frozenset[str] = frozenset(), record: bool = True, use_cache: bool = True,
                 disable_only: frozenset[str] | None = None) -> None:
        # Rules a person lets through for this process's calls (JOUET_ALLOW in git's hooks).
        self.allow = allow
        # When set, config.toml may switch off only these rules; the others it names run anyway
        # (git's hooks in an agent session whose settings were moved: jouet_git/overrides.py).
        self.disable_only = disable_only
        # The rules config.toml switches off that run anyway, because of disable_only.
        self.kept_on: list[str] = []
        self.record_calls = record
        self.use_cache = use_cache
        # Work out once per shape of call which rules and matchers could match it (engine/plan.py):
        # for a stream of calls, where the same shapes come again.
        self.plan_calls = False
        self._repos: dict[str | None, _Repository] = {}
        # The last call decided and its state (what it reads), for record() to remember.
        self._state: tuple[Call, Any] | None = None
        # The last call decided and its repository, so that recording it and showing its rule set
        # look for the repository root once per call (never across calls: a stream of calls may
        # run while a repository is made or removed).
        self._decided: tuple[Call, str, _Repository] | None = None
        # Ledger lines held back to be written together (hold_records), and since when.
        self._pending: list[dict[str, Any] | str] | None = None
        self._pending_since = 0.0
        # For a stream: the texts (commands, paths) the ledger stored and the roots' hashes (ledger.entry).
        self._texts: dict[tuple[str, str], str] | None = None
        # How many calls were answered with a decision made before for the same input (decide's KEY).
        self.memo_hits = 0
        # The last call decided, when it was given a decision kept for its key, so that the ledger
        # line of that key is made once and stamped again for each later line (record).
        self._kept: tuple[Call, _Kept] | None = None

    def _repository(self, cwd: str) -> _Repository:
        return self._found(cwd)[0]

    def _found(self, cwd: str) -> tuple[_Repository, gitdir.Repo | None]:
        """What the runner keeps for the repository around CWD, and that repository as found now."""
        found = gitdir.find(cwd)
        root = found.root if found is not None else None
        repo = self._repos.get(root)
        if repo is None:
            ruleset = load_root(root, self.use_cache)
            if self.disable_only is not None:
                self.kept_on.extend(n for n in _switch_back_on(ruleset, self.disable_only) if n not in self.kept_on)
            repo = self._repos[root] = _Repository(root, ruleset)
        return repo, found

    def ruleset(self, cwd: str) -> RuleSet:
        """The rule set that applies in CWD (loaded once per repository root)."""
        return self._repository(cwd).ruleset

    def _repository_of(self, call: Call) -> _Repository:
        """The repository CALL was decided in (found again for a call not just decided)."""
        decided = self._decided
        if decided is not None and decided[0] is call and call.cwd == decided[1]:
            return decided[2]
        return self._repository(call.cwd)

    def ruleset_for(self, call: Call) -> RuleSet:
        """The rule set CALL was decided with (the one that applies in its directory)."""
        return self._repository_of(call).ruleset

    def decide(self, call: Call, only: list[Rule] | None = None, key: Any = None) -> Decision:
        """What the rules that apply in the call's directory decide about CALL.

        ONLY decides with those rules instead (each as if enabled), for `jouet rule test --command`.
        KEY (for a stream of calls): a value that determines CALL entirely, such as the input line
        it was read from. A decision that read nothing but the call (see _pure) is kept under its
        key, the repository root and the rules switched off, and given again to a later call with
        the same key in the same repository.
        """
        started = time.perf_counter()
        repo, found = self._found(call.cwd)
        self._decided = (call, call.cwd, repo)
        self._kept = None
        disabled = repo.ruleset.disabled_now()
        if key is not None and only is None:
            kept = repo.memo.get((key, disabled))
            if kept is not None and kept.holds(call, repo.root, found):
                self._state = None
                self._kept = (call, kept)
                self.memo_hits += 1
                decision = kept.again()
                decision.ms = (time.perf_counter() - started) * 1000
                return decision
        ctx = context_for(call, repo.root, found)
        self._state = (call, ctx.state)
        repo.scripts.varied = False
        if only is not None:
            decision = decide(only, call, ctx, repo.scripts)
        else:
            planned: list[Planned] | None = None
            if self.plan_calls:
                if repo.plans is None:
                    from jouet_git.engine.plan import Plans

                    repo.plans = Plans()
                plan = repo.plans.get(call, repo.ruleset)
                rules, planned = plan.rules, plan.matchers
            else:
                rules = repo.ruleset.candidates({c.program for c in call.commands})
            decision = decide(rules, call, ctx, repo.scripts, disabled, planned)
            asked = decision.asked
            while self.allow and decision.deny is not None and decision.deny.rule in self.allow \
                    and not decision.deny.source_label.startswith("enforced"):
                decision.allowed.append(decision.deny.rule)
                let_through = decision.allowed
                decision = decide(rules, call, ctx, repo.scripts, disabled | frozenset(let_through), planned)
                decision.allowed = let_through
                asked.extend(decision.asked)
            if key is not None:
                repo.memo.pop((key, disabled), None)
                kept = _Kept.of(call, decision, asked, ctx, repo)
                if kept is not None:
                    if len(repo.memo) >= MEMO_DECISIONS:
                        repo.memo.clear()
                    repo.memo[(key, disabled)] = kept
        decision.ms = (time.perf_counter() - started) * 1000
        return decision

    def record(self, call: Call, decision: Decision, extra: dict[str, Any] | None = None) -> None:
        """Append the call's ledger line (never raises: a full disk must not break a hook).

        EXTRA: fields of a stop or session-start line (the work tree's hash)."""
        if not self.record_calls:
            return
        from jouet_git import ledger

        try:
            kept = self._kept
            if kept is not None and kept[0] is call and extra is None and self._texts is not None:
                # The same line decided the same way: the same ledger line but for its time.
                if kept[1].line is None:
                    from jouet_git.ledger_stamp import Stamp

                    kept[1].line = Stamp(ledger.entry(call, decision, self._repository_of(call).root,
                                                             decision.ms, None, self._texts))
                line: dict[str, Any] | str = kept[1].line.record(decision.ms)
            else:
                line = ledger.entry(call, decision, self._repository_of(call).root, decision.ms, extra,
                                    self._texts)
            pending = self._pending
            if pending is None:
                ledger.append(line)
            else:
                if not pending:
                    self._pending_since = time.monotonic()
                pending.append(line)
                if len(pending) >= HELD_LINES or time.monotonic() - self._pending_since > HELD_SECONDS:
                    self.write_records()
        except (OSError, ValueError):
            pass
        self._note_read(call, decision)

    def hold_records(self) -> None:
        """Hold ledger lines back and write them together (at most HELD_LINES of them, for at most
        HELD_SECONDS between calls), for a stream of calls: write_records() writes what is held.
        A text that comes again is redacted once."""
        if self._pending is None:
            self._pending = []
        if self._texts is None:
            self._texts = {}

    def write_records(self) -> None:
        """Write the ledger lines held back (never raises)."""
        pending = self._pending
        if not pending:
            return
        from jouet_git import ledger

        self._pending = []
        try:
            ledger.append_many(pending)
        except (OSError, ValueError):  # a full disk must not break the stream
            return

    def _note_read(self, call: Call, decision: Decision) -> None:
        """Remember what a read showed the session, for `seen` (jouet_git/reads.py)."""
        if not call.session or call.kind not in (KIND_READ, KIND_SHELL):
            return
        if call.kind == KIND_SHELL and (not call.command or shows_no_file(call)):
            return  # no file shown (reads.shown says None) and none to forget: reads.py is not imported
        from jouet_git import reads

        state = self._state[1] if self._state is not None and self._state[0] is call else None
        try:
            what = state.shown() if state is not None else reads.shown(call)
            reads.note(call, decision.deny is not None, what)
        except (OSError, ValueError):
            pass

    def kept_for(self, call: Call) -> _Kept | None:
        """The kept decision CALL was just given (decide's KEY), or None when it was decided in full."""
        kept = self._kept
        return kept[1] if kept is not None and kept[0] is call else None

    def decide_and_record(self, call: Call, key: Any = None) -> Decision:
        """Decide (KEY: see decide) and record."""
        decision = self.decide(call, key=key)
        self.record(call, decision)
        return decision


# Stands for the call in the arguments of a question _Kept keeps.
_CALL = object()


class _Kept:
    """A decision a stream of calls may give again to the same call (Runner.decide's KEY), with the
    questions deciding asked beyond the call, in order, and their answers: what a rule's `requires`
    found (Decision.asked), what the state keys said (HookState.asked: the fnox config, the lines a
    read shows, whether the session saw them), how many files the index holds, and what the scripts
    asked the probes (HookScripts.asked). Deciding is a function of the call, the rule set and those
    answers: while every answer stays the same, the same questions come in the same order and the
    decision is the same. So a later call with the same key gets it when each question, asked again
    now, gets the answer it got (else it is decided in full). A decision is not kept when a script
    asked the clock, the date or the random generator (LazyScripts.varied) or a probe something that
    cannot be compared, when a rule failed (a script out of its time budget may not be next time),
    when one recorded a check, or when reading the command looked at files (Call.read_disk: the
    script `bash x.sh` runs, git's config for an alias).

    Asked again, the questions cost what they cost the first time (a probe that runs git runs it
    again): what is saved is matching the rules and running their scripts."""

    __slots__ = ("answer", "asked", "decision", "index", "line", "probes", "state")

    def __init__(self, decision: Decision, asked: list[tuple[Any, tuple[Any, ...], bool]],
                 index: list[int | None], state: list[tuple[str, Any]],
                 probes: list[tuple[str, tuple[Any, ...], Any]]) -> None:
        self.decision = decision
        self.asked = asked
        self.index = index  # [what context_for read of the index's size], or [] when it read nothing
        self.state = state
        self.probes = probes
        # The ledger line of a call it was given to (ledger_stamp.Stamp makes each line's from it).
        self.line: Stamp | None = None
        # What a stream answered a call it was given to (commands/check.py writes it again as it is).
        self.answer: str | None = None

    @classmethod
    def of(cls, call: Call, decision: Decision, asked: list[tuple[Any, tuple[Any, ...], bool]], ctx: Context,
           repo: _Repository) -> _Kept | None:
        """What to keep of DECISION (made about CALL with CTX in REPO, having asked ASKED), or None
        when it may not be given again."""
        if repo.scripts.varied or decision.errors or decision.records or call.read_disk:
            return None
        probes = repo.scripts.asked(call)
        if probes is None:
            return None
        from jouet_git.engine.state import HookState

        state = ctx.state
        if not isinstance(state, HookState):
            return None
        index = [ctx.tracked_files] if _reads_index(call, repo.root) else []
        # The answers as the matchers had them (HookState keeps each one: nothing is read again).
        answers = [(question, getattr(state, question)()) for question in state.asked]
        # The call itself is not kept (a later call with the same key is asked about instead).
        return cls(_again(decision), [(q, tuple(_CALL if a is call else a for a in args), answer)
                                      for q, args, answer in asked], index, answers, list(probes))

    def holds(self, call: Call, root: str | None, found: gitdir.Repo | None) -> bool:
        """Whether every question gets the same answer for CALL (in ROOT, FOUND) now."""
        for question, args, answer in self.asked:
            if question(*(call if a is _CALL else a for a in args)) != answer:
                return False
        if self.index and (root is None or gitdir.index_entries(root, found) != self.index[0]):
            return False
        if self.state:
            from jouet_git.engine.state import HookState

            state = HookState(call)
            for name, answer in self.state:
                if getattr(state, name)() != answer:
                    return False
        if self.probes:
            from jouet_git.probes.core import Probes

            probes = Probes(call.cwd, call)
            for name, args, answer in self.probes:
                if getattr(probes, name)(*args) != answer:
                    return False
        return True

    def again(self) -> Decision:
        return _again(self.decision)


def _again(decision: Decision) -> Decision:
    """A copy of DECISION to keep or to give again (its findings are never changed once made)."""
    copy = Decision()
    copy.deny = decision.deny
    copy.warnings = list(decision.warnings)
    copy.rewrite = decision.rewrite
    copy.allowed = list(decision.allowed)
    return copy


def _switch_back_on(ruleset: RuleSet, keep_off: frozenset[str]) -> list[str]:
    """Run the rules config.toml switched off, but those in KEEP_OFF (this runner's copy only); their names."""
    from jouet_git.engine.model import DISABLED, ENABLED

    names = []
    for rule in ruleset.rules:
        if rule.state == DISABLED and rule.state_detail == "config.toml" and rule.name not in keep_off:
            rule.state = ENABLED
            rule.state_detail = ""
            names.append(rule.name)
    ruleset.disabled = [name for name in ruleset.disabled if name in keep_off]
    return names


def record_unanswered(harness: str, event: str, what: str, message: str) -> None:
    """The ledger line for a hook event nothing was decided about: WHAT is "unreadable" (input the
    adapter could not read) or "error" (jouet failed); the harness went ahead unchecked."""
    from jouet_git import ledger

    ledger.append(ledger.unanswered(harness, event, what, message))


def context_for(call: Call, root: str | None, found: gitdir.Repo | None = None) -> Context:
    """What matching needs beyond the call: how many files the work tree tracks, for searches, and
    the state keys' answers, worked out from the disk when a matcher first asks."""
    from jouet_git.engine.state import HookState

    tracked: int | None = None
    if _reads_index(call, root):
        assert root is not None
        tracked = gitdir.index_entries(root, found)
    return Context(tracked_files=tracked, state=HookState(call))


def _reads_index(call: Call, root: str | None) -> bool:
    """Whether context_for reads how many files the index of ROOT holds, for CALL."""
    return root is not None and _is_search(call)


def _is_search(call: Call) -> bool:
    if call.kind == KIND_SEARCH:
        return True
    return any(c.program in _SEARCH_PROGRAMS for c in call.commands) if call.command else False


def allow_from(environ: dict[str, str] | Any) -> frozenset[str]:
    """The rules JOUET_ALLOW names (comma-separated)."""
    value = environ.get("JOUET_ALLOW", "") or ""
    return frozenset(name.strip() for name in value.split(",") if name.strip())
