"""What a read shows (jouet_git/reads.py): the lines of files each read tool and shell read puts into
the context, and the per-session log behind `seen`."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from jouet_git import reads
from jouet_git.call import KIND_READ, KIND_SHELL, POST_TOOL_USE, Call


def lines(n: int, prefix: str = "line") -> str:
    return "".join(f"{prefix} {i}\n" for i in range(1, n + 1))


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(lines(3000, "x ="))
    (tmp_path / "src" / "small.py").write_text(lines(30))
    (tmp_path / "notes.txt").write_text(lines(50))
    (tmp_path / "app.log").write_text(lines(5000))
    return tmp_path


def read_call(cwd: Path, path: str, harness: str = "claude", session: str | None = "s1", **given: object) -> Call:
    return Call(harness=harness, tool="Read", kind=KIND_READ, path=path, cwd=str(cwd), session=session,
                input={"file_path": path, **given})


def shell(cwd: Path, command: str, session: str | None = "s1", **fields: object) -> Call:
    return Call(command=command, cwd=str(cwd), session=session, kind=KIND_SHELL, **fields)  # type: ignore[arg-type]


def ranges(what: reads.Shown | None) -> list[tuple[str, int, int]]:
    assert what is not None
    return [(os.path.basename(p.path), p.first, p.last) for p in what.pieces]


def test_claude_read_shows_2000_lines_without_a_limit_and_its_range_with_one(work: Path) -> None:
    assert ranges(reads.shown(read_call(work, "src/app.py"))) == [("app.py", 1, 2000)]
    assert ranges(reads.shown(read_call(work, "src/app.py", offset=100, limit=50))) == [("app.py", 100, 149)]
    assert ranges(reads.shown(read_call(work, "src/app.py", offset=2990))) == [("app.py", 2990, 3000)]
    assert ranges(reads.shown(read_call(work, "src/small.py"))) == [("small.py", 1, 30)]
    what = reads.shown(read_call(work, str(work / "src" / "app.py")))
    assert what is not None and what.lines == 2000 and what.code_lines == 2000
    log = reads.shown(read_call(work, "app.log"))
    assert log is not None and log.lines == 2000 and log.code_lines == 0


def test_other_harnesses_read_tools(work: Path) -> None:
    # Gemini CLI's read_file counts its offset from 0; Copilot's view and Amp's Read take a range.
    assert ranges(reads.shown(read_call(work, "notes.txt", harness="gemini", offset=10, limit=5))) == [
        ("notes.txt", 11, 15)]
    assert ranges(reads.shown(read_call(work, "notes.txt", harness="copilot", view_range=[5, 9]))) == [
        ("notes.txt", 5, 9)]
    assert ranges(reads.shown(read_call(work, "notes.txt", harness="copilot", view_range=[40, -1]))) == [
        ("notes.txt", 40, 50)]
    assert ranges(reads.shown(read_call(work, "notes.txt", harness="amp", read_range=[1, 3]))) == [
        ("notes.txt", 1, 3)]
    # A harness whose read tool shows the whole file.
    assert ranges(reads.shown(read_call(work, "app.log", harness="cursor"))) == [("app.log", 1, 5000)]


def test_a_missing_file_or_an_image_is_not_a_read(work: Path) -> None:
    assert reads.shown(read_call(work, "nope.py")) is None
    (work / "logo.png").write_bytes(b"\x89PNG\r\n")
    assert reads.shown(read_call(work, "logo.png")) is None


@pytest.mark.parametrize(("command", "expected"), [
    ("cat notes.txt", [("notes.txt", 1, 50)]),
    ("cat -n notes.txt src/small.py", [("notes.txt", 1, 50), ("small.py", 1, 30)]),
    ("nl notes.txt", [("notes.txt", 1, 50)]),
    ("head notes.txt", [("notes.txt", 1, 10)]),
    ("head -n 20 notes.txt", [("notes.txt", 1, 20)]),
    ("head -5 notes.txt", [("notes.txt", 1, 5)]),
    ("head -n -10 notes.txt", [("notes.txt", 1, 40)]),
    ("tail -n 5 notes.txt", [("notes.txt", 46, 50)]),
    ("tail -n +45 notes.txt", [("notes.txt", 45, 50)]),
    ("tail --lines=3 notes.txt", [("notes.txt", 48, 50)]),
    ("sed -n '10,20p' notes.txt", [("notes.txt", 10, 20)]),
    ("sed -n 5p notes.txt", [("notes.txt", 5, 5)]),
    ("sed -n -e '1,3p' -e '40,$p' notes.txt", [("notes.txt", 1, 3), ("notes.txt", 40, 50)]),
    ("sed -n '1,5p;5q' notes.txt", [("notes.txt", 1, 5)]),
    ("head -n 30 notes.txt | tail -n 10", [("notes.txt", 21, 30)]),
    ("cat notes.txt | sed -n '2,4p'", [("notes.txt", 2, 4)]),
    ("cat notes.txt src/small.py | head -n 55", [("notes.txt", 1, 50), ("small.py", 1, 5)]),
    ("cd src && head -n 3 small.py", [("small.py", 1, 3)]),
    ("head -n 2 notes.txt; tail -n 1 src/small.py", [("notes.txt", 1, 2), ("small.py", 30, 30)]),
    ("cat src/*.py", [("app.py", 1, 3000), ("small.py", 1, 30)]),
])
def test_shell_reads(work: Path, command: str, expected: list[tuple[str, int, int]]) -> None:
    assert ranges(reads.shown(shell(work, command))) == expected


@pytest.mark.parametrize("command", [
    "cat notes.txt > copy.txt",             # nothing reaches the transcript
    "x=$(cat notes.txt)",                   # captured
    "cat notes.txt | grep line",            # grep is not one of the read programs
    "sed 's/a/b/' notes.txt",               # sed without -n edits its output
    "sed -n '/line 3/p' notes.txt",         # a pattern: which lines is unknown
    "sed -i -n '1p' notes.txt",             # writes the file
    "head -c 100 notes.txt",                # bytes, not lines
    "tail -f app.log",                      # follows, never ends
    "cat",                                  # standard input
    "cat missing.txt",
    "cd $DIR && cat notes.txt",             # a cd jouet cannot follow
    "sudo cat notes.txt",
    "git show HEAD:notes.txt",
    "echo notes.txt",
])
def test_what_is_not_a_shell_read(work: Path, command: str) -> None:
    assert reads.shown(shell(work, command)) is None


def test_seen_needs_every_line_shown_in_an_unchanged_file(work: Path) -> None:
    first = read_call(work, "notes.txt", offset=1, limit=20)
    assert not reads.seen(first, reads.shown(first))
    reads.note(first, denied=False)
    assert reads.seen(first, reads.shown(first))
    inside = shell(work, "sed -n '5,15p' notes.txt")
    assert reads.seen(inside, reads.shown(inside))
    beyond = shell(work, "head -n 30 notes.txt")
    assert not reads.seen(beyond, reads.shown(beyond))
    reads.note(shell(work, "sed -n '21,40p' notes.txt"), denied=False)
    assert reads.seen(beyond, reads.shown(beyond))  # two reads together cover 1-40
    # Another session, or a subagent of this one, saw nothing.
    assert not reads.seen(read_call(work, "notes.txt", session="s2", limit=5), reads.shown(first))
    sub = Call(harness="claude", tool="Read", kind=KIND_READ, path="notes.txt", cwd=str(work), session="s1",
               agent="a1", input={"file_path": "notes.txt", "limit": 5})
    assert not reads.seen(sub, reads.shown(sub))
    # A change to the file: nothing of it was seen.
    with open(work / "notes.txt", "a") as f:
        f.write("more\n")
    again = read_call(work, "notes.txt", limit=5)
    assert not reads.seen(again, reads.shown(again))


def test_a_denied_read_forgets_the_file_and_a_failed_shell_read_too(work: Path) -> None:
    call = shell(work, "cat notes.txt")
    reads.note(call, denied=False)
    assert reads.seen(call, reads.shown(call))
    reads.note(call, denied=True)
    assert not reads.seen(call, reads.shown(call))
    reads.note(call, denied=False)
    failed = shell(work, "cat notes.txt", event=POST_TOOL_USE, exit_code=1)
    reads.note(failed, denied=False)
    assert not reads.seen(call, reads.shown(call))


def test_the_log_is_private_holds_no_path_and_starts_again_after_compaction(work: Path) -> None:
    call = read_call(work, "src/small.py")
    reads.note(call, denied=False)
    log = Path(reads.log_path("s1", None))
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert stat.S_IMODE(log.parent.stat().st_mode) == 0o700
    text = log.read_text()
    assert "small.py" not in text and str(work) not in text and "line" not in text
    reads.forget_session("s1")
    assert not log.exists() and not reads.seen(call, reads.shown(call))


def test_the_log_stays_bounded(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reads, "MAX_LOG", 4096)
    for i in range(1, 200):
        reads.note(read_call(work, "notes.txt", offset=i % 50 + 1, limit=1), denied=False)
    assert Path(reads.log_path("s1", None)).stat().st_size <= 4096 + 200
    last = read_call(work, "notes.txt", offset=199 % 50 + 1, limit=1)
    assert reads.seen(last, reads.shown(last))


def test_a_read_too_large_for_claude_code_is_not_remembered(work: Path) -> None:
    (work / "wide.py").write_text("".join(f"x{i} = '{'y' * 200}'\n" for i in range(2500)))
    call = read_call(work, "wide.py")
    reads.note(call, denied=False)
    assert not reads.seen(call, reads.shown(call))
    ranged = read_call(work, "wide.py", offset=1, limit=100)
    reads.note(ranged, denied=False)
    assert reads.seen(ranged, reads.shown(ranged))


@pytest.mark.parametrize(("command", "none"), [
    ("cat > notes.md <<'EOF'\nhello\nEOF", True), ("cat <<EOF > notes.md\nhello\nEOF", True), ("cat < notes.txt", True),
    ("head -n 3 <<< 'x'", True), ("git status", True), ("echo hi > a.txt", True), ("cat notes.txt; cat < a.txt", True),
    ("cat notes.txt", False), ("cat notes.txt | head -n 2", False), ("sed -n 1,3p notes.txt", False),
    ("cd sub && cat b.txt", False), ("tail notes.txt > b.txt", False),
])
def test_shows_no_file_only_when_reads_says_so(work: Path, command: str, none: bool) -> None:
    """call.shows_no_file keeps reads.py off the hook path; it must never say so of a call that shows a
    file (it may leave a call that shows none to reads.shown)."""
    from jouet_git.call import shows_no_file

    (work / "sub").mkdir()
    (work / "sub" / "b.txt").write_text(lines(3))
    call = shell(work, command)
    assert shows_no_file(call) == none, command
    if none:
        assert reads.shown(call) is None, command
    elif not command.startswith("tail"):
        assert reads.shown(call) is not None, command


def test_sed_print_commands_read_as_the_pattern_they_replaced() -> None:
    # reads._sed_print replaced this regular expression (compiled on every sed read): same answers.
    import itertools
    import re

    from jouet_git.reads import _sed_print

    pattern = re.compile(r"^\s*(\d+|\$)(?:\s*,\s*(\d+|\$))?\s*([pq])\s*$")
    pieces = ["1", "40", "$", ",", "p", "q", " ", "\t", "a", "P", "٣", "", "-"]
    for parts in itertools.product(pieces, repeat=4):
        text = "".join(parts)
        found = pattern.match(text)
        assert _sed_print(text) == (found.groups() if found else None), text
