"""Family: inline programs (python -c and here-documents, node -e, perl -e, ruby -e, php -r, awk).
Each variant is denied by jouet and really loses the work when bash runs it in a twin repository;
the controls (programs that only print, or run read-only git commands) are left alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.realrun import FORCED, MODIFIED, STAGED, UNTRACKED, check_control, check_variant, have_all

VARIANTS = [
    ("python3 -c 'import os; os.system(\"git reset --hard\")'", "reset-hard", MODIFIED),
    ("python3 -c 'import subprocess; subprocess.run([\"git\", \"checkout\", \"--\", \"a.txt\"])'",
     "discard-changes", MODIFIED),
    ("python3 -c 'import subprocess as sp; c = \"git clean -f\"; sp.run(c, shell=True)'",
     "clean-untracked", UNTRACKED),
    ("python3 - <<'EOF'\nfrom subprocess import check_call\ncheck_call(['git', 'add', '-A'])\nEOF",
     "git-add-all", STAGED),
    ("python3 <<EOF\nimport os\nos.execvp('git', ['git', 'reset', '--hard'])\nEOF", "reset-hard", MODIFIED),
    ("python3 -c 'import os; m = \"--force\"; os.system(f\"git push {m} origin main\")'", "force-push", FORCED),
    ("node -e 'require(\"child_process\").execSync(\"git reset --hard\")'", "reset-hard", MODIFIED),
    ("node -e 'const {spawnSync} = require(\"child_process\"); spawnSync(\"git\", [\"clean\", \"-f\"])'",
     "clean-untracked", UNTRACKED),
    ("perl -e 'system(\"git reset --hard\")'", "reset-hard", MODIFIED),
    ("perl -e 'system \"git\", \"checkout\", \"--\", \"a.txt\"'", "discard-changes", MODIFIED),
    ("perl -e 'my $c = \"git clean -f\"; `$c`'", "clean-untracked", UNTRACKED),
    ("ruby -e 'system(\"git\", \"reset\", \"--hard\")'", "reset-hard", MODIFIED),
    ("ruby -e '%x(git clean -f)'", "clean-untracked", UNTRACKED),
    ("php -r 'shell_exec(\"git reset --hard\");'", "reset-hard", MODIFIED),
    ("awk 'BEGIN { system(\"git reset --hard\") }'", "reset-hard", MODIFIED),
    ("awk -v c='git clean -f' 'BEGIN { system(c) }'", "clean-untracked", UNTRACKED),
    ("gawk 'BEGIN { \"git checkout -- a.txt\" | getline x }'", "discard-changes", MODIFIED),
]

NEEDS = {"node ": ("node",), "perl ": ("perl",), "ruby ": ("ruby",), "php ": ("php",), "gawk ": ("gawk",)}


def _skip_unless_installed(command: str) -> None:
    for marker, programs in NEEDS.items():
        if command.startswith(marker) and not have_all(*programs):
            pytest.skip(f"{', '.join(programs)} not installed")


@pytest.mark.parametrize(("command", "rule", "effect"), VARIANTS)
def test_variant_is_denied_and_really_loses_work(tmp_path: Path, command: str, rule: str, effect: str) -> None:
    _skip_unless_installed(command)
    check_variant(tmp_path, command, rule, effect)


CONTROLS = [
    "python3 -c 'print(\"git reset --hard\")'",
    "python3 -c 'import subprocess; print(subprocess.run([\"git\", \"status\"], capture_output=True).returncode)'",
    "node -e 'console.log(\"git reset --hard\")'",
    "perl -ne 'print if /reset/' a.txt",
    "ruby -e 'puts `git log -1 --oneline`'",
    "awk '{ print \"git reset --hard\" }' a.txt",
    "awk -F= '{ print $1 }' a.txt",
]


@pytest.mark.parametrize("command", CONTROLS)
def test_read_only_controls_stay_quiet(tmp_path: Path, command: str) -> None:
    _skip_unless_installed(command)
    check_control(tmp_path, command)
