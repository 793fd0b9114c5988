"""gitrun starts every git and gitleaks jouet runs with posix_spawn: what a child gets (directory,
input, signals, session), what comes back (output, errors, exit code), and the deadline and output cap
that stop it, all with real processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testing import ended

from jouet_git import gitrun

LINUX = sys.platform.startswith("linux")


def test_the_restored_signal_numbers_are_sigpipe_and_sigxfsz() -> None:
    assert gitrun.RESTORED_SIGNALS == (signal.SIGPIPE, signal.SIGXFSZ)


def test_output_errors_and_exit_code_come_back() -> None:
    result = gitrun.run(["sh", "-c", "echo out; echo err >&2; exit 3"], None, timeout=10, kind="test")
    assert (result.code, result.stdout, result.stderr) == (3, b"out\n", b"err\n")
    assert gitrun.COUNTS["test"] >= 1


def test_a_child_killed_by_a_signal_has_a_negative_code() -> None:
    assert gitrun.run(["sh", "-c", "kill -9 $$"], None, timeout=10).code == -9


def test_the_child_runs_in_the_given_directory_and_ours_is_left_alone(tmp_path: Path) -> None:
    here = os.getcwd()
    result = gitrun.run(["pwd"], str(tmp_path), timeout=10)
    assert result.text().strip() == os.path.realpath(tmp_path)
    assert os.getcwd() == here


def test_a_missing_directory_or_program_is_gitmissing(tmp_path: Path) -> None:
    here = os.getcwd()
    with pytest.raises(gitrun.GitMissing, match="cannot run pwd"):
        gitrun.run(["pwd"], str(tmp_path / "gone"), timeout=10)
    with pytest.raises(gitrun.GitMissing, match="cannot run no-such-program-jouet"):
        gitrun.run(["no-such-program-jouet"], None, timeout=10)
    assert os.getcwd() == here


def test_the_program_is_looked_up_on_the_childs_path(tmp_path: Path) -> None:
    tool = tmp_path / "jouet-test-tool"
    tool.write_text("#!/bin/sh\necho found\n")
    tool.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    assert gitrun.run(["jouet-test-tool"], None, timeout=10, env=env).stdout == b"found\n"


def test_input_larger_than_a_pipe_is_written_while_output_is_read() -> None:
    data = bytes(range(256)) * 4096  # 1 MiB: far past the pipe's buffer both ways
    assert gitrun.run(["cat"], None, timeout=30, input=data).stdout == data


def test_a_child_that_stops_reading_its_input_still_answers() -> None:
    result = gitrun.run(["sh", "-c", "head -c 10 >/dev/null; echo read"], None, timeout=10, input=b"y" * 2_000_000)
    assert result.stdout == b"read\n"


def test_without_input_the_child_reads_dev_null() -> None:
    assert gitrun.run(["sh", "-c", "cat; echo end"], None, timeout=10).stdout == b"end\n"


def test_past_the_deadline_the_childs_whole_session_is_killed(tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    start = time.monotonic()
    with pytest.raises(gitrun.Timeout, match="ran out of time"):
        gitrun.run(["sh", "-c", f"sleep 60 & echo $! > {marker}; wait"], None, timeout=0.5)
    assert time.monotonic() - start < 30
    pid = int(marker.read_text())
    assert ended(pid), f"the grandchild {pid} outlived the deadline"  # killed with the session


def test_no_time_left_runs_nothing() -> None:
    before = gitrun.COUNTS.get("git", 0)
    with pytest.raises(gitrun.Timeout, match="no time was left"):
        gitrun.git(["version"], None, deadline=time.monotonic() - 1)
    assert gitrun.COUNTS.get("git", 0) == before


def test_output_past_the_cap_stops_the_child() -> None:
    with pytest.raises(gitrun.Timeout, match="more than 1000 bytes of output"):
        gitrun.run(["sh", "-c", "yes"], None, timeout=30, max_output=1000)


@pytest.mark.skipif(not LINUX, reason="reads /proc")
def test_the_child_has_its_own_session_and_default_sigpipe() -> None:
    out = gitrun.run(["sh", "-c", "echo $$; cut -d' ' -f6 /proc/$$/stat; grep SigIgn /proc/$$/status"],
                     None, timeout=10).text().split("\n")
    pid, session, ignored = out[0], out[1], int(out[2].split()[1], 16)
    assert pid == session
    assert not ignored & (1 << (signal.SIGPIPE - 1))
    assert not ignored & (1 << (signal.SIGXFSZ - 1))


def test_with_fd_0_1_2_closed_the_pipes_do_not_tangle() -> None:
    code = ("import os\nfrom jouet_git import gitrun\n"
            "for fd in (0, 1, 2): os.close(fd)\n"
            "r = gitrun.run(['sh', '-c', 'cat; echo out; echo err >&2'], None, timeout=10, input=b'in ')\n"
            "os.write(W, repr((r.code, r.stdout, r.stderr)).encode())\n")
    read, write = os.pipe()
    proc = subprocess.Popen([sys.executable, "-c", code.replace("W", str(write))], pass_fds=(write,))
    os.close(write)
    proc.wait(timeout=30)
    assert proc.returncode == 0
    with os.fdopen(read, "rb") as f:
        assert f.read() == repr((0, b"in out\n", b"err\n")).encode()


def test_running_git_imports_neither_subprocess_nor_signal(tmp_path: Path) -> None:
    code = ("import sys\nfrom jouet_git import gitrun\n"
            "r = gitrun.git(['rev-parse', '--show-toplevel'], sys.argv[1], timeout=10)\n"
            "print(r.code, sorted(m for m in ('subprocess', 'signal', 'threading', 'selectors', 'locale', "
            "'contextlib') if m in sys.modules))\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    out = subprocess.run([sys.executable, "-I", "-c", code, str(tmp_path)], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "0 []"


def test_started_children_run_side_by_side(tmp_path: Path) -> None:
    """Two children started one after the other both run before either is waited for: each waits
    for a file the other writes."""
    a, b = tmp_path / "a", tmp_path / "b"
    first = gitrun.start(["sh", "-c", f"touch {a}; while [ ! -e {b} ]; do sleep 0.01; done; echo one"], None,
                         timeout=20)
    second = gitrun.start(["sh", "-c", f"touch {b}; while [ ! -e {a} ]; do sleep 0.01; done; echo two"], None,
                          timeout=20)
    assert second.result().stdout == b"two\n"
    assert first.result().stdout == b"one\n"


def test_input_is_written_at_start_and_the_rest_while_reading() -> None:
    small = gitrun.start(["cat"], None, timeout=10, input=b"early\n")
    large_data = b"z" * 300_000  # past the pipe: the rest is written by result()
    large = gitrun.start(["cat"], None, timeout=30, input=large_data)
    assert large.result().stdout == large_data
    assert small.result().stdout == b"early\n"


def test_input_given_later_reaches_a_child_already_running(tmp_path: Path) -> None:
    # The child is up (it wrote its marker) before its input is known; send() then gives it.
    marker = tmp_path / "up"
    running = gitrun.start(["sh", "-c", f"touch {marker}; cat"], None, timeout=20, later_input=True)
    assert running.waiting_for_input
    for _ in range(500):
        if marker.exists():
            break
        time.sleep(0.01)
    assert marker.exists()
    running.send(b"known now\n")
    assert not running.waiting_for_input
    with pytest.raises(ValueError):
        running.send(b"twice")
    assert running.result().stdout == b"known now\n"
    never = gitrun.start(["cat"], None, timeout=20, later_input=True)
    assert never.result().stdout == b""  # never sent any: it gets the end of its input


def test_an_abandoned_child_is_killed_and_reaped(tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    running = gitrun.start(["sh", "-c", f"echo $$ > {marker}; exec sleep 60"], None, timeout=30)
    for _ in range(200):
        if marker.exists() and marker.read_text().strip():
            break
        time.sleep(0.01)
    pid = int(marker.read_text())
    running.abandon()
    with pytest.raises(ChildProcessError):  # reaped: no child of ours by that number is left
        os.waitpid(pid, os.WNOHANG)
    running.abandon()  # twice is harmless
