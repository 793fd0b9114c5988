"""Reading limits fail safe, and reading stays linear.

Every input that would take the reader long (or forever) is read up to a limit, then given up on:
the result is incomplete and a problem says which limit, starting with "too ...", so that agents'
calls are denied rather than let through unread. The work is measured by counting the Python and
C function calls the reader makes (sys.setprofile), never by the clock: each adversarial input
stays within a fixed budget of calls, and doubling an input below the limits doubles the calls.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from jouet_git.call import Call
from jouet_git.shell import ParseResult, parse
from jouet_git.shell.reader import MAX_COMMANDS, MAX_DEPTH, MAX_SIZE, MAX_VARS, MAX_WORDS

# No input may cost more calls than this (a 10-command script costs about 500).
BUDGET = 4_000_000


def counted(script: str, cwd: str | None = None) -> tuple[ParseResult, int]:
    """parse(script), and how many function calls it made."""
    count = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        result = parse(script, cwd=cwd)
    finally:
        sys.setprofile(None)
    return result, count


def _limit(problems: list[str]) -> list[str]:
    return [p.split(":", 1)[0] + ":" for p in problems if p.startswith("too ")]


LIMITS: list[tuple[str, str, str | None]] = [
    ("a 1 MB word is read whole", "echo " + "a" * 1_000_000, None),
    ("a 1 MB here-document is read whole", "cat <<EOF\n" + "x\n" * 500_000 + "EOF\n", None),
    ("longer than MAX_SIZE", "echo " + "a" * (MAX_SIZE + 10) + "; git reset --hard", "too long:"),
    ("1 MB of words", "echo " + "a " * 500_000, "too many words:"),
    ("10,000 chained commands", "git status; " * 10_000 + "git reset --hard", "too many commands:"),
    ("padding with :;", ":;" * 50_000 + "git reset --hard", "too many commands:"),
    ("100,000 nested $(", "$(" * 100_000 + "git reset --hard", "too deep:"),
    ("41 nested $( closed", "$(" * (MAX_DEPTH + 1) + "git reset --hard" + ")" * (MAX_DEPTH + 1), "too deep:"),
    ("nested groups", "{ " * 10_000 + "git reset --hard", "too deep:"),
    ("nested quotes and $(", '"$(' * 20_000 + "git reset --hard", "too deep:"),
    ("shells fed here-documents, nested",
     "".join(f"bash <<'E{k}'\n" for k in range(500)) + "git reset --hard\n"
     + "".join(f"E{k}\n" for k in reversed(range(500))), "too much nested text:"),
    ("eval of eval", "eval " * 100_000 + "'git reset --hard'", "too many words:"),
    ("an expansion that doubles", "x=a; " + "x=$x$x; " * 60 + "$x", "too much nested text:"),
    ("one word of 100,000 known expansions", "x=" + "a" * 1000 + "; echo " + "${x}" * 100_000,
     "too much nested text:"),
    ("pattern operations", "x=" + "ab" * 200 + "; echo " + "${x%*b*}" * 5_000, "too much nested text:"),
    ("many variables", " ".join(f"v{k}=1" for k in range(MAX_VARS + 5)) + "; $v0 reset --hard",
     "too many variables:"),
    ("many function calls", "f() { g; h; }; " + "f; " * 20_000, "too many commands:"),
    ("recursive functions", "f() { f; f; }; f", None),
    ("shells fed shells", "echo 'git status' " + "| sh " * 5_000, "too many commands:"),
    ("a long loop", "for x in " + " ".join(str(k) for k in range(20_000)) + "; do git x$x; done",
     "too many commands:"),
    ("backticks in backticks", "echo " + "`" * 20_000, None),
    ("xargs fed a long input", "printf '" + "a\\n" * 50_000 + "' | xargs -n1 git rm", "too many commands:"),
    ("python -c with deep nesting", "python3 -c '" + "(" * 100_000 + "'", None),
    ("a huge python program", "python3 -c '" + "import os; os.system(\"ls\")\n" * 20_000 + "'",
     "too long:"),
    ("a python program running many commands", "python3 -c '" + "import os; os.system(\"ls\")\n" * 2_000 + "'",
     "too many commands:"),
    ("perl arrays nested deep", "perl -e 'system(" + "[" * 50_000 + "'", None),
    ("awk program of pipes", "awk 'BEGIN{" + 'print 1 | "ls";' * 5_000 + "}'", "too many commands:"),
    ("unclosed here-documents", "cat <<EOF\n" * 20_000, None),
    ("arithmetic nesting", "echo $((" + "(" * 50_000, None),
    ("many redirections", "echo " + "> f " * 50_000, None),
]


@pytest.mark.parametrize(("name", "script", "limit"), LIMITS, ids=[n for n, _, _ in LIMITS])
def test_limits(name: str, script: str, limit: str | None) -> None:
    result, calls = counted(script)
    assert calls < BUDGET, f"{name}: {calls} calls"
    assert not [p for p in result.problems if p.startswith("internal error")], result.problems
    if limit is None:
        assert not _limit(result.problems), result.problems
    else:
        assert result.incomplete
        assert limit in _limit(result.problems), result.problems


def test_a_limit_leaves_the_commands_read_before_it() -> None:
    result = parse("git stash drop; " + ":;" * 20_000)
    assert result.commands[0].argv == ["git", "stash", "drop"]
    assert len(result.commands) == MAX_COMMANDS + 1
    assert result.problems[0].startswith("too many commands: ")


def test_the_call_carries_the_verdict() -> None:
    call = Call(command=":;" * 20_000 + "git reset --hard")
    assert call.incomplete
    assert call.problems[0].startswith("too many commands: ")
    assert not Call(command="git status").incomplete


def test_each_limit_has_its_own_problem_text() -> None:
    texts = {
        "too long:": "echo " + "a" * (MAX_SIZE + 1),
        "too deep:": "$(" * 100,
        "too many commands:": ":;" * (MAX_COMMANDS + 1),
        "too many words:": "echo " + "a " * (MAX_WORDS + 1),
        "too many variables:": " ".join(f"v{k}=1" for k in range(MAX_VARS + 1)),
        "too much nested text:": "x=a; " + "x=$x$x; " * 60,
    }
    for prefix, script in texts.items():
        problems = parse(script).problems
        assert [p for p in problems if p.startswith(prefix)], (prefix, problems)
        # What to do is in the text: split the call.
        if prefix not in ("too deep:", "too many variables:"):
            assert "split" in next(p for p in problems if p.startswith(prefix))


# Inputs below the limits: doubling n must not much more than double the work.
GROWING: list[tuple[str, Callable[[int], str]]] = [
    ("chained commands", lambda n: "git status && echo 'x y' | grep x; " * n),
    ("pipelines", lambda n: "a " + "| b " * n),
    ("subshells in a row", lambda n: "(a; b) && " * n + "c"),
    ("nested subshells", lambda n: "( " * min(n, 30) + "a" + " )" * min(n, 30) + "; b" * n),
    ("variables and pipelines", lambda n: "".join(f"v{k}=x " for k in range(n)) + "; " + "a | b; " * n),
    ("variables used", lambda n: "g=git; f=--x; " + "$g status $f; " * n),
    ("subshell scopes with variables", lambda n: "v=1; " + "(v=2; echo $v) | cat; " * n),
    ("function calls", lambda n: "f() { echo $1; }; " + "f x; " * n),
    ("here-documents", lambda n: "cat <<EOF\n$(echo a)\nEOF\n" * n),
    ("shells fed in a pipeline", lambda n: "echo 'echo hi' " + "| sh " * n),
    ("xargs fed", lambda n: "printf '" + "a\\n" * n + "' | xargs -n1 echo"),
    ("sh -c scripts", lambda n: "sh -c 'a; b' && " * n + "c"),
    ("eval", lambda n: "eval 'a b' && " * n + "c"),
    ("backticks", lambda n: "echo `echo a` " * n),
    ("long word with expansions", lambda n: "x=ab; echo " + "${x}" * n),
    ("pattern expansions", lambda n: "x=abc; echo " + "${x#a}" * min(n, 60) + " y" * n),
    ("for loops", lambda n: "for x in a b; do echo $x; done; " * n),
    ("python program", lambda n: "python3 -c '" + "import os; os.system(\"a\")\n" * min(n, 60) + "x = 1\n" * n + "'"),
    ("perl program", lambda n: "perl -e '" + "system(\"a\"); " * min(n, 60) + "$x = 1; " * n + "'"),
    ("find -exec", lambda n: "find . " + "-exec a {} \\; " * n),
    ("words", lambda n: "echo " + "a " * (n * 20)),
    ("unclosed quotes", lambda n: "echo '" + "a" * (n * 50)),
]


@pytest.mark.parametrize(("name", "make"), GROWING, ids=[n for n, _ in GROWING])
def test_reading_is_linear(name: str, make: Callable[[int], str]) -> None:
    small, calls_small = counted(make(60))
    large, calls_large = counted(make(120))
    assert not _limit(small.problems) and not _limit(large.problems), large.problems
    assert calls_large <= 2.3 * calls_small + 200, (name, calls_small, calls_large)
