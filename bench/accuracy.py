"""The accuracy corpus: does jouet deny what really loses work, and only that?

    python bench/accuracy.py                 every case of bench/corpus/*.jsonl
    python bench/accuracy.py --family alias  only the families whose name contains "alias"
    python bench/accuracy.py --no-verify     skip running the commands with bash (faster)
    python bench/accuracy.py --show          list every miss and false positive with its decision

Each case (one JSON object a line) names its family, the command, the repository state it runs in
(a setup of bench/corpus/setups.toml) and what jouet should say: "deny" (the command loses work or
skips hooks, or prints a secret) or "quiet" (a control that loses nothing). The runner builds each
state twice in a temporary directory: once to run the command with bash and check, with the setup's
`lost` test, that a "deny" case really loses the work and a "quiet" one really does not (a case that
does otherwise is reported as a bad case and left out of the scores); once to ask `jouet check
--jsonl` (one process for every case, each call in its own repository). It prints recall (denied
"deny" cases) and false positives (denied "quiet" cases) by family.

Every run happens with HOME, the XDG directories, jouet's own directories and git's global config in
the temporary directory: the person's configuration is never read or touched.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import tomli

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
COMMAND_TIMEOUT = 20


@dataclass
class Case:
    family: str
    command: str
    setup: str
    expected: str
    where: str  # file:line
    note: str = ""
    outcome: str = ""  # what jouet said: "deny" or "quiet"
    rule: str | None = None
    bad: str | None = None  # why the case itself is wrong, when it is


@dataclass
class Score:
    deny: int = 0
    denied: int = 0
    quiet: int = 0
    false_positives: int = 0
    bad: int = 0
    misses: list[Case] = field(default_factory=list)
    wrong: list[Case] = field(default_factory=list)


def load_cases(corpus: Path, family: str | None) -> list[Case]:
    cases: list[Case] = []
    for path in sorted(corpus.glob("*.jsonl")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("//"):
                continue
            where = f"{path.name}:{number}"
            try:
                item = json.loads(line)
            except ValueError as error:
                raise SystemExit(f"{where}: not JSON: {error}") from None
            missing = {"family", "command", "setup", "expected"} - set(item)
            if missing or item["expected"] not in ("deny", "quiet"):
                raise SystemExit(f"{where}: a case needs family, command, setup and expected (deny or quiet)")
            if family and family not in item["family"]:
                continue
            cases.append(Case(item["family"], item["command"], item["setup"], item["expected"], where,
                              item.get("note", "")))
    return cases


def environment(base: Path) -> dict[str, str]:
    """An environment with every personal directory inside BASE."""
    home = base / "home"
    home.mkdir(parents=True, exist_ok=True)
    gitconfig = home / ".gitconfig"
    gitconfig.write_text("[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n"
                         "[advice]\n\tdetachedHead = false\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "JOUET_"))}
    env.update({
        "HOME": str(home), "GIT_CONFIG_GLOBAL": str(gitconfig), "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_EDITOR": "true", "GIT_PAGER": "cat", "PAGER": "cat", "TERM": "dumb", "LC_ALL": "C",
    })
    for name in ("JOUET_CONFIG_DIR", "JOUET_STATE_DIR", "JOUET_CACHE_DIR", "JOUET_DATA_DIR", "JOUET_SYSTEM_DIR",
                 "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        env[name] = str(base / name.lower())
    return env


def build(setups: dict[str, dict[str, str]], common: str, name: str, directory: Path, env: dict[str, str]) -> Path:
    """Build setup NAME in DIRECTORY; the repository the command runs in."""
    directory.mkdir(parents=True)
    for script in (common, "set -e\n" + setups[name]["script"]):
        proc = subprocess.run(["bash", "-c", script], cwd=directory, env=env, capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            raise SystemExit(f"setup {name} failed in {directory}: {proc.stderr.strip()[:500]}")
    return directory / "work"


def verify(case: Case, setups: dict[str, dict[str, str]], common: str, directory: Path,
           env: dict[str, str]) -> None:
    """Run the case with bash in a fresh state; mark it bad when what it does is not what it claims."""
    work = build(setups, common, case.setup, directory, env)
    out = directory / "output"
    with out.open("wb") as sink, contextlib.suppress(subprocess.TimeoutExpired):
        subprocess.run(["bash", "-c", case.command], cwd=work, env=env, stdout=sink, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, timeout=COMMAND_TIMEOUT)
    lost = subprocess.run(["bash", "-c", setups[case.setup]["lost"]], cwd=work,
                          env={**env, "JOUET_BENCH_OUT": str(out)}, capture_output=True, timeout=60).returncode == 0
    if case.expected == "deny" and not lost:
        case.bad = "run with bash, it loses nothing"
    elif case.expected == "quiet" and lost:
        case.bad = "run with bash, it does lose the work (a control must not)"


def ask_jouet(cases: list[Case], works: list[Path], env: dict[str, str], jouet: str) -> None:
    lines = "".join(json.dumps({"command": c.command, "cwd": str(w)}) + "\n" for c, w in zip(cases, works, strict=True))
    proc = subprocess.run([jouet, "check", "--jsonl"], input=lines, env=env, capture_output=True, text=True,
                          timeout=60 + 5 * len(cases))
    if proc.returncode != 0:
        raise SystemExit(f"jouet check --jsonl exited {proc.returncode}: {proc.stderr.strip()[:500]}")
    answers = proc.stdout.splitlines()
    if len(answers) != len(cases):
        raise SystemExit(f"jouet check --jsonl gave {len(answers)} answers for {len(cases)} cases")
    for case, answer in zip(cases, answers, strict=True):
        decision = json.loads(answer)
        if "error" in decision:
            raise SystemExit(f"{case.where}: jouet could not read the case: {decision['error']}")
        deny = decision.get("deny")
        case.outcome = "deny" if deny else "quiet"
        case.rule = deny.get("rule") if deny else None


def report(cases: list[Case], show: bool) -> int:
    scores: dict[str, Score] = {}
    for case in cases:
        score = scores.setdefault(case.family, Score())
        if case.bad:
            score.bad += 1
            continue
        if case.expected == "deny":
            score.deny += 1
            if case.outcome == "deny":
                score.denied += 1
            else:
                score.misses.append(case)
        else:
            score.quiet += 1
            if case.outcome == "deny":
                score.false_positives += 1
                score.wrong.append(case)
    width = max([len(f) for f in scores] + [6])
    print(f"{'family':<{width}}  {'recall':>14}  {'false positives':>16}  bad")
    total = Score()
    for family in sorted(scores):
        s = scores[family]
        for name in ("deny", "denied", "quiet", "false_positives", "bad"):
            setattr(total, name, getattr(total, name) + getattr(s, name))
        print(f"{family:<{width}}  {_ratio(s.denied, s.deny):>14}  {_ratio(s.false_positives, s.quiet):>16}  {s.bad}")
    print(f"{'all':<{width}}  {_ratio(total.denied, total.deny):>14}  {_ratio(total.false_positives, total.quiet):>16}"
          f"  {total.bad}")
    bad = [c for c in cases if c.bad]
    if bad:
        print("\nbad cases (left out of the scores):")
        for case in bad:
            print(f"  {case.where} [{case.family}] {case.command!r}: {case.bad}")
    if show:
        for family in sorted(scores):
            for case in scores[family].misses:
                print(f"miss  {case.where} [{family}] {case.command!r}")
            for case in scores[family].wrong:
                print(f"fp    {case.where} [{family}] {case.command!r} denied by {case.rule}")
    return 0


def _ratio(part: int, whole: int) -> str:
    if whole == 0:
        return "-"
    return f"{part}/{whole} {100 * part / whole:5.1f}%"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the directory of *.jsonl cases and setups.toml")
    parser.add_argument("--family", default=None, help="only families whose name contains this")
    parser.add_argument("--no-verify", action="store_true", help="do not run the commands with bash")
    parser.add_argument("--show", action="store_true", help="list every miss and false positive")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (printed)")
    default = shutil.which("jouet") or os.path.join(os.path.dirname(sys.executable), "jouet")
    parser.add_argument("--jouet", default=default, help="the jouet to ask (default: the one on PATH)")
    args = parser.parse_args(argv)
    with open(args.corpus / "setups.toml", "rb") as f:
        data = tomli.load(f)
    common: str = data["common"]["script"]
    setups: dict[str, dict[str, str]] = data["setups"]
    cases = load_cases(args.corpus, args.family)
    unknown = sorted({c.setup for c in cases} - set(setups))
    if unknown:
        raise SystemExit(f"unknown setups: {', '.join(unknown)} (bench/corpus/setups.toml)")
    base = Path(tempfile.mkdtemp(prefix="jouet-accuracy-"))
    try:
        env = environment(base)
        if not args.no_verify:
            for k, case in enumerate(cases):
                verify(case, setups, common, base / "verify" / str(k), env)
        works = [build(setups, common, case.setup, base / "check" / str(k), env) for k, case in enumerate(cases)]
        ask_jouet(cases, works, env, args.jouet)
        return report(cases, args.show)
    finally:
        if args.keep:
            print(f"\nkept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
