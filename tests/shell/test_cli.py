"""`jouet parse`, run as a user runs it."""

from __future__ import annotations

import json

from testing import run_jouet

from jouet_git.call import COMMAND_FIELDS


def test_json_uses_the_command_table_field_names() -> None:
    proc = run_jouet("parse", "--json", "cd sub && sudo -u ci git add -A > log")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == {"commands", "incomplete", "problems"}
    assert data["incomplete"] is False
    assert [list(c) for c in data["commands"]] == [list(COMMAND_FIELDS)] * 2
    git = data["commands"][1]
    assert git["argv"] == ["git", "add", "-A"]
    assert git["via"] == ["sudo"]
    assert git["stdout_to"] == "log"
    assert git["span"] == [11, 37]
    assert git["matched"] is False and git["status"] is None


def test_json_reads_stdin_and_shows_statuses() -> None:
    proc = run_jouet("parse", "--json", "--exit-code", "0", "-", input="cargo test | tail\n")
    data = json.loads(proc.stdout)
    assert [(c["program"], c["status"]) for c in data["commands"]] == [("cargo", None), ("tail", 0)]


def test_incomplete_script_is_reported() -> None:
    proc = run_jouet("parse", "--json", "echo 'unterminated")
    assert json.loads(proc.stdout)["incomplete"] is True
    table = run_jouet("parse", "echo 'unterminated")
    assert table.returncode == 0
    assert "incomplete" in table.stdout
    assert "single quote is never closed" in table.stdout


def test_table_shows_what_rules_match_on() -> None:
    proc = run_jouet("parse", "--exit-code", "1", "RUST_LOG=1 timeout 60 cargo test 2>&1 | tee out.log; "
                     "bash -lc 'git push -f'")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.splitlines()[0].split() == ["#", "span", "op", "status", "argv"]
    assert "cargo test" in out and "via timeout" in out and "env RUST_LOG=1" in out
    assert "piped" in out
    assert "git push -f" in out and "-c" in out
    assert "bash -lc 'git push -f'" in out


def test_no_commands() -> None:
    proc = run_jouet("parse", "# just a comment")
    assert proc.returncode == 0
    assert "(no commands)" in proc.stdout


def test_missing_script_is_a_usage_error() -> None:
    proc = run_jouet("parse")
    assert proc.returncode == 2
    assert "jouet parse needs a script" in proc.stderr


def test_help_has_examples() -> None:
    proc = run_jouet("parse", "--help")
    assert proc.returncode == 0
    assert "examples:" in proc.stdout
    assert "--exit-code" in proc.stdout and "--json" in proc.stdout
