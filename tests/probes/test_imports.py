"""The probes are on the hook's path: they import only what the probe being asked needs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from testing import make_repo

HEAVY = ("typing", "dataclasses", "subprocess", "pathlib", "argparse", "hashlib", "tomli", "tomlkit",
         "filelock", "git", "rich", "inspect", "threading", "signal", "selectors", "locale", "contextlib")

SCRIPT = """
import json, sys
from jouet_git.probes.core import Probes
from jouet_git.probes.examples import ExampleProbes
p = Probes(sys.argv[1])
p.repo(); p.stack_layer(); p.file_contains("README.md", "hi"); p.env("CI"); p.claims_held(["README.md"])
e = ExampleProbes({"git": {"dirty": True}, "claims": []}, "/jouet-example")
e.git_state(); e.claims_held(["a"]); e.env("CI")
before_git = sorted(m for m in json.loads(sys.argv[2]) if m in sys.modules)
p.git_state()
after_git = sorted(m for m in json.loads(sys.argv[2]) if m in sys.modules)
p.git_tree()
after_tree = sorted(m for m in json.loads(sys.argv[2]) if m in sys.modules)
print(json.dumps([before_git, after_git, after_tree]))
"""


def test_probes_import_nothing_heavy(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n"})
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(repo), json.dumps(HEAVY)],
        capture_output=True, text=True, check=True,
    )
    before_git, after_git, after_tree = json.loads(done.stdout)
    assert before_git == []  # reading files, config and the claims store starts no process
    assert after_git == []  # git runs through posix_spawn: no subprocess, threading or signal
    assert after_tree == ["hashlib"]  # hashing changed files needs hashlib
