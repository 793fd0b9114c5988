"""The one way jouet starts git (and gitleaks): one environment recipe, a deadline, a kill on timeout.

    code, out, err = gitrun.git(["status", "--porcelain=v2"], root, timeout=0.2).triple()

Every caller (probes, git hooks, setup, claims sync, secret scans) comes through here, so every git
jouet runs:
- takes no optional lock (GIT_OPTIONAL_LOCKS=0): a read never holds the index lock the agent's own
  git needs;
- never prompts (GIT_TERMINAL_PROMPT=0, stdin closed) and answers in the C locale;
- never pages or runs an external diff (GIT_PAGER, PAGER, GIT_EXTERNAL_DIFF and GIT_TRACE* removed);
- runs in a session of its own, so that when the deadline passes, it and everything it started are
  killed, and the caller gets Timeout.

Variables that point git at a repository (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_COMMON_DIR)
are dropped unless the caller keeps them: git sets them for its own hooks, and they are right only
for that repository (probes keep them, made absolute, when they ask about the hook's repository).

COUNTS records how many processes of each kind ran, so tests can assert what a call cost. On the
hook path: this module imports only os at the top; subprocess is imported by the first run.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Mapping

COUNTS: dict[str, int] = {"git": 0, "gitleaks": 0}
REPO_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")
_DROPPED = ("GIT_PAGER", "PAGER", "GIT_EXTERNAL_DIFF", "GIT_TRACE", "GIT_TRACE2", "GIT_TRACE2_EVENT",
            "GIT_TRACE2_PERF", "GIT_TRACE_PACKET", "GIT_TRACE_PERFORMANCE", "GIT_TRACE_SETUP")
_FIXED = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "LANGUAGE": "C"}


class Timeout(Exception):
    """The child did not finish before its deadline, or printed more than allowed; it was killed."""


class GitMissing(Exception):
    """The program could not be started (git not on PATH, for instance)."""


class Result:
    """A finished child: its exit code and what it printed."""

    __slots__ = ("code", "stderr", "stdout")

    def __init__(self, code: int, stdout: bytes, stderr: bytes) -> None:
        self.code = code
        self.stdout = stdout
        self.stderr = stderr

    @property
    def ok(self) -> bool:
        return self.code == 0

    def text(self) -> str:
        """Standard output as text (undecodable bytes replaced)."""
        return self.stdout.decode("utf-8", "replace")

    def error(self) -> str:
        return self.stderr.decode("utf-8", "replace").strip()


def git_env(keep_repo: bool = False, extra: Mapping[str, str] | None = None,
            base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment jouet runs git with (see the module's docstring).

    KEEP_REPO keeps GIT_DIR and friends, made absolute from this process's directory; otherwise they
    are dropped. EXTRA is applied last (an author identity for a sync commit, say).
    """
    env = dict(os.environ if base is None else base)
    for name in _DROPPED:
        env.pop(name, None)
    env.update(_FIXED)
    here = os.getcwd() if keep_repo else ""
    for name in REPO_VARIABLES:
        value = env.get(name)
        if not value:
            continue
        if not keep_repo:
            del env[name]
        elif not os.path.isabs(value):
            env[name] = os.path.join(here, value)
    if extra:
        env.update(extra)
    return env


def run(argv: list[str], cwd: str | None, *, timeout: float | None = None, deadline: float | None = None,
        env: Mapping[str, str] | None = None, input: bytes | None = None, max_output: int | None = None,
        kind: str = "git") -> Result:
    """Run ARGV in CWD and wait for it, within TIMEOUT seconds or until DEADLINE (a time.monotonic()
    value), killing its whole process group past it (Timeout). With MAX_OUTPUT, stop as soon as its
    standard output exceeds that many bytes (Timeout too). ENV defaults to git_env()."""
    import subprocess
    import time

    if deadline is None and timeout is not None:
        deadline = time.monotonic() + timeout
    if deadline is not None and deadline - time.monotonic() <= 0:
        raise Timeout(f"no time was left to run {os.path.basename(argv[0])}")
    COUNTS[kind] = COUNTS.get(kind, 0) + 1
    try:
        proc = subprocess.Popen(
            argv, cwd=cwd, env=dict(env) if env is not None else git_env(),
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )
    except OSError as error:
        raise GitMissing(f"cannot run {argv[0]}: {error.strerror or error}") from None
    try:
        if max_output is None:
            left = None if deadline is None else max(deadline - time.monotonic(), 0.001)
            out, err = proc.communicate(input, timeout=left)
        else:
            out, err = _read_capped(proc, input, deadline, max_output)
    except subprocess.TimeoutExpired:
        _kill(proc)
        what = " ".join([os.path.basename(argv[0]), *argv[1:2]])
        raise Timeout(f"{what} ran out of time and was stopped") from None
    except Timeout:
        _kill(proc)
        raise
    return Result(proc.returncode, out, err)


def git(args: list[str], cwd: str | None, *, timeout: float | None = None, deadline: float | None = None,
        env: Mapping[str, str] | None = None, input: bytes | None = None,
        max_output: int | None = None) -> Result:
    """`git ARGS` in CWD, with git_env() unless ENV is given (see run)."""
    return run(["git", *args], cwd, timeout=timeout, deadline=deadline, env=env, input=input,
               max_output=max_output, kind="git")


def _read_capped(proc: subprocess.Popen[bytes], input: bytes | None, deadline: float | None,
                 limit: int) -> tuple[bytes, bytes]:
    """Read stdout and stderr together, with a deadline and a cap on stdout."""
    import contextlib
    import selectors
    import subprocess
    import time

    assert proc.stdout is not None and proc.stderr is not None
    if proc.stdin is not None:
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.write(input or b"")
        proc.stdin.close()
    chunks: dict[int, list[bytes]] = {1: [], 2: []}
    size = 0
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ, 1)
        sel.register(proc.stderr, selectors.EVENT_READ, 2)
        open_streams = 2
        while open_streams:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
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
                        raise Timeout(f"more than {limit} bytes of output")
    left = None if deadline is None else max(deadline - time.monotonic(), 0.01)
    proc.wait(timeout=left)
    return b"".join(chunks[1]), b"".join(chunks[2])


def _kill(proc: subprocess.Popen[bytes]) -> None:
    import contextlib
    import signal
    import subprocess

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired, ValueError, OSError):
        proc.communicate(timeout=5)
