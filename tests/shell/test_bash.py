"""Word values checked against bash itself.

Hypothesis builds words out of every quoting form (plain text, '...', "..." with its escapes,
$'...' with ANSI-C escapes, backslash escapes, line continuations, $"..."), and bash prints the
arguments it receives with `printf '%s\\0'`. The reader must give the same values. Expansions are
left out of the generated words, since the reader keeps them as written while bash expands them,
and so are the raw bytes 0x01 and 0x7f, which bash uses internally as quoting marks and lets leak.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jouet_git.shell import parse

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="bash is not installed")

# Characters that stay themselves unquoted: no metacharacters, quotes, $, `, \, globs, braces, ~.
PLAIN = "abcxyzABC0189_-+.,:/@%^=é日"
# Anything goes inside single quotes but the quote itself.
IN_SINGLE = st.text(
    st.characters(blacklist_characters="'\x00\x01\x7f", blacklist_categories=("Cs",)), max_size=8
)
# Inside double quotes: ordinary characters (no $, `, ", \ or !) and the escapes bash knows there.
DQ_CHARS = st.characters(blacklist_characters='$`"\\!\x00\x01\x7f', blacklist_categories=("Cs",))
DQ_PIECE = st.one_of(
    st.text(DQ_CHARS, min_size=1, max_size=6),
    st.sampled_from(['\\"', "\\\\", "\\$", "\\`", "\\\n", "\\n", "\\a", "\\'", "\\ "]),
)
ANSI_PIECE = st.one_of(
    st.text(
        st.characters(blacklist_characters="'\\\x00\x01\x7f", blacklist_categories=("Cs",)),
        min_size=1,
        max_size=5,
    ),
    st.sampled_from(
        [
            "\\n",
            "\\t",
            "\\\\",
            "\\'",
            '\\"',
            "\\?",
            "\\a",
            "\\b",
            "\\e",
            "\\E",
            "\\f",
            "\\r",
            "\\v",
            "\\x41",
            "\\x7",
            "\\x4g",
            "\\x",
            "\\101",
            "\\7",
            "\\0",
            "\\x00",
            "\\u00e9",
            "\\u263a",
            "\\U0001F600",
            "\\u",
            "\\cA",
            "\\cz",
            "\\c?",
            "\\c",
            "\\z",
            "\\8",
            "\\xff",
            "\\xc3\\xa9",
            "\\x{41}",
        ]
    ),
)
PIECE = st.one_of(
    st.text(st.sampled_from(PLAIN), min_size=1, max_size=6),
    IN_SINGLE.map(lambda t: f"'{t}'"),
    st.lists(DQ_PIECE, max_size=5).map(lambda ps: '"' + "".join(ps) + '"'),
    st.lists(ANSI_PIECE, max_size=5).map(lambda ps: "$'" + "".join(ps) + "'"),
    st.lists(DQ_PIECE, max_size=3).map(lambda ps: '$"' + "".join(ps) + '"'),
    st.sampled_from(["\\" + c for c in "a ;&|<>()'\"$`*\\{}#~!\t"]),
    st.just("\\\n"),
)


def _word(pieces: list[str]) -> str:
    word = "".join(pieces)
    # A word made only of line continuations vanishes in bash; keep one real character.
    return word if word.replace("\\\n", "") else word + "x"


WORDS = st.lists(st.lists(PIECE, min_size=1, max_size=5).map(_word), min_size=1, max_size=6)


def bash_args(script: str, cwd: Path) -> list[str]:
    """The arguments bash passes to printf in script, decoded the way the reader decodes bytes."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8", "HOME": str(cwd)}
    proc = subprocess.run(
        [BASH or "bash", "--norc", "--noprofile", "-c", script],
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    out = proc.stdout.decode("utf-8", "surrogateescape")
    assert out.endswith("\0")
    return out[:-1].split("\0")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=WORDS)
def test_word_values_match_bash(words: list[str], tmp_path_factory: pytest.TempPathFactory) -> None:
    cwd = tmp_path_factory.mktemp("bash-words")  # empty: no glob could match anything
    script = "printf '%s\\0' " + " ".join(words)
    result = parse(script)
    assert not result.incomplete, result.problems
    assert len(result.commands) == 1
    assert result.commands[0].argv[2:] == bash_args(script, cwd)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=WORDS)
def test_assignment_values_match_bash(words: list[str], tmp_path_factory: pytest.TempPathFactory) -> None:
    cwd = tmp_path_factory.mktemp("bash-env")
    names = [f"V{k}" for k in range(len(words))]
    assignments = " ".join(f"{name}={word}" for name, word in zip(names, words, strict=True))
    script = f"{assignments} true"
    result = parse(script)
    assert not result.incomplete, result.problems
    env = result.commands[0].env
    printed = bash_args(f"{assignments}; printf '%s\\0' " + " ".join(f'"${name}"' for name in names), cwd)
    assert [env[name] for name in names] == printed


@pytest.mark.parametrize(
    "script",
    [
        "printf '%s\\0' a\\\nb 'c\nd' \"e\\\nf\" g\\ h",
        "printf '%s\\0' $'\\x66\\157o' $'\\u00e9\\U0001F600' $'a\\0b'c",
        "printf '%s\\0' \"a\\b\\\\c\\\"d\" 'x\\y' \\\\ \\'",
        "printf '%s\\0' x#y \\#z '#w'",
        "printf '%s\\0' {a,b} a{1..3}",
        "printf '%s\\0' --format='%H %s' -m\"it's\"",
    ],
)
def test_known_words_match_bash(script: str, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    expected = bash_args(
        "shopt -u extglob; set +B; " + script if "{" in script else script, tmp_path / "empty"
    )
    assert parse(script).commands[0].argv[2:] == expected
