"""What the git rule tests share: repositories in known states, and `jouet hook claude pre` asked
about one command in them. It holds no tests of its own."""

from __future__ import annotations

import json
import os
from pathlib import Path

from jouet_git import journal
from testing import claude_payload, git, make_repo, run_jouet


def commit(repo: Path, name: str, text: str, message: str | None = None) -> str:
    """Write NAME with TEXT, commit it, and return the new commit's id."""
    target = repo / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", message or f"change {name}")
    return head(repo)


def head(repo: Path, rev: str = "HEAD") -> str:
    return git(repo, "rev-parse", rev).strip()


def with_remote(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    """A repository `work` whose main is pushed to a local bare remote `origin`, and tracks it."""
    repo = make_repo(tmp_path / "work", files or {"README.md": "hello\n", "src/app.py": "x = 1\n"})
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "-u", "origin", "main")
    return repo


def other_clone(tmp_path: Path, name: str = "other") -> Path:
    """A second clone of the remote `with_remote` made, as another person's machine."""
    clone = tmp_path / name
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(clone))
    return clone


class Verdict:
    """What the hook answered: the rule that denied (None when it said nothing) and its reason."""

    __slots__ = ("reason", "rule")

    def __init__(self, rule: str | None, reason: str) -> None:
        self.rule = rule
        self.reason = reason

    def __repr__(self) -> str:
        return f"Verdict({self.rule!r}, {self.reason!r})"


def hook(command: str, cwd: Path) -> Verdict:
    """Ask `jouet hook claude pre` about COMMAND run in CWD, as Claude Code would.

    A reply that is neither a deny nor nothing at all fails the test, and so does a rule error the
    hook recorded in its ledger: a rule that throws says nothing, which would pass for quiet.
    """
    ledger = Path(journal.path(journal.LEDGER))
    before = ledger.read_text().count("\n") if ledger.exists() else 0
    proc = run_jouet("hook", "claude", "pre", input=claude_payload(command, cwd), cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    if ledger.exists():
        for line in ledger.read_text().splitlines()[before:]:
            record = json.loads(line)
            assert record.get("action") != "error", f"{command}: {record}"
    if not proc.stdout.strip():
        return Verdict(None, "")
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out.get("permissionDecision") == "deny", f"{command}: {out}"
    reason = out["permissionDecisionReason"]
    assert reason.endswith("]") and "[jouet rule: " in reason, reason
    rule = reason.rsplit("[jouet rule: ", 1)[1][:-1]
    return Verdict(rule, reason)


def denied(command: str, cwd: Path, rule: str) -> str:
    """Assert RULE denies COMMAND in CWD; its reason."""
    verdict = hook(command, cwd)
    assert verdict.rule == rule, f"{command}: expected a deny by {rule}, got {verdict}"
    return verdict.reason


def quiet(command: str, cwd: Path) -> None:
    """Assert the hook says nothing at all about COMMAND in CWD."""
    verdict = hook(command, cwd)
    assert verdict.rule is None, f"{command}: expected nothing, got {verdict}"


def gh_stack(repo: Path, trunk: str, layers: list[tuple[str, bool | None]]) -> None:
    """Write gh-stack's state file: one stack on TRUNK, LAYERS bottom to top as (branch, whether
    its pull request merged, or None for no pull request)."""
    branches: list[dict[str, object]] = []
    for number, (branch, merged) in enumerate(layers, start=1):
        entry: dict[str, object] = {"branch": branch, "head": head(repo, branch)}
        if merged is not None:
            entry["pullRequest"] = {"number": number, "url": f"https://github.com/o/r/pull/{number}",
                                    "merged": merged}
        branches.append(entry)
    state = {"schemaVersion": 1, "repository": "github.com:o/r",
             "stacks": [{"trunk": {"branch": trunk, "head": head(repo, trunk)}, "branches": branches}]}
    git_dir = git(repo, "rev-parse", "--absolute-git-dir").strip()
    Path(git_dir, "gh-stack").write_text(json.dumps(state))


def write_git_wrapper(bin_dir: Path, log: Path) -> dict[str, str]:
    """A `git` first on PATH that logs each run (its arguments and GIT_OPTIONAL_LOCKS), then runs
    the real git: the environment for a jouet subprocess that should use it."""
    import shutil

    real = shutil.which("git")
    assert real is not None
    bin_dir.mkdir(parents=True, exist_ok=True)
    wrapper = bin_dir / "git"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\t%s\\n" "${{GIT_OPTIONAL_LOCKS:-unset}}" "$*" >> "{log}"\n'
        f'exec "{real}" "$@"\n'
    )
    wrapper.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
