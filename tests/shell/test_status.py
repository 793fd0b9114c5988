"""Which top-level commands a script's exit code belongs to (the `status` field)."""

from __future__ import annotations

import pytest

from jouet_git.shell import parse

# (script, exit code, the status of each command in order; None for no status)
CASES = [
    ("cargo test", 101, [101]),
    ("cargo test", 0, [0]),
    ("cargo test; echo done", 1, [None, 1]),
    ("cargo test; echo done", 0, [None, 0]),
    ("cargo test\necho done\n", 3, [None, 3]),
    ("a && b", 1, [None, None]),
    ("a && b", 0, [0, 0]),
    ("a; b && c", 0, [None, 0, 0]),
    ("a || b", 0, [None, None]),
    ("a || b", 1, [None, None]),
    ("a || b && c", 0, [None, None, 0]),
    ("a && b || c", 0, [None, None, None]),
    ("cargo test | tail", 0, [None, 0]),
    ("cargo test | tail", 1, [None, 1]),
    ("cargo test 2>&1 | tee log | tail -5", 0, [None, None, 0]),
    ("set -o pipefail; cargo test | tail", 0, [None, 0, 0]),
    ("set -o pipefail; cargo test | tail", 1, [None, None, None]),
    ("set -euo pipefail\ncargo test | tail", 0, [None, 0, 0]),
    ("set -eo pipefail && cargo test | tail", 0, [0, 0, 0]),
    ("set -o errexit -o pipefail; a | b", 0, [None, 0, 0]),
    ("set -o pipefail; set +o pipefail; a | b", 0, [None, None, None, 0]),
    ("a | b; set -o pipefail", 0, [None, None, 0]),
    ("(set -o pipefail); a | b", 0, [None, None, 0]),
    ("! cargo test", 0, [None]),
    ("! cargo test", 1, [None]),
    ("npm run dev &", 0, [None]),
    ("a; b &", 0, [None, None]),
    ("(a; b)", 0, [None, 0]),
    ("(a && b)", 0, [0, 0]),
    ("{ a; b; }", 1, [None, 1]),
    ("{ a; b; } | tail", 0, [None, None, 0]),
    ("cd sub && (make && make test)", 0, [0, 0, 0]),
    ("if a; then b; fi", 0, [None, None]),
    ("while a; do b; done", 1, [None, None]),
    ("echo $(git log)", 0, [0, None]),
    ("bash -c 'cargo test'", 0, [0, None]),
    ("bash -c 'cargo test'", 101, [101, None]),
    ("[[ -f x ]] && cargo test", 0, [0, 0]),
    ("cd x && cargo test 2>&1 | tail -5", 0, [0, None, 0]),
    ("f() { a; }; f", 0, [None, 0, None]),
    ("x=1", 0, [0]),
    ("a; # trailing comment", 2, [2]),
]


@pytest.mark.parametrize(("script", "code", "statuses"), CASES)
def test_status(script: str, code: int, statuses: list[int | None]) -> None:
    result = parse(script, code)
    assert [c.status for c in result.commands] == statuses, [(c.argv, c.status) for c in result.commands]


def test_no_exit_code_no_status() -> None:
    assert all(c.status is None for c in parse("a; b && c | d", None).commands)


def test_nested_commands_never_get_a_status() -> None:
    result = parse("x=$(git rev-parse HEAD) && sh -c 'make' && echo `date`", 0)
    assert [c.status for c in result.commands if not c.nested] == [0, 0, 0]
    assert [c.status for c in result.commands if c.nested] == [None, None, None]
