"""The native pre-commit hook's cost: `git commit` of a keyword-free change in a repository with
jouet's hooks (`jouet setup git`) against the same commit in one without hooks, and the secret
scan's side: a commit whose change holds a keyword (so gitleaks runs) and `gitleaks git --staged`
run directly, side by side in one run.

    .venv/bin/python bench/githook_bench.py [ROUNDS]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

from _common import bin_dir, isolated_env, jouet


def sh(args: list[str], cwd: str, env: dict[str, str]) -> None:
    subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True)


def make(path: str, env: dict[str, str]) -> str:
    os.makedirs(path)
    sh(["git", "init", "-q", "-b", "main"], path, env)
    with open(os.path.join(path, "notes.md"), "w") as f:
        f.write("start\n")
    sh(["git", "add", "-A"], path, env)
    sh(["git", "commit", "-q", "-m", "start"], path, env)
    return path


def timed_commit(repo: str, round_: int, env: dict[str, str], text: str) -> float:
    with open(os.path.join(repo, "notes.md"), "a") as f:
        f.write(text.format(n=round_))
    sh(["git", "add", "notes.md"], repo, env)
    start = time.perf_counter()
    proc = subprocess.run(["git", "commit", "-q", "-m", f"round {round_}"], cwd=repo, env=env, capture_output=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"commit failed in {repo}: {proc.stderr.decode()}")
    return elapsed


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    with tempfile.TemporaryDirectory() as tmp:
        env = isolated_env(tmp)
        env["PATH"] = bin_dir() + os.pathsep + env.get("PATH", "")
        env.update(GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x")
        hooked = make(os.path.join(tmp, "hooked"), env)
        bare = make(os.path.join(tmp, "bare"), env)
        sh([jouet(), "setup", "git"], hooked, env)
        keyword_free = "plain prose line {n}\n"
        with_keyword = "the api token handling changed in round {n}\n"
        times: dict[str, list[float]] = {"no hook": [], "jouet hook": [], "jouet hook, keyword in diff": [],
                                         "gitleaks git --staged": []}
        gitleaks = os.path.join(bin_dir(), "gitleaks")
        for i in range(rounds + 2):
            a = timed_commit(bare, i, env, keyword_free)
            b = timed_commit(hooked, i, env, keyword_free)
            c = timed_commit(hooked, 1000 + i, env, with_keyword)
            with open(os.path.join(bare, "notes.md"), "a") as f:
                f.write(with_keyword.format(n=i))
            sh(["git", "add", "notes.md"], bare, env)
            start = time.perf_counter()
            subprocess.run([gitleaks, "git", "--staged", "--no-banner", "--redact", "."], cwd=bare, env=env,
                           capture_output=True)
            d = time.perf_counter() - start
            sh(["git", "commit", "-q", "-m", "keyword"], bare, env)
            if i >= 2:
                for name, value in zip(times, (a, b, c, d), strict=True):
                    times[name].append(value)
    medians = {name: statistics.median(values) for name, values in times.items()}
    base = medians["no hook"]
    print(f"git commit, median of {rounds} rounds, side by side:")
    for name, value in medians.items():
        print(f"  {name:30} {value * 1000:8.1f} ms  {value / base:5.2f}x")


if __name__ == "__main__":
    main()
