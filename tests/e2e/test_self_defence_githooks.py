"""git's hooks take no orders from an agent session's environment.

Every test pushes or commits with plain git from a Python subprocess, as an agent's one-liner would,
through the hooks `jouet setup git` installed. An agent session shows in the environment: jouet's
JOUET_SESSION_ID, or a harness's own marker (CLAUDECODE, CODEX_SANDBOX, ...). A person in a terminal
has neither and keeps the one-off way through.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from testing import git, make_repo, run_jouet

from jouet_git import paths
from jouet_git.engine.runner import Runner

PUSH = "import subprocess, sys; sys.exit(subprocess.run(['git', 'push', '-f', 'origin', 'main']).returncode)"


def python_push(repo: Path, env: dict[str, str], drop: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **env}
    for name in drop:
        full.pop(name, None)
    return subprocess.run([sys.executable, "-c", PUSH], cwd=repo, capture_output=True, text=True, env=full,
                          timeout=120)


@pytest.fixture
def rewritten(tmp_path: Path) -> tuple[Path, Path]:
    """A repository with jouet's git hooks whose main was rewritten after it was pushed."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    repo = make_repo(tmp_path / "repo")
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "-u", "origin", "main")
    assert run_jouet("setup", "git", cwd=repo).returncode == 0
    (repo / "README.md").write_text("rewritten\n")
    git(repo, "commit", "-q", "-a", "--amend", "-m", "rewritten")
    return repo, remote


def stopped(proc: subprocess.CompletedProcess[str], rule: str = "force-push") -> None:
    assert proc.returncode != 0, proc.stderr
    assert f"[jouet rule: {rule}]" in proc.stderr, proc.stderr


@pytest.mark.parametrize("marker", [
    {"JOUET_SESSION_ID": "agent-1"}, {"CLAUDECODE": "1"}, {"CODEX_SANDBOX": "seatbelt"}, {"GEMINI_CLI": "1"},
], ids=["jouet-session", "claude-code", "codex", "gemini"])
def test_jouet_allow_from_an_agent_s_python_subprocess_is_ignored(rewritten: tuple[Path, Path],
                                                                   marker: dict[str, str]) -> None:
    repo, remote = rewritten
    before = git(remote, "rev-parse", "main")
    proc = python_push(repo, {**marker, "JOUET_ALLOW": "force-push"})
    stopped(proc)
    assert "JOUET_ALLOW is ignored" in proc.stderr and "agent session" in proc.stderr
    assert "let this one through" not in proc.stderr  # no override is offered to an agent
    assert git(remote, "rev-parse", "main") == before


def test_a_person_in_a_terminal_keeps_jouet_allow(rewritten: tuple[Path, Path]) -> None:
    repo, remote = rewritten
    proc = python_push(repo, {"JOUET_ALLOW": "force-push"})
    assert proc.returncode == 0, proc.stderr
    assert "JOUET_ALLOW let" in proc.stderr
    assert git(remote, "rev-parse", "main") == git(repo, "rev-parse", "main")


def test_jouet_rules_disable_from_an_agent_session_is_ignored(rewritten: tuple[Path, Path]) -> None:
    repo, _ = rewritten
    proc = python_push(repo, {"CLAUDECODE": "1", "JOUET_RULES_DISABLE": "force-push,all"})
    stopped(proc)
    assert "JOUET_RULES_DISABLE is ignored" in proc.stderr


def test_a_person_keeps_jouet_rules_disable(rewritten: tuple[Path, Path]) -> None:
    repo, _ = rewritten
    assert python_push(repo, {"JOUET_RULES_DISABLE": "force-push"}).returncode == 0


def evil_config(tmp_path: Path) -> Path:
    """A settings directory an agent wrote, switching every rule off."""
    cfg = tmp_path / "evil" / "jouet"
    cfg.mkdir(parents=True)
    (cfg / "config.toml").write_text('[rules]\ndisable = ["all", "force-push"]\n')
    return cfg


def test_xdg_config_home_pointing_elsewhere_is_ignored(rewritten: tuple[Path, Path], tmp_path: Path) -> None:
    """jouet's settings exist where they are by default: an agent's XDG_CONFIG_HOME is not followed."""
    repo, _ = rewritten
    default = Path.home() / ".config" / "jouet"
    default.mkdir(parents=True)
    (default / "config.toml").write_text("[rules]\ndisable = []\n")
    evil_config(tmp_path)
    proc = python_push(repo, {"CLAUDECODE": "1", "XDG_CONFIG_HOME": str(tmp_path / "evil")},
                       drop=("JOUET_CONFIG_DIR",))
    stopped(proc)
    assert "XDG_CONFIG_HOME is ignored" in proc.stderr and str(default) in proc.stderr


def test_jouet_config_dir_pointing_elsewhere_switches_no_rule_off(rewritten: tuple[Path, Path],
                                                                  tmp_path: Path) -> None:
    """No settings where they are by default: the moved ones are read, but their `disable` is not."""
    repo, _ = rewritten
    cfg = evil_config(tmp_path)
    proc = python_push(repo, {"JOUET_SESSION_ID": "agent-1", "JOUET_CONFIG_DIR": str(cfg)})
    stopped(proc)
    assert "force-push stays on" in proc.stderr or "stay on" in proc.stderr
    # A person who keeps jouet's settings there is followed.
    assert python_push(repo, {"JOUET_CONFIG_DIR": str(cfg)}).returncode == 0


def test_jouet_state_dir_pointing_elsewhere_is_ignored(rewritten: tuple[Path, Path], tmp_path: Path) -> None:
    repo, _ = rewritten
    (Path.home() / ".local" / "state" / "jouet").mkdir(parents=True)
    proc = python_push(repo, {"CLAUDECODE": "1", "JOUET_STATE_DIR": str(tmp_path / "empty-state")})
    stopped(proc)
    assert "JOUET_STATE_DIR is ignored" in proc.stderr


def test_budget_scale_is_harmless_and_not_reported(rewritten: tuple[Path, Path]) -> None:
    repo, _ = rewritten
    proc = python_push(repo, {"CLAUDECODE": "1", "JOUET_BUDGET_SCALE": "50"})
    stopped(proc)
    assert "JOUET_BUDGET_SCALE" not in proc.stderr


def test_a_fake_gitleaks_from_an_agent_session_is_ignored(tmp_path: Path) -> None:
    """JOUET_GITLEAKS=/bin/true would find no secret; in an agent session jouet runs its own gitleaks."""
    from jouet_git.gitleaks.binary import find_gitleaks

    if find_gitleaks() is None:
        pytest.skip("no gitleaks here")
    repo = make_repo(tmp_path / "repo")
    assert run_jouet("setup", "git", cwd=repo).returncode == 0
    key = "AKIA" + "QYLPMN5HHHFPZAM2"
    (repo / "config.ini").write_text(f'aws_access_key_id = "{key}"\n'
                                     f'aws_secret_access_key = "Wm9vbGFuZGVyZ2VzY2hpY2h0ZSBpc3Qgc2Nob2Vu"\n')
    git(repo, "add", "config.ini")
    commit = "import subprocess, sys; sys.exit(subprocess.run(['git', 'commit', '-q', '-m', 'cfg']).returncode)"
    env = {**os.environ, "CLAUDECODE": "1", "JOUET_GITLEAKS": "/bin/true",
           "GITLEAKS_CONFIG_TOML": '[allowlist]\npaths = [".*"]\n'}
    proc = subprocess.run([sys.executable, "-c", commit], cwd=repo, capture_output=True, text=True, env=env,
                          timeout=180)
    assert proc.returncode != 0, proc.stderr
    assert "[jouet rule: committed-secrets]" in proc.stderr
    assert "JOUET_GITLEAKS is ignored" in proc.stderr and "GITLEAKS_CONFIG_TOML is ignored" in proc.stderr
    assert key not in proc.stderr


# -- enforced rules: no variable switches them off ---------------------------------------------------


ENFORCED_RULE = """
[[rule]]
name = "no-tags"
why = "tags are made by the release job"
message = "Tags are made by the release job."
[[rule.match]]
command = "git tag"
[rule.examples]
fires = ["git tag v1"]
quiet = ["git status"]
"""


def test_jouet_system_dir_cannot_switch_enforced_rules_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """/etc/jouet always loads; JOUET_SYSTEM_DIR pointing at an empty directory only adds nothing.

    The fixed directory is moved for this test only (in this process): the machine's real /etc/jouet is
    shared with everything else that runs here."""
    from jouet_git.call import Call

    fixed = tmp_path / "etc-jouet"
    (fixed / "rules").mkdir(parents=True)
    (fixed / "rules" / "no-tags.toml").write_text(ENFORCED_RULE)
    fixed.chmod(0o755)
    (fixed / "rules").chmod(0o755)
    monkeypatch.setattr(paths, "FIXED_SYSTEM_DIR", str(fixed))
    empty = tmp_path / "empty"
    empty.mkdir()
    repo = make_repo(tmp_path / "repo")
    for env in ({"JOUET_SYSTEM_DIR": str(empty)}, {"JOUET_SYSTEM_DIR": ""}, {"JOUET_RULES_DISABLE": "no-tags,all"}):
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        decision = Runner(record=False, use_cache=False).decide(Call(command="git tag v1", cwd=str(repo)))
        assert decision.deny is not None and decision.deny.rule == "no-tags", env
        assert decision.deny.source_label == "enforced"
    # And the variable still adds a directory of its own.
    (empty / "rules").mkdir()
    (empty / "rules" / "no-notes.toml").write_text(ENFORCED_RULE.replace("no-tags", "no-notes")
                                                   .replace("git tag", "git notes").replace("v1", "add"))
    monkeypatch.setenv("JOUET_SYSTEM_DIR", str(empty))
    runner = Runner(record=False, use_cache=False)
    assert runner.decide(Call(command="git notes add", cwd=str(repo))).deny is not None
    assert runner.decide(Call(command="git tag v1", cwd=str(repo))).deny is not None
