"""`jouet check --jsonl` decides a line it has decided before only when something deciding read may
have changed (engine/runner.py _Kept): a line that comes again gets the kept decision while every
question asked beyond the call (a rule's `requires`, a state key, a script's probe) gets the same
answer again, and is decided in full otherwise. A decision that asked the clock, the date or the
random generator, or that a failing rule took part in, is never kept.

Each stream changes the disk between two identical lines (a generator feeds the lines), and the
tests count what ran (Runner.memo_hits, the engine's decide, the script host's runs), never time."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from testing import git, make_repo

from jouet_git import ledger
from jouet_git.commands.check import run_jsonl
from jouet_git.engine import runner as runner_module
from jouet_git.engine import script_host
from jouet_git.engine.runner import Runner
from jouet_git.gitleaks import binary


def _line(command: str) -> str:
    return json.dumps({"command": command}) + "\n"


def _answers(out: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def _decisions(out: io.StringIO) -> list[str]:
    return [answer["decision"] for answer in _answers(out)]


def _count(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> dict[str, int]:
    counts = {"runs": 0}
    original = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        counts["runs"] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return counts


def _user_rule(name: str, toml: str, script: str | None = None) -> None:
    """A rule of yours for the program `demo` (it warns: a rule you write warns until promoted)."""
    rules = Path(os.environ["JOUET_CONFIG_DIR"]) / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    if script is not None:
        (rules / f"{name}.luau").write_text(script)
    (rules / f"{name}.toml").write_text(
        f'[[rule]]\nname = "{name}"\nwhy = "testing"\nmode = "deny"\n{toml}\n'
        '[[rule.match]]\ncommand = "demo"\n[rule.examples]\nfires = []\nquiet = []\n')


def test_a_line_that_comes_again_is_decided_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "r", {"app.py": "x = 1\n"})
    commands = ["git status", "git add -A", "ls -la", "git push --force origin main", "rm -rf build"]
    plain = [json.dumps(Runner(record=False).decide(_call(c, repo)).to_json()) for c in commands]
    decided = _count(monkeypatch, runner_module, "decide")
    runner = Runner()
    out = io.StringIO()
    run_jsonl(io.StringIO("".join(_line(c) for c in commands * 20)), out, str(repo), runner)
    answers = _answers(out)
    assert len(answers) == 100
    assert decided["runs"] == 5 and runner.memo_hits == 95, (decided, runner.memo_hits)
    for number, answer in enumerate(answers):
        kept = {k: v for k, v in answer.items() if k not in ("broken", "problems")}
        assert json.dumps(kept) == plain[number % 5], (commands[number % 5], answer)
    # Every line is still recorded, with what was decided.
    with open(ledger.path(), encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]
    assert [line["decision"] for line in lines] == [a["decision"] for a in answers]
    assert [line["command"] for line in lines] == commands * 20
    # A line decided again is recorded as the first one was, at its own time.
    timeless = [{k: v for k, v in line.items() if k not in ("time", "ts", "ms")} for line in lines]
    assert timeless[:5] * 20 == timeless
    assert all(isinstance(line["ms"], float) and isinstance(line["ts"], float) for line in lines)


def _call(command: str, cwd: Path) -> Any:
    from jouet_git.harness.manual import build_call

    return build_call(command, str(cwd), None, None)


def test_a_probe_whose_answer_changed_is_decided_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _user_rule("flagged", 'script = "flagged.luau"', """
return {check = function(call)
  local stop = jouet.file.contains("flag.txt", "stop")
  if stop then return jouet.deny("the flag says stop") end
  return nil
end}
""")
    flag = tmp_path / "flag.txt"
    flag.write_text("go\n")

    def stream() -> Iterator[str]:
        yield _line("demo")
        yield _line("demo")
        flag.write_text("stop\n")  # between two identical lines
        yield _line("demo")
        yield _line("demo")
        flag.write_text("go on\n")
        yield _line("demo")

    runs = _count(monkeypatch, script_host.ScriptHost, "run")
    runner = Runner()
    out = io.StringIO()
    run_jsonl(stream(), out, str(tmp_path), runner)
    assert _decisions(out) == ["none", "none", "warn", "warn", "none"]
    # The second and the fourth line: the probe asked again gave the same answer, the script did not run.
    assert runner.memo_hits == 2 and runs["runs"] == 3, (runner.memo_hits, runs)


def test_a_requirement_that_changed_is_decided_again(tmp_path: Path) -> None:
    _user_rule("stop-file", 'message = "a STOP file is here"\nrequires = { files = ["STOP"] }')
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)

    def stream() -> Iterator[str]:
        yield _line("demo")
        (tmp_path / "a" / "STOP").write_text("")  # above the call's directory
        yield _line("demo")
        yield _line("demo")
        (tmp_path / "a" / "STOP").unlink()
        yield _line("demo")

    runner = Runner()
    out = io.StringIO()
    run_jsonl(stream(), out, str(inner), runner)
    assert _decisions(out) == ["none", "warn", "warn", "none"]
    assert runner.memo_hits == 1


def test_a_state_key_whose_answer_changed_is_decided_again(tmp_path: Path) -> None:
    """large-read counts the source lines `cat` shows (min_code_lines): the file grows between lines."""
    repo = make_repo(tmp_path / "r", {"big.py": "x = 1\n"})

    def stream() -> Iterator[str]:
        yield _line("cat big.py")
        yield _line("cat big.py")
        (repo / "big.py").write_text("".join(f"x{n} = {n}\n" for n in range(1500)))
        yield _line("cat big.py")
        yield _line("cat big.py")

    runner = Runner()
    out = io.StringIO()
    run_jsonl(stream(), out, str(repo), runner)
    answers = _answers(out)
    assert [a["deny"]["rule"] if a["deny"] else None for a in answers] == [None, None, "large-read", "large-read"]
    assert runner.memo_hits == 2


@pytest.mark.parametrize("how", ["script", "alias"])
def test_a_command_read_from_a_file_is_read_again(tmp_path: Path, how: str) -> None:
    """What `bash x.sh` runs, and what a git alias stands for, are read from files that may change
    between two lines of the same text: such a line is never given a kept decision."""
    repo = make_repo(tmp_path / "r", {"notes.txt": "kept\n"})
    (repo / "notes.txt").write_text("work not committed\n")  # what `git reset --hard` would lose
    line = _line("bash x.sh" if how == "script" else "git undo")

    def change(to: str) -> None:
        if how == "script":
            (repo / "x.sh").write_text(to + "\n")
        else:
            git(repo, "config", "alias.undo", to.removeprefix("git "))

    def stream() -> Iterator[str]:
        change("git log -1")
        yield line
        yield line
        change("git reset --hard HEAD")
        yield line
        change("git log -1")
        yield line

    runner = Runner()
    out = io.StringIO()
    run_jsonl(stream(), out, str(repo), runner)
    denied = [a["deny"]["rule"] if a["deny"] else None for a in _answers(out)]
    assert denied == [None, None, "reset-hard", None], _answers(out)
    assert runner.memo_hits == 0


@pytest.mark.skipif(binary.find_gitleaks() is None, reason="gitleaks is not installed")
def test_a_secret_staged_during_a_stream_is_seen(tmp_path: Path) -> None:
    """committed-secrets asks the secret scan (a probe running git and gitleaks) what is staged."""
    repo = make_repo(tmp_path / "r", {"README.md": "hello\n"})
    git(repo, "checkout", "-q", "-b", "feature")
    token = "ghp_" + "k8Qw3ZtR7yLm2NpX5vBc9DfG1hJs4KaE6uTo"

    def stream() -> Iterator[str]:
        yield _line("git commit -m wip")
        yield _line("git commit -m wip")
        (repo / "deploy.sh").write_text(f"export GITHUB_TOKEN={token}\n")
        git(repo, "add", "deploy.sh")
        yield _line("git commit -m wip")
        yield _line("git commit -m wip")
        git(repo, "reset", "-q")
        yield _line("git commit -m wip")

    runner = Runner()
    out = io.StringIO()
    run_jsonl(stream(), out, str(repo), runner)
    answers = _answers(out)
    denied = [a["deny"]["rule"] if a["deny"] else None for a in answers]
    assert denied == [None, None, "committed-secrets", "committed-secrets", None], answers
    assert runner.memo_hits == 2
    assert token not in out.getvalue()


CLOCK = """
return {check = function(call)
  local t = %s
  if t ~= t then return jouet.deny("never") end
  return nil
end}
"""


def _script_stream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, script: str,
                   lines: int) -> tuple[Runner, io.StringIO, dict[str, int]]:
    """LINES identical `demo` lines through a stream, with a rule of yours NAME running SCRIPT: the
    runner, what it answered, and how many times the script host ran."""
    _user_rule(name, f'script = "{name}.luau"', script)
    runs = _count(monkeypatch, script_host.ScriptHost, "run")
    runner = Runner()
    out = io.StringIO()
    run_jsonl(io.StringIO(_line("demo") * lines), out, str(tmp_path), runner)
    return runner, out, runs


@pytest.mark.parametrize("asks", ["os.time()", "os.clock()", "os.date('%H')", "math.random(6)"])
def test_a_script_that_asks_the_clock_or_chance_runs_on_every_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, asks: str) -> None:
    runner, out, runs = _script_stream(tmp_path, monkeypatch, "timely", CLOCK % asks, 5)
    assert _decisions(out) == ["none"] * 5
    assert runner.memo_hits == 0 and runs["runs"] == 5, (runner.memo_hits, runs)


def test_a_script_that_reads_only_the_call_runs_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner, out, runs = _script_stream(tmp_path, monkeypatch, "plain", CLOCK % "#call.command", 5)
    assert _decisions(out) == ["none"] * 5
    assert runner.memo_hits == 4 and runs["runs"] == 1, (runner.memo_hits, runs)


def test_a_failing_script_runs_on_every_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner, out, runs = _script_stream(tmp_path, monkeypatch, "failing",
                                       'return {check = function(call) error("boom") end}', 3)
    answers = _answers(out)
    assert all(a["errors"] and a["errors"][0]["rule"] == "failing" for a in answers), answers
    assert runner.memo_hits == 0 and runs["runs"] == 3, (runner.memo_hits, runs)
