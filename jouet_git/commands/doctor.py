"""Check that jouet is installed and guarding where you think it is, and say what to fix.

examples:
  jouet doctor            one line per check, with what to do about each problem
  jouet doctor --json     the same as JSON: {"jouet": {...}, "checks": [{name, status, detail, fix}]}

It looks at: this jouet (version, path); every harness's hook entries at user and project level
and whether the jouet they run exists and answers a probe call in time; gitleaks (which binary,
which version); git's hooks for this repository (jouet's own, or the pre-commit framework's, and
whether every hook type is installed, since a repository guarded at commit time only still lets
any push through); whether this repository's `.jouet/` rules are trusted; and rules that fail to
load.

exit status: 0 nothing needs doing, 1 at least one problem or warning (each says what to do),
2 usage errors.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

OK, WARN, FAIL = "ok", "warn", "fail"


@dataclass
class Check:
    name: str
    status: str
    detail: str
    fix: str = ""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")


def run(args: argparse.Namespace) -> int:
    cwd = os.getcwd()
    checks: list[Check] = []
    me = _jouet()
    checks += _harnesses(cwd)
    checks.append(_gitleaks())
    checks += _git_hooks(cwd)
    checks.append(_trust(cwd))
    checks.append(_rules(cwd))
    if args.json:
        print(json.dumps({"jouet": me, "checks": [asdict(c) for c in checks]}, indent=2))
    else:
        print(f"jouet {me['version']} ({me['path']}, Python {me['python']})")
        for c in checks:
            print(f"{c.status.upper():4}  {c.name}: {c.detail}")
            if c.fix:
                print(f"      -> {c.fix}")
    return 0 if all(c.status == OK for c in checks) else 1


def _jouet() -> dict[str, str]:
    from jouet_git import __version__
    from jouet_git.setup.git import default_jouet_command

    return {"version": __version__, "path": default_jouet_command(), "python": sys.version.split()[0]}


# -- harnesses ----------------------------------------------------------------------------

# A harmless call each harness may send, and the answer that means "no objection" there.
_PROBES: dict[str, tuple[str, dict[str, Any]]] = {
    "claude": ("pre", {"session_id": "jouet-doctor", "transcript_path": "", "hook_event_name": "PreToolUse",
                       "permission_mode": "default", "tool_name": "Bash",
                       "tool_input": {"command": "git status"}, "tool_use_id": "jouet-doctor"}),
}


def _harnesses(cwd: str) -> list[Check]:
    from jouet_git.setup.status import rows
    from jouet_git.setup.targets import TARGETS

    out: list[Check] = []
    for row in rows(cwd):
        target = TARGETS[row.harness]
        name = f"{target.title} ({row.scope})"
        flag = " --project" if row.scope == "project" else ""
        if row.state == "not installed":
            continue
        if row.state == "unreadable":
            out.append(Check(name, FAIL, row.problem or row.path,
                             f"fix {row.path}, then run `jouet setup {row.harness}{flag}`"))
            continue
        broken = {p: v for p, v in row.runs.items() if not v.startswith("ok:")}
        if broken:
            prog, verdict = next(iter(broken.items()))
            fix = ("install jouet so that `jouet` is on PATH for the harness" if os.sep not in prog
                   else f"run `jouet setup {row.harness}{flag}` again with the jouet you use now")
            out.append(Check(name, FAIL, f"{row.path}: the hooks run {prog}, which is {verdict}", fix))
            continue
        if row.state == "partial":
            out.append(Check(name, WARN, f"{row.path}: jouet's entries for {', '.join(row.missing)} are missing",
                             f"run `jouet setup {row.harness}{flag}`"))
            continue
        out.append(_probe(name, row.harness, row.commands, cwd, target.timeout or 30, target.name == "gemini")
                   or Check(name, OK, f"installed in {row.path}"))
    if not out:
        out.append(Check("agent harnesses", WARN, "no harness has jouet's hooks installed",
                         "run `jouet setup HARNESS` for the agent you use (`jouet setup` lists them)"))
    return out


def _probe(name: str, harness: str, commands: list[str], cwd: str, timeout: int, millis: bool) -> Check | None:
    """Run the installed command for the harness's probe event; None when there is no probe for it."""
    probe = _PROBES.get(harness)
    if probe is None:
        return None
    event, payload = probe
    command = next((c for c in commands if c.endswith(f" hook {harness} {event}")), None)
    if command is None:
        return None
    limit = timeout / 1000 if millis else timeout
    started = time.monotonic()
    try:
        proc = subprocess.run(["sh", "-c", command], input=json.dumps({**payload, "cwd": cwd}), text=True,
                              capture_output=True, timeout=limit, cwd=cwd)
    except subprocess.TimeoutExpired:
        return Check(name, FAIL, f"`{command}` did not answer within {limit:g} s; the harness goes on unguarded",
                     "look for a slow rule with `jouet rule list`, or a hung git or gitleaks process")
    took = time.monotonic() - started
    if proc.returncode != 0 or (proc.stdout.strip() and not proc.stdout.lstrip().startswith("{")):
        return Check(name, FAIL, f"`{command}` answered a probe with exit {proc.returncode}: "
                     f"{(proc.stderr or proc.stdout).strip()[:200]}",
                     f"run `jouet setup {harness}` again; if it persists, report it with this output")
    return Check(name, OK, f"installed, and answers a probe call in {took:.2f} s")


# -- gitleaks, git hooks, trust, rules -----------------------------------------------------


def _gitleaks() -> Check:
    from jouet_git.gitleaks.binary import find_gitleaks, missing_reason

    binary = find_gitleaks()
    if binary is None:
        return Check("gitleaks", WARN, "not found: secret scans cannot run", missing_reason())
    try:
        proc = subprocess.run([binary, "version"], capture_output=True, text=True, timeout=20)
        version = (proc.stdout or proc.stderr).strip().splitlines()[0] if proc.returncode == 0 else ""
    except (OSError, subprocess.TimeoutExpired, IndexError):
        version = ""
    if not version:
        return Check("gitleaks", FAIL, f"{binary} does not answer `gitleaks version`",
                     "reinstall it, or point JOUET_GITLEAKS at a working gitleaks")
    return Check("gitleaks", OK, f"{version} ({binary})")


_FRAMEWORK = "File generated by pre-commit"
_JOUET_IDS = re.compile(r"id:\s*jouet-(pre-commit|pre-push|post-checkout)")


def _git_hooks(cwd: str) -> list[Check]:
    from jouet_git import gitdir
    from jouet_git.setup import git as gitsetup

    root = gitdir.find_root(cwd)
    if root is None:
        return [Check("git hooks", OK, "not inside a git repository")]
    hooks_dir, _ = gitsetup.repository_hooks_dir(root)
    states = {h: _hook_kind(os.path.join(hooks_dir, h)) for h in gitsetup.HOOKS}
    config = os.path.join(root, ".pre-commit-config.yaml")
    uses_framework = False
    try:
        with open(config, encoding="utf-8") as f:
            text = f.read()
        uses_framework = bool(_JOUET_IDS.search(text))
    except OSError:
        text = ""
    guarded = [h for h, kind in states.items() if kind == "jouet" or (kind == "framework" and uses_framework)]
    if len(guarded) == len(states):
        how = "the pre-commit framework" if any(k == "framework" for k in states.values()) else "jouet's own hooks"
        return [Check("git hooks", OK, f"pre-commit, pre-push and post-checkout all run jouet ({how}, {hooks_dir})")]
    missing = [h for h in states if h not in guarded]
    if not guarded and not uses_framework:
        return [Check("git hooks", WARN, f"none of git's hooks run jouet in {hooks_dir}: commits and pushes made "
                      "outside the agent's tool calls are not checked", "run `jouet setup git`")]
    if uses_framework:
        fix = ("run `pre-commit install --hook-type pre-commit --hook-type pre-push --hook-type post-checkout`, "
               "and add `default_install_hook_types: [pre-commit, pre-push, post-checkout]` to "
               ".pre-commit-config.yaml so that teammates get all three")
        detail = (f"the pre-commit framework is set up for jouet, but git's {', '.join(missing)} hook"
                  f"{'s are' if len(missing) > 1 else ' is'} not installed in {hooks_dir}")
        if "pre-push" in missing:
            detail += ": pushes go out unchecked"
        return [Check("git hooks", WARN, detail, fix)]
    return [Check("git hooks", WARN, f"only {', '.join(guarded)} run{'s' if len(guarded) == 1 else ''} jouet in "
                  f"{hooks_dir}; {', '.join(missing)} do{'es' if len(missing) == 1 else ''} not",
                  "run `jouet setup git` (it keeps and chains any hook already there)")]


def _hook_kind(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            head = f.read(4096)
    except OSError:
        return "absent"
    from jouet_git.setup.git import MARKER

    if MARKER in head:
        return "jouet"
    if _FRAMEWORK in head:
        return "framework"
    return "foreign"


def _trust(cwd: str) -> Check:
    from jouet_git import gitdir
    from jouet_git.trust.state import repo_state

    root = gitdir.find_root(cwd)
    if root is None:
        return Check("repository rules", OK, "not inside a git repository")
    state = repo_state(root)
    if state is None:
        return Check("repository rules", OK, "this repository ships no .jouet/ rules")
    if state.runs:
        return Check("repository rules", OK, "this repository's .jouet/ rules are trusted and run")
    return Check("repository rules", WARN, state.detail().split(": review")[0],
                 "review them with `jouet trust --show`, then `jouet trust` if you agree")


def _rules(cwd: str) -> Check:
    from jouet_git.engine.ruleset import load

    try:
        ruleset = load(cwd, use_cache=False)
    except Exception as error:  # a rule set that does not load is exactly what this check reports
        return Check("rules", FAIL, f"the rules do not load: {type(error).__name__}: {error}",
                     "run `jouet rule list` to see which file, and fix or remove it")
    from jouet_git.engine.problems import broken as broken_rules

    broken = [f"rule {item['rule']}: {item['errors'][0]}" for item in broken_rules(ruleset)]
    problems = broken + list(ruleset.problems)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return Check("rules", FAIL, f"{problems[0]}{more}: it guards nothing until fixed",
                     "fix the file named (`jouet rule list` shows every broken rule), or turn the rule off "
                     "in config.toml")
    return Check("rules", OK, f"{len(ruleset.rules)} rules load")
