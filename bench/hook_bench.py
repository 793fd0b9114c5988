"""The hook's start-up, the product: `jouet hook claude pre` for a Bash call, every built-in rule
loaded, inside a git repository, against a bare `python -I -c` that reads the same JSON.

Run it from the project's virtual environment (a clean venv, as pipx or uv would make):
    .venv/bin/python bench/hook_bench.py [ROUNDS]
Target: at most 1.5x the bare start-up.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from _common import claude_payload, isolated_env, jouet, report, side_by_side


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, "repo")
        os.makedirs(repo)
        subprocess.run(["git", "init", "-q", repo], check=True)
        env = isolated_env(tmp)
        payload = claude_payload("cargo test -p parser 2>&1 | tail -n 40", repo)
        denied = claude_payload("git add -A", repo)
        probed = claude_payload("git add src/main.rs && git commit -m wip", repo)
        bare = [sys.executable, "-I", "-c", "import json, sys; json.load(sys.stdin)"]
        cases = {
            "python -I (reads the JSON)": (bare, payload, repo, env),
            "jouet hook claude pre (no rule fires)": ([jouet(), "hook", "claude", "pre"], payload, repo, env),
            "jouet hook claude pre (a matcher denies)": ([jouet(), "hook", "claude", "pre"], denied, repo, env),
            "jouet hook claude pre (a commit: scripts and probes run)": (
                [jouet(), "hook", "claude", "pre"], probed, repo, env),
        }
        medians = side_by_side(cases, rounds)
    print(f"hook start-up, median of {rounds} rounds, side by side:")
    report(medians, "python -I (reads the JSON)")


if __name__ == "__main__":
    main()
