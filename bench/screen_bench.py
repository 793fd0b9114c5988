"""What screening tool output for secrets costs: `jouet hook claude post` for a Bash result with no
text, with clean output of typical size (the pre-check runs, gitleaks does not), and with a planted
secret (gitleaks runs), against a bare `python -I -c` that reads the same JSON and `gitleaks stdin`
run directly on the dirty text; then the pre-check alone, in process, on each kind of clean output.

    .venv/bin/python bench/screen_bench.py [ROUNDS]
"""

from __future__ import annotations

import json
import os
import random
import statistics
import string
import subprocess
import sys
import tempfile
import time

from _common import bin_dir, isolated_env, jouet, report, side_by_side

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))

from testing.screening import typical_outputs


def post_payload(cwd: str, tool: str, response: object) -> bytes:
    return json.dumps({
        "session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": cwd, "hook_event_name": "PostToolUse",
        "permission_mode": "default", "tool_name": tool, "tool_input": {"command": "make test"},
        "tool_response": response, "tool_use_id": "toolu_1",
    }).encode()


def bash(stdout: str) -> dict[str, object]:
    return {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False}


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    outputs = typical_outputs()
    rng = random.Random(1)
    token = "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))
    dirty = outputs["test log"] + f"\nexport GITHUB_TOKEN={token}\n"
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, "repo")
        os.makedirs(repo)
        subprocess.run(["git", "init", "-q", repo], check=True)
        env = isolated_env(tmp)
        hook = [jouet(), "hook", "claude", "post"]
        empty = post_payload(repo, "Bash", bash(""))
        bare = [sys.executable, "-I", "-c", "import json, sys; json.load(sys.stdin)"]
        gitleaks = os.path.join(bin_dir(), "gitleaks")
        if not os.path.exists(gitleaks):
            from jouet_git.gitleaks.binary import find_gitleaks

            gitleaks = find_gitleaks() or "gitleaks"
        cases = {
            "python -I (reads the JSON)": (bare, post_payload(repo, "Bash", bash(outputs["test log"])), repo, env),
            "hook post, no text": (hook, empty, repo, env),
            **{f"hook post, clean {name} ({len(text) // 1000} kB)": (
                hook, post_payload(repo, "Bash", bash(text)), repo, env) for name, text in outputs.items()},
            "hook post, a secret (gitleaks runs)": (hook, post_payload(repo, "Bash", bash(dirty)), repo, env),
            "gitleaks stdin, same text": ([gitleaks, "stdin", "--no-banner", "--report-format", "json",
                                           "--report-path", "-", "--log-level", "error", "--exit-code", "0"],
                                          dirty.encode(), repo, env),
        }
        medians = side_by_side(cases, rounds)
    print(f"PostToolUse with screening, median of {rounds} rounds, side by side:")
    report(medians, "hook post, no text")
    print()
    print("the same against the bare start-up:")
    report(medians, "python -I (reads the JSON)")

    from jouet_git import screen
    from jouet_git.gitleaks import binary, config

    found = binary.find_gitleaks()
    assert found is not None
    specs, _ = config.rule_specs(found, config.ConfigSource("default"), "/")
    assert specs is not None
    print()
    print("the pre-check alone, in process (median of 20, patterns already compiled):")
    for name, text in outputs.items():
        screen.may_find(specs, text)
        times = []
        for _ in range(20):
            start = time.perf_counter()
            verdict = screen.may_find(specs, text)
            times.append(time.perf_counter() - start)
        per_kb = statistics.median(times) * 1000 / (len(text) / 1000)
        print(f"  {name:18} {len(text):7} chars  {statistics.median(times) * 1000:6.2f} ms  "
              f"({per_kb:.3f} ms/kB)  gitleaks needed: {verdict}")


if __name__ == "__main__":
    main()
