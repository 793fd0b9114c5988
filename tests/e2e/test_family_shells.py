"""Family: shells fed a script (eval, here-documents, here-strings, pipes from pure commands,
script files, process substitutions, `sh -c "$(pure command)"`), with every shell at hand. Each
variant is denied by jouet and really loses the work when bash runs it in a twin repository; the
read-only controls are left alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.realrun import MODIFIED, UNTRACKED, check_control, check_variant, skip_unless_installed

VARIANTS = [
    ('eval "git reset --hard"', "reset-hard", MODIFIED),
    ("eval git checkout -- a.txt", "discard-changes", MODIFIED),
    ('x="reset --hard"; eval "git $x"', "reset-hard", MODIFIED),
    ("bash <<'EOF'\ngit reset --hard\nEOF", "reset-hard", MODIFIED),
    ("sh <<EOF\ngit clean -f\nEOF", "clean-untracked", UNTRACKED),
    ("sh <<<'git clean -f'", "clean-untracked", UNTRACKED),
    ("echo 'git checkout -- a.txt' | sh", "discard-changes", MODIFIED),
    ("printf 'git reset --hard\\n' | bash -s", "reset-hard", MODIFIED),
    ("cat <<EOF | bash\ngit clean -f\nEOF", "clean-untracked", UNTRACKED),
    ("echo Z2l0IHJlc2V0IC0taGFyZA== | base64 -d | sh", "reset-hard", MODIFIED),
    ("echo 'GIT RESET --HARD' | tr A-Z a-z | bash", "reset-hard", MODIFIED),
    ('sh -c "$(echo git reset --hard)"', "reset-hard", MODIFIED),
    ("bash -c \"$(printf 'git %s --%s' reset hard)\"", "reset-hard", MODIFIED),
    ("bash <(echo git reset --hard)", "reset-hard", MODIFIED),
    ("source <(printf 'git reset --hard\\n')", "reset-hard", MODIFIED),
    ("echo 'git reset --hard' > x.sh && bash x.sh", "reset-hard", MODIFIED),
    ("cat > run.sh <<'EOF'\ngit clean -f\nEOF\nchmod +x run.sh && ./run.sh", "clean-untracked", UNTRACKED),
    ("printf 'git reset --hard' | tee y.sh >/dev/null; . ./y.sh", "reset-hard", MODIFIED),
    ("dash -c 'git reset --hard'", "reset-hard", MODIFIED),
    ("zsh <<< 'git reset --hard'", "reset-hard", MODIFIED),
    ("echo 'git reset --hard' | ksh", "reset-hard", MODIFIED),
    ("busybox sh <<< 'git clean -f'", "clean-untracked", UNTRACKED),
    ("bash -euxo pipefail -c 'git reset --hard'", "reset-hard", MODIFIED),
]

NEEDS = {"zsh ": ("zsh",), "ksh": ("ksh",), "busybox": ("busybox",), "dash ": ("dash",)}




@pytest.mark.parametrize(("command", "rule", "effect"), VARIANTS)
def test_variant_is_denied_and_really_loses_work(tmp_path: Path, command: str, rule: str, effect: str) -> None:
    skip_unless_installed(command, NEEDS)
    check_variant(tmp_path, command, rule, effect)


# Script files already in the repository are read when small and inside the call's directory.
ON_DISK = [
    ("bash scripts/reset.sh", "reset-hard", MODIFIED),
    ("sh < scripts/reset.sh", "reset-hard", MODIFIED),
    ("bash -s < scripts/reset.sh", "reset-hard", MODIFIED),
    ("cat scripts/reset.sh | sh", "reset-hard", MODIFIED),
    ("cd scripts && . ./reset.sh", "reset-hard", MODIFIED),
    ("source scripts/clean.sh", "clean-untracked", UNTRACKED),
]
FILES = {"scripts/reset.sh": "#!/bin/sh\ngit reset --hard\n",
         "scripts/clean.sh": "set -eu\ngit clean -f\n",
         "scripts/status.sh": "git status --short\ngit log -1 --oneline\n"}


@pytest.mark.parametrize(("command", "rule", "effect"), ON_DISK)
def test_script_files_are_read(tmp_path: Path, command: str, rule: str, effect: str) -> None:
    check_variant(tmp_path, command, rule, effect, FILES)


CONTROLS = [
    'eval "git status"',
    "bash <<'EOF'\ngit status --short\nEOF",
    "echo 'git log -1 --oneline' | sh",
    'sh -c "$(echo git diff --stat)"',
    "cat <<EOF\n$(git status --short)\nEOF",
    "g=git; bash -c '$g reset --hard' || true",  # $g is not exported: bash runs `reset --hard`
]


@pytest.mark.parametrize("command", CONTROLS)
def test_read_only_controls_stay_quiet(tmp_path: Path, command: str) -> None:
    check_control(tmp_path, command)


def test_reading_a_script_file_that_only_reads(tmp_path: Path) -> None:
    check_control(tmp_path, "bash scripts/status.sh", FILES)
