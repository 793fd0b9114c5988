"""`jouet check --jsonl` throughput: thousands of realistic agent commands through one process.

    .venv/bin/python bench/check_bench.py [COPIES]
Target: at least 5,000 calls a second.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from _common import isolated_env, jouet

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    copies = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    with open(os.path.join(HERE, "..", "tests", "data", "shell", "agent_commands.json"), encoding="utf-8") as f:
        commands = json.load(f)
    lines = "".join(json.dumps({"command": c}) + "\n" for c in commands * copies).encode()
    calls = len(commands) * copies
    with tempfile.TemporaryDirectory() as tmp:
        env = isolated_env(tmp)
        subprocess.run([jouet(), "check", "ls"], env=env, cwd=tmp, capture_output=True, check=False)
        best = None
        for _ in range(3):
            start = time.perf_counter()
            proc = subprocess.run([jouet(), "check", "--jsonl"], input=lines, env=env, cwd=tmp,
                                  capture_output=True, check=True)
            elapsed = time.perf_counter() - start
            best = elapsed if best is None else min(best, elapsed)
        answered = proc.stdout.count(b"\n")
    assert answered == calls, (answered, calls)
    print(f"jouet check --jsonl: {calls} calls in {best:.2f} s (best of 3), {calls / best:,.0f} calls a second")


if __name__ == "__main__":
    main()
