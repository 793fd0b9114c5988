"""`jouet setup claude`: merge hook entries into Claude Code's settings without touching the rest."""

from __future__ import annotations

import json
from pathlib import Path

from testing import make_repo, run_jouet

EXISTING = {
    "permissions": {"allow": ["Bash(npm test:*)"], "deny": ["Read(./.env)"]},
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/audit/log-bash.sh", "timeout": 5}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
    "zzz_unknown_key": [1, 2, 3],
}


def settings(home: Path) -> Path:
    return home / ".claude" / "settings.json"


def commands(data: dict, event: str) -> list[str]:
    return [h["command"] for e in data.get("hooks", {}).get(event, []) for h in e["hooks"]]


def test_fresh_install_adds_every_event(tmp_path: Path) -> None:
    home = Path(__import__("os").environ["HOME"])
    proc = run_jouet("setup", "claude", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(settings(home).read_text())
    pre = data["hooks"]["PreToolUse"][0]
    assert pre["matcher"] == "Bash|Read|Grep|Edit|Write|MultiEdit|NotebookEdit"
    assert pre["hooks"][0]["command"].endswith("hook claude pre")
    assert commands(data, "PostToolUse")[0].endswith("hook claude post")
    assert commands(data, "PostToolUseFailure")[0].endswith("hook claude post-failure")
    assert commands(data, "SessionStart")[0].endswith("hook claude session-start")
    assert "matcher" not in data["hooks"]["SessionStart"][0]


def test_merge_keeps_everything_else_backs_up_and_is_idempotent(tmp_path: Path) -> None:
    home = Path(__import__("os").environ["HOME"])
    path = settings(home)
    path.parent.mkdir(parents=True)
    original = json.dumps(EXISTING, indent=4)
    path.write_text(original)
    proc = run_jouet("setup", "claude", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(path.read_text())
    assert data["permissions"] == EXISTING["permissions"]
    assert data["model"] == "opus"
    assert data["zzz_unknown_key"] == [1, 2, 3]
    assert list(data) == list(EXISTING)  # key order kept
    assert commands(data, "Stop") == ["notify-send done"]
    pre = commands(data, "PreToolUse")
    assert pre[0] == "/opt/audit/log-bash.sh"
    assert pre[1].endswith("hook claude pre")
    backups = list(path.parent.glob("settings.json.jouet-backup-*"))
    assert len(backups) == 1 and backups[0].read_text() == original
    first = path.read_text()
    again = run_jouet("setup", "claude", cwd=tmp_path)
    assert again.returncode == 0
    assert "nothing to change" in again.stdout
    assert path.read_text() == first
    assert len(list(path.parent.glob("settings.json.jouet-backup-*"))) == 1


def test_uninstall_takes_out_only_jouet(tmp_path: Path) -> None:
    home = Path(__import__("os").environ["HOME"])
    path = settings(home)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(EXISTING))
    assert run_jouet("setup", "claude", cwd=tmp_path).returncode == 0
    proc = run_jouet("setup", "claude", "--uninstall", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(path.read_text()) == EXISTING


def test_unparsable_settings_are_refused_and_left_alone(tmp_path: Path) -> None:
    home = Path(__import__("os").environ["HOME"])
    path = settings(home)
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": {"PreToolUse": [}')
    proc = run_jouet("setup", "claude", cwd=tmp_path)
    assert proc.returncode == 2
    assert "is not valid JSON" in proc.stderr and str(path) in proc.stderr
    assert path.read_text() == '{"hooks": {"PreToolUse": [}'
    assert not list(path.parent.glob("*.jouet-backup-*"))


def test_project_and_dry_run(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    sub = repo / "src"
    sub.mkdir()
    proc = run_jouet("setup", "claude", "--project", "--dry-run", cwd=sub)
    assert proc.returncode == 0, proc.stderr
    assert "hook claude pre" in proc.stdout and "dry run" in proc.stdout
    target = repo / ".claude" / "settings.json"
    assert not target.exists()
    assert run_jouet("setup", "claude", "--project", cwd=sub).returncode == 0
    assert commands(json.loads(target.read_text()), "PreToolUse")[0].endswith("hook claude pre")
    overview = run_jouet("setup", "--json", cwd=sub)
    assert overview.returncode == 0, overview.stderr
    rows = json.loads(overview.stdout)["claude"]
    assert {r["scope"]: r["installed"] for r in rows} == {"user": False, "project": True}
