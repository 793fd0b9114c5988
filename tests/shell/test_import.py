"""The shell reader is on the hook's path: importing and using it loads nothing heavy."""

from __future__ import annotations

import json
import subprocess
import sys

FORBIDDEN = {"typing", "dataclasses", "subprocess", "pathlib", "argparse", "hashlib", "tomli", "tomlkit",
             "filelock", "git", "rich", "inspect", "shlex"}

PROGRAM = """
import json, sys
before = set(sys.modules)
from jouet_git.shell import parse, dirs, unwrap
result = parse("cd sub && sudo -u x bash -lc 'git push -f' | tee log; echo $(date) `id`; [[ -f x ]]; "
               "for a in b; do case $a in x) ((i++));; esac; done; f() { cat <<EOF; }\\nbody\\nEOF\\n", 0)
dirs(result.commands)
unwrap(["env", "-S", "git status"])
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def test_import_and_use_load_only_light_modules() -> None:
    proc = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, check=True)
    loaded = set(json.loads(proc.stdout))
    assert not {m.split(".")[0] for m in loaded} & FORBIDDEN, sorted(loaded)
    ours = {m for m in loaded if m.startswith("jouet_git")}
    # expand (known values of variables), pure and values (what pure commands print) load only when
    # the command needs them, and import nothing heavy themselves.
    assert ours <= {"jouet_git", "jouet_git.call", "jouet_git.shell", "jouet_git.shell.reader",
                    "jouet_git.shell.follow", "jouet_git.shell.wrappers",
                    "jouet_git.shell.status", "jouet_git.shell.workdirs", "jouet_git.shell.expand",
                    "jouet_git.shell.pure", "jouet_git.shell.values", "jouet_git.shell.launchers",
                    "jouet_git.shell.jouetcmd"}, ours


def test_plain_commands_load_no_helper_module() -> None:
    program = """
import json, sys
from jouet_git.shell import parse
parse("git status && cargo test 2>&1 | tail -5; echo $(date) \\"$HOME\\"; x=1", 0)
print(json.dumps(sorted(m for m in sys.modules if m.startswith("jouet_git"))))
"""
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert set(json.loads(proc.stdout)) == {
        "jouet_git", "jouet_git.call", "jouet_git.shell", "jouet_git.shell.reader",
        "jouet_git.shell.wrappers", "jouet_git.shell.status", "jouet_git.shell.jouetcmd"}


def test_lists_of_names_agree_with_their_handlers() -> None:
    from jouet_git.shell import follow, launchers, wrappers

    assert set(follow.FOLLOW) == wrappers.FOLLOW_NAMES
    assert set(launchers.MORE) == wrappers.MORE_NAMES
    # Only jouet's own runners (uv, uvx, pipx) sit in both: they answer first, then fall back.
    from jouet_git.shell import jouetcmd

    assert wrappers.MORE_NAMES & set(wrappers.WRAPPERS) <= set(jouetcmd.RUNNERS)
