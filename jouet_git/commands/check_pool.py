"""`jouet check --jsonl` on more than one core: worker processes answer a stream whose lines come
faster than one process answers them, and this process writes their answers in input order.

    serve(stdin, stdout, answerer, workers)    # commands/check.py run_jsonl, with --workers above 1

This process answers lines itself (as `--workers 1` does) until, after an answer, more than FORK_AT
lines are already waiting. Then it forks WORKERS processes, which inherit what it has loaded (the
rule sets, the parsed commands, the decisions kept: runner.py _Kept), and from then on only routes:
it reads the input, sends each line to a worker chosen by its text (a text seen before goes to the
worker it went to, so that worker's kept decisions serve the lines that come again; a new one to the
worker with the fewest lines still to answer), and writes the answers in input order, each run of
ready answers written and flushed at once. A client that writes one line and
waits for its answer never makes it fork.

Why the answers are those of one process: a line of `check --jsonl` has no session (build_call makes
none), so nothing a line decides depends on an earlier line of the stream. What the runner notes of
a call (Runner._note_read, reads.py `seen`) needs a session; session.fired counts only lines of a
session; ci.last_run skips what `jouet check` recorded (probes/ledger.py MANUAL); claims are only
read; each script runs with fresh globals (script_host.py); and the memos (shell.ParseMemo, the plans,
runner._Kept) give again only what deciding in full would give. The one thing a line writes is its
ledger line: each worker holds its own lines back and writes them before sending the answers they
belong to, so the ledger holds a line for every answer given, though not in input order.

Forking is safe here: jouet runs no thread on this path, and a line is answered in full (every git
it started reaped) before the next, so no child process is in flight; the ledger lines held are
written first (else each worker would write them again); a Lua VM, if started, is plain memory with
no thread of its own, and each worker has its own copy. A worker closes what it does not own (the
other workers' pipes, stdin and stdout: the client sees the end of the output when this process
ends) and always ends with os._exit, never returning into the caller.

A worker that dies (killed, or failing on a line) never hangs the stream: the lines it was given and
did not answer are answered by this process, in order, and the lines that would have gone to it from
then on go to the workers left (to this process when none is left). A worker writes a batch's ledger
lines once its answers' pipe has room, then says at once that the answers coming are of recorded
lines: a line it answered keeps its one ledger line, and a line it recorded but died sending the
answer of is answered here without being recorded again. Only killed in the moment between the
ledger write and that word (microseconds, never while blocked) does a worker leave the lines of its
last batch to be recorded twice; a line is never left unrecorded. At the end of the input
every worker finishes what it was given and is reaped; when this process stops early (the client
closed stdout, Ctrl-C, an error) the workers are stopped (SIGTERM) and reaped.
"""

from __future__ import annotations

import codecs
import contextlib
import gc
import os
import select
import signal
import time
from collections import deque

from jouet_git.commands.check import Answerer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Fork when, after an answer, more than this many lines are already waiting to be answered.
FORK_AT = 32
# Read no further ahead than this many lines sent and not yet answered (memory stays bounded).
MAX_AHEAD = 4096
# How many texts the routing remembers the worker of (then it starts again): a runner keeps at most
# runner.MEMO_DECISIONS decisions anyway.
ROUTES = 8192
# A worker sends its answers when its input runs dry, or after BATCH answers, or once the first
# answer of the batch is BATCH_SECONDS old.
BATCH = 64
BATCH_SECONDS = 0.005
CHUNK = 1 << 16
# How many worker processes this process started (for tests: --workers 1 starts none).
started = 0


def usable(stdin: Any) -> bool:
    """Whether STDIN can be read here: a text stream over a file descriptor, in an encoding that
    writes a newline as the byte it is in ASCII (what splitting the raw input into lines needs)."""
    try:
        stdin.fileno()
        return bool("a\nb".encode(stdin.encoding) == b"a\nb")
    except (AttributeError, OSError, ValueError, TypeError, LookupError):
        return False


class _Input:
    """The lines of stdin, read from its file descriptor as they come (never blocking when asked not
    to), decoded as sys.stdin decodes them, split at newlines as iterating over it splits them,
    numbered as `check --jsonl` numbers them; blank lines are counted and dropped."""

    __slots__ = ("decoder", "eof", "fd", "lines", "number", "poll", "rest")

    def __init__(self, stdin: Any) -> None:
        self.fd: int = stdin.fileno()
        self.decoder = codecs.getincrementaldecoder(stdin.encoding)(stdin.errors or "strict")
        self.poll = select.poll()
        self.poll.register(self.fd, select.POLLIN)
        self.rest: list[str] = []  # the start of a line whose end has not come yet, in pieces
        self.number = 0
        self.eof = False
        # (number, line) of the lines read and not yet taken; a line keeps its newline (none for a
        # last line without one), as iterating over stdin gives it.
        self.lines: deque[tuple[int, str]] = deque()

    def ready(self) -> bool:
        """Whether more input is there to read now."""
        return not self.eof and bool(self.poll.poll(0))

    def read(self) -> None:
        """Read what one read(2) gives (blocking until something comes or the input ends)."""
        data = os.read(self.fd, CHUNK)
        if not data:
            self.eof = True
            text = "".join(self.rest) + self.decoder.decode(b"", final=True)
            self.rest = []
            if text:
                self.number += 1
                if text.strip():
                    self.lines.append((self.number, text))
            return
        text = self.decoder.decode(data)
        if "\n" not in text:  # (a long line comes in many reads: joined once, when it ends)
            self.rest.append(text)
            return
        if self.rest:
            text = "".join(self.rest) + text
        pieces = text.split("\n")
        self.rest = [pieces.pop()]
        number = self.number
        lines = self.lines
        for piece in pieces:
            number += 1
            if piece.strip():
                lines.append((number, piece + "\n"))
        self.number = number


class _Worker:
    """A forked process answering lines, as this process sees it: the pipes to and from it, what is
    still to be sent to it, and which lines (by their place in the answers) it has not answered."""

    __slots__ = ("answers", "lines", "out", "partial", "pid", "recorded", "sent")

    def __init__(self, pid: int, lines: int, answers: int) -> None:
        self.pid = pid
        self.lines: int | None = lines  # the write end of its input (non-blocking); None once closed
        self.answers: int | None = answers  # the read end of its answers; None once it ended
        self.out = bytearray()  # lines not yet written to it
        self.partial = b""  # the start of an answer whose end has not come yet
        self.sent: deque[int] = deque()  # the places of the lines it was given, not yet answered
        # How many of the first lines of SENT it has recorded in the ledger (it said so before
        # sending their answers): answered here again if it dies, they are not recorded again.
        self.recorded = 0

    def close_lines(self) -> None:
        if self.lines is not None:
            os.close(self.lines)
            self.lines = None
        self.out.clear()


def _unanswered(worker: _Worker) -> int:
    return len(worker.sent)


class _Pool:
    """The routing: which line goes where, the answers waiting for those before them, the output."""

    def __init__(self, stdin: _Input, stdout: Any, answerer: Answerer) -> None:
        self.input = stdin
        self.stdout = stdout
        self.answerer = answerer
        self.workers: list[_Worker] = []
        self.given = 0  # lines given a place in the answers
        self.written = 0  # answers written: the next one to write is at this place
        self.done: dict[int, str] = {}  # answers waiting for those before them
        self.pending: dict[int, tuple[int, str]] = {}  # (number, line) of the lines sent, by place
        self.answered_here = False  # whether this process recorded lines since its last write
        # The worker each text went to, so that it goes there again (its decision may be kept there).
        self.route: dict[str, _Worker] = {}

    # -- starting the workers ---------------------------------------------------------------------------

    def start(self, count: int) -> None:
        global started
        self.answerer.runner.write_records()  # else every worker would write the lines held too
        self.stdout.flush()
        import sys

        sys.stderr.flush()
        gc.freeze()  # what is loaded stays shared with the workers (no collection touches it)
        try:
            for _ in range(count):
                try:
                    self.workers.append(self._fork())
                except OSError:  # no more processes or memory: those started (or this one) answer
                    break
                started += 1
        finally:
            gc.unfreeze()

    def _fork(self) -> _Worker:
        lines_read, lines_write = os.pipe()
        answers_read, answers_write = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            for fd in (lines_read, lines_write, answers_read, answers_write):
                os.close(fd)
            raise
        if pid == 0:  # pragma: no cover - runs in the worker (tests see it through its answers)
            code = 1
            try:
                os.close(lines_write)
                os.close(answers_read)
                for worker in self.workers:  # the pipes of the workers started before this one
                    for theirs in (worker.lines, worker.answers):
                        if theirs is not None:
                            os.close(theirs)
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(null, 0)
                os.dup2(null, 1)
                os.close(null)
                code = _work(lines_read, answers_write, self.answerer)
            except KeyboardInterrupt:
                code = 130
            except BrokenPipeError:
                code = 0  # this process is gone or stopped reading: nothing to answer to
            except BaseException:  # a line this process will answer again, and fail on in the open
                code = 1
            finally:
                os._exit(code)
        os.close(lines_read)
        os.close(answers_write)
        os.set_blocking(lines_write, False)
        return _Worker(pid, lines_write, answers_read)

    # -- routing ----------------------------------------------------------------------------------------

    def give(self, number: int, line: str) -> None:
        """Send LINE to its worker (or answer it here when no worker is left)."""
        place = self.given
        self.given += 1
        worker = self.route.get(line)
        if worker is None or worker.lines is None:
            # A text not seen (or whose worker is gone): to the worker with the fewest lines to answer.
            live = [w for w in self.workers if w.lines is not None]
            if not live:
                self.done[place] = self.answerer.answer(number, line)
                self.answered_here = True
                return
            worker = min(live, key=_unanswered)
            if len(self.route) >= ROUTES:
                self.route.clear()
            self.route[line] = worker
        self.pending[place] = (number, line)
        worker.sent.append(place)
        # A line keeps its newline but for a last line without one: a negative number says so.
        if line.endswith("\n"):
            worker.out += f"{number} {line}".encode("utf-8", "surrogatepass")
        else:
            worker.out += f"-{number} {line}\n".encode("utf-8", "surrogatepass")

    def send(self, worker: _Worker) -> None:
        assert worker.lines is not None
        try:
            sent = os.write(worker.lines, worker.out)
        except BlockingIOError:
            return
        except (BrokenPipeError, OSError):  # it died: its answers' end tells the rest (receive)
            worker.close_lines()
            return
        del worker.out[:sent]

    def receive(self, worker: _Worker) -> None:
        assert worker.answers is not None
        try:
            data = os.read(worker.answers, CHUNK)
        except OSError:
            data = b""
        if not data:
            self._ended(worker)
            return
        data = worker.partial + data
        cut = data.rfind(b"\n") + 1
        worker.partial = data[cut:]
        if not cut:
            return
        done = self.done
        pending = self.pending
        sent = worker.sent
        for answer in data[:cut - 1].decode("utf-8", "surrogatepass").split("\n"):
            if answer[0] == "=":  # "=K": the K answers that follow are of lines it recorded
                worker.recorded = int(answer[1:])
                continue
            place = sent.popleft()
            del pending[place]
            done[place] = answer
            worker.recorded -= 1

    def _ended(self, worker: _Worker) -> None:
        """WORKER's answers ended: it exited (at the end of its input) or died. The lines it did not
        answer are answered here, in order; it is reaped."""
        worker.close_lines()
        assert worker.answers is not None
        os.close(worker.answers)
        worker.answers = None
        worker.partial = b""
        _reap(worker.pid)
        answer = self.answerer.answer
        runner = self.answerer.runner
        recording = runner.record_calls
        while worker.sent:
            place = worker.sent.popleft()
            number, line = self.pending.pop(place)
            # A line it recorded (and died sending the answer of) is not recorded again.
            runner.record_calls = recording and worker.recorded <= 0
            try:
                self.done[place] = answer(number, line)
            finally:
                runner.record_calls = recording
            worker.recorded -= 1
            self.answered_here = True

    def write_ready(self) -> None:
        """Write every answer whose turn has come, in one write, and flush it."""
        done = self.done
        place = self.written
        if place not in done:
            return
        ready = []
        while place in done:
            ready.append(done.pop(place))
            place += 1
        self.written = place
        if self.answered_here:  # the client may wait for these answers: their ledger lines go first
            self.answerer.runner.write_records()
            self.answered_here = False
        self.stdout.write("\n".join(ready) + "\n")
        self.stdout.flush()

    def run(self) -> None:
        """Route until every line of the input is answered and written."""
        source = self.input
        while source.lines:
            self.give(*source.lines.popleft())
        poll = select.poll
        while True:
            self.write_ready()
            if source.eof and self.written == self.given:
                return
            waiting = poll()
            if not source.eof and self.given - self.written < MAX_AHEAD:
                waiting.register(source.fd, select.POLLIN)
            owners: dict[int, tuple[_Worker, bool]] = {}
            for worker in self.workers:
                if worker.answers is not None:
                    waiting.register(worker.answers, select.POLLIN)
                    owners[worker.answers] = (worker, False)
                if worker.lines is not None:
                    if worker.out:
                        waiting.register(worker.lines, select.POLLOUT)
                        owners[worker.lines] = (worker, True)
                    elif source.eof:
                        worker.close_lines()  # all it will get: it answers, sends and exits
            for fd, _event in waiting.poll():
                if fd == source.fd:
                    source.read()
                    while source.lines:
                        self.give(*source.lines.popleft())
                    continue
                worker, writing = owners[fd]
                if writing:
                    if worker.lines is not None:
                        self.send(worker)
                elif worker.answers is not None:
                    self.receive(worker)

    def stop(self, early: bool) -> None:
        """Close every worker's pipes and reap it; EARLY (the stream did not end well): stop it first."""
        for worker in self.workers:
            worker.close_lines()
            if worker.answers is not None:
                os.close(worker.answers)
                worker.answers = None
                if early:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(worker.pid, signal.SIGTERM)
                _reap(worker.pid)


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def serve(stdin: Any, stdout: Any, answerer: Answerer, workers: int) -> int:
    """Answer every line of STDIN on STDOUT, in order, each run of ready answers flushed: here while
    one process keeps up, in WORKERS forked processes once lines wait (see the module's text)."""
    source = _Input(stdin)
    runner = answerer.runner
    answer = answerer.answer
    write = stdout.write
    lines = source.lines
    answered = False
    while True:
        if not lines and not source.eof:
            source.read()  # nothing to answer: wait for input
        while len(lines) <= FORK_AT and source.ready():
            source.read()
        if not lines:
            if source.eof:
                return 0
            continue
        if answered and len(lines) > FORK_AT:
            break
        number, line = lines.popleft()
        text = answer(number, line)
        answered = True
        if not lines and not source.ready():
            runner.write_records()  # the client may wait for this answer: its ledger line goes first
        write(text + "\n")
        stdout.flush()
    pool = _Pool(source, stdout, answerer)
    early = True
    try:
        pool.start(workers)
        pool.run()
        early = False
    finally:
        pool.stop(early)
    return 0


def _work(lines_fd: int, answers_fd: int, answerer: Answerer) -> int:
    """A worker's life: answer the lines that come on LINES_FD, in order, and send the answers on
    ANSWERS_FD, each batch after its ledger lines are written; 0 at the end of the input."""
    runner = answerer.runner
    answer = answerer.answer
    clock = time.monotonic
    buffered = b""
    frames: list[str] = []
    at = 0
    batch: list[str] = []
    since = 0.0

    room = select.poll()
    room.register(answers_fd, select.POLLOUT)

    def flush() -> None:
        # The ledger lines go first (a line answered is a line recorded), then at once, with room in
        # the pipe for it, "=K": the K answers that follow are of recorded lines (if this process
        # dies sending them, the routing process answers them again without recording them again).
        room.poll()
        runner.write_records()
        data = (f"={len(batch)}\n" + "\n".join(batch) + "\n").encode("utf-8", "surrogatepass")
        batch.clear()
        view = memoryview(data)
        while view:
            view = view[os.write(answers_fd, view):]

    while True:
        if at == len(frames):
            if batch:
                flush()  # nothing more to answer now: the client may be waiting for these
            data = os.read(lines_fd, CHUNK)
            if not data:
                break
            buffered += data
            cut = buffered.rfind(b"\n") + 1
            frames = buffered[:cut].decode("utf-8", "surrogatepass").split("\n")[:-1] if cut else []
            buffered = buffered[cut:]
            at = 0
            continue
        head, _, line = frames[at].partition(" ")
        at += 1
        number = int(head)
        if number < 0:  # the last line of the input, without a newline
            number = -number
        else:
            line += "\n"
        if not batch:
            since = clock()
        batch.append(answer(number, line))
        if len(batch) >= BATCH or clock() - since >= BATCH_SECONDS:
            flush()
    runner.write_records()
    return 0
