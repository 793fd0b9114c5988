"""Properties of the shell reader on any input: it never raises, its spans lie inside the script,
and the text a span covers reads back as the same command."""

from __future__ import annotations

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from jouet_git.shell import parse
from jouet_git.shell.reader import MAX_DEPTH

# Pieces of shell, so that random text hits the constructs and their unfinished forms.
TOKENS = [
    *"ab $()'\"\\;&|<>{}[]#\n\t=!*?~-0123",
    "if ", " then ", " fi", " elif ", " else ", " do ", " done", "while ", "until ", "for x in ", "for ((",
    "case x in ", " esac", "((", "))", "$(", "${", "$((", "$'", '$"', "<<EOF\n", "\nEOF\n", "<<-X\n",
    "<<'Q'\n", "bash -c ", "sh -lc ", "sudo -u x ", "env A=1 ", "timeout 5 ", "mise x a -- ", "[[ ", " ]]",
    "2>&1", "&>", ">>", "<<<", "<(", ">(", "é", "日本", "function f ", "f() ", "|&", ";;", ";&", "time ",
    "! ", "coproc ", "a[1]=", "x+=", "=(", "\\\n", "git add -A", "cd sub && ",
]
SHELLISH = st.lists(st.sampled_from(TOKENS), max_size=40).map("".join)
# Arbitrary text, lone surrogates and NUL included.
ANY_TEXT = st.text(st.characters(blacklist_categories=()), max_size=200)


def _check(script: str) -> None:
    result = parse(script, 0)
    assert not [p for p in result.problems if p.startswith("internal error")], result.problems
    size = len(script.encode("utf-8", "surrogatepass"))
    for cmd in result.commands:
        assert cmd.argv == cmd.words[len(cmd.words) - len(cmd.argv) :] or cmd.via
        assert cmd.text == cmd.line[:80]
        if cmd.span is None:
            assert cmd.nested and cmd.words_at is None
            continue
        first, last = cmd.span
        assert 1 <= first <= last <= size
        if cmd.words_at is not None:
            assert first <= cmd.words_at <= last
        if cmd.status is not None:
            assert not cmd.nested


@settings(max_examples=1500, deadline=None)
@given(SHELLISH)
def test_never_raises_on_shell_like_text(script: str) -> None:
    _check(script)


@settings(max_examples=500, deadline=None)
@given(ANY_TEXT)
def test_never_raises_on_any_text(script: str) -> None:
    _check(script)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_never_raises_on_undecodable_bytes(data: bytes) -> None:
    _check(data.decode("utf-8", "surrogateescape"))


# Without backticks: a command inside `...` is read from the unescaped body, so the raw text
# its span covers can differ (`\"` stays escaped there).
NO_BACKTICKS = st.lists(st.sampled_from([t for t in TOKENS if "`" not in t]), max_size=30).map("".join)


@settings(max_examples=1500, deadline=None)
@given(NO_BACKTICKS)
def test_span_text_reads_back_as_the_same_command(script: str) -> None:
    data = script.encode("utf-8", "surrogatepass")
    for cmd in parse(script).commands:
        if cmd.span is None:
            continue
        source = data[cmd.span[0] - 1 : cmd.span[1]].decode("utf-8", "surrogatepass")
        if "$" in source:
            continue  # its expansions may take values from earlier in the script
        again = parse(source).commands
        assert again, (script, source)
        assert (again[0].words, again[0].env) == (cmd.words, cmd.env), (script, source)


def test_deep_nesting_is_capped_not_a_recursion_error() -> None:
    for script in ("$(" * 5000, '"$(' * 5000, "{ " * 5000, "if " * 5000, "${" * 5000, "[[ $(" * 3000,
                   "f() " * 5000, "a | " * 3000 + "$(" * 3000, "bash -c " + "'bash -c \"" * 2000):
        result = parse(script)
        assert result.incomplete
        assert not [p for p in result.problems if p.startswith("internal error")]


def test_depth_cap_leaves_room_on_the_stack() -> None:
    # Read the deepest script with a third of the default recursion limit in use by the caller.
    def nest(levels: int) -> None:
        if levels:
            nest(levels - 1)
        else:
            result = parse("$(" * (MAX_DEPTH * 3) + "x")
            assert result.incomplete
            assert not [p for p in result.problems if p.startswith("internal error")]

    assert sys.getrecursionlimit() >= 1000
    nest(300)


def test_large_inputs_are_read() -> None:
    script = "git status && echo 'hi there' | grep x; " * 150 + "cat <<EOF\n" + "x" * 200_000 + "\nEOF\n"
    result = parse(script, 0)
    assert not result.incomplete
    assert len(result.commands) == 451
    unterminated = parse("'" + "a" * 200_000)
    assert unterminated.incomplete and unterminated.commands[0].argv == ["a" * 200_000]
    heredocs = parse("cat <<EOF\n" * 20_000)
    assert heredocs.incomplete and len(heredocs.commands) == 1


def test_rereading_has_a_budget() -> None:
    # Each -c level is read again; the budget keeps the total work linear in the script's size.
    script = "bash -c 'bash -c \"bash -c x\"'; " * 100
    result = parse(script)
    assert not result.incomplete
    assert sum(1 for c in result.commands if c.program == "x") == 100


def test_nul_bytes_and_surrogates_are_data() -> None:
    result = parse("echo \x00 a\udc80b \ud800")
    assert result.commands[0].argv == ["echo", "\x00", "a\udc80b", "\ud800"]
    assert result.commands[0].span == (1, len("echo \x00 a\udc80b \ud800".encode("utf-8", "surrogatepass")))
