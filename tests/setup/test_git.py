"""Installing jouet's git hooks: where they go, chaining to existing hooks, and undoing it exactly.

The installed hooks run a recording script instead of jouet (install's jouet_command), so these
tests see exactly what git and the hooks hand to `jouet hook git ...`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from testing import git, make_repo, run_as_nobody
from testing.githooks import (
    ZERO,
    capture_hook,
    captured,
    commit,
    recorder,
    records,
    rev,
    snapshot,
    write_script,
)

from jouet_git import paths
from jouet_git.errors import JouetError
from jouet_git.harness.git_events import pre_commit_calls
from jouet_git.setup.git import (
    CHAINED_SUFFIX,
    HOOKS,
    Report,
    default_jouet_command,
    install,
    is_jouet_hook,
    status,
    uninstall,
)

PRE_COMMIT = str(Path(sys.executable).parent / "pre-commit")


class Setup:
    """A repository with a bare remote, and a recorder standing in for jouet."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.remote = tmp_path / "remote.git"
        git(tmp_path, "init", "-q", "--bare", str(self.remote))
        self.repo = make_repo(tmp_path / "work")
        git(self.repo, "remote", "add", "origin", str(self.remote))
        self.hooks = self.repo / ".git" / "hooks"
        self.jouet, self.log = recorder(tmp_path)

    def deny(self, code: int = 1) -> None:
        (self.tmp / "recorder.exit").write_text(str(code))

    def install(self, dry_run: bool = False) -> Report:
        return install(str(self.repo), dry_run=dry_run, jouet_command=str(self.jouet))


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    return Setup(tmp_path)


def global_config(key: str) -> str | None:
    proc = subprocess.run(["git", "config", "--global", "--get", key], capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


def test_hooks_run_jouet_with_what_git_gives_them(setup: Setup) -> None:
    report = install(str(setup.repo), jouet_command=str(setup.jouet))
    assert report.changed and [s.verb for s in report.steps] == ["install"] * 3
    for hook in HOOKS:
        assert is_jouet_hook(str(setup.hooks / hook))
        assert os.access(setup.hooks / hook, os.X_OK)

    (setup.repo / "sub").mkdir()
    (setup.repo / "sub" / "f.txt").write_text("x\n")
    git(setup.repo / "sub", "add", "f.txt")
    git(setup.repo / "sub", "commit", "-q", "-m", "from a subdirectory")
    before_push = rev(setup.repo, "HEAD")
    git(setup.repo, "push", "-q", "origin", "main")
    git(setup.repo, "checkout", "-q", "-b", "side")

    seen = records(setup.log)
    assert [r["argv"][:3] for r in seen] == [
        ["hook", "git", "pre-commit"],
        ["hook", "git", "pre-push"],
        ["hook", "git", "post-checkout"],
    ]
    assert all(Path(r["cwd"]) == setup.repo for r in seen)
    assert seen[0]["argv"] == ["hook", "git", "pre-commit"]
    assert seen[1]["argv"][3:] == ["origin", str(setup.remote)]
    assert seen[1]["stdin"] == f"refs/heads/main {before_push} refs/heads/main {ZERO}\n"
    assert seen[2]["argv"][3:] == [before_push, before_push, "1"]


def test_a_deny_stops_the_commit_and_the_push(setup: Setup) -> None:
    setup.install()
    head = rev(setup.repo, "HEAD")
    setup.deny()
    (setup.repo / "new.txt").write_text("new\n")
    git(setup.repo, "add", "new.txt")
    assert subprocess.run(["git", "commit", "-q", "-m", "no"], cwd=setup.repo).returncode != 0
    assert rev(setup.repo, "HEAD") == head
    assert subprocess.run(["git", "push", "-q", "origin", "main"], cwd=setup.repo).returncode != 0
    assert git(setup.remote, "for-each-ref") == ""


def test_an_existing_hook_runs_first_and_its_failure_still_stops_git(setup: Setup) -> None:
    write_script(setup.hooks / "pre-commit", "#!/bin/sh\necho 'old hook says no' >&2\nexit 3\n")
    report = setup.install()
    assert "chain" in [s.verb for s in report.steps]
    assert (setup.hooks / ("pre-commit" + CHAINED_SUFFIX)).read_text().endswith("exit 3\n")

    direct = subprocess.run([str(setup.hooks / "pre-commit")], cwd=setup.repo, capture_output=True, text=True)
    assert direct.returncode == 3 and "old hook says no" in direct.stderr

    head = rev(setup.repo, "HEAD")
    (setup.repo / "x.txt").write_text("x\n")
    git(setup.repo, "add", "x.txt")
    proc = subprocess.run(["git", "commit", "-q", "-m", "x"], cwd=setup.repo, capture_output=True, text=True)
    assert proc.returncode != 0 and "old hook says no" in proc.stderr
    assert rev(setup.repo, "HEAD") == head
    assert records(setup.log) == []  # jouet never ran: the old hook had already stopped git


def test_an_existing_hook_that_passes_lets_jouet_decide(setup: Setup) -> None:
    marker = setup.tmp / "old-ran"
    write_script(setup.hooks / "pre-commit", f"#!/bin/sh\ntouch '{marker}'\n")
    setup.install()
    commit(setup.repo, "y.txt")
    assert marker.exists()
    assert [r["argv"] for r in records(setup.log)] == [["hook", "git", "pre-commit"]]


def test_pre_push_stdin_reaches_both_hooks(setup: Setup) -> None:
    into = setup.tmp / "old-pre-push"
    capture_hook(setup.repo, "pre-push", into)
    setup.install()
    git(setup.repo, "branch", "second")
    git(setup.repo, "push", "-q", "origin", "main", "second")

    argv, old_stdin = captured(into)
    [record] = records(setup.log)
    assert argv == ["origin", str(setup.remote)]
    assert record["argv"] == ["hook", "git", "pre-push", "origin", str(setup.remote)]
    assert len(old_stdin.splitlines()) == 2
    assert record["stdin"] == old_stdin


def test_an_existing_pre_push_failure_stops_the_push(setup: Setup) -> None:
    write_script(setup.hooks / "pre-push", "#!/bin/sh\ncat >/dev/null\nexit 7\n")
    setup.install()
    proc = subprocess.run([str(setup.hooks / "pre-push"), "origin", "u"], input="x y z w\n", text=True)
    assert proc.returncode == 7
    assert subprocess.run(["git", "push", "-q", "origin", "main"], cwd=setup.repo).returncode != 0
    assert git(setup.remote, "for-each-ref") == ""
    assert records(setup.log) == []


def test_installing_twice_changes_nothing(setup: Setup) -> None:
    write_script(setup.hooks / "pre-push", "#!/bin/sh\nexit 0\n")
    setup.install()
    after_first = snapshot(setup.hooks)
    again = setup.install()
    assert not again.changed
    assert [s.verb for s in again.steps] == ["unchanged"] * 3
    assert snapshot(setup.hooks) == after_first
    assert "nothing to change" in again.lines


def test_a_new_jouet_command_updates_the_hooks_and_keeps_the_chain(setup: Setup) -> None:
    write_script(setup.hooks / "pre-commit", "#!/bin/sh\nexit 0\n")
    setup.install()
    other, other_log = recorder(setup.tmp, "other")
    report = install(str(setup.repo), jouet_command=str(other))
    assert [s.verb for s in report.steps] == ["update"] * 3
    assert (setup.hooks / ("pre-commit" + CHAINED_SUFFIX)).exists()
    commit(setup.repo, "z.txt")
    assert records(setup.log) == [] and len(records(other_log)) == 1


def test_uninstall_restores_every_hook_byte_for_byte(setup: Setup) -> None:
    old_commit = setup.hooks / "pre-commit"
    old_commit.write_bytes(b"#!/bin/sh\n# caf\xc3\xa9 \xff\nexit 0")  # odd bytes, no final newline
    old_commit.chmod(0o750)
    old_push = setup.hooks / "pre-push"
    old_push.write_text("#!/bin/sh\nexit 0\n")
    old_push.chmod(0o644)  # not executable: git skips it, and so does jouet's hook
    before = snapshot(setup.hooks)

    setup.install()
    assert snapshot(setup.hooks) != before
    removed = uninstall(str(setup.repo))
    assert sorted(s.verb for s in removed.steps) == ["remove"] * 3 + ["restore"] * 2
    assert snapshot(setup.hooks) == before

    again = uninstall(str(setup.repo))
    assert not again.changed
    assert snapshot(setup.hooks) == before


def test_uninstall_leaves_other_tools_hooks_alone(setup: Setup) -> None:
    write_script(setup.hooks / "pre-commit", "#!/bin/sh\nexit 0\n")
    before = snapshot(setup.hooks)
    report = uninstall(str(setup.repo))
    assert [s.verb for s in report.steps] == ["foreign", "absent", "absent"]
    assert snapshot(setup.hooks) == before


def test_dry_runs_change_nothing(setup: Setup) -> None:
    write_script(setup.hooks / "pre-push", "#!/bin/sh\nexit 0\n")
    before = snapshot(setup.hooks)
    report = setup.install(dry_run=True)
    assert report.changed and report.dry_run
    assert all(line.startswith("would ") for line in report.lines)
    assert snapshot(setup.hooks) == before

    setup.install()
    installed = snapshot(setup.hooks)
    report = uninstall(str(setup.repo), dry_run=True)
    assert {s.verb for s in report.steps} == {"remove", "restore"}
    assert snapshot(setup.hooks) == installed

    template = Path(paths.config_dir()) / "git-template"
    report = install(str(setup.repo), global_=True, dry_run=True, jouet_command=str(setup.jouet))
    assert "config-set" in [s.verb for s in report.steps]
    assert global_config("init.templateDir") is None
    assert not template.exists()


def test_relative_core_hooks_path(setup: Setup) -> None:
    git(setup.repo, "config", "core.hooksPath", ".githooks")
    (setup.repo / "deep" / "er").mkdir(parents=True)
    report = install(str(setup.repo / "deep" / "er"), jouet_command=str(setup.jouet))
    assert report.hooks_dir == str(setup.repo / ".githooks")
    assert any("core.hooksPath" in note for note in report.notes)
    assert is_jouet_hook(str(setup.repo / ".githooks" / "pre-commit"))
    assert not (setup.hooks / "pre-commit").exists()
    commit(setup.repo, "w.txt")
    assert [r["argv"] for r in records(setup.log)] == [["hook", "git", "pre-commit"]]
    [location] = status(str(setup.repo)).locations
    assert location.hooks_dir == str(setup.repo / ".githooks") and "core.hooksPath" in location.source


def test_a_linked_worktree_installs_into_the_common_hooks(setup: Setup) -> None:
    worktree = setup.tmp / "wt"
    git(setup.repo, "worktree", "add", "-q", "-b", "wt-branch", str(worktree))
    report = install(str(worktree), jouet_command=str(setup.jouet))
    assert report.hooks_dir == str(setup.hooks)
    commit(worktree, "in-worktree.txt")
    [record] = records(setup.log)
    assert record["argv"] == ["hook", "git", "pre-commit"] and Path(record["cwd"]) == worktree
    (worktree / "sub").mkdir()
    [call] = pre_commit_calls(str(worktree / "sub"))
    assert call.cwd == str(worktree) and call.command == "git commit"


def test_a_symlinked_hook_is_refused_and_nothing_changes(setup: Setup) -> None:
    target = write_script(setup.tmp / "shared-hook", "#!/bin/sh\nexit 0\n")
    (setup.hooks / "pre-push").symlink_to(target)
    before = snapshot(setup.hooks)
    with pytest.raises(JouetError) as caught:
        setup.install()
    assert "symbolic link" in caught.value.message and str(setup.hooks / "pre-push") in caught.value.message
    assert snapshot(setup.hooks) == before
    assert status(str(setup.repo)).locations[0].hooks[1].state == "symlink"


def test_a_taken_chained_name_is_refused(setup: Setup) -> None:
    write_script(setup.hooks / "pre-commit", "#!/bin/sh\nexit 0\n")
    write_script(setup.hooks / ("pre-commit" + CHAINED_SUFFIX), "#!/bin/sh\nexit 1\n")
    before = snapshot(setup.hooks)
    with pytest.raises(JouetError) as caught:
        setup.install()
    assert "both" in caught.value.message and CHAINED_SUFFIX in caught.value.message
    assert snapshot(setup.hooks) == before


def test_an_unwritable_hooks_dir_is_a_clear_error(tmp_path: Path) -> None:
    base = Path(tempfile.mkdtemp(prefix="jouet-ro-"))
    try:
        base.chmod(0o755)
        repo = make_repo(base / "repo")
        for path in (repo, repo / ".git"):
            path.chmod(0o755)
        hooks = repo / ".git" / "hooks"
        hooks.chmod(0o555)
        before = snapshot(hooks)
        if os.geteuid() != 0:
            with pytest.raises(JouetError) as caught:
                install(str(repo), jouet_command="/bin/true")
            message = caught.value.message
        else:
            # root writes anywhere: run the installer as an unprivileged user instead
            code = (
                "from jouet_git.setup.git import install\n"
                "from jouet_git.errors import JouetError\n"
                "try:\n"
                f"    install({str(repo)!r}, jouet_command='/bin/true')\n"
                "except JouetError as e:\n"
                "    print(e.message)\n"
                "    raise SystemExit(3)\n"
            )
            env = {
                "PATH": os.environ["PATH"],
                "HOME": str(base),
                "GIT_CONFIG_GLOBAL": "/dev/null",
                "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_CONFIG_COUNT": "1",
                "GIT_CONFIG_KEY_0": "safe.directory",
                "GIT_CONFIG_VALUE_0": "*",
            }
            proc = run_as_nobody(code, base, env)
            assert proc.returncode == 3, proc.stderr
            message = proc.stdout
        assert "cannot write to the hooks directory" in message and str(hooks) in message
        assert snapshot(hooks) == before
    finally:
        (base / "repo" / ".git" / "hooks").chmod(0o755)
        shutil.rmtree(base)


def test_a_missing_jouet_warns_and_lets_git_go_on(setup: Setup) -> None:
    path = "/usr/bin:/bin"
    if shutil.which("jouet", path=path):
        pytest.skip("a jouet is installed system-wide")
    install(str(setup.repo), jouet_command=str(setup.tmp / "gone" / "jouet"))
    (setup.repo / "m.txt").write_text("m\n")
    git(setup.repo, "add", "m.txt")
    env = dict(os.environ, PATH=path)
    proc = subprocess.run(
        ["git", "commit", "-q", "-m", "m"], cwd=setup.repo, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0
    assert "cannot find jouet" in proc.stderr and str(setup.tmp / "gone" / "jouet") in proc.stderr


def test_the_default_command_is_this_jouet(setup: Setup) -> None:
    expected = default_jouet_command()
    assert os.path.isabs(expected) and os.path.basename(expected) == "jouet"
    install(str(setup.repo))
    [location] = status(str(setup.repo)).locations
    assert {h.jouet for h in location.hooks} == {expected}


def test_global_install_reaches_new_repositories_and_clones(setup: Setup) -> None:
    commit(setup.repo, "content.txt")
    git(setup.repo, "push", "-q", "origin", "main")
    head = rev(setup.repo, "HEAD")
    template = Path(paths.config_dir()) / "git-template"

    report = install(str(setup.tmp), global_=True, jouet_command=str(setup.jouet))
    assert global_config("init.templateDir") == str(template)
    assert report.hooks_dir == str(template / "hooks")
    assert "config-set" in [s.verb for s in report.steps]

    fresh = setup.tmp / "fresh"
    git(setup.tmp, "init", "-q", str(fresh))
    assert is_jouet_hook(str(fresh / ".git" / "hooks" / "pre-push"))
    clone = setup.tmp / "clone"
    git(setup.tmp, "clone", "-q", str(setup.remote), str(clone))
    [record] = records(setup.log)
    assert record["argv"] == ["hook", "git", "post-checkout", ZERO, head, "1"]
    assert Path(record["cwd"]) == clone

    [location] = status(None).locations
    assert location.kind == "template" and {h.state for h in location.hooks} == {"jouet"}

    removed = uninstall(str(setup.tmp), global_=True)
    assert {"remove", "rmdir", "config-unset"} <= {s.verb for s in removed.steps}
    assert global_config("init.templateDir") is None
    assert not template.exists()
    later = setup.tmp / "later"
    git(setup.tmp, "init", "-q", str(later))
    assert not (later / ".git" / "hooks" / "pre-push").exists()


def test_global_install_uses_an_existing_template_dir_and_chains(setup: Setup) -> None:
    template = setup.tmp / "my-template"
    write_script(template / "hooks" / "pre-push", "#!/bin/sh\nexit 0\n")
    (template / "description").write_text("mine\n")
    git(setup.tmp, "config", "--global", "init.templateDir", str(template))
    before = snapshot(template)

    report = install(str(setup.tmp), global_=True, jouet_command=str(setup.jouet))
    assert "config-set" not in [s.verb for s in report.steps]
    assert (template / "hooks" / ("pre-push" + CHAINED_SUFFIX)).exists()

    uninstall(str(setup.tmp), global_=True)
    assert snapshot(template) == before
    assert global_config("init.templateDir") == str(template)


def test_status_and_json(setup: Setup) -> None:
    write_script(setup.hooks / "pre-push", "#!/bin/sh\nexit 0\n")
    report = setup.install()
    data = json.loads(json.dumps(report.to_json()))
    assert data["command"] == "install" and data["changed"] is True
    assert [s["verb"] for s in data["steps"]] == ["install", "chain", "install", "install"]

    found = status(str(setup.repo))
    data = json.loads(json.dumps(found.to_json()))
    [location] = data["locations"]
    states = {h["hook"]: h for h in location["hooks"]}
    assert states["pre-push"]["state"] == "jouet"
    assert states["pre-push"]["chained"] == str(setup.hooks / ("pre-push" + CHAINED_SUFFIX))
    assert states["pre-commit"]["jouet"] == str(setup.jouet)
    assert any("after pre-push.jouet-chained" in line for line in found.lines)
    assert any("init.templateDir is not set" in note for note in found.notes)


def test_status_outside_a_repository(tmp_path: Path) -> None:
    elsewhere = tmp_path / "plain"
    elsewhere.mkdir()
    found = status(str(elsewhere))
    assert found.locations == [] and any("not inside a git repository" in n for n in found.notes)
    with pytest.raises(JouetError) as caught:
        install(str(elsewhere), jouet_command="/bin/true")
    assert "not inside a git repository" in caught.value.message and "--global" in caught.value.message


def test_chaining_to_the_pre_commit_frameworks_own_hook(setup: Setup) -> None:
    marker = setup.tmp / "framework-ran"
    entry = write_script(setup.tmp / "touch.sh", f"#!/bin/sh\ntouch '{marker}'\n")
    config = (
        "repos:\n- repo: local\n  hooks:\n  - id: touch\n    name: touch\n"
        f"    entry: {entry}\n    language: unsupported\n    pass_filenames: false\n    always_run: true\n"
    )
    (setup.repo / ".pre-commit-config.yaml").write_text(config)
    git(setup.repo, "add", ".pre-commit-config.yaml")
    git(setup.repo, "commit", "-q", "-m", "config")
    subprocess.run([PRE_COMMIT, "install"], cwd=setup.repo, check=True, capture_output=True)
    framework_hook = snapshot(setup.hooks)["pre-commit"]

    setup.install()
    commit(setup.repo, "q.txt")
    assert marker.exists()
    assert [r["argv"] for r in records(setup.log)] == [["hook", "git", "pre-commit"]]

    uninstall(str(setup.repo))
    assert snapshot(setup.hooks)["pre-commit"] == framework_hook
    marker.unlink()
    commit(setup.repo, "r.txt")
    assert marker.exists()
