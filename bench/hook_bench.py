"""The hook an agent's every tool call waits for: `jouet hook claude pre` on each kind of payload, every
built-in rule loaded, inside a git repository with a remote, against a bare `python -I -c` that reads
the same JSON, side by side in one run.

    python bench/hook_bench.py [ROUNDS] [--other NAME=VENV ...] [--instructions]

Run it with the python of a clean virtual environment that has jouet installed (not editable), as
pipx or uv would make it. The payloads:

  git status, a shape denial (`git add -A`), an Edit, a 2 KB heredoc,
  a read (`sed -n 1,40p FILE`), an inline program (`python3 -c ...`)   target 1.5x the bare start-up
  a commit, a reset, a push (script rules start and ask git)            target 2.0x
  a force push in a repository whose unpushed commit holds a gitleaks
  keyword (the built-in force-push rule must deny before any script,
  git probe or gitleaks runs)                                          target 1.5x
"""

from __future__ import annotations

import itertools
import json
import os
import tempfile
from collections.abc import Callable

from _common import (
    BARE,
    Case,
    bare_case,
    claude_payload,
    claude_tool,
    git,
    installs,
    instructions,
    isolated_env,
    jouet,
    make_repo,
    options,
    report,
    side_by_side,
)

INLINE = "python3 -c 'import json, sys; print(sorted(json.load(sys.stdin)))' < data.json"
HEREDOC = "cat > notes/plan.md <<'EOF'\n" + "".join(
    f"- step {i}: read the parser, write the test, run it, then commit the change\n" for i in range(27)) + "EOF"


def repository(tmp: str, name: str, unpushed: str) -> str:
    """A clone of a bare remote, one commit pushed, one unpushed commit adding UNPUSHED, one staged change."""
    remote = os.path.join(tmp, f"{name}.git")
    git(["init", "-q", "--bare", "-b", "main", remote], tmp)
    repo = make_repo(os.path.join(tmp, name))
    git(["remote", "add", "origin", remote], repo)
    git(["push", "-q", "-u", "origin", "main"], repo)
    with open(os.path.join(repo, "notes.md"), "a", encoding="utf-8") as f:
        f.write(unpushed)
    git(["commit", "-q", "-am", "more notes"], repo)
    os.makedirs(os.path.join(repo, "src"))
    with open(os.path.join(repo, "src", "app.py"), "w", encoding="utf-8") as f:
        f.write("def main():\n    return 0\n")
    git(["add", "src/app.py"], repo)
    return repo


_sessions = itertools.count()


def first_read(case: Case) -> Callable[[int], None]:
    """A new session for each run of CASE: the same session reading the same lines again meets the
    reread rule, a denial, which is not what the read case times."""
    def before(_: int) -> None:
        payload = json.loads(case.stdin)
        payload["session_id"] = f"bench-read-{next(_sessions)}"
        case.stdin = json.dumps(payload).encode()

    return before


def main() -> None:
    args = options(30)
    with tempfile.TemporaryDirectory() as tmp:
        repo = repository(tmp, "repo", "plain prose, nothing to see\n")
        keyword = repository(tmp, "keyword", "the api token handling changed: see the password notes\n")
        edit = claude_tool("Edit", {"file_path": os.path.join(repo, "src", "app.py"), "old_string": "return 0",
                                    "new_string": "return 1"}, repo)
        payloads = {
            "git status": (claude_payload("git status", repo), repo),
            "a shape denial (git add -A)": (claude_payload("git add -A", repo), repo),
            "an Edit": (edit, repo),
            "a 2 KB heredoc": (claude_payload(HEREDOC, repo), repo),
            "a read (sed -n 1,40p src/app.py)": (claude_payload("sed -n 1,40p src/app.py", repo), repo),
            "an inline program (python3 -c)": (claude_payload(INLINE, repo), repo),
            "a commit": (claude_payload("git commit -m 'Fix the parser'", repo), repo),
            "a reset": (claude_payload("git reset --hard HEAD~1", repo), repo),
            "a push": (claude_payload("git push origin main", repo), repo),
            "a force push, keyword commit unpushed": (claude_payload("git push --force origin main", keyword),
                                                      keyword),
        }
        targets = {"git status": 1.5, "a shape denial (git add -A)": 1.5, "an Edit": 1.5, "a 2 KB heredoc": 1.5,
                   "a read (sed -n 1,40p src/app.py)": 1.5, "an inline program (python3 -c)": 1.5,
                   "a commit": 2.0, "a reset": 2.0, "a push": 2.0, "a force push, keyword commit unpushed": 1.5}
        cases: dict[str, Case] = {BARE: bare_case(payloads["git status"][0], repo, isolated_env(tmp))}
        wanted: dict[str, float] = {}
        for suffix, venv in installs(args):
            env = isolated_env(os.path.join(tmp, "jouet" + suffix.strip(" []")))
            for name, (payload, cwd) in payloads.items():
                case = cases[name + suffix] = Case([jouet(venv), "hook", "claude", "pre"], payload, cwd, env)
                if name.startswith("a read"):
                    case.before = first_read(case)
                wanted[name + suffix] = targets[name]
        medians = side_by_side(cases, args.rounds)
        counts = instructions(cases) if args.instructions else None
    print(f"jouet hook claude pre, median of {args.rounds} rounds, side by side:")
    report(medians, BARE, counts, wanted)


if __name__ == "__main__":
    main()
