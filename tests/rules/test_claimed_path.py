"""The claimed-path rule: a deny exactly where another session's live claim covers what a call writes,
through Claude Code's hook and through plain git with jouet's hooks installed."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from testing import claude_payload, git, make_repo, run_jouet


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"README.md": "hi\n", "src/a.py": "a\n", "src/b.py": "b\n",
                                         "docs/api.md": "api\n"})


@pytest.fixture
def holder() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def claim(repo: Path, session: str, holder: subprocess.Popen[bytes], *args: str) -> None:
    proc = run_jouet("claim", *args, cwd=repo, env={"JOUET_SESSION_ID": session, "JOUET_AGENT_PID": str(holder.pid)})
    assert proc.returncode == 0, proc.stdout + proc.stderr


def edit(repo: Path, session: str, path: str, cwd: Path | None = None) -> dict[str, object] | None:
    payload = json.dumps({
        "session_id": session, "transcript_path": "/t", "cwd": str(cwd or repo), "hook_event_name": "PreToolUse",
        "tool_name": "Edit", "tool_use_id": "t", "tool_input": {"file_path": str(repo / path),
                                                               "old_string": "a", "new_string": "b"},
    })
    proc = run_jouet("hook", "claude", "pre", input=payload, cwd=cwd or repo)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["hookSpecificOutput"] if proc.stdout else None


def bash(repo: Path, session: str, command: str) -> dict[str, object] | None:
    payload = json.loads(claude_payload(command, repo))
    payload["session_id"] = session
    proc = run_jouet("hook", "claude", "pre", input=json.dumps(payload), cwd=repo)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["hookSpecificOutput"] if proc.stdout else None


def denied(out: dict[str, object] | None) -> str:
    assert out is not None and out.get("permissionDecision") == "deny", out
    reason = str(out["permissionDecisionReason"])
    assert reason.endswith("[jouet rule: claimed-path]")
    return reason


def test_edit_of_a_path_another_session_claimed_is_denied(repo: Path, holder: subprocess.Popen[bytes]) -> None:
    claim(repo, "alice", holder, "src/", "--note", "rewriting the parser")
    reason = denied(edit(repo, "bob", "src/a.py"))
    assert "src/a.py is claimed by session alice" in reason and "rewriting the parser" in reason
    assert edit(repo, "alice", "src/a.py") is None  # one's own claim
    assert edit(repo, "bob", "docs/api.md") is None  # not claimed


def test_shell_writes_and_reads(repo: Path, holder: subprocess.Popen[bytes]) -> None:
    claim(repo, "alice", holder, "src/a.py")
    denied(bash(repo, "bob", "echo x >> src/a.py"))
    denied(bash(repo, "bob", "sed -i 's/a/b/' src/a.py"))
    denied(bash(repo, "bob", "cd src && rm a.py"))
    denied(bash(repo, "bob", "git mv src/a.py src/z.py"))
    assert bash(repo, "bob", "cat src/a.py") is None
    assert bash(repo, "bob", "echo x >> src/b.py") is None
    assert bash(repo, "bob", "cp src/a.py /tmp/copy.py") is None


@pytest.mark.parametrize("command", [
    "python3 -c \"open('src/a.py', 'w').write('')\"",
    "node -e \"require('fs').writeFileSync('src/a.py', '')\"",
    "git checkout -- src/a.py",
    "git restore --source=HEAD src/a.py",
    "git stash push -m mine -- src/a.py",
    "bash -c 'truncate -s 0 src/a.py'",
    "dd if=/dev/null of=src/a.py",
])
def test_other_ways_to_change_a_claimed_file_are_denied(repo: Path, holder: subprocess.Popen[bytes],
                                                        command: str) -> None:
    claim(repo, "alice", holder, "src/a.py")
    (repo / "src" / "a.py").write_text("alice's work in progress\n")
    denied(bash(repo, "bob", command))
    proc = subprocess.run(["bash", "-c", command], cwd=repo, capture_output=True, text=True)
    assert (repo / "src" / "a.py").read_text() != "alice's work in progress\n", proc.stderr  # it really would


def test_a_claim_lapses_when_its_holder_exits_or_it_expires(repo: Path, holder: subprocess.Popen[bytes],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    claim(repo, "alice", holder, "src/")
    denied(edit(repo, "bob", "src/a.py"))
    holder.kill()
    holder.wait()
    assert edit(repo, "bob", "src/a.py") is None
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        claim(repo, "carol", other, "docs/", "--for", "30m")
        denied(edit(repo, "bob", "docs/api.md"))
        # Expired, with its holder alive: the same claim made two hours ago for a second. The test
        # sets the claim's clock instead of waiting on the real one.
        from jouet_git.claims import actions

        monkeypatch.setenv("JOUET_AGENT_PID", str(other.pid))
        place = actions.open_repo(str(repo))
        carol = actions.current_session("carol")
        actions.release(place, carol, None)
        actions.claim(place, carol, ["docs/"], None, seconds=1, now=time.time() - 7200)
        assert [r["state"] for r in json.loads(run_jouet("claim", "ls", "--all", "--json", cwd=repo).stdout)] == [
            "expired"]
        assert edit(repo, "bob", "docs/api.md") is None
    finally:
        other.kill()
        other.wait()


def test_claims_are_shared_by_worktrees(repo: Path, holder: subprocess.Popen[bytes], tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(linked))
    claim(repo, "alice", holder, "src/a.py")
    reason = denied(edit(linked, "bob", "src/a.py"))
    assert "alice" in reason


def test_commits_with_plain_git_and_the_hooks(repo: Path, holder: subprocess.Popen[bytes]) -> None:
    assert run_jouet("setup", "git", cwd=repo).returncode == 0
    claim(repo, "alice", holder, "src/")
    (repo / "src" / "a.py").write_text("changed\n")
    git(repo, "add", "src/a.py")
    env = {"JOUET_SESSION_ID": "bob"}
    import os

    full = {**os.environ, **env}
    proc = subprocess.run(["git", "commit", "-m", "bob's change"], cwd=repo, env=full, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "src/a.py is claimed by session alice" in proc.stderr and "[jouet rule: claimed-path]" in proc.stderr
    allowed = subprocess.run(["git", "commit", "-m", "alice's change"], cwd=repo, capture_output=True, text=True,
                             env={**os.environ, "JOUET_SESSION_ID": "alice"})
    assert allowed.returncode == 0, allowed.stderr
    (repo / "docs" / "api.md").write_text("new\n")
    git(repo, "add", "docs/api.md")
    other = subprocess.run(["git", "commit", "-m", "docs"], cwd=repo, env=full, capture_output=True, text=True)
    assert other.returncode == 0, other.stderr
    assert other.stderr == ""


def test_no_vm_without_claims(repo: Path) -> None:
    code = ("import sys\nfrom jouet_git.cli import main\nmain(['hook', 'claude', 'pre'])\n"
            "sys.stderr.write(' '.join(sorted(sys.modules)))\n")
    payload = json.dumps({"session_id": "bob", "cwd": str(repo), "hook_event_name": "PreToolUse",
                          "tool_name": "Edit", "tool_input": {"file_path": str(repo / "src/a.py")}})
    run_jouet("hook", "claude", "pre", input=payload, cwd=repo)
    proc = subprocess.run([sys.executable, "-c", code], input=payload, cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0
    assert "lupa" not in proc.stderr.split()
