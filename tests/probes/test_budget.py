"""What the probes cost: processes counted, answers cached, the 200 ms budget, git's environment.

A wrapper named `git` first on PATH logs each run (with the environment the probe gave it) and
then runs the real git, so the tests see exactly which git processes the probes start.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testing import ended, git, make_repo

from jouet_git.probes.core import Probes

REAL_GIT = shutil.which("git")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n", "src/a.py": "a\n"})
    git(repo, "checkout", "-qb", "feature")
    (repo / "f.txt").write_text("f\n")
    git(repo, "add", "f.txt")
    git(repo, "commit", "-qm", "feature")
    return repo


@pytest.fixture
def git_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A log with one line per git run: GIT_OPTIONAL_LOCKS, GIT_TERMINAL_PROMPT, then the arguments."""
    shims = tmp_path / "shims"
    shims.mkdir()
    log = tmp_path / "git.log"
    log.touch()
    script = shims / "git"
    script.write_text(
        "#!/bin/sh\n"
        'printf "%s %s %s\\n" "${GIT_OPTIONAL_LOCKS:-unset}" "${GIT_TERMINAL_PROMPT:-unset}" "$*" '
        f'>> "{log}"\n'
        f'exec "{REAL_GIT}" "$@"\n'
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}{os.pathsep}{os.environ['PATH']}")
    return log


def runs(log: Path) -> list[str]:
    return log.read_text().splitlines()


def test_every_git_run_skips_optional_locks_and_prompts(repo: Path, git_log: Path) -> None:
    p = Probes(str(repo))
    p.git_state()
    p.git_tree()
    p.git_changed("staged")
    p.git_changed("tracked")
    p.git_ahead("feature", "main")
    lines = runs(git_log)
    assert len(lines) == 5 == p.git_processes
    assert all(line.startswith("0 0 ") for line in lines), lines


@pytest.mark.parametrize(("probe", "args", "processes"), [
    ("git_state", (), 1),
    ("git_tree", (), 1),
    ("git_changed", ("staged",), 1),
    ("git_changed", ("tracked",), 1),
    ("git_ahead", ("feature", "main"), 1),
    ("repo", (), 0),
    ("stack_layer", (), 0),
    ("file_contains", ("README.md", "hi"), 0),
])
def test_processes_per_probe_and_asking_twice_runs_nothing(
    repo: Path, git_log: Path, probe: str, args: tuple[str, ...], processes: int
) -> None:
    # gh-stack places the branch on the trunk: an answer that needs no git process.
    state = {"stacks": [{"trunk": {"branch": "main"}, "branches": [{"branch": "feature"}]}]}
    (repo / ".git" / "gh-stack").write_text(json.dumps(state))
    p = Probes(str(repo))
    first = getattr(p, probe)(*args)
    assert first[1] is None, first
    assert p.git_processes == processes == len(runs(git_log))
    p.begin_check()  # a later check of the same hook call
    assert getattr(p, probe)(*args) == first
    assert p.git_processes == processes == len(runs(git_log))


def test_state_asked_with_another_spelling_of_the_same_work_tree_is_cached(repo: Path, git_log: Path) -> None:
    p = Probes(str(repo))
    p.git_state()
    p.git_state(str(repo / "src"))
    p.git_state("src")
    assert p.git_processes == 1


def test_a_spent_budget_runs_no_git(repo: Path, git_log: Path) -> None:
    p = Probes(str(repo))
    p.spend_all()
    for value, reason in (p.git_state(), p.git_tree(), p.git_changed(), p.git_ahead("feature", "main"),
                          p.repo(), p.stack_layer(), p.file_contains("README.md", "hi")):
        assert value is None
        assert reason is not None and reason.startswith("out of time: ")
    assert p.git_processes == 0 and runs(git_log) == []


def test_a_cached_answer_survives_a_spent_budget(repo: Path, git_log: Path) -> None:
    p = Probes(str(repo))
    first = p.git_state()
    p.spend_all()
    assert p.git_state() == first
    assert p.git_processes == 1


def test_begin_check_gives_a_fresh_budget_and_out_of_time_is_not_kept(repo: Path, git_log: Path) -> None:
    p = Probes(str(repo))
    p.spend_all()
    assert p.git_state()[0] is None
    p.begin_check()
    value, reason = p.git_state()
    assert reason is None and value["branch"] == "feature"
    assert p.git_processes == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to see the process is gone")
def test_a_git_that_does_not_answer_in_time_is_killed(repo: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    shims = tmp_path / "slow"
    shims.mkdir()
    pids = tmp_path / "pids"
    script = shims / "git"
    # The wrapper records its own pid and that of the child it waits on, then hangs.
    script.write_text(f'#!/bin/sh\nsleep 30 &\necho "$$ $!" > "{pids}"\nwait\nexec "{REAL_GIT}" "$@"\n')
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}{os.pathsep}{os.environ['PATH']}")
    p = Probes(str(repo), budget=3.0)  # time for the wrapper to note its pids before it is stopped
    value, reason = p.git_state()
    assert value is None
    assert reason is not None and reason.startswith("out of time: git status did not answer")
    assert p.git_processes == 1
    shell, child = (int(n) for n in pids.read_text().split())
    assert ended(shell) and ended(child)
    # The spent budget is shared: the next probe of the same check does not start git.
    assert p.git_tree()[1] is not None and p.git_processes == 1


def test_git_hook_variables_are_kept_for_the_same_repository_only(repo: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = make_repo(tmp_path / "elsewhere", {"x": "x\n"})
    # As in a pre-commit hook of `git commit -a`: git points GIT_INDEX_FILE at another index.
    other_index = tmp_path / "other-index"
    env = dict(os.environ, GIT_INDEX_FILE=str(other_index))
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    (repo / "README.md").write_text("changed\n")
    subprocess.run(["git", "add", "README.md"], cwd=repo, env=env, check=True)
    monkeypatch.setenv("GIT_INDEX_FILE", str(other_index))
    assert Probes(str(repo)).git_changed() == ([str(repo / "README.md")], None)
    # Another repository's status must not read this repository's index.
    assert Probes(str(repo)).git_state(str(elsewhere))[0]["dirty"] is False
