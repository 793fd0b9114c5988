"""Child processes for secret scans: read-only git and gitleaks, each counted and bounded in time.

Every git call runs with GIT_OPTIONAL_LOCKS=0, so it never takes the index lock an agent's own git
needs. COUNTS records how many processes of each kind ran, so tests can assert what a scan cost.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Mapping

COUNTS = {"git": 0, "gitleaks": 0}


class OverBudget(Exception):
    """A child ran out of time (and was killed), or printed more than the caller allows."""


class Result:
    __slots__ = ("code", "stderr", "stdout")

    def __init__(self, code: int, stdout: bytes, stderr: bytes) -> None:
        self.code = code
        self.stdout = stdout
        self.stderr = stderr


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env["LC_ALL"] = "C"
    for name in ("GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER"):
        env.pop(name, None)
    if extra:
        env.update(extra)
    return env


def run(argv: list[str], cwd: str, deadline: float, env: Mapping[str, str] | None = None,
        max_output: int | None = None, kind: str = "git") -> Result:
    """Run ARGV in CWD until DEADLINE (a time.monotonic() value); kill its process group past it.

    With MAX_OUTPUT, stop (and kill the child) as soon as its standard output exceeds that many bytes.
    """
    import subprocess
    import time

    COUNTS[kind] = COUNTS.get(kind, 0) + 1
    left = deadline - time.monotonic()
    if left <= 0:
        raise OverBudget(f"no time left to run {argv[0]}")
    proc = subprocess.Popen(
        argv, cwd=cwd, env=dict(env) if env is not None else git_env(), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )
    try:
        if max_output is None:
            out, err = proc.communicate(timeout=left)
        else:
            out, err = _read_capped(proc, deadline, max_output)
    except subprocess.TimeoutExpired:
        _kill(proc)
        raise OverBudget(f"{os.path.basename(argv[0])} ran out of time") from None
    except OverBudget:
        _kill(proc)
        raise
    return Result(proc.returncode, out, err)


def _read_capped(proc: subprocess.Popen[bytes], deadline: float, limit: int) -> tuple[bytes, bytes]:
    """Read stdout and stderr together with a deadline and a cap on stdout."""
    import selectors
    import subprocess
    import time

    assert proc.stdout is not None and proc.stderr is not None
    chunks: dict[int, list[bytes]] = {1: [], 2: []}
    size = 0
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, 1)
    sel.register(proc.stderr, selectors.EVENT_READ, 2)
    open_streams = 2
    while open_streams:
        left = deadline - time.monotonic()
        if left <= 0:
            raise subprocess.TimeoutExpired(proc.args, 0)
        for key, _ in sel.select(timeout=left):
            data = os.read(key.fd, 65536)
            if not data:
                sel.unregister(key.fileobj)
                open_streams -= 1
                continue
            chunks[key.data].append(data)
            if key.data == 1:
                size += len(data)
                if size > limit:
                    raise OverBudget(f"more than {limit} bytes of output")
    left = deadline - time.monotonic()
    proc.wait(timeout=max(left, 0.01))
    return b"".join(chunks[1]), b"".join(chunks[2])


def _kill(proc: subprocess.Popen[bytes]) -> None:
    import contextlib
    import signal
    import subprocess

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.communicate(timeout=5)


def git(args: list[str], cwd: str, deadline: float, max_output: int | None = None) -> Result:
    """A read-only git call; `-c` options keep user config from changing the diff format."""
    argv = ["git", "-c", "core.quotePath=true", "-c", "color.ui=never", *args]
    return run(argv, cwd, deadline, git_env(), max_output, kind="git")
