"""`jouet check --jsonl` with worker processes (commands/check_pool.py): once lines wait, forked
workers answer them, and the answers are those of one process, in input order. Real `jouet`
processes on real repositories; the workers are seen in /proc (the children of the jouet process
that run the same command line), and a test waits for what it needs to see, never for a time.

A jouet process whose output nobody reads stops when its stdout pipe is full: the tests whose output
is larger than the pipes hold (STOPS) look at its workers then, while they are sure to be alive."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import pytest
from testing import ended, git, jouet_exe, make_repo

from jouet_git import ledger
from jouet_git.commands import check_pool
from jouet_git.commands.check import run_jsonl
from jouet_git.engine.runner import Runner

# What a pipe holds on Linux. Output larger than five pipes (stdout, a pipe from each of two workers,
# what the jouet process read and is writing) stops a jouet process nobody reads with its workers alive.
PIPE_HOLDS = 65536
STOPS = 5 * PIPE_HOLDS


def _agent_commands() -> list[str]:
    with open(Path(__file__).parent.parent / "data" / "shell" / "agent_commands.json", encoding="utf-8") as f:
        commands: list[str] = json.load(f)
    return commands


def _lines(commands: list[str]) -> str:
    return "".join(json.dumps({"command": c}) + "\n" for c in commands)


def _ledger_lines() -> int:
    """How many lines the ledger holds (not counting empty ones: two processes appending at the same
    moment may leave one, see ledger.append_many, which readers skip)."""
    try:
        with open(ledger.path(), encoding="utf-8") as f:
            return sum(1 for line in f if line.strip())
    except FileNotFoundError:
        return 0


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(child) for child in f.read().split()]
    except FileNotFoundError:
        return []


def _cmdline(pid: int) -> bytes | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def _workers(pid: int) -> list[int]:
    """The workers of jouet process PID: its children running its own command line (forks of it)."""
    own = _cmdline(pid)
    return [child for child in _children(pid) if _cmdline(child) == own]


def _until(what: Callable[[], Any], within: float = 120.0) -> Any:
    """WHAT's first true answer, asking again until it comes (WITHIN only ends a test that would
    otherwise hang: no test asserts how long anything takes)."""
    give_up = time.monotonic() + within
    while True:
        answer = what()
        if answer or time.monotonic() > give_up:
            return answer
        time.sleep(0.005)


def _input_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / f"input-{len(list(tmp_path.glob('input-*')))}.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def _serial(stdin: Path, cwd: Path) -> bytes:
    """What one process answers (--workers 1), left out of the ledger."""
    with open(stdin, "rb") as f:
        proc = subprocess.run([*jouet_exe(), "check", "--jsonl", "--workers", "1", "--no-record"], stdin=f,
                              capture_output=True, cwd=cwd, check=True, timeout=300)
    assert proc.stderr == b""
    return proc.stdout


def _started(stdin: Path, cwd: Path, *options: str) -> subprocess.Popen[bytes]:
    with open(stdin, "rb") as f:
        return subprocess.Popen([*jouet_exe(), "check", "--jsonl", *options], stdin=f, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=cwd)


def _staged_secret(path: Path) -> Path:
    repo = make_repo(path, {"README.md": "hello\n", "src/app.py": "x = 1\n"})
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "deploy.sh").write_text("export GITHUB_TOKEN=ghp_" + "k8Qw3ZtR7yLm2NpX5vBc9DfG1hJs4KaE6uTo\n")
    git(repo, "add", "deploy.sh")
    return repo


QUICK = ["ls -la", "git status", "pwd", "git diff --stat", "cat README.md", "echo done", "git log -3", "npm test"]


def _corpus(elsewhere: Path) -> str:
    """The agent commands three times, then quick commands (answered again from the kept decisions:
    enough lines for an output larger than STOPS), with blank and bad lines, a line for another
    directory and file tools among them, and a last line cut short without its newline."""
    lines = [json.dumps({"command": c}) for c in _agent_commands() * 3 + QUICK * 300]
    lines[40:40] = ["", "not json", "   ", json.dumps({"command": 3}), json.dumps(["a list"]), "\t"]
    lines[300:300] = [json.dumps({"command": "git add -A", "cwd": str(elsewhere)}),
                      json.dumps({"tool": "Edit", "path": ".env"}), json.dumps({"tool": "Read", "path": "x"})]
    return "\n".join(lines) + "\n\n" + '{"command": "git status"'


@pytest.mark.parametrize("where", ["repository", "outside"])
def test_workers_answer_as_one_process_does(tmp_path: Path, where: str) -> None:
    cwd = _staged_secret(tmp_path / "r") if where == "repository" else tmp_path / "plain"
    cwd.mkdir(exist_ok=True)
    elsewhere = make_repo(tmp_path / "other", {"a.txt": "a\n"})
    stdin = _input_file(tmp_path, _corpus(elsewhere))
    expected = _serial(stdin, cwd)
    lines = expected.count(b"\n")
    assert lines == 3 * 120 + 2400 + 3 + 3 + 1  # every line but the blank ones
    assert len(expected) > STOPS
    proc = _started(stdin, cwd, "--workers", "2")
    # Nobody reads its output yet: it stops when the pipe is full, with its workers started.
    workers = _until(lambda: len(_workers(proc.pid)) == 2 and _workers(proc.pid))
    assert len(workers) == 2, _children(proc.pid)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and err == b"", err
    assert out == expected  # line for line: the same answers, in input order
    answers = [json.loads(line) for line in out.splitlines()]
    assert _ledger_lines() == sum("error" not in a for a in answers)  # one a call (a bad line is none)
    assert all(ended(pid) for pid in workers)
    # A bad line's error names its line in the input, blank lines counted.
    assert [answers[n]["error"].split(":")[0] for n in (40, 41, 42)] == ["line 42", "line 44", "line 45"]
    assert answers[-1]["error"].startswith(f"line {stdin.read_text().count(chr(10)) + 1}: ")
    denied = {a["deny"]["rule"] for a in answers if a.get("deny")}
    if where == "repository":
        assert "committed-secrets" in denied
    else:
        assert "committed-secrets" not in denied and "git-add-all" in denied


def test_one_worker_forks_nothing(tmp_path: Path) -> None:
    """--workers 1 answers everything in this process; 2 forks two workers (counted by the code)."""
    stdin = _input_file(tmp_path, _lines(_agent_commands() * 3))
    answers = []
    for workers, forks in ((1, 0), (2, 2)):
        before = check_pool.started
        out = io.StringIO()
        with open(stdin, encoding="utf-8") as f:
            assert run_jsonl(f, out, str(tmp_path), Runner(record=False), workers=workers) == 0
        assert check_pool.started - before == forks
        answers.append(out.getvalue())
    assert answers[0] == answers[1] and answers[0].count("\n") == 360


def test_a_text_goes_where_it_went_and_a_new_one_to_the_least_busy_worker(tmp_path: Path) -> None:
    """The routing alone (commands/check_pool.py _Pool.give), with two workers that are only seen:
    what each is sent, as the frames a worker reads."""
    from jouet_git.commands.check import Answerer
    from jouet_git.shell import ParseMemo

    answerer = Answerer(Runner(record=False), str(tmp_path), None, ParseMemo())
    pool = check_pool._Pool(None, io.StringIO(), answerer)  # (no input: lines are given by hand)
    a, b = check_pool._Worker(0, 1000, 1001), check_pool._Worker(0, 1002, 1003)
    pool.workers = [a, b]
    for number, line in enumerate(['{"command": "x"}\n', '{"command": "y"}\n', '{"command": "z"}\n',
                                   '{"command": "x"}\n'], 1):
        pool.give(number, line)
    # x and z to the first (the two had as many lines to answer), y to the second, x again where it went.
    assert bytes(a.out) == b'1 {"command": "x"}\n3 {"command": "z"}\n4 {"command": "x"}\n'
    assert bytes(b.out) == b'2 {"command": "y"}\n'
    assert list(a.sent) == [0, 2, 3] and list(b.sent) == [1]
    a.lines = None  # as when it died: x goes to the other one now, and stays there
    pool.give(5, '{"command": "x"}\n')
    pool.give(6, '{"command": "x"}')  # the last line, without its newline: a negative number says so
    assert bytes(b.out).endswith(b'5 {"command": "x"}\n-6 {"command": "x"}\n')
    b.lines = None  # no worker left: answered here
    pool.give(7, "not json\n")
    assert pool.done == {6: json.dumps({"error": "line 7: Expecting value: line 1 column 1 (char 0)"})}


def _feed(proc: subprocess.Popen[str], text: str) -> threading.Thread:
    """Write TEXT to PROC from a thread (it may wait for its output to be read first)."""
    assert proc.stdin is not None
    stdin = proc.stdin

    def write() -> None:
        stdin.write(text)
        stdin.flush()

    thread = threading.Thread(target=write)
    thread.start()
    return thread


def _read(stdout: IO[str], count: int) -> list[str]:
    return [stdout.readline() for _ in range(count)]


def test_a_client_that_waits_gets_every_answer_with_or_without_workers(tmp_path: Path) -> None:
    commands = _agent_commands()
    burst = _lines(commands * 25)
    expected = _serial(_input_file(tmp_path, burst), tmp_path).decode().splitlines(keepends=True)
    assert len("".join(expected)) > STOPS
    one = ["git add -A", "git status", "git push --force", "ls -la", "npm test"]
    expected_one = _serial(_input_file(tmp_path, _lines(one)), tmp_path).decode().splitlines(keepends=True)
    proc = subprocess.Popen([*jouet_exe(), "check", "--jsonl", "--workers", "2"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, text=True)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    recorded = 0
    try:
        # One line at a time, each answer awaited: answered here, no worker started.
        for command, answer in zip(one, expected_one, strict=True):
            proc.stdin.write(_lines([command]))
            proc.stdin.flush()
            assert proc.stdout.readline() == answer
            recorded += 1
            assert _children(proc.pid) == []  # (each git a line runs has ended before its answer)
            assert _ledger_lines() == recorded  # its ledger line was written before its answer
        # Many lines at once: workers answer them.
        feeding = _feed(proc, burst)
        workers = _until(lambda: len(_workers(proc.pid)) == 2 and _workers(proc.pid))
        assert len(workers) == 2
        assert _read(proc.stdout, len(expected)) == expected
        feeding.join()
        recorded += len(expected)
        assert _ledger_lines() == recorded
        # One line again, awaited: the workers answer it at once, with its ledger line.
        for command, answer in zip(one, expected_one, strict=True):
            proc.stdin.write(_lines([command]))
            proc.stdin.flush()
            assert proc.stdout.readline() == answer
            recorded += 1
            assert _ledger_lines() == recorded
        # A worker killed while it waits for lines: the other one, and this process, answer the rest.
        dead = workers[0]
        os.kill(dead, signal.SIGKILL)
        assert _until(lambda: _children(proc.pid) == workers[1:])  # reaped: no zombie is left
        feeding = _feed(proc, burst)
        assert _read(proc.stdout, len(expected)) == expected
        feeding.join()
        recorded += len(expected)
        assert _ledger_lines() == recorded
    finally:
        proc.stdin.close()
        proc.wait(timeout=300)
    assert proc.returncode == 0 and proc.stdout.read() == "" and proc.stderr.read() == ""
    assert all(ended(pid) for pid in workers)


def test_a_worker_killed_while_it_works_never_hangs_the_stream(tmp_path: Path) -> None:
    text = _lines([f"# {n}\n{c}" for n, c in enumerate(_agent_commands() * 25)])  # no text comes twice
    stdin = _input_file(tmp_path, text)
    expected = _serial(stdin, tmp_path)
    assert len(expected) > STOPS
    proc = _started(stdin, tmp_path, "--workers", "2")
    workers = _until(lambda: len(_workers(proc.pid)) == 2 and _workers(proc.pid))
    assert len(workers) == 2
    os.kill(workers[1], signal.SIGKILL)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and err == b"", err
    assert out == expected
    # Every line is recorded. A worker says which answers it sends are of lines it recorded, so that
    # they are not recorded again when it dies sending them; only a kill in the moment between its
    # ledger write and saying so records the lines of its last batch twice.
    lines = expected.count(b"\n")
    assert lines <= _ledger_lines() <= lines + check_pool.BATCH
    assert all(ended(pid) for pid in workers)


def _waits_in(pid: int) -> str:
    """Where in the kernel process PID sleeps (its wchan), "" when it runs or cannot be told."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] != "S":
                return ""
        with open(f"/proc/{pid}/wchan") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def test_workers_killed_while_they_wait_to_send_leave_every_line_recorded_once(tmp_path: Path) -> None:
    """A worker whose answers nobody reads waits either for room in its pipe (its batch not yet
    recorded: the routing process answers and records those lines) or in the middle of sending it
    (recorded, and it said so first: they are answered again without being recorded again). Both
    workers are killed: the routing process answers everything left."""
    stdin = _input_file(tmp_path, _lines([f"# {n}\n{c}" for n, c in enumerate(_agent_commands() * 25)]))
    expected = _serial(stdin, tmp_path)
    assert len(expected) > STOPS
    proc = _started(stdin, tmp_path, "--workers", "2")
    workers = _until(lambda: len(_workers(proc.pid)) == 2 and _workers(proc.pid))
    assert len(workers) == 2
    # Once this process waits to write its output and each worker waits to send (or for room to),
    # none of them can move until the output is read: each worker is killed where it waits.
    sending = _until(lambda: "pipe_write" in _waits_in(proc.pid)
                     and all("pipe_write" in _waits_in(w) or "poll" in _waits_in(w) for w in workers))
    if not sending:
        proc.kill()
        proc.wait()
        pytest.skip("/proc/PID/wchan does not say where a process sleeps here")
    for worker in workers:
        os.kill(worker, signal.SIGKILL)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and err == b"", err
    assert out == expected
    assert _ledger_lines() == expected.count(b"\n")
    assert all(ended(pid) for pid in workers)


def test_a_client_that_closes_the_output_ends_everything_quietly(tmp_path: Path) -> None:
    stdin = _input_file(tmp_path, _lines(_agent_commands() * 25))
    proc = _started(stdin, tmp_path, "--workers", "2")
    assert proc.stdout is not None and proc.stderr is not None
    workers = _until(lambda: len(_workers(proc.pid)) == 2 and _workers(proc.pid))
    assert len(workers) == 2
    assert json.loads(proc.stdout.readline())["decision"] == "none"
    proc.stdout.close()
    assert proc.wait(timeout=300) == 0
    assert proc.stderr.read() == b""  # no traceback
    assert all(ended(pid) for pid in workers)


def test_ctrl_c_ends_everything_quietly(tmp_path: Path) -> None:
    """Ctrl-C reaches every process of the terminal's foreground group: jouet and its workers."""
    stdin = _input_file(tmp_path, _lines(_agent_commands() * 25))
    with open(stdin, "rb") as f:
        proc = subprocess.Popen([*jouet_exe(), "check", "--jsonl", "--workers", "2"], stdin=f,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, start_new_session=True)
    workers = _until(lambda: len(_workers(proc.pid)) == 2 and _workers(proc.pid))
    assert len(workers) == 2
    os.killpg(proc.pid, signal.SIGINT)
    _out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130 and err == b"", err
    assert all(ended(pid) for pid in workers)


@pytest.mark.parametrize(("options", "message"), [
    (["--jsonl", "--workers", "0"], "--workers 0: give a number from 1"),
    (["--workers", "2", "ls"], "--workers is for --jsonl"),
])
def test_workers_option_errors(tmp_path: Path, options: list[str], message: str) -> None:
    proc = subprocess.run([*jouet_exe(), "check", *options], capture_output=True, text=True, cwd=tmp_path,
                          input="", timeout=60)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
