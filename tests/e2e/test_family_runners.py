"""Family: programs that run other programs (xargs, parallel, find -exec, fd -x, watch, flock,
stdbuf, setsid, ionice, chrt, taskset, script, unbuffer, su, runuser, sg, nsenter, unshare,
chroot, tmux, busybox...). Each variant is denied by jouet, and bash really loses the work with it
in a twin repository; the read-only controls are left alone and lose nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.realrun import (
    FORCED,
    MODIFIED,
    UNTRACKED,
    check_control,
    check_variant,
    skip_unless_installed,
)

VARIANTS = [
    # xargs, with its input known (pure) or not needed
    ("echo a.txt | xargs git checkout --", "discard-changes", MODIFIED),
    ("printf '%s\\n' --hard | xargs git reset", "reset-hard", MODIFIED),
    ("echo a.txt | xargs -I{} git checkout -- {}", "discard-changes", MODIFIED),
    ("printf 'a.txt\\0' | xargs -0 -n1 git checkout --", "discard-changes", MODIFIED),
    ("xargs git reset --hard < /dev/null", "reset-hard", MODIFIED),
    ("echo notes.txt | xargs -P2 -r -t git clean -f", "clean-untracked", UNTRACKED),
    # find -exec / -execdir, fd -x / -X
    ("find . -maxdepth 0 -exec git reset --hard \\;", "reset-hard", MODIFIED),
    ("find . -maxdepth 0 -execdir sh -c 'git reset --hard' \\;", "reset-hard", MODIFIED),
    ("find . -maxdepth 1 -name a.txt -exec git checkout -- a.txt ';'", "discard-changes", MODIFIED),
    ("fdfind -g notes.txt -d 1 -X git clean -f", "clean-untracked", UNTRACKED),
    # GNU parallel
    ("parallel ::: 'git reset --hard'", "reset-hard", MODIFIED),
    ("parallel git reset {} ::: --hard", "reset-hard", MODIFIED),
    ("parallel -j1 git {1} {2} ::: clean ::: -f", "clean-untracked", UNTRACKED),
    ("parallel git {} ::: clean ::: -f", "clean-untracked", UNTRACKED),
    # wrappers that run a command given as words
    ("flock /tmp/jouet-test.lock git push --force origin main", "force-push", FORCED),
    ("stdbuf -oL -eL git reset --hard", "reset-hard", MODIFIED),
    ("setsid -w git reset --hard", "reset-hard", MODIFIED),
    ("ionice -c3 git reset --hard", "reset-hard", MODIFIED),
    ("chrt -o 0 git checkout -- a.txt", "discard-changes", MODIFIED),
    ("taskset -c 0 git clean -f", "clean-untracked", UNTRACKED),
    ("unbuffer git reset --hard", "reset-hard", MODIFIED),
    ("runuser -u root -- git clean -f", "clean-untracked", UNTRACKED),
    ("chroot --skip-chdir / git reset --hard", "reset-hard", MODIFIED),
    ("nsenter --preserve-credentials git reset --hard", "reset-hard", MODIFIED),
    ("busybox env git reset --hard", "reset-hard", MODIFIED),
    ("timeout 30 nice -n 5 stdbuf -o0 setsid ionice -c2 git push -f origin main", "force-push", FORCED),
    # wrappers that run a shell script
    ("flock /tmp/jouet-test.lock -c 'git clean -f'", "clean-untracked", UNTRACKED),
    ("script -qc 'git reset --hard' /dev/null", "reset-hard", MODIFIED),
    ("su -c 'git reset --hard' root", "reset-hard", MODIFIED),
    ("su root -c 'git checkout -- a.txt'", "discard-changes", MODIFIED),
    ("sg root 'git clean -f'", "clean-untracked", UNTRACKED),
    ("busybox sh -c 'git reset --hard'", "reset-hard", MODIFIED),
    ("timeout 5 script -qc \"watch -n 1 'git reset --hard'\" /dev/null", "reset-hard", MODIFIED),
    ("tmux -L jouet-test new-session -d 'git reset --hard'; sleep 2; tmux -L jouet-test kill-server",
     "reset-hard", MODIFIED),
]

NEEDS = {
    "parallel": ("parallel",), "fdfind": ("fdfind",), "unbuffer": ("unbuffer",), "busybox": ("busybox",),
    "tmux": ("tmux",), "watch": ("watch", "script"), "chrt": ("chrt",), "runuser": ("runuser",),
    "nsenter": ("nsenter",), "sg ": ("sg",), "su ": ("su",),
}




@pytest.mark.parametrize(("command", "rule", "effect"), VARIANTS)
def test_variant_is_denied_and_really_loses_work(tmp_path: Path, command: str, rule: str, effect: str) -> None:
    skip_unless_installed(command, NEEDS)
    check_variant(tmp_path, command, rule, effect)


CONTROLS = [
    "git ls-files | xargs git log --oneline -1 --",
    "echo status | xargs git",
    "find . -name '*.txt' -exec git diff --stat -- {} +",
    "find . -maxdepth 0 -execdir sh -c 'git status --short' \\;",
    "parallel git log -1 --format=%h ::: main",
    "flock /tmp/jouet-test.lock -c 'git status'",
    "su -c 'git diff' root",
    "stdbuf -oL ionice -c3 git stash list",
    "timeout 3 script -qc 'watch -n 1 git status' /dev/null",
]


@pytest.mark.parametrize("command", CONTROLS)
def test_read_only_controls_stay_quiet(tmp_path: Path, command: str) -> None:
    skip_unless_installed(command, NEEDS)
    check_control(tmp_path, command)


# Variants whose arguments are unknown to jouet (they come from a program's output at run time):
# the reader marks them (stdin_args), and the git rules then assume the worst.
UNKNOWN_ARGS = [
    ("git ls-files -m | xargs git checkout --", "discard-changes", MODIFIED),
    ("find . -name a.txt -exec git checkout -- {} +", "discard-changes", MODIFIED),
    ("fdfind -g a.txt -d 1 -x git checkout -- {}", "discard-changes", MODIFIED),
]


@pytest.mark.parametrize(("command", "rule", "effect"), UNKNOWN_ARGS)
def test_unknown_arguments(tmp_path: Path, command: str, rule: str, effect: str) -> None:
    skip_unless_installed(command, NEEDS)
    check_variant(tmp_path, command, rule, effect)
