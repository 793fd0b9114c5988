"""How long the shell reader takes per command, on commands agents really run.

    .venv/bin/python bench/shell_bench.py [--rounds N]

Reads every command of tests/data/shell/agent_commands.json (120 commands: git, cargo, npm, gh,
pipelines, here-documents, sh -c scripts), many times over, and prints the median time per
command, the median per 100 bytes of command, the slowest commands, and what importing
jouet_git.shell costs (from `python -X importtime`). The target is well under 100 microseconds for
a typical 100-byte command. Times are for this machine only: compare them as ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "shell" / "agent_commands.json"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=200, help="times each command is read (default 200)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from jouet_git.shell import parse

    corpus: list[str] = json.loads(CORPUS.read_text())
    per_command: dict[str, float] = {}
    for script in corpus:
        parse(script, 0)  # warm up
        samples = []
        for _ in range(5):
            start = time.perf_counter_ns()
            for _ in range(max(1, args.rounds // 5)):
                parse(script, 0)
            samples.append((time.perf_counter_ns() - start) / max(1, args.rounds // 5))
        per_command[script] = statistics.median(samples) / 1000  # microseconds

    times = list(per_command.values())
    sizes = [len(s.encode()) for s in corpus]
    per_100 = [t * 100 / size for t, size in zip(times, sizes, strict=True)]
    near_100 = [t for t, size in zip(times, sizes, strict=True) if 70 <= size <= 140]
    print(f"commands: {len(corpus)}, median size {statistics.median(sizes):.0f} bytes")
    print(f"median time per command:          {statistics.median(times):7.1f} us")
    print(f"median time per 100 bytes:        {statistics.median(per_100):7.1f} us")
    if near_100:
        middle = statistics.median(near_100)
        print(f"median for 70-140 byte commands:  {middle:7.1f} us  ({len(near_100)} commands)")
    print(f"slowest command:                  {max(times):7.1f} us")
    print("slowest five:")
    for script, took in sorted(per_command.items(), key=lambda kv: -kv[1])[:5]:
        shown = script.replace("\n", "\\n")
        print(f"  {took:7.1f} us  {len(script.encode()):4d} B  {shown[:70]}")
    print(_import_cost())
    return 0


def _import_cost() -> str:
    """What `import jouet_git.shell` costs in a fresh interpreter, from -X importtime.

    Measured as an installed jouet runs: with bytecode cached (in a temporary prefix, so the
    checkout stays clean) and with `json` imported first, as the hook does, so that `re` (which
    json loads) is not counted against the reader.
    """
    import os
    import tempfile

    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    runs = []
    with tempfile.TemporaryDirectory() as cache:
        env["PYTHONPYCACHEPREFIX"] = cache
        command = [sys.executable, "-X", "importtime", "-c", "import json; import jouet_git.shell"]
        subprocess.run(command, capture_output=True, cwd=ROOT, env=env, check=True)  # fill the cache
        for _ in range(7):
            proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, check=True)
            for line in proc.stderr.splitlines():
                # import time: self [us] | cumulative | imported package
                parts = line.split("|")
                if len(parts) == 3 and parts[2].strip() == "jouet_git.shell":
                    runs.append(int(parts[1].strip()))
    median = statistics.median(runs) / 1000 if runs else float("nan")
    return f"import jouet_git.shell after json, bytecode cached (median of 7): {median:.2f} ms"


if __name__ == "__main__":
    raise SystemExit(main())
