"""`jouet check --jsonl` does each call's work once: the repository root is looked for once a call
(never remembered across calls, so a repository made in the middle of a stream is seen), the view
of jouet's own files is made only for a call that writes something, and the ledger lines of a
stream that keeps coming are written together, while a client that waits for its answer finds its
ledger line written too."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from testing import git, jouet_exe, make_repo

from jouet_git import gitdir, guarded, ledger
from jouet_git.call import KIND_EDIT, KIND_READ, Call
from jouet_git.commands.check import run_jsonl
from jouet_git.engine import plan as plan_module
from jouet_git.engine import ruleset as ruleset_module
from jouet_git.engine import runner as runner_module
from jouet_git.engine.runner import Runner


def _lines(commands: list[str], cwd: Path | None = None) -> str:
    return "".join(json.dumps({"command": c, **({"cwd": str(cwd)} if cwd else {})}) + "\n" for c in commands)


def _ledger() -> list[dict[str, Any]]:
    try:
        with open(ledger.path(), encoding="utf-8") as f:
            return [json.loads(line) for line in f]
    except FileNotFoundError:
        return []


def _count(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, counts: dict[str, int]) -> None:
    original = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        counts[name] = counts.get(name, 0) + 1
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)


def test_the_root_is_looked_for_once_a_call_and_the_view_only_for_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "r", {"app.py": "x = 1\n"})
    counts: dict[str, int] = {}
    _count(monkeypatch, gitdir, "find", counts)
    _count(monkeypatch, guarded.View, "here", counts)
    quiet = ["git status", "ls -la", "git log --oneline -5", "grep -rn TODO src", "npm test"]
    run_jsonl(io.StringIO(_lines(quiet[:1])), io.StringIO(), str(repo), Runner())  # builds the rule cache
    counts.clear()
    out = io.StringIO()
    run_jsonl(io.StringIO(_lines(quiet * 4)), out, str(repo), Runner())
    assert len(out.getvalue().splitlines()) == 20
    # One a call: deciding, counting a search's files, the ledger and the answer share it.
    assert counts.get("find") == 20, counts
    assert "here" not in counts, counts  # nothing written, no view of jouet's files
    assert len(_ledger()) == 21 and {line["repo"] for line in _ledger()} == {str(repo)}
    counts.clear()
    out = io.StringIO()
    run_jsonl(io.StringIO(_lines(["echo x > notes.txt"])), out, str(repo), Runner())
    assert counts.get("here") == 1, counts


def test_a_repository_made_during_a_stream_is_seen(tmp_path: Path) -> None:
    place = tmp_path / "later"
    place.mkdir()

    def stream() -> Any:
        yield _lines(["git status"], place)
        git(place, "init", "-q")  # between two lines of the same stream
        yield _lines(["git status"], place)

    run_jsonl(stream(), io.StringIO(), str(place), Runner())
    roots = [line["repo"] for line in _ledger()]
    assert roots == [None, str(place)], roots


def test_a_stream_writes_its_ledger_lines_together(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counts: dict[str, int] = {}
    _count(monkeypatch, ledger, "append_many", counts)
    commands = ["git status", "git add -A", "ls"] * 200
    read, write = os.pipe()
    text = _lines(commands)
    # All the input is there before the first answer (as from a file or a fast producer).
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child only feeds the pipe
        os.close(read)
        os.write(write, text.encode())  # more than a pipe holds: the child blocks until read
        os._exit(0)
    os.close(write)
    out = io.StringIO()
    with os.fdopen(read, encoding="utf-8") as stdin:
        run_jsonl(stdin, out, str(tmp_path), Runner())
    os.waitpid(pid, 0)
    assert len(out.getvalue().splitlines()) == 600
    assert [line["decision"] for line in _ledger()] == ["none", "deny", "none"] * 200
    # 600 lines in few writes: at most HELD_LINES a write, plus those written when the input ran dry
    # for a moment (the feeding child writes in pipe-sized pieces).
    assert counts["append_many"] <= 600 // runner_module.HELD_LINES + 20, counts


def test_a_client_that_waits_finds_its_answer_and_its_ledger_line(tmp_path: Path) -> None:
    proc = subprocess.Popen([*jouet_exe(), "check", "--jsonl"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            cwd=tmp_path, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for number, command in enumerate(["git add -A", "git status", "git push --force"], 1):
            proc.stdin.write(_lines([command]))
            proc.stdin.flush()
            answer = json.loads(proc.stdout.readline())
            assert answer["decision"] in ("deny", "none")
            assert len(_ledger()) == number  # written before the answer came back
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert [line["decision"] for line in _ledger()] == ["deny", "none", "deny"]


def _agent_commands() -> list[str]:
    with open(Path(__file__).parent.parent / "data" / "shell" / "agent_commands.json", encoding="utf-8") as f:
        commands: list[str] = json.load(f)
    return commands


def _example_commands(ruleset: Any) -> list[str]:
    """The shell commands of every rule's examples (fires and quiet)."""
    out = []
    for rule in ruleset.rules:
        for kind in ("fires", "quiet"):
            for example in rule.examples.get(kind) or ():
                command = example.get("command") if isinstance(example, dict) else example
                if isinstance(command, str):
                    out.append(command)
    return out


def test_planned_matching_decides_as_the_plain_path(tmp_path: Path) -> None:
    """A plan only skips rules and matchers sure not to match: every decision is the same."""
    repo = make_repo(tmp_path / "r", {"app.py": "x = 1\n"})
    commands = [*_agent_commands(), *_example_commands(ruleset_module.load(str(tmp_path))),
                "git -C sub -c core.x=1 push --force origin main", "git --git-dir=.git stash drop", "git pus -f"]
    assert len(commands) > 500
    plain = Runner(record=False)
    planned = Runner(record=False)
    planned.plan_calls = True
    for command in commands:
        for cwd in (repo, tmp_path):
            one = plain.decide(Call(command=command, cwd=str(cwd)))
            other = planned.decide(Call(command=command, cwd=str(cwd)))
            assert one.to_json() == other.to_json(), command
    for tool, path in (("Read", ".env"), ("Edit", "app.py"), ("Write", ".git/hooks/pre-commit"), ("Grep", "src")):
        call = Call(tool=tool, kind=KIND_READ if tool == "Read" else KIND_EDIT, path=path, cwd=str(repo))
        other_call = Call(tool=tool, kind=call.kind, path=path, cwd=str(repo))
        assert plain.decide(call).to_json() == planned.decide(other_call).to_json(), tool


def test_a_plan_is_made_once_per_shape_of_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counts: dict[str, int] = {}
    _count(monkeypatch, plan_module, "make", counts)
    commands = ["git status", "git status --short", "git add -A", "ls -la", "ls", "git log | head", "cat a.txt",
                "cat b.txt", "git -C sub status"]
    run_jsonl(io.StringIO(_lines(commands * 50)), io.StringIO(), str(tmp_path), Runner())
    # Shapes: git status, git add, ls (whatever follows: no rule names a subcommand of ls), git log
    # with head, cat, git with options before its subcommand: six plans for 450 lines.
    assert counts["make"] == 6, counts


STATEFUL = """
local runs = 0
local seen = {}
return {check = function(c)
  runs = runs + 1
  seen[#seen + 1] = c.command
  calls = (calls or 0) + 1
  if runs > 1 or #seen > 1 or calls > 1 then
    return jouet.warn("state left by an earlier call: " .. runs .. " " .. #seen .. " " .. calls)
  end
  return nil
end}
"""


def test_a_script_starts_fresh_on_every_line_in_one_sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Globals, top-level locals and tables a script changed on one line are gone on the next (as in
    hooks, a process a call), while the stream makes one sandbox and compiles the script once."""
    rules = Path(os.environ["JOUET_CONFIG_DIR"]) / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    (rules / "stateful.luau").write_text(STATEFUL)
    (rules / "stateful.toml").write_text(
        '[[rule]]\nname = "stateful"\nwhy = "testing"\nscript = "stateful.luau"\n[rule.match]\ncommand = "demo"\n'
        '[rule.examples]\nfires = []\nquiet = ["demo x"]\n')
    from jouet_git.luau import sandbox

    counts: dict[str, int] = {}
    _count(monkeypatch, sandbox.Sandbox, "__init__", counts)
    _count(monkeypatch, sandbox.Sandbox, "load", counts)
    _count(monkeypatch, sandbox.Sandbox, "call", counts)
    _count(monkeypatch, sandbox.Sandbox, "new_env", counts)
    out = io.StringIO()
    # Each line different: a line that comes again may get the decision kept for it (test_check_memo.py).
    commands = [c for n in range(10) for c in (f"demo x{n}", "ls", f"demo y{n}")]
    run_jsonl(io.StringIO(_lines(commands)), out, str(tmp_path), Runner())
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(answers) == 30
    assert all(a["decision"] == "none" and a["errors"] == [] for a in answers), answers
    assert counts["__init__"] == 1, counts  # one Lua VM for the stream
    assert counts["load"] == 1, counts  # the script compiled once
    # 20 lines ran it: each ran the script's body once, with globals of its own (the first with
    # those it was compiled with), and its check once.
    assert counts["call"] == 40, counts
    assert counts["new_env"] == 20, counts


def test_a_stream_redacts_a_text_and_hashes_a_root_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "r", {"app.py": "x = 1\n"})
    counts: dict[str, int] = {}
    _count(monkeypatch, ledger, "redact", counts)
    _count(monkeypatch, ledger, "root_hash", counts)
    secret = "curl -H 'Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789' https://api.github.com"
    commands = ["git status", secret, "ls"] * 20
    run_jsonl(io.StringIO(_lines(commands)), io.StringIO(), str(repo), Runner())
    assert counts["redact"] == 3 and counts["root_hash"] == 1, counts
    lines = _ledger()
    stored = [line["command"] for line in lines]
    assert len(stored) == 60 and stored[:3] * 20 == stored
    assert "ghp_" not in stored[1] and "[redacted]" in stored[1]
    assert {line["wt"] for line in lines} == {ledger.root_hash(str(repo))}


def test_a_line_that_comes_again_is_not_read_again_but_gets_a_call_of_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A line that comes again gets a copy of the call its first coming made (check.again): its JSON
    and command are not read again, yet each line decides with a Call of its own (the probes and the
    script host keep per-call state by identity); a line whose command read a file is read again."""
    from jouet_git import shell

    parsed: list[str] = []
    real_parse = shell.parse
    monkeypatch.setattr(shell, "parse", lambda text, *a: parsed.append(text) or real_parse(text, *a))
    seen: list[Call] = []
    real_decide = Runner.decide

    def decide(self: Runner, call: Call, *args: Any, **kwargs: Any) -> Any:
        seen.append(call)
        return real_decide(self, call, *args, **kwargs)

    monkeypatch.setattr(Runner, "decide", decide)
    (tmp_path / "x.sh").write_text("git status\n")
    lines = [json.dumps({"command": "git status && ls"})] * 4 + [json.dumps({"command": "bash x.sh"})] * 3
    out = io.StringIO()
    run_jsonl(io.StringIO("\n".join(lines) + "\n"), out, str(tmp_path), Runner(record=False))
    answers = out.getvalue().splitlines()
    assert len(answers) == 7 and len(set(answers[:4])) == 1 and len(set(answers[4:])) == 1
    assert parsed.count("git status && ls") == 1
    assert parsed.count("bash x.sh") == 3
    assert len({id(c) for c in seen}) == 7  # (all alive in `seen`: ids are distinct objects)
    assert all(c.commands == seen[0].commands for c in seen[:4])
