"""stdin-hang against the real thing: each command runs as an agent's shell runs it (bash, no
terminal, standard input a pipe that stays open), in a real repository, with and without an editor
configured. What the rule denies hangs; the form its message names does not, and passes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from testing import claude_payload, git, make_repo, run_jouet

from jouet_git.call import Call

# A command still running after this long is waiting for input (each of these finishes in well
# under a second when it does not wait); a command that should finish gets a minute.
WAITS = 4.0
FINISHES = 60.0

pytestmark = pytest.mark.skipif(shutil.which("vi") is None or shutil.which("jq") is None,
                                reason="needs vi (git's default editor) and jq")


def agent_shell(command: str, cwd: Path, env: dict[str, str], timeout: float) -> str | None:
    """Run COMMAND the way Claude Code's Bash tool does: None when it was still waiting at TIMEOUT,
    else its exit code and output."""
    read_end, write_end = os.pipe()  # the write end stays open: standard input never ends
    proc = subprocess.Popen(["bash", "-c", command], cwd=cwd, stdin=read_end, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=env, start_new_session=True)
    os.close(read_end)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return f"exit {proc.returncode}: {out.decode(errors='replace')[-300:]}"
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        return None
    finally:
        os.close(write_end)


def shell_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
                                                             "PAGER", "GIT_PAGER")}
    env["TERM"] = "xterm-256color"
    env.update(extra)
    return env


def repository(path: Path, stopped: str | None = None) -> Path:
    """A repository with a staged change, an unstaged one, a branch that conflicts with main, and
    optionally a merge or rebase stopped on that conflict (resolved and staged, ready to continue),
    or ("clean") no change at all."""
    repo = make_repo(path, {"f.txt": "1\n2\n3\n", "notes.txt": "a\nb\n"})
    git(repo, "branch", "side")
    (repo / "f.txt").write_text("1\n2\n3\nmain\n")
    git(repo, "commit", "-qam", "main change")
    git(repo, "checkout", "-q", "side")
    (repo / "f.txt").write_text("1\n2\n3\nside\n")
    git(repo, "commit", "-qam", "side change")
    git(repo, "checkout", "-q", "main")
    if stopped == "merge":
        git(repo, "merge", "side", check=False)
    elif stopped == "rebase":
        git(repo, "checkout", "-q", "side")
        git(repo, "rebase", "main", check=False)
    if stopped in ("merge", "rebase"):
        (repo / "f.txt").write_text("1\n2\n3\nboth\n")
        git(repo, "add", "f.txt")
    elif stopped is None:
        (repo / "notes.txt").write_text("a\nb\nc\n")
        git(repo, "add", "notes.txt")
        (repo / "f.txt").write_text("0\n1\n2\n3\nmain\n")
    return repo


def hook(command: str, cwd: Path) -> str | None:
    """The rule that denies COMMAND in CWD, or None."""
    proc = run_jouet("hook", "claude", "pre", input=claude_payload(command, cwd), cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    if not proc.stdout.strip():
        return None
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    if out.get("permissionDecision") != "deny":
        return None
    reason: str = out["permissionDecisionReason"]
    return reason.rsplit("[jouet rule: ", 1)[1].rstrip("]")


# (a name, the state of the repository, the command that waits, the form the rule names instead)
CASES = [
    ("commit", None, "git commit", "git commit -m 'add c'"),
    ("amend", None, "git commit --amend", "git commit --amend --no-edit"),
    ("tag", None, "git tag -a v1", "git tag -a v1 -m 'release 1'"),
    ("notes", None, "git notes add", "git notes add -m 'reviewed'"),
    ("rebase-i", "clean", "git rebase -i HEAD~1", "GIT_SEQUENCE_EDITOR=true git rebase -i HEAD~1"),
    ("add-p", None, "git add -p", "git add f.txt"),
    ("merge-continue", "merge", "git merge --continue", "git commit --no-edit"),
    ("rebase-continue", "rebase", "git rebase --continue", "GIT_EDITOR=true git rebase --continue"),
    ("cat", None, "cat", "cat notes.txt"),
    ("sort", None, "sort", "sort notes.txt"),
    ("grep", None, "grep b", "grep b notes.txt"),
    ("jq", None, "jq .", "jq . < /dev/null"),
    ("tr", None, "tr a b", "tr a b < notes.txt"),
    ("python", None, "python3", "python3 -c 'print(1)'"),
    ("read", None, "read answer", "read -t 1 answer"),
    ("vi", None, "vi notes.txt", "vim -es -c '%s/a/A/' -c 'wq' notes.txt"),
]


def run_case(base: Path, case: tuple[str, str | None, str, str]) -> tuple[str | None, str | None, str | None,
                                                                             str | None]:
    name, stopped, waits, instead = case
    first = repository(base / f"{name}-1", stopped)
    second = repository(base / f"{name}-2", stopped)
    return (hook(waits, first), agent_shell(waits, first, shell_env(), WAITS),
            hook(instead, second), agent_shell(instead, second, shell_env(), FINISHES))


def test_what_the_rule_denies_hangs_and_what_it_names_does_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda case: run_case(tmp_path, case), CASES))
    failures = []
    for case, (denied, ran, passed, finished) in zip(CASES, results, strict=True):
        name, _, waits, instead = case
        if denied != "stdin-hang":
            failures.append(f"{name}: `{waits}` was not denied by stdin-hang ({denied})")
        if ran is not None:
            failures.append(f"{name}: `{waits}` did not wait: {ran}")
        if passed is not None:
            failures.append(f"{name}: `{instead}` was denied by {passed}")
        if finished is None:
            failures.append(f"{name}: `{instead}` waited")
    assert not failures, "\n".join(failures)


def test_an_editor_that_needs_no_one_settles_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    repo = repository(tmp_path / "r")
    # core.editor in the repository's config: git starts `true`, which leaves the message empty.
    git(repo, "config", "core.editor", "true")
    assert hook("git commit", repo) is None
    assert agent_shell("git commit", repo, shell_env(), FINISHES) is not None
    # ... and sequence.editor for the todo list.
    git(repo, "config", "sequence.editor", "true")
    git(repo, "config", "--unset", "core.editor")
    assert hook("git rebase -i HEAD~1", repo) is None
    assert hook("git commit", repo) == "stdin-hang"
    # An editor the person configured that waits is named in the message.
    git(repo, "config", "core.editor", "nano -w")
    assert hook("git commit --amend", repo) == "stdin-hang"
    proc = run_jouet("check", "git commit", cwd=repo)
    assert "git would start nano -w and wait" in proc.stdout
    # A dumb terminal and no editor: git refuses at once instead of waiting.
    git(repo, "config", "--unset", "core.editor")
    monkeypatch.setenv("TERM", "dumb")
    assert hook("git commit", repo) is None
    result = agent_shell("git commit", repo, shell_env(TERM="dumb"), FINISHES)
    assert result is not None and "Terminal is dumb" in result
    # EDITOR from the environment the hook shares with the agent's shell.
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("EDITOR", "true")
    assert hook("git commit", repo) is None


def test_git_merge_and_pull_without_a_terminal_start_no_editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("EDITOR", "VISUAL", "GIT_EDITOR"):
        monkeypatch.delenv(name, raising=False)
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    git(repo, "checkout", "-q", "-b", "topic")
    (repo / "b.txt").write_text("b\n")
    git(repo, "add", "b.txt")
    git(repo, "commit", "-qm", "b")
    git(repo, "checkout", "-q", "main")
    (repo / "c.txt").write_text("c\n")
    git(repo, "add", "c.txt")
    git(repo, "commit", "-qm", "c")
    assert hook("git merge --no-ff topic", repo) is None
    assert agent_shell("git merge --no-ff topic", repo, shell_env(), FINISHES) is not None
    assert hook("git merge -e topic", repo) == "stdin-hang"


def test_continue_with_nothing_stopped_is_left_alone(tmp_path: Path) -> None:
    repo = repository(tmp_path / "r")
    assert hook("git rebase --continue", repo) is None
    assert hook("git merge --continue", repo) is None
    # ... but a rebase started earlier in the same call may stop.
    assert hook("git rebase side; git rebase --continue", repo) == "stdin-hang"


def test_git_s_own_pre_commit_hook_never_starts_the_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # git's pre-commit event reaches the rules as `git commit` (no message given), with the hook in
    # its input: a person's commit under way. The matcher leaves it out, so no VM time goes to it.
    from jouet_git.engine import runner as runner_module
    from jouet_git.harness.git_events import pre_commit_calls

    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    ran: list[str] = []
    original = runner_module.LazyScripts.run

    def run(self: Any, rule: Any, call: Any, matched: list[int]) -> Any:
        ran.append(rule.name)
        return original(self, rule, call, matched)

    monkeypatch.setattr(runner_module.LazyScripts, "run", run)
    [call] = pre_commit_calls(str(repo))
    decision = runner_module.Runner(record=False).decide(call)
    assert decision.deny is None and not decision.errors
    assert "stdin-hang" not in ran
    ran.clear()
    runner_module.Runner(record=False).decide(Call(command="git commit", cwd=str(repo)))
    assert "stdin-hang" in ran  # an agent's `git commit` still meets it
