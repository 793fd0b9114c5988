"""The Luau test harness itself: it collects output and errors, and every data file declares what it expects."""

from __future__ import annotations

from testing.luau import DATA, data_file, run_luau


def test_harness_collects_print_and_errors() -> None:
    run = run_luau('print("a", 1, 10/2)\nerror("boom")')
    assert run.lines == ["a\t1\t5"]
    assert run.error == "script.luau:2: boom"


def test_harness_reads_expectations() -> None:
    names = sorted(p.name for p in DATA.glob("*.luau"))
    assert len(names) >= 80
    for name in names:
        _, expected, error = data_file(name)
        assert (expected is None) != (error is None), name
