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
hook path: this module imports only os at the top, and a run adds select (and fcntl, rarely); it never
imports subprocess (see _Child).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

COUNTS: dict[str, int] = {"git": 0, "gitleaks": 0}
# A stream's memo of git's answers read from the repository's files alone (gitmemo.GitMemo), or None.
MEMO: Any = None
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
    return start(argv, cwd, timeout=timeout, deadline=deadline, env=env, input=input, max_output=max_output,
                 kind=kind).result()


def start(argv: list[str], cwd: str | None, *, timeout: float | None = None, deadline: float | None = None,
          env: Mapping[str, str] | None = None, input: bytes | None = None, max_output: int | None = None,
          kind: str = "git", later_input: bool = False) -> Running:
    """Start ARGV as run() would, and return at once: its result() waits for it. Several started
    one after the other run side by side (each git costs about a millisecond to start, mostly
    outside jouet's process). INPUT is written at once as far as the pipe takes it, the rest while
    result() reads; with LATER_INPUT, the input is given later by Running.send(). One not waited
    for must be abandon()ed."""
    import time

    if deadline is None and timeout is not None:
        deadline = time.monotonic() + timeout
    _time_left(deadline, argv)
    used = dict(env) if env is not None else git_env()
    memo = MEMO
    if memo is not None and kind == "git" and memo.key(argv, cwd, used, b"" if later_input else input) is not None:
        # Its answer may be kept (keyed by its input, given now or later): started when its result
        # is asked for, unless kept; never, if abandoned first (a scan's runs started in case).
        return Deferred(argv, cwd, used, deadline, max_output, input, later_input)
    COUNTS[kind] = COUNTS.get(kind, 0) + 1
    child = _Child(argv, cwd, used, later_input or input is not None)
    running = Running(child, argv, deadline, max_output)
    if not later_input:
        running.send(input)
    return running


def _time_left(deadline: float | None, argv: list[str]) -> None:
    """Timeout when DEADLINE (a time.monotonic() value) has passed: ARGV is not started."""
    if deadline is not None:
        import time

        if deadline - time.monotonic() <= 0:
            raise Timeout(f"no time was left to run {os.path.basename(argv[0])}")


class Running:
    """A child start() started, until result() or abandon()."""

    __slots__ = ("_argv", "_child", "_deadline", "_fed", "_max_output")

    def __init__(self, child: _Child, argv: list[str], deadline: float | None, max_output: int | None) -> None:
        self._child = child
        self._argv = argv
        self._deadline = deadline
        self._max_output = max_output
        self._fed = False

    @property
    def waiting_for_input(self) -> bool:
        """Started with later_input, and given none yet (send)."""
        return not self._fed

    def send(self, data: bytes | None) -> None:
        """Give the child its input (started with later_input): written as far as the pipe takes it
        now, the rest while result() reads; the input is then closed."""
        if self._fed:
            raise ValueError("the child's input was given already")
        self._fed = True
        self._child.feed(data)

    def result(self) -> Result:
        """Wait for the child (see run()). Started with later_input and never sent any, it gets none."""
        child = self._child
        if not self._fed:
            self.send(b"")
        try:
            return child.communicate(self._deadline, self._max_output)
        except Timeout as stopped:
            child.kill()
            if stopped.args:
                raise
            what = " ".join([os.path.basename(self._argv[0]), *self._argv[1:2]])
            raise Timeout(f"{what} ran out of time and was stopped") from None
        except BaseException:
            child.kill()
            raise

    def abandon(self) -> None:
        """Kill the child (if it still runs) and reap it: its result is not wanted."""
        self._child.kill()


class Deferred(Running):
    """What start() gives, under a stream's memo, for a run whose answer the memo may keep
    (gitmemo.py): the child starts only when its result is asked for, and not at all when the memo
    has the answer (to the input it was given, now or later), or when it is abandoned first."""

    __slots__ = ("_cwd", "_env", "_input")

    def __init__(self, argv: list[str], cwd: str | None, env: dict[str, str], deadline: float | None,
                 max_output: int | None, input: bytes | None, later_input: bool) -> None:
        self._argv = argv
        self._cwd = cwd
        self._env = env
        self._deadline = deadline
        self._max_output = max_output
        self._input = input
        self._fed = not later_input
        self._child = None  # type: ignore[assignment]

    def send(self, data: bytes | None) -> None:
        if self._fed:
            raise ValueError("the child's input was given already")
        self._fed = True
        self._input = data or b""

    def result(self) -> Result:
        if not self._fed:
            self.send(b"")
        memo = MEMO
        key = memo.key(self._argv, self._cwd, self._env, self._input) if memo is not None else None
        fingerprint = None
        if key is not None:
            answer: Result | None = memo.get(key)
            if answer is not None:
                if self._max_output is not None and len(answer.stdout) > self._max_output:
                    raise Timeout(f"more than {self._max_output} bytes of output")
                return answer
            fingerprint = memo.print_for(key)  # (before git runs: what its answer is read from)
        _time_left(self._deadline, self._argv)
        COUNTS["git"] = COUNTS.get("git", 0) + 1
        self._child = _Child(self._argv, self._cwd, self._env, self._input is not None)
        self._child.feed(self._input)
        result = Running.result(self)
        if key is not None:
            memo.put(key, fingerprint, result)
        return result

    def abandon(self) -> None:
        if self._child is not None:
            self._child.kill()


def git(args: list[str], cwd: str | None, *, timeout: float | None = None, deadline: float | None = None,
        env: Mapping[str, str] | None = None, input: bytes | None = None,
        max_output: int | None = None) -> Result:
    """`git ARGS` in CWD, with git_env() unless ENV is given (see run)."""
    return run(["git", *args], cwd, timeout=timeout, deadline=deadline, env=env, input=input,
               max_output=max_output, kind="git")




# Signals a child gets back at their default action: Python ignores SIGPIPE and SIGXFSZ in its own
# process, and a child spawned with that would inherit it. By number (the same on Linux and macOS):
# importing the signal module costs a hook more than starting git does; tests check the numbers.
RESTORED_SIGNALS = (13, 25)  # SIGPIPE, SIGXFSZ
_SIGKILL = 9


class _Child:
    """A program started with posix_spawn and read through pipes with poll.

    Not subprocess: importing it (with threading, signal, selectors and locale behind it) cost a hook
    more instructions than all the git it ran. The child runs in a session of its own (so a kill
    reaches everything it started), its signals at their defaults, its standard input a pipe or
    /dev/null. posix_spawn cannot change the child's directory, so the parent changes its own around
    the spawn and changes back (through a descriptor, so a renamed directory does not matter): jouet
    spawns from one thread only (the `secrets` progress line's thread never reads the directory)."""

    __slots__ = ("_err", "_fds", "_in", "_out", "_pidfd", "_view", "_written", "code", "pid")

    def __init__(self, argv: list[str], cwd: str | None, env: dict[str, str], piped_input: bool) -> None:
        self.code: int | None = None
        self.pid = 0
        self._fds: list[int] = []
        self._pidfd = -1
        self._view = memoryview(b"")
        self._written = 0
        try:
            self._out, out_w = self._pipe()
            self._err, err_w = self._pipe()
            actions: list[tuple[int, ...] | tuple[int, int, str, int, int]] = []
            if piped_input:
                in_r, self._in = self._pipe()
                actions.append((os.POSIX_SPAWN_DUP2, in_r, 0))
            else:
                self._in = -1
                actions.append((os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0))
            actions += [(os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)]
            self.pid = _spawn(argv, cwd, env, actions)
        except OSError as error:
            self.close()
            raise GitMissing(f"cannot run {argv[0]}: {error.strerror or error}") from None
        for fd in (out_w, err_w) + ((in_r,) if piped_input else ()):
            self._close(fd)
        pidfd_open = getattr(os, "pidfd_open", None)
        if pidfd_open is not None:
            try:
                self._pidfd = pidfd_open(self.pid)
                self._fds.append(self._pidfd)
            except OSError:  # a kernel before 5.3: waiting polls instead
                self._pidfd = -1

    def _pipe(self) -> tuple[int, int]:
        """A pipe whose two ends are above 2 (were 0, 1 or 2 closed in this process, a pipe could
        land there, and the spawn's dup2 onto 0 to 2 would tangle them)."""
        ends = []
        for fd in os.pipe():
            if fd < 3:
                import fcntl

                high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
                os.close(fd)
                fd = high
            self._fds.append(fd)
            ends.append(fd)
        return ends[0], ends[1]

    def _close(self, fd: int) -> None:
        if fd in self._fds:
            self._fds.remove(fd)
            os.close(fd)

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []

    def feed(self, data: bytes | None) -> None:
        """Write DATA to the child's input as far as the pipe takes it now; communicate() writes the
        rest. No data (or none left): the input is closed, so the child sees its end."""
        self._view = memoryview(data or b"")
        if self._in < 0:
            return
        if self._view:
            os.set_blocking(self._in, False)
            self._write()
        else:
            self._close(self._in)
            self._in = -1

    def _write(self) -> None:
        """Write what the pipe takes of the input left; close it once all is written."""
        try:
            self._written += os.write(self._in, self._view[self._written:self._written + 65536])
        except BlockingIOError:
            return
        except BrokenPipeError:  # the child stopped reading: what it said still counts
            self._written = len(self._view)
        if self._written >= len(self._view):
            self._close(self._in)
            self._in = -1

    def communicate(self, deadline: float | None, limit: int | None) -> Result:
        """Write the rest of the input (see feed) while reading the child's output, until it exits;
        Timeout (with no message) past DEADLINE, Timeout with a message past LIMIT bytes of standard
        output."""
        import select
        import time

        chunks: dict[int, list[bytes]] = {self._out: [], self._err: []}
        poller = select.poll()
        for fd in chunks:
            poller.register(fd, select.POLLIN)
        if self._in >= 0:
            poller.register(self._in, select.POLLOUT)
        reading = 2
        size = 0
        while reading or self._in >= 0:
            wait = None
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Timeout()
                wait = int(left * 1000) + 1
            for fd, _ in poller.poll(wait):
                if fd == self._in:
                    stdin = self._in
                    self._write()
                    if self._in < 0:
                        poller.unregister(stdin)
                else:
                    piece = os.read(fd, 65536)
                    if not piece:
                        poller.unregister(fd)
                        reading -= 1
                        continue
                    chunks[fd].append(piece)
                    if fd == self._out and limit is not None:
                        size += len(piece)
                        if size > limit:
                            raise Timeout(f"more than {limit} bytes of output")
        code = self._wait(deadline)
        self.close()
        return Result(code, b"".join(chunks[self._out]), b"".join(chunks[self._err]))

    def _reaped(self, flags: int) -> None:
        pid, status = os.waitpid(self.pid, flags)
        if pid:
            self.code = os.waitstatus_to_exitcode(status)

    def _wait(self, deadline: float | None) -> int:
        """Wait for the child to exit, until DEADLINE (Timeout): on its pidfd where the kernel has
        them, else by asking with pauses that grow to 10 ms."""
        import time

        if self._pidfd >= 0 and deadline is not None:
            import select

            left = deadline - time.monotonic()
            if left > 0:
                exited = select.poll()
                exited.register(self._pidfd, select.POLLIN)
                exited.poll(int(left * 1000) + 1)
        pause = 0.0002
        while True:
            self._reaped(0 if deadline is None else os.WNOHANG)
            if self.code is not None:
                return self.code
            assert deadline is not None
            if time.monotonic() >= deadline:
                raise Timeout()
            time.sleep(pause)
            pause = min(pause * 2, 0.01)

    def kill(self) -> None:
        """Kill the child's whole session and reap it (giving up after 5 s of a child that will not
        die, as a process stuck in the kernel may)."""
        import contextlib
        import time

        if self.pid and self.code is None:
            try:
                os.killpg(self.pid, _SIGKILL)
            except (ProcessLookupError, PermissionError):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, _SIGKILL)
            with contextlib.suppress(Timeout, ChildProcessError):
                self._wait(time.monotonic() + 5)
        self.close()


def _spawn(argv: list[str], cwd: str | None, env: dict[str, str], actions: list[Any]) -> int:
    """posix_spawn ARGV in CWD (the parent steps into it and back: see _Child)."""
    if cwd is None:
        return _spawn_here(argv, env, actions)
    here = os.open(".", getattr(os, "O_PATH", os.O_RDONLY))
    try:
        os.chdir(cwd)
        try:
            return _spawn_here(argv, env, actions)
        finally:
            os.fchdir(here)
    finally:
        os.close(here)


def _spawn_here(argv: list[str], env: dict[str, str], actions: list[Any]) -> int:
    program = argv[0]
    if os.sep not in program:  # looked up on the child's PATH, as subprocess does (os.get_exec_path
        # would import warnings for the bytes keys jouet never passes)
        for folder in env.get("PATH", os.defpath).split(os.pathsep):
            path = os.path.join(folder, program)
            if os.access(path, os.X_OK) and not os.path.isdir(path):
                program = path
                break
        else:
            raise FileNotFoundError(2, "No such file or directory", program)
    return os.posix_spawn(program, argv, env, file_actions=actions, setsid=True, setsigdef=RESTORED_SIGNALS)
