"""The hook's start-up, the product: `jouet hook claude pre` for a Bash call, every built-in rule
loaded, inside a git repository, against a bare `python -I -c` that reads the same JSON.

Run it from the project's virtual environment (a clean venv, as pipx or uv would make):
    .venv/bin/python bench/hook_bench.py [ROUNDS]
Target: at most 1.5x the bare start-up.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from _common import jouet, report, side_by_side


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, "repo")
        os.makedirs(repo)
        subprocess.run(["git", "init", "-q", repo], check=True)
        env = dict(os.environ)
        # An installed jouet runs from compiled bytecode (pip compiles it at install time); a
        # machine-wide PYTHONDONTWRITEBYTECODE would make every run recompile jouet's sources.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for name in ("CONFIG", "STATE", "CACHE", "DATA", "SYSTEM"):
            env[f"JOUET_{name}_DIR"] = os.path.join(tmp, name.lower())
        payload = json.dumps({
            "session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": repo,
            "hook_event_name": "PreToolUse", "permission_mode": "default", "tool_name": "Bash",
            "tool_input": {"command": "cargo test -p parser 2>&1 | tail -n 40", "description": "run tests"},
            "tool_use_id": "toolu_1",
        }).encode()
        denied = payload.replace(b"cargo test -p parser 2>&1 | tail -n 40", b"git add -A && git commit -m wip")
        bare = [sys.executable, "-I", "-c", "import json, sys; json.load(sys.stdin)"]
        cases = {
            "python -I (reads the JSON)": (bare, payload, repo, env),
            "jouet hook claude pre (no rule fires)": ([jouet(), "hook", "claude", "pre"], payload, repo, env),
            "jouet hook claude pre (a deny)": ([jouet(), "hook", "claude", "pre"], denied, repo, env),
        }
        medians = side_by_side(cases, rounds)
    print(f"hook start-up, median of {rounds} rounds, side by side:")
    report(medians, "python -I (reads the JSON)")


if __name__ == "__main__":
    main()
