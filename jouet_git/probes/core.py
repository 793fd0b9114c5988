"""The probes a rule's script asks about the repository: one Probes object per hook call.

    p = Probes(cwd, call)
    p.begin_check()                  # a rule's check starts: 200 ms for the probes it asks
    state, reason = p.git_state()    # (value, None), or (None, "why there is no value")

Every probe only reads. git runs with GIT_OPTIONAL_LOCKS=0 (so it never takes the index lock the
agent's own git needs) and GIT_TERMINAL_PROMPT=0. A probe's answer is kept for the rest of the
object's life, so asking twice runs nothing. The probes one check asks share a budget of 200 ms; a
git process still running when it is spent is killed, and the probe answers nil and "out of time:
...". Such an answer is not kept, so the next check, with a fresh budget, asks again. Secret scans
have a budget of their own (5 s per hook call), since they run only on commits and pushes.

Values are plain data (dicts, lists, str, int, bool) that convert to Lua tables. Bad arguments, such
as an unknown scope or an environment variable off the allowlist, raise ProbeError: that is a bug in
the script, not a state of the repository.

The hook imports this module: it imports only os, sys and time at the top; subprocess and the
modules behind each probe are imported when a probe first needs them.
"""

from __future__ import annotations

import os
import time

from jouet_git import budgets

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from jouet_git.call import Call
    from jouet_git.claims.repo import Repo

    Answer = tuple[Any, str | None]

BUDGET = budgets.PROBES  # seconds the probes of one check share (times JOUET_BUDGET_SCALE)
NOT_A_REPO = "not in a git repository"


class ProbeError(Exception):
    """A script asked a probe something it cannot answer by design (a bug in the script)."""


class OutOfTime(Exception):
    """The probes' budget ran out before a probe could answer."""


class Probes:
    """The read-only probes of one hook call, cached and budgeted.

    cwd is the call's directory; call, when given, is the jouet_git.call.Call the probes answer for
    (a git pre-push call's input names the commits it sends). budget is the seconds each check's
    probes share (200 ms; a benchmark or test may pass another). git_processes counts the git
    processes these probes started, those of secret scans included.
    """

    __slots__ = (
        "_cache", "_deadline", "_env", "_repos", "_secrets_deadline_at", "budget", "call", "cwd",
        "git_processes",
    )

    def __init__(self, cwd: str, call: Call | None = None, budget: float | None = None) -> None:
        self.cwd = os.path.abspath(cwd)
        self.call = call
        self.budget = budgets.probes() if budget is None else budget
        self.git_processes = 0
        self._cache: dict[tuple[Any, ...], Answer] = {}
        self._repos: dict[str, Repo | None] = {}
        self._env: dict[str, str] | None = None
        self._deadline = time.monotonic() + self.budget
        # When the secret scans of this call must have ended (budgets.secrets() from the first).
        self._secrets_deadline_at: float | None = None

    # -- budget -----------------------------------------------------------------------------------

    def begin_check(self) -> None:
        """A rule's check starts: its probes get a fresh budget (200 ms) between them."""
        self._deadline = time.monotonic() + self.budget

    def spend_all(self) -> None:
        """Use up what is left of the current check's budget (for tests and for callers that ran out)."""
        self._deadline = time.monotonic()

    def remaining(self) -> float:
        """Seconds left of the current check's budget (zero or less once it is spent)."""
        return self._deadline - time.monotonic()

    # -- running git ------------------------------------------------------------------------------

    def run_git(self, args: list[str], cwd: str) -> tuple[int, bytes, bytes]:
        """Run `git ARGS` in CWD within what is left of the budget: (exit code, stdout, stderr).

        Raises OutOfTime, without starting git, when the budget is already spent, and after killing
        git (and anything it started) when it does not finish in time.
        """
        left = self.remaining()
        if left <= 0:
            spent = f"no time was left of the probes' {self.budget * 1000:.0f} ms"
            raise OutOfTime(f"{spent} to run git {args[0]}")
        from jouet_git import gitrun

        self.git_processes += 1
        try:
            result = gitrun.git(args, cwd, timeout=left, env=self._git_env(cwd))
        except gitrun.Timeout:
            raise OutOfTime(
                f"git {args[0]} did not answer within the probes' {self.budget * 1000:.0f} ms and was stopped"
            ) from None
        return result.code, result.stdout, result.stderr

    def _git_env(self, cwd: str) -> dict[str, str]:
        if self._env is None:
            from jouet_git import gitrun

            self._env = gitrun.git_env(keep_repo=True)
        own = self.repo_at(self.cwd)
        other = self.repo_at(cwd)
        if own is not None and other is not None and own.root == other.root:
            return self._env
        from jouet_git.gitrun import REPO_VARIABLES

        return {k: v for k, v in self._env.items() if k not in REPO_VARIABLES}

    # -- where ------------------------------------------------------------------------------------

    def resolve(self, path: str) -> str:
        """PATH from the call's directory, with a leading `~` or `$HOME` read as the home directory."""
        from jouet_git.probes.files import resolve

        return resolve(path, self.cwd)

    def repo_at(self, directory: str) -> Repo | None:
        """The work tree holding DIRECTORY (read from files, no process), or None outside one."""
        if directory not in self._repos:
            from jouet_git.gitdir import find

            self._repos[directory] = find(directory)
        return self._repos[directory]

    def _locate(self, dir: str | None) -> tuple[Repo | None, str | None]:
        """The repository the probe asks about: the call's, or the one at DIR."""
        if dir is not None and not isinstance(dir, str):
            raise ProbeError(f"dir must be a string, not {type(dir).__name__}")
        where = self.cwd if not dir else self.resolve(dir)
        if not os.path.isdir(where):
            return None, f"no such directory: {where}"
        repo = self.repo_at(where)
        if repo is None:
            return None, NOT_A_REPO
        return repo, None

    def _answer(self, key: tuple[Any, ...], compute: Callable[[], Answer]) -> Answer:
        """KEY's cached answer, or COMPUTE's, kept unless it ran out of time."""
        if key in self._cache:
            return self._cache[key]
        if self.remaining() <= 0:
            spent = f"the probes' {self.budget * 1000:.0f} ms for this check were spent"
            return None, f"out of time: {spent} before {key[0]} ran"
        try:
            answer = compute()
        except OutOfTime as error:
            return None, f"out of time: {error}"
        self._cache[key] = answer
        return answer

    # -- git --------------------------------------------------------------------------------------

    def git_state(self, dir: str | None = None) -> Answer:
        """Branch, head, upstream, ahead/behind and how many files are changed, untracked, conflicted."""
        repo, reason = self._locate(dir)
        if repo is None:
            return None, reason

        def compute() -> Answer:
            from jouet_git.probes import git

            return git.state(self, repo.root)

        return self._answer(("git.state", repo.root), compute)

    def git_tree(self, dir: str | None = None) -> Answer:
        """A hash of the work tree's content: what committing all of it (untracked too) would record."""
        repo, reason = self._locate(dir)
        if repo is None:
            return None, reason

        def compute() -> Answer:
            from jouet_git.probes import tree

            return tree.tree(self, repo)

        return self._answer(("git.tree", repo.root), compute)

    def git_changed(self, scope: str = "staged", dir: str | None = None) -> Answer:
        """The absolute paths a commit would take: staged ones, or ("tracked") as `git commit -a`, or
        the unmerged ones ("conflicted"); in the call's repository, or the one at DIR."""
        from jouet_git.probes.checks import changed_scope

        scope = changed_scope(scope)
        repo, reason = self._locate(dir)
        if repo is None:
            return None, reason

        def compute() -> Answer:
            from jouet_git.probes import git

            return git.changed(self, repo.root, scope)

        return self._answer(("git.changed", repo.root, scope), compute)

    def git_ahead(self, branch: str, of: str, dir: str | None = None) -> Answer:
        """How many commits of local BRANCH are not in OF; nil when there is no such local branch."""
        from jouet_git.probes.checks import revision

        revision("branch", branch)
        revision("of", of)
        repo, reason = self._locate(dir)
        if repo is None:
            return None, reason

        def compute() -> Answer:
            from jouet_git.probes import git

            return git.ahead(self, repo.root, branch, of)

        return self._answer(("git.ahead", repo.root, branch, of), compute)

    def git_lost(self, ref: str, keep: list[str] | None = None, dir: str | None = None) -> Answer:
        """Commits of REF no other ref holds and KEEP neither holds nor carries a rewritten copy of."""
        from jouet_git.probes.checks import revision, revision_list

        revision("ref", ref)
        kept = revision_list("keep", keep)
        repo, reason = self._locate(dir)
        if repo is None:
            return None, reason

        def compute() -> Answer:
            from jouet_git.probes import git

            return git.lost(self, repo.root, ref, kept)

        return self._answer(("git.lost", repo.root, ref, tuple(kept)), compute)

    def git_reflog_only(self, refs: list[str] | None = None, dir: str | None = None,
                        rewrite: bool | None = None) -> Answer:
        """How many commits only reflog entries keep: of every reflog (nil), or of REFS (reflogs or
        single entries; REWRITE as `git reflog delete --rewrite` does)."""
        from jouet_git.probes.checks import revision_list

        wanted = None if refs is None else revision_list("refs", refs)
        repo, reason = self._locate(dir)
        if repo is None:
            return None, reason

        def compute() -> Answer:
            from jouet_git.probes import git

            return git.reflog_only(self, repo, wanted, bool(rewrite))

        key = ("git.reflog_only", repo.root, None if wanted is None else tuple(wanted), bool(rewrite))
        return self._answer(key, compute)

    def git_unreachable(self, dir: str | None = None) -> Answer:
        """How many commits nothing reaches, not even a reflog: what `git prune` deletes."""
        repo, reason = self._locate(dir)
        if repo is None:
            return None, reason

        def compute() -> Answer:
            from jouet_git.probes import git

            return git.unreachable(self, repo.root)

        return self._answer(("git.unreachable", repo.root), compute)

    def git_editor(self, dir: str | None = None) -> Answer:
        """The editor git would start for a message, and for a rebase's todo list (probes/editor.py)."""
        repo, reason = self._locate(dir)
        if repo is None:
            return None, reason

        def compute() -> Answer:
            from jouet_git.probes import editor

            return editor.editor(self, repo)

        return self._answer(("git.editor", repo.root), compute)

    # -- the repository, files, environment ---------------------------------------------------------

    def repo(self, dir: str | None = None) -> Answer:
        """The work tree's root, whether it is a linked worktree, and its GitHub owner/name (of the
        call's repository, or the one at DIR)."""
        found, reason = self._locate(dir)
        if found is None:
            return None, reason

        def compute() -> Answer:
            from jouet_git.probes import repo

            return repo.describe(found), None

        return self._answer(("repo", found.root), compute)

    def file_contains(self, path: str, text: str) -> Answer:
        """Whether the file at PATH holds TEXT: true or false, never its content."""
        from jouet_git.probes.checks import string

        string("path", path)
        string("text", text)
        target = self.resolve(path)

        repo = self.repo_at(self.cwd)
        base = repo.root if repo is not None else self.cwd

        def compute() -> Answer:
            from jouet_git.probes import files

            return files.contains(target, text, base)

        return self._answer(("file.contains", target, text), compute)

    def guarded(self, path: Any, how: Any, removes: Any = None, key: Any = None) -> Answer:
        """Whether writing PATH (HOW: a `how` from jouet.writes, or "edit" for this file tool's call)
        would switch jouet off: {kind, path, what}, or nil (jouet_git/guarded.py)."""
        from jouet_git import guarded

        return guarded.probe(guarded.View.here(self.cwd), self.call, path, how, removes, key)

    def fnox_config(self) -> Answer:
        """The fnox project around the call's directory: its root, the names its config defines as
        secrets, and the files its plain providers read them from (jouet_git/fnox.py)."""
        from jouet_git import fnox

        config = fnox.find(self.cwd)
        if config is None:
            return None, "not in a fnox project (no fnox.toml, .fnox.toml or .config/fnox.toml here or above)"
        return {"root": config.root, "secrets": sorted(config.secrets), "files": sorted(config.secret_files)}, None

    def fnox_reads(self, path: str) -> Answer:
        """Whether a fnox plain provider of this project reads secrets from the file at PATH."""
        from jouet_git import fnox
        from jouet_git.probes.checks import string

        string("path", path)
        config = fnox.find(self.cwd)
        if config is None:
            return None, "not in a fnox project (no fnox.toml, .fnox.toml or .config/fnox.toml here or above)"
        return config.has_file(self.resolve(path), self.cwd), None

    def env(self, name: str) -> Answer:
        """An environment variable on the allowlist; ProbeError for any other name."""
        from jouet_git.probes import envvars

        envvars.check(name)
        value = os.environ.get(name)
        if value is None:
            return None, f"{name} is not set"
        return value, None

    # -- the ledger: sessions and recorded checks ------------------------------------------------------

    def session_fired(self, rule: str, session: str | None = None, agent: str | None = None) -> Answer:
        """How many earlier calls by AGENT in SESSION the rule RULE denied or warned about."""
        from jouet_git.probes.checks import optional_string, string

        string("rule", rule)
        optional_string("session", session)
        optional_string("agent", agent)

        def compute() -> Answer:
            from jouet_git.probes import ledger

            return ledger.fired(rule, session, agent, self._deadline)

        return self._answer(("session.fired", rule, session, agent), compute)

    def ci_last_run(self, kind: str | None = None, scope: str | None = None, dir: str | None = None) -> Answer:
        """The newest test, lint or build run the hooks recorded in this work tree (or the one at DIR)."""
        from jouet_git.probes.checks import run_kind, run_scope

        kind = run_kind(kind)
        scope = run_scope(scope)
        repo, reason = self._locate(dir)
        if repo is None:
            return None, reason

        def compute() -> Answer:
            from jouet_git import ledger as store
            from jouet_git.probes import ledger

            return ledger.last_run(store.root_hash(repo.root), kind, scope, self._deadline)

        return self._answer(("ci.last_run", kind, scope, repo.root), compute)

    def record_place(self, dir: str | None = None) -> tuple[str | None, str | None]:
        """For jouet.record: the tree hash of the work tree a run was in, and its root's hash."""
        repo, _reason = self._locate(dir)
        if repo is None:
            return None, None
        from jouet_git import ledger

        tree, _why = self.git_tree(dir)
        return (tree if isinstance(tree, str) else None), ledger.root_hash(repo.root)

    # -- stacks, secrets, claims -----------------------------------------------------------------------

    def stack_layer(self) -> Answer:
        """The current branch's place in a gh-stack (or git-town) stack."""
        repo, reason = self._locate(None)
        if repo is None:
            return None, reason

        def compute() -> Answer:
            from jouet_git.probes import stack

            return stack.layer(self, repo)

        return self._answer(("stack.layer", repo.root), compute)

    def secrets_scan(self, scope: str | None = None, paths: list[str] | None = None,
                     dir: str | None = None) -> Answer:
        """What gitleaks' rules find in the lines a commit or push would add (never the secret).

        DIR (from the call's directory, or under ~) is where the commit or push runs, for a command
        after a `cd` or with `git -C`; PATHS are then read from there, as git reads pathspecs.
        """
        from jouet_git.probes.checks import path_list, secrets_scope

        scope = secrets_scope(scope)
        wanted = None if paths is None else path_list(paths)
        if dir is not None and not isinstance(dir, str):
            raise ProbeError(f"dir must be a string, not {type(dir).__name__}")
        where = self.cwd if not dir else self.resolve(dir)
        if not os.path.isdir(where):
            return None, f"no such directory: {where}"
        if self.repo_at(where) is None:  # known without starting git (or gitleaks)
            return None, NOT_A_REPO
        key = ("secrets.scan", scope, None if wanted is None else tuple(wanted), where)
        if key in self._cache:
            return self._cache[key]
        now = time.monotonic()
        if self._secrets_deadline <= now:
            return None, f"out of time: the secret scans' {budgets.secrets():g} s for this call were spent"
        from jouet_git import gitrun
        from jouet_git.probes import secrets

        pushed = self._pushed() if scope == "outgoing" else None
        before = gitrun.COUNTS.get("git", 0)
        try:
            if pushed is None:
                answer = secrets.scan(where, scope, wanted, deadline=self._secrets_deadline)
            else:
                answer = secrets.scan(where, scope, wanted, deadline=self._secrets_deadline, range=pushed)
        finally:
            self.git_processes += gitrun.COUNTS.get("git", 0) - before
        findings, reason = answer
        if findings is None and (time.monotonic() >= self._secrets_deadline or "budget" in (reason or "")):
            return None, f"out of time: {reason}"
        self._cache[key] = answer
        return answer

    @property
    def _secrets_deadline(self) -> float:
        if self._secrets_deadline_at is None:
            self._secrets_deadline_at = time.monotonic() + budgets.secrets()
        return self._secrets_deadline_at

    def secrets_read_ahead(self, scope: str) -> None:
        """Begin the scan secrets_scan(SCOPE) would run in the call's own directory, for a script
        about to ask for it (jouet_git/engine/read_ahead.py): its git runs start now, beside the Lua
        VM's start. secrets_scan() with those very arguments takes them over; see secrets.read_ahead."""
        if self.repo_at(self.cwd) is None:
            return
        from jouet_git import gitrun
        from jouet_git.probes import secrets

        before = gitrun.COUNTS.get("git", 0)
        try:
            secrets.read_ahead(self.cwd, scope, self._secrets_deadline, self._pushed() if scope == "outgoing" else None)
        finally:
            self.git_processes += gitrun.COUNTS.get("git", 0) - before

    def _pushed(self) -> list[tuple[str, str]] | None:
        """For a git pre-push call, the (remote oid, local oid) pairs naming exactly what it sends."""
        call = self.call
        if call is None or not isinstance(call.input, dict) or call.input.get("hook") != "pre-push":
            return None
        from jouet_git.probes.checks import push_pairs

        return push_pairs(call.input)

    def claims_held(self, paths: list[str]) -> Answer:
        """The live claims of any session that cover PATHS; nil outside a repository."""
        from jouet_git.probes.checks import path_list

        wanted = path_list(paths)

        def compute() -> Answer:
            from jouet_git.claims.probe import held

            found = held(wanted, self.cwd)
            if found is None:
                return None, NOT_A_REPO
            return found, None

        return self._answer(("claims.held", tuple(wanted)), compute)
