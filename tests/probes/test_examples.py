"""ExampleProbes: examples answer probes only from their own keys, in the real probes' shapes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from testing import git, make_repo, run_jouet

from jouet_git.probes.core import ProbeError, Probes
from jouet_git.probes.examples import ExampleProbes

CWD = "/jouet-example"  # as the engine runs examples: a directory that exists nowhere

METHODS = ("git_state", "git_tree", "git_changed", "git_ahead", "repo", "file_contains", "env",
           "stack_layer", "secrets_scan", "claims_held", "begin_check")


def ask(example: dict[str, Any], probe: str, *args: Any) -> tuple[Any, str | None]:
    result: tuple[Any, str | None] = getattr(ExampleProbes(example, CWD), probe)(*args)
    return result


def test_both_classes_have_the_same_probes() -> None:
    for name in METHODS:
        assert callable(getattr(Probes, name)) and callable(getattr(ExampleProbes, name))


# -- git ------------------------------------------------------------------------------------------


def test_git_state_from_the_git_key() -> None:
    assert ask({"git": {"dirty": False, "branch": "main", "ahead": 3}}, "git_state") == (
        {"branch": "main", "changed": 0, "untracked": 0, "conflicted": 0, "dirty": False}, None)
    value, _ = ask({"git": {"dirty": True}}, "git_state")
    assert value == {"changed": 1, "untracked": 0, "conflicted": 0, "dirty": True}  # no branch: detached
    value, _ = ask({"git": {}}, "git_state", "some/dir")
    assert value["dirty"] is False


def test_git_ahead_whatever_branch_is_asked() -> None:
    example = {"git": {"ahead": 3}}
    assert ask(example, "git_ahead", "main", "origin/main") == (3, None)
    assert ask(example, "git_ahead", "feature", "0123abc") == (3, None)
    value, reason = ask({"git": {"dirty": True}}, "git_ahead", "main", "origin/main")
    assert value is None and reason is not None and "no `ahead`" in reason


def test_without_the_git_key_git_probes_have_no_answer() -> None:
    for probe, args in (("git_state", ()), ("git_ahead", ("main", "origin/main"))):
        value, reason = ask({"command": "git status"}, probe, *args)
        assert value is None
        assert reason is not None
        assert reason.startswith("examples answer git probes only through the `git` key")


@pytest.mark.parametrize(("probe", "args"), [("git_tree", ()), ("repo", ())])
def test_probes_no_key_answers(probe: str, args: tuple[Any, ...]) -> None:
    value, reason = ask({"git": {"dirty": True}}, probe, *args)
    assert value is None and reason is not None and "no example key answers" in reason


def test_git_changed_answers_from_the_git_files_key() -> None:
    value, reason = ask({"git": {"dirty": True}}, "git_changed")
    assert value is None and reason is not None and "git = { files = [...] }" in reason
    value, reason = ask({"git": {"files": ["src/a.py", "/abs/b.py"]}}, "git_changed", "tracked")
    assert reason is None
    assert value[1] == "/abs/b.py" and value[0].endswith("/src/a.py") and value[0].startswith("/")


def test_arguments_are_checked_as_for_real() -> None:
    with pytest.raises(ProbeError, match="unknown scope"):
        ask({}, "git_changed", "everything")
    with pytest.raises(ProbeError, match="not a branch or revision name"):
        ask({"git": {"ahead": 1}}, "git_ahead", "--all", "main")
    with pytest.raises(ProbeError, match="unknown scope"):
        ask({"secrets": []}, "secrets_scan", "all")


# -- files, env -----------------------------------------------------------------------------------


def test_files_by_the_exact_path_string() -> None:
    path = "~/.config/jouet/rules/no-tags.toml"
    example = {"files": {path: 'mode = "deny"'}}
    assert ask(example, "file_contains", path, 'mode = "deny"') == (True, None)
    assert ask(example, "file_contains", path, 'mode = "warn"') == (False, None)
    value, reason = ask(example, "file_contains", "$HOME/.config/jouet/rules/no-tags.toml", "deny")
    assert value is None and reason is not None and "does not give" in reason
    value, reason = ask({}, "file_contains", "a.toml", "x")
    assert value is None and reason is not None


def test_env_is_never_read_but_the_allowlist_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    value, reason = ask({}, "env", "CI")
    assert value is None and reason is not None and "do not read the environment" in reason
    with pytest.raises(ProbeError, match="never readable"):
        ask({}, "env", "GITHUB_TOKEN")
    with pytest.raises(ProbeError, match="not on the allowlist"):
        ask({}, "env", "PATH")


# -- stack, secrets, claims -----------------------------------------------------------------------


def test_stack_from_the_stack_key() -> None:
    example = {"stack": {"branch": "feat/cache", "parent": "feat/parser", "parent_merged": True}}
    assert ask(example, "stack_layer") == (
        {"branch": "feat/cache", "parent": "feat/parser", "trunk": "main", "parent_merged": True}, None)
    value, _ = ask({"stack": {"branch": "b", "trunk": "develop"}}, "stack_layer")
    assert value == {"branch": "b", "parent": "develop", "trunk": "develop", "parent_merged": False}
    value, reason = ask({}, "stack_layer")
    assert value is None and reason is not None and "`stack` key" in reason


def test_secrets_from_the_secrets_key() -> None:
    example = {"secrets": [{"rule": "github-pat", "path": "src/config.rs", "line": 3, "commit": "abc123"}]}
    value, _ = ask(example, "secrets_scan")
    assert value == [{"rule": "github-pat", "path": "src/config.rs", "line": 3, "commit": None,
                      "match": "REDACTED", "fingerprint": "src/config.rs:github-pat:3"}]
    value, _ = ask(example, "secrets_scan", "outgoing")
    assert value[0]["commit"] == "abc123" and value[0]["fingerprint"] == "abc123:src/config.rs:github-pat:3"
    assert ask({"secrets": []}, "secrets_scan", "tracked", ["a.py"]) == ([], None)
    value, reason = ask({}, "secrets_scan")
    assert value is None and reason is not None and "`secrets` key" in reason


def test_claims_from_the_claims_key() -> None:
    example = {"claims": [
        {"pattern": "src/cmd/", "session": "theirs"},
        {"pattern": "docs/*.md", "session": "mine", "worktree": "/w", "branch": "b", "note": "n"},
    ]}
    value, _ = ask(example, "claims_held", ["src/cmd/run.rs", "README.md"])
    assert value == [{"path": "src/cmd/run.rs", "pattern": "src/cmd/", "session": "theirs", "harness": None,
                      "worktree": "/elsewhere", "branch": None, "note": None, "expires_at": None,
                      "machine": None}]
    value, _ = ask(example, "claims_held", ["docs"])  # a directory covers the claims inside it
    assert [(c["path"], c["session"], c["worktree"], c["note"]) for c in value] == [
        ("docs", "mine", "/w", "n")]
    value, _ = ask(example, "claims_held", [f"{CWD}/src"])
    assert [c["pattern"] for c in value] == ["src/cmd/"]
    assert ask(example, "claims_held", ["/other/src/cmd/x"]) == ([], None)  # outside the work tree
    value, reason = ask({}, "claims_held", ["src"])
    assert value is None and reason is not None and "`claims` key" in reason


EVERY_KEY = {
    "git": {"dirty": True, "branch": "main", "ahead": 2}, "stack": {"branch": "b"},
    "secrets": [{"rule": "r", "path": "p", "line": 1}], "files": {"a": "b"},
    "claims": [{"pattern": "src/", "session": "s"}],
}


def test_examples_touch_nothing(tmp_path: Path) -> None:
    """ExampleProbes answers every probe without git, the filesystem or the environment."""
    script = f"""
import builtins, os, subprocess, sys
def refuse(*a, **k): raise AssertionError(f"an example probe touched the machine: {{a!r}}")
subprocess.Popen = refuse; builtins.open = refuse; os.stat = refuse; os.lstat = refuse
os.listdir = refuse; os.path.exists = refuse; os.path.realpath = refuse
from jouet_git.probes.examples import ExampleProbes
example = {EVERY_KEY!r}
p = ExampleProbes(example, {CWD!r})
p.begin_check()
answers = [p.git_state(), p.git_ahead("main", "x"), p.git_tree(), p.git_changed(), p.repo(),
           p.file_contains("a", "b"), p.env("CI"), p.stack_layer(), p.secrets_scan("outgoing"),
           p.claims_held(["src/a"])]
print(len(answers), p.git_processes)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["10", "0"]


# -- the same shapes as the real probes -----------------------------------------------------------


def test_shapes_match_the_real_probes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"src/cmd/run.rs": "x\n"})
    (repo / "extra.txt").write_text("dirty\n")
    stack = {"stacks": [{"trunk": {"branch": "main"}, "branches": [{"branch": "main-child"}]}]}
    git(repo, "checkout", "-qb", "main-child")
    (repo / ".git" / "gh-stack").write_text(json.dumps(stack))
    done = run_jouet("claim", "src/cmd/", cwd=repo, env={"JOUET_SESSION_ID": "theirs"})
    assert done.returncode == 0, done.stderr
    real = Probes(str(repo))
    fake = ExampleProbes({
        "git": {"dirty": True, "branch": "main-child", "ahead": 0},
        "stack": {"branch": "main-child", "parent": "main"},
        "claims": [{"pattern": "src/cmd/", "session": "theirs"}],
        "files": {"extra.txt": "dirty\n"},
    }, str(repo))

    def keys(answer: tuple[Any, str | None]) -> Any:
        value = answer[0]
        if isinstance(value, list):
            return [sorted(v) for v in value]
        return sorted(value) if isinstance(value, dict) else type(value)

    real_state, fake_state = real.git_state()[0], fake.git_state()[0]
    assert sorted(set(real_state) - {"head"}) == sorted(fake_state)
    assert real_state["dirty"] == fake_state["dirty"] and real_state["branch"] == fake_state["branch"]
    assert real.git_ahead("main-child", "main") == fake.git_ahead("main-child", "main") == (0, None)
    assert real.stack_layer() == fake.stack_layer()
    assert keys(real.claims_held(["src/cmd/run.rs"])) == keys(fake.claims_held(["src/cmd/run.rs"]))
    real_claim = real.claims_held(["src/cmd/run.rs"])[0][0]
    fake_claim = fake.claims_held(["src/cmd/run.rs"])[0][0]
    assert (real_claim["path"], real_claim["pattern"]) == (fake_claim["path"], fake_claim["pattern"])
    assert real.file_contains("extra.txt", "dirty") == (True, None)
    assert fake.file_contains("extra.txt", "dirty") == (True, None)


def test_secret_findings_match_the_real_shape(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n"})
    (repo / "config.py").write_text('token = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"\n')
    git(repo, "add", "config.py")
    real, _ = Probes(str(repo)).secrets_scan()
    fake, _ = ExampleProbes({"secrets": [{"rule": "github-pat", "path": "config.py", "line": 1}]},
                            str(repo)).secrets_scan()
    assert real == fake
