"""Family: values known from earlier in the same call (variables, export/declare/local/readonly,
${...} operators, arrays, positional parameters, functions, aliases, loops, pure command
substitutions). Each variant is denied by jouet and really loses the work when bash runs it in a
twin repository; the controls, where the value never reaches the command, are left alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.realrun import FORCED, HOOK_SKIPPED, MODIFIED, STAGED, UNTRACKED, check_control, check_variant

VARIANTS = [
    ("g=git; $g reset --hard", "reset-hard", MODIFIED),
    ("f=--hard; git reset $f", "reset-hard", MODIFIED),
    ('c="git checkout --"; $c a.txt', "discard-changes", MODIFIED),
    ("export G=git; $G clean -f", "clean-untracked", UNTRACKED),
    ("declare -r g=git; ${g} reset --hard", "reset-hard", MODIFIED),
    ("typeset x=--hard; git reset \"$x\"", "reset-hard", MODIFIED),
    ("f() { local g=git; $g reset --hard; }; f", "reset-hard", MODIFIED),
    ("readonly A=-A; git add $A", "git-add-all", STAGED),
    ("${GIT:-git} reset --hard", "reset-hard", MODIFIED),
    ("x=gXit; ${x/X/} reset --hard", "reset-hard", MODIFIED),
    ("x=HARD; git reset --${x,,}", "reset-hard", MODIFIED),
    ("a=(git reset --hard); \"${a[@]}\"", "reset-hard", MODIFIED),
    ("git reset $(echo --hard)", "reset-hard", MODIFIED),
    ("git reset `echo --hard`", "reset-hard", MODIFIED),
    ("g=$(printf %s git); $g commit -a --no-verify -qm x", "no-verify", HOOK_SKIPPED),
    ("n=--no-verify; git commit -qam x $n", "no-verify", HOOK_SKIPPED),
    ("printf -v f %s --force; git push $f origin main", "force-push", FORCED),
    ("set -- git push -f origin main; \"$@\"", "force-push", FORCED),
    ("f() { git reset \"$@\"; }; f --hard", "reset-hard", MODIFIED),
    ("shopt -s expand_aliases\nalias g='git reset'\ng --hard", "reset-hard", MODIFIED),
    ("shopt -s expand_aliases; alias g='git reset'; eval 'g --hard'", "reset-hard", MODIFIED),
    ("for x in status 'reset --hard'; do git $x; done", "reset-hard", MODIFIED),
    ("IFS=,; c=git,clean,-f; $c", "clean-untracked", UNTRACKED),
    ("x=$(echo Z2l0IHJlc2V0IC0taGFyZA== | base64 -d); $x", "reset-hard", MODIFIED),
    ("export g=git; bash -c '$g reset --hard'", "reset-hard", MODIFIED),
    ("g=git; bash -c \"$g reset --hard\"", "reset-hard", MODIFIED),
    ("g=git; bash <<EOF\n$g reset --hard\nEOF", "reset-hard", MODIFIED),
    # Where the shell was: $OLDPWD and $PWD after a cd, `cd -`, pushd and popd.
    ('cd /tmp && git -C "$OLDPWD" reset --hard', "reset-hard", MODIFIED),
    ("cd /tmp && git -C ${OLDPWD} checkout -- a.txt", "discard-changes", MODIFIED),
    ('cd .. && cd "$OLDPWD" && git clean -f', "clean-untracked", UNTRACKED),
    ("cd /tmp && cd - && git reset --hard", "reset-hard", MODIFIED),
    ("pushd /tmp && popd && git reset --hard", "reset-hard", MODIFIED),
    ("pushd /tmp; pushd; git clean -f", "clean-untracked", UNTRACKED),
    ('pushd /tmp >/dev/null; git -C "$OLDPWD" reset --hard', "reset-hard", MODIFIED),
    ('d=$PWD; cd /tmp && git -C "$d" reset --hard', "reset-hard", MODIFIED),
    ("cd /tmp && bash -c 'git -C \"$OLDPWD\" reset --hard'", "reset-hard", MODIFIED),
]


@pytest.mark.parametrize(("command", "rule", "effect"), VARIANTS)
def test_variant_is_denied_and_really_loses_work(tmp_path: Path, command: str, rule: str, effect: str) -> None:
    check_variant(tmp_path, command, rule, effect)


CONTROLS = [
    "(g=git); $g reset --hard 2>/dev/null || true",
    "g=git; unset g; $g reset --hard 2>/dev/null || true",
    "g=git; bash -c '$g reset --hard' 2>/dev/null || true",
    "g=git $g reset --hard 2>/dev/null || true",
    "f=--stat; git diff $f",
    "g=git; $g status --short",
    "c='git log -1'; $c --oneline",
    'cd /tmp && git -C "$OLDPWD" status --short',
    "pushd /tmp && popd && git status --short",
    'cd "$(mktemp -d)" && git init -q && git -C "$PWD" reset --hard',
    "(cd /tmp); cd - 2>/dev/null; git status --short",
]


@pytest.mark.parametrize("command", CONTROLS)
def test_read_only_controls_stay_quiet(tmp_path: Path, command: str) -> None:
    check_control(tmp_path, command)
