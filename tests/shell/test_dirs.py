"""jouet.dirs: where each command runs after the top-level cds before it."""

from __future__ import annotations

import pytest

from jouet_git.call import Command
from jouet_git.shell import dirs, parse

CASES = [
    ("cd sub && git add -A", [None, "sub"]),
    ("git status", [None]),
    ("cd a; cd b; x", [None, "a", "a/b"]),
    ("cd a/ && cd b && x", [None, "a/", "a/b", "a/b"][:3]),
    ("cd /abs && x", [None, "/abs"]),
    ("cd ~/p && x", [None, "~/p"]),
    ("cd ~ && x", [None, "~"]),
    ("cd $HOME/p && x", [None, "$HOME/p"]),
    ("cd ${HOME}/p && x", [None, "${HOME}/p"]),
    ("cd && x", [None, False]),
    ("cd - && x", [None, False]),
    ("cd /tmp && cd - && x", [None, "/tmp", None]),
    ("cd a && cd b && cd - && cd - && x", [None, "a", "a/b", "a", "a/b"]),
    ("pushd /tmp && pushd /etc && popd && x && popd && y", [None, "/tmp", "/etc", "/tmp", "/tmp", None]),
    ("pushd /tmp && pushd && x", [None, "/tmp", None]),
    ("popd && x", [None, False]),
    ("cd /tmp && bash -c 'cd - && git status'", [None, "/tmp", "/tmp", None]),
    ("(cd /tmp) && cd - && x", [None, None, False]),
    ("cd $DIR && x", [None, False]),
    ('cd "$(git rev-parse --show-toplevel)" && x', [None, False, None]),
    ("cd sub* && x", [None, False]),
    ("cd ~other && x", [None, False]),
    ("cd $DIR && cd /tmp && x", [None, False, "/tmp"]),
    ("cd $DIR && cd rel && x", [None, False, False]),
    ("(cd sub && make) && git add -A", [None, "sub", None]),
    ("cd sub | cat; x", [None, None, None]),
    ("cd sub & x", [None, None]),
    ("cd sub && echo $(pwd)", [None, "sub", "sub"]),
    ("cd sub && bash -c 'git add -A'", [None, "sub", "sub"]),
    # A subshell's cd moves its own later commands only.
    ("echo $(cd x; pwd) && git status", [None, None, None, "x"]),
    # A sh -c script's cd moves the script's later commands; eval's moves the shell.
    ("bash -c 'cd ../o && git reset --hard'; git status", [None, None, None, "../o"]),
    ("cd a && bash -c 'cd b; git x' && git y", [None, "a", "a", "a", "a/b"]),
    ("eval cd sub; git status", ["sub", "sub", None]),
    ("find . -execdir sh -c 'cd x; git y' \\;", [None, None, None, "x"]),
    ("find a b -execdir git y \\;", [None, False]),
    ("find sub -execdir git y \\;", [None, "sub"]),
    # A script's cd that cannot be followed: its later commands run where cannot be told.
    ("cd sub && bash -c 'cd \"$D\" && git clean -f'", [None, "sub", "sub", False]),
    ("cd a && cd .. && x", [None, "a", None]),
    ("cd ../other && x", [None, "../other"]),
    ("cd a && cd ../b && x", [None, "a", "b"]),
    ("cd ~/p && cd ../.. && x", [None, "~/p", False]),
    ("cd /a && cd ../.. && x", [None, "/a", "/"]),
    ("builtin cd x && y", [None, "x"]),
    ("command cd x && y", [None, "x"]),
    ("pushd x && y && popd && z", [None, "x", "x", None]),
    ("cd -P /tmp && x", [None, "/tmp"]),
    ("cd -- sub && x", [None, "sub"]),
    ("cd . && x", [None, None]),
    ("if cd sub; then make; fi; x", [None, "sub", "sub"]),
    # The loop's variable takes its first value as the body is read; the body is read again for
    # the others (nested, where the loop runs).
    ("for d in a b; do (cd $d && make); done; x", [None, "a", None, None, "b"]),
    ("for d in $(ls); do (cd $d && make); done; x", [None, False, None, None]),
    ("{ cd sub; make; }; x", [None, "sub", "sub"]),
    ("sudo cd x && y", [None, None]),
]


@pytest.mark.parametrize(("script", "expected"), CASES)
def test_dirs(script: str, expected: list[str | bool | None]) -> None:
    commands = parse(script).commands
    assert dirs(commands) == expected, [c.argv for c in commands]


def test_commands_built_elsewhere_are_taken_in_order() -> None:
    commands = [
        Command(["cd", "sub"], program="cd"),
        Command(["make"], program="make"),
        Command(["pwd"], program="pwd", nested=True),
    ]
    assert dirs(commands) == [None, "sub", "sub"]
