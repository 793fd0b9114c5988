"""Helpers for the benchmarks: side-by-side timing of whole processes, in one run.

Every benchmark takes the same options:

    ROUNDS                  how many interleaved rounds (medians are reported)
    --other NAME=VENV       also time the jouet installed in VENV, in the same rounds (a "before")
    --instructions          also count the instructions each case executes, under valgrind's
                            callgrind (every process of the case, git and gitleaks included): a
                            count does not move with the machine's load the way wall time does

Wall times are medians of interleaved rounds (each round runs every case once, so load hits all
alike); ratios are against the bare interpreter reading the same input.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence

BARE = "python -I (reads the JSON)"
BARE_CODE = "import json, sys; json.load(sys.stdin)"


def bin_dir() -> str:
    return os.path.dirname(sys.executable)


def jouet(venv: str | None = None) -> str:
    return os.path.join(venv, "bin", "jouet") if venv else os.path.join(bin_dir(), "jouet")


class Case:
    """One process to time: ARGV fed STDIN in CWD with ENV; BEFORE runs untimed before each run."""

    __slots__ = ("argv", "before", "cwd", "env", "stdin")

    def __init__(self, argv: Sequence[str], stdin: bytes = b"", cwd: str | None = None,
                 env: dict[str, str] | None = None, before: Callable[[int], None] | None = None) -> None:
        self.argv = list(argv)
        self.stdin = stdin
        self.cwd = cwd
        self.env = env
        self.before = before


def options(default_rounds: int) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("rounds", nargs="?", type=int, default=default_rounds)
    parser.add_argument("--other", action="append", default=[], metavar="NAME=VENV",
                        help="also time the jouet of another virtual environment, side by side")
    parser.add_argument("--instructions", action="store_true", help="also count instructions (callgrind)")
    args = parser.parse_args()
    others = []
    for item in args.other:
        name, _, venv = item.partition("=")
        if not venv:
            parser.error(f"--other {item}: write NAME=VENV")
        others.append((name, os.path.abspath(venv)))
    args.others = others
    return args


def installs(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """This environment's jouet ("" suffix), then each --other one ("[NAME]" suffix)."""
    return [("", None)] + [(f" [{name}]", venv) for name, venv in args.others]


def time_once(case: Case, round_: int) -> float:
    if case.before is not None:
        case.before(round_)
    start = time.perf_counter()
    proc = subprocess.run(case.argv, input=case.stdin, cwd=case.cwd, env=case.env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{case.argv} exited {proc.returncode}: {proc.stderr.decode()[:500]}")
    return elapsed


def side_by_side(cases: dict[str, Case] | dict[str, tuple[Sequence[str], bytes, str | None, dict[str, str] | None]],
                 rounds: int = 40, warmup: int = 3) -> dict[str, float]:
    """Median wall time of each case, the cases interleaved round by round so load hits all alike.
    A case may also be given as (argv, stdin, cwd, env)."""
    cases = {name: case if isinstance(case, Case) else Case(*case) for name, case in cases.items()}
    times: dict[str, list[float]] = {name: [] for name in cases}
    for i in range(warmup + rounds):
        for name, case in cases.items():
            t = time_once(case, i)
            if i >= warmup:
                times[name].append(t)
    return {name: statistics.median(ts) for name, ts in times.items()}


def count_instructions(case: Case, round_: int = 10_000) -> int | None:
    """Instructions CASE executes, every process it starts included (valgrind's callgrind); None
    without valgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    if case.before is not None:
        case.before(round_)
    with tempfile.TemporaryDirectory() as out:
        argv = [valgrind, "--tool=callgrind", "--trace-children=yes", "--dump-instr=no",
                f"--callgrind-out-file={out}/cg.%p", *case.argv]
        subprocess.run(argv, input=case.stdin, cwd=case.cwd, env=case.env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        total = 0
        for file in glob.glob(os.path.join(out, "cg.*")):
            with open(file, encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith("summary:") or line.startswith("totals:"):
                        total += int(line.split()[1])
                        break
        return total


def instructions(cases: dict[str, Case]) -> dict[str, int]:
    """Instructions of each case (after one untimed run, so caches are warm as in the timed rounds)."""
    out: dict[str, int] = {}
    for name, case in cases.items():
        time_once(case, 9_999)
        counted = count_instructions(case)
        if counted is not None:
            out[name] = counted
    return out


def report(medians: dict[str, float], baseline: str, counts: dict[str, int] | None = None,
           targets: dict[str, float] | None = None) -> None:
    """One line per case: median ms, ratio to BASELINE, the instruction count and its ratio, and the
    target ratio where one is set."""
    base = medians[baseline]
    base_count = (counts or {}).get(baseline)
    width = max(len(n) for n in medians)
    for name, value in medians.items():
        line = f"  {name.ljust(width)}  {value * 1000:7.1f} ms  {value / base:5.2f}x"
        if counts and name in counts:
            line += f"   {counts[name] / 1e6:8.1f} M instr"
            if base_count:
                line += f"  {counts[name] / base_count:5.2f}x"
        target = (targets or {}).get(name)
        if target is not None:
            line += f"   (target {target:.1f}x)"
        print(line)


def isolated_env(tmp: str) -> dict[str, str]:
    """This environment with jouet's directories under TMP, and bytecode written as an installed
    jouet has it (pip compiles it at install time; a machine-wide PYTHONDONTWRITEBYTECODE would make
    every run recompile jouet's sources)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for name in ("CONFIG", "STATE", "CACHE", "DATA", "SYSTEM"):
        env[f"JOUET_{name}_DIR"] = os.path.join(tmp, name.lower())
    for name in ("JOUET_ALLOW", "JOUET_RULES_DISABLE", "JOUET_SESSION_ID"):
        env.pop(name, None)
    return env


def bare_case(stdin: bytes, cwd: str | None, env: dict[str, str] | None) -> Case:
    return Case([sys.executable, "-I", "-c", BARE_CODE], stdin, cwd, env)


def git(args: Sequence[str], cwd: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def make_repo(path: str, env: dict[str, str] | None = None) -> str:
    """A repository with one commit on `main`."""
    os.makedirs(path)
    git(["init", "-q", "-b", "main"], path, env)
    git(["config", "user.name", "bench"], path, env)
    git(["config", "user.email", "bench@example.com"], path, env)
    with open(os.path.join(path, "notes.md"), "w", encoding="utf-8") as f:
        f.write("start\n")
    git(["add", "-A"], path, env)
    git(["commit", "-q", "-m", "start"], path, env)
    return path


def claude_payload(command: str, cwd: str) -> bytes:
    """A Claude Code PreToolUse payload for a Bash call."""
    return claude_tool("Bash", {"command": command, "description": "bench"}, cwd)


def claude_tool(tool: str, tool_input: dict[str, object], cwd: str) -> bytes:
    """A Claude Code PreToolUse payload for any tool."""
    import json

    return json.dumps({
        "session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": cwd, "hook_event_name": "PreToolUse",
        "permission_mode": "default", "tool_name": tool, "tool_input": tool_input, "tool_use_id": "toolu_1",
    }).encode()
