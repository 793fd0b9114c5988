"""unwrap, program_name and the -c script finder, used directly."""

from __future__ import annotations

import pytest

from jouet_git.shell import program_name, unwrap
from jouet_git.shell.wrappers import shell_script, split_string, unwrap_full


@pytest.mark.parametrize(
    ("words", "argv", "via"),
    [
        (["git", "status"], ["git", "status"], []),
        (["sudo", "-u", "ci", "timeout", "60", "git", "push"], ["git", "push"], ["sudo", "timeout"]),
        (
            ["jouet", "test", "--cmd", "--", "cargo", "test"],
            ["jouet", "test", "--cmd", "--", "cargo", "test"],
            [],
        ),
        (["env"], ["env"], []),
        (["env", "-i"], ["env", "-i"], []),
        (["env", "--", "git", "log"], ["git", "log"], ["env"]),
        (["env", "-", "A=1", "git"], ["git"], ["env"]),
        (["env", "-uA", "-CDIR", "git"], ["git"], ["env"]),
        (["env", "-S", "A=1 git push -f", "origin"], ["git", "push", "-f", "origin"], ["env"]),
        (["env", "--split-string=sudo git 'a b'"], ["git", "a b"], ["env", "sudo"]),
        (["env", "-u"], ["env", "-u"], []),
        (["sudo", "-u"], ["sudo", "-u"], []),
        (["sudo", "--", "rm", "-rf", "x"], ["rm", "-rf", "x"], ["sudo"]),
        (["sudo", "-v"], ["sudo", "-v"], []),
        (["sudo", "-V"], ["sudo", "-V"], []),
        (["sudo", "-K"], ["sudo", "-K"], []),
        (["sudo", "-k", "ls"], ["ls"], ["sudo"]),
        (["sudo", "-h", "host", "ls"], ["ls"], ["sudo"]),
        (
            ["sudo", "-r", "role", "-t", "type", "-U", "u", "-l"],
            ["sudo", "-r", "role", "-t", "type", "-U", "u", "-l"],
            [],
        ),
        (["sudo", "--chdir", "/x", "--preserve-env=A,B", "make"], ["make"], ["sudo"]),
        (["doas", "-n", "make"], ["make"], ["doas"]),
        (["doas", "-C", "/etc/doas.conf", "make"], ["doas", "-C", "/etc/doas.conf", "make"], []),
        (["timeout", "--kill-after", "5", "10", "make"], ["make"], ["timeout"]),
        (["timeout", "-v", "--foreground", "10", "make"], ["make"], ["timeout"]),
        (["nohup"], ["nohup"], []),
        (["nohup", "--", "make"], ["make"], ["nohup"]),
        (["nice", "make"], ["make"], ["nice"]),
        (["nice", "-n10", "make"], ["make"], ["nice"]),
        (["time", "-f", "%e", "-o", "t.txt", "make"], ["make"], ["time"]),
        (["time", "--format=%e", "make"], ["make"], ["time"]),
        (["command", "-pv", "git"], ["command", "-pv", "git"], []),
        (["builtin"], ["builtin"], []),
        (["builtin", "echo", "x"], ["echo", "x"], ["builtin"]),
        (["exec"], ["exec"], []),
        (["exec", "-a"], ["exec", "-a"], []),
        (["rtk"], ["rtk"], []),
        (["rtk", "--ultra-compact", "git", "diff"], ["git", "diff"], ["rtk"]),
        (["mise", "exec", "--", "make"], ["make"], ["mise"]),
        (["mise", "x", "-j", "4", "node@20", "--", "node"], ["node"], ["mise"]),
        (["mise", "x", "node", "--"], ["mise", "x", "node", "--"], []),
        (["mise", "install"], ["mise", "install"], []),
        (["/usr/local/bin/sudo", "/usr/bin/env", "git.exe", "push"], ["git.exe", "push"], ["sudo", "env"]),
        (["sudo.exe", "git"], ["git"], ["sudo"]),
    ],
)
def test_unwrap(words: list[str], argv: list[str], via: list[str]) -> None:
    assert unwrap(words) == (argv, via)


def test_unwrap_does_not_change_its_argument() -> None:
    words = ["env", "-S", "git push", "x"]
    unwrap(words)
    assert words == ["env", "-S", "git push", "x"]


def test_unwrap_full_reports_assignments_and_offset() -> None:
    assert unwrap_full(["sudo", "A=1", "env", "B=2", "git"]) == (
        ["git"],
        ["sudo", "env"],
        {"A": "1", "B": "2"},
        4,
    )
    assert unwrap_full(["git"]) == (["git"], [], None, 0)
    assert unwrap_full(["env", "-S", "git x"])[3] == -1


@pytest.mark.parametrize(
    ("word", "name"),
    [
        ("git", "git"),
        ("/usr/bin/git", "git"),
        ("git.exe", "git"),
        ("GIT.EXE", "GIT"),
        ("C:\\bin\\git.exe", "git"),
        ("./x.sh", "x.sh"),
        (".exe", ".exe"),
        ("", ""),
        ("dir/", ""),
    ],
)
def test_program_name(word: str, name: str) -> None:
    assert program_name(word) == name


@pytest.mark.parametrize(
    ("argv", "found"),
    [
        (["bash", "-c", "x"], ("x", 2)),
        (["bash", "-lc", "x"], ("x", 2)),
        (["bash", "-cl", "x"], ("x", 2)),
        (["sh", "-euo", "pipefail", "-c", "x"], ("x", 4)),
        (["bash", "-o", "errexit", "+O", "extglob", "-c", "x"], ("x", 6)),
        (["bash", "--norc", "--rcfile", "f", "-c", "x"], ("x", 5)),
        (["bash", "-c", "--", "x"], ("x", 3)),
        (["bash", "script.sh"], None),
        (["bash", "-c"], None),
        (["bash", "-x", "script.sh", "-c", "y"], None),
        (["bash"], None),
    ],
)
def test_shell_script(argv: list[str], found: tuple[str, int] | None) -> None:
    assert shell_script(argv) == found


def test_split_string() -> None:
    assert split_string('a  \'b c\' "d \\" e" f\\ g') == ["a", "b c", 'd " e', "f g"]
    assert split_string("") == []
