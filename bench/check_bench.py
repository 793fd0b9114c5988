"""`jouet check --jsonl` throughput: thousands of realistic agent commands through one process.

    python bench/check_bench.py [COPIES] [VENV ...]
Target (issue 18): at least 10,000 calls a second. Each answer is flushed as it is written. Wall time
and CPU time (user + system of the jouet process and of the workers it forked) are both shown: CPU
time moves less with the load of a shared machine. Two rows for this jouet, in the same rounds: its
default (worker processes answer side by side once lines wait: commands/check_pool.py) and
`--workers 1` (every line answered in one process). Each VENV given is timed too, with its default,
in the same rounds (a "before").

Three corpora of COPIES x 120 lines, answered inside a git repository with one commit (as an agent's
calls are). Two are the 120 agent commands of tests/data/shell/agent_commands.json (most of them
git, a quarter reaching a script rule): "repeated" sends them as they are (each text comes COPIES
times, as an agent repeats `git status`), "unique" makes every line's text different (a first line
`# N`, a comment the shell ignores), so that nothing read for one line serves another: the stream's
memo of commands read (shell.ParseMemo) and of decisions (engine/runner.py _Kept: a line seen before
gets its decision again while every question it asked gets the same answer) help the first and not
the second. "varied" is as many different commands of some 90 tools and kinds (bench/varied_commands.py:
cloud and cluster CLIs, builds, tests, packages, files, network, some git), none repeated.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from _common import isolated_env, jouet, make_repo
from varied_commands import commands as varied

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main() -> None:
    copies = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    # (row name, state directory, the command line)
    runs = [("jouet", "here", [jouet(), "check", "--jsonl"]),
            ("jouet --workers 1", "here", [jouet(), "check", "--jsonl", "--workers", "1"])]
    for venv in sys.argv[2:]:
        name = os.path.basename(venv.rstrip("/"))
        runs.append((f"jouet [{name}]", name, [jouet(venv), "check", "--jsonl"]))
    with open(os.path.join(HERE, "..", "tests", "data", "shell", "agent_commands.json"), encoding="utf-8") as f:
        commands = json.load(f)
    calls = len(commands) * copies
    corpora = {
        "repeated": commands * copies,
        "unique": [f"# {n}\n{c}" for n, c in enumerate(commands * copies)],
        "varied": varied(calls),
    }
    best: dict[tuple[str, str], tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repo(os.path.join(tmp, "repo"))
        for _ in range(3):
            for corpus, texts in corpora.items():
                lines = "".join(json.dumps({"command": c}) + "\n" for c in texts).encode()
                for name, state, argv in runs:
                    env = isolated_env(os.path.join(tmp, "jouet-" + state))
                    subprocess.run([argv[0], "check", "ls"], env=env, cwd=repo, capture_output=True, check=False)
                    before = cpu()
                    start = time.perf_counter()
                    proc = subprocess.run(argv, input=lines, env=env, cwd=repo, capture_output=True, check=True)
                    elapsed = time.perf_counter() - start
                    used = cpu() - before
                    answered = proc.stdout.count(b"\n")
                    assert answered == calls, (answered, calls)
                    wall, cpu_time = best.get((corpus, name), (elapsed, used))
                    best[(corpus, name)] = (min(wall, elapsed), min(cpu_time, used))
    print(f"jouet check --jsonl, {calls} calls a corpus ({len(commands)} x {copies}), inside a repository, "
          "best of 3 (target 10,000 a second):")
    for (corpus, name), (wall, cpu_time) in best.items():
        print(f"  {corpus:8} {name:18} {wall:.2f} s wall, {calls / wall:,.0f} calls a second; "
              f"{cpu_time:.2f} s CPU, {calls / cpu_time:,.0f} calls a CPU second")


if __name__ == "__main__":
    main()
