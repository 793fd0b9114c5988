"""The stop check: whether an agent may end its turn, judged from what the hooks recorded.

    decision, line = check(runner, call, stop_active)   # call: event "stop", tool "stop"

An agent that is about to finish is held (a deny, whose advice names the command to run) when, in
the work tree it stops in:

1. the newest test, lint or build run recorded there failed; or
2. files changed since the newest passing test run (the work tree's hash now, jouet.git.tree,
   differs from the one the run recorded); or
3. no test run is recorded there at all, the repository has a test setup jouet recognises
   (pytest, cargo, go, npm/pnpm/yarn/bun scripts, make, mise, tox, nox), and the session changed
   files.

It is never held:
- outside a git repository, or in a work tree where this session made no tool call;
- for a change outside the repository (only the work tree's own content is compared);
- when the harness says the agent already continues because of a stop hook (Claude Code's
  stop_hook_active: Request.stop_active);
- when it was already held MAX_HOLDS times for this session and agent with nothing changed since
  (the stop lines in the ledger carry the work tree's hash), so a harness without such a flag
  cannot loop either;
- when the `stop-check` rule is turned off ([rules] disable, JOUET_RULES_DISABLE);
- when the harness reported none of the session's shell calls after they ran (Codex runs no
  after-tool hook for most shell commands): its test runs cannot be known.

"The session changed files" is read from the tree recorded when the session started (a
session-start line), and without one from the session's own calls: an edit, or a shell command
other than the ones that only read.

Rules take part through the same decision: a rule with `on = "stop"` sees the stop as a call
(tool "stop") and may deny (hold) or warn. When the agent may not be held again (the harness's
flag, or MAX_HOLDS), a stop rule's deny is a warning.
"""

from __future__ import annotations

import os
import time

from jouet_git import ledger
from jouet_git.engine.decide import Decision, Finding
from jouet_git.probes.ledger import MANUAL

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jouet_git.call import Call
    from jouet_git.engine.runner import Runner

RULE = "stop-check"
MAX_HOLDS = 2
BUDGET = 1.0  # seconds to hash the work tree and read the ledger (times JOUET_BUDGET_SCALE)
KINDS = ("test", "lint", "build")
TOOL_EVENTS = ("pre-tool-use", "post-tool-use")
# Programs that only read: a session that ran only these changed nothing.
_READERS = frozenset({
    "ls", "cat", "head", "tail", "less", "more", "grep", "rg", "egrep", "fgrep", "find", "fd", "pwd", "echo",
    "printf", "wc", "sort", "uniq", "diff", "stat", "file", "which", "type", "env", "printenv", "date",
    "true", "false", "test", "[", "tree", "du", "df", "jq", "sed -n", "awk", "cd", "nl", "cut", "tr",
    "basename", "dirname", "realpath", "readlink", "id", "whoami", "uname", "hostname", "sleep", "jouet",
})
_GIT_READERS = frozenset({"status", "log", "diff", "show", "branch", "rev-parse", "remote", "ls-files", "blame",
                          "describe", "fetch", "config", "grep", "shortlog", "reflog", "worktree"})


class Seen:
    """What the ledger says about one session in one work tree."""

    __slots__ = ("active", "changed_by_calls", "held", "newest", "passing_test", "shell_after", "shell_before",
                 "start_tree")

    def __init__(self) -> None:
        self.active = False  # the session made a tool call in this work tree
        self.shell_before = 0  # its shell calls seen before the tool ran
        self.shell_after = 0  # ... and after: none at all means the harness does not report them
        self.changed_by_calls = False  # ... and one of them may have changed files
        self.held = 0  # stops held for this session and agent with the tree as it is now
        self.newest: dict[str, dict[str, Any]] = {}  # kind -> its newest recorded run
        self.passing_test: dict[str, Any] | None = None
        self.start_tree: str | None = None


def check(runner: Runner, call: Call, stop_active: bool) -> tuple[Decision, dict[str, Any]]:
    """The stop decision for CALL (a deny holds the agent) and the extra fields of its ledger line."""
    from jouet_git import budgets, gitdir

    deadline = time.monotonic() + BUDGET * budgets.scale()
    root = gitdir.find_root(call.cwd)
    ruleset = runner.ruleset(call.cwd)
    disabled = ruleset.disabled_now()
    extra: dict[str, Any] = {"tree": None}
    hold: Finding | None = None
    may_hold = not stop_active
    note = "the harness says the agent already continues after a stop hook" if stop_active else ""
    if root is not None and RULE not in disabled and "all" not in disabled:
        tree = tree_now(call, deadline)
        extra["tree"] = tree
        seen = read(call, ledger.root_hash(root), root, tree, deadline)
        blind = bool(seen.shell_before) and not seen.shell_after
        if may_hold and seen.held >= MAX_HOLDS:
            may_hold = False
            note = f"it was held {seen.held} times already with nothing changed"
        elif may_hold and blind:
            # Codex, say: its shell calls come without an after-tool event, so no run of theirs is known.
            note = "the harness reported none of the session's shell calls after they ran, so its test runs are unknown"
        if may_hold and not blind:
            message = reason(seen, root, tree)
            if message is not None:
                hold = Finding(RULE, "deny", message, source_label="builtin")
    # Rules with `on = "stop"`.
    decision = runner.decide(call)
    if not may_hold and decision.deny is not None:
        decision.warnings.insert(0, Finding(decision.deny.rule, "warn", decision.deny.message,
                                            source_label=decision.deny.source_label))
        decision.deny = None
    if hold is not None:
        decision.deny = hold
    if decision.deny is not None:
        extra["reason"] = decision.deny.message if ledger.store_content() or hold is not None else None
    if note:
        extra["note"] = note
    return decision, extra


def tree_now(call: Call, deadline: float) -> str | None:
    """jouet.git.tree() of the work tree the agent stops in, or None when it cannot be had in time."""
    from jouet_git.probes.core import Probes

    probes = Probes(call.cwd, call, budget=max(0.05, deadline - time.monotonic()))
    tree, _reason = probes.git_tree()
    return tree if isinstance(tree, str) else None


def read(call: Call, wt: str | None, root: str, tree: str | None, deadline: float) -> Seen:
    """What the ledger says about CALL's session in the work tree WT, newest first."""
    seen = Seen()
    # Only lines about this work tree name its hash: the others are skipped without being parsed.
    needle = wt.encode("ascii") if wt else None
    for line in ledger.backwards(ledger.MAX_BYTES, deadline, needle):
        same_session = call.session is not None and line.get("session") == call.session
        event = line.get("event")
        if same_session and line.get("wt") == wt:
            if event in TOOL_EVENTS:
                seen.active = True
                if line.get("kind") == "shell":
                    if event == "pre-tool-use":
                        seen.shell_before += 1
                    else:
                        seen.shell_after += 1
                if not seen.changed_by_calls and may_change(line, root):
                    seen.changed_by_calls = True
            elif event == "session-start" and seen.start_tree is None:
                seen.start_tree = line.get("tree") if isinstance(line.get("tree"), str) else None
            elif event == "stop" and line.get("agent") == call.agent and line.get("decision") == "deny" \
                    and tree is not None and line.get("tree") == tree:
                seen.held += 1
        records = line.get("records")
        if isinstance(records, list) and line.get("harness") not in MANUAL:
            for record in reversed(records):
                if not isinstance(record, dict) or record.get("wt") != wt or record.get("kind") not in KINDS:
                    continue
                run = {**record, "ts": line.get("ts")}
                seen.newest.setdefault(record["kind"], run)
                if seen.passing_test is None and record["kind"] == "test" and record.get("ok"):
                    seen.passing_test = run
    return seen


def may_change(line: dict[str, Any], root: str) -> bool:
    """Whether a call the ledger recorded may have changed files in the work tree at ROOT."""
    kind = line.get("kind")
    if kind == "edit":
        path = line.get("path")
        if isinstance(path, str) and os.path.isabs(path):
            return path == root or path.startswith(root.rstrip("/") + "/")
        return True
    if kind != "shell":
        return False
    if line.get("event") != "pre-tool-use":
        return False  # the same call's pre-tool line says it
    shape = line.get("shape")
    if not isinstance(shape, str) or not shape:
        return True
    for part in shape.split(" ; "):
        words = part.split()
        if not words:
            continue
        program = words[0]
        if program == "git":
            if len(words) < 2 or words[1] not in _GIT_READERS:
                return True
        elif program == "sed":
            if "-n" not in words or "-i" in words:
                return True
        elif program not in _READERS:
            return True
    return False


def reason(seen: Seen, root: str, tree: str | None) -> str | None:
    """Why the agent must go on, naming the command to run; None when it may stop."""
    if not seen.active:
        return None
    for kind in KINDS:
        run = seen.newest.get(kind)
        if kind == "build" and run is not None and seen.passing_test is not None \
                and (seen.passing_test.get("ts") or 0) >= (run.get("ts") or 0):
            continue  # the tests passed since, and building them built the code
        if run is not None and not run.get("ok"):
            command = shown(run)
            return (f"The last {kind} run in this repository failed (`{command}` exited {run.get('exit_code')}). "
                    f"Fix what it reports and run `{command}` again, until it passes, before you finish.")
    changed = (seen.start_tree != tree) if seen.start_tree is not None else seen.changed_by_calls
    passing = seen.passing_test
    if passing is not None:
        if tree is not None and isinstance(passing.get("tree"), str) and passing["tree"] != tree and changed:
            command = shown(passing)
            return (f"Files in this repository changed since the last passing test run (`{command}`). "
                    f"Run `{command}` again, or the tests that cover what you changed, before you finish.")
        return None
    if seen.newest.get("test") is None and changed:
        suggested = test_command(root)
        if suggested is not None:
            return (f"You changed files in this repository and no test run is recorded since. "
                    f"Run `{suggested}` before you finish.")
    return None


def shown(run: dict[str, Any]) -> str:
    """The command a run was recorded for: its text, else its shape (content not stored)."""
    command = run.get("command")
    if isinstance(command, str) and command:
        return command
    shape = run.get("shape")
    return shape if isinstance(shape, str) and shape else "the tests"


# --- a test setup jouet recognises -------------------------------------------------------------------


def test_command(root: str) -> str | None:
    """The command that runs the tests of the project at ROOT, by the files it has; None if unknown."""
    def has(name: str) -> bool:
        return os.path.isfile(os.path.join(root, name))

    def text(name: str) -> str:
        try:
            with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
                return f.read(256 * 1024)
        except OSError:
            return ""

    if has("pytest.ini") or has("conftest.py") or "[tool.pytest" in text("pyproject.toml") \
            or "[tool:pytest]" in text("setup.cfg") or "[pytest]" in text("tox.ini") or _has_python_tests(root):
        return "pytest"
    if has("tox.ini"):
        return "tox"
    if has("noxfile.py"):
        return "nox"
    if has("Cargo.toml"):
        return "cargo test"
    if has("go.mod"):
        return "go test ./..."
    if has("package.json"):
        script = _package_test_script(text("package.json"))
        if script:
            if has("pnpm-lock.yaml"):
                return "pnpm test"
            if has("yarn.lock"):
                return "yarn test"
            if has("bun.lockb") or has("bun.lock"):
                return "bun run test"
            return "npm test"
    for name in ("mise.toml", ".mise.toml", os.path.join(".config", "mise.toml")):
        if "[tasks.test]" in text(name) or '[tasks."test"]' in text(name):
            return "mise run test"
    for name in ("Makefile", "makefile", "GNUmakefile"):
        body = text(name)
        for target in ("test", "check"):
            if any(line.startswith(f"{target}:") for line in body.splitlines()):
                return f"make {target}"
    return None


def _has_python_tests(root: str) -> bool:
    for directory in ("tests", "test"):
        try:
            names = os.listdir(os.path.join(root, directory))
        except OSError:
            continue
        if any(n.startswith("test_") and n.endswith(".py") for n in names):
            return True
    return False


def _package_test_script(text: str) -> str | None:
    import json

    try:
        data = json.loads(text) if text else None
    except ValueError:
        return None
    scripts = data.get("scripts") if isinstance(data, dict) else None
    test = scripts.get("test") if isinstance(scripts, dict) else None
    if not isinstance(test, str) or "no test specified" in test:
        return None
    return test


def session_started(runner: Runner, call: Call) -> None:
    """Record the work tree's hash as a session starts, so the stop check can tell what it changed."""
    from jouet_git import budgets, gitdir

    root = gitdir.find_root(call.cwd)
    if root is None or call.session is None:
        return
    tree = tree_now(call, time.monotonic() + BUDGET * budgets.scale())
    runner.record(call, Decision(), {"tree": tree})
