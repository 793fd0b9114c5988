"""Programs that run other programs: the command they run is a Command of its own, whose via lists
the runners, and arguments supplied at run time (xargs, find's {}) are marked unknown."""

from __future__ import annotations

from typing import Any

import pytest

from jouet_git.call import Command
from jouet_git.shell import parse
from jouet_git.shell.runners import fd_execs, find_execs, parallel_scripts
from jouet_git.shell.wrappers import unwrap_more


def found(script: str, program: str = "git") -> list[Command]:
    return [c for c in parse(script).commands if c.program == program]


def one(script: str, program: str = "git") -> Command:
    got = found(script, program)
    assert len(got) == 1, (script, [(c.argv, c.via) for c in parse(script).commands])
    return got[0]


# (script, argv of the git command it runs, via, stdin_args)
WRAPPED: list[tuple[str, list[str], list[str], bool]] = [
    ("xargs git add", ["git", "add"], ["xargs"], True),
    ("xargs -0 -n1 -P4 -r -t git checkout --", ["git", "checkout", "--"], ["xargs"], True),
    ("xargs -I{} git checkout -- {}", ["git", "checkout", "--", "{}"], ["xargs"], True),
    ("xargs -i git rm {}", ["git", "rm", "{}"], ["xargs"], True),
    ("xargs -iX git rm X", ["git", "rm", "X"], ["xargs"], True),
    ("xargs --replace=@ git rm @", ["git", "rm", "@"], ["xargs"], True),
    ("xargs -L 1 -d '\\n' -a list.txt -E END -s 1000 git add", ["git", "add"], ["xargs"], True),
    ("xargs --null --max-args=2 --max-procs 3 -- git add", ["git", "add"], ["xargs"], True),
    ("sudo -u ci xargs git push -f", ["git", "push", "-f"], ["sudo", "xargs"], True),
    ("stdbuf -oL -e0 git push -f", ["git", "push", "-f"], ["stdbuf"], False),
    ("stdbuf --output=L git push -f", ["git", "push", "-f"], ["stdbuf"], False),
    ("setsid -f -w git push -f", ["git", "push", "-f"], ["setsid"], False),
    ("flock /tmp/lock git push -f", ["git", "push", "-f"], ["flock"], False),
    ("flock -w 5 -x /tmp/lock git push -f", ["git", "push", "-f"], ["flock"], False),
    ("ionice -c3 git gc", ["git", "gc"], ["ionice"], False),
    ("ionice -c 2 -n 7 -t git gc", ["git", "gc"], ["ionice"], False),
    ("chrt -i 0 git gc", ["git", "gc"], ["chrt"], False),
    ("chrt --idle 0 git gc", ["git", "gc"], ["chrt"], False),
    ("taskset 0x1 git gc", ["git", "gc"], ["taskset"], False),
    ("taskset -c 0,1 git gc", ["git", "gc"], ["taskset"], False),
    ("unbuffer -p git gc", ["git", "gc"], ["unbuffer"], False),
    ("doas -u root git gc", ["git", "gc"], ["doas"], False),
    ("runuser -u ci -- git add -A", ["git", "add", "-A"], ["runuser"], False),
    ("nsenter -t 1 -m -u --preserve-credentials git gc", ["git", "gc"], ["nsenter"], False),
    ("nsenter --mount=/proc/1/ns/mnt git gc", ["git", "gc"], ["nsenter"], False),
    ("unshare -r -n git gc", ["git", "gc"], ["unshare"], False),
    ("unshare --map-root-user --propagation private git gc", ["git", "gc"], ["unshare"], False),
    ("chroot / git gc", ["git", "gc"], ["chroot"], False),
    ("chroot --userspec=1000:1000 /srv/root git gc", ["git", "gc"], ["chroot"], False),
    ("watch -x git status", ["git", "status"], ["watch"], False),
    ("strace -f -o /tmp/t git gc", ["git", "gc"], ["strace"], False),
    ("systemd-run --user -p CPUQuota=10% git gc", ["git", "gc"], ["systemd-run"], False),
    ("busybox git gc", ["git", "gc"], ["busybox"], False),
    ("uv run --with rich git gc", ["git", "gc"], ["uv"], False),
    ("poetry run git gc", ["git", "gc"], ["poetry"], False),
    ("bundle exec git gc", ["git", "gc"], ["bundle"], False),
    ("direnv exec . git gc", ["git", "gc"], ["direnv"], False),
    ("op run --env-file .env -- git gc", ["git", "gc"], ["op"], False),
    ("aws-vault exec prod -- git gc", ["git", "gc"], ["aws-vault"], False),
    ("nix develop -c git gc", ["git", "gc"], ["nix"], False),
    ("gosu app git gc", ["git", "gc"], ["gosu"], False),
    ("pkexec --user root git gc", ["git", "gc"], ["pkexec"], False),
    ("faketime '2020-01-01' git gc", ["git", "gc"], ["faketime"], False),
    ("env -S 'nice -n5 git gc'", ["git", "gc"], ["env", "nice"], False),
    ("timeout 5 nohup nice ionice -c3 stdbuf -oL setsid git gc", ["git", "gc"],
     ["timeout", "nohup", "nice", "ionice", "stdbuf", "setsid"], False),
]


@pytest.mark.parametrize(("script", "argv", "via", "stdin_args"), WRAPPED)
def test_wrappers_run_the_command(script: str, argv: list[str], via: list[str], stdin_args: bool) -> None:
    cmd = one(script)
    assert (cmd.argv, cmd.via, cmd.stdin_args) == (argv, via, stdin_args)
    assert not cmd.nested


# Runners that run a shell script: (script, the runner's program, the git command it runs, via).
SCRIPTED: list[tuple[str, str, list[str], list[str]]] = [
    ("su -c 'git reset --hard' root", "su", ["git", "reset", "--hard"], ["su"]),
    ("su root -c 'git reset --hard'", "su", ["git", "reset", "--hard"], ["su"]),
    ("su - root --command='git reset --hard'", "su", ["git", "reset", "--hard"], ["su"]),
    ("su -l -s /bin/sh -c 'git reset --hard' ci", "su", ["git", "reset", "--hard"], ["su"]),
    ("runuser -l ci -c 'git reset --hard'", "runuser", ["git", "reset", "--hard"], ["runuser"]),
    ("sg docker 'git reset --hard'", "sg", ["git", "reset", "--hard"], ["sg"]),
    ("sg docker -c 'git reset --hard'", "sg", ["git", "reset", "--hard"], ["sg"]),
    ("flock /tmp/l -c 'git reset --hard'", "flock", ["git", "reset", "--hard"], ["flock"]),
    ("flock -n /tmp/l --command 'git reset --hard'", "flock", ["git", "reset", "--hard"], ["flock"]),
    ("script -qc 'git reset --hard' /dev/null", "script", ["git", "reset", "--hard"], ["script"]),
    ("script --command 'git reset --hard' -q log", "script", ["git", "reset", "--hard"], ["script"]),
    ("watch git reset --hard", "watch", ["git", "reset", "--hard"], ["watch"]),
    ("watch -n 5 -d 'git reset --hard'", "watch", ["git", "reset", "--hard"], ["watch"]),
    ("nix-shell -p git --run 'git reset --hard'", "nix-shell", ["git", "reset", "--hard"], ["nix-shell"]),
    ("doppler run --command 'git reset --hard'", "doppler", ["git", "reset", "--hard"], ["doppler"]),
    ("tmux new-session -d -s x 'git reset --hard'", "tmux", ["git", "reset", "--hard"], ["tmux"]),
    ("tmux send-keys -t x 'git reset --hard' Enter", "tmux", ["git", "reset", "--hard"], ["tmux"]),
    ("hyperfine --prepare 'git reset --hard' 'git status'", "hyperfine", ["git", "reset", "--hard"],
     ["hyperfine"]),
    ("sudo su -c 'git reset --hard'", "su", ["git", "reset", "--hard"], ["sudo", "su"]),
    ("sudo bash -c 'git reset --hard'", "bash", ["git", "reset", "--hard"], ["sudo", "bash"]),
    ("xargs sh -c 'git reset --hard'", "sh", ["git", "reset", "--hard"], ["xargs", "sh"]),
    ("busybox sh -c 'git reset --hard'", "sh", ["git", "reset", "--hard"], ["busybox", "sh"]),
]


@pytest.mark.parametrize(("script", "runner", "argv", "via"), SCRIPTED)
def test_runners_of_scripts(script: str, runner: str, argv: list[str], via: list[str]) -> None:
    commands = parse(script).commands
    assert commands[0].program == runner and not commands[0].nested
    inner = [c for c in commands if c.argv == argv]
    assert inner and inner[0].nested and inner[0].via == via, [(c.argv, c.via) for c in commands]


@pytest.mark.parametrize(
    ("script", "runs", "filled"),
    [
        ("find . -name '*.py' -exec git checkout -- {} +", [["git", "checkout", "--", "{}"]], [True]),
        ("find . -exec git reset --hard \\;", [["git", "reset", "--hard"]], [False]),
        ("find . -execdir git rm {} ';'", [["git", "rm", "{}"]], [True]),
        ("find . -ok rm {} \\; -okdir cat {} +", [["rm", "{}"], ["cat", "{}"]], [True, True]),
        ("find . -exec echo {} + -exec git add -A \\;", [["echo", "{}"], ["git", "add", "-A"]],
         [True, False]),
        ("find . -exec sudo git rm {} +", [["git", "rm", "{}"]], [True]),
        ("find . -name x -print", [], []),
        ("find . -exec", [], []),
    ],
)
def test_find_exec(script: str, runs: list[list[str]], filled: list[bool]) -> None:
    commands = parse(script).commands
    kids = [c for c in commands if c.nested]
    assert [c.argv for c in kids] == runs
    assert [c.stdin_args for c in kids] == filled
    assert all(c.via[:1] == ["find"] for c in kids)
    assert commands[0].program == "find"


def test_find_exec_shell_script_and_output() -> None:
    commands = parse("find . -type f -exec sh -c 'git checkout -- \"$1\"' _ {} \\; > log").commands
    inner = [c for c in commands if c.program == "git"]
    assert inner[0].argv == ["git", "checkout", "--", "$1"]
    assert inner[0].via == ["find", "sh"]
    # The commands find runs print where find prints.
    assert all(c.stdout_to == "log" for c in commands)


def test_fd_exec() -> None:
    assert fd_execs(["fd", "-e", "py", "-x", "git", "checkout", "--", "{}"]) == [
        ["git", "checkout", "--", "{}"]]
    assert fd_execs(["fdfind", "x", "--exec-batch", "git", "add"]) == [["git", "add"]]
    kid = one("fdfind -e txt -X git add")
    assert (kid.via, kid.stdin_args, kid.nested) == (["fdfind"], True, True)


def test_find_execs_direct() -> None:
    assert find_execs(["find", ".", "-exec", "a", "{}", "+", "-execdir", "b", ";"]) == [
        (["a", "{}"], True, False), (["b"], False, True)]
    # `+` ends the command only right after {}.
    assert find_execs(["find", ".", "-exec", "a", "+", "b", ";"]) == [(["a", "+", "b"], False, False)]


@pytest.mark.parametrize(
    ("argv", "scripts", "unknown"),
    [
        (["parallel", "git", "{}", ":::", "status", "reset --hard"],
         ["git status", "git 'reset --hard'"], False),
        (["parallel", ":::", "git reset --hard", "ls"], ["git reset --hard", "ls"], False),
        (["parallel", "git reset {}", ":::", "--hard"], ["git reset --hard"], False),
        (["parallel", "-j4", "git", "checkout", "--"], ["git checkout --"], True),
        (["parallel", "--pipe", "-N", "10", "wc", "-l"], ["wc -l"], False),
        (["parallel", "git", "checkout", "::::", "files.txt"], ["git checkout"], True),
        (["parallel", "echo", "{1}-{2}", ":::", "a", "b", ":::", "x"], ["echo a-x", "echo b-x", "echo a-x"],
         False),
        (["parallel", "git", "{}", ":::", "a b", ":::", "-f"], ["git 'a b' -f", "git 'a b' -f"], False),
        (["parallel", "-q", "git", "commit", "-m", "a b", ":::", "x"], ["git commit -m 'a b' x"], False),
        (["parallel", "--version"], None, None),
    ],
)
def test_parallel_scripts(argv: list[str], scripts: list[str] | None, unknown: bool | None) -> None:
    got = parallel_scripts(argv)
    if scripts is None:
        assert got is None
    else:
        assert got == (scripts, unknown)


def test_parallel_each_argument_appears_once_not_every_combination() -> None:
    argv = ["parallel", "echo", ":::", *[str(k) for k in range(40)], ":::", *[str(k) for k in range(40)]]
    got = parallel_scripts(argv)
    assert got is not None
    assert len(got[0]) == 80  # one per argument, never 1600


def test_parallel_commands() -> None:
    git = [c for c in parse("parallel ::: 'git push -f' 'git status'").commands if c.program == "git"]
    assert [c.argv for c in git] == [["git", "push", "-f"], ["git", "status"]]
    assert all(c.via == ["parallel"] and c.nested for c in git)
    unknown = one("ls | parallel git add")
    assert unknown.stdin_args and unknown.argv == ["git", "add"]


@pytest.mark.parametrize(
    "words",
    [
        ["su"], ["su", "-"], ["su", "root"], ["sudo", "-l"], ["flock", "9"], ["watch"],
        ["script", "-q", "log"], ["ionice", "-p", "123"], ["chrt", "-p", "5", "123"],
        ["taskset", "-p", "0x1", "123"], ["nsenter", "-t", "1"], ["xargs", "--help"],
        ["strace", "-p", "12"], ["uv", "pip", "install", "x"], ["poetry", "install"],
        ["tmux", "ls"], ["ssh-agent", "-k"], ["doas", "-s"],
    ],
)
def test_wrappers_that_run_nothing_are_the_program(words: list[str]) -> None:
    u = unwrap_more(words)
    assert u.argv == words and u.via == [] and u.script is None


def test_bare_xargs_runs_echo() -> None:
    u = unwrap_more(["xargs", "-0"])
    assert u.argv == ["echo"] and u.via == ["xargs"] and u.stdin_args


def expect(script: str, **fields: Any) -> Command:
    cmd = parse(script).commands[-1]
    for name, value in fields.items():
        assert getattr(cmd, name) == value, (script, name, getattr(cmd, name))
    return cmd


def test_known_input_fills_xargs() -> None:
    # The input is worked out: the arguments are no longer unknown.
    cmd = one("echo --hard | xargs git reset")
    assert (cmd.argv, cmd.stdin_args, cmd.via) == (["git", "reset", "--hard"], False, ["xargs"])
    cmd = one("printf 'a.txt\\n' | xargs -I{} git checkout -- {}")
    assert cmd.argv == ["git", "checkout", "--", "a.txt"]
    cmd = one("xargs git reset <<< '--hard'")
    assert cmd.argv == ["git", "reset", "--hard"]
    several = found("printf 'a\\nb\\n' | xargs -n1 git rm")
    assert [c.argv for c in several] == [["git", "rm", "a"], ["git", "rm", "b"]]
    assert [c.nested for c in several] == [False, True]
    nul = one("printf 'a b\\0c' | xargs -0 git rm")
    assert nul.argv == ["git", "rm", "a b", "c"]
    quoted = one("echo \"'a b' c\" | xargs git rm")
    assert quoted.argv == ["git", "rm", "a b", "c"]
    shell = one("echo 'reset --hard' | xargs -I% sh -c 'git %'")
    assert shell.argv == ["git", "reset", "--hard"]
    # Input from something that is not pure stays unknown.
    assert parse("git ls-files | xargs git add").commands[1].stdin_args
