"""Attacks on claims: a damaged store must not crash `jouet claim` nor switch claimed-path off, and
one session cannot release another's claims; only a person can, with --force, outside any agent
session. Every test drives the real `jouet` command and hook."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from testing import claude_payload, git, make_repo, run_jouet

from jouet_git.agentenv import MARKERS, agent_marker, in_agent_session
from jouet_git.claims.store import store_path


def claim(repo: Path, session: str | None, *args: str, env: dict[str, str] | None = None
          ) -> subprocess.CompletedProcess[str]:
    full = dict(env or {})
    if session is not None:
        full["JOUET_SESSION_ID"] = session
    return run_jouet("claim", *args, cwd=repo, env=full)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"README.md": "hi\n", "src/a.py": "a\n", "docs/api.md": "api\n"})


@pytest.fixture
def agents() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Two stand-in agent processes, for JOUET_AGENT_PID."""
    procs = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]) for _ in range(2)]
    yield procs
    for proc in procs:
        proc.kill()
        proc.wait()


def store_file(repo: Path) -> Path:
    common = git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    return Path(store_path(common))


def write_hook(repo: Path, session: str, path: str = "src/a.py") -> subprocess.CompletedProcess[str]:
    payload = json.loads(claude_payload("", repo))
    payload.update(session_id=session, tool_name="Write",
                   tool_input={"file_path": str(repo / path), "content": "x\n"})
    return run_jouet("hook", "claude", "pre", input=json.dumps(payload), cwd=repo,
                     env={"JOUET_SESSION_ID": session})


def says_claimed(proc: subprocess.CompletedProcess[str]) -> bool:
    assert proc.returncode == 0, proc.stderr
    return "[jouet rule: claimed-path]" in proc.stdout


# A damaged store -------------------------------------------------------------------------------


def test_a_store_with_bytes_that_are_not_utf8_keeps_its_claims(repo: Path) -> None:
    assert claim(repo, "theirs", "src/", "--note", "rewriting").returncode == 0
    path = store_file(repo)
    path.write_bytes(path.read_bytes().replace(b"rewriting", b"rewr\xff\xfeiting"))
    listed = claim(repo, None, "ls")
    assert listed.returncode == 0
    assert "src/" in listed.stdout
    assert "not UTF-8" in listed.stderr and "Traceback" not in listed.stderr
    assert says_claimed(write_hook(repo, "mine"))


def test_one_bad_claim_record_does_not_drop_the_others(repo: Path) -> None:
    assert claim(repo, "theirs", "src/").returncode == 0
    path = store_file(repo)
    data = json.loads(path.read_text())
    data["claims"].insert(0, {"pattern": 5, "session": ["x"]})
    data["claims"].append({"pattern": "docs/", "session": "theirs", "pid": 10**40, "started": 1,
                           "claimed_at": "2026-01-01T00:00:00Z", "expires_at": "9999-12-31T23:59:59Z"})
    path.write_text(json.dumps(data))
    listed = claim(repo, None, "ls")
    assert listed.returncode == 0, listed.stderr
    assert "claims[0] was skipped" in listed.stderr
    assert says_claimed(write_hook(repo, "mine"))


@pytest.mark.parametrize(
    "garbage",
    [
        b"\xff\xfe\x00garbage",
        b"[" * 100_000,
        b'{"version": 1, "claims": "x", "remote": 7}',
        b'{"version": 1e999}',
        b"\x00" * 64,
        b'{"version": 1, "claims": [{"pattern": "\\ud800[", "session": "t", "claimed_at": "2026-01-01T00:00:00Z",'
        b' "expires_at": "9999-12-31T23:59:59Z"}]}',
    ],
    ids=["binary", "deep-nesting", "wrong-types", "huge-version", "nul-bytes", "bad-pattern"],
)
def test_garbage_never_crashes_claim_or_the_hook(repo: Path, garbage: bytes) -> None:
    assert claim(repo, "theirs", "docs/").returncode == 0
    store_file(repo).write_bytes(garbage)
    hook = write_hook(repo, "mine")
    assert hook.returncode == 0 and "Traceback" not in hook.stderr
    listed = claim(repo, None, "ls")
    assert listed.returncode == 0 and "Traceback" not in listed.stderr
    fresh = claim(repo, "mine", "README.md")
    assert fresh.returncode == 0, fresh.stderr


# Releasing another session's claims ------------------------------------------------------------


def test_a_session_cannot_release_another_sessions_claims(repo: Path, agents: list[subprocess.Popen[bytes]]) -> None:
    theirs = {"JOUET_AGENT_PID": str(agents[0].pid)}
    mine = {"JOUET_AGENT_PID": str(agents[1].pid)}
    assert claim(repo, "theirs", "src/", env=theirs).returncode == 0
    proc = claim(repo, "mine", "release", "--session", "theirs", env=mine)
    assert proc.returncode == 1
    assert "not released: src/, held by session theirs" in proc.stderr
    assert "--force" in proc.stderr
    assert says_claimed(write_hook(repo, "mine"))


def test_force_is_refused_inside_an_agent_session(repo: Path, agents: list[subprocess.Popen[bytes]]) -> None:
    assert claim(repo, "theirs", "src/", env={"JOUET_AGENT_PID": str(agents[0].pid)}).returncode == 0
    for env in ({"JOUET_SESSION_ID": "mine"}, {"CLAUDECODE": "1"}, {"CODEX_SANDBOX": "seatbelt"},
                {"GEMINI_CLI": "1"}):
        proc = run_jouet("claim", "release", "--session", "theirs", "--force", cwd=repo,
                         env={**env, "JOUET_AGENT_PID": str(agents[1].pid)})
        assert proc.returncode == 2, proc.stderr
        assert "--force is for a person" in proc.stderr
    assert says_claimed(write_hook(repo, "mine"))


def test_a_person_may_release_another_sessions_claims_with_force(
    repo: Path, agents: list[subprocess.Popen[bytes]]
) -> None:
    assert claim(repo, "theirs", "src/", env={"JOUET_AGENT_PID": str(agents[0].pid)}).returncode == 0
    proc = claim(repo, None, "release", "--session", "theirs", env={"JOUET_AGENT_PID": str(agents[1].pid)})
    assert proc.returncode == 1
    proc = claim(repo, None, "release", "--session", "theirs", "--force",
                 env={"JOUET_AGENT_PID": str(agents[1].pid)})
    assert proc.returncode == 0, proc.stderr
    assert "released src/" in proc.stdout
    assert not says_claimed(write_hook(repo, "mine"))


def test_claims_this_agent_process_made_are_its_own_to_release(
    repo: Path, agents: list[subprocess.Popen[bytes]]
) -> None:
    same = {"JOUET_AGENT_PID": str(agents[0].pid)}
    assert claim(repo, None, "docs/", "--session", "named", env=same).returncode == 0
    proc = claim(repo, None, "release", "--session", "named", env=same)
    assert proc.returncode == 0, proc.stderr
    assert "released docs/" in proc.stdout


def test_force_without_another_session_is_a_usage_error(repo: Path) -> None:
    proc = claim(repo, None, "release", "--force")
    assert proc.returncode == 2 and "--force goes with --session" in proc.stderr
    proc = claim(repo, None, "ls", "--force")
    assert proc.returncode == 2 and "--force does not apply" in proc.stderr


# Telling an agent session from a person's terminal ----------------------------------------------


def test_agent_markers() -> None:
    assert agent_marker({}) is None
    assert agent_marker({"CLAUDECODE": "1", "HOME": "/h"}) == "CLAUDECODE"
    assert agent_marker({"CODEX_THREAD_ID": "abc"}) == "CODEX_THREAD_ID"
    assert agent_marker({"CLINE_ACTIVE": "true"}) == "CLINE_ACTIVE"
    assert agent_marker({"CLINE_ACTIVE": "false", "GEMINI_CLI": "0", "AI_AGENT": ""}) is None
    # Cursor's editor terminal is a person's, unless Cursor's agent set its pager
    assert agent_marker({"CURSOR_TRACE_ID": "x"}) is None
    assert agent_marker({"CURSOR_TRACE_ID": "x", "PAGER": "head -n 10000 | cat"}) == "CURSOR_TRACE_ID"
    assert all(in_agent_session({name: "1"}) for name in MARKERS)
