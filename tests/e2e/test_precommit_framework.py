"""The pre-commit framework: its real PRE_COMMIT_* variables, and jouet's .pre-commit-hooks.yaml.

The variables come from the framework itself: a consumer repository installs pre-commit's git
hooks with a local hook that records its environment, and real pushes and clones run it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]
from testing import ROOT, git, make_repo
from testing.githooks import ZERO, commit, recorder, records, rev, write_script

from jouet_git.harness.git_events import (
    outgoing_commits,
    post_checkout_argv_from_framework,
    post_checkout_notice,
    pre_push_calls_from_framework,
)

PRE_COMMIT = str(Path(sys.executable).parent / "pre-commit")
MANIFEST = ROOT / ".pre-commit-hooks.yaml"


def env_dumper(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A hook entry that appends its PRE_COMMIT_* variables to a log; exits with the code in .exit."""
    log = tmp_path / "env.jsonl"
    exit_file = tmp_path / "env.exit"
    script = write_script(
        tmp_path / "dump-env.py",
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        "env = {k: v for k, v in os.environ.items() if k.startswith('PRE_COMMIT')}\n"
        "record = {'env': env, 'stdin': sys.stdin.read(), 'argv': sys.argv[1:]}\n"
        f"with open({str(log)!r}, 'a') as handle:\n"
        "    handle.write(json.dumps(record) + '\\n')\n"
        f"sys.exit(int(open({str(exit_file)!r}).read()) if os.path.exists({str(exit_file)!r}) else 0)\n",
    )
    return script, log, exit_file


def local_config(entry: Path, stages: str) -> str:
    return (
        "repos:\n"
        "- repo: local\n"
        "  hooks:\n"
        "  - id: dump-env\n"
        "    name: dump-env\n"
        f"    entry: {entry}\n"
        "    language: unsupported\n"
        "    pass_filenames: false\n"
        "    always_run: true\n"
        f"    stages: [{stages}]\n"
    )


def run(cmd: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
    if check and proc.returncode != 0:
        raise AssertionError(f"{cmd} failed ({proc.returncode}): {proc.stdout}\n{proc.stderr}")
    return proc


class FrameworkPush:
    """A repository whose pre-push hook is the pre-commit framework's, running an env-recording hook."""

    def __init__(self, tmp_path: Path) -> None:
        self.remote = tmp_path / "remote.git"
        git(tmp_path, "init", "-q", "--bare", str(self.remote))
        entry, self.log, self.exit_file = env_dumper(tmp_path)
        self.repo = make_repo(tmp_path / "work", {".pre-commit-config.yaml": local_config(entry, "pre-push")})
        git(self.repo, "remote", "add", "origin", str(self.remote))
        run([PRE_COMMIT, "install", "-t", "pre-push"], self.repo)

    def push(self, *args: str) -> dict[str, str] | None:
        """Push through the framework, stopped by the hook; the env it saw, or None if it did not run."""
        before = len(records(self.log))
        self.exit_file.write_text("1")
        proc = subprocess.run(["git", "push", *args], cwd=self.repo, capture_output=True, text=True)
        seen = records(self.log)[before:]
        if not seen:
            return None
        assert proc.returncode != 0
        assert seen[-1]["stdin"] == ""  # the framework gives its hooks no stdin
        env: dict[str, str] = seen[-1]["env"]
        return env

    def land(self, *args: str) -> None:
        self.exit_file.write_text("0")
        git(self.repo, "push", "-q", *args)


@pytest.fixture
def fw(tmp_path: Path) -> FrameworkPush:
    return FrameworkPush(tmp_path)


def test_new_branch(fw: FrameworkPush) -> None:
    fw.land("origin", "main")
    base = rev(fw.repo, "HEAD")
    git(fw.repo, "checkout", "-q", "-b", "feat")
    one = commit(fw.repo, "a.txt")
    two = commit(fw.repo, "b.txt")

    env = fw.push("origin", "feat")

    assert env is not None
    assert env["PRE_COMMIT_FROM_REF"] == base and env["PRE_COMMIT_TO_REF"] == two
    [ref] = pre_push_calls_from_framework(env, str(fw.repo))
    assert ref.call.command == "git push origin refs/heads/feat:refs/heads/feat"
    assert ref.created and not ref.forced and ref.old == ZERO and ref.new == two
    assert ref.range == f"{base}..{two}"
    assert outgoing_commits(ref, str(fw.repo)) == [two, one]
    assert ref.source == "framework" and ref.call.harness == "git"


def test_fast_forward(fw: FrameworkPush) -> None:
    fw.land("origin", "main")
    old = rev(fw.repo, "HEAD")
    new = commit(fw.repo, "c.txt")

    env = fw.push("origin", "main")

    assert env is not None
    [ref] = pre_push_calls_from_framework(env, str(fw.repo))
    assert ref.call.command == "git push origin refs/heads/main:refs/heads/main"
    assert (ref.old, ref.new, ref.forced, ref.created) == (old, new, False, False)
    assert outgoing_commits(ref, str(fw.repo)) == [new]


def test_forced(fw: FrameworkPush) -> None:
    commit(fw.repo, "one.txt")
    fw.land("origin", "main")
    old = rev(fw.repo, "HEAD")
    git(fw.repo, "reset", "-q", "--hard", "HEAD~1")
    new = commit(fw.repo, "two.txt")

    env = fw.push("--force", "origin", "main")

    assert env is not None and env["PRE_COMMIT_FROM_REF"] == old
    [ref] = pre_push_calls_from_framework(env, str(fw.repo))
    assert ref.forced and ref.old == old and ref.new == new
    assert ref.call.command == "git push origin +refs/heads/main:refs/heads/main"


def test_push_reaching_a_root_commit_sets_no_range(fw: FrameworkPush) -> None:
    root = rev(fw.repo, "HEAD")
    tip = commit(fw.repo, "x.txt")

    env = fw.push("origin", "main")

    assert env is not None
    assert "PRE_COMMIT_FROM_REF" not in env and "PRE_COMMIT_TO_REF" not in env
    [ref] = pre_push_calls_from_framework(env, str(fw.repo))
    assert ref.call.command == "git push origin refs/heads/main:refs/heads/main"
    assert ref.created and ref.new == tip
    assert outgoing_commits(ref, str(fw.repo)) == [tip, root]


def test_only_one_ref_of_a_multi_ref_push_reaches_the_framework(fw: FrameworkPush) -> None:
    fw.land("origin", "main")
    commit(fw.repo, "m.txt")
    git(fw.repo, "checkout", "-q", "-b", "topic")
    commit(fw.repo, "t.txt")
    git(fw.repo, "checkout", "-q", "main")

    env = fw.push("origin", "main", "topic")

    assert env is not None
    refs = pre_push_calls_from_framework(env, str(fw.repo))
    assert len(refs) == 1  # jouet's own pre-push hook would see both (test_githooks_push)


def test_a_deletion_never_reaches_the_framework(fw: FrameworkPush) -> None:
    git(fw.repo, "branch", "old")
    fw.land("origin", "main", "old")
    assert fw.push("origin", "--delete", "old") is None
    assert pre_push_calls_from_framework({}, str(fw.repo)) == []


def test_manual_run_with_explicit_refs(fw: FrameworkPush) -> None:
    base = rev(fw.repo, "HEAD")
    tip = commit(fw.repo, "y.txt")
    fw.exit_file.write_text("0")
    run([PRE_COMMIT, "run", "--hook-stage", "pre-push", "--from-ref", base, "--to-ref", tip], fw.repo)
    env = records(fw.log)[-1]["env"]
    assert "PRE_COMMIT_REMOTE_NAME" not in env
    [ref] = pre_push_calls_from_framework(env, str(fw.repo))
    assert ref.call.command == "git push"
    assert ref.range == f"{base}..{tip}"
    assert outgoing_commits(ref, str(fw.repo)) == [tip]


def test_post_checkout_of_a_fresh_clone_through_the_framework(tmp_path: Path) -> None:
    entry, log, _ = env_dumper(tmp_path)
    source = make_repo(
        tmp_path / "source",
        {
            ".pre-commit-config.yaml": local_config(entry, "post-checkout"),
            ".jouet/rules/team.toml": '[[rule]]\nname = "no-push-main"\nwhy = "x"\n',
        },
    )
    template = tmp_path / "template"
    run([PRE_COMMIT, "init-templatedir", "-t", "post-checkout", str(template)], source, check=False)
    assert (template / "hooks" / "post-checkout").exists()
    run(["git", "clone", "-q", "--template", str(template), str(source), str(tmp_path / "clone")], tmp_path)

    [seen] = records(log)
    argv = post_checkout_argv_from_framework(seen["env"])
    assert argv == [ZERO, rev(source, "HEAD"), "1"]
    notice = post_checkout_notice(argv, str(tmp_path / "clone"))
    assert notice is not None and "no-push-main" in notice


# ---------------------------------------------------------------------------------------------
# jouet's own .pre-commit-hooks.yaml


def manifest() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = yaml.safe_load(MANIFEST.read_text())
    return data


def test_manifest_validates_and_says_what_jouet_needs() -> None:
    run([PRE_COMMIT, "validate-manifest", str(MANIFEST)], MANIFEST.parent)
    hooks = {hook["id"]: hook for hook in manifest()}
    assert set(hooks) == {"jouet-pre-commit", "jouet-pre-push", "jouet-post-checkout"}
    for event in ("pre-commit", "pre-push", "post-checkout"):
        hook = hooks[f"jouet-{event}"]
        assert hook["entry"] == f"jouet hook git {event} --framework"
        assert hook["stages"] == [event]
        assert hook["language"] == "python"
        assert hook["pass_filenames"] is False and hook["always_run"] is True
        assert hook["minimum_pre_commit_version"] == "3.2.0"
        assert hook["description"]


def test_manifest_hooks_run_at_their_stages(tmp_path: Path) -> None:
    # language: python would pip-install jouet-git into a fresh virtualenv, which needs the network;
    # this copy runs the same entries and stages with `jouet` replaced by a recording script.
    script, log = recorder(tmp_path)
    hooks = manifest()
    for hook in hooks:
        hook["language"] = "unsupported"
        hook["entry"] = hook["entry"].replace("jouet ", f"{script} ", 1)
    hook_repo = make_repo(tmp_path / "hook-repo", {".pre-commit-hooks.yaml": yaml.safe_dump(hooks)})
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    config = {
        "repos": [
            {
                "repo": str(hook_repo),
                "rev": rev(hook_repo, "HEAD"),
                "hooks": [{"id": h["id"]} for h in hooks],
            }
        ]
    }
    repo = make_repo(tmp_path / "work", {".pre-commit-config.yaml": yaml.safe_dump(config)})
    git(repo, "remote", "add", "origin", str(remote))
    run([PRE_COMMIT, "install", "-t", "pre-commit", "-t", "pre-push", "-t", "post-checkout"], repo)

    commit(repo, "file.txt")
    git(repo, "push", "-q", "origin", "main")
    git(repo, "checkout", "-q", "-b", "other")

    argvs = [r["argv"] for r in records(log)]
    assert argvs == [
        ["hook", "git", "pre-commit", "--framework"],
        ["hook", "git", "pre-push", "--framework"],
        ["hook", "git", "post-checkout", "--framework"],
    ]
    assert all(Path(r["cwd"]) == repo for r in records(log))
