"""The agent process behind a claim, and whether it still runs.

A claim lasts while the agent that made it runs. `jouet claim` is started by the agent through
one or more shells and wrappers (`bash -c`, `env`, `timeout`, ...); the agent is the nearest
ancestor that is none of those. Its pid alone is not enough, since pids are reused: a claim also
records the process's start time (field 22 of /proc/PID/stat, in clock ticks since boot) and the
boot id, and a process with the same pid but another start time is someone else.

Where /proc is missing (macOS, BSD), the ancestor walk asks `ps`, the start time is unknown, and a
claim lapses only when no process with its pid exists.

`alive` and `start_time` are on the hook's hot path: this module imports only `os` at the top.
"""

from __future__ import annotations

import os

# Programs that stand between an agent and the commands it runs. Login shells show as "-bash".
WRAPPERS = frozenset({
    "sh", "bash", "zsh", "dash", "ash", "ksh", "mksh", "yash", "fish", "tcsh", "csh", "busybox",
    "env", "timeout", "nohup", "sudo", "doas", "su", "runuser", "nice", "ionice", "chrt", "taskset",
    "setsid", "stdbuf", "unbuffer", "time", "script", "xargs", "flock", "chronic", "rtk", "mise",
    "direnv", "npx", "uv", "uvx", "pipx", "pre-commit",
})

_PROC = "/proc"


def have_proc() -> bool:
    """Whether this system has a Linux-style /proc to read processes from."""
    return os.path.exists(os.path.join(_PROC, "self", "stat"))


class ProcInfo:
    """What /proc/PID/stat says about a process."""

    __slots__ = ("name", "parent", "started", "state")

    def __init__(self, name: str, state: str, parent: int, started: int) -> None:
        self.name = name
        self.state = state
        self.parent = parent
        self.started = started


def proc_info(pid: int) -> ProcInfo | None:
    """/proc/PID/stat read and split, or None when there is no such process (or no /proc)."""
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    text = raw.decode("utf-8", "replace")
    # "PID (NAME) STATE PPID ...": NAME may hold spaces and parentheses, so split at the last ")".
    open_at = text.find("(")
    close_at = text.rfind(")")
    if open_at < 0 or close_at < open_at:
        return None
    fields = text[close_at + 2:].split()
    try:
        return ProcInfo(text[open_at + 1:close_at], fields[0], int(fields[1]), int(fields[19]))
    except (IndexError, ValueError):
        return None


def start_time(pid: int) -> int | None:
    """When PID started, in clock ticks since boot; None where /proc cannot tell."""
    info = proc_info(pid)
    return info.started if info is not None else None


_BOOT: list[str | None] = []


def boot_id() -> str | None:
    """This boot's random id (Linux), so that start times from an earlier boot never match."""
    if not _BOOT:
        try:
            with open(f"{_PROC}/sys/kernel/random/boot_id", encoding="ascii") as handle:
                _BOOT.append(handle.read().strip() or None)
        except OSError:
            _BOOT.append(None)
    return _BOOT[0]


_NAMESPACE: list[str | None] = []


def namespace() -> str | None:
    """This process's pid and mount namespaces ("pid:[...] mnt:[...]"), or None where unknown.

    Processes and paths of another namespace (another container on the same kernel) cannot be
    checked from here, so claims made there lapse only by expiry.
    """
    if not _NAMESPACE:
        try:
            _NAMESPACE.append(" ".join(os.readlink(f"{_PROC}/self/ns/{kind}") for kind in ("pid", "mnt")))
        except OSError:
            _NAMESPACE.append(None)
    return _NAMESPACE[0]


def alive(pid: int, started: int | None, boot: str | None) -> bool:
    """Whether the process a claim recorded still runs: same pid, same start time, same boot."""
    if pid <= 0:
        return False
    if have_proc():
        if boot is not None:
            current = boot_id()
            if current is not None and current != boot:
                return False
        info = proc_info(pid)
        if info is None or info.state in ("Z", "X", "x"):  # gone, or exited and not yet reaped
            return False
        return started is None or info.started == started
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, it is just not ours
    except OSError:
        return True
    return True


def _is_wrapper(name: str) -> bool:
    base = os.path.basename(name.strip()).lstrip("-").lower()
    return base in WRAPPERS


def _ps_info(pid: int) -> tuple[str, int] | None:
    """(name, parent pid) from `ps`, for systems without /proc."""
    import subprocess

    try:
        out = subprocess.run(
            ["ps", "-o", "ppid=", "-o", "comm=", "-p", str(pid)],
            capture_output=True, text=True, timeout=5, check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    parts = out.split(None, 1)
    if len(parts) != 2:
        return None
    try:
        return parts[1], int(parts[0])
    except ValueError:
        return None


def agent_pid(start: int | None = None) -> int:
    """The agent this process works for: the nearest ancestor that is not a shell or wrapper.

    START is where the walk begins (this process's parent by default). When every ancestor up to
    init is a wrapper, the outermost one is the answer.
    """
    pid = os.getppid() if start is None else start
    use_proc = have_proc()
    for _ in range(64):
        if use_proc:
            info = proc_info(pid)
            found = (info.name, info.parent) if info is not None else None
        else:
            found = _ps_info(pid)
        if found is None:
            return pid
        name, parent = found
        if not _is_wrapper(name) or parent <= 1:
            return pid
        pid = parent
    return pid
