"""The added latency of a script rule that fires: `jouet hook claude pre` with the rule reference's
long-sleep script rule installed, for a call it fires on against a call no rule looks at, and a bare
`python -I -c` reading the same JSON, side by side in one run.

    .venv/bin/python bench/script_bench.py [ROUNDS]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

from _common import claude_payload, isolated_env, jouet, report, side_by_side

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, "repo")
        os.makedirs(repo)
        subprocess.run(["git", "init", "-q", repo], check=True)
        env = isolated_env(tmp)
        rules = os.path.join(tmp, "config", "rules")
        os.makedirs(rules)
        for suffix in (".toml", ".luau"):
            shutil.copy(os.path.join(HERE, "..", "tests", "data", "scripts", f"long-sleep{suffix}"), rules)
        hook = [jouet(), "hook", "claude", "pre"]
        fires, other = claude_payload("sleep 60", repo), claude_payload("cargo build --release", repo)
        bare = [sys.executable, "-I", "-c", "import json, sys; json.load(sys.stdin)"]
        cases = {
            "python -I (reads the JSON)": (bare, other, repo, env),
            "jouet hook, no script rule matches": (hook, other, repo, env),
            "jouet hook, the script rule fires": (hook, fires, repo, env),
        }
        medians = side_by_side(cases, rounds)
    print(f"script rule latency, median of {rounds} rounds, side by side:")
    report(medians, "python -I (reads the JSON)")
    added = medians["jouet hook, the script rule fires"] - medians["jouet hook, no script rule matches"]
    ratio = medians["jouet hook, the script rule fires"] / medians["jouet hook, no script rule matches"]
    print(f"  a firing script rule adds {added * 1000:.1f} ms: {ratio:.2f}x the same hook with no script rule")


if __name__ == "__main__":
    main()
