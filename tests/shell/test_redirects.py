"""What the rules need beyond the command words: where input comes from (stdin_from), globs kept as
written, where a wrapper moves a command (chdir, used by dirs), and files that look like they hold
credentials never being read."""

from __future__ import annotations

from pathlib import Path

import pytest

from jouet_git.call import Command
from jouet_git.shell import dirs, parse


def cmd(script: str, program: str) -> Command:
    found = [c for c in parse(script).commands if c.program == program]
    assert found, [(c.argv, c.via) for c in parse(script).commands]
    return found[-1]


@pytest.mark.parametrize(
    ("script", "program", "source"),
    [
        ("cat < .env", "cat", ".env"),
        ("< .env cat", "cat", ".env"),
        ("cat 0< .env", "cat", ".env"),
        ("cat 0<.env > out", "cat", ".env"),
        ("cat <> .env", "cat", ".env"),
        ("while read -r l; do echo \"$l\"; done < .env", "echo", ".env"),
        ("while read -r l; do echo \"$l\"; done < .env", "read", ".env"),
        ("{ cat; } < ~/.aws/credentials", "cat", "~/.aws/credentials"),
        ("(sort) < .env.local", "sort", ".env.local"),
        ("bash -c 'cat' < .env", "cat", ".env"),
        ("f=.env; cat < $f", "cat", ".env"),
        ("exec < .env; while read l; do echo $l; done", "echo", ".env"),
        ("cat < a < .env", "cat", ".env"),
        ("cat < .env | sort", "cat", ".env"),
    ],
)
def test_stdin_from(script: str, program: str, source: str) -> None:
    found = cmd(script, program)
    assert found.stdin_from == source and found.stdin_redirected


@pytest.mark.parametrize(
    ("script", "program"),
    [
        ("cat <<< x", "cat"),
        ("cat <<EOF\nx\nEOF", "cat"),
        ("cat 3< .env", "cat"),
        ("cat < .env | sort", "sort"),
        ("exec < .env; cat f | sort", "sort"),
        ("(exec < .env); cat", "cat"),
        ("cat .env", "cat"),
    ],
)
def test_no_stdin_file(script: str, program: str) -> None:
    assert cmd(script, program).stdin_from is None


def test_read_of_a_whole_file_into_a_word() -> None:
    # `$(< FILE)` is a command of no words reading FILE; what it prints is the word.
    commands = parse('echo "$(< .env)"').commands
    reading = [c for c in commands if c.stdin_from == ".env"]
    assert reading and reading[0].argv == [] and reading[0].captured


@pytest.mark.parametrize("glob", [".en?", ".e*", "[.]env", ".env{,.local}", "~/.ssh/id_*"])
def test_globs_are_kept_as_written(glob: str) -> None:
    assert cmd(f"cat {glob}", "cat").argv == ["cat", glob]
    assert cmd(f"f='{glob}'; cat $f", "cat").argv == ["cat", glob]


@pytest.mark.parametrize(
    ("script", "where"),
    [
        ("env -C ../other git reset --hard", "../other"),
        ("env --chdir=/srv/repo git reset --hard", "/srv/repo"),
        ("sudo -D sub git reset --hard", "sub"),
        ("cd a && env -C b git reset --hard", "a/b"),
        ("env -C a env -C b git reset --hard", "a/b"),
        ("uv run --directory sub git reset --hard", "sub"),
        ("nsenter --wd=sub git reset --hard", "sub"),
        ("env -C $DIR git reset --hard", False),
        ("find . -execdir git reset --hard \\;", None),
        ("find sub -execdir git reset --hard \\;", "sub"),
        ("find $D -execdir git reset --hard \\;", False),
        ("env -C sub bash -c 'git reset --hard'", "sub"),
        ("env -C sub bash -c 'cd x; git reset --hard'", "sub/x"),
    ],
)
def test_wrappers_that_move(script: str, where: str | bool) -> None:
    commands = parse(script).commands
    places = dirs(commands)
    git = [k for k, c in enumerate(commands) if c.argv[:2] == ["git", "reset"]]
    assert places[git[-1]] == where, [(c.argv, c.chdir) for c in commands]


def test_a_wrapper_that_runs_nothing_moves_nothing() -> None:
    assert parse("env -C sub").commands[0].chdir is None
    assert parse("mise -C sub install").commands[0].chdir is None


def test_files_that_look_like_secrets_are_never_read(tmp_path: Path) -> None:
    for name in (".env", "secrets.sh", "token.txt", "id_rsa", "deploy.pem"):
        (tmp_path / name).write_text("git reset --hard\nTOKEN=sk_live_abc\n")
    (tmp_path / "plain.sh").write_text("git reset --hard\n")
    cwd = str(tmp_path)
    for script in ("bash .env", "source .env", "sh < secrets.sh", "cat token.txt | sh",
                   "bash -c \"$(cat id_rsa)\"", "x=$(cat deploy.pem); echo $x", "echo \"$(< .env)\""):
        result = parse(script, cwd=cwd)
        for command in result.commands:
            assert "sk_live_abc" not in " ".join(command.argv), script
            assert command.argv[:2] != ["git", "reset"], script
    assert [c for c in parse("bash plain.sh", cwd=cwd).commands if c.argv[:2] == ["git", "reset"]]
