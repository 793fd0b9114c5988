"""The probes as a rule's examples see them: answered only by the example's own keys.

Examples must give the same answer on every machine, so nothing here reads the repository, the
filesystem or the environment. An example answers a probe through one of its keys:

    git      jouet.git.state() (dirty, false if omitted; branch, detached if omitted; the counts
             staged, unstaged, ignored and stashes, left out when omitted or zero),
             jouet.git.ahead() (its `ahead`, whatever branch is asked about; or a table of
             counts by the `of` asked about, such as { "origin/main" = 3, "*" = 0 }) and
             jouet.git.changed() (its `files`: one list for every scope, or a table of lists
             by scope, { staged = [...], tracked = [...] }, where a scope left out has none),
             jouet.git.lost() (its `lost`; or a table of counts by the ref asked about),
             jouet.git.reflog_only() (its `reflog_only`), jouet.git.unreachable() (its
             `unreachable`) and jouet.git.editor() (its `editor`, `sequence_editor` and
             `in_progress`; an example with `git` but no `editor` is one where git would refuse to
             start an editor)
    claims   jouet.claims.held(): each claim's pattern and session, optionally worktree
             ("/elsewhere" if omitted), branch and note
    stack    jouet.stack.layer(): branch, parent, parent_merged, trunk ("main" if omitted)
    secrets  jouet.secrets.scan(): findings with rule, path, line (and commit for "outgoing")
    files    jouet.file.contains(): the text of each file, by the exact path the script passes
    fnox     jouet.fnox.config() and jouet.fnox.reads(): the names the project's fnox config
             defines as secrets (`secrets`) and the files its plain providers read (`files`,
             from the example's directory); without it, the call is not in a fnox project
    fired    jouet.session.fired(): how many earlier calls the rule spoke up on in the session, as a
             number for any rule, or a table of numbers by rule name (a rule left out: 0)
    runs     jouet.ci.last_run(): the recorded runs, newest first, each with kind (test if
             omitted), ok (true if omitted), scope (partial if omitted), and optionally selector,
             exit_code, tree, shape and harness; the newest one of the kind and scope asked wins

Any other probe, or one whose key the example leaves out, answers nil and a reason. Arguments are
checked as the real probes check them, so a script that passes a bad scope or asks for an
environment variable off the allowlist fails in its examples too. Values have the same shape as
the real probes' values.
"""

from __future__ import annotations

import os

from jouet_git.probes.core import ProbeError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Answer = tuple[Any, str | None]

ELSEWHERE = "/elsewhere"  # the worktree of an example's claim that does not name one
DEFAULT_TRUNK = "main"
REDACTED = "REDACTED"


class ExampleProbes:
    """The probes of one example call; see the module docstring. git_processes is always 0."""

    __slots__ = ("call", "cwd", "example", "git_processes")

    def __init__(self, example: dict[str, Any], cwd: str, call: Any = None) -> None:
        self.example = example if isinstance(example, dict) else {}
        self.cwd = cwd
        self.git_processes = 0
        self.call = call  # the example's Call, for jouet.guarded (which asks what kind of tool it is)

    def begin_check(self) -> None:
        """Nothing to budget: examples answer from memory."""

    # -- git --------------------------------------------------------------------------------------

    def _git(self) -> dict[str, Any] | None:
        git = self.example.get("git")
        return git if isinstance(git, dict) else None

    def git_state(self, dir: str | None = None) -> Answer:
        _dir(dir)
        git = self._git()
        if git is None:
            return None, _no_key("git", "jouet.git.state()")
        dirty = bool(git.get("dirty", False))
        state: dict[str, Any] = {}
        for key in ("branch", "head", "upstream"):
            if isinstance(git.get(key), str):
                state[key] = git[key]
        if "upstream" in state:
            state["ahead"] = _count(git.get("ahead"))
            state["behind"] = _count(git.get("behind"))
        changed = _count(git.get("changed", 1 if dirty else 0))
        untracked = _count(git.get("untracked"))
        conflicted = _count(git.get("conflicted"))
        if dirty and not (changed or untracked or conflicted):
            changed = 1
        if not dirty:
            changed = untracked = conflicted = 0
        state.update(changed=changed, untracked=untracked, conflicted=conflicted, dirty=dirty)
        # Counts the real probe gives only when they are not zero; staged and unstaged need changes.
        for key in ("staged", "unstaged", "ignored", "stashes"):
            count = _count(git.get(key))
            if count and (dirty or key in ("ignored", "stashes")):
                state[key] = count
        return state, None

    def git_ahead(self, branch: str, of: str, dir: str | None = None) -> Answer:
        from jouet_git.probes.checks import revision

        revision("branch", branch)
        revision("of", of)
        _dir(dir)
        git = self._git()
        if git is None:
            return None, _no_key("git", "jouet.git.ahead()")
        ahead = git.get("ahead")
        if isinstance(ahead, dict):
            # Counts by the `of` asked about, so one example can answer two questions differently.
            if of not in ahead:
                return None, f"the example's `git.ahead` gives no count for {of!r}, so jouet.git.ahead() has none"
            ahead = ahead[of]
        if isinstance(ahead, bool) or not isinstance(ahead, int):
            return None, "the example's `git` gives no `ahead`, so jouet.git.ahead() has no answer"
        return ahead, None

    def git_lost(self, ref: str, keep: list[str] | None = None, dir: str | None = None) -> Answer:
        from jouet_git.probes.checks import revision, revision_list

        revision("ref", ref)
        revision_list("keep", keep)
        _dir(dir)
        return self._count("lost", "jouet.git.lost()", ref)

    def git_reflog_only(self, refs: list[str] | None = None, dir: str | None = None,
                        rewrite: bool | None = None) -> Answer:
        from jouet_git.probes.checks import revision_list

        if refs is not None:
            revision_list("refs", refs)
        _dir(dir)
        return self._count("reflog_only", "jouet.git.reflog_only()", None)

    def git_unreachable(self, dir: str | None = None) -> Answer:
        _dir(dir)
        return self._count("unreachable", "jouet.git.unreachable()", None)

    def _count(self, key: str, probe: str, by: str | None) -> Answer:
        """The example's count under `git.KEY`, or under `git.KEY[BY]` when it is a table."""
        git = self._git()
        if git is None:
            return None, _no_key("git", probe)
        value = git.get(key)
        if isinstance(value, dict) and by is not None:
            if by not in value:
                return None, f"the example's `git.{key}` gives no count for {by!r}, so {probe} has none"
            value = value[by]
        if isinstance(value, bool) or not isinstance(value, int):
            return None, f"the example's `git` gives no `{key}`, so {probe} has no answer"
        return value, None

    def git_editor(self, dir: str | None = None) -> Answer:
        """What the example's `git` says: `editor` (what git starts for a message; false when git would
        refuse to start one), and `sequence_editor` (for a rebase's todo list; the editor if omitted)."""
        _dir(dir)
        git = self._git()
        if git is None:
            return None, _no_key("git", "jouet.git.editor()")
        out: dict[str, Any] = {}
        if isinstance(git.get("editor"), str):
            out["editor"], out["from"] = git["editor"], "core.editor"
        if isinstance(git.get("sequence_editor"), str):
            out["sequence_editor"], out["sequence_from"] = git["sequence_editor"], "sequence.editor"
        elif "editor" in out:
            out["sequence_editor"], out["sequence_from"] = out["editor"], out["from"]
        if isinstance(git.get("in_progress"), str):
            out["in_progress"] = git["in_progress"]
        return out, None

    def git_tree(self, dir: str | None = None) -> Answer:
        _dir(dir)
        return None, _unanswered("jouet.git.tree()")

    def git_changed(self, scope: str = "staged", dir: str | None = None) -> Answer:
        from jouet_git.probes.checks import changed_scope

        scope = changed_scope(scope)
        _dir(dir)
        git = self._git()
        files = git.get("files") if git is not None else None
        if isinstance(files, dict):  # lists by scope; a scope left out has nothing changed
            files = files.get(scope, [])
        if not isinstance(files, list):
            return None, "examples answer jouet.git.changed() only through `git = { files = [...] }`"
        # Paths as the real probe gives them: absolute, from the example's directory.
        return [f if os.path.isabs(f) else os.path.join(self.cwd, f) for f in files if isinstance(f, str)], None

    # -- the repository, files, environment -------------------------------------------------------

    def repo(self, dir: str | None = None) -> Answer:
        _dir(dir)
        return None, _unanswered("jouet.repo()")

    def file_contains(self, path: str, text: str) -> Answer:
        from jouet_git.probes.checks import string

        string("path", path)
        string("text", text)
        files = self.example.get("files")
        # A file is given by the path the script passes, or (as the real probe reads a relative
        # path) by its path from the example's directory, whichever way the script names it.
        key = path if not isinstance(files, dict) or path in files else self._same_file(path, files)
        if not isinstance(files, dict) or key is None:
            return None, f"the example's `files` does not give {path!r}, so it cannot be read"
        content = files[key]
        if not isinstance(content, str):
            return None, f"the example's `files` gives {path!r} no text"
        return text in content, None

    def _same_file(self, path: str, files: dict[str, Any]) -> str | None:
        """The key of FILES naming PATH the other way (absolute or from the example's directory)."""
        full = os.path.normpath(os.path.join(self.cwd, path))
        for key in files:
            if isinstance(key, str) and not key.startswith("~") and \
                    os.path.normpath(os.path.join(self.cwd, key)) == full:
                return key
        return None

    def guarded(self, path: Any, how: Any, removes: Any = None, key: Any = None) -> Answer:
        """The real question asked of an invented machine (guarded.example_view): home /home/me,
        no variables, and only the example's `files`."""
        from jouet_git import guarded

        view = guarded.example_view(self.example.get("files"), self.cwd)
        return guarded.probe(view, self.call, path, how, removes, key)

    def _fnox(self) -> dict[str, Any] | None:
        given = self.example.get("fnox")
        return given if isinstance(given, dict) else None

    def fnox_config(self) -> Answer:
        from jouet_git.fnox import ALWAYS_SECRET

        given = self._fnox()
        if given is None:
            return None, "the example has no `fnox` key, so it is not in a fnox project"
        names = {n for n in given.get("secrets") or () if isinstance(n, str)} | set(ALWAYS_SECRET)
        files = {os.path.normpath(os.path.join(self.cwd, os.path.expanduser(f)))
                 for f in given.get("files") or () if isinstance(f, str)}
        return {"root": self.cwd, "secrets": sorted(names), "files": sorted(files)}, None

    def fnox_reads(self, path: str) -> Answer:
        from jouet_git.probes.checks import string

        string("path", path)
        config, reason = self.fnox_config()
        if config is None:
            return None, reason
        return os.path.normpath(os.path.join(self.cwd, os.path.expanduser(path))) in config["files"], None

    def env(self, name: str) -> Answer:
        from jouet_git.probes import envvars

        envvars.check(name)
        return None, f"examples do not read the environment, so {name} has no value"

    # -- stacks, secrets, claims ----------------------------------------------------------------------

    def stack_layer(self) -> Answer:
        stack = self.example.get("stack")
        if not isinstance(stack, dict):
            return None, _no_key("stack", "jouet.stack.layer()")
        trunk = stack.get("trunk") if isinstance(stack.get("trunk"), str) else DEFAULT_TRUNK
        layer: dict[str, Any] = {}
        if isinstance(stack.get("branch"), str):
            layer["branch"] = stack["branch"]
        layer["parent"] = stack["parent"] if isinstance(stack.get("parent"), str) else trunk
        layer["trunk"] = trunk
        layer["parent_merged"] = bool(stack.get("parent_merged", False))
        return layer, None

    def secrets_scan(self, scope: str | None = None, paths: list[str] | None = None,
                     dir: str | None = None) -> Answer:
        from jouet_git.probes.checks import path_list, secrets_scope

        scope = secrets_scope(scope)
        if paths is not None:
            path_list(paths)
        _dir(dir)
        found = self.example.get("secrets")
        if not isinstance(found, list):
            return None, _no_key("secrets", "jouet.secrets.scan()")
        findings = []
        for item in found:
            if not isinstance(item, dict):
                continue
            rule, path, line = item.get("rule"), item.get("path"), item.get("line")
            commit = item.get("commit") if scope == "outgoing" else None
            fingerprint = f"{path}:{rule}:{line}" if commit is None else f"{commit}:{path}:{rule}:{line}"
            findings.append({
                "rule": rule, "path": path, "line": line, "commit": commit,
                "match": item.get("match", REDACTED), "fingerprint": fingerprint,
            })
        return findings, None

    def claims_held(self, paths: list[str]) -> Answer:
        from jouet_git.probes.checks import path_list

        wanted = path_list(paths)
        claims = self.example.get("claims")
        if not isinstance(claims, list):
            return None, _no_key("claims", "jouet.claims.held()")
        return held(claims, wanted, self.cwd), None


    # -- the ledger ----------------------------------------------------------------------------------

    def session_fired(self, rule: str, session: str | None = None, agent: str | None = None) -> Answer:
        from jouet_git.probes.checks import optional_string, string

        string("rule", rule)
        optional_string("session", session)
        optional_string("agent", agent)
        fired = self.example.get("fired")
        if isinstance(fired, dict):
            fired = fired.get(rule, 0)
        if fired is None:
            return None, _no_key("fired", "jouet.session.fired()")
        return _count(fired), None

    def ci_last_run(self, kind: str | None = None, scope: str | None = None, dir: str | None = None) -> Answer:
        from jouet_git.probes.checks import run_kind, run_scope

        kind = run_kind(kind)
        scope = run_scope(scope)
        _dir(dir)
        found = self.example.get("runs")
        if not isinstance(found, list):
            return None, _no_key("runs", "jouet.ci.last_run()")
        for item in found:
            if not isinstance(item, dict):
                continue
            run = {"kind": item.get("kind", "test"), "rule": item.get("rule", "checks"),
                   "ok": bool(item.get("ok", True)), "scope": item.get("scope", "partial")}
            for key in ("selector", "exit_code", "tree", "shape", "harness", "command"):
                if item.get(key) is not None:
                    run[key] = item[key]
            if "exit_code" not in run:
                run["exit_code"] = 0 if run["ok"] else 1
            if (kind is None or run["kind"] == kind) and (scope is None or run["scope"] == scope):
                return run, None
        return None, "the example's `runs` holds no run of that kind and scope"

    def record_place(self, dir: str | None = None) -> tuple[str | None, str | None]:
        """Examples record runs without a work tree: no tree, no root."""
        return None, None


def held(claims: list[Any], paths: list[str], cwd: str) -> list[dict[str, Any]]:
    """What the claims probe would find for PATHS if CLAIMS were live, with CWD as the work tree's
    root: one dict per (path, claim) that overlap, shaped as jouet_git.claims.probe.held() shapes them."""
    from jouet_git.claims import patterns

    root = os.path.normpath(cwd)
    live = []
    for claim in claims:
        if not isinstance(claim, dict) or not isinstance(claim.get("pattern"), str):
            raise ProbeError("each of the example's `claims` needs a `pattern` (and a `session`)")
        try:
            live.append((patterns.normalize(claim["pattern"]), claim))
        except patterns.PatternError as error:
            shown = claim["pattern"]
            raise ProbeError(f"the example's claim pattern {shown!r} is not a claim: {error}") from None
    from jouet_git.claims.probe import covering

    return covering([_relative(text, root) if text else None for text in paths], [(pattern, {
        "session": claim.get("session"), "harness": claim.get("harness"),
        "worktree": claim.get("worktree", ELSEWHERE), "branch": claim.get("branch"), "note": claim.get("note"),
        "expires_at": claim.get("expires_at"), "machine": None,
    }) for pattern, claim in live])


def _relative(path: str, root: str) -> str | None:
    """PATH (absolute, or relative to ROOT) relative to ROOT, read lexically; None outside ROOT."""
    trailing = "/" if path.endswith("/") else ""
    full = os.path.normpath(os.path.join(root, path))
    if full == root:
        return ""
    prefix = root.rstrip("/") + "/"
    if not full.startswith(prefix):
        return None
    return full[len(prefix):] + trailing


def _dir(dir: Any) -> None:
    if dir is not None and not isinstance(dir, str):
        raise ProbeError(f"dir must be a string, not {type(dir).__name__}")


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _no_key(key: str, probe: str) -> str:
    if key == "git":
        return f"examples answer git probes only through the `git` key, which this example omits: {probe}"
    return f"examples answer {probe} only through the `{key}` key, which this example omits"


def _unanswered(probe: str) -> str:
    return f"examples run without probes, and no example key answers {probe}"

