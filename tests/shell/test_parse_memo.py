"""shell.ParseMemo: a stream's memo of commands read. It reads each text once and serves copies, and
keeps nothing that depends on more than the text, the exit code and the directory."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from jouet_git.call import POST_TOOL_USE, Call
from jouet_git.commands.check import run_jsonl
from jouet_git.engine.runner import Runner
from jouet_git.shell import ParseMemo, parse


def _shape(result: object) -> object:
    return json.dumps(result.to_json(), sort_keys=True)  # type: ignore[attr-defined]


def test_the_same_text_is_read_once_and_served_as_a_copy() -> None:
    memo = ParseMemo()
    first = memo.parse("git status && git diff --stat | head", None, "/tmp")
    first.commands.append(first.commands[0])  # what a caller does with its list stays its own
    first.problems.append("mine")
    second = memo.parse("git status && git diff --stat | head", None, "/tmp")
    assert memo.parsed == 1 and memo.kept == 1
    assert _shape(second) == _shape(parse("git status && git diff --stat | head", None, "/tmp"))
    assert len(second.commands) == 3 and second.problems == []


def test_exit_code_and_directory_are_part_of_the_key() -> None:
    memo = ParseMemo()
    memo.parse("make test", None, "/tmp")
    with_status = memo.parse("make test", 2, "/tmp")
    memo.parse("make test", None, "/srv")
    assert memo.parsed == 3 and memo.kept == 0
    assert with_status.commands[0].status == 2


def test_a_command_that_runs_a_script_file_is_read_again_each_time(tmp_path: Path) -> None:
    """`bash x.sh` reads x.sh from disk: its file may change between two calls of a stream."""
    script = tmp_path / "x.sh"
    script.write_text("echo hello\n")
    memo = ParseMemo()
    before = memo.parse("bash x.sh", None, str(tmp_path))
    script.write_text("git push --force origin main\n")
    after = memo.parse("bash x.sh", None, str(tmp_path))
    assert memo.parsed == 2 and memo.kept == 0
    assert "git" not in [c.program for c in before.commands]
    assert "git" in [c.program for c in after.commands]


def test_a_stream_reads_a_repeated_command_once_and_decides_each_line_alike(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memos: list[ParseMemo] = []
    original = ParseMemo.__init__

    def made(self: ParseMemo) -> None:
        original(self)
        memos.append(self)

    monkeypatch.setattr(ParseMemo, "__init__", made)
    commands = ["git status", "git add -A", "cat .env", "ls -la"] * 25
    out = io.StringIO()
    run_jsonl(io.StringIO("".join(json.dumps({"command": c}) + "\n" for c in commands)), out, str(tmp_path),
              Runner(record=False))
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a["decision"] for a in answers[:4]] * 25 == [a["decision"] for a in answers]
    assert [a["decision"] for a in answers[:4]] == ["none", "deny", "deny", "none"]
    assert len(memos) == 1
    memo = memos[0]
    # Each text read once. A line that comes again gets a copy of the call its first coming made, its
    # commands read already (commands/check.py again): the memo is not even asked.
    assert memo.parsed == 4 and memo.kept == 0, (memo.parsed, memo.kept)
    # The same command in a line of other text (here, another field) is a new line, whose command the
    # memo gives again.
    out = io.StringIO()
    run_jsonl(io.StringIO("".join(json.dumps({"command": c, "n": n}) + "\n" for n, c in enumerate(commands[:8]))),
              out, str(tmp_path), Runner(record=False))
    assert memos[-1].parsed == 4 and memos[-1].kept == 4, (memos[-1].parsed, memos[-1].kept)


def test_a_post_tool_call_reads_with_its_exit_code() -> None:
    memo = ParseMemo()
    calls = [Call(event=POST_TOOL_USE, command="npm test", cwd="/tmp", exit_code=code) for code in (0, 1, 0)]
    for call in calls:
        call.reader = memo
    assert [c.commands[0].status for c in calls] == [0, 1, 0]
    assert memo.parsed == 2 and memo.kept == 1
