"""The native pre-commit hook's cost: `git commit` of a keyword-free change in a repository with
jouet's hooks (`jouet setup git`) against the same commit in one without hooks, and the secret
scan's side: a commit whose change holds a keyword (so gitleaks runs) and `gitleaks git --staged`
run directly, side by side in one run; and a bare `python -I -c` reading a small JSON object (the
floor any Python hook pays to start).

    .venv/bin/python bench/githook_bench.py [ROUNDS] [--instructions]

Target (issue 18): a keyword-free commit through jouet's native hook within 2x of (the hookless
commit + the bare-Python floor). When the pre-commit framework is installed (`pre-commit` next to
this Python or on PATH), the same commit through it (jouet's pre-commit hook as a `repo: local`
hook) is timed too. With --instructions, the keyword-free commits (hookless and through jouet's hook)
and the bare interpreter are also counted under valgrind's callgrind, every process of each included:
a count does not move with the machine's load as CPU time does.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from _common import BARE_CODE, Case, bin_dir, count_instructions, isolated_env, jouet


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


FRAMEWORK_CONFIG = """repos:
  - repo: local
    hooks:
      - id: jouet-pre-commit
        name: jouet (commit)
        entry: jouet hook git pre-commit --framework
        language: system
        pass_filenames: false
        always_run: true
        stages: [pre-commit]
"""


def cpu() -> float:
    """CPU time (user + system) of every child process waited for so far, hooks and git included."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(argv: list[str], cwd: str, env: dict[str, str], stdin: bytes = b"") -> tuple[float, float, int]:
    """Wall time, CPU time of the whole process tree, and the exit status of ARGV."""
    cpu_before = cpu()
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, input=stdin, capture_output=True)
    elapsed = time.perf_counter() - start
    return elapsed, cpu() - cpu_before, proc.returncode


def timed_commit(repo: str, round_: int, env: dict[str, str], text: str) -> tuple[float, float]:
    with open(os.path.join(repo, "notes.md"), "a") as f:
        f.write(text.format(n=round_))
    sh(["git", "add", "notes.md"], repo, env)
    elapsed, used, status = timed(["git", "commit", "-q", "-m", f"round {round_}"], repo, env)
    if status != 0:
        raise SystemExit(f"commit failed in {repo}")
    return elapsed, used


def counted_commits(repo: str, bare: str, env: dict[str, str]) -> None:
    """Instructions of a keyword-free commit with and without jouet's hook, and of the bare floor."""
    def commit_case(where: str) -> Case:
        def stage(round_: int) -> None:
            with open(os.path.join(where, "notes.md"), "a") as f:
                f.write(f"plain prose line {round_} counted\n")
            sh(["git", "add", "notes.md"], where, env)

        return Case(["git", "commit", "-q", "-m", "counted"], b"", where, env, stage)

    counts = {"no hook": count_instructions(commit_case(bare)),
              "jouet hook": count_instructions(commit_case(repo)),
              "python -I (reads a JSON object)": count_instructions(
                  Case([sys.executable, "-I", "-c", BARE_CODE], b'{"hook": "pre-commit"}', bare, env))}
    if any(value is None for value in counts.values()):
        print("  (no valgrind: instructions not counted)")
        return
    print("instructions (callgrind, every process of the commit):")
    for name, value in counts.items():
        print(f"  {name:33} {value / 1e6:8.1f} M")
    floor = (counts["no hook"] or 0) + (counts["python -I (reads a JSON object)"] or 0)
    print(f"  keyword-free commit through jouet's hook / (hookless commit + bare Python): "
          f"{(counts['jouet hook'] or 0) / floor:.2f}x instructions (target 2.0x)")


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--instructions"]
    rounds = int(args[0]) if args else 20
    with tempfile.TemporaryDirectory() as tmp:
        env = isolated_env(tmp)
        env["PATH"] = bin_dir() + os.pathsep + env.get("PATH", "")
        env["PRE_COMMIT_HOME"] = os.path.join(tmp, "pre-commit-home")  # the framework's cache, not ~/.cache
        env.update(GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x")
        hooked = make(os.path.join(tmp, "hooked"), env)
        bare = make(os.path.join(tmp, "bare"), env)
        sh([jouet(), "setup", "git"], hooked, env)
        framework_bin = shutil.which("pre-commit", path=env["PATH"]) or shutil.which("pre-commit")
        framework = make(os.path.join(tmp, "framework"), env) if framework_bin else None
        if framework is not None and framework_bin is not None:
            with open(os.path.join(framework, ".pre-commit-config.yaml"), "w") as f:
                f.write(FRAMEWORK_CONFIG)
            sh(["git", "add", ".pre-commit-config.yaml"], framework, env)
            sh(["git", "commit", "-q", "-m", "framework"], framework, env)
            sh([framework_bin, "install"], framework, env)
        keyword_free = "plain prose line {n}\n"
        with_keyword = "the api token handling changed in round {n}\n"
        names = ("no hook", "jouet hook", "jouet hook, keyword in diff", "gitleaks git --staged",
                 "python -I (reads a JSON object)", "jouet through the pre-commit framework")
        times: dict[str, list[float]] = {name: [] for name in names}
        cpus: dict[str, list[float]] = {name: [] for name in names}
        gitleaks = os.path.join(bin_dir(), "gitleaks")
        for i in range(rounds + 2):
            a = timed_commit(bare, i, env, keyword_free)
            b = timed_commit(hooked, i, env, keyword_free)
            c = timed_commit(hooked, 1000 + i, env, with_keyword)
            with open(os.path.join(bare, "notes.md"), "a") as f:
                f.write(with_keyword.format(n=i))
            sh(["git", "add", "notes.md"], bare, env)
            d = timed([gitleaks, "git", "--staged", "--no-banner", "--redact", "."], bare, env)[:2]
            sh(["git", "commit", "-q", "-m", "keyword"], bare, env)
            e = timed([sys.executable, "-I", "-c", BARE_CODE], bare, env, b'{"hook": "pre-commit"}')[:2]
            f_ = timed_commit(framework, i, env, keyword_free) if framework is not None else None
            if i >= 2:
                for name, measured in zip(names, (a, b, c, d, e, f_), strict=True):
                    if measured is None:
                        continue
                    wall, used = measured
                    times[name].append(wall)
                    cpus[name].append(used)
        if "--instructions" in sys.argv:
            counted_commits(hooked, bare, env)
    medians = {name: statistics.median(values) for name, values in times.items() if values}
    cpu_medians = {name: statistics.median(values) for name, values in cpus.items() if values}
    base = medians["no hook"]
    cpu_base = cpu_medians["no hook"]
    print(f"git commit, median of {rounds} rounds, side by side (wall time; CPU time of the whole process tree):")
    for name, value in medians.items():
        print(f"  {name:33} {value * 1000:8.1f} ms  {value / base:5.2f}x    "
              f"cpu {cpu_medians[name] * 1000:7.1f} ms  {cpu_medians[name] / cpu_base:5.2f}x")
    bare_py = "python -I (reads a JSON object)"
    floor = base + medians[bare_py]
    cpu_floor = cpu_base + cpu_medians[bare_py]
    print(f"  keyword-free commit through jouet's hook / (hookless commit + bare Python): "
          f"{medians['jouet hook'] / floor:.2f}x wall, {cpu_medians['jouet hook'] / cpu_floor:.2f}x cpu "
          "(target 2.0x)")


if __name__ == "__main__":
    main()
