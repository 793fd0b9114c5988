"""One pipeline: the same command decided through the Claude hook, git's own hooks, `jouet check`
and `jouet check --jsonl` gets the same decision and a ledger line of the same shape, and no
credential from a push URL reaches jouet's state."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from testing import claude_payload, git, make_repo, run_jouet

TOKEN = "ghp_" + "Zk3vQ8mN2pL5xR7tW9yB4cD6fH1jK0sA2eG8"  # split so this file holds no token
URL = f"https://alice:{TOKEN}@example.invalid/team/app.git"


def _ledger() -> list[dict[str, Any]]:
    path = Path(os.environ["JOUET_STATE_DIR"]) / "ledger.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _repo(tmp_path: Path) -> tuple[Path, Path]:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    repo = make_repo(tmp_path / "repo")
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "-u", "origin", "main")
    return repo, remote


def test_every_entry_point_decides_a_force_push_alike(tmp_path: Path) -> None:
    repo, _ = _repo(tmp_path)
    command = "git push --force origin main"
    # The Claude hook.
    hook = run_jouet("hook", "claude", "pre", input=claude_payload(command, repo), cwd=repo)
    out = json.loads(hook.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "[jouet rule: force-push]" in out["permissionDecisionReason"]
    # jouet check, one call and a stream.
    check = run_jouet("check", "--json", command, cwd=repo)
    assert check.returncode == 1
    assert json.loads(check.stdout)["deny"]["rule"] == "force-push"
    stream = run_jouet("check", "--jsonl", input=json.dumps({"command": command, "cwd": str(repo)}) + "\n", cwd=repo)
    assert json.loads(stream.stdout)["deny"]["rule"] == "force-push"
    # git's own pre-push hook, as the push it stands for.
    assert run_jouet("setup", "git", cwd=repo).returncode == 0
    (repo / "README.md").write_text("rewritten\n")
    git(repo, "commit", "-q", "-a", "--amend", "-m", "rewritten")
    push = subprocess.run(["git", "push", "-f", "origin", "main"], cwd=repo, capture_output=True, text=True)
    assert push.returncode != 0 and "[jouet rule: force-push]" in push.stderr

    lines = _ledger()
    by_harness = {line["harness"]: line for line in lines}
    assert set(by_harness) >= {"claude", "check", "git"}, [line["harness"] for line in lines]
    shapes = {tuple(sorted(line)) for line in lines}
    assert len(shapes) == 1, shapes  # one record shape for every entry point
    for harness in ("claude", "check", "git"):
        line = by_harness[harness]
        assert line["v"] == 1 and line["decision"] == "deny", line
        assert line["rules"] == [{"rule": "force-push", "action": "deny"}], line
        assert line["repo"] == str(repo) and line["shape"].startswith("git push"), line


def test_a_push_url_holding_credentials_never_reaches_jouets_state(tmp_path: Path) -> None:
    repo, remote = _repo(tmp_path)
    assert run_jouet("setup", "git", cwd=repo).returncode == 0
    command = f"git push --force {URL} main"
    run_jouet("hook", "claude", "pre", input=claude_payload(command, repo), cwd=repo)
    run_jouet("check", command, cwd=repo)
    # A real push to a URL with credentials, which git rewrites to the local remote; git hands the
    # hook the URL as typed.
    (repo / "README.md").write_text("more\n")
    git(repo, "commit", "-q", "-a", "-m", "more")
    push = subprocess.run(["git", "-c", f"url.{remote}.insteadOf={URL}", "push", URL, "main"], cwd=repo,
                          capture_output=True, text=True)
    assert push.returncode == 0, push.stderr
    # The same hook given the URL directly, for a forced update.
    old = git(repo, "rev-parse", "HEAD~1").strip()
    new = git(repo, "rev-parse", "HEAD").strip()
    run_jouet("hook", "git", "pre-push", URL, URL, input=f"refs/heads/main {old} refs/heads/main {new}\n", cwd=repo)
    lines = _ledger()
    assert len(lines) >= 4
    assert any("https://[redacted]@example.invalid/team/app.git" in (line["command"] or "") for line in lines)
    for directory in ("JOUET_STATE_DIR", "JOUET_CACHE_DIR", "JOUET_CONFIG_DIR", "JOUET_DATA_DIR"):
        base = Path(os.environ[directory])
        for path in base.rglob("*") if base.exists() else []:
            if path.is_file():
                data = path.read_bytes()
                assert TOKEN.encode() not in data and b"alice:" not in data, path


def test_with_content_off_only_shapes_are_kept(tmp_path: Path) -> None:
    repo, _ = _repo(tmp_path)
    env = {"JOUET_STORE_CONTENT": "0"}
    run_jouet("hook", "claude", "pre", input=claude_payload(f"git push {URL} main", repo), cwd=repo, env=env)
    run_jouet("check", "--tool", "Read", "--path", "secrets/prod.env", cwd=repo, env=env)
    [push, read] = _ledger()
    assert push["command"] is None and push["cwd"] is None and push["shape"] == "git push <arg> <arg>"
    assert read["path"] is None and read["tool"] == "Read"
