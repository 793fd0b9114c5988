"""`jouet log`: the ledger for people, filtered, as JSON, followed, and summed up as a chart."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from testing import claude_payload, jouet_exe, make_repo, run_jouet

from jouet_git import ledger
from jouet_git.commands.log import parse_since
from jouet_git.errors import JouetError

DAY = 86400.0


def put(decision: str, rules: list[tuple[str, str]], harness: str = "claude", ts: float | None = None,
        session: str = "sess-a", command: str = "git status", **extra: Any) -> None:
    stamp = time.time() if ts is None else ts
    ledger.append({"v": 1, "time": ledger.iso(stamp), "ts": stamp, "harness": harness, "event": "pre-tool-use",
                   "session": session, "agent": None, "tool": "Bash", "kind": "shell", "command": command,
                   "shape": command, "decision": decision, "rules": [{"rule": r, "action": a} for r, a in rules],
                   "records": [], "exit_code": None, **extra})


def test_an_empty_ledger_says_so() -> None:
    proc = run_jouet("log")
    assert proc.returncode == 0 and "the ledger is empty" in proc.stdout


def test_recent_calls_newest_last_with_filters(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    elsewhere = make_repo(tmp_path / "other")
    run_jouet("hook", "claude", "pre", input=claude_payload("git add -A", repo), cwd=repo)
    run_jouet("hook", "claude", "pre", input=claude_payload("ls", repo, session_id="other-session"), cwd=repo)
    run_jouet("check", "git stash", cwd=elsewhere)
    proc = run_jouet("log", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    shown = proc.stdout.splitlines()
    assert len(shown) == 3
    assert "claude" in shown[0] and "deny" in shown[0] and "git-add-all" in shown[0] and "git add -A" in shown[0]
    assert "test-ses" in shown[0] and "other-se" in shown[1] and "check" in shown[2] and "git-stash" in shown[2]
    assert "\033[" not in proc.stdout  # no colour in a pipe
    coloured = run_jouet("--color", "always", "log", cwd=repo).stdout
    assert "\033[1;31mdeny" in coloured and coloured.count("\033[") == 4  # the two denials, and nothing else

    def only(*args: str) -> list[str]:
        result = run_jouet("log", *args, cwd=repo)
        assert result.returncode == 0, result.stderr
        return result.stdout.splitlines()

    assert len(only("--decision", "deny")) == 2
    assert len(only("--decision", "none")) == 1
    assert len(only("--rule", "git-stash")) == 1
    assert len(only("--harness", "check")) == 1
    assert len(only("--session", "other")) == 1
    assert len(only("--repo", ".")) == 2
    assert len(only("--repo", str(elsewhere))) == 1
    assert len(only("-n", "1")) == 1 and "git stash" in only("-n", "1")[0]
    [raw] = [json.loads(line) for line in only("--json", "--rule", "git-add-all")]
    assert raw["command"] == "git add -A" and raw["rules"] == [{"rule": "git-add-all", "action": "deny"}]
    bad = run_jouet("log", "--repo", str(tmp_path))
    assert bad.returncode == 2 and "not inside a git work tree" in bad.stderr


def test_since_takes_durations_and_dates() -> None:
    now = 1_800_000_000.0
    assert parse_since("90s", now) == now - 90
    assert parse_since("30m", now) == now - 1800
    assert parse_since("2h", now) == now - 7200
    assert parse_since("3d", now) == now - 3 * DAY
    assert parse_since("1w", now) == now - 7 * DAY
    assert parse_since("2026-11-30") == time.mktime(time.strptime("2026-11-30", "%Y-%m-%d"))
    assert parse_since("2026-11-30T14:05") == time.mktime(time.strptime("2026-11-30 14:05", "%Y-%m-%d %H:%M"))
    with pytest.raises(JouetError, match="give a duration"):
        parse_since("yesterday")


def test_since_stops_at_older_lines() -> None:
    now = time.time()
    put("deny", [("force-push", "deny")], ts=now - 3 * DAY, command="git push -f")
    put("warn", [("no-rm-rf", "warn")], ts=now - 600, command="rm -rf build")
    proc = run_jouet("log", "--since", "1h")
    assert proc.returncode == 0 and "rm -rf build" in proc.stdout and "git push -f" not in proc.stdout
    assert "git push -f" in run_jouet("log", "--since", "4d").stdout


def _read_line(proc: subprocess.Popen[str], timeout: float = 60.0) -> str:
    assert proc.stdout is not None
    chooser = selectors.DefaultSelector()
    chooser.register(proc.stdout, selectors.EVENT_READ)
    assert chooser.select(timeout), "jouet log --follow printed nothing in time"
    return proc.stdout.readline()


def _read_lines(proc: subprocess.Popen[str], count: int, rest: bytes = b"") -> tuple[list[bytes], bytes]:
    """The next COUNT lines PROC prints (REST: what an earlier call left), and what is left after
    them. Several lines may come in one read: the descriptor is read itself, never through a buffer
    (which would keep lines from a later select)."""
    assert proc.stdout is not None
    chooser = selectors.DefaultSelector()
    chooser.register(proc.stdout, selectors.EVENT_READ)
    give_up = time.monotonic() + 60
    while rest.count(b"\n") < count:
        assert chooser.select(max(0.0, give_up - time.monotonic())), ("printed only", rest)
        piece = os.read(proc.stdout.fileno(), 65536)
        assert piece, ("it stopped", rest)
        rest += piece
    *lines, rest = rest.split(b"\n", count)
    return lines, rest


def _follower(cwd: Path, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], selectors.BaseSelector]:
    """`jouet log --follow --json --decision deny` in CWD, once it follows (and a selector on its output).

    It follows from the end of the ledger once it has started: a marker line, written until it
    prints one (however long a loaded machine takes to start it), says it is there."""
    proc = subprocess.Popen([*jouet_exe(), "log", "--follow", "--json", "--decision", "deny"], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        chooser = selectors.DefaultSelector()
        chooser.register(proc.stdout, selectors.EVENT_READ)
        for attempt in range(240):
            put("deny", [("marker", "deny")], command=f"marker {attempt}")
            if chooser.select(0.25):
                break
        while json.loads(proc.stdout.readline())["command"] != f"marker {attempt}":
            pass  # (the markers written while it started, up to the last)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return proc, chooser


def test_follow_prints_new_calls_across_a_rotation(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    put("none", [], command="echo before")
    proc, _ = _follower(repo, {**os.environ, "JOUET_LEDGER_MAX_BYTES": "4096"})
    try:
        for i in range(3):
            run_jouet("check", "git stash", cwd=repo, env={"JOUET_LEDGER_MAX_BYTES": "4096"})
            assert json.loads(_read_line(proc))["command"] == "git stash"
            run_jouet("check", f"echo filler {i} " + "x" * 3000, cwd=repo, env={"JOUET_LEDGER_MAX_BYTES": "4096"})
        assert os.path.exists(ledger.path() + ".1")  # it rotated while being followed
        run_jouet("check", "git add -A", cwd=repo, env={"JOUET_LEDGER_MAX_BYTES": "4096"})
        assert json.loads(_read_line(proc))["command"] == "git add -A"
    finally:
        proc.kill()
        proc.wait()


def test_follow_reads_a_file_made_and_rotated_away_between_two_looks(tmp_path: Path) -> None:
    """Hooks can make a new ledger file and fill it past the limit within the follower's pause: the
    file is rotated away before the follower opens it. Its lines are printed all the same, in order
    (the follower used to go on from the newest file: the lines of the one between were lost)."""
    put("none", [], command="echo before")
    proc, _ = _follower(tmp_path)
    try:
        assert proc.stdout is not None
        target = ledger.path()
        # Two rotations in a row, as ledger.rotate makes them, faster than the follower looks.
        os.replace(target, target + ".1")
        put("deny", [("x", "deny")], command="in the file between")
        os.replace(target + ".1", target + ".2")
        os.replace(target, target + ".1")
        put("deny", [("x", "deny")], command="in the newest file")
        lines, _ = _read_lines(proc, 2)
        assert [json.loads(line)["command"] for line in lines] == ["in the file between", "in the newest file"]
    finally:
        proc.kill()
        proc.wait()


# A child that runs `jouet log --follow --json --decision deny`, with hooks appending lines while it
# reads the recent ones (between opening the newest file and reading it, and after): the window a
# busy machine leaves between printing the recent lines and following.
_BUSY_HOOKS = """
import sys, time
from jouet_git import ledger
from jouet_git.commands import log

def hook(command):
    now = time.time()
    ledger.append({"v": 1, "time": ledger.iso(now), "ts": now, "harness": "claude", "event": "pre-tool-use",
                   "session": "s", "tool": "Bash", "kind": "shell", "command": command, "decision": "deny",
                   "rules": [{"rule": "x", "action": "deny"}], "records": []})

real = log.recent
def recent(*args):
    hook("while it opened the ledger")
    found = real(*args)
    hook("once it read the recent lines")
    return found

log.recent = recent
from jouet_git.cli import main
sys.exit(main(["log", "--follow", "--json", "--decision", "deny"]))
"""


def test_follow_loses_and_repeats_no_line_written_while_it_starts(tmp_path: Path) -> None:
    put("deny", [("x", "deny")], command="before it started")
    proc = subprocess.Popen([sys.executable, "-c", _BUSY_HOOKS], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        shown, rest = _read_lines(proc, 3)
        assert [json.loads(line)["command"] for line in shown] == [
            "before it started", "while it opened the ledger", "once it read the recent lines"]
        put("deny", [("x", "deny")], command="later")
        shown, rest = _read_lines(proc, 1, rest)
        assert [json.loads(line)["command"] for line in shown] == ["later"]  # (not a line shown twice)
    finally:
        proc.kill()
        proc.wait()


def test_stats_chart_by_rule_day_and_harness() -> None:
    now = time.time()
    for _ in range(6):
        put("deny", [("git-add-all", "deny")], ts=now - DAY)
    for _ in range(3):
        put("warn", [("git-add-all", "warn")], harness="codex", ts=now)
    put("deny", [("force-push", "deny")], harness="git", ts=now)
    put("none", [("checks", "record")], ts=now)
    put("none", [], ts=now)
    proc = run_jouet("log", "--stats", env={"COLUMNS": "72"})
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "\033[" not in text
    assert all(len(line) <= 72 for line in text.splitlines()), text
    by_rule = text[text.index("by rule"):text.index("by day")]
    add_all = next(line for line in by_rule.splitlines() if "git-add-all" in line)
    assert "######" in add_all and "===" in add_all and "6 denied, 3 warned" in add_all
    assert "(claude 6, codex 3)" in add_all
    days = text[text.index("by day"):text.index("by harness")].splitlines()[1:]
    yesterday = time.strftime("%Y-%m-%d", time.localtime(now - DAY))
    assert any(yesterday in line and "6 denied" in line for line in days)
    harness = text[text.index("by harness"):].splitlines()
    assert any(line.strip().startswith("codex") and "3 warned" in line for line in harness)
    assert "checks recorded: checks 1" in text
    never = " ".join(text[text.index("never fired"):].split())
    assert "git-stash" in never and "git-add-all" not in never and "force-push" not in never
    # The biggest row fills the bar; the others are scaled to it.
    assert add_all.count("#") + add_all.count("=") > by_rule.splitlines()[2].count("#")

    one = run_jouet("log", "--stats", "--rule", "git-add-all").stdout
    assert "git-add-all denials and warnings by day" in one and "never fired" not in one
    data = json.loads(run_jouet("log", "--stats", "--json").stdout)
    assert data["rules"]["git-add-all"][yesterday]["claude"] == {"deny": 6}
    assert data["rules"]["force-push"][time.strftime("%Y-%m-%d", time.localtime(now))]["git"] == {"deny": 1}
    assert "git-stash" in data["never_fired"]
