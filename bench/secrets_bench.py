"""What the secret pre-check saves: a keyword-free staged diff, scanned with and without it.

    .venv/bin/python bench/secrets_bench.py [--rounds N]

Builds a repository in a temporary directory with an ordinary staged change (code that names no
keyword of gitleaks' default rules), then times, interleaved round by round:

  precheck      jouet.secrets.scan(): two git calls and the keyword pre-check, which skips gitleaks
  gitleaks      the same scan with gitleaks forced to run on the same lines (`gitleaks dir`)
  jouet CLI     the whole `jouet secrets scan` process
  gitleaks CLI  the whole `gitleaks git --staged` process, as a gitleaks pre-commit hook runs it

and prints medians and ratios. It also reports the first, uncached pre-check, which reads the
default config out of the gitleaks binary. Times are for this machine only: read the ratios.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import jouet, report, side_by_side  # noqa: E402

CHANGE = """\
def mean(values):
    total = 0
    for value in values:
        total += value
    return total / len(values)


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
"""


def git(repo: str, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def make_repo(base: str) -> str:
    repo = os.path.join(base, "repo")
    os.mkdir(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-q", "--allow-empty",
        "-m", "start")
    for n in range(8):
        Path(repo, f"stats{n}.py").write_text(CHANGE)
    git(repo, "add", ".")
    return repo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds (default 15)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="jouet-secrets-bench-") as base:
        os.environ["JOUET_CACHE_DIR"] = os.path.join(base, "cache")
        from jouet_git import gitrun
        from jouet_git.gitleaks import binary, committed, diff, scanner
        from jouet_git.probes.secrets import LAST, scan

        gitleaks = binary.find_gitleaks()
        if gitleaks is None:
            raise SystemExit(binary.missing_reason())
        repo = make_repo(base)

        start = time.perf_counter()
        found, reason = scan(repo, "staged")
        cold = time.perf_counter() - start
        from jouet_git.probes import secrets

        if found != [] or reason is not None or secrets.LAST.gitleaks_ran:
            raise SystemExit(f"the change is not keyword-free: {found} {reason} {LAST.precheck}")

        def forced() -> None:
            end = time.monotonic() + 60
            top = diff.open_repo(repo, end)
            changes = diff.staged(top, repo, end, diff.Budget(1 << 20))
            work = tempfile.mkdtemp(prefix="jouet-bench-")
            try:
                allow = committed.prepare(top.toplevel, top.head, work, end)
                result = scanner.scan_tree(gitleaks, changes, allow, work, end)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            assert result == []

        times: dict[str, list[float]] = {"precheck": [], "gitleaks": []}
        for _ in range(args.rounds):
            for name, call in (("precheck", lambda: scan(repo, "staged")), ("gitleaks", forced)):
                start = time.perf_counter()
                call()
                times[name].append(time.perf_counter() - start)
        medians = {name: statistics.median(ts) for name, ts in times.items()}
        print(f"keyword-free staged diff: {len(os.listdir(repo)) - 1} files, in-process scan()")
        print(f"  first scan, uncached config: {cold * 1000:7.2f} ms")
        report(medians, "precheck")
        ratio = medians["gitleaks"] / medians["precheck"]
        print(f"  the pre-check makes a skipped scan {ratio:.0f}x cheaper")
        print(f"  processes per skipped scan: git {gitrun.COUNTS['git'] // (args.rounds * 2 + 1)}")

        env = dict(os.environ)
        processes = side_by_side({
            "jouet CLI": ([jouet(), "secrets", "scan"], b"", repo, env),
            "gitleaks CLI": ([gitleaks, "git", "--staged", "--no-banner", "--redact", "--log-level", "error"],
                             b"", repo, env),
        }, rounds=args.rounds, warmup=2)
        print("whole processes:")
        report(processes, "jouet CLI")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
