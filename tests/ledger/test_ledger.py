"""The ledger: every call every hook saw, in one shape, 0600, safe to append from many hooks at once,
bounded, and read from its end."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from testing import claude_payload, git, make_repo, run_jouet

from jouet_git import ledger, ledger_stamp

SECRET = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"


def lines(name: str = ledger.NAME) -> list[dict[str, Any]]:
    path = Path(os.environ["JOUET_STATE_DIR"]) / name
    # An empty line can appear where a hook found the file's end mid-way through another's line and
    # ended it to be safe; readers skip it. Every other line must be whole JSON.
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def hook(event: str, payload: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_jouet("hook", "claude", event, input=payload, cwd=cwd, env=env)


def test_every_call_is_recorded_with_what_was_decided(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "sub").mkdir()
    hook("pre", claude_payload("git add -A", repo / "sub", agent_id="helper-1"), repo)
    hook("pre", claude_payload("ls -la", repo), repo)
    hook("post", claude_payload("false", repo, "PostToolUse", duration_ms=42), repo)
    edit = {"session_id": "test-session", "cwd": str(repo), "hook_event_name": "PreToolUse", "tool_name": "Edit",
            "tool_input": {"file_path": str(repo / "a.py"), "old_string": "a", "new_string": "b"}}
    hook("pre", json.dumps(edit), repo)
    denied, quiet, after, edited = lines()
    root = os.path.realpath(repo)
    assert denied["harness"] == "claude" and denied["session"] == "test-session" and denied["agent"] == "helper-1"
    assert denied["repo"] == root and denied["wt"] == ledger.root_hash(root) and denied["cwd"] == str(repo / "sub")
    assert denied["command"] == "git add -A" and denied["shape"] == "git add -A" and denied["tool"] == "Bash"
    assert denied["decision"] == "deny" and denied["rules"] == [{"rule": "git-add-all", "action": "deny"}]
    assert denied["event"] == "pre-tool-use" and isinstance(denied["ms"], float) and isinstance(denied["ts"], float)
    assert quiet["decision"] == "none" and quiet["rules"] == [] and quiet["agent"] is None
    assert after["event"] == "post-tool-use" and after["exit_code"] == 0 and after["duration_ms"] == 42
    assert edited["tool"] == "Edit" and edited["kind"] == "edit" and edited["path"] == str(repo / "a.py")
    mode = stat.S_IMODE(os.stat(Path(os.environ["JOUET_STATE_DIR"]) / ledger.NAME).st_mode)
    assert mode == 0o600


def test_git_hooks_and_jouet_check_are_recorded_too(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "x.txt").write_text("x\n")
    git(repo, "add", "x.txt")
    proc = run_jouet("hook", "git", "pre-commit", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    run_jouet("check", "git stash", cwd=repo)
    commit, check = lines()
    assert commit["harness"] == "git" and commit["command"] == "git commit" and commit["repo"] == os.path.realpath(repo)
    assert check["harness"] == "check" and check["decision"] == "deny"


def test_secrets_never_reach_the_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    planted = [
        f"curl -d token={SECRET} https://slack.com/api/chat.postMessage",
        "git remote add origin https://ci-bot:glpat-Zq8vR2xLp0Wm4TnK7yB3@gitlab.example.com/x.git",
        "PGPASSWORD=Tr0ub4dor-and-3 psql -h db",
        "stripe listen --api-key sk_live_51HaBcDeFgHiJkLmNoPqRsTuV",
    ]
    for command in planted:
        hook("pre", claude_payload(command, repo), repo)
        hook("post", claude_payload(command, repo, "PostToolUse"), repo)
    text = (Path(os.environ["JOUET_STATE_DIR"]) / ledger.NAME).read_text()
    for secret in (SECRET, "glpat-Zq8vR2xLp0Wm4TnK7yB3", "Tr0ub4dor-and-3", "sk_live_51HaBcDeFgHiJkLmNoPqRsTuV"):
        assert secret not in text
    assert text.count(ledger.REDACTED) >= 8
    assert "https://slack.com/api/chat.postMessage" in text  # the rest of the command is kept


def test_content_off_keeps_shapes_only(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"pyproject.toml": "[tool.pytest.ini_options]\n",
                                      "test_a.py": "def test_a(): pass\n"})
    env = {"JOUET_STORE_CONTENT": "0"}
    hook("pre", claude_payload(f"curl -d token={SECRET} https://example.com", repo), repo, env)
    hook("post", claude_payload("pytest -k secretive_name tests/", repo, "PostToolUse"), repo, env)
    edit = {"session_id": "s", "cwd": str(repo), "hook_event_name": "PreToolUse", "tool_name": "Write",
            "tool_input": {"file_path": str(repo / "private-notes.md"), "content": "x"}}
    hook("pre", json.dumps(edit), repo, env)
    text = (Path(os.environ["JOUET_STATE_DIR"]) / ledger.NAME).read_text()
    for word in (SECRET, "example.com", "secretive_name", "private-notes", str(tmp_path)):
        assert word not in text
    curl, pytest_run, write = lines()
    assert curl["command"] is None and curl["shape"] == "curl -d <arg> <arg>"
    assert curl["cwd"] is None and curl["repo"] is None
    assert curl["wt"] == ledger.root_hash(str(repo))
    [record] = pytest_run["records"]
    assert record["kind"] == "test" and record["scope"] == "partial" and record["command"] is None
    assert record["selector"] is None and record["dir"] is None and record["shape"] == "pytest -k <arg> <arg>"
    assert write["path"] is None and write["tool"] == "Write"


APPENDER = """
import sys
from jouet_git import ledger, ledger_stamp
who, count, pad = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(count):
    ledger.append({"who": who, "i": i, "pad": "x" * pad})
"""


def _append_from(processes: int, count: int, pad: int, env: dict[str, str] | None = None) -> None:
    full = {**os.environ, **(env or {})}
    procs = [subprocess.Popen([sys.executable, "-c", APPENDER, f"p{n}", str(count), str(pad)], env=full)
             for n in range(processes)]
    for proc in procs:
        assert proc.wait(timeout=300) == 0


def test_many_processes_append_at_once_without_a_torn_or_lost_line() -> None:
    _append_from(12, 150, 900)
    seen = [(line["who"], line["i"]) for line in lines()]
    assert len(seen) == 12 * 150 and len(set(seen)) == len(seen)
    for n in range(12):  # each process's lines in its own order
        mine = [i for who, i in seen if who == f"p{n}"]
        assert mine == sorted(mine)


def test_rotation_under_concurrent_appends_keeps_whole_lines_and_two_old_files() -> None:
    limit = 64 * 1024
    _append_from(8, 200, 400, {"JOUET_LEDGER_MAX_BYTES": str(limit)})
    state = Path(os.environ["JOUET_STATE_DIR"])
    names = sorted(p.name for p in state.iterdir() if p.name.startswith(ledger.NAME))
    assert names == [ledger.NAME, f"{ledger.NAME}.1", f"{ledger.NAME}.2", f"{ledger.NAME}.lock"]
    kept = []
    for name in (f"{ledger.NAME}.2", f"{ledger.NAME}.1", ledger.NAME):
        path = state / name
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        # A file passes the limit only by the lines other hooks append while one moves it aside (on a
        # busy machine, a descheduled rotation lets a few dozen through): bounded, whatever is written.
        assert path.stat().st_size <= 3 * limit
        kept += [(line["who"], line["i"]) for line in lines(name)]
    assert len(kept) == len(set(kept)) and 200 < len(kept) < 8 * 200  # whole lines, none twice, old ones gone
    newest = {who: max(i for w, i in kept if w == who) for who, _ in kept}
    assert all(i == 199 for i in newest.values())  # the newest lines are never the ones dropped


def test_reading_backwards_crosses_blocks_and_rotated_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ledger, "BLOCK", 97)
    monkeypatch.setenv("JOUET_LEDGER_MAX_BYTES", "4096")
    for i in range(200):
        ledger.append({"i": i, "text": "é" * (i % 13)})
    assert os.path.exists(ledger.path() + ".1")
    newest_first = [line["i"] for line in ledger.backwards()]
    assert newest_first == sorted(newest_first, reverse=True) and newest_first[0] == 199
    assert [line["i"] for line in ledger.forwards()] == sorted(newest_first)
    assert [line["i"] for line in ledger.backwards(max_bytes=300)] == newest_first[:len(list(ledger.backwards(300)))]
    assert len(list(ledger.backwards(max_bytes=300))) < 10  # it stopped reading early
    sevens = [i for i in newest_first if str(i).startswith("7")]
    assert [line["i"] for line in ledger.backwards(needle=b'"i":7')] == sevens


def test_a_torn_line_is_skipped() -> None:
    ledger.append({"i": 1})
    with open(ledger.path(), "ab") as f:
        f.write(b'{"i": 2, "cut sh')
    ledger.append({"i": 3})
    assert [line.get("i") for line in ledger.backwards()] == [3, 1]


def test_many_hooks_at_once_each_leave_their_line(tmp_path: Path) -> None:
    from testing import jouet_exe

    repo = make_repo(tmp_path / "r")
    procs = [subprocess.Popen([*jouet_exe(), "hook", "claude", "pre"], cwd=repo, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(16)]
    for n, proc in enumerate(procs):
        proc.communicate(claude_payload(f"echo call-{n} && git add -A", repo), timeout=300)
        assert proc.returncode == 0
    recorded = sorted(line["command"] for line in lines())
    assert recorded == sorted(f"echo call-{n} && git add -A" for n in range(16))
    assert all(line["decision"] == "deny" for line in lines())


def test_a_stamp_writes_the_line_stamped_would_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream writes the ledger line of a decision it kept from the line's JSON made once
    (ledger_stamp.Stamp): the same fields as stamped() gives, with this call's time and milliseconds; a line
    whose values hold the stamp's stand-ins is made whole each time instead."""
    from jouet_git.call import Call
    from jouet_git.engine.decide import Decision

    call = Call(command='printf "%s" "é \\" \\\\ x" > out.txt && git status', cwd="/tmp", harness="check")
    line = ledger.entry(call, Decision(), "/tmp/repo", 1.25)
    clock = iter([1796112231.4164, 1796112231.4164, 1796112299.9, 1796112299.9])
    monkeypatch.setattr(ledger.time, "time", lambda: next(clock))
    stamp = ledger_stamp.Stamp(line)
    assert stamp.parts is not None
    for ms in (0.3333, None):
        text = stamp.record(ms)
        assert isinstance(text, str)
        assert json.loads(text) == ledger.stamped(line, ms)
        assert list(json.loads(text)) == list(line)  # the fields in the same order
    odd = dict(line, command="holds \ue000time as text")
    fallback = ledger_stamp.Stamp(odd)
    assert fallback.parts is None
    monkeypatch.setattr(ledger.time, "time", lambda: 1796112231.0)
    assert fallback.record(2.0) == ledger.stamped(odd, 2.0)


def test_times_are_written_in_utc_to_the_millisecond_whatever_came_before() -> None:
    """iso() formats each whole second once and reuses it while a stream stays in that second: every
    time still reads as the clock said, across seconds, days and back again."""
    import time

    def formatted(now: float) -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}Z"

    times = [1796072627.123, 1796072627.999, 1796072628.0, 1796072627.5, 1796083199.9994, 1796083200.0005,
             0.25, -0.5, 1796072627.123]
    for now in times:
        assert ledger.iso(now) == formatted(now), now
    assert ledger.iso(1796072627.123) == "2026-11-30T21:03:47.123Z"
