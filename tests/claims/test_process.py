"""The agent process behind a claim: finding it through shells and wrappers, and telling it is gone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from testing import jouet_exe, make_repo

from jouet_git.claims import process


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_the_agent_is_found_through_shells_and_wrappers(tmp_path: Path) -> None:
    """A stand-in agent runs `jouet claim` through bash, sh, env and timeout, none of which exec."""
    repo = make_repo(tmp_path / "repo")
    jouet = " ".join(jouet_exe())
    # Each shell runs two commands, so none of them replaces itself with the next (exec).
    inner = f"env JOUET_X=1 timeout 60 {jouet} claim --json README.md; true"
    command = f"sh -c '{inner}'; true"
    agent = (
        "import subprocess, sys, os\n"
        f"out = subprocess.run(['bash', '-c', {command!r}], capture_output=True, text=True)\n"
        "print(os.getpid()); print(out.stdout); print(out.stderr, file=sys.stderr)\n"
    )
    env = dict(os.environ, JOUET_SESSION_ID="s1")
    proc = subprocess.run([sys.executable, "-c", agent], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    agent_pid, _, report = proc.stdout.partition("\n")
    claimed = json.loads(report)["claimed"]
    assert claimed, proc.stderr
    assert claimed[0]["pid"] == int(agent_pid)


def test_start_time_matches_proc_and_guards_pid_reuse(sleeper: subprocess.Popen[bytes]) -> None:
    started = process.start_time(sleeper.pid)
    assert started is not None
    fields = Path(f"/proc/{sleeper.pid}/stat").read_text().rsplit(")", 1)[1].split()
    assert started == int(fields[19])
    boot = process.boot_id()
    assert process.alive(sleeper.pid, started, boot)
    assert process.alive(sleeper.pid, None, None)
    assert not process.alive(sleeper.pid, started + 1, boot)  # same pid, another process
    assert not process.alive(sleeper.pid, started, "another-boot")
    sleeper.kill()
    sleeper.wait()
    assert not process.alive(sleeper.pid, started, boot)
    assert not process.alive(sleeper.pid, None, None)
    assert not process.alive(0, None, None)


def test_an_unreaped_child_is_not_alive(sleeper: subprocess.Popen[bytes]) -> None:
    started = process.start_time(sleeper.pid)
    sleeper.kill()
    info = process.proc_info(sleeper.pid)
    while info is not None and info.state != "Z":
        info = process.proc_info(sleeper.pid)
    assert info is not None and info.state == "Z"
    assert not process.alive(sleeper.pid, started, None)
    sleeper.wait()


def test_process_names_with_spaces_and_parentheses_parse(tmp_path: Path) -> None:
    odd = tmp_path / "we (ird) name"
    odd.symlink_to(shutil.which("sleep") or "/bin/sleep")
    proc = subprocess.Popen([str(odd), "600"])
    try:
        info = process.proc_info(proc.pid)
        assert info is not None
        assert info.name == "we (ird) name"[:15]
        assert info.parent == os.getpid()
        assert info.started == process.start_time(proc.pid)
    finally:
        proc.kill()
        proc.wait()


def test_without_proc_it_degrades(monkeypatch: pytest.MonkeyPatch, sleeper: subprocess.Popen[bytes]) -> None:
    """Where /proc is missing: ancestors come from ps, liveness from kill(pid, 0)."""
    with_proc = process.agent_pid()
    monkeypatch.setattr(process, "_PROC", "/nonexistent-proc")
    assert not process.have_proc()
    assert process.start_time(sleeper.pid) is None
    assert process.alive(sleeper.pid, 12345, "any-boot")  # unknown start time: the pid decides
    if shutil.which("ps"):
        assert process.agent_pid() == with_proc
    sleeper.kill()
    sleeper.wait()
    assert not process.alive(sleeper.pid, None, None)


def test_wrapper_names() -> None:
    assert process._is_wrapper("bash") and process._is_wrapper("-zsh") and process._is_wrapper("timeout")
    assert not process._is_wrapper("claude") and not process._is_wrapper("node")
    assert not process._is_wrapper("python3")
