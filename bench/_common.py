"""Helpers for the benchmarks: side-by-side timing of whole processes, in one run."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence


def bin_dir() -> str:
    return os.path.dirname(sys.executable)


def jouet() -> str:
    return os.path.join(bin_dir(), "jouet")


def time_once(argv: Sequence[str], stdin: bytes, cwd: str | None, env: dict[str, str] | None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{argv} exited {proc.returncode}: {proc.stderr.decode()[:500]}")
    return elapsed


def side_by_side(cases: dict[str, tuple[Sequence[str], bytes, str | None, dict[str, str] | None]],
                 rounds: int = 40, warmup: int = 3) -> dict[str, float]:
    """Median wall time of each case, the cases interleaved round by round so load hits all alike."""
    times: dict[str, list[float]] = {name: [] for name in cases}
    for i in range(warmup + rounds):
        for name, (argv, stdin, cwd, env) in cases.items():
            t = time_once(argv, stdin, cwd, env)
            if i >= warmup:
                times[name].append(t)
    return {name: statistics.median(ts) for name, ts in times.items()}


def report(medians: dict[str, float], baseline: str) -> None:
    base = medians[baseline]
    width = max(len(n) for n in medians)
    for name, value in medians.items():
        print(f"  {name.ljust(width)}  {value * 1000:7.2f} ms  {value / base:5.2f}x")


def isolated_env(tmp: str) -> dict[str, str]:
    """This environment with jouet's directories under TMP, and bytecode written as an installed
    jouet has it (pip compiles it at install time; a machine-wide PYTHONDONTWRITEBYTECODE would make
    every run recompile jouet's sources)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for name in ("CONFIG", "STATE", "CACHE", "DATA", "SYSTEM"):
        env[f"JOUET_{name}_DIR"] = os.path.join(tmp, name.lower())
    return env


def claude_payload(command: str, cwd: str) -> bytes:
    """A Claude Code PreToolUse payload for a Bash call."""
    import json

    return json.dumps({
        "session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": cwd, "hook_event_name": "PreToolUse",
        "permission_mode": "default", "tool_name": "Bash",
        "tool_input": {"command": command, "description": "bench"}, "tool_use_id": "toolu_1",
    }).encode()
