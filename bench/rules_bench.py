"""Many rules of your own: `jouet hook claude pre` on `git status` with 1,000 user rules for other
programs (none can match it), and the first call after one rule file was edited, against a bare
`python -I -c` that reads the same JSON, side by side in one run.

    python bench/rules_bench.py [ROUNDS] [--other NAME=VENV ...] [--instructions]

Two layouts of the same 1,000 rules: one rule a file (1,000 files to check for changes on every
call), and 20 rules a file (50 files). Before each timed run of an "after an edit" case, one rule
file is rewritten (a rule's message changes, so the rule set is really built again for that file);
the edit is not timed, the first call after it is. Targets (issue 18): 1.6x for the rules that
cannot match, 2.5x for the first call after an edit.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable

from _common import (
    BARE,
    Case,
    bare_case,
    claude_payload,
    installs,
    instructions,
    isolated_env,
    jouet,
    make_repo,
    options,
    report,
    side_by_side,
)

RULES = 1000


def rule_text(n: int, edit: int = 0) -> str:
    """A user rule for a program the call does not run (tool-n), with a message that an edit changes."""
    return (
        "[[rule]]\n"
        f'name = "tool-{n}-flags"\n'
        f'why = "tool-{n} with --force overwrites shared state (bench rule {n})."\n'
        'author = "bench"\n'
        'created = "2026-12-01"\n'
        f'message = "Run tool-{n} without --force (edit {edit})."\n'
        "[[rule.match]]\n"
        f'command = ["tool-{n} deploy", "tool-{n} push"]\n'
        'flags = ["--force", "-f"]\n'
    )


def write_rules(config: str, per_file: int) -> list[str]:
    """1,000 rules in CONFIG/rules, PER_FILE to a file; the files' paths."""
    directory = os.path.join(config, "rules")
    os.makedirs(directory, exist_ok=True)
    files = []
    for start in range(0, RULES, per_file):
        path = os.path.join(directory, f"team-{start:04d}.toml")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(rule_text(n) for n in range(start, start + per_file)))
        files.append(path)
    return files


def editor(path: str, per_file: int) -> Callable[[int], None]:
    """A `before` hook rewriting PATH with its first rule's message changed (a new text each round)."""
    first = int(os.path.basename(path)[5:9])

    def edit(round_: int) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(rule_text(n, round_ + 1 if n == first else 0) for n in range(first, first + per_file)))

    return edit


def main() -> None:
    args = options(30)
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repo(os.path.join(tmp, "repo"))
        payload = claude_payload("git status", repo)
        cases: dict[str, Case] = {BARE: bare_case(payload, repo, isolated_env(tmp))}
        wanted: dict[str, float] = {}
        for suffix, venv in installs(args):
            plain = isolated_env(os.path.join(tmp, "plain" + suffix.strip(" []")))
            cases["no rules of yours" + suffix] = Case([jouet(venv), "hook", "claude", "pre"], payload, repo, plain)
            for per_file in (1, 20):
                env = isolated_env(os.path.join(tmp, f"rules{per_file}" + suffix.strip(" []")))
                files = write_rules(env["JOUET_CONFIG_DIR"], per_file)
                layout = f"{RULES} rules, {len(files)} files"
                cases[layout + suffix] = Case([jouet(venv), "hook", "claude", "pre"], payload, repo, env)
                wanted[layout + suffix] = 1.6
                # Its own copy of the rules, so that the edits never touch the case above.
                edited_env = isolated_env(os.path.join(tmp, f"edited{per_file}" + suffix.strip(" []")))
                edited_files = write_rules(edited_env["JOUET_CONFIG_DIR"], per_file)
                name = f"{layout}, first call after an edit" + suffix
                cases[name] = Case([jouet(venv), "hook", "claude", "pre"], payload, repo, edited_env,
                                   before=editor(edited_files[len(edited_files) // 2], per_file))
                wanted[name] = 2.5
        medians = side_by_side(cases, args.rounds)
        counts = instructions(cases) if args.instructions else None
    print(f"jouet hook claude pre on `git status`, {RULES} user rules for other programs, "
          f"median of {args.rounds} rounds, side by side:")
    report(medians, BARE, counts, wanted)


if __name__ == "__main__":
    main()
